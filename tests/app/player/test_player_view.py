"""What the player puts on screen: the canvas framing of each step (a function of the step
index, never below a readable zoom) and the timeline of named steps."""
import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QTextDocument

import shared_walks
from gradviz.app.literal import WORD_JOINER
from gradviz.app.player import card_rects, framing, framing_step
from gradviz.app.player.bar_widgets import CAPTION_LINES, STEP_LABEL_W
from gradviz.app.player.timeline import StepStrip, set_caption
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.layout import layout
from gradviz.render.legible import READABLE_PX
from gradviz.render import painter as render_painter

SEED_003 = SAMPLES_DIR / "003_stop_gradient_product.json"
REGULARIZATION = SAMPLES_DIR / "001_input_gradient_regularization.json"
SEED_004 = SAMPLES_DIR / "004_matmul_sum.json"


@pytest.fixture
def window(open_window, qtbot):
    """window(path, size): the main window on `path`, shown (conftest's open_window)."""
    def make(path, size=(1280, 800)):
        w = open_window(path, size=size)
        qtbot.wait(50)       # the first fit the window queues on show
        return w
    return make


def _view(w):
    """(zoom, scene point at the viewport's centre) after every queued fit has run."""
    QCoreApplication.processEvents()
    c = w.canvas
    centre = c.mapToScene(c.viewport().rect().center())
    return c.transform().m11(), (centre.x(), centre.y())


def _visible(w):
    c = w.canvas
    return c.mapToScene(c.viewport().rect()).boundingRect()


@pytest.mark.parametrize("sample", [SEED_003, REGULARIZATION])
def test_the_view_of_a_step_does_not_depend_on_the_way_there(window, sample):
    w = window(sample)
    p = w.player
    n = len(p.steps)
    forward = {}
    for k in range(n):
        p.next()
        p.finish_animation()
        forward[k] = _view(w)
    w.canvas.zoom_by(0.3)                 # the user zooms out in between: no effect either
    for k in reversed(range(n)):
        p.set_index(k)
        zoom, (x, y) = _view(w)
        assert zoom == pytest.approx(forward[k][0], rel=1e-9), k
        assert (x, y) == pytest.approx(forward[k][1], abs=1.5 / zoom), k
    p.set_index(n - 1)
    p.set_index(2)
    assert _view(w)[1] == pytest.approx(forward[2][1], abs=2.0)


@pytest.mark.parametrize("sample", [SEED_003, REGULARIZATION])
@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)])
def test_every_step_is_framed_readable_with_its_card_in_view(window, sample, size):
    w = window(sample, size)
    p = w.player
    for k in range(len(p.steps)):
        p.set_index(k)
        QCoreApplication.processEvents()
        r = w.canvas.renderer    # the player lays out anew what Fit to Window folded
        step = p.step
        assert framing.text_px(w.canvas) >= READABLE_PX - 1e-6, k
        if step.node not in r.doc.nodes:
            continue
        seen = _visible(w)
        card = r.rect(step.node)
        assert seen.contains(card), (k, step.title)      # the active card, whole
        formula = render_painter.formula_rect(r, step)
        if formula is not None and formula.width() < seen.width():
            assert seen.intersected(formula).width() == pytest.approx(formula.width(), abs=1), k


