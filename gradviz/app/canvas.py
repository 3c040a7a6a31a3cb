"""The node canvas: cards painted by render/ (as in the exported pictures), ports to connect.

Every card is painted by `render.Renderer`'s own card painter, so the canvas and an
exported PNG show the same thing. The view only adds what editing needs: selection
and error outlines, ports that can be dragged, the rubber wire, the grid, zoom and pan.
Edits go through the DocumentController (one undo step each); the scene follows the
controller's signals, updating only the cards whose content changed.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QMimeData, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (QAction, QColor, QCursor, QFontMetricsF, QPainter,
                           QPainterPath, QPainterPathStroker, QPen)
from PySide6.QtWidgets import (QApplication, QCompleter, QFrame, QGraphicsItem, QGraphicsObject,
                               QGraphicsPathItem, QGraphicsScene, QGraphicsView, QLineEdit, QMenu,
                               QVBoxLayout)

from ..graph import catalog, fileformat
from ..graph.build import input_slots, n_outputs
from ..graph.document import CONSTANT, LAYER, OP, VARIABLE, Document, Port
from ..render.layout import layout as layout_positions
from ..render import painter as render_painter
from ..render import preview
from ..render.painter import Renderer


PALETTE_MIME = "application/x-gradviz-palette-entry"
NODES_MIME = "application/x-gradviz-nodes"
GRID = 20.0
PORT_HIT = 8.0
SNAP_RADIUS = 22.0
MIN_SCALE, MAX_SCALE = 0.1, 4.0
ERROR_LINES = 3


def port_counts(node, doc):
    """(inputs, outputs) a node shows: its catalog slots, one free slot when variadic."""
    try:
        fixed, variadic = input_slots(node)
        outs = n_outputs(node)
    except Exception:  # an op the catalog does not know (a file loaded leniently)
        fixed, variadic, outs = 1, False, 1
    used_in = [e.dst.index + 1 for e in doc.edges if e.dst.node == node.id]
    used_out = [e.src.index + 1 for e in doc.edges if e.src.node == node.id]
    n_in = max([fixed, *used_in])
    if variadic:
        n_in = max(n_in, (max(used_in) + 1) if used_in else 1)
    return max(0, n_in), max([1, outs, *used_out])


def input_names(node, count):
    names = []
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    for i in range(count):
        if spec is not None and spec.inputs:
            name = spec.inputs[min(i, len(spec.inputs) - 1)]
            names.append(f"{name.rstrip('*')}[{i - len(spec.inputs) + 1}]" if name.endswith("*") else name)
        else:
            names.append("x" if count == 1 else f"x{i}")
    return names


def output_names(node, count):
    if node.kind == LAYER and node.op in catalog.LAYERS:
        weights = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        return ["output", *weights][:count] + [f"output {i}" for i in range(1 + len(weights), count)]
    return ["output"] if count == 1 else [f"output {i}" for i in range(count)]


class CanvasRenderer(Renderer):
    """The render layer's Renderer, re-measuring only the cards whose content changed."""

    def __init__(self, doc, evaluation, story, theme, positions, previous=None):
        super().__init__(type(doc)(), theme=theme, positions={})  # every attribute, no cards
        self.doc, self.evaluation, self.story, self.positions = doc, evaluation, story, positions
        self.keys = {}
        old_cards = getattr(previous, "cards", {}) if previous is not None else {}
        old_keys = getattr(previous, "keys", {}) if previous is not None else {}
        same_theme = previous is not None and previous.theme == self.theme
        for nid, node in doc.nodes.items():
            key = self._content_key(node)
            self.keys[nid] = key
            old = old_cards.get(nid)
            if same_theme and old is not None and _same_key(old_keys.get(nid), key):
                self.cards[nid] = old
            else:
                self.cards[nid] = self._measure(node)

    def _content_key(self, node):
        """Everything a card shows: if it is unchanged the old measurement still holds."""
        has_grad, grad = self._gradient(node.id)
        edges_in = tuple(sorted(e.dst.index for e in self.doc.edges if e.dst.node == node.id))
        edges_out = tuple(sorted({e.src.index for e in self.doc.edges if e.src.node == node.id}))
        return ((node.kind, node.op, node.label, repr(sorted(node.attrs.items())), node.watched,
                 node.trainable, edges_in, edges_out, has_grad),
                self._value(node.id), grad)


def _same_key(a, b):
    return a is not None and a[0] == b[0] and _same_array(a[1], b[1]) and _same_array(a[2], b[2])


def make_renderer(doc, result, theme, positions, previous=None):
    """A Renderer over the controller's result, cards grown to show every port of a node."""
    ev = getattr(result, "evaluation", None)
    story = getattr(result, "story", None)
    try:
        renderer = CanvasRenderer(doc, ev, story, theme, positions, previous)
    except Exception:  # a value the previews cannot draw: show the cards without it
        renderer = CanvasRenderer(_drawable_doc(doc), _drawable_evaluation(ev), story, theme, positions)
    for nid, card in renderer.cards.items():
        n_in, n_out = port_counts(doc.nodes[nid], doc)
        card.n_inputs, card.n_outputs = n_in, n_out
        card.height = math.ceil(max(card.height, render_painter.HEADER_H + 14 + max(n_in, n_out) * 18))
    return renderer


def _drawable(array):
    try:
        a = np.asarray(array)
        return a.size > 0 and a.dtype.kind in "biuf" and a.ndim <= 8
    except Exception:
        return False


def _drawable_doc(doc):
    """A copy of `doc` without the tensor values a preview cannot draw (empty ones)."""
    safe = copy.copy(doc)
    safe.nodes = {}
    for nid, node in doc.nodes.items():
        if node.value is not None and not _drawable(node.value):
            node = copy.copy(node)
            node.value = None
        safe.nodes[nid] = node
    return safe


def _drawable_evaluation(ev):
    if ev is None:
        return None
    safe = copy.copy(ev)
    safe.values = {p: v for p, v in (getattr(ev, "values", None) or {}).items() if _drawable(v)}
    safe.gradients = {p: (g if g is None or _drawable(g) else None)
                      for p, g in (getattr(ev, "gradients", None) or {}).items()}
    return safe


def _same_array(a, b):
    if a is None or b is None:
        return a is b
    try:
        return np.shape(a) == np.shape(b) and getattr(a, "dtype", None) == getattr(b, "dtype", None) \
            and bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:
        return bool(np.array_equal(a, b))


