"""A story step's formula card exists once on the canvas and is painted inside the step
overlay's bounds (a card painted outside them is left behind as a ghost when the view
scrolls), for the first step of lessons and after rebuilds: opening a lesson, switching
lessons, an edit, its undo, a study dock opening. Lesson 14's second '1/24' card (issue 20)
was a strip of the last step's card that the next step's scroll left on screen under X11:
the last test."""
from PySide6.QtCore import QRectF

from gradviz.app.canvas.overlay import StepOverlay
from gradviz.app.player.lessons import lesson_actions
from gradviz.render import painter as render_painter


def _one_card(w, where):
    overlays = [i for i in w.canvas.scene().items() if isinstance(i, StepOverlay)]
    assert len(overlays) == 1, where
    overlay = overlays[0]
    step = w.player.step
    if step is None:
        return
    assert overlay.step is step, where
    card = render_painter.formula_rect(w.canvas.renderer, step)
    if card is not None:
        assert overlay.boundingRect().contains(QRectF(card)), (where, card, overlay.boundingRect())


def test_a_steps_card_exists_once(open_window, qtbot):
    w = open_window()
    actions = lesson_actions(w.lessons_menu)
    for number in (1, 5, 14, 5, 14):                       # opening, and switching back and forth
        actions[number - 1].trigger()
        qtbot.wait(1)
        _one_card(w, f"lesson {number}")
    actions[13].trigger()                                  # input gradient regularization
    w.study_docks["Hessian"].show()
    qtbot.wait(50)
    _one_card(w, "lesson 14 with the Hessian dock")
    w.player.set_index(3)
    _one_card(w, "lesson 14, step 4")
    node = next(iter(w.controller.doc.nodes))
    w.controller.move_nodes({node: (40.0, 40.0)})
    w.controller.end_move()
    qtbot.wait(1)
    _one_card(w, "after a move")
    w.controller.undo_stack.undo()
    qtbot.wait(1)
    _one_card(w, "after its undo")


def test_a_new_step_repaints_where_the_last_one_was_in_scene_units(open_window, qtbot, monkeypatch):
    """When a step's overlay changes its bounds, where it was is repainted at once in scene
    units, not only later from where Qt last painted it on the viewport: under X11 the
    player's scroll to frame the new step (same event-loop turn) moves the pixels, and a
    strip of the old card stayed on screen behind the new one (lesson 14's second '1/24'
    card, reproduced with xdotool: Right pressed at start-up with the Hessian dock open;
    the offscreen platform repaints a scrolled view whole, so only the repaint is checked)."""
    from gradviz.app.window.main_window import SAMPLES_DIR
    w = open_window(SAMPLES_DIR / "001_input_gradient_regularization.json")
    w.player.set_index(0)
    qtbot.wait(20)
    overlay = w.canvas.step_overlay
    before = QRectF(overlay.boundingRect())
    scene = w.canvas.scene()
    repainted = []
    update = scene.update
    monkeypatch.setattr(scene, "update", lambda *rect: (repainted.extend(rect), update(*rect)))
    w.player.set_index(1, animate=True)                 # → : a smaller card, framed anew
    assert overlay.boundingRect() != before
    assert any(QRectF(r).contains(before) for r in repainted), (before, repainted)
