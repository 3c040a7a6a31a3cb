"""Every story step of every sample frames what it is about (issue 20 §4), in the window and
in presentation mode: the card that sends, the cards that receive and the whole formula card
in view at a legible size, the formula card hiding none of their names, nor any other card's
name where a free spot was there; where the cards the cotangent comes from cannot be framed
with the step's, the step starts on them. The step's arrows lie whole in view, each label
within a label's height of its arrow or joined to it by a leader line, and no other card is
cut by the view's edge where a slightly different pan shows it whole or not at all. In
presentation mode a step whose cards and formula card fit at the back row's size, the card
simply below or beside them, is shown at that size. A slide shows whole every card its
caption or rule card names (drawn smaller for that, never under 11 px), or names those that
cannot fit at the view's edge; nothing of the view lies under the caption band.
Each sample is laid out as Fit to Window lays it out in the window (folded where that shows
it larger) before its steps, as a teacher opens a lesson and then presents it."""
import pytest
from PySide6.QtCore import QCoreApplication, Qt

import framing_misses
import shared_walks
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.legible import READABLE_PX

SAMPLE_FILES = sorted(SAMPLES_DIR.glob("*.json"))


@pytest.mark.parametrize("presenting, size", [
    (False, (1280, 800)), (False, (1920, 1080)),
    pytest.param(True, (1280, 800), marks=pytest.mark.walk("presented 1280 x 800")),
    pytest.param(True, (1920, 1080), marks=pytest.mark.walk("presented 1920 x 1080"))])
@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
def test_every_step_of_every_sample_frames_what_it_is_about(walks, open_window, present, presenting, size,
                                                            monkeypatch):
    """In the window, and in presentation mode on a screen of `size` (the caption band's
    height taken from the view): the step's cards in view (its own card alone where all of
    them cannot fit at the legible zoom), the whole formula card too, docked (drawn smaller
    if it must, never under the legible size) where it hides none of their names. The walk
    in presentation mode checks the rule cards too (test_rule_card_digits): it steps once
    for both (shared_walks.presented)."""
    if presenting:
        misses = shared_walks.presented(walks, open_window, present, size, monkeypatch)["framing"]
    else:
        w = open_window(None, size=size)
        w.setUpdatesEnabled(False)     # nothing painted: the test reads the geometry, 3x faster
        misses = []
        for path in SAMPLE_FILES:
            assert w.open_sample(path, ask=False)
            QCoreApplication.processEvents()
            w.canvas.relayout_unplaced(READABLE_PX)   # as Fit to Window lays it out in the window: folded
            misses += framing_misses.misses(w, path, False, size)
    assert misses == [], "\n".join(map(str, misses))


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_auto_layout_frames_every_step_as_the_sample_opens(open_window, size):
    """Auto Layout (Ctrl+L) over a user's own arrangement (every card in one row, as a
    student builds it) gives the layout a sample gets on opening: every step of every
    sample framed as above; Undo gives the user's arrangement back, which nothing but Auto
    Layout replaces (playing the story over it moves no card)."""
    w = open_window(None, size=size)
    w.setUpdatesEnabled(False)
    misses = []
    for path in SAMPLE_FILES:
        assert w.open_sample(path, ask=False)
        doc = w.controller.doc
        row = {nid: (260.0 * i, 0.0) for i, nid in enumerate(doc.nodes)}
        w.controller.move_nodes(row, merge=False)
        w.controller.end_move()
        QCoreApplication.processEvents()
        if w.player.steps:        # the story plays over the user's arrangement: nothing moves
            w.player.set_index(0)
            w.player.finish_animation()
            QCoreApplication.processEvents()
            assert {nid: w.canvas.positions[nid] for nid in doc.nodes} == row, path.stem
        w.canvas.auto_layout()
        QCoreApplication.processEvents()
        misses += framing_misses.misses(w, path, False, size)
        w.controller.undo_stack.undo()
        QCoreApplication.processEvents()
        assert {nid: w.canvas.positions[nid] for nid in doc.nodes} == row, path.stem
    assert misses == [], "\n".join(map(str, misses))


def _open_study(w, qtbot, title="Jacobian"):
    """The study `title` opened as View ▸ Studies opens it, once it has its place."""
    entry = next(a for a in w.studies_menu.actions() if a.text() == title)
    entry.trigger()
    dock = w.study_docks[title]
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None and dock.isVisible())
    qtbot.wait(50)
    return dock


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
def test_a_study_open_leaves_every_step_framed(open_window, qtbot):
    """Measured on d15e384 with the Jacobian open (it docked along the bottom): at 1280 x 800
    the canvas was 376 px tall and 21 steps of 5 samples lost their framing (attention's
    fan-in showed none of V, K, Q; the tiny CNN's step 17 cut `filters w`); at 1920 x 1080,
    500 px and 3 steps of attention. A study opens where the canvas keeps the height the
    story is framed in: at 1280 x 800 beside the palette, the canvas keeping its size (so
    the test above, without a study, holds with one; here the samples that lost steps), at
    1920 x 1080 along the bottom (every step of every sample checked here)."""
    w = open_window(None, size=(1280, 800))
    port = w.canvas.viewport().size()
    dock = _open_study(w, qtbot)
    assert w.canvas.viewport().size() == port
    w.setUpdatesEnabled(False)
    misses = []
    for name in ("000_layer_hessian", "001_input_gradient_regularization", "nets_1_conv_transpose",
                 "nets_5_tiny_cnn", "nets_6_attention"):
        path = SAMPLES_DIR / f"{name}.json"
        assert w.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        w.canvas.relayout_unplaced(READABLE_PX)
        misses += framing_misses.misses(w, path, False, (1280, 800))
    assert dock.isVisible() and w.canvas.viewport().size() == port
    big = open_window(None, size=(1920, 1080))
    dock = _open_study(big, qtbot)
    assert big.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    big.setUpdatesEnabled(False)
    for path in SAMPLE_FILES:
        assert big.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        big.canvas.relayout_unplaced(READABLE_PX)
        misses += framing_misses.misses(big, path, False, (1920, 1080))
    assert dock.isVisible()
    assert misses == [], "\n".join(map(str, misses))


@pytest.mark.slow      # a walk over every lesson: xdist starts it first (tests/conftest.py)
@pytest.mark.parametrize("size", [pytest.param((1280, 800), marks=pytest.mark.walk("opened 1280 x 800")),
                                  pytest.param((1440, 900), marks=pytest.mark.walk("opened 1440 x 900")),
                                  pytest.param((1920, 1080), marks=pytest.mark.walk("opened 1920 x 1080"))])
def test_a_lesson_just_opened_shows_every_card_and_edge(walks, open_window, qtbot, size):
    """A lesson opened from the Lessons menu shows the whole document, as Fit to Window does:
    every card with its port names and every edge's line in view, drawn compact where the
    fitting zoom would draw their numbers under the legible size (the canvas draws compact
    below readable_zoom). On 697730b it framed step 1 (the seed) at the legible zoom
    instead: lesson 14 at 1280 x 800 cut x at the top, at 1440 x 900 the edge into out ran
    off the left edge. Stepping on frames each step for itself (the test above). Checked in
    the walk over the lessons just opened that test_fit_during_story's seed-card test takes
    too (shared_walks.opened_lessons)."""
    misses = shared_walks.opened_lessons(walks, open_window, qtbot, size)["view"]
    assert misses == [], "\n".join(map(str, misses))