def _card_key(card):
    return (card.title, card.subtitle, card.info, card.attrs, card.width, card.height,
            card.n_inputs, card.n_outputs, card.has_gradient,
            tuple((s[0], s[3], s[1] is None) for s in card.sections))


def _same_card(a, b):
    return (_card_key(a) == _card_key(b) and _same_array(a.value, b.value)
            and _same_array(a.gradient, b.gradient))


# -- items --------------------------------------------------------------------------------


class PortItem(QGraphicsItem):
    """An input (left) or output (right) port of a card: hover highlight, drag to connect."""

    def __init__(self, node_item, is_output, index, name):
        super().__init__(node_item)
        self.node_item = node_item
        self.is_output = is_output
        self.index = index
        self.name = name
        self.hovered = False
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setZValue(2)
        self.setToolTip(f"{'output' if is_output else 'input'} '{name}' of {node_item.nid}: "
                        "drag to another port to connect")

    @property
    def port(self):
        return Port(self.node_item.nid, self.index)

    LABEL_FONT = 7.5

    def label_rect(self):
        """Where the port's name is written, outside the card (only when a side has several)."""
        w = QFontMetricsF(preview.sans_font(self.LABEL_FONT)).horizontalAdvance(self.name) + 2
        if self.is_output:
            return QRectF(PORT_HIT - 1, -PORT_HIT - 9, w, 12)
        return QRectF(-PORT_HIT + 1 - w, -PORT_HIT - 9, w, 12)

    def show_label(self):
        ports = self.node_item.ports_out if self.is_output else self.node_item.ports_in
        return len(ports) > 1

    def boundingRect(self):
        r = QRectF(-PORT_HIT - 2, -PORT_HIT - 2, 2 * PORT_HIT + 4, 2 * PORT_HIT + 4)
        return r.united(self.label_rect()) if self.show_label() else r

    def shape(self):
        path = QPainterPath()
        path.addEllipse(QPointF(0, 0), PORT_HIT, PORT_HIT)
        return path

    def paint(self, painter, option, widget=None):
        view = self.node_item.view
        if self.show_label():
            painter.setFont(preview.sans_font(self.LABEL_FONT))
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

    def hoverEnterEvent(self, event):
        self.hovered = True
        self.update()

    def hoverLeaveEvent(self, event):
        self.hovered = False
        self.update()

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


class NodeItem(QGraphicsItem):
    """One node card. The Renderer paints it; this item adds selection and error outlines."""

    def __init__(self, view, nid):
        super().__init__()
        self.view = view
        self.nid = nid
        self.card = None
        self.problems = []
        self.ports_in, self.ports_out = [], []
        self._error_lines = []
        self._bounds = QRectF()
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)

    # What the card shows, for tests and the inspector
    @property
    def value(self):
        return None if self.card is None else self.card.value

    @property
    def gradient(self):
        return None if self.card is None else self.card.gradient

    def refresh(self, renderer, problems):
        """Take the new card and problems; repaint only when something visible changed."""
        card = renderer.cards[self.nid]
        changed = (self.card is None or (self.card is not card and not _same_card(self.card, card))
                   or problems != self.problems
                   or self._badges() != getattr(self, "_shown_badges", None))
        self.card = card
        if not changed:
            return False
        self.prepareGeometryChange()
        self.problems = list(problems)
        self._shown_badges = self._badges()
        self._error_lines = self._wrap_problems()
        self._bounds = self._compute_bounds()
        self._sync_ports()
        node = self.view.controller.doc.nodes[self.nid]
        tip = [f"<b>{card.title}</b> ({node.kind}{', ' + node.op if node.op else ''})"]
        if card.info:
            tip.append(card.info)
        if self.problems:
            tip += [f"<span style='color:#c62828'>⚠ {p}</span>" for p in self.problems]
        else:
            tip.append(_node_doc(node))
        self.setToolTip("<br>".join(t for t in tip if t))
        self.update()
        return True

    def _badges(self):
        doc = self.view.controller.doc
        return (any(p.node == self.nid for p in doc.sources), any(p.node == self.nid for p in doc.targets),
                any(p.node == self.nid for p in doc.output_gradients), self.nid in doc.tape.stop_recording)

    def _wrap_problems(self):
        if not self.problems:
            return []
        fm = QFontMetricsF(preview.sans_font(8.5))
        width = max(self.card.width, 240.0)
        lines = []
        for problem in self.problems:
            words, line = ("⚠ " + problem).split(), ""
            for w in words:
                trial = f"{line} {w}".strip()
                if fm.horizontalAdvance(trial) > width and line:
                    lines.append(line)
                    line = w
                else:
                    line = trial
            lines.append(line)
        if len(lines) > ERROR_LINES:
            lines = lines[:ERROR_LINES]
            lines[-1] = fm.elidedText(lines[-1] + " …", Qt.TextElideMode.ElideRight, width)
        return lines

    def _compute_bounds(self):
        w, h = self.card.width, self.card.height
        r = QRectF(-8, -render_painter.BADGE_H - 8, w + 16, h + render_painter.BADGE_H + 16)
        if self._error_lines:
            err_w = max(w, 240.0) + 8
            r = r.united(QRectF(-4, h, err_w, 8 + 15 * len(self._error_lines)))
        badge_w = 200.0  # source / target badges may be wider than a narrow card
        return r.united(QRectF(-4, -render_painter.BADGE_H - 8, badge_w, 4))

    def _sync_ports(self):
        node = self.view.controller.doc.nodes[self.nid]
        card = self.card
        want_in, want_out = card.n_inputs, card.n_outputs
        for ports, want, is_out, names in ((self.ports_in, want_in, False, input_names(node, want_in)),
                                           (self.ports_out, want_out, True, output_names(node, want_out))):
            while len(ports) > want:
                port = ports.pop()
                port.setParentItem(None)
                if port.scene() is not None:
                    port.scene().removeItem(port)
            while len(ports) < want:
                ports.append(PortItem(self, is_out, len(ports), names[len(ports)]))
            for port, name in zip(ports, names):
                if port.name != name:
                    port.prepareGeometryChange()
                    port.name = name
        r = self.view.renderer
        origin = QPointF(*r.positions[self.nid])
        for port in self.ports_in:
            port.setPos(r.input_pos(self.nid, port.index) - origin)
        for port in self.ports_out:
            port.setPos(r.output_pos(self.nid, port.index) - origin)

    def boundingRect(self):
        return self._bounds

    def shape(self):
        path = QPainterPath()
        if self.card is not None:
            path.addRoundedRect(QRectF(0, 0, self.card.width, self.card.height), 8, 8)
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
        r._paint_card(painter, self.nid)
        painter.restore()
        card = QRectF(0, 0, self.card.width, self.card.height)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if self.problems:
            painter.setPen(QPen(QColor(r.theme.error), 2.6))
            painter.drawRoundedRect(card.adjusted(-1.5, -1.5, 1.5, 1.5), 9, 9)
            painter.setFont(preview.sans_font(8.5))
            painter.setPen(QColor(r.theme.error))
            for i, line in enumerate(self._error_lines):
                painter.drawText(QRectF(0, card.bottom() + 5 + 15 * i, max(card.width(), 240.0), 15),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
        if self.isSelected():
            pen = QPen(QColor(self.view.highlight_colour()), 2.2)
            painter.setPen(pen)
            painter.drawRoundedRect(card.adjusted(-4.5, -4.5, 4.5, 4.5), 11, 11)

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.view._node_moved(self)
        elif change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            self.update()
        return super().itemChange(change, value)

    def mouseReleaseEvent(self, event):
        super().mouseReleaseEvent(event)
        self.view.commit_moves()

    def mouseDoubleClickEvent(self, event):
        self.view.nodeActivated(self.nid)
        super().mouseDoubleClickEvent(event)


class EdgeItem(QGraphicsItem):
    """An edge, painted by the Renderer (dashed with a cross where the gradient is cut)."""

    def __init__(self, view, edge):
        super().__init__()
        self.view = view
        self.edge = edge
        self._path = QPainterPath()
        self._shape = QPainterPath()
        self._bounds = QRectF()
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(0)
        self.setToolTip(f"{edge.src.node} → {edge.dst.node} (input {edge.dst.index}); "
                        "click and press Delete to remove")
        self.update_geometry()

    def update_geometry(self):
        r = self.view.renderer
        e = self.edge
        if e.src.node not in r.cards or e.dst.node not in r.cards:
            return
        a = r.output_pos(e.src.node, e.src.index)
        b = r.input_pos(e.dst.node, e.dst.index)
        self.prepareGeometryChange()
        self._path = r._edge_path(a, QPointF(b.x() - render_painter.PORT_R - 1, b.y()))
        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        self._shape = stroker.createStroke(self._path)
        self._bounds = self._path.boundingRect().adjusted(-14, -14, 14, 14)
        self.update()

    def boundingRect(self):
        return self._bounds

    def shape(self):
        return self._shape

    def paint(self, painter, option, widget=None):
        r = self.view.renderer
        e = self.edge
        if e.src.node not in r.cards or e.dst.node not in r.cards:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.isSelected():
            colour = QColor(self.view.highlight_colour())
            colour.setAlpha(110)
            pen = QPen(colour, 7)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._path)
        r._paint_edge(painter, e)


