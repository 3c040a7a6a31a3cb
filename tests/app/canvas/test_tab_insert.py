"""Tab in a crowded view: the new card lands at the nearest free place to the pointer.

Through the real window at 1280 x 800: the pointer is put on the canvas, Tab opens the
search, 'exp' and Enter add the op. The place is compared with a brute-force search over
every place the view shows (a 2-unit grid of the scene): the card covers no card, lies
inside the view, and no free place is nearer the pointer than the one it got.
"""
import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QCursor

from gradviz.app.canvas.editing import SHOW_MARGIN, SPACING
from gradviz.app.window.main_window import SAMPLES_DIR

GRID = 2.0          # the brute-force search's step, scene units


def _free_corners(canvas, size, others):
    """Every top-left corner (a GRID lattice) where a card of `size` lies inside the view
    as the canvas keeps new cards (SHOW_MARGIN pixels in from its edges, so adding scrolls
    nothing) and SPACING / 2 from every card in `others` (scene rects)."""
    zoom = canvas.transform().m11()
    inset = (SHOW_MARGIN + 1) / zoom
    room = canvas.visible_rect().adjusted(inset, inset, -inset, -inset)
    width, height = size
    xs = np.arange(np.ceil(room.left()), room.right() - width + 1e-9, GRID)
    ys = np.arange(np.ceil(room.top()), room.bottom() - height + 1e-9, GRID)
    x, y = (g.ravel() for g in np.meshgrid(xs, ys))
    free = np.ones(x.shape, bool)
    gap = SPACING / 2
    for o in others:
        free &= ~((x - gap < o.right()) & (o.left() < x + width + gap)
                  & (y - gap < o.bottom()) & (o.top() < y + height + gap))
    return x[free], y[free]


def _reach(x, y, size, point):
    """How far `point` lies from a card of `size` at corner (x, y): 0 on the card."""
    width, height = size
    dx = np.maximum.reduce([x - point.x(), point.x() - x - width, np.zeros_like(x)])
    dy = np.maximum.reduce([y - point.y(), point.y() - y - height, np.zeros_like(y)])
    return np.hypot(dx, dy)


def _tab_add(qtbot, w, global_pos):
    canvas, controller = w.canvas, w.controller
    QCursor.setPos(global_pos)
    canvas.setFocus()
    before = set(controller.doc.nodes)
    qtbot.keyClick(canvas, Qt.Key.Key_Tab)
    popup = canvas._quick
    assert popup.isVisible()
    qtbot.keyClicks(popup.edit, "exp")
    qtbot.keyClick(popup.edit, Qt.Key.Key_Return)
    (new,) = [n for n in controller.doc.nodes if n not in before]
    return new


@pytest.mark.parametrize("sample", ["nets_6_attention.json",
                                    "001_input_gradient_regularization.json"])
def test_tab_adds_at_the_nearest_free_place_to_the_pointer(qtbot, open_window, sample):
    """Twenty pointer places over a crowded view, and the pointer off the canvas (then the
    view's centre is the place wanted). The canvas searched rings of 40-unit steps around
    the card held at the pointer, nearest ring first: in the attention lesson a card added
    with the pointer at the view's left edge landed 430 px from it where a place 115 px
    away was free, and 448 px where one 301 px away was."""
    w = open_window(SAMPLES_DIR / sample)
    canvas, controller = w.canvas, w.controller
    qtbot.waitUntil(lambda: not canvas.waiting_for_paint)
    port = canvas.viewport().rect()
    zoom = canvas.transform().m11()
    scroll = (canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value())
    cards = [item.sceneBoundingRect() for item in canvas.node_items.values()]
    free = None
    pointers = [QPoint(round(port.width() * fx), round(port.height() * fy))
                for fx in (0.04, 0.27, 0.5, 0.73, 0.96) for fy in (0.05, 0.35, 0.65, 0.95)]
    outside = w.inspector.mapToGlobal(w.inspector.rect().center())
    for at in pointers + [None]:
        new = _tab_add(qtbot, w, outside if at is None else canvas.viewport().mapToGlobal(at))
        card = canvas.node_items[new].sceneBoundingRect()
        size = (card.width(), card.height())
        assert (canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value()) == scroll
        assert canvas.visible_rect().contains(card), (at, card)
        assert not any(card.intersects(other) for other in cards), at
        if free is None:
            free = _free_corners(canvas, size, cards)
            assert len(free[0]), "the view has no free place: the test shows nothing"
        wanted = canvas.view_centre() if at is None else canvas.mapToScene(at)
        got = float(_reach(np.array([card.left()]), np.array([card.top()]), size, wanted)[0])
        best = float(_reach(*free, size, wanted).min())
        assert got <= best + 1.0, (sample, at, f"{got * zoom:.0f} px from the pointer, "
                                                f"a free place {best * zoom:.0f} px from it")
        controller.undo_stack.undo()
        qtbot.waitUntil(lambda: new not in canvas.node_items)
