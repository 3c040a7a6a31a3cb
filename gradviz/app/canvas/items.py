"""The scene items of the canvas: a node card, its numbers and its ports (the edges are
in canvas_edges).

Each item asks the view's renderer to paint what an export shows and adds only what
editing needs: selection and error outlines, hover rings, draggable ports.
"""
import html

import numpy as np

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem

from ...graph import catalog
from ...graph.document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Port
from ...render import cards as render_cards
from ...render import compact
from ...render import preview
from ...story import formatting
from ...render import port_labels
from ...render.port_labels import input_names, output_names
from ...graph import slots
from .renderer import ERROR_ROW, ERROR_TOP, ERROR_W, numbers_look, problem_lines, same_frame, same_numbers
from ..theme import ERROR_STYLE, WARN_STYLE

PORT_HIT = 8.0
BADGE_ROOM = 192.0     # how far right of a card's left a badge may reach where its text is not known
_NO_PEN = QPen(Qt.PenStyle.NoPen)
# What NodeItem.refresh found changed on its card.
NUMBERS, CARD, OUTLINE = "numbers", "card", "outline"


def zoom_of(painter):
    """The painter's scale: the canvas only zooms (no rotation or shear), so m11 is
    Qt's level of detail, at half its cost (every numbers item asks, after a value edit)."""
    return painter.worldTransform().m11()


class PortItem(QGraphicsRectItem):
    """An input (left) or output (right) port of a card: hover highlight, drag to connect.
    Its bounds are its rect (`bounded_by_rect`): Qt reads them in C++, not by a Python
    call (it asks about 300 times in each repaint of a 100-node grid)."""

    def __init__(self, node_item, is_output, index, name):
        super().__init__(node_item)
        self.node_item = node_item
        self.is_output = is_output
        self.index = index
        self._name = name
        self._label_rect = None
        self._label_shown = False
        bounded_by_rect(self)
        self._fit()
        self.hovered = False
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setZValue(2)
        self.setToolTip(self.tip())
        # A named port repaints its name from a cached pixmap, not by a Python call per frame.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.refresh_look()

    def refresh_look(self):
        """Repaint; an item with nothing to paint (no name beside it, no hover or wire ring)
        is marked so, and costs the canvas nothing per frame."""
        busy = self._label_shown or self.hovered or self.node_item.view._wire_target is self
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, not busy)
        self.update()

    @property
    def port(self):
        return Port(self.node_item.nid, self.index)

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, name):
        self._name = name
        self._label_rect = None
        self._fit()
        self.update()   # the cached picture still shows the old name

    def set_label_shown(self, shown):
        """The name is written beside the port when its side of the card has several."""
        if shown != self._label_shown:
            self._label_shown = shown
            self._fit()
            self.refresh_look()

    def label_rect(self):
        """Where the port's name is written, outside the card (only when a side has several)."""
        if self._label_rect is None:
            self._label_rect = port_labels.label_rect(self._name, self.is_output)
        return QRectF(self._label_rect)

    def show_label(self):
        return self._label_shown

    def _fit(self):
        """The bounds: the ring, and the name when it is written."""
        r = QRectF(-PORT_HIT - 2, -PORT_HIT - 2, 2 * PORT_HIT + 4, 2 * PORT_HIT + 4)
        self.setRect(r.united(self.label_rect()) if self._label_shown else r)

    def shape(self):
        path = QPainterPath()
        path.addEllipse(QPointF(0, 0), PORT_HIT, PORT_HIT)
        return path

    def paint(self, painter, option, widget=None):
        view = self.node_item.view
        if self.show_label() and not view.compact:
            painter.setFont(port_labels.label_font())
            painter.setPen(QColor(view.renderer.theme.muted))
            align = Qt.AlignmentFlag.AlignLeft if self.is_output else Qt.AlignmentFlag.AlignRight
            painter.drawText(self.label_rect(), align | Qt.AlignmentFlag.AlignVCenter, self.name)
        if not (self.hovered or view._wire_target is self):
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = QColor(view.highlight_colour())
        painter.setPen(QPen(colour, 2.2))
        fill = QColor(colour)
        fill.setAlpha(90)
        painter.setBrush(fill)
        painter.drawEllipse(QPointF(0, 0), PORT_HIT - 1, PORT_HIT - 1)

    def tip(self):
        """'input 'a' of layer 1: drag …', with the node's name as the canvas writes it now;
        an input whose catalog name had to change says which node's name it would repeat."""
        controller = self.node_item.view.controller
        node = controller.name(self.node_item.nid)
        why = ""
        if not self.is_output:
            doc_node = controller.doc.nodes.get(self.node_item.nid)
            count = len(self.node_item.ports_in)
            plain, nodes = (slots.renamed(doc_node, count, controller.doc).get(self.index)
                            if doc_node is not None else None) or (None, None)
            if plain is not None:
                why = f" (the catalog's '{plain}', renamed: {nodes})"
        return (f"{'output' if self.is_output else 'input'} '{self._name}' of {node}{why}: "
                "drag to another port to connect")

    def hoverEnterEvent(self, event):
        self.hovered = True
        self.setToolTip(self.tip())   # the node may have been renamed since
        self.refresh_look()

    def hoverLeaveEvent(self, event):
        self.hovered = False
        self.refresh_look()

    def mousePressEvent(self, event):
        if event.button() == Qt.MouseButton.LeftButton:
            self.node_item.view.start_wire(self, event.scenePos())
            event.accept()
        else:
            event.ignore()

    def mouseMoveEvent(self, event):
        self.node_item.view.update_wire(event.scenePos())

    def mouseReleaseEvent(self, event):
        if event.button() == Qt.MouseButton.LeftButton:
            self.node_item.view.finish_wire(event.scenePos())