class StepOverlay(QGraphicsItem):
    """The story step over the cards: the active node's ring, the travelling cotangent and
    the formula card, all painted by the render layer's step code (as in an export).

    What an export paints under the cards (the ring's glow, the card's leader line) is
    clipped to the space between the cards, so the picture matches the exported one.
    `set_highlight({card label: [flat indices]})` rings entries of the card's arrays
    (element provenance).
    """

    def __init__(self, view):
        super().__init__()
        self.view = view
        self.step = None
        self.progress = 1.0
        self.highlight = {}
        self._bounds = QRectF()
        self._under = QPainterPath()
        self._arrays = []
        self.moving = QRectF()
        self.setZValue(20)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)

    def state(self):
        """What the overlay shows, as plain data (tests compare it)."""
        s = self.step
        if s is None:
            return None
        return (s.index, s.kind, s.node, round(self.progress, 6),
                tuple(sorted((k, tuple(v)) for k, v in self.highlight.items())))

    def parts(self):
        """The formula card's row, as painted: [(kind, ...)] from render's _formula_parts."""
        return [] if self.step is None else self.view.renderer._formula_parts(self.step)

    def card_arrays(self):
        """{label: array} of the formula card (upstream, operands, contribution, sum ...)."""
        return {label: array for label, array, _ in self._arrays}

    def set_step(self, step, progress=1.0):
        if step is not self.step:
            self.highlight = {}
        self.step = step
        self.progress = min(1.0, max(0.0, float(progress)))
        self.relayout()

    def set_highlight(self, cells):
        self.highlight = {k: [int(i) for i in v] for k, v in (cells or {}).items()}
        self.update()

    def relayout(self):
        """Recompute where the step paints (after a new step, renderer or node move)."""
        self.prepareGeometryChange()
        r = self.view.renderer
        step = self.step
        if step is None or getattr(step, "node", None) not in r.doc.nodes \
                or any(n not in r.positions for n in r.doc.nodes):
            self._bounds, self._under, self._arrays = QRectF(), QPainterPath(), []
            self.setVisible(step is not None and getattr(step, "node", None) in r.doc.nodes)
            self.update()
            return
        node = r.rect(step.node)
        bounds = node.adjusted(-24, -24, 24, 24)
        moving = QRectF()  # what changes with progress: the travelling cotangent
        card = render_painter.formula_rect(r, step)
        if card is not None:
            bounds = bounds.united(card.adjusted(-4, -4, 4, 4))
        for edge in r._step_edges(step):
            a = r.input_pos(edge.dst.node, edge.dst.index)
            b = r.output_pos(edge.src.node, edge.src.index)
            dx = max(40.0, abs(b.x() - a.x()) * 0.5)
            hull = QRectF(QPointF(min(a.x(), b.x()) - dx, min(a.y(), b.y())),
                          QPointF(max(a.x(), b.x()) + dx, max(a.y(), b.y())))
            moving = moving.united(hull.adjusted(-30, -30, 30, 40))
        bounds = bounds.united(moving)
        if step.kind == "seed":
            bounds = bounds.united(QRectF(node.right(), node.top(), 90, node.height()))
        under = QPainterPath()
        under.addRect(bounds)
        cards = QPainterPath()
        for nid in r.doc.nodes:
            rect = r.rect(nid)
            if rect.intersects(bounds):
                cards.addRoundedRect(rect, 8, 8)
        self._bounds = bounds
        self.moving = moving
        self._under = under.subtracted(cards)
        self._arrays = render_painter.formula_arrays(r, step)
        self.setVisible(True)
        self.update()

    def boundingRect(self):
        return self._bounds

    def paint(self, painter, option, widget=None):
        step, r = self.step, self.view.renderer
        if step is None or self._bounds.isEmpty():
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.save()
        painter.setClipPath(self._under)
        r._paint_highlight(painter, step.node)
        r._paint_leader(painter, step)
        painter.restore()
        r._paint_step(painter, step, self.progress)
        if not self.highlight:
            return
        colour = QColor(self.view.highlight_colour())
        fill = QColor(colour)
        fill.setAlpha(70)
        painter.setPen(QPen(colour, 2.0))
        painter.setBrush(fill)
        for label, array, box in self._arrays:
            for flat in self.highlight.get(label, ()):
                if 0 <= flat < np.size(array):
                    cell = render_painter.entry_rect(array, box.left(), box.top(), flat)
                    if cell is not None:
                        painter.drawRoundedRect(cell, 3, 3)


