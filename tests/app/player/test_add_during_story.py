"""A card added with Tab while a story step is shown (issue 20 §3, §4): the teacher keeps the
view. The new card lands whole in view, off every card and off the step's formula card, and
the view neither zooms nor moves the formula card, and scrolls only when the view has no
free place, just enough to show the card (the walk-through saw the view shift ~270 px and
the new card land half off-screen: the edit's new story framed its step anew)."""
import pytest
from PySide6.QtCore import QCoreApplication, QPoint, Qt
from PySide6.QtGui import QCursor

from gradviz.app.canvas.editing import SHOW_MARGIN
from gradviz.app.player.lessons import lesson_entries, open_lesson
from gradviz.render import painter as render_painter


def _settle(qtbot, w):
    QCoreApplication.processEvents()
    qtbot.wait(30)                    # the player's frame timer and the canvas's repaint
    w.player.finish_animation()
    QCoreApplication.processEvents()


def _view(c):
    return c.transform().m11(), c.horizontalScrollBar().value(), c.verticalScrollBar().value()


@pytest.mark.parametrize("stem, step", [("001_input_gradient_regularization", 14),
                                        ("001_batchnorm_pitfall", 9),
                                        ("001_batchnorm_pitfall", 5)])
def test_a_card_added_with_tab_during_a_step_keeps_the_view(open_window, qtbot, stem, step):
    w = open_window(None, size=(1280, 800))
    assert open_lesson(w, next(entry for entry in lesson_entries() if entry.path.stem == stem), ask=False)
    w.player.set_index(step - 1)
    _settle(qtbot, w)
    c = w.canvas
    shown = w.player.step
    c.setFocus()
    port = c.viewport().rect()
    for fx, fy in ((0.5, 0.5), (0.95, 0.3), (0.1, 0.9), (0.9, 0.95)):
        view = _view(c)
        formula = render_painter.formula_rect(c.renderer, w.player.step)
        QCursor.setPos(c.viewport().mapToGlobal(QPoint(int(port.width() * fx), int(port.height() * fy))))
        qtbot.keyClick(c, Qt.Key.Key_Tab)
        assert c._quick.isVisible()
        qtbot.keyClicks(c._quick.edit, "relu")
        qtbot.keyClick(c._quick.edit, Qt.Key.Key_Return)
        _settle(qtbot, w)
        nid = list(w.controller.doc.nodes)[-1]
        card = c.node_items[nid].sceneBoundingRect()
        where = (stem, step, fx, fy)
        assert w.player.index == step - 1 and w.player.step.title == shown.title, where
        zoom = c.transform().m11()
        assert zoom == view[0], where
        seen = c.visible_rect()
        assert seen.contains(card), where
        if _view(c) != view:       # no free place in view: scrolled just enough to show it
            margin = (SHOW_MARGIN + 2) / zoom
            assert (card.left() - seen.left() < margin or seen.right() - card.right() < margin
                    or card.top() - seen.top() < margin or seen.bottom() - card.bottom() < margin), where
        assert render_painter.formula_rect(c.renderer, w.player.step) == formula, where
        assert not card.intersects(formula), where
