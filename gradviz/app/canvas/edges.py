"""The canvas' edges: an item per edge (its route, the shape a click hits, its tooltip and
selection glow) and the layer that paints every edge's line in one item, keeping a
picture of them (canvas_picture) and leaving out the edges cards hide (canvas_cover).
"""
import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem

from ...graph import catalog
from ...render import port_labels
from ...render.track import Track
from . import cover as canvas_cover
from .cover import boxes_meet
from .items import bounded_by_rect, zoom_of
from .picture import LayerPicture

# An edge's line a hair over one device pixel wide is drawn one pixel wide: Qt's raster
# engine strokes lines up to one device pixel on a fast path (about 3x cheaper, measured
# on a 142-edge canvas at 60 %), and 1.0 and 1.25 px lines look alike.
HAIRLINE_UP_TO = 1.25
# How far an edge's bounds reach beyond its route: its antialiased line and arrowhead.
MARGIN = 14.0
_MOVE, _CURVE = QPainterPath.ElementType.MoveToElement, QPainterPath.ElementType.CurveToElement
# How far beyond a new edge the edge layer grows (scene units).
GROW = 300.0
# From this many edges in a repaint of most of the view, the edge layer skips the ones
# wholly under cards.
COVER_FROM = 16


class EdgeItem(QGraphicsRectItem):
    """An edge: its route, the shape a click hits, its tooltip and its selection glow.
    Its line (dashed with a cross where the gradient is cut) is painted by the canvas'
    EdgeLayer together with every other edge's."""

    def __init__(self, view, edge):
        super().__init__()
        self.view = view
        self.edge = edge
        self._path = QPainterPath()
        self._shape = QPainterPath()
        self._track = None  # (path, Track): the flattened route, for crossing tests
        self._look = None   # (path, cut, the renderer's look of the edge along that path)
        self._hairline = None   # (look, zoom, the look with a one-device-pixel pen)
        bounded_by_rect(self)
        self.box = (0.0, 0.0, 0.0, 0.0)   # the bounds as (left, top, right, bottom): no Qt call to read
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(-1)   # under the layer: a selected edge's glow lies under its line
        self.setAcceptHoverEvents(True)   # its tooltip is written when the pointer comes (tip)
        self._cut = view.renderer.is_cut(edge)
        self._refresh_contents()
        self.update_geometry()

    def tip(self):
        """'x → m (input c)': the nodes by their names and the input by the letter its port
        shows (port_labels: c beside a node named b); an op of one input has no letter."""
        r, e = self.view.renderer, self.edge
        doc = r.doc
        src = catalog.port_name(doc, e.src) if e.src.node in doc.nodes else e.src.node
        node, card = doc.nodes.get(e.dst.node), r.cards.get(e.dst.node)
        if node is None or card is None:
            return f"{src} → {e.dst.node}; click and press Delete to remove"
        names = port_labels.input_names(node, card.n_inputs, doc) if card.n_inputs > 1 else []
        port = f" (input {names[e.dst.index]})" if e.dst.index < len(names) else ""
        return f"{src} → {node.label or node.id}{port}; click and press Delete to remove"

    def hoverEnterEvent(self, event):
        # written now, not when the item is made: the nodes may have been renamed since, and
        # the ports' letters need every edge into the node (one pass over the edges each)
        self.setToolTip(self.tip())
        super().hoverEnterEvent(event)

    def refresh(self):
        """Repaint only when the look changed: whether the gradient is cut here."""
        cut = self.view.renderer.is_cut(self.edge)
        if cut != self._cut:
            self._cut = cut
            self.view.edge_layer.edge_changed(self)

    def _refresh_contents(self):
        """Unselected, the item paints nothing (the layer has its line) and costs a
        repaint of the canvas nothing."""
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, not self.isSelected())

    def update_geometry(self):
        """Take the edge's route anew. A route as it was (an edge beside a card that moved)
        changes nothing; a new one repaints only the stretch of it that changed (a moved
        card's edge, its first curve; the rest of a long edge stays in the layer's picture)."""
        r = self.view.renderer
        e = self.edge
        if e.src.node not in r.cards or e.dst.node not in r.cards:
            return
        path = r.edge_path(e)
        if path == self._path:
            return
        old_bounds, old_path = self.rect(), self._path
        self._path = path
        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        self._shape = stroker.createStroke(self._path)
        self.setRect(self._path.boundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))
        self.box = self.rect().getCoords()
        self.update()
        # a cut edge's mark sits at a share of its length: a new stretch anywhere moves it
        part = None if self._cut else changed_part(old_path, path)
        self.view.edge_layer.edge_changed(self, old_bounds, part)

    def shape(self):
        return self._shape

    def route_rect(self):
        """The bounds of the line itself (an edge wrapping between folded rows stands out
        of the cards; Fit to Window keeps it in view)."""
        return self._path.boundingRect()

    def path_crosses(self, rect):
        """Does this edge's route pass through `rect` (a card)? (QPainterPath.intersects
        would test the area the open path encloses, not the line.)"""
        if self._track is None or self._track[0] is not self._path:
            self._track = (self._path, Track(self._path))
        return self._track[1].crosses(rect.adjusted(1, 1, -1, -1))

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            self._refresh_contents()
        return super().itemChange(change, value)

    def paint(self, painter, option, widget=None):
        if self.isSelected():
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            colour = QColor(self.view.highlight_colour())
            colour.setAlpha(110)
            pen = QPen(colour, 7)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._path)

    def paint_line(self, painter, zoom):
        """The edge's line and arrowhead as the renderer draws them (antialiased)."""
        r = self.view.renderer
        e = self.edge
        if e.src.node not in r.cards or e.dst.node not in r.cards:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self._look is None or self._look[0] is not self._path or self._look[1] != self._cut:
            self._look = (self._path, self._cut, r._edge_look(e, self._path))  # kept: every frame paints
        r._paint_edge(painter, e, self._path, self._on_screen(self._look[2], zoom))

    def _on_screen(self, look, zoom):
        """`look` with its line one device pixel wide when it would be a hair wider."""
        pen = look[0]
        if not 1.0 < pen.widthF() * zoom <= HAIRLINE_UP_TO:
            return look
        if self._hairline is None or self._hairline[0] is not look or self._hairline[1] != zoom:
            thin = QPen(pen)
            thin.setWidthF(1.0 / zoom)
            self._hairline = (look, zoom, (thin, *look[1:]))
        return self._hairline[2]