class NumbersItem(QGraphicsRectItem):
    """The numbers of a card (its sections' previews; drawn compact, their thumbnails),
    cached apart from the card's frame: an edit of values repaints these and leaves the
    frame's cached pixmap alone."""

    def __init__(self, node_item):
        super().__init__(node_item)
        self.node_item = node_item
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)   # clicks go to the card
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        bounded_by_rect(self)

    def fit(self):
        """Bounds where the numbers are drawn: `render.cards.numbers_rect` of the card, or
        drawn compact, the card's box and the plate that stands out of a small one (its
        thumbnails lie under the name, on the plate's band)."""
        card, view = self.node_item.card, self.node_item.view
        if view.compact:
            side, down = compact.overhang(card, view.controller.doc.nodes[self.node_item.nid],
                                          view.zoom_level(), scale=view.compact_scale(),
                                          problems=self.node_item.compact_texts())
            bounds = QRectF(-side, 0, card.width + 2 * side, card.height + down)
        else:
            bounds = render_cards.numbers_rect(card)
        if bounds != self.rect():
            self.setRect(bounds)

    def paint(self, painter, option, widget=None):
        node_item = self.node_item
        view = node_item.view
        r = view.renderer
        if node_item.card is None or node_item.nid not in r.cards or node_item.nid not in r.doc.nodes:
            return
        if view.compact:
            x, y = r.positions[node_item.nid]
            painter.translate(-x, -y)
            compact.paint_thumbnails(painter, r, node_item.nid, r.pending_ports(), view.compact_scale(),
                                     node_item.compact_texts())
            return
        r._paint_card_numbers(painter, node_item.nid, at=(0.0, 0.0))   # the item's origin is the card's


