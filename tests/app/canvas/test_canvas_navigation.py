"""Moving around the canvas: zoom, pan, fit to window, the grid and the scroll room."""
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtWidgets import QApplication

import app_ui


def test_zoom_pan_fit_grid_and_layout(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    canvas.reset_zoom()
    assert canvas.zoom_level() == pytest.approx(1.0)
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert canvas.zoom_level() == pytest.approx(1.25)
    qtbot.keyClick(canvas, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert canvas.zoom_level() == pytest.approx(1.0)
    qtbot.keyClick(canvas, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert canvas.zoom_level() == pytest.approx(1.0)
    canvas.fit()
    visible = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    for item in canvas.node_items.values():
        assert visible.contains(item.sceneBoundingRect().adjusted(0, 20, 0, 0))
    h = canvas.horizontalScrollBar().value()
    vp = canvas.viewport()
    qtbot.mousePress(vp, Qt.MouseButton.MiddleButton, pos=QPoint(400, 300))
    canvas.mouseMoveEvent(app_ui.mouse_move_event(QPoint(300, 300), Qt.MouseButton.MiddleButton))
    qtbot.mouseRelease(vp, Qt.MouseButton.MiddleButton, pos=QPoint(300, 300))
    assert canvas.horizontalScrollBar().value() == h + 100
    canvas.set_grid_visible(False)
    assert not canvas.grid_visible
    controller.move_nodes({nid: (0.0, 0.0) for nid in controller.doc.nodes})   # a pile of cards
    canvas.auto_layout()
    assert all(n.position is None for n in controller.doc.nodes.values())   # the canvas lays it out
    assert controller.undo_stack.undoText() == "Auto Layout"
    first = canvas.scene_item("tf_t").sceneBoundingRect()
    second = canvas.scene_item("tf_b").sceneBoundingRect()
    assert not first.adjusted(0, 24, 0, 0).intersects(second.adjusted(0, 24, 0, 0))


def test_wheel_scrolls_and_ctrl_wheel_zooms(qtbot, editor):
    from PySide6.QtGui import QWheelEvent
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    canvas.reset_zoom()
    vp = canvas.viewport()

    def wheel(dy, mods=Qt.KeyboardModifier.NoModifier):
        pos = QPointF(vp.rect().center())
        QApplication.sendEvent(vp, QWheelEvent(pos, vp.mapToGlobal(pos), QPoint(0, 0), QPoint(0, dy),
                                               Qt.MouseButton.NoButton, mods,
                                               Qt.ScrollPhase.NoScrollPhase, False))
    v = canvas.verticalScrollBar().value()
    wheel(-120)
    assert canvas.zoom_level() == pytest.approx(1.0)
    assert canvas.verticalScrollBar().value() > v
    wheel(120, Qt.KeyboardModifier.ControlModifier)
    assert canvas.zoom_level() > 1.1


def test_fit_shows_a_wide_graph_whole_and_draws_its_cards_compact(qtbot, editor):
    """Fit to Window fits every card (it stopped at 0.6 before, the rest a scroll away);
    at a zoom too far out for the numbers to read, the cards are drawn compact, and
    zooming back in draws them in full again."""
    from gradviz.render import legible
    controller, canvas, palette, _ = editor
    nodes = [controller.make_node("constant", "", (i * 320.0, 0.0)) for i in range(14)]
    controller.add_nodes(nodes, (), text="Add")
    canvas.fit()
    canvas.viewport().repaint()
    visible = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert all(visible.contains(app_ui.card_as_drawn(canvas, nid)) for nid in canvas.node_items)
    readable = legible.readable_zoom(canvas.logicalDpiY())
    assert canvas.zoom_level() < readable and canvas.compact
    canvas.zoom_by(readable / canvas.zoom_level() * 1.01, anchor_under_mouse=False)
    canvas.viewport().repaint()
    assert not canvas.compact


def test_fit_in_a_very_narrow_view_does_not_fail(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    canvas.resize(30, 500)
    canvas.fit()
    assert canvas.zoom_level() > 0


def test_fit_on_a_wide_and_tall_graph_shows_the_cards_at_the_inputs_end(qtbot, editor):
    """The corner of the graph's bounding box may be empty (a layered layout puts a long
    chain far down): Fit centres on the cards at the left end, not on the empty corner."""
    controller, canvas, palette, _ = editor
    nodes = [controller.make_node("constant", "", (i * 320.0, 3000.0)) for i in range(14)]
    nodes.append(controller.make_node("constant", "", (9000.0, 0.0)))
    controller.add_nodes(nodes, (), text="Add")
    canvas.fit()
    visible = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert visible.contains(canvas.scene_item(nodes[0].id).sceneBoundingRect())
    assert visible.contains(canvas.scene_item(nodes[1].id).sceneBoundingRect())


def test_a_card_dragged_far_away_stays_within_the_scroll_range(qtbot, editor):
    """After a drag the cards already stand where the move edit puts them, so the scene rect
    is measured on the drop (the canvas' sync sees no move)."""
    controller, canvas, _, _ = editor
    a = controller.add_node("constant", position=(0, 0))
    controller.add_node("constant", position=(300, 0))
    canvas.resetTransform()
    canvas.centerOn(0, 0)
    item = canvas.scene_item(a)
    vp = canvas.viewport()
    start = canvas.mapFromScene(item.scenePos() + QPointF(30, 8))
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 41):     # whole pixels at 100 %: the positions need no rounding
        qtbot.mouseMove(vp, start + QPoint(-100 * k, 0))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=start + QPoint(-4000, 0))
    assert controller.doc.nodes[a].position == (-4000.0, 0.0)
    assert canvas.sceneRect().contains(item.sceneBoundingRect())


def test_the_scroll_room_holds_every_item_and_the_view_and_shrinks_back(editor):
    """The scene rect is found from the cards and edges (not the scene's items): every item
    (ports, badges, problem lines included) and the view lie inside it with room to spare.
    A small change keeps it (a new scroll range repaints the whole view); the room shrinks
    again when a card far away comes back."""
    from gradviz.app.canvas.navigation import SPARE
    controller, canvas, _, _ = editor
    controller.open("samples/004_matmul_sum.json")
    value = controller.doc.nodes["tf_t"].value.copy()
    value.flat[0] = np.nan
    controller.set_value("tf_t", value)   # a problem line under the card
    app_ui.settle(canvas)

    def assert_holds_everything():   # the edge layer only says how far edges may be painted
        room = canvas.sceneRect()
        full = room.adjusted(SPARE - 1, SPARE - 1, 1 - SPARE, 1 - SPARE)   # cards and edges: all the room
        for nid, (x, y) in canvas.positions.items():
            card = canvas.renderer.cards[nid]
            assert full.contains(QRectF(x, y, card.width, card.height)), nid
        assert all(full.contains(item.boundingRect()) for item in canvas.edge_items.values())
        half = room.adjusted(SPARE / 2, SPARE / 2, -SPARE / 2, -SPARE / 2)   # what stands out of cards
        items = [item for item in canvas.scene().items() if item is not canvas.edge_layer]
        assert len(items) > 10 and all(half.contains(item.sceneBoundingRect()) for item in items)
        assert canvas.sceneRect().contains(canvas.mapToScene(canvas.viewport().rect()).boundingRect())
    assert any(item.problems for item in canvas.node_items.values())
    assert_holds_everything()
    first = QRectF(canvas.sceneRect())
    x, y = canvas.positions["tf_t"]
    controller.move_nodes({"tf_t": (x - 5000, y + 3000)})
    app_ui.settle(canvas)
    assert_holds_everything()
    far = QRectF(canvas.sceneRect())
    assert far.width() > first.width() + 4000
    controller.move_nodes({"tf_t": (x - 4960, y + 2970)})   # a small change keeps the scroll range
    app_ui.settle(canvas)
    assert_holds_everything()
    assert canvas.sceneRect() == far
    controller.move_nodes({"tf_t": (x, y)})
    app_ui.settle(canvas)
    assert_holds_everything()
    assert canvas.sceneRect() == first
    ox, oy = canvas.positions["y_tf"]   # the product left of its inputs: its edges loop out past the cards
    controller.move_nodes({"y_tf": (x - 2500, oy)})
    app_ui.settle(canvas)
    cards = QRectF()
    for nid, (cx, cy) in canvas.positions.items():
        cards = cards.united(QRectF(cx, cy, canvas.renderer.cards[nid].width, canvas.renderer.cards[nid].height))
    assert any(not cards.contains(item.boundingRect()) for item in canvas.edge_items.values())
    assert_holds_everything()

