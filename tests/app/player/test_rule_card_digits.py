"""A slide's rule card reads from the back row (issue 20 §4): in presentation mode, every
step of every sample shows its rule card's digits at least DIGIT_PX tall on screen (the
height of a digit's glyph, as a reader measures it on a screenshot, not the font's pixel
size: the numbers' digits are 0.76 of it), the card whole in view and over
none of the cards that send or receive the step's cotangent; smaller only where the
card that large, on one row or a part a row, has no place in view clear of every card (the
framing keeps a rule card off every card: attention's step 20 at 1280 x 800, on one row,
fitted only over w_k's and w_v's values and was drawn with digits 7.8 px tall; a part a row it
docks clear, 9.6 px). An auditor measured lesson
14's rule cards (steps 5, 6, 8, 9, 11) at ~7 px at 1280 x 800: a step too large for the
back row's zoom was framed smaller, its rule card with its cards, down to the window's
legible size (9 px font, 6.8 px digits).

The measure is the glyph, not the font: DIGIT_PX is a digit's height on screen, what a reader
(or an auditor on a screenshot) sees; `digit_share` turns the card's type into it (0.76 of
the numbers' font size, DejaVu Sans Mono). The window's own floor, legible.READABLE_PX, is a
font size (9 px, digits 6.8 px tall): its docstring gives the count of window steps under 9 px
glyphs. Measured on main at c664f39 in presentation mode at 1280 x 800: one rule card under
9 px (attention's step 20, 7.8 px), the step's cards' digits under 9 px at 16 steps."""
import pytest
from PySide6.QtCore import QCoreApplication, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPicture

from app_ui import settle_presentation
from gradviz.app.player import card_rects, lessons, step_view
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render import text, tiles
from gradviz.render import painter as render_painter
from gradviz.render.involved import involved_nodes
from gradviz.render.legible import NUMBER_PT, READABLE_PX

SAMPLE_FILES = sorted(SAMPLES_DIR.glob("*.json"))
DIGIT_PX = {(1280, 800): 9.0, (1920, 1080): 11.0}   # a digit's height on screen, at least
RULE_DIGIT_PX = 9.0     # a docked rule card's digits in the window, where it has the room
EPS = 1e-6


def digit_share(font):
    """A digit's glyph height as a share of `font`'s pixel size (measured large)."""
    big = QFont(font)
    big.setPixelSize(200)
    return QFontMetricsF(big).tightBoundingRect("0123456789").height() / 200


def rule_card_digit_px(view, renderer, step):
    """The height (screen pixels) of the digits of the step's rule card's type: its
    matrices' numbers, its 'where' operands' and its labels' (8.5 pt), at the view's zoom
    times the card's own scale (its tile pictures: `tile_digit_px`)"""
    zoom = view.transform().m11() * renderer.formula_scale(step)
    px = view.logicalDpiY() / 72.0 * zoom * NUMBER_PT
    return min(px * digit_share(text.mono(NUMBER_PT)), px * digit_share(text.sans(NUMBER_PT)))


def tile_digit_px(view, renderer, step, monkeypatch):
    """The heights (screen pixels) of the digits each tile picture of the step's rule card
    writes in its cells, as the canvas paints the card at the view's zoom (a tile whose cells
    are small writes them in a smaller type than the card's; none where it writes none).
    Before: the conv-transpose lesson's accumulate step 5 wrote them 7.2 px tall at 1280 x
    800, 8.0 px at 1920 x 1080, beside a label that said the picture's shape as if it wrote
    none ('gradient · 1×5×5×1')."""
    layout = renderer.formula_layout(step)
    if not any(part[0] in ("array", "picture") and shown.kind == "tiles" for part, shown, *_ in layout.placed):
        return []
    written = []
    zoom = view.transform().m11()
    with monkeypatch.context() as patched:
        patched.setattr(tiles.Tiles, "_draw_numbers", lambda self, *args: written.append(self.number_pt))
        picture = QPicture()
        painter = QPainter(picture)
        renderer._paint_formula(painter, step, zoom)     # as the canvas records it (overlay)
        painter.end()
    zoom *= renderer.formula_scale(step)
    return [view.logicalDpiY() / 72.0 * zoom * pt * digit_share(text.mono(pt)) for pt in written]


def _clear_spot(seen, size, cards, step=6.0):
    """Is there a place for a card of `size` in `seen` that touches no card (a scan on a
    grid, independent of how the player docks)?"""
    w, h = size
    y = seen.top()
    while y + h <= seen.bottom():
        x = seen.left()
        while x + w <= seen.right():
            if not any(QRectF(x, y, w, h).intersects(card.adjusted(-2, -2, 2, 2)) for card in cards):
                return True
            x += step
        y += step
    return False