class EdgeLayer(QGraphicsItem):
    """Every edge's line, painted by one item: a repaint of the viewport (a value edit of
    many cards, a player frame) calls Python once for the edges, not once an edge (100
    nodes in a grid at 60 %: 108 edges in view). The view's repaints copy a picture of
    the layer (canvas_picture.LayerPicture), painted again only where an edge changed its
    route or look, or a card that hid edges moved. The bounds reach GROW beyond the edges
    and only grow (by GROW at a time) until the scene is rebuilt.

    An edge that lies wholly under opaque cards (which are all above the layer) is not
    painted: cards placed closer than their width hide most edges between them, and
    stroking those cost 2.5-4.5 ms of each repaint of the 100-node grid (canvas_cover
    finds them)."""

    def __init__(self, view):
        super().__init__()
        self.view = view
        self._bounds = QRectF()
        self._hidden = None   # (the cards' rects by node id, the rim, the edge items under them)
        self._rerouted = set()   # edge items routed anew since `_hidden` was found
        self._picture = LayerPicture(view, self._paint_picture)
        self._left_under = None   # the cards whose edges the picture left out: {node id: (x, y, w, h)}
        self.setZValue(0)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def boundingRect(self):
        return self._bounds

    def shape(self):
        """Nothing to hit: a click, itemAt and the rubber band find the cards and edges."""
        return QPainterPath()

    def edge_changed(self, item, old_bounds=None, part=None):
        """`item` (once within `old_bounds`) has a new route or look: paint both places,
        or only `part` (scene units), where the old and new routes differ."""
        if not self._bounds.contains(item.boundingRect()):
            # A new size repaints the whole layer: grow by a margin, so seldom.
            self.prepareGeometryChange()
            self._bounds = self._bounds.united(item.boundingRect().adjusted(-GROW, -GROW, GROW, GROW))
        self._rerouted.add(item)
        changed = part if part is not None else \
            item.boundingRect() if old_bounds is None else item.boundingRect().united(old_bounds)
        self._picture.stale(changed)
        self.update(changed)

    def edge_removed(self, item):
        self._rerouted.discard(item)
        if self._hidden is not None:
            self._hidden[2].discard(item)
        self._picture.stale(item.boundingRect())
        self.update(item.boundingRect())

    def refit(self):
        """Fit the bounds to the edges there are and paint them all (a rebuilt scene)."""
        bounds = QRectF()
        for item in self.view.edge_items.values():
            bounds = bounds.united(item.boundingRect())
        if not bounds.isNull():
            bounds.adjust(-GROW, -GROW, GROW, GROW)
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds
        self._hidden, self._rerouted = None, set()
        self._picture.drop()
        self.update()

    def paint(self, painter, option, widget=None):
        exposed = option.exposedRect
        if self._picture.usable(painter, widget):
            self._uncover()
            self._picture.paint(painter, widget, exposed)
        else:
            self._stroke(painter, exposed, self._most_of_view(exposed))

    def _stroke(self, painter, area, most):
        """Stroke the edges that meet `area` (scene units); `most`: it is most of the view,
        where leaving out the edges under cards pays."""
        zoom = zoom_of(painter)
        box = area.getCoords()
        shown = [item for item in self.view.edge_items.values() if boxes_meet(item.box, box)]
        hidden = self.hidden_edges(zoom) if most and len(shown) >= COVER_FROM else ()
        for item in shown:
            if item not in hidden:
                item.paint_line(painter, zoom)
        return hidden

    def _paint_picture(self, painter, area, whole):
        """The picture's part within `area` (all of it when `whole`), less the edges under
        cards: the cards they were under are noted, so that where one of them moves away,
        the picture is painted again (`_uncover`)."""
        hidden = self._stroke(painter, area, True)
        if hidden:
            self._left_under = self._hidden[0]
        elif whole:
            self._left_under = None

    def _uncover(self):
        """Where a card whose edges the picture left out was (it moved or resized since),
        the picture is painted again: the edges it covered may show now."""
        if self._left_under is None:
            return
        cards = self._cards()
        for nid, rect in self._left_under.items():
            if cards.get(nid) != rect:
                self._picture.stale(QRectF(*rect))
        self._left_under = cards

    def _most_of_view(self, exposed):
        """Is `exposed` at least half of what the view shows of the layer? Only such
        repaints (new numbers on many cards) look for the edges under cards: finding them
        after cards moved or resized costs up to 1.5 ms, more than a small repaint (a
        connect, a drag) would save."""
        shown = self.view.visible_rect().intersected(self._bounds)
        return exposed.width() * exposed.height() >= 0.5 * shown.width() * shown.height()

    def hidden_edges(self, zoom):
        """The edge items whose bounds lie wholly within the opaque inside of cards, with
        a rim of two device pixels at `zoom` (canvas_cover). Kept while no edge or card
        moves or resizes; after that, only the edges routed anew and those where a card
        was or is are tested again: a card of the 100-node grid grown by an attribute line
        cost 2.0 ms, 1.1 now."""
        rim = max(1.0, math.ceil(2.0 / zoom))
        cards = self._cards()
        kept = self._hidden
        if kept is not None and kept[0] == cards and kept[1] == rim and not self._rerouted:
            return kept[2]
        edges = self.view.edge_items.values()
        if kept is None or kept[1] != rim or kept[0].keys() != cards.keys():
            hidden = _covered(edges, cards.values(), rim)
        else:
            was = kept[0]
            areas = [_box(rect, 2.0) for nid, now in cards.items() if was[nid] != now
                     for rect in (now, was[nid])]
            again = self._rerouted | {item for item in edges
                                      if any(boxes_meet(item.box, area) for area in areas)}
            hidden = (kept[2] - again) | _covered(again, cards.values(), rim)
        self._hidden = (cards, rim, hidden)
        self._rerouted = set()
        return hidden

    def _cards(self):
        """{node id: (x, y, width, height)} of every card, where it stands as it moves (a
        PySide pos() costs more)."""
        positions = self.view.positions
        return {nid: (*positions[nid], item.card.width, item.card.height)
                for nid, item in self.view.node_items.items() if item.card is not None}


