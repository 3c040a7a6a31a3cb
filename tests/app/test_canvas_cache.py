"""The canvas' cached pictures: the edge layer (every edge's line in one picture, the same
the edges would paint one by one, painted again only when an edge's route or look
changes) and the background grid (painted again only when the view moves or restyles)."""
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView

import app_ui
from gradviz.app.canvas_items import EdgeItem

SAMPLE = "samples/001_stop_gradient.json"   # 7 edges, one of them cut (dashed, with a cross)
NO_CONTENTS = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents


def pixels(canvas):
    """The viewport as the user sees it, painted now (the items' caches included)."""
    image = canvas.viewport().grab().toImage()
    bits = image.constBits()
    return np.frombuffer(bits, np.uint8).reshape(image.height(), image.bytesPerLine())[:, :image.width() * 4] \
        .reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def self_painted(canvas):
    """The viewport with every edge painting itself, as it did before the layer."""
    lifted = {item: item.lifted for item in canvas.edge_items.values()}
    for item in lifted:
        item.set_lifted(True)
    picture = pixels(canvas)
    for item, was in lifted.items():
        item.set_lifted(was)
    return picture


def assert_same_picture(a, b):
    """Equal but for antialiasing: the layer's cache is aligned to whole device pixels."""
    assert np.abs(a - b).max() <= 24 and (np.abs(a - b) > 4).sum() < 40


def changed_pixels(a, b):
    return int((np.abs(a - b).max(axis=2) > 40).sum())


@pytest.fixture
def canvas(open_window):
    w = open_window(SAMPLE)
    w.canvas.fit()
    app_ui.settle(w.canvas)
    return w.canvas


@pytest.fixture
def edge_paints(monkeypatch):
    """How many edges have been painted (by the layer or by themselves)."""
    count = [0]
    paint_line = EdgeItem.paint_line

    def counted(self, painter, zoom):
        count[0] += 1
        return paint_line(self, painter, zoom)
    monkeypatch.setattr(EdgeItem, "paint_line", counted)
    return count


def test_the_layer_shows_the_picture_the_edges_would_paint(canvas):
    layered = pixels(canvas)
    assert not any(item.lifted for item in canvas.edge_items.values())
    assert all(item.flags() & NO_CONTENTS for item in canvas.edge_items.values())
    assert_same_picture(layered, self_painted(canvas))
    canvas.edge_layer.setVisible(False)
    assert changed_pixels(layered, pixels(canvas)) > 200   # the layer is what shows the edges


def test_a_value_edit_paints_no_edge_and_a_move_paints_them_again(canvas, edge_paints):
    controller = canvas.controller
    before = pixels(canvas)
    edge_paints[0] = 0
    x = next(nid for nid, n in controller.doc.nodes.items() if n.value is not None)
    controller.set_value(x, np.asarray(controller.doc.nodes[x].value) + 1.5)
    app_ui.settle(canvas)
    after = pixels(canvas)
    assert changed_pixels(before, after) > 50   # the numbers changed
    assert edge_paints[0] == 0
    nid = next(iter(controller.doc.nodes))
    px, py = canvas.positions[nid]
    controller.move_nodes({nid: (px, py + 90)})
    app_ui.settle(canvas)
    moved = pixels(canvas)
    assert edge_paints[0] > 0 and changed_pixels(after, moved) > 50
    assert_same_picture(moved, self_painted(canvas))


def test_a_dragged_cards_edges_paint_themselves_until_the_drop(qtbot, canvas):
    controller = canvas.controller
    nid = next(e.dst.node for e in controller.doc.edges)
    own = {e for e in controller.doc.edges if nid in (e.src.node, e.dst.node)}
    item = canvas.scene_item(nid)
    before = pixels(canvas)
    vp = canvas.viewport()
    start = canvas.mapFromScene(item.scenePos() + QPointF(30, 8))
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 7):
        qtbot.mouseMove(vp, start + QPoint(0, 15 * k))
    assert {e for e, i in canvas.edge_items.items() if i.lifted} == own
    assert all(not i.flags() & NO_CONTENTS for e, i in canvas.edge_items.items() if e in own)
    assert_same_picture(pixels(canvas), self_painted(canvas))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=start + QPoint(0, 90))
    app_ui.settle(canvas)
    assert not any(i.lifted for i in canvas.edge_items.values())
    dropped = pixels(canvas)
    assert changed_pixels(before, dropped) > 200
    assert_same_picture(dropped, self_painted(canvas))


def test_a_removed_edge_leaves_the_picture_and_the_layer_shrinks(canvas):
    controller = canvas.controller
    before = pixels(canvas)
    sides = ("left", "top", "right", "bottom")

    def reach(rect):
        return (-rect.left(), -rect.top(), rect.right(), rect.bottom())
    items = canvas.edge_items
    edge, side = next((e, k) for k in range(4) for e, item in items.items()
                      if all(reach(item.boundingRect())[k] > reach(other.boundingRect())[k]
                             for f, other in items.items() if f != e))   # alone that far out
    controller.disconnect(edge)
    app_ui.settle(canvas)
    assert edge not in canvas.edge_items
    after = pixels(canvas)
    assert changed_pixels(before, after) > 30
    assert_same_picture(after, self_painted(canvas))
    assert reach(canvas.edge_layer.boundingRect())[side] == max(reach(i.boundingRect())[side]
                                                                for i in items.values()), sides[side]


def test_a_selected_edge_glows_under_its_line(canvas):
    item = next(iter(canvas.edge_items.values()))
    plain = pixels(canvas)
    item.setSelected(True)
    assert not item.flags() & NO_CONTENTS and item.zValue() < canvas.edge_layer.zValue()
    assert changed_pixels(plain, pixels(canvas)) > 100
    item.setSelected(False)
    assert item.flags() & NO_CONTENTS
    assert_same_picture(plain, pixels(canvas))


def test_the_cached_grid_follows_zoom_scroll_theme_and_the_grid_switch(canvas):
    assert canvas.cacheMode() & QGraphicsView.CacheModeFlag.CacheBackground

    def assert_fresh():
        shown = pixels(canvas)
        canvas.resetCachedContent()   # what a background painted now looks like
        assert (shown == pixels(canvas)).all()
        return shown
    first = assert_fresh()
    canvas.zoom_in()
    assert_fresh()
    canvas.horizontalScrollBar().setValue(canvas.horizontalScrollBar().value() + 37)
    assert_fresh()
    canvas.set_theme("dark")
    assert changed_pixels(first, assert_fresh()) > 1000
    canvas.set_grid_visible(False)
    assert_fresh()