def _misses(w, path, size, monkeypatch):
    c, p = w.canvas, w.player
    out = []
    for step in p.steps:
        w.presentation.go(step.index)
        p.finish_animation()
        for _ in range(3):
            QCoreApplication.processEvents()
            while w.presentation._fit_pending:
                QCoreApplication.processEvents()
        r = c.renderer
        formula = render_painter.formula_rect(r, step)
        if formula is None:
            continue
        where = (path.stem, step.index + 1)
        digits = rule_card_digit_px(c, r, step)
        seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
        grow = DIGIT_PX[size] / digits * r.formula_scale(step)     # of its layout's size
        shapes = [r.formula_layout(step, rows) for rows in (False, True)]   # on one row, a part a row
        cards = [r.footprint(n) for n in r.doc.nodes if n in r.positions]
        if grow > r.formula_scale(step) + EPS and any(
                _clear_spot(seen, (shape.width * grow, shape.height * grow), cards) for shape in shapes):
            out.append(where + ("rule card's digits", round(digits, 1)))
        small = [px for px in tile_digit_px(c, r, step, monkeypatch) if px < DIGIT_PX[size] - EPS]
        if small:
            out.append(where + ("a tile picture's digits", round(min(small), 1)))
        if not seen.contains(formula):
            out.append(where + ("rule card not whole in view",))
        nodes = involved_nodes(r, step)
        for nid, card in zip(nodes, card_rects.involved_cards(r, step)):
            if formula.intersects(r.footprint(nid)):
                out.append(where + ("rule card over a card of the step", nid))
    return out


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_rule_card_reads_from_the_back_row(open_window, present, size, monkeypatch):
    w = open_window(None, size=size)
    present(w, size)
    w.setUpdatesEnabled(False)
    misses = []
    for path in SAMPLE_FILES:
        assert w.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        w.canvas.relayout_unplaced(READABLE_PX)   # as Fit to Window lays it out in the window
        misses += _misses(w, path, size, monkeypatch)
    w.presentation.exit()
    assert misses == [], f"{len(misses)} misses\n" + "\n".join(map(str, misses))


def _step_shown(w, stem, number):
    """Open lesson `stem` as the Lessons menu does and show its step `number` (1-based), in
    presentation mode if it is on; the step."""
    lesson = next(lesson for lesson in lessons.lesson_entries() if lesson.path.stem == stem)
    assert lessons.open_lesson(w, lesson, ask=False)
    settle_presentation(w)
    step = w.player.steps[number - 1]
    if w.presentation.active:
        w.presentation.go(step.index)
    else:
        w.player.set_index(step.index)
    w.player.finish_animation()
    settle_presentation(w)
    return step


def _docked_clear(w, step):
    """The step's rule card is docked whole in view, over no card."""
    c, r = w.canvas, w.canvas.renderer
    formula = render_painter.formula_rect(r, step)
    seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    assert r.docked_formula()[0] is step
    assert seen.contains(formula)
    assert [n for n in r.doc.nodes if formula.intersects(r.footprint(n))] == []


def test_a_docked_rule_card_reads_larger_than_the_window_s_cards(open_window):
    """Lesson 13's fan-in at x (step 22: five paths, one 780-wide row) in the window at 1280
    x 800: docked beside cards of the window's legible size (9 px type), its digits were as
    small as theirs (6.8 px tall); with room in view it is drawn larger, its digits
    RULE_DIGIT_PX tall."""
    w = open_window(None, size=(1280, 800))
    step = _step_shown(w, "001_higher_order", 22)
    c, r = w.canvas, w.canvas.renderer
    assert step_view.text_px(c) == pytest.approx(READABLE_PX)     # the cards: the window's size
    assert rule_card_digit_px(c, r, step) >= RULE_DIGIT_PX - EPS
    _docked_clear(w, step)


def test_a_slide_s_fan_in_card_stacks_its_rows_to_read_from_the_back_row(open_window, present):
    """Attention's fan-in at tokens x (step 20) in presentation mode at 1280 x 800: three 4 x 4
    matrices and their sum in one row found room only over w_k's and w_v's values, so it was
    drawn smaller, its digits 7.8 px tall; a part a row ('from V' / '+ from K' / '+ from Q' /
    '= sum') it docks clear of every card, its digits 9 px tall or more."""
    w = open_window(None, size=(1280, 800))
    present(w, (1280, 800))       # (before the lesson opens: no step framed twice)
    step = _step_shown(w, "nets_6_attention", 20)
    c, r = w.canvas, w.canvas.renderer
    assert rule_card_digit_px(c, r, step) >= DIGIT_PX[(1280, 800)] - EPS
    assert r.formula_layout(step).rows
    _docked_clear(w, step)
    w.presentation.exit()
