"""The palette and the Tab popup, driven like a user: every op listed, grouped and searched;
Tab adds a node where the pointer is, in view, its label whole (split from test_canvas.py)."""
import json

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QCursor

import gradviz as tf
from gradviz.app.canvas.palette import palette_entries
from gradviz.graph import catalog


def test_palette_lists_every_op_grouped_and_searches(qtbot, editor):
    controller, canvas, palette, _ = editor
    entries = palette_entries()
    ops = {e[2] for e in entries if e[1] == "op"}
    assert ops == set(catalog.OPS)
    assert {e[2] for e in entries if e[1] == "layer"} == set(catalog.LAYERS)
    assert {e[2] for e in entries if e[1] == "custom_gradient"} == set(catalog.CUSTOM_RULES)
    assert {e[0] for e in entries} == set(catalog.GROUPS)
    assert {e[3] for e in entries if e[1] == "role"} == {"Mark as target", "Mark as source",
                                                         "Set output_gradients"}
    for item, entry in palette.items:
        assert item.toolTip(0) == entry[4] and entry[4]
    palette.search.setText("softmax")
    shown = {e[2] for e in palette.visible_entries()}
    assert shown == {"nn.softmax", "nn.log_softmax", "nn.softmax_cross_entropy_with_logits",
                     "nn.sparse_softmax_cross_entropy_with_logits",
                     "losses.CategoricalCrossentropy", "losses.SparseCategoricalCrossentropy"}
    assert palette.groups["math"].isHidden()
    qtbot.keyClick(palette.search, Qt.Key.Key_Return)
    assert [n.op for n in controller.doc.nodes.values()] == ["nn.softmax"]
    palette.search.clear()
    assert len(palette.visible_entries()) == len(entries)


def test_long_entry_names_do_not_widen_the_palette(qtbot, editor):
    """tf.nn's cross-entropy names (up to 43 characters) are elided in the middle, whole in
    their tooltips and found by search; the palette keeps the width of the others."""
    _, _, palette, _ = editor
    metrics = palette.tree.fontMetrics()
    longest = max(palette.items, key=lambda pair: len(pair[0].text(0)))[0]
    assert longest.text(0) == "nn.sparse_softmax_cross_entropy_with_logits"
    assert "tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)" in longest.toolTip(0)
    assert palette.sizeHint().width() < metrics.horizontalAdvance(longest.text(0))
    short = max(metrics.horizontalAdvance(i.text(0)) for i, _ in palette.items
                if len(i.text(0)) <= 30)
    assert palette.sizeHint().width() >= short
    assert palette.tree.textElideMode() == Qt.TextElideMode.ElideMiddle


def test_quick_add_with_tab(qtbot, editor):
    controller, canvas, palette, _ = editor
    canvas.setFocus()
    at = QPoint(300, 200)
    qtbot.mouseMove(canvas.viewport(), at)
    popup = canvas.quick_add(canvas.mapToScene(at))
    qtbot.keyClicks(popup.edit, "reduce_sum")
    qtbot.keyClick(popup.edit, Qt.Key.Key_Return)
    (node,) = controller.doc.nodes.values()
    assert node.op == "reduce_sum"
    scene = canvas.mapToScene(at)
    assert abs(node.position[0] + 60 - scene.x()) < 1.5
    # The Tab key opens it too.
    qtbot.keyClick(canvas, Qt.Key.Key_Tab)
    assert canvas._quick.isVisible()
    qtbot.keyClicks(canvas._quick.edit, "Dense")
    qtbot.keyClick(canvas._quick.edit, Qt.Key.Key_Return)
    assert [n.op for n in controller.doc.nodes.values()] == ["reduce_sum", "Dense"]


def test_a_node_added_with_tab_lands_in_view_without_scrolling(qtbot, editor):
    """Tab with the pointer near the view's edges (the real key path: the popup reads the
    pointer): the card is added where the canvas shows it whole, and the canvas does not
    scroll while the view has room; every add scrolled it (170 px at the right edge)."""
    controller, canvas, _, _ = editor
    canvas.setFocus()
    port = canvas.viewport().rect()
    for fx, fy in ((0.97, 0.5), (0.03, 0.03), (0.97, 0.97), (0.5, 0.97), (0.03, 0.6)):
        QCursor.setPos(canvas.viewport().mapToGlobal(QPoint(int(port.width() * fx), int(port.height() * fy))))
        scroll = (canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value())
        qtbot.keyClick(canvas, Qt.Key.Key_Tab)
        assert canvas._quick.isVisible()
        qtbot.keyClicks(canvas._quick.edit, "relu")
        qtbot.keyClick(canvas._quick.edit, Qt.Key.Key_Return)
        nid = list(controller.doc.nodes)[-1]
        assert (canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value()) == scroll, (fx, fy)
        assert canvas.visible_rect().contains(canvas.node_items[nid].sceneBoundingRect()), (fx, fy)
    assert len(controller.doc.nodes) == 5