def test_a_fan_in_whose_senders_are_out_of_its_frame_starts_on_them(window):
    """Lesson 14's fan-in at layer: its two paths come from inside t1.gradient(out, x), too far
    to frame with layer at a legible size at 1280x800. The step starts on the sender (the
    arrow leaving it) and the view follows the cotangent to layer and the formula card; at
    rest the view is the step's own, as without the animation."""
    w = window(REGULARIZATION)
    p, c, r = w.player, w.canvas, w.canvas.renderer
    # in one row, as placed by hand (Fit to Window folds the canvas's own layout into rows)
    sizes = {nid: (card.width, card.height) for nid, card in r.cards.items()}
    w.controller.move_nodes(layout(w.controller.doc, sizes, r.label_room()), merge=False)
    w.controller.end_move()
    QCoreApplication.processEvents()
    r = c.renderer
    k = next(s.index for s in p.steps if s.kind == "fan_in" and s.port.index == 0)
    p.set_index(k)
    rest = _view(w)
    assert not _visible(w).contains(r.rect("t1_gradient_out_x"))        # the sender is out of the frame
    p.set_index(k - 1)
    p.next()
    QCoreApplication.processEvents()
    assert p.animation.state() == p.animation.State.Running
    start = _visible(w)
    assert start.contains(r.rect("t1_gradient_out_x")), (start, r.rect("t1_gradient_out_x"))
    assert framing.text_px(c) >= READABLE_PX - 1e-6
    p.finish_animation()
    zoom, centre = _view(w)
    assert zoom == pytest.approx(rest[0], rel=1e-9) and centre == pytest.approx(rest[1], abs=1.5 / zoom)
    assert _visible(w).contains(r.rect("layer"))


def test_the_canvas_keeps_its_size_whatever_the_caption_says_and_after_an_edit(window, qtbot):
    """The caption's least height (two lines) was measured with the font's line spacing, a
    pixel shorter than the line the label lays out: a caption of one line left the canvas 2 px
    taller than one of two, so an edit or a step that rewrapped it framed the step anew; and
    a caption of four lines lost its last 2 px."""
    w = window(SEED_004)
    p, c = w.player, w.canvas
    sizes = {}
    for k in range(-1, len(p.steps)):
        p.set_index(k)
        QCoreApplication.processEvents()
        sizes[k] = c.viewport().size().toTuple()
    assert len(set(sizes.values())) == 1, sizes      # captions of one and of two lines
    p.set_index(2)
    qtbot.wait(50)
    w.controller.set_value("tf_t", w.controller.doc.nodes["tf_t"].value * np.float32(-2))
    qtbot.wait(100)                                   # the new story, the paint, the frame timer
    assert p.index == 2 and c.viewport().size().toTuple() == sizes[2]
    set_caption(p.caption, "a long caption " * 60)
    p._fit_caption()
    def laid_out(html):
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(p.caption.font())
        doc.setHtml(html)
        doc.setTextWidth(p.caption.width())
        return doc.size().height()
    line = laid_out("X")
    assert laid_out(p.caption.text()) > CAPTION_LINES[1] * line      # more than it shows
    assert p.caption.height() >= CAPTION_LINES[1] * line


def test_a_graph_that_fits_is_shown_whole_and_never_above_the_cap(window):
    w = window(SEED_004, (1440, 900))
    p = w.player
    for k in range(len(p.steps)):
        p.set_index(k)
        QCoreApplication.processEvents()
        seen = _visible(w)
        rects = framing_step.step_rects(w.canvas.renderer, p.step)
        assert seen.contains(rects[-1]), k          # every card and the formula card
        assert framing.readable_zoom(w.canvas) <= w.canvas.transform().m11() <= \
            framing.MAX_ZOOM + 1e-9


def test_centre_keeps_the_first_span_and_leans_towards_the_next():
    seen = 100.0
    # fits: centred on the span
    assert framing.spans_centre([(0, 60)], seen) == pytest.approx(30)
    # the must-span fits, the landing span to its left does not: the window's right edge
    # stays on the must-span's right edge, showing as much of the landing as it can
    assert framing.spans_centre([(200, 260), (-100, 260)], seen) == pytest.approx(210)
    # the must-span itself is too long: its start is shown
    assert framing.spans_centre([(0, 300), (-50, 300)], seen) == pytest.approx(50)
    # ... unless it fits when the margins give way: then it is centred
    assert framing.spans_centre([(0, 110), (-50, 110)], seen, full=120) == pytest.approx(55)