class NodeItem(QGraphicsRectItem):
    """One node card. The Renderer paints it; this item adds selection and error outlines.
    Its numbers are a child item (NumbersItem), repainted alone when only they change."""

    def __init__(self, view, nid):
        super().__init__()
        self.view = view
        self.nid = nid
        self.card = None
        self.problems = []
        self.ports_in, self.ports_out = [], []
        self._error_lines = []
        self._shown_badges = None
        self._badge_reach = BADGE_ROOM     # how far right of its left the card's badges reach
        self._ports_key = None
        self._labelled_ports = False   # a side has several ports: their names are written
        self._card_tip = ""
        self._look = None   # (card, (theme, pending ports, compact), numbers_look of it)
        bounded_by_rect(self)
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)
        self.numbers = NumbersItem(self)

    # What the card shows, for tests and the inspector
    @property
    def value(self):
        return None if self.card is None else self.card.value

    @property
    def gradient(self):
        return None if self.card is None else self.card.gradient

    def refresh(self, renderer, problems, roles, shown=None):
        """Take the new card and problems; repaint only when something visible changed.
        `roles`: the document's `badge_roles`; `shown`: the scene rect in view, when the
        caller has it. Returns what changed: None, NUMBERS (repainted alone), CARD (frame
        and numbers) or OUTLINE (its size or ports moved too, so its edges must follow)."""
        card, old = renderer.cards[self.nid], self.card
        badges = tuple(self.nid in nodes for nodes in roles)
        self.card = card
        if old is not None and problems == self.problems and badges == self._shown_badges \
                and (old is card or renderer.renumbered.get(self.nid) is old or same_frame(old, card)) \
                and (not self.view.compact or compact.numbers_w(old, self.view.compact_scale())
                     == compact.numbers_w(card, self.view.compact_scale())):   # a compact plate as wide
            if old is not card and not same_numbers(old, card) \
                    and self._new_look(renderer, old, card, shown):
                self.numbers.update()   # only the numbers changed, and how they look
                return NUMBERS
            return None
        self.problems = list(problems)
        # above the other cards: drawn compact far out, its plate with the problem's words
        # stands out of it, and a neighbour laid over them hid what to mend
        self.setZValue(1.5 if self.problems else 1)
        self._shown_badges = badges
        self._badge_reach = badge_reach(renderer, self.nid)
        self._error_lines = self._wrap_problems()
        self.setRect(self._compute_bounds())
        node = self.view.controller.doc.nodes[self.nid]
        ports_key = (_outline(card), node.kind, node.op, sorted(node.attrs.items()))
        if ports_key != self._ports_key:
            self._ports_key = ports_key
            self._sync_ports()
        tip = [f"<b>{html.escape(card.title)}</b> ({node.kind}{', ' + node.op if node.op else ''})"]
        if card.info:
            tip.append(html.escape(card.info))
        if self.problems:
            tip += [f"<span style='{WARN_STYLE if p.warning else ERROR_STYLE}'>⚠ "
                    f"{html.escape(p.message)}</span>" for p in self.problems]
        else:
            tip.append(html.escape(port_labels.with_port_names(node, self.view.controller.doc,
                                                               _node_doc(node))))
        self._card_tip = "<br>".join(t for t in tip if t)
        self.setToolTip(self._card_tip)
        self.repaint_card()
        return OUTLINE if old is None or _outline(old) != _outline(card) else CARD

    def _new_look(self, renderer, old, card, shown=None):
        """Do `card`'s numbers look other than `old`'s (other digits, other colours)? A
        card out of view (`shown`: the scene rect in view) is not asked: it paints only
        when it comes into view. The look of the card shown is kept, so each card's is
        worked out once."""
        shown = self.view.visible_rect() if shown is None else shown
        if not self.isVisible() or not shown.intersects(self.sceneBoundingRect()):
            self._look = None
            return True
        key = (renderer.theme, renderer.pending_ports(), self.view.compact)
        kept = self._look
        before = kept[2] if kept is not None and kept[0] is old and kept[1] == key else numbers_look(old, *key)
        now = numbers_look(card, *key)
        self._look = (card, key, now)
        return now != before

    def repaint_card(self):
        """Repaint the frame and the numbers (a story step may show a gradient as pending)."""
        self.numbers.fit()
        self.update()
        self.numbers.update()

    def _wrap_problems(self):
        return problem_lines(self.problems, self.card.width)

    def compact_texts(self):
        """What the card drawn compact says on it of its problems (render.compact)."""
        return compact.problem_texts(self.problems)

    def problems_under(self, full=False):
        """The problem lines drawn under the card: none drawn compact (they are on it)."""
        return self._error_lines if full or not self.view.compact else []

    def footprint(self, at=None, full=False):
        """(left, top, right, bottom) in the scene, with the card at `at` (x, y) (where it
        stands when None): the card, its badges' row above, its problems' lines under it and
        the reach of its ports on its sides (a port a neighbour's port or card comes within
        PORT_HIT of cannot be told apart from it when a wire is dragged), what no other card
        may cover. `full`: as large as the card drawn in full (a card drawn compact has not
        shrunk)."""
        x, y = (self.pos().x(), self.pos().y()) if at is None else at
        card = (self.card.full or self.card) if full else self.card
        w, h = card.width, card.height
        under = self.problems_under(full)
        if under:
            w, h = max(w, ERROR_W), h + ERROR_TOP + ERROR_ROW * len(under)
        left = x - PORT_HIT if card.n_inputs else x
        right = max(x + w, x + card.width + PORT_HIT if card.n_outputs else x)
        return left, y - render_cards.BADGE_H - 4, right, y + h

    def fit_bounds(self):
        """Bounds for the view's zoom: a compact card's name may stand out of a small card."""
        rect = self._compute_bounds()
        if rect != self.rect():
            self.setRect(rect)
        self.numbers.fit()

    def _compute_bounds(self):
        compact_at = (self.view.zoom_level(), self.view.compact_scale()) if self.view.compact else None
        return item_bounds(self.card, self.view.controller.doc.nodes[self.nid], len(self.problems_under()),
                           compact_at, self.compact_texts(), self._badge_reach)

    def _sync_ports(self):
        node = self.view.controller.doc.nodes[self.nid]
        card = self.card
        want_in, want_out = card.n_inputs, card.n_outputs
        doc = self.view.controller.doc
        for ports, want, is_out, names in ((self.ports_in, want_in, False, input_names(node, want_in, doc)),
                                           (self.ports_out, want_out, True, output_names(node, want_out, doc))):
            while len(ports) > want:
                port = ports.pop()
                port.setParentItem(None)
                if port.scene() is not None:
                    port.scene().removeItem(port)
            while len(ports) < want:
                ports.append(PortItem(self, is_out, len(ports), names[len(ports)]))
            for port, name in zip(ports, names):
                if port.name != name:
                    port.name = name
                port.set_label_shown(len(ports) > 1)
        self._labelled_ports = want_in > 1 or want_out > 1
        r = self.view.renderer
        origin = QPointF(*r.positions[self.nid])
        for ports, at in ((self.ports_in, r.input_pos), (self.ports_out, r.output_pos)):
            for port in ports:
                pos = at(self.nid, port.index) - origin
                if port.pos() != pos:
                    port.setPos(pos)
                    port.update()   # its cached name, drawn at the old fraction of a pixel

    def sync_port_names(self):
        """The ports' names again after a rename or a new edge elsewhere: a name that is
        another node's name is written otherwise (port_labels.input_names)."""
        if self._labelled_ports:
            self._sync_ports()

    def shape(self):
        path = QPainterPath()
        if self.card is not None:
            path.addRoundedRect(QRectF(0, 0, self.card.width, self.card.height), render_cards.CORNER_R,
                                render_cards.CORNER_R)
        return path

    def paint(self, painter, option, widget=None):
        if self.card is None:
            return
        r = self.view.renderer
        if self.nid not in r.cards or self.nid not in r.doc.nodes:
            return
        x, y = r.positions[self.nid]
        painter.save()
        painter.translate(-x, -y)
        if self.view.compact:
            self._paint_compact(painter, r)
        else:
            r._paint_card_frame(painter, self.nid)
        painter.restore()
        card = QRectF(0, 0, self.card.width, self.card.height)
        frame = self.frame_rect()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if self.problems:
            # red when something here cannot run; amber when it ran into a NaN or inf
            colour = QColor(r.theme.warning if all(p.warning for p in self.problems) else r.theme.error)
            painter.setPen(QPen(colour, 2.6))
            painter.drawRoundedRect(frame.adjusted(-1.5, -1.5, 1.5, 1.5), 9, 9)
            painter.setFont(preview.sans_font(8.5))
            painter.setPen(colour)
            for i, line in enumerate(self.problems_under()):
                painter.drawText(QRectF(0, card.bottom() + ERROR_TOP + ERROR_ROW * i,
                                        max(card.width(), ERROR_W), ERROR_ROW),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
        if self.isSelected():
            pen = QPen(QColor(self.view.highlight_colour()), 2.2)
            painter.setPen(pen)
            painter.drawRoundedRect(frame.adjusted(-4.5, -4.5, 4.5, 4.5), 11, 11)

    def frame_rect(self):
        """What the problem's frame and the selection go round (item coordinates): the card,
        and drawn compact with problems, the plate that stands out of a small card with their
        words on it (5 zoom notches out of Fit to Window they ran below the red frame)."""
        card = QRectF(0, 0, self.card.width, self.card.height)
        if not (self.view.compact and self.problems):
            return card
        side, down = compact.overhang(self.card, self.view.controller.doc.nodes[self.nid],
                                      self.view.zoom_level(), scale=self.view.compact_scale(),
                                      problems=self.compact_texts())
        return card.adjusted(-side, 0, side, down)

    def _paint_compact(self, painter, r):
        """The card as it reads from afar: name and shape (render.compact); its heat
        thumbnails are the numbers item's, drawn again alone when only numbers change."""
        compact.paint(painter, r, self.nid, r.pending_ports(), self.view.compact_scale(), thumbnails=False,
                      problems=self.compact_texts(), warning=all(p.warning for p in self.problems))

    def hoverMoveEvent(self, event):
        """Over one entry of a value or gradient picture the tooltip names it and gives its
        number in full ('grad input image[0,2,3,0] = -2'); elsewhere it describes the card."""
        tip = self._card_tip if self.card is not None else ""
        hit = None if self.card is None else render_cards.entry_under(self.card, event.pos())
        if hit is not None:
            section, flat = hit
            doc = self.view.controller.doc
            shape = np.shape(section.array)
            index = ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) if shape else ""
            name = render_cards.port_name(doc, section.port) + (f"[{index}]" if index else "")
            number = formatting.number(np.asarray(section.array).flat[flat], 8)
            tip = f"{'grad ' if section.colour == 'gradient' else ''}{html.escape(name)} = {number}"
        if tip != self.toolTip():
            self.setToolTip(tip)
        super().hoverMoveEvent(event)

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.view._node_moved(self)
        elif change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            self.update()
        return super().itemChange(change, value)

    def mousePressEvent(self, event):
        self.view.note_drag_start()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event):
        super().mouseReleaseEvent(event)
        self.view.commit_moves()

    def mouseDoubleClickEvent(self, event):
        self.view.nodeActivated(self.nid)
        super().mouseDoubleClickEvent(event)