class _Note(QGraphicsObject):
    """A transient message at the cursor (a refused connection), gone after a few seconds."""

    def __init__(self, text, theme):
        super().__init__()
        self.text = text
        self.theme = theme
        self.font = preview.sans_font(9)
        fm = QFontMetricsF(self.font)
        self._rect = fm.boundingRect(QRectF(0, 0, 320, 400), int(Qt.TextFlag.TextWordWrap), text)
        self._rect = self._rect.adjusted(-8, -6, 8, 6)
        self.setZValue(10)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)

    def boundingRect(self):
        return self._rect.adjusted(-1, -1, 1, 1)

    def paint(self, painter, option, widget=None):
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(self.theme.error), 1.4))
        painter.setBrush(QColor("#fff4f4") if self.theme.name == "light" else QColor("#3a2224"))
        painter.drawRoundedRect(self._rect, 6, 6)
        painter.setPen(QColor(self.theme.error if self.theme.name == "light" else "#ffd6d6"))
        painter.setFont(self.font)
        painter.drawText(self._rect.adjusted(8, 6, -8, -6), int(Qt.TextFlag.TextWordWrap), self.text)


def _node_doc(node):
    if node.kind == OP and node.op in catalog.OPS:
        return f"tf.{node.op}: {catalog.OPS[node.op].doc}"
    if node.kind == LAYER and node.op in catalog.LAYERS:
        return f"keras.layers.{node.op}: {catalog.LAYERS[node.op].doc}"
    if node.kind == "custom_gradient" and node.op in catalog.CUSTOM_RULES:
        return f"custom gradient: identity forward, {catalog.CUSTOM_RULES[node.op][1]}"
    if node.kind == CONSTANT:
        return "tf.constant" + (", watched by the tape" if node.watched else "")
    if node.kind == VARIABLE:
        return "tf.Variable" + ("" if node.trainable else " (trainable=False)")
    return ""


# -- the view -----------------------------------------------------------------------------