def test_timeline_names_every_step_and_a_click_goes_there(window, qtbot):
    w = window(SEED_003)
    p = w.player
    chips = p.timeline.chips
    assert len(chips) == len(p.steps) == 9
    for i, (chip, step) in enumerate(zip(chips, p.steps)):
        assert chip.text().startswith(f"{i + 1}  ")
        assert chip.text()[len(f"{i + 1}  "):].rstrip("…") in step.title
        assert step.title in chip.toolTip()
        assert chip.isVisibleTo(p)
    assert not any(c.isChecked() for c in chips)
    qtbot.mouseClick(chips[5], Qt.MouseButton.LeftButton)
    assert p.index == 5 and p.step.kind == "cut"
    assert chips[5].isChecked() and sum(c.isChecked() for c in chips) == 1
    p.last()
    assert chips[-1].isChecked()
    bar = p.timeline.horizontalScrollBar()
    qtbot.waitUntil(lambda: p.timeline.viewport().rect().intersects(
        chips[-1].geometry().translated(-bar.value(), 0)))
    p.set_index(-1)
    assert not any(c.isChecked() for c in chips)


def test_the_bar_is_as_tall_at_every_step_and_its_caption_starts_beside_the_name(window):
    """At 1024 x 768, where captions wrap most, the bar is as tall at every step of lesson
    001_reset (names of one and two lines, captions of two to four) and in the editing
    view: stepping never moves the canvas. Each caption starts beside its own name, so it
    takes the width: on main it started after the story's widest name (x 335 beside
    'Editing') and the bar was 116 px tall, not 100."""
    w = window(SAMPLES_DIR / "001_reset.json", size=(1024, 768))
    w.setUpdatesEnabled(False)       # the bar's geometry is read, nothing painted
    p = w.player
    heights, starts = set(), set()
    for i in range(-1, len(p.steps)):
        p.set_index(i)
        QCoreApplication.processEvents()
        heights.add(p.height())
        label = p.step_label
        assert p.caption.x() == label.x() + label.width() + p._caption_row.spacing(), i
        assert label.width() == min(STEP_LABEL_W, label.fontMetrics().horizontalAdvance(label.text()) + 2), i
        starts.add(p.caption.x())
    assert len(heights) == 1, heights
    assert min(starts) < 100 and len(starts) > 1, starts


def test_the_step_name_is_readable_at_1280(window):
    w = window(REGULARIZATION)
    p = w.player
    p.set_index(10)
    name = p.step_name(p.step)
    assert p.step_label.toolTip() == name
    shown = p.step_label.text().replace(WORD_JOINER, "")
    assert shown == name or (shown.endswith("…") and name.startswith(shown[:-1]))
    assert p.step_label.width() <= 400 and p.caption.width() > 400
    assert QRectF(p.rect()).contains(QRectF(p.caption.geometry()))


@pytest.mark.slow      # a walk over every lesson: xdist starts it first (tests/conftest.py)
@pytest.mark.walk("lessons 1280 x 800")
def test_every_step_name_of_every_sample_shows_whole_at_1280(walks, open_window):
    """The step bar's name of the step is never cut: at 1280 x 800 lesson 13's and 14's long
    names ('t1.gradient(out, x) → layer, inside t1.gradient(out, x)') were elided at 380
    px ('… → layer, insid…'); they wrap onto a second line, the name's row as tall
    (a name that wraps anew never moves the canvas) as the caption beside it. The bar is as
    tall at every step of a lesson and before its first: lesson 9's step 10, a caption of
    three lines, made it 16 px taller and the docks jumped. No caption loses a word.
    Checked at each step's first visit in the walk that test_labels_off_cards and
    test_stable_layout take too (shared_walks.stepped_lessons)."""
    cut, wrapped, heights, jumps = [], 0, set(), []
    for walk in shared_walks.stepped_lessons(walks, open_window):
        bar = {}
        for index, visit in sorted((iv for iv in walk["visits"] if "bar" in iv[1]), key=lambda iv: iv[0]):
            seen = visit["bar"]
            bar.setdefault(seen["height"], []).append(index + 1)
            if seen["caption"][0] > seen["caption"][1]:      # a word under the bar's edge
                cut.append((walk["stem"], index + 1, "caption"))
            if index < 0:
                continue
            label = seen["label"]
            wrapped += label["wrapped"] > 1.5 * label["line"]
            heights.add(label["height"] == seen["caption"][1])
            if label["text"] != label["name"] or label["wrapped"] > label["height"] \
                    or label["width"] > STEP_LABEL_W or not label["inside"]:
                cut.append((walk["stem"], index + 1, label["name"]))
        if len(bar) > 1:
            jumps.append((walk["stem"], bar))
    assert cut == [], "\n".join(map(str, cut))
    assert jumps == []                 # the bar as tall at every step of a lesson: the docks stay put
    assert wrapped > 0                 # lessons 13 and 14 have names that need two lines
    assert heights == {True}           # the name no taller than the caption beside it