def test_tab_popup_stays_in_the_window_and_the_node_lands_at_the_pointer(qtbot, editor):
    """Tab near every edge of the canvas, empty and with a lesson's cards (004): the popup
    lies inside the window (it opened at the pointer and ran 110 px past the bottom of a
    1280 x 800 window); the new card covers no other card and lands at the pointer where
    there is room for it: at each edge of an empty canvas, and in the gap under y_tf
    where the auditor pressed Tab (an exp landed 330 px above it: the free space sought
    was the widest fresh card's, 282 x 165, not the exp's)."""
    controller, canvas, _, _ = editor
    window = canvas.window()
    window.resize(1280, 800)
    qtbot.wait(50)
    port = canvas.viewport().rect()
    edges = ((0.5, 0.97), (0.97, 0.97), (0.97, 0.5), (0.97, 0.03), (0.03, 0.03), (0.03, 0.97))

    def tab_at(at, free):
        canvas.setFocus()
        QCursor.setPos(canvas.viewport().mapToGlobal(at))
        qtbot.keyClick(canvas, Qt.Key.Key_Tab)
        popup = canvas._quick
        assert popup.isVisible()
        assert window.frameGeometry().contains(popup.frameGeometry()), (at, popup.frameGeometry())
        qtbot.keyClicks(popup.edit, "exp")
        qtbot.keyClick(popup.edit, Qt.Key.Key_Return)
        nid = list(controller.doc.nodes)[-1]
        item = canvas.node_items[nid]
        left, top, right, bottom = item.footprint()      # the card, its problem's line under it
        pointer = canvas.mapToScene(at)
        away = max(left - pointer.x(), pointer.x() - right, top - pointer.y(), pointer.y() - bottom, 0)
        if free:
            assert away <= 40, (at, away)
        bounds = item.sceneBoundingRect()
        assert canvas.visible_rect().contains(bounds), at
        for other, other_item in canvas.node_items.items():
            if other != nid:
                assert not bounds.intersects(other_item.sceneBoundingRect()), (at, other)
        controller.undo_stack.undo()

    for fx, fy in edges:
        tab_at(QPoint(int(port.width() * fx), int(port.height() * fy)), free=True)
    controller.open("samples/004_matmul_sum.json")
    qtbot.wait(50)
    for fx, fy in edges:
        tab_at(QPoint(int(port.width() * fx), int(port.height() * fy)), free=False)
    y_tf = canvas.node_items["y_tf"].sceneBoundingRect()
    gap = QPointF(y_tf.center().x(), min(y_tf.bottom() + 150, canvas.visible_rect().bottom() - 12))
    tab_at(canvas.mapFromScene(gap), free=True)


def test_the_tab_popup_shows_every_label_whole_near_the_right_edge(qtbot, editor):
    """At 1280 x 800, Tab near the right edge and 'softmax' typed: the list cut
    'nn.sparse_softmax_cross_entropy_with_logits  (nn' behind a horizontal scroll bar."""
    _, canvas, _, _ = editor
    window = canvas.window()
    window.resize(1280, 800)
    port = canvas.viewport().rect()
    at = QPoint(int(port.width() * 0.97), port.height() // 3)
    popup = canvas.quick_add(canvas.mapToScene(at))
    qtbot.keyClicks(popup.edit, "softmax")
    labels = [popup.list.item(i).text() for i in range(popup.list.count())]
    assert "nn.sparse_softmax_cross_entropy_with_logits  (nn)" in labels
    room = popup.list.viewport().width()
    metrics = popup.list.fontMetrics()
    for i, label in enumerate(labels):
        rect = popup.list.visualItemRect(popup.list.item(i))
        assert rect.left() >= 0 and metrics.horizontalAdvance(label) <= min(rect.right(), room), label
    assert not popup.list.horizontalScrollBar().isVisible()
    assert window.frameGeometry().contains(popup.frameGeometry())
    popup.close()
