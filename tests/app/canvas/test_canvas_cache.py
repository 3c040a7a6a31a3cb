"""What the canvas paints once and keeps: the edge layer (every edge's line painted by
one item, the same lines the edges' renderer draws, none that cards hide) and the cached
background grid (painted again only when the view moves or restyles)."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QPainterPath, QRegion
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView

import app_ui
from gradviz.app.canvas.edges import changed_part
from gradviz.graph.document import Port

SAMPLE = "samples/001_stop_gradient.json"   # 7 edges, one of them cut (dashed, with a cross)
NO_CONTENTS = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents


def pixels(canvas):
    """The viewport as the user sees it, painted now."""
    image = canvas.viewport().grab().toImage()
    bits = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return bits[:, :image.width() * 4].reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def changed_pixels(a, b):
    return int((np.abs(a - b).max(axis=2) > 40).sum())


class PaintedRegion(QObject):
    """The union of the regions the viewport repainted since `clear()`."""

    def __init__(self, viewport):
        super().__init__(viewport)
        self.region = QRegion()
        viewport.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            self.region = self.region.united(event.region())
        return False

    def clear(self):
        self.region = QRegion()

    def covers(self, rect):
        return QRegion(rect).subtracted(self.region).isEmpty()


@pytest.fixture
def canvas(open_window):
    w = open_window(SAMPLE)
    w.canvas.fit()
    app_ui.settle(w.canvas)
    return w.canvas


def device_rect(canvas, scene_rect):
    """Where `scene_rect` is drawn in the viewport (whole pixels, clipped to it)."""
    return canvas.mapFromScene(scene_rect).boundingRect().intersected(canvas.viewport().rect())


def assert_layer_holds_every_edge(canvas):
    layer = canvas.edge_layer.boundingRect()
    assert all(layer.contains(item.boundingRect()) for item in canvas.edge_items.values())


def test_the_layer_paints_every_edge_and_the_items_paint_nothing(canvas):
    assert all(item.flags() & NO_CONTENTS for item in canvas.edge_items.values())
    assert_layer_holds_every_edge(canvas)
    shown = pixels(canvas)
    canvas.edge_layer.setVisible(False)
    hidden = pixels(canvas)
    for item in canvas.edge_items.values():   # each edge's line is the layer's
        where = device_rect(canvas, item.boundingRect())
        assert changed_pixels(shown[where.top():where.bottom(), where.left():where.right()],
                              hidden[where.top():where.bottom(), where.left():where.right()]) > 10, item.edge


def test_a_dragged_card_repaints_where_its_edges_were_and_are(qtbot, canvas):
    """Each step of a drag repaints where the card's edges were and are drawn otherwise
    (the stretch of a route that changed, or all of it), and the screen is then what a
    fresh picture of every edge gives."""
    controller = canvas.controller
    nid = next(e.dst.node for e in controller.doc.edges)
    own = [item for e, item in canvas.edge_items.items() if nid in (e.src.node, e.dst.node)]
    item = canvas.scene_item(nid)
    painted = PaintedRegion(canvas.viewport())
    vp = canvas.viewport()
    start = canvas.mapFromScene(item.scenePos() + QPointF(30, 8))
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 7):
        before = [(QRectF(i.boundingRect()), QPainterPath(i._path)) for i in own]
        painted.clear()
        qtbot.mouseMove(vp, start + QPoint(0, 15 * k))
        qtbot.waitUntil(lambda: not painted.region.isEmpty())
        for (old, old_path), edge in zip(before, own):
            assert edge._path != old_path
            part = changed_part(old_path, edge._path) or old.united(edge.boundingRect())
            assert painted.covers(device_rect(canvas, part)), "the old line would stay on screen"
        shown = pixels(canvas)
        canvas.edge_layer.refit()
        assert (pixels(canvas) == shown).all(), "the screen is not what a fresh picture gives"
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=start + QPoint(0, 90))
    app_ui.settle(canvas)
    assert_layer_holds_every_edge(canvas)


def test_a_card_moved_far_away_keeps_its_edges_in_the_layer(canvas):
    controller = canvas.controller
    nid = next(e.dst.node for e in controller.doc.edges)
    px, py = canvas.positions[nid]
    controller.move_nodes({nid: (px + 2500, py + 1500)})
    app_ui.settle(canvas)
    assert_layer_holds_every_edge(canvas)
    canvas.centerOn(px + 2500, py + 1500)
    shown = pixels(canvas)
    canvas.edge_layer.setVisible(False)
    assert changed_pixels(shown, pixels(canvas)) > 10   # its edges are drawn out there


def test_a_removed_edge_repaints_where_it_was(qtbot, canvas):
    controller = canvas.controller
    painted = PaintedRegion(canvas.viewport())
    for edge in list(controller.doc.edges):
        where = device_rect(canvas, canvas.edge_items[edge].boundingRect())
        painted.clear()
        controller.disconnect(edge)
        app_ui.settle(canvas)
        qtbot.waitUntil(lambda: not painted.region.isEmpty())
        assert edge not in canvas.edge_items and painted.covers(where)


def test_a_new_edge_is_drawn(canvas):
    controller = canvas.controller
    right = max(x for x, _ in canvas.positions.values())
    source = controller.add_node("constant", position=(right + 400, 0))
    sink = controller.add_node("op", "tanh", position=(right + 700, 0))
    canvas.centerOn(right + 500, 0)
    app_ui.settle(canvas)
    before = pixels(canvas)
    controller.connect(Port(source), Port(sink, 0))
    app_ui.settle(canvas)
    assert_layer_holds_every_edge(canvas)
    new = next(item for e, item in canvas.edge_items.items() if e.dst.node == sink)
    where = device_rect(canvas, new.boundingRect())
    assert not where.isEmpty()
    after = pixels(canvas)
    assert changed_pixels(before[where.top():where.bottom(), where.left():where.right()],
                          after[where.top():where.bottom(), where.left():where.right()]) > 10


def test_an_edge_is_cut_when_its_node_becomes_stop_gradient_and_whole_again_after(canvas):
    """The cut mark follows the op of the node an edge goes into (the canvas asks the
    edges again only when what cuts changes: the ops that cut, the stop_recording region)."""
    controller = canvas.controller
    into = canvas.edge_items[next(e for e in controller.doc.edges if e.dst.node == "y_sq_stopped")]
    assert into._cut
    cut = pixels(canvas)
    controller.set_field("y_sq_stopped", "op", "identity")
    app_ui.settle(canvas)
    assert not into._cut and changed_pixels(cut, pixels(canvas)) > 50   # no cross, no dashes
    controller.set_field("y_sq_stopped", "op", "stop_gradient")
    app_ui.settle(canvas)
    assert into._cut


def test_a_selected_edge_glows_under_its_line(canvas):
    item = next(iter(canvas.edge_items.values()))
    plain = pixels(canvas)
    item.setSelected(True)
    assert not item.flags() & NO_CONTENTS and item.zValue() < canvas.edge_layer.zValue()
    assert changed_pixels(plain, pixels(canvas)) > 100
    item.setSelected(False)
    assert item.flags() & NO_CONTENTS
    assert changed_pixels(plain, pixels(canvas)) == 0


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


def test_the_layer_is_never_what_a_click_hits(canvas):
    edge, item = next(iter(canvas.edge_items.items()))
    on_line = canvas.mapFromScene(item._path.pointAtPercent(0.5))
    assert canvas.itemAt(on_line) is item
    empty = canvas.mapFromScene(canvas.edge_layer.boundingRect().topLeft() + QPointF(5, 5))
    assert canvas.itemAt(empty) is None


def crowded_chain(n=24, per_row=6, step=(150.0, 110.0)):
    """x and a chain of n tanh cards placed closer than their size: each card covers
    most of the edge that leaves the card before it."""
    from gradviz.graph.document import CONSTANT, OP, Document, Node
    doc = Document(title="crowded")
    doc.add(Node("x", CONSTANT, value=np.ones((4, 4), np.float32)))
    previous = "x"
    for i in range(n):
        doc.add(Node(f"t{i}", OP, op="tanh"))
        doc.connect(previous, f"t{i}")
        previous = f"t{i}"
    for i, node in enumerate(doc.nodes.values()):
        node.position = (step[0] * (i % per_row), step[1] * (i // per_row))
    # x's ones read 1.000 among the chain's decimals (issue 20 §5: one format per tensor),
    # a card 229 px wide, not 132: it stands 100 px further left, so that it leaves its
    # edge to t0 in view as before (over it, a fresh picture strokes one edge fewer)
    doc.nodes["x"].position = (-100.0, 0.0)
    return doc


def culled_and_full(canvas, monkeypatch):
    """The viewport painted afresh as it is, and painted afresh with every edge stroked."""
    from gradviz.app.canvas.edges import EdgeLayer
    canvas.edge_layer.refit()
    culled = pixels(canvas)
    with monkeypatch.context() as m:
        m.setattr(EdgeLayer, "hidden_edges", lambda self, zoom: set())
        canvas.edge_layer.refit()
        full = pixels(canvas)
    return culled, full


@pytest.mark.parametrize("zoom", [1.0, 0.6, 0.3])
def test_edges_wholly_under_cards_are_not_stroked_and_the_picture_is_the_same(monkeypatch, canvas, zoom):
    from gradviz.app.canvas.edges import EdgeItem
    canvas.controller.set_document(crowded_chain())
    app_ui.settle(canvas)
    canvas.resetTransform()
    canvas.scale(zoom, zoom)
    canvas.centerOn(canvas.scene().itemsBoundingRect().center())
    app_ui.settle(canvas)
    hidden = canvas.edge_layer.hidden_edges(zoom)
    assert 10 <= len(hidden) < len(canvas.edge_items)
    stroked = []
    monkeypatch.setattr(EdgeItem, "paint_line", lambda self, painter, z: stroked.append(self))
    canvas.viewport().update()
    pixels(canvas)
    assert stroked and not set(stroked) & hidden
    monkeypatch.undo()
    culled, full = culled_and_full(canvas, monkeypatch)
    assert (culled == full).all()


def lid_document(controller, canvas):
    """The crowded chain, and below it a -> b with a card (the lid) lying over that edge:
    (the document, a's width, where a stands)."""
    from gradviz.graph.document import CONSTANT, OP, Node
    from gradviz.render.cards import PORT_R
    doc = crowded_chain()
    doc.add(Node("a", CONSTANT, value=np.ones((2, 2), np.float32)))
    doc.add(Node("b", OP, op="tanh"))
    doc.add(Node("lid", CONSTANT, value=np.arange(30, dtype=np.float32).reshape(6, 5) / 7))   # 180 tall
    # (numbers that differ: drawn compact, ones are written 'all 1', a card too short to cover)
    doc.connect("a", "b")
    controller.set_document(doc)
    app_ui.settle(canvas)
    a_w, lid_w = canvas.renderer.cards["a"].width, canvas.renderer.cards["lid"].width
    below = max(y for _, y in canvas.positions.values()) + 400
    # b starts 20 after a ends; the lid, from 80 before a's end to past b's start, covers
    # both ports: the edge has no way around it and only the lid covers the gap
    controller.move_nodes({"a": (0, below), "b": (a_w + 20, below), "lid": (a_w - 80, below - 40)})
    app_ui.settle(canvas)
    assert lid_w > 100 + PORT_R
    return doc, a_w, below


def test_an_edge_uncovered_by_a_card_moved_away_is_stroked_again(monkeypatch, canvas):
    """A card that is not one of the edge's ends lies over it: moving that card away
    changes no route, only what covers the edge."""
    controller = canvas.controller
    doc, a_w, below = lid_document(controller, canvas)
    canvas.fit()
    app_ui.settle(canvas)
    zoom = canvas.transform().m11()
    edge = canvas.edge_items[next(e for e in doc.edges if e.src.node == "a")]
    assert edge in canvas.edge_layer.hidden_edges(zoom)
    route = QRectF(edge.boundingRect())
    controller.move_nodes({"lid": (a_w - 80, below + 600)})
    app_ui.settle(canvas)
    canvas.viewport().update()
    app_ui.settle(canvas)
    assert edge.boundingRect() == route and edge not in canvas.edge_layer.hidden_edges(zoom)
    culled, full = culled_and_full(canvas, monkeypatch)
    assert (culled == full).all()


def test_after_cards_move_or_resize_the_edges_under_cards_are_found_as_from_scratch(monkeypatch, canvas):
    """The layer tests again only the edges routed anew and those where a card was or is:
    after each change the edges it skips are those a test of every edge finds."""
    import math
    from gradviz.app.canvas import edges as canvas_edges
    from gradviz.render.cards import CORNER_R
    controller = canvas.controller
    lid_document(controller, canvas)
    canvas.fit()
    app_ui.settle(canvas)
    zoom = canvas.transform().m11()
    layer = canvas.edge_layer
    tested = []
    covered = canvas_edges._covered
    monkeypatch.setattr(canvas_edges, "_covered",
                        lambda items, cards, rim: tested.append(len(items)) or covered(items, cards, rim))

    def from_scratch():
        """Every edge tested against one region of every card's inside."""
        rim, corner = max(1.0, math.ceil(2.0 / zoom)), CORNER_R
        cover = QRegion()
        for nid, item in canvas.node_items.items():
            (x, y), w, h = canvas.positions[nid], item.card.width, item.card.height
            for left, top, right, bottom in ((x + corner, y + rim, x + w - corner, y + h - rim),
                                             (x + rim, y + corner, x + w - rim, y + h - corner)):
                left, top = math.ceil(left), math.ceil(top)
                cover += QRect(left, top, max(0, math.floor(right) - left), max(0, math.floor(bottom) - top))
        return {edge for edge in canvas.edge_items.values()
                if QRegion(edge.boundingRect().toAlignedRect()).subtracted(cover).isEmpty()}

    found = [set(layer.hidden_edges(zoom))]
    assert found[0] == from_scratch()
    x, y = canvas.positions["lid"]
    t3 = canvas.positions["t3"]
    for change, alone in ((lambda: controller.move_nodes({"lid": (x, y + 600)}), True),   # uncovers a -> b
                          (lambda: controller.move_nodes({"lid": (x, y)}), True),         # and covers it
                          (lambda: controller.move_nodes({"t3": (t3[0] + 30, t3[1] + 20)}), True),
                          (lambda: controller.set_value("x", np.ones((2, 2), np.float32)), False)):  # all narrower
        tested.clear()
        change()
        app_ui.settle(canvas)   # (a repaint of most of the view asks the layer already)
        found.append(set(layer.hidden_edges(zoom)))
        assert found[-1] == from_scratch()
        assert len(tested) == 1 and (tested[0] < len(canvas.edge_items) / 2 if alone else tested[0] > 0)
    assert found[1] != found[0] and found[2] == found[0] and found[4] != found[3]
    tested.clear()
    assert set(layer.hidden_edges(zoom)) == found[-1] and tested == []   # kept while nothing moves


class Strokes:
    """Counts the edges the layer strokes (into its picture or onto the view)."""

    def __init__(self, monkeypatch):
        from gradviz.app.canvas.edges import EdgeItem
        self.items = []
        stroke = EdgeItem.paint_line
        monkeypatch.setattr(EdgeItem, "paint_line",
                            lambda item, painter, zoom: self.items.append(item) or stroke(item, painter, zoom))


def within_rounding(picture, direct):
    """A line stroked into the picture (premultiplied, 8 bits) and then laid over the view
    differs from one stroked onto the view by at most one level per channel, but by two at
    no more than one pixel in 10 000: where it crosses a grid line, rounded once more (seen:
    a vertical edge over the grid's rows, 4 pixels, 138 against 140 in green, once the
    compact cards' type grew to 9 px digits and moved it)."""
    diff = np.abs(picture.astype(int) - direct.astype(int)).max(axis=2)
    crossings = np.count_nonzero(diff > 1)
    return int(diff.max()) <= 2 and crossings <= 1e-4 * diff.size


def fresh_and_direct(canvas, monkeypatch):
    """The viewport with the edge layer's picture painted afresh, and with the layer
    stroking onto the view (no picture)."""
    from gradviz.app.canvas.picture import LayerPicture
    canvas.edge_layer.refit()
    fresh = pixels(canvas)
    with monkeypatch.context() as m:
        m.setattr(LayerPicture, "usable", lambda self, painter, widget: False)
        canvas.viewport().update()
        direct = pixels(canvas)
    return fresh, direct


def test_a_value_edit_copies_the_edges_picture_and_strokes_no_edge(monkeypatch, canvas):
    controller = canvas.controller
    controller.set_document(crowded_chain())
    app_ui.settle(canvas)
    canvas.fit()
    app_ui.settle(canvas)
    pixels(canvas)
    strokes = Strokes(monkeypatch)
    painted = PaintedRegion(canvas.viewport())
    controller.set_value("x", np.full((4, 4), 2.0, np.float32))   # numbers as wide as before
    app_ui.settle(canvas)
    shown = pixels(canvas)
    assert painted.covers(canvas.viewport().rect())   # every card's numbers changed
    assert strokes.items == []
    fresh, direct = fresh_and_direct(canvas, monkeypatch)
    assert strokes.items   # (the fresh picture strokes them)
    assert (shown == fresh).all() and within_rounding(shown, direct)


def view_as_fit_left_it(canvas):
    """The view these steps were judged in, as Fit to Window left it before it showed
    every card (it went no further out than 0.6, then showed the inputs' end). Where Fit
    lands now, two pixels of an edge's end come out 2 levels off in the direct stroke
    (checked: the code before compact cards does so at that view too)."""
    items = list(canvas.node_items.values())
    rect = QRectF()
    for item in items:   # the cards' bounds as they were then (no compact name standing out)
        w, h = item.card.width, item.card.height
        bounds = QRectF(-8, -26, w + 16, h + 34).united(QRectF(-4, -26, 200, 4))
        rect = rect.united(item.mapRectToScene(bounds | item.childrenBoundingRect()))
    rect = rect.adjusted(-24, -24, 24, 24)
    port = canvas.viewport().rect()
    zoom = min((port.width() - 4) / rect.width(), (port.height() - 4) / rect.height())   # fitInView
    canvas._set_scale(min(max(zoom, 0.6), 1.25))
    if zoom >= 0.6:
        canvas.centerOn(rect.center())
        return
    view = canvas.mapToScene(port).boundingRect()
    near = sorted(r.center().y() for r in (i.sceneBoundingRect() for i in items)
                  if r.left() < rect.left() + view.width())
    y = near[len(near) // 2]
    y = min(max(y, rect.top() + view.height() / 2), rect.bottom() - view.height() / 2) \
        if rect.height() > view.height() else rect.center().y()
    canvas.centerOn(min(rect.center().x(), rect.left() + view.width() / 2), y)


def test_the_edges_picture_after_edits_moves_and_scrolls_is_a_fresh_one(monkeypatch, canvas):
    """Routes change, a card that hid edges moves away and back, an edge goes, one comes,
    one is cut, the view scrolls: each time the picture, painted again only in parts, is
    the picture painted afresh (after a scroll, moved by whole pixels as Qt moves the
    view's own, within a few levels where a cut mark's circle lies), and what stroking
    onto the view gives."""
    controller = canvas.controller
    # Here cards stay where the steps put them, so that each step changes only what it
    # names (cards that grow push others aside: test_canvas_room).
    monkeypatch.setattr(type(canvas), "make_room_soon", lambda view, grown: None)
    doc, a_w, below = lid_document(controller, canvas)
    view_as_fit_left_it(canvas)
    app_ui.settle(canvas)
    pixels(canvas)
    lid = canvas.positions["lid"]
    chain = next(e for e in doc.edges if e.src.node == "t3")
    hbar, vbar = canvas.horizontalScrollBar(), canvas.verticalScrollBar()
    steps = [
        ("uncover a -> b", lambda: controller.move_nodes({"lid": (lid[0], lid[1] + 300)})),
        ("cover it again", lambda: controller.move_nodes({"lid": lid})),
        ("move a card", lambda: controller.move_nodes({"t8": (canvas.positions["t8"][0] + 40,
                                                              canvas.positions["t8"][1] + 25)})),
        # numbers that differ, so every card keeps a heat thumbnail (ones: 'all 1' and 'all
        # 0.762' written, each card a line shorter, and after the cut its mark's circle two
        # levels off in a few pixels, as a scroll's is)
        ("resize every card", lambda: controller.set_value("x", np.linspace(0.5, 1, 12, dtype=np.float32).reshape(2, 6))),
        ("remove an edge", lambda: controller.disconnect(chain)),
        ("add an edge", lambda: controller.connect(Port("t3"), Port("b", 0))),
        ("cut an edge", lambda: controller.set_tape(stop_recording=["t5"])),
        # the chain reaches out of view (three steps: the 1280x800 window's canvas is ~920 px
        # wide since its docks share one side)
        ("zoom in", lambda: (canvas.zoom_in(), canvas.zoom_in(), canvas.zoom_in())),
        ("scroll right", lambda: hbar.setValue(hbar.value() + 37)),
        ("scroll up", lambda: vbar.setValue(vbar.value() - 23)),
    ]
    strokes = Strokes(monkeypatch)
    from gradviz.app.canvas.picture import LayerPicture
    wholes = []
    paint_whole = LayerPicture._paint_whole
    monkeypatch.setattr(LayerPicture, "_paint_whole", lambda *a: wholes.append(1) or paint_whole(*a))
    partial = []
    for name, step in steps:
        strokes.items.clear()
        wholes.clear()
        step()
        app_ui.settle(canvas)
        shown = pixels(canvas)
        partly, painted_whole = len(strokes.items), bool(wholes)
        canvas.edge_layer.refit()
        fresh = pixels(canvas)
        whole = len(strokes.items) - partly
        _, direct = fresh_and_direct(canvas, monkeypatch)
        if name.startswith("scroll"):
            assert np.abs(shown - fresh).max() <= 4 and (shown != fresh).any(axis=2).sum() < 200, name
            assert partly, name   # edges came into view
        else:
            assert (shown == fresh).all(), name
        assert within_rounding(fresh, direct), name
        assert partly <= whole, name   # no more than a fresh picture strokes
        if not painted_whole:
            partial.append(name)
    # the steps that change much (every card resized; a chain's cards losing their values)
    # may paint the whole picture; those that change a little paint only that (a small
    # part strokes the few edges that meet it, even those under cards: finding those
    # costs more than stroking them)
    assert {"uncover a -> b", "cover it again", "move a card", "cut an edge", "scroll right",
            "scroll up"} <= set(partial), partial
    assert canvas.edge_items[next(e for e in controller.doc.edges if e.dst.node == "t5")]._cut


def test_stale_parts_that_overlap_much_are_painted_as_one():
    """One clip rectangle each (Qt strokes under a clip of many rectangles several times
    slower); parts whose bounding rectangle is little more than they are become one."""
    from gradviz.app.canvas.picture import _merged
    a, b, far = QRect(0, 0, 100, 40), QRect(10, 5, 100, 40), QRect(500, 300, 30, 30)
    assert _merged([a, b, far]) == [QRect(0, 0, 110, 45), far]
    apart = [QRect(0, 0, 50, 50), QRect(60, 0, 50, 50)]   # a bounding box 10 % bigger: one
    assert _merged(apart) == [QRect(0, 0, 110, 50)]
    corner = [QRect(0, 0, 50, 50), QRect(50, 50, 50, 50)]   # twice their area: kept apart
    assert _merged(corner) == corner


def test_a_value_edit_draws_no_frame_again_in_a_big_window_of_many_cards(monkeypatch, open_window):
    """Each card keeps two cached pictures (its frame, its numbers). Qt's pixmap cache,
    10 MB by default, holds less than a big window shows of many cards (2560x1440, 100
    crowded cards: 18 MB): new numbers for every card evicted frames in view, and each
    value edit drew all 100 frames again. The canvas raises the limit to what it shows."""
    from PySide6.QtGui import QPixmapCache
    from gradviz.app.canvas.navigation import CACHE_ROOM
    from gradviz.render.card_painting import CardPainting
    earlier = QPixmapCache.cacheLimit()
    QPixmapCache.setCacheLimit(10240)   # Qt's default, whatever earlier tests raised it to
    try:
        canvas = open_window(size=(2560, 1440)).canvas
        canvas.controller.set_document(crowded_chain(n=99, per_row=12, step=(150.0, 150.0)))
        app_ui.settle(canvas)
        canvas.fit()
        app_ui.settle(canvas)
        view = canvas.visible_rect()
        in_view = [item for item in canvas.node_items.values() if view.intersects(item.sceneBoundingRect())]
        assert len(in_view) >= 80
        scale = canvas.transform().m11() * canvas.viewport().devicePixelRatioF()
        pictures_kb = sum(r.width() * r.height() for item in in_view
                          for r in (item.boundingRect(), item.numbers.boundingRect())) * scale ** 2 * 4 / 1024
        assert pictures_kb > 10240
        pixels(canvas)   # a paint: the canvas sizes the cache for what it shows
        assert QPixmapCache.cacheLimit() >= CACHE_ROOM * pictures_kb
        rng = np.random.default_rng(3)
        canvas.controller.set_value("x", rng.normal(size=(4, 4)).astype(np.float32))   # x's card widens
        app_ui.settle(canvas)
        pixels(canvas)   # every card painted and cached
        frames = []
        monkeypatch.setattr(CardPainting, "_paint_card_frame", lambda self, painter, nid: frames.append(nid))
        for _ in range(3):
            canvas.controller.set_value("x", rng.normal(size=(4, 4)).astype(np.float32))
            app_ui.settle(canvas)
            pixels(canvas)
        assert frames == []
    finally:
        QPixmapCache.setCacheLimit(earlier)


def test_a_moved_card_routes_only_its_own_edges_anew(monkeypatch, open_window):
    """A card that lies on another edge moves by a pixel at a time, as a run's user nudges
    it. Here the edge is too short to go round anything (its input right after its output),
    so it crosses the card whatever it does: it keeps its route and its place in the
    layer's picture (before, it was routed and painted again at every move), the card's
    own edge alone changes, and the screen is what a fresh picture gives."""
    from gradviz.app.canvas.edges import EdgeLayer
    from gradviz.graph.document import CONSTANT, OP, Document, Node
    doc = Document(title="a card on a short edge")
    doc.add(Node("x", CONSTANT, value=np.ones((2, 2), np.float32), position=(0.0, 0.0)))
    doc.add(Node("t", OP, op="tanh", position=(600.0, 0.0)))
    doc.add(Node("a", CONSTANT, value=np.ones((2, 2), np.float32), position=(0.0, 400.0)))
    doc.add(Node("lid", OP, op="tanh", position=(300.0, 400.0)))
    doc.connect("x", "t")
    doc.connect("a", "lid")
    canvas = open_window(size=(1440, 900)).canvas
    controller = canvas.controller
    controller.set_document(doc)
    app_ui.settle(canvas)
    out = canvas.renderer.output_pos("x", 0)
    controller.move_nodes({"t": (out.x() + 10.0, 90.0)}, merge=False)   # its input just past x's output
    app_ui.settle(canvas)
    beside = canvas.edge_items[next(e for e in controller.doc.edges if e.src.node == "x")]
    middle = beside._path.pointAtPercent(0.5)
    controller.move_nodes({"lid": (middle.x() - 30.0, middle.y() - 20.0)}, merge=False)
    app_ui.settle(canvas)
    canvas.fit()
    app_ui.settle(canvas)
    assert beside.path_crosses(canvas.renderer.rect("lid"))
    changed = []
    edge_changed = EdgeLayer.edge_changed
    monkeypatch.setattr(EdgeLayer, "edge_changed",
                        lambda layer, item, *a: changed.append(item.edge.src.node) or edge_changed(layer, item, *a))
    pixels(canvas)
    for _ in range(3):
        x, y = controller.doc.nodes["lid"].position
        controller.move_nodes({"lid": (x + 1.0, y)}, merge=False)
        app_ui.settle(canvas)
        shown = pixels(canvas)
        canvas.edge_layer.refit()
        assert (pixels(canvas) == shown).all(), "the screen is not what a fresh picture gives"
    assert changed == ["a"] * 3   # lid's own edge, a -> lid