def test_a_docked_formula_card_leaves_the_names_of_its_cards_in_view(window):
    """Where the formula card must lie over the step's cards (lesson 14's steps inside its
    layer, framed for presentation mode's 14 px), it covers their bodies, not their names:
    the card over the top of the layer hid whose step it was."""
    w = window(REGULARIZATION)
    c, p = w.canvas, w.player
    r = c.renderer
    docked = []
    for step in p.steps:
        frame = framing_step.step_frame(c, r, step, readable_px=14.0)
        if frame is None or frame[2] is None:
            continue
        docked.append(step.title)
        for card in card_rects.involved_cards(r, step):
            assert not frame[2].intersects(card_rects.name_strip(card)), step.title
    assert docked, "no step docked its formula card"


def test_a_step_restyles_only_the_chips_it_changes_and_a_new_story_replaces_the_row(qtbot):
    """The timeline restyles the chip left and the chip reached, not all of them: a new style
    relays the whole row out, so restyling every chip made each step cost the square of a
    40-step story's length. A new story's chips replace the old ones in the row at once, not
    when Qt gets round to deleting them."""
    strip = StepStrip()
    qtbot.addWidget(strip)
    strip.set_steps([f"step {i}" for i in range(40)], ["vjp"] * 40)
    restyled = []
    for chip in strip.chips:
        chip.setStyleSheet = lambda style, chip=chip, set_style=chip.setStyleSheet: (
            restyled.append(strip.chips.index(chip)), set_style(style))
    for index in range(40):
        restyled.clear()
        strip.set_current(index)
        assert sorted(restyled) == ([index - 1] if index else []) + [index]
        assert strip.chips[index].isChecked()
    restyled.clear()
    strip.set_current(-1)
    assert sorted(restyled) == list(range(40))
    old = strip.chips
    strip.set_steps(["seed", "sum"], ["seed", "sum"])
    in_row = [strip._row.itemAt(i).widget() for i in range(strip._row.count())]
    assert [chip for chip in in_row if chip is not None] == strip.chips
    assert not any(chip.isVisibleTo(strip) for chip in old)


def test_a_new_storys_chips_are_laid_out_whole_at_once(qtbot):
    """Opening lesson 33 from the menu, the chips read '1…t', '2…s' for seconds: the row of
    new chips, wider than the strip, was squeezed into it (each chip at its minimum, its
    words elided) until the next step's restyle laid the row out again."""
    from PySide6.QtWidgets import QApplication
    from gradviz.app.player.timeline import StepStrip
    strip = StepStrip()
    qtbot.addWidget(strip)
    strip.resize(600, 60)
    strip.show()
    names = [f"Visit layer{i} → dense{i}" for i in range(20)]
    strip.set_steps(names, ["visit"] * 20)
    QApplication.processEvents()
    assert [c.width() for c in strip.chips] == [c.sizeHint().width() for c in strip.chips]
    assert strip.horizontalScrollBar().maximum() > 0       # the row scrolls instead