def _segments(path):
    """The drawn pieces of `path`: [(start, ..., end)] points of each line or cubic (a
    quadratic is stored as a cubic), each with the point it starts from."""
    points = [(e.type, e.x, e.y) for e in map(path.elementAt, range(path.elementCount()))]
    segments, at, k = [], None, 0
    while k < len(points):
        kind, x, y = points[k]
        if kind == _CURVE:
            piece = (at, *((px, py) for _, px, py in points[k:k + 3]))
            k += 3
        else:
            piece = (at, (x, y))
            k += 1
        if kind != _MOVE:
            segments.append(piece)
        at = piece[-1]
    return segments


def changed_part(old, new, margin=None):
    """The scene rect where route `new` is drawn otherwise than `old`: the pieces that
    differ (a cubic lies within its four points), with the line's antialiasing and the
    arrowhead at its end (`margin`, the edge items' own); None when they share nothing."""
    margin = MARGIN if margin is None else margin
    a, b = _segments(old), _segments(new)
    same = 0
    while same < min(len(a), len(b)) and a[same] == b[same]:
        same += 1
    tail = 0
    while tail < min(len(a), len(b)) - same and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    if not same and not tail:
        return None
    points = [p for piece in a[same:len(a) - tail] + b[same:len(b) - tail] for p in piece if p is not None]
    if not points:
        return None
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return QRectF(min(xs) - margin, min(ys) - margin, max(xs) - min(xs) + 2 * margin,
                  max(ys) - min(ys) + 2 * margin)


def _box(rect, margin=0.0):
    """(x, y, w, h) as a (left, top, right, bottom) box, grown by `margin` on every side."""
    x, y, w, h = rect
    return x - margin, y - margin, x + w + margin, y + h + margin


def _covered(items, cards, rim):
    """The edge `items` that lie wholly under `cards` ((x, y, w, h) each) less a `rim`."""
    items = list(items)
    return {items[i] for i in canvas_cover.covered([item.box for item in items], list(cards), rim)}