class CanvasView(QGraphicsView):
    """The editor's canvas over a DocumentController."""

    nodeActivated = Signal(str)        # a card was double-clicked
    spaceTapped = Signal()             # Space pressed and released without panning

    def __init__(self, controller, parent=None, theme="light"):
        super().__init__(parent)
        self.controller = controller
        self.theme_name = theme
        self.grid_visible = True
        self.positions = {}                # node id -> (x, y): what the scene shows
        self.node_items = {}
        self.edge_items = {}
        self.renderer = Renderer(Document(), theme=theme, positions={})
        self.last_refusal = None           # the last refused connection's reason (tests read it)
        self._needs_full = True
        self._dirty = True
        self._selecting = False
        self._wire = None
        self._wire_from = None
        self._wire_target = None
        self._pan = None
        self._space = False
        self._note = None
        self._paste_count = 0
        self._move_start = {}
        self._space_panned = False
        self.step_overlay = None

        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.scene().selectionChanged.connect(self._scene_selection_changed)

        controller.documentReplaced.connect(self._document_replaced)
        controller.changed.connect(self._changed)
        controller.evaluated.connect(self._evaluated)
        controller.selectionChanged.connect(self._controller_selection)
        self._context_actions()
        self.sync(full=True)

    # -- theme --------------------------------------------------------------------------
    def set_theme(self, name):
        self.theme_name = name
        self.sync(full=True)
        self.viewport().update()

    def highlight_colour(self):
        return "#f4a100" if self.theme_name == "light" else "#ffc44d"

    # -- keeping the scene in step with the document ----------------------------------------
    def _document_replaced(self):
        # A new file (the undo history was cleared) is rebuilt; undo/redo updates in place.
        if self.controller.undo_stack.count() == 0:
            self._needs_full = True
        self._dirty = True

    def _changed(self):
        self._dirty = True
        QTimer.singleShot(0, self, self._sync_if_dirty)

    def _sync_if_dirty(self):
        if self._dirty:
            self.sync()

    def _evaluated(self, result):
        self.sync()

    def _place_missing(self, doc, missing):
        """Positions for nodes the document does not place: the render layout for a whole
        unplaced document, else near the centre of the view."""
        if len(missing) == len(doc.nodes):
            sizes = {nid: (c.width, c.height) for nid, c in self.renderer.cards.items()}
            self.positions.update(layout_positions(doc, sizes))
            return
        centre = self.view_centre()
        for i, nid in enumerate(missing):
            self.positions[nid] = (round(centre.x() + 24 * i), round(centre.y() + 24 * i))

    def sync(self, full=None):
        """Bring the scene up to date with controller.doc and controller.result."""
        full = self._needs_full if full is None else full
        doc = self.controller.doc
        self._dirty = False
        self._needs_full = False
        self._cancel_wire()
        if full:
            self.positions = {}
        for nid, node in doc.nodes.items():
            if node.position is not None:
                self.positions[nid] = (float(node.position[0]), float(node.position[1]))
        for nid in [n for n in self.positions if n not in doc.nodes]:
            del self.positions[nid]
        missing = [nid for nid in doc.nodes if nid not in self.positions]
        for nid in missing:
            self.positions[nid] = (0.0, 0.0)
        previous = None if full else self.renderer
        self.renderer = make_renderer(doc, self.controller.result, self.theme_name, self.positions, previous)
        self.renderer.positions = self.positions
        if missing:
            self._place_missing(doc, missing)
        problems = self.controller.result.node_problems or {}
        scene = self.scene()
        self._selecting = True
        try:
            if full:
                for item in list(self.node_items.values()) + list(self.edge_items.values()):
                    scene.removeItem(item)
                self.node_items, self.edge_items = {}, {}
            for nid in [n for n in self.node_items if n not in doc.nodes]:
                scene.removeItem(self.node_items.pop(nid))
            moved = set()
            for nid in doc.nodes:
                item = self.node_items.get(nid)
                if item is None:
                    item = self.node_items[nid] = NodeItem(self, nid)
                    scene.addItem(item)
                    moved.add(nid)
                pos = QPointF(*self.positions[nid])
                if item.pos() != pos:
                    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges, False)
                    item.setPos(pos)
                    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges, True)
                    moved.add(nid)
                if item.refresh(self.renderer, problems.get(nid, [])):
                    moved.add(nid)
                item.setSelected(nid in self.controller.selection)
            edges = {e for e in doc.edges if e.src.node in doc.nodes and e.dst.node in doc.nodes}
            for e in [e for e in self.edge_items if e not in edges]:
                scene.removeItem(self.edge_items.pop(e))
            for e in doc.edges:
                if e not in edges:
                    continue
                item = self.edge_items.get(e)
                if item is None:
                    self.edge_items[e] = EdgeItem(self, e)
                    scene.addItem(self.edge_items[e])
                elif e.src.node in moved or e.dst.node in moved:
                    item.update_geometry()
                else:
                    item.update()  # cut status may change with the tape settings
        finally:
            self._selecting = False
        if self.step_overlay is not None and self.step_overlay.step is not None:
            self.step_overlay.relayout()
        self._update_scene_rect()
        if full:
            QTimer.singleShot(0, self, self.fit)

    def _update_scene_rect(self):
        rect = self.scene().itemsBoundingRect()
        view = self.mapToScene(self.viewport().rect()).boundingRect()
        self.scene().setSceneRect(rect.united(view).adjusted(-1500, -1500, 1500, 1500))

    def scene_item(self, node_id):
        return self.node_items.get(node_id)

    # -- the story step (the player) ------------------------------------------------------
    def set_step(self, step, progress=1.0):
        """Show story `step` at animation `progress` (0..1) over the cards; None hides it."""
        if step is None:
            if self.step_overlay is not None:
                self.step_overlay.set_step(None)
            return
        if self.step_overlay is None:
            self.step_overlay = StepOverlay(self)
            self.scene().addItem(self.step_overlay)
        if step is self.step_overlay.step:
            progress = min(1.0, max(0.0, float(progress)))
            if progress != self.step_overlay.progress:
                self.step_overlay.progress = progress
                self.step_overlay.update(self.step_overlay.moving)  # only the arrow moves
        else:
            entering = self.step_overlay.step is None
            self.step_overlay.set_step(step, progress)
            self.reveal(self.step_overlay.boundingRect(), readable=entering)

    def reveal(self, rect, readable=False):
        """Bring `rect` (scene) into view: the whole graph with it if that stays readable,
        else `rect` at up to 100 %. `readable`: also zoom in when the view is too small."""
        if rect.isEmpty() or not self.isVisible():
            return
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if visible.contains(rect) and not (readable and self.zoom_level() < 0.9):
            return
        whole = rect
        for item in self.node_items.values():
            whole = whole.united(item.mapRectToScene(item.boundingRect()))
        whole = whole.adjusted(-24, -24, 24, 24)
        view = self.viewport().rect()
        scale = min(view.width() / whole.width(), view.height() / whole.height())
        self._update_scene_rect()
        if scale >= 0.9:  # the whole graph and the card, readable from the back row
            self._set_scale(min(scale, 1.25))
            self.centerOn(whole.center())
            return
        scale = min(view.width() / (rect.width() + 24), view.height() / (rect.height() + 24))
        self._set_scale(max(min(scale, 1.0), MIN_SCALE))
        self.centerOn(rect.center())

    def set_highlight(self, cells):
        """Ring entries of the step's formula card: {card label: [flat indices]}."""
        if self.step_overlay is not None:
            self.step_overlay.set_highlight(cells)

    def _node_moved(self, item):
        p = item.pos()
        self.positions[item.nid] = (p.x(), p.y())
        for e, edge_item in self.edge_items.items():
            if item.nid in (e.src.node, e.dst.node):
                edge_item.update_geometry()
        if self.step_overlay is not None and self.step_overlay.step is not None:
            self.step_overlay.relayout()

    def commit_moves(self):
        """After a drag: the new positions become one undoable edit."""
        doc = self.controller.doc
        moved = {}
        for nid, item in self.node_items.items():
            node = doc.nodes.get(nid)
            if node is None:
                continue
            p = (round(item.pos().x(), 1), round(item.pos().y(), 1))
            if node.position is None or (abs(node.position[0] - p[0]) > 0.05
                                         or abs(node.position[1] - p[1]) > 0.05):
                moved[nid] = p
        if not moved:
            return
        if any(n.position is None for n in doc.nodes.values()):
            moved = {nid: (round(x, 1), round(y, 1)) for nid, (x, y) in self.positions.items()}
        self.controller.move_nodes(moved)
        self.controller.end_move()

    # -- selection ----------------------------------------------------------------------
    def _scene_selection_changed(self):
        if self._selecting:
            return
        ids = [i.nid for i in self.scene().selectedItems() if isinstance(i, NodeItem)]
        order = {nid: k for k, nid in enumerate(self.controller.doc.nodes)}
        self._selecting = True
        try:
            self.controller.set_selection(sorted(ids, key=lambda n: order.get(n, 0)))
        finally:
            self._selecting = False

    def _controller_selection(self, ids):
        if self._selecting:
            return
        self._selecting = True
        try:
            for nid, item in self.node_items.items():
                item.setSelected(nid in ids)
            if ids:
                for item in self.edge_items.values():
                    item.setSelected(False)
        finally:
            self._selecting = False

    def select_all(self):
        self._selecting = True
        try:
            for item in self.node_items.values():
                item.setSelected(True)
        finally:
            self._selecting = False
        self.controller.set_selection(list(self.controller.doc.nodes))

    def selected_edges(self):
        return [i.edge for i in self.scene().selectedItems() if isinstance(i, EdgeItem)]

    # -- wires --------------------------------------------------------------------------
    def start_wire(self, port_item, scene_pos):
        self._cancel_wire()
        self._wire_from = port_item
        self._wire = QGraphicsPathItem()
        pen = QPen(QColor(self.highlight_colour()), 2.2, Qt.PenStyle.DashLine)
        self._wire.setPen(pen)
        self._wire.setZValue(5)
        self.scene().addItem(self._wire)
        self.update_wire(scene_pos)

    def _port_near(self, scene_pos, want_output):
        best, best_d = None, SNAP_RADIUS
        area = QRectF(scene_pos.x() - SNAP_RADIUS, scene_pos.y() - SNAP_RADIUS, 2 * SNAP_RADIUS,
                      2 * SNAP_RADIUS)
        for item in self.scene().items(area):
            if isinstance(item, PortItem) and item.is_output == want_output \
                    and item.node_item is not getattr(self._wire_from, "node_item", None):
                d = math.dist((item.scenePos().x(), item.scenePos().y()), (scene_pos.x(), scene_pos.y()))
                if d < best_d:
                    best, best_d = item, d
        if best is None:  # dropped on a card: its first free input (or its output)
            for item in self.scene().items(scene_pos):
                if isinstance(item, NodeItem) and item is not getattr(self._wire_from, "node_item", None):
                    ports = item.ports_out if want_output else item.ports_in
                    if want_output:
                        return ports[0] if ports else None
                    taken = {e.dst.index for e in self.controller.doc.edges if e.dst.node == item.nid}
                    free = [p for p in ports if p.index not in taken]
                    return free[0] if free else (ports[0] if len(ports) == 1 else None)
        return best

    def update_wire(self, scene_pos):
        if self._wire is None:
            return
        start = self._wire_from.scenePos()
        target = self._port_near(scene_pos, not self._wire_from.is_output)
        if target is not self._wire_target:
            old, self._wire_target = self._wire_target, target
            for p in (old, target):
                if p is not None:
                    p.update()
        end = target.scenePos() if target is not None else scene_pos
        a, b = (start, end) if self._wire_from.is_output else (end, start)
        self._wire.setPath(self.renderer._edge_path(a, b))

    def finish_wire(self, scene_pos):
        if self._wire is None:
            return None
        start = self._wire_from
        target = self._port_near(scene_pos, not start.is_output)
        self._cancel_wire()
        if target is None:
            return None
        src, dst = (start, target) if start.is_output else (target, start)
        return self.try_connect(src.port, dst.port, scene_pos)

    def _cancel_wire(self):
        if self._wire is not None:
            self.scene().removeItem(self._wire)
        old = self._wire_target
        self._wire = self._wire_from = self._wire_target = None
        if old is not None and old.scene() is not None:
            old.update()

    def try_connect(self, src, dst, scene_pos=None):
        """Connect output `src` to input `dst`; a refusal is shown at the cursor. Returns the reason."""
        reason = self.controller.connect(src, dst)
        if reason:
            self.show_refusal(reason, scene_pos)
        return reason

    def show_refusal(self, reason, scene_pos=None):
        self.last_refusal = reason
        if scene_pos is None:
            scene_pos = self.mapToScene(self.mapFromGlobal(QCursor.pos()))
        text = f"Cannot connect: {reason}"
        if self._note is not None and self._note.scene() is not None:
            self.scene().removeItem(self._note)
        self._note = _Note(text, self.renderer.theme)
        self._note.setPos(scene_pos + QPointF(12, 12) / max(self.transform().m11(), 1e-3))
        self.scene().addItem(self._note)
        note = self._note
        QTimer.singleShot(4000, self, lambda: self._drop_note(note))

    def _drop_note(self, note):
        if note.scene() is not None:
            note.scene().removeItem(note)
        if self._note is note:
            self._note = None

    def refusal_note(self):
        """The message shown at the cursor, while it is visible (else None)."""
        return self._note.text if self._note is not None and self._note.scene() is not None else None

    # -- adding nodes -------------------------------------------------------------------
    def view_centre(self):
        return self.mapToScene(self.viewport().rect().center())

    def add_node_at(self, kind, op="", scene_pos=None):
        """Add a node from a palette entry at `scene_pos` (the view's centre when None).
        Role entries ('role', 'target' | 'source' | 'output_gradients') act on the selection."""
        if kind == "role":
            return self.apply_role(op)
        pos = self._free_spot(self.view_centre()) if scene_pos is None else QPointF(scene_pos)
        c = self.controller
        variant = op if kind in (CONSTANT, VARIABLE) else ""
        node = c.make_node(kind, "" if variant else op, (round(pos.x() - 60.0), round(pos.y() - 20.0)))
        if variant == "watched":
            node.watched = True
        elif variant == "frozen":
            node.trainable = False
        ids = c.add_nodes([node], (), text=f"Add {node.title}")
        return ids[0] if ids else None

    def _free_spot(self, pos):
        """`pos`, moved down and right until no card starts within 30 px of it."""
        taken = [QPointF(x + 60.0, y + 20.0) for x, y in self.positions.values()]
        for _ in range(50):
            if not any(abs(t.x() - pos.x()) < 30 and abs(t.y() - pos.y()) < 30 for t in taken):
                break
            pos = pos + QPointF(36, 36)
        return pos

    def apply_role(self, role):
        c = self.controller
        ids = [i for i in c.selection if i in c.doc.nodes]
        if not ids:
            c.message.emit("Select a node first, then choose "
                           f"'{ {'target': 'Mark as target', 'source': 'Mark as source'}.get(role, role)}'")
            return None
        ports = [Port(i, 0) for i in ids]
        if role in ("target", "source"):
            key = role + "s"
            current = list(getattr(c.doc, key))
            if all(p in current for p in ports):
                new = [p for p in current if p not in ports]
            else:
                new = current + [p for p in ports if p not in current]
            c.set_ports(key, new)
        elif role == "output_gradients":
            values = getattr(c.result.evaluation, "values", None) or {}

            def change(doc):
                for p in ports:
                    if p not in doc.targets:
                        doc.targets.append(p)
                    v = values.get(p)
                    doc.output_gradients[p] = np.ones(np.shape(v), getattr(v, "dtype", np.float32)) \
                        if v is not None else np.ones((), np.float32)
            c.edit("Set output_gradients", change)
        return None

    def quick_add(self, scene_pos=None):
        """Tab: a search box at the cursor; Enter adds the chosen entry there."""
        from .palette import palette_entries
        if scene_pos is None:
            local = self.mapFromGlobal(QCursor.pos())
            if not self.viewport().rect().contains(local):
                local = self.viewport().rect().center()
            scene_pos = self.mapToScene(local)
        entries = palette_entries()
        popup = _QuickAdd(self, entries, QPointF(scene_pos))
        popup.move(self.viewport().mapToGlobal(self.mapFromScene(scene_pos)))
        popup.show()
        popup.edit.setFocus()
        self._quick = popup
        return popup

    # -- clipboard and deletion ---------------------------------------------------------
    def _selected_ids(self):
        return [i for i in self.controller.selection if i in self.controller.doc.nodes]

    def selection_text(self, ids=None):
        """The selected nodes (and the edges among them) as gradviz JSON text."""
        doc = self.controller.doc
        ids = self._selected_ids() if ids is None else ids
        sub = Document(title="clipboard")
        for nid in ids:
            node = copy.deepcopy(doc.nodes[nid])
            if node.position is None and nid in self.positions:
                node.position = self.positions[nid]
            sub.add(node)
        sub.edges = [e for e in doc.edges if e.src.node in sub.nodes and e.dst.node in sub.nodes]
        return fileformat.dumps(sub)

    def copy(self):
        ids = self._selected_ids()
        if not ids:
            return False
        text = self.selection_text(ids)
        data = QMimeData()
        data.setText(text)
        data.setData(NODES_MIME, text.encode())
        QApplication.clipboard().setMimeData(data)
        self._paste_count = 0
        self.controller.message.emit(f"Copied {len(ids)} node{'s' if len(ids) > 1 else ''}")
        return True

    def cut(self):
        if self.copy():
            self.delete_selected()

    def paste(self, text=None):
        if text is None:
            data = QApplication.clipboard().mimeData()
            if data is None:
                return []
            text = bytes(data.data(NODES_MIME)).decode() if data.hasFormat(NODES_MIME) else data.text()
        try:
            sub = fileformat.loads(text, strict=False)
        except Exception as e:  # noqa: BLE001 (anything else on the clipboard)
            self.controller.message.emit(
                f"Nothing to paste: the clipboard holds no gradviz nodes ({e})"[:200])
            return []
        if not sub.nodes:
            return []
        self._paste_count += 1
        shift = 40.0 * self._paste_count
        for node in sub.nodes.values():
            x, y = node.position if node.position is not None else tuple(self.view_centre().toTuple())
            node.position = (round(x + shift, 1), round(y + shift, 1))
        return self.controller.add_nodes(list(sub.nodes.values()), sub.edges, text="Paste")

    def duplicate(self):
        ids = self._selected_ids()
        if not ids:
            return []
        self._paste_count = 0
        return self.paste(self.selection_text(ids))

    def delete_selected(self):
        ids = self._selected_ids()
        edges = [e for e in self.selected_edges() if e in self.controller.doc.edges]
        if not ids and not edges:
            return

        def change(doc):
            for e in edges:
                if e in doc.edges:
                    doc.edges.remove(e)
            for nid in ids:
                if nid in doc.nodes:
                    doc.remove(nid)
        what = f"Delete {ids[0]}" if len(ids) == 1 and not edges else (
            "Disconnect" if not ids and len(edges) == 1 else "Delete")
        self.controller.edit(what, change)
        self.controller.set_selection([])

    # -- layout, zoom, grid -------------------------------------------------------------
    def auto_layout(self):
        """The render layer's layout, as one undoable move."""
        doc = self.controller.doc
        if not doc.nodes:
            return
        sizes = {nid: (c.width, c.height) for nid, c in self.renderer.cards.items()}
        positions = layout_positions(doc, sizes)
        self.controller.move_nodes({nid: positions[nid] for nid in doc.nodes}, merge=False)
        self.controller.end_move()
        self.fit()

    def fit(self):
        items = list(self.node_items.values())
        if not items:
            self.reset_zoom()
            return
        rect = QRectF()
        for item in items:
            rect = rect.united(item.mapRectToScene(item.boundingRect() | item.childrenBoundingRect()))
        rect = rect.adjusted(-24, -24, 24, 24)
        self._update_scene_rect()
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > 1.25:
            self._set_scale(1.25)
            self.centerOn(rect.center())
        elif self.transform().m11() < MIN_SCALE:
            self._set_scale(MIN_SCALE)
            self.centerOn(rect.center())

    def zoom_level(self):
        return self.transform().m11()

    def _set_scale(self, s):
        s = min(MAX_SCALE, max(MIN_SCALE, s))
        self.setTransform(self.transform().fromScale(s, s))

    def zoom_by(self, factor, anchor_under_mouse=True):
        s = self.transform().m11()
        target = min(MAX_SCALE, max(MIN_SCALE, s * factor))
        if abs(target - s) < 1e-9:
            return
        old = self.transformationAnchor()
        if not anchor_under_mouse:
            self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.scale(target / s, target / s)
        self.setTransformationAnchor(old)
        self._update_scene_rect()

    def zoom_in(self):
        self.zoom_by(1.25, anchor_under_mouse=False)

    def zoom_out(self):
        self.zoom_by(0.8, anchor_under_mouse=False)

    def reset_zoom(self):
        centre = self.view_centre()
        self.resetTransform()
        self.centerOn(centre)

    def set_grid_visible(self, visible):
        self.grid_visible = bool(visible)
        self.resetCachedContent()
        self.viewport().update()

    def drawBackground(self, painter, rect):
        t = self.renderer.theme
        painter.fillRect(rect, QColor(t.background))
        if not self.grid_visible:
            return
        step = GRID
        while step * self.transform().m11() < 9:
            step *= 5
        left = math.floor(rect.left() / step) * step
        top = math.floor(rect.top() / step) * step
        minor = QColor(t.grid_dot)
        major = QColor(t.grid_dot).darker(112)
        lines_minor, lines_major = [], []
        x = left
        while x < rect.right():
            (lines_major if round(x / step) % 5 == 0 else lines_minor).append(
                QLineF(x, rect.top(), x, rect.bottom()))
            x += step
        y = top
        while y < rect.bottom():
            (lines_major if round(y / step) % 5 == 0 else lines_minor).append(
                QLineF(rect.left(), y, rect.right(), y))
            y += step
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(QPen(minor, 0))
        painter.drawLines(lines_minor)
        painter.setPen(QPen(major, 0))
        painter.drawLines(lines_major)

    # -- input --------------------------------------------------------------------------
    def wheelEvent(self, event):
        delta = event.angleDelta().y() or event.angleDelta().x()
        if delta:
            self.zoom_by(1.0015 ** delta)
        event.accept()

    def event(self, event):
        chord = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
        if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Tab \
                and not event.modifiers() & chord:
            self.quick_add()
            return True
        if event.type() == QEvent.Type.ShortcutOverride and event.key() == Qt.Key.Key_Space \
                and not event.modifiers():
            event.accept()  # Space is ours: held it pans, tapped it plays (spaceTapped)
            return True
        return super().event(event)

    def keyPressEvent(self, event):
        key, mods = event.key(), event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        undo = self.controller.undo_stack
        handlers = {
            (Qt.Key.Key_Delete, False): self.delete_selected,
            (Qt.Key.Key_Backspace, False): self.delete_selected,
            (Qt.Key.Key_C, True): self.copy, (Qt.Key.Key_X, True): self.cut,
            (Qt.Key.Key_V, True): self.paste, (Qt.Key.Key_D, True): self.duplicate,
            (Qt.Key.Key_A, True): self.select_all,
            (Qt.Key.Key_Equal, True): self.zoom_in, (Qt.Key.Key_Plus, True): self.zoom_in,
            (Qt.Key.Key_Minus, True): self.zoom_out, (Qt.Key.Key_0, True): self.reset_zoom,
            (Qt.Key.Key_F, False): self.fit, (Qt.Key.Key_L, True): self.auto_layout,
            (Qt.Key.Key_Z, True): undo.redo if shift else undo.undo, (Qt.Key.Key_Y, True): undo.redo,
            (Qt.Key.Key_Escape, False): self._cancel_wire,
        }
        handler = handlers.get((key, ctrl))
        if handler is not None:
            handler()
            event.accept()
            return
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self._space_panned = False
            self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event):
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
            event.accept()
            if not self._space_panned:
                self.spaceTapped.emit()
            return
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event):
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton and not self._space:
            item = self.itemAt(event.position().toPoint())
            if isinstance(item, EdgeItem) and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self.scene().clearSelection()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event):
        if self._space and event.buttons():
            self._space_panned = True
        if self._pan is not None:
            d = event.position() - self._pan
            self._pan = event.position()
            self.horizontalScrollBar().setValue(int(self.horizontalScrollBar().value() - d.x()))
            self.verticalScrollBar().setValue(int(self.verticalScrollBar().value() - d.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event):
        if event.button() == Qt.MouseButton.MiddleButton and self._pan is not None:
            self._pan = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._update_scene_rect()

    def showEvent(self, event):
        super().showEvent(event)
        if not getattr(self, "_shown_once", False):
            self._shown_once = True
            QTimer.singleShot(0, self, self.fit)

    # -- drops from the palette ---------------------------------------------------------
    def dragEnterEvent(self, event):
        if event.mimeData().hasFormat(PALETTE_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event):
        if event.mimeData().hasFormat(PALETTE_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event):
        data = event.mimeData()
        if data.hasFormat(PALETTE_MIME):
            entry = json.loads(bytes(data.data(PALETTE_MIME)).decode())
            self.add_node_at(entry["kind"], entry.get("op", ""),
                             self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
            return
        super().dropEvent(event)

    # -- context menu -------------------------------------------------------------------
    def _context_actions(self):
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)

    def contextMenuEvent(self, event):
        scene_pos = self.mapToScene(event.pos())
        item = self.itemAt(event.pos())
        while item is not None and not isinstance(item, (NodeItem, EdgeItem)):
            item = item.parentItem()
        menu = QMenu(self)
        if isinstance(item, NodeItem):
            if item.nid not in self.controller.selection:
                self.controller.set_selection([item.nid])
            menu.addAction("Mark as target / unmark", lambda: self.apply_role("target"))
            menu.addAction("Mark as source / unmark", lambda: self.apply_role("source"))
            menu.addAction("Set output_gradients (ones)", lambda: self.apply_role("output_gradients"))
            menu.addSeparator()
            menu.addAction("Copy", self.copy)
            menu.addAction("Duplicate", self.duplicate)
            menu.addAction("Delete", self.delete_selected)
        elif isinstance(item, EdgeItem):
            edge = item.edge
            menu.addAction("Disconnect", lambda: self.controller.disconnect(edge))
        else:
            menu.addAction("Add node…", lambda: self.quick_add(scene_pos))
            menu.addAction("Paste", self.paste)
            menu.addSeparator()
            menu.addAction("Auto-layout", self.auto_layout)
            menu.addAction("Fit to view", self.fit)
            grid = QAction("Show grid", menu, checkable=True, checked=self.grid_visible)
            grid.toggled.connect(self.set_grid_visible)
            menu.addAction(grid)
        menu.exec(event.globalPos())


class _QuickAdd(QFrame):
    """The Tab popup: type to search every palette entry, Enter adds it where the cursor was."""

    def __init__(self, view, entries, scene_pos):
        super().__init__(view, Qt.WindowType.Popup)
        self.view = view
        self.scene_pos = scene_pos
        self.entries = {}
        for group, kind, op, title, doc in entries:
            label = f"{title}  ({group})" if title != op or kind != OP else f"{op}  ({group})"
            self.entries.setdefault(label, (kind, op))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Add node: type to search…")
        self.edit.setMinimumWidth(280)
        layout.addWidget(self.edit)
        self.completer = QCompleter(list(self.entries), self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setMaxVisibleItems(14)
        self.edit.setCompleter(self.completer)
        self.completer.activated.connect(self.choose)
        self.edit.returnPressed.connect(lambda: self.choose(self.edit.text()))

    def matches(self, text):
        text = text.strip().lower()
        return [label for label in self.entries if text in label.lower()]

    def choose(self, text):
        entry = self.entries.get(text)
        if entry is None:
            found = self.matches(text)
            exact = [m for m in found if m.lower().startswith(text.strip().lower())]
            entry = self.entries[(exact or found)[0]] if found else None
        self.close()
        if entry is not None:
            self.view.add_node_at(entry[0], entry[1], self.scene_pos)
        return entry