def card_bounds(w, h, n_error_lines=0, badge_reach=BADGE_ROOM):
    """A NodeItem's bounds about the card's top-left, for a card w x h drawn in full with
    `n_error_lines` problem lines under it: its badges' row above (a source badge may be
    wider than a narrow card: `badge_reach`, how far right of the card's left its badges
    reach, BADGE_ROOM where they are not known) and its problems below. A card without
    badges is not bounded wider than itself: the title slide measures the cards by their
    bounds, and lesson 14's g1_mag at 1920 x 1080 ran 'out of view' by a row it had not."""
    r = QRectF(-8, -render_cards.BADGE_H - 8, w + 16, h + render_cards.BADGE_H + 16)
    if n_error_lines:
        r = r.united(QRectF(-4, h, max(w, ERROR_W) + 8, 8 + ERROR_ROW * n_error_lines))
    return r.united(QRectF(-4, -render_cards.BADGE_H - 8, badge_reach + 8, 4)) if badge_reach > 0 else r


def item_bounds(card, node, n_error_lines=0, compact_at=None, problems=(), badge_reach=BADGE_ROOM):
    """A NodeItem's bounds about the card's top-left (`card_bounds`); `compact_at`: (zoom,
    type scale) where the card is drawn compact, whose plate may stand out of a small card
    (with its `problems`' words on it)."""
    w, h = card.width, card.height
    r = card_bounds(w, h, n_error_lines, badge_reach)
    if compact_at is not None:
        side, down = compact.overhang(card, node, compact_at[0], scale=compact_at[1], problems=problems)
        m = 6 if problems else 2          # a problem's frame goes round the plate (frame_rect)
        r = r.united(QRectF(-side - m, -m, w + 2 * side + 2 * m, h + down + 2 * m))
    return r


def painted_bounds(card, node, problems=(), compact_at=None, in_full=False, badge_reach=BADGE_ROOM):
    """A NodeItem's bounds about the card's top-left as it paints `card` with `problems`
    (graph.Problem): its problems' lines under it, none where it is drawn compact (the
    words are on it), as `NodeItem.refresh` bounds it. `in_full`: where it is drawn
    compact, united with its bounds drawn in full, as tall as measured (zoomed in it is:
    a compact card shortens in place, NodeItem.footprint)."""
    messages = tuple(p.message for p in problems)
    lines = 0 if compact_at is not None else len(problem_lines(problems, card.width))
    bounds = item_bounds(card, node, lines, compact_at, messages, badge_reach)
    if compact_at is not None and in_full:
        bounds = bounds.united(painted_bounds(card.full or card, node, problems, badge_reach=badge_reach))
    return bounds


def badge_reach(renderer, nid):
    """How far right of card `nid`'s left its badges reach (0 without badges)."""
    left = renderer.rect(nid).left()
    return max([rect.right() - left for _, _, rect in renderer.badges(nid)], default=0.0)


def bounded_by_rect(item):
    """Make `item`, a QGraphicsRectItem that paints itself, bounded by its rect alone (no
    pen): its boundingRect is then answered in C++. Qt asks each item many times a
    repaint (the 100-node grid: about 1,500 calls a value edit, 1 us each in Python)."""
    item.setPen(_NO_PEN)


def badge_roles(doc):
    """The node ids that are sources, targets, seeded by output_gradients, and not recorded:
    what a card's badges say (found once per sync, not once a card)."""
    return ({p.node for p in doc.sources}, {p.node for p in doc.targets},
            {p.node for p in doc.output_gradients}, set(doc.tape.stop_recording))


def _outline(card):
    """What the card's edges attach to: its size and its ports."""
    return card.width, card.height, card.n_inputs, card.n_outputs


def _node_doc(node):
    """The tooltip's last line for a card without problems: what the node is in TF terms."""
    if node.kind == OP and node.op in catalog.OPS:
        return f"tf.{node.op}: {catalog.OPS[node.op].doc}"
    if node.kind == LAYER and node.op in catalog.LAYERS:
        return f"keras.layers.{node.op}: {catalog.LAYERS[node.op].doc}"
    if node.kind == CUSTOM_GRADIENT and node.op in catalog.CUSTOM_RULES:
        return f"custom gradient: identity forward, {catalog.CUSTOM_RULES[node.op][1]}"
    if node.kind == CONSTANT:
        return "tf.constant" + (", watched by the tape" if node.watched else "")
    if node.kind == VARIABLE:
        return "tf.Variable" + ("" if node.trainable else " (trainable=False)")
    return ""

