"""Paint a graph document and one story frame with QPainter (QtGui only, no widgets).

The Renderer measures every node card once (title, shape, value and gradient previews),
lays the cards out (`layout.layout`, or the positions saved in the document) and paints
onto any QPaintDevice: a QImage, an SVG generator, a PDF writer or a widget.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF

from ..graph.document import CONSTANT, OP, VARIABLE, Port
from . import preview
from .layout import layout
from .themes import get_theme

HEADER_H = 28.0
PAD = 10.0
LINE_H = 17.0
MIN_W = 132.0
PORT_R = 5.0
MARGIN = 28.0
BADGE_H = 18.0
CARD_GAP = 18.0
FORMULA_W = 420.0

CUT_OPS = {"stop_gradient"}


@dataclass
class Card:
    """The measured content of one node card (coordinates relative to its top-left)."""

    node_id: str
    title: str
    subtitle: str
    info: str
    value: object = None
    gradient: object = None
    has_gradient: bool = False
    n_inputs: int = 0
    n_outputs: int = 1
    width: float = MIN_W
    height: float = 60.0
    sections: list = field(default_factory=list)   # (label, array, colour key, y)
    attrs: str = ""


def _catalog():
    try:
        from ..graph import catalog
    except Exception:  # the graph layer may not provide it yet
        return None
    return catalog


def _node_inputs(node, doc):
    count = 0
    catalog = _catalog()
    if catalog is not None and node.kind == OP:
        spec = getattr(catalog, "OPS", {}).get(node.op)
        if spec is not None and spec.inputs and not any(str(n).startswith("*") for n in spec.inputs):
            count = len(spec.inputs)
    used = [e.dst.index + 1 for e in doc.edges if e.dst.node == node.id]
    return max([count, *used]) if (count or used) else (0 if node.kind in (CONSTANT, VARIABLE) else 1)


class Renderer:
    """Paints `doc`, optionally with values/gradients (`evaluation`) and a story step."""

    def __init__(self, doc, evaluation=None, story=None, theme="light", positions=None):
        self.doc = doc
        self.evaluation = evaluation
        self.story = story
        self.theme = get_theme(theme)
        self.cards = {nid: self._measure(node) for nid, node in doc.nodes.items()}
        if positions is None:
            saved = [n.position for n in doc.nodes.values()]
            if saved and all(p is not None for p in saved):
                positions = {nid: tuple(n.position) for nid, n in doc.nodes.items()}
            else:
                positions = layout(doc, {nid: (c.width, c.height) for nid, c in self.cards.items()})
        self.positions = positions

    # -- measuring ---------------------------------------------------------------------
    def _value(self, nid):
        port = Port(nid, 0)
        if self.evaluation is not None:
            values = getattr(self.evaluation, "values", {}) or {}
            if port in values:
                return values[port]
        node = self.doc.nodes[nid]
        return node.value if node.kind in (CONSTANT, VARIABLE) else None

    def _gradient(self, nid):
        port = Port(nid, 0)
        grads = getattr(self.evaluation, "gradients", None) or {}
        if port in grads:
            return True, grads[port]
        return False, None

    def _measure(self, node):
        value = self._value(node.id)
        has_grad, grad = self._gradient(node.id)
        if node.kind == OP or node.kind == "layer" or node.kind == "custom_gradient":
            title = node.label or node.op or node.id
            subtitle = node.id if node.id != title else node.kind
        else:
            title = node.label or node.id
            subtitle = node.kind + (" · watched" if node.watched else "")
            if node.kind == VARIABLE and not node.trainable:
                subtitle = "variable · frozen"
        info = preview.shape_text(value) if value is not None else ""
        attrs = ", ".join(f"{k}={v}" for k, v in _shown_attrs(node).items())
        if node.kind != OP and node.op and node.op != title:
            attrs = node.op + (f" ({attrs})" if attrs else "")
        card = Card(node.id, title, subtitle, info, value, grad, has_grad,
                    n_inputs=_node_inputs(node, self.doc),
                    n_outputs=max([1, *(e.src.index + 1 for e in self.doc.edges if e.src.node == node.id)]))
        fm_title = QFontMetricsF(preview.sans_font(11, bold=True))
        fm_small = QFontMetricsF(preview.sans_font(8.5))
        fm_body = QFontMetricsF(preview.sans_font(9))
        fm_label = QFontMetricsF(preview.sans_font(8.5, bold=True))
        width = max(MIN_W, fm_title.horizontalAdvance(title) + fm_small.horizontalAdvance(subtitle) + 3 * PAD)
        y = HEADER_H + 6
        lines = [t for t in (info, attrs[:40]) if t]
        for text in lines:
            width = max(width, fm_body.horizontalAdvance(text) + 2 * PAD)
        y += LINE_H * len(lines)
        for label, array, colour, present in (("value", value, "value", value is not None),
                                              ("gradient", grad, "gradient", has_grad)):
            if not present:
                continue
            y += 4
            if array is None:
                card.sections.append((label, None, colour, y))
                y += LINE_H + 2
                continue
            w, h = preview.measure(array)
            width = max(width, w + 2 * PAD + 6, fm_label.horizontalAdvance(_section_label(label, title)) + 2 * PAD)
            card.sections.append((label, array, colour, y))
            y += LINE_H + h + 6
        card.width = math.ceil(width)
        min_h = HEADER_H + 14 + max(card.n_inputs, card.n_outputs) * 18
        card.height = math.ceil(max(y + 6, min_h, 54.0))
        card.attrs = attrs[:40]
        return card

    # -- geometry ----------------------------------------------------------------------
    def rect(self, nid):
        x, y = self.positions[nid]
        card = self.cards[nid]
        return QRectF(x, y, card.width, card.height)

    def input_pos(self, nid, index):
        r = self.rect(nid)
        n = max(self.cards[nid].n_inputs, index + 1)
        body = r.height() - HEADER_H
        return QPointF(r.left(), r.top() + HEADER_H + body * (index + 1) / (n + 1))

    def output_pos(self, nid, index=0):
        r = self.rect(nid)
        n = max(self.cards[nid].n_outputs, index + 1)
        body = r.height() - HEADER_H
        return QPointF(r.right(), r.top() + HEADER_H + body * (index + 1) / (n + 1))

    def step_at(self, step):
        if step is None:
            return None
        if isinstance(step, int):
            steps = getattr(self.story, "steps", None) or []
            if not -len(steps) <= step < len(steps):
                raise IndexError(f"step {step} is out of range (the story has {len(steps)} steps)")
            return steps[step]
        return step

    def bounds(self, step=None):
        """The rectangle everything is painted in, margins included."""
        if not self.doc.nodes:
            return QRectF(0, 0, 320, 120)
        r = QRectF()
        for nid in self.doc.nodes:
            r = r.united(self.rect(nid).adjusted(0, -BADGE_H - 4, 0, 0))
        step = self.step_at(step)
        if step is not None:
            card = self._formula_rect(step)
            if card is not None:
                r = r.united(card)
            if getattr(step, "kind", "") == "seed":
                r = r.adjusted(0, 0, 70, 0)
        return r.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)

    def is_cut(self, edge):
        dst = self.doc.nodes.get(edge.dst.node)
        if dst is None:
            return False
        return (dst.kind == OP and dst.op in CUT_OPS) or edge.dst.node in self.doc.tape.stop_recording

    # -- painting ----------------------------------------------------------------------
    def paint(self, painter, step=None, progress=1.0, background=True):
        """Paint the graph (and the story `step`, an index or a Step) in document coordinates."""
        step = self.step_at(step)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        t = self.theme
        if background:
            painter.fillRect(self.bounds(step), QColor(t.background))
        active = getattr(step, "node", None) if step is not None else None
        for edge in self.doc.edges:
            if edge.src.node in self.doc.nodes and edge.dst.node in self.doc.nodes:
                self._paint_edge(painter, edge)
        if active in self.doc.nodes:
            self._paint_highlight(painter, active)
            self._paint_leader(painter, step)
        for nid in self.doc.nodes:
            self._paint_card(painter, nid)
        if step is not None:
            self._paint_step(painter, step, progress)

    def _edge_path(self, a, b):
        path = QPainterPath(a)
        dx = max(40.0, abs(b.x() - a.x()) * 0.5)
        path.cubicTo(QPointF(a.x() + dx, a.y()), QPointF(b.x() - dx, b.y()), b)
        return path

    def _arrowhead(self, painter, tip, angle, colour, size=9.0):
        left = QPointF(tip.x() - size * math.cos(angle - 0.42), tip.y() - size * math.sin(angle - 0.42))
        right = QPointF(tip.x() - size * math.cos(angle + 0.42), tip.y() - size * math.sin(angle + 0.42))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawPolygon(QPolygonF([tip, left, right]))

    def _paint_edge(self, painter, edge):
        t = self.theme
        a = self.output_pos(edge.src.node, edge.src.index)
        b = self.input_pos(edge.dst.node, edge.dst.index)
        end = QPointF(b.x() - PORT_R - 1, b.y())
        path = self._edge_path(a, end)
        cut = self.is_cut(edge)
        pen = QPen(QColor(t.cut if cut else t.edge), 1.8)
        if cut:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        angle = math.radians(-path.angleAtPercent(1.0))
        self._arrowhead(painter, end, angle, t.cut if cut else t.edge)
        if cut:
            self._cut_mark(painter, path.pointAtPercent(0.5))

    def _cut_mark(self, painter, c):
        """A round badge with a cross: the gradient does not flow through here."""
        t = self.theme
        painter.setPen(QPen(QColor(t.cut), 1.5))
        painter.setBrush(QColor(t.background))
        painter.drawEllipse(c, 8.0, 8.0)
        pen = QPen(QColor(t.cut), 2.2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        d = 3.8
        painter.drawLine(QPointF(c.x() - d, c.y() - d), QPointF(c.x() + d, c.y() + d))
        painter.drawLine(QPointF(c.x() - d, c.y() + d), QPointF(c.x() + d, c.y() - d))

    def _paint_highlight(self, painter, nid):
        r = self.rect(nid).adjusted(-6, -6, 6, 6)
        glow = QColor(self.theme.active)
        glow.setAlpha(70)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(glow)
        painter.drawRoundedRect(r.adjusted(-4, -4, 4, 4), 14, 14)
        painter.setPen(QPen(QColor(self.theme.active), 3.0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(r, 11, 11)

    def _badge(self, painter, x, y, text, colour, align_right=False):
        font = preview.sans_font(8, bold=True)
        fm = QFontMetricsF(font)
        w = fm.horizontalAdvance(text) + 14
        if align_right:
            x -= w
        r = QRectF(x, y, w, BADGE_H)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRoundedRect(r, BADGE_H / 2, BADGE_H / 2)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(font)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
        return w

    def _pill(self, painter, centre, text, colour):
        font = preview.sans_font(8, bold=True)
        w = QFontMetricsF(font).horizontalAdvance(text) + 12
        r = QRectF(centre.x() - w / 2, centre.y() + 4, w, BADGE_H - 2)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRoundedRect(r, r.height() / 2, r.height() / 2)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(font)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_card(self, painter, nid):
        t = self.theme
        card = self.cards[nid]
        node = self.doc.nodes[nid]
        r = self.rect(nid)
        # Body and header
        painter.setPen(QPen(QColor(t.card_border), 1.2))
        painter.setBrush(QColor(t.card))
        painter.drawRoundedRect(r, 8, 8)
        header = QPainterPath()
        header.addRoundedRect(QRectF(r.left(), r.top(), r.width(), HEADER_H + 8), 8, 8)
        clip = QPainterPath()
        clip.addRect(QRectF(r.left(), r.top(), r.width(), HEADER_H))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(t.header.get(node.kind, t.header.get("op", "#1565c0"))))
        painter.drawPath(header.intersected(clip))
        painter.setPen(QPen(QColor(t.card_border), 1.2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(r, 8, 8)
        # Title and subtitle
        painter.setPen(QColor(t.header_text))
        painter.setFont(preview.sans_font(11, bold=True))
        head = QRectF(r.left() + PAD, r.top(), r.width() - 2 * PAD, HEADER_H)
        painter.drawText(head, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, card.title)
        painter.setFont(preview.sans_font(8.5))
        sub = QColor(t.header_text)
        sub.setAlpha(215)
        painter.setPen(sub)
        painter.drawText(head, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, card.subtitle)
        # Info lines
        y = r.top() + HEADER_H + 6
        painter.setFont(preview.sans_font(9))
        painter.setPen(QColor(t.muted))
        for text in (card.info, card.attrs):
            if text:
                painter.drawText(QRectF(r.left() + PAD, y, r.width() - 2 * PAD, LINE_H),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
                y += LINE_H
        # Value and gradient previews
        for label, array, colour_key, sy in card.sections:
            colour = getattr(t, colour_key)
            fill = t.gradient_fill if colour_key == "gradient" else t.value_fill
            top = r.top() + sy
            if array is not None:
                _, h = preview.measure(array)
                box = QRectF(r.left() + 4, top - 2, r.width() - 8, LINE_H + h + 6)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(fill))
                painter.drawRoundedRect(box, 5, 5)
            painter.setFont(preview.sans_font(8.5, bold=True))
            painter.setPen(QColor(colour))
            text = label if array is not None else f"{label}: None (not connected)"
            if array is not None:
                text = _section_label(label, card.title)
            painter.drawText(QRectF(r.left() + PAD, top, r.width() - 2 * PAD, LINE_H),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
            if array is not None:
                preview.draw(painter, array, r.left() + PAD, top + LINE_H, colour, t)
        # Ports
        painter.setPen(QPen(QColor(t.card_border), 1.4))
        painter.setBrush(QColor(t.port))
        for i in range(card.n_inputs):
            painter.drawEllipse(self.input_pos(nid, i), PORT_R, PORT_R)
        for i in range(card.n_outputs):
            painter.drawEllipse(self.output_pos(nid, i), PORT_R, PORT_R)
        # Badges: source (left), target (right), not recorded
        bx = r.left()
        if any(p.node == nid for p in self.doc.sources):
            bx += self._badge(painter, bx, r.top() - BADGE_H - 4, "source", t.source) + 4
        if nid in self.doc.tape.stop_recording:
            self._badge(painter, bx, r.top() - BADGE_H - 4, "not recorded", t.cut)
        if any(p.node == nid for p in self.doc.targets):
            seeded = any(p.node == nid for p in self.doc.output_gradients)
            self._badge(painter, r.right(), r.top() - BADGE_H - 4,
                        "target (seeded)" if seeded else "target", t.target, align_right=True)

    # -- story step --------------------------------------------------------------------
    def _step_edges(self, step):
        """The edges the cotangent of `step` travels along (drawn against their direction)."""
        nid = getattr(step, "node", None)
        port = getattr(step, "port", None)
        kind = getattr(step, "kind", "")
        if nid not in self.doc.nodes:
            return []
        if kind in ("contribution", "cut"):
            edges = self.doc.inputs_of(nid)
            slot = getattr(step, "input_index", None)
            if slot is not None:
                edges = [e for e in edges if e.dst.index == slot]
            elif port is not None:
                if port.node == nid:
                    edges = [e for e in edges if e.dst.index == port.index]
                else:
                    edges = [e for e in edges if e.src == port]
            return edges
        if kind in ("visit", "fan_in", "accumulate", "unconnected"):
            return [e for e in self.doc.consumers_of(nid) if e.dst.node in self.doc.nodes]
        return []

    def _paint_step(self, painter, step, progress):
        t = self.theme
        kind = getattr(step, "kind", "")
        colour = t.cut if kind == "cut" else t.cotangent
        for edge in self._step_edges(step):
            a = self.input_pos(edge.dst.node, edge.dst.index)
            b = self.output_pos(edge.src.node, edge.src.index)
            # Offset below the edge so the forward edge stays visible.
            a, b = QPointF(a.x() - PORT_R - 2, a.y() + 10), QPointF(b.x() + PORT_R + 3, b.y() + 10)
            path = QPainterPath(a)
            dx = max(40.0, abs(b.x() - a.x()) * 0.5)
            path.cubicTo(QPointF(a.x() - dx, a.y()), QPointF(b.x() + dx, b.y()), b)
            progress = min(1.0, max(0.0, progress))
            head = 14.0
            tip_at = path.percentAtLength(path.length() * progress)
            stem_at = path.percentAtLength(max(0.0, path.length() * progress - head + 2))
            pen = QPen(QColor(colour), 4.0)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            if kind == "cut":
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(_partial(path, stem_at))
            tip = path.pointAtPercent(tip_at)
            angle = math.radians(-path.angleAtPercent(tip_at))
            self._arrowhead(painter, tip, angle, colour, size=head)
            if kind == "cut":
                self._cut_mark(painter, path.pointAtPercent(0.5))
            elif progress >= 1.0:
                label = "cotangent " + preview.shape_text(getattr(step, "cotangent", None)).split(" ·")[0]
                self._pill(painter, path.pointAtPercent(0.5), label.strip(), colour)
        if kind == "seed" and getattr(step, "node", None) in self.doc.nodes:
            out = self.output_pos(step.node, getattr(getattr(step, "port", None), "index", 0) or 0)
            a = QPointF(out.x() + 60, out.y())
            b = QPointF(out.x() + PORT_R + 2, out.y())
            pen = QPen(QColor(colour), 4.0)
            painter.setPen(pen)
            painter.drawLine(a, QPointF(b.x() + 8, b.y()))
            self._arrowhead(painter, b, math.pi, colour, size=14.0)
            painter.setFont(preview.sans_font(9, bold=True))
            painter.setPen(QColor(colour))
            painter.drawText(QRectF(a.x() - 56, a.y() - 22, 60, 16), Qt.AlignmentFlag.AlignCenter, "seed")
        self._paint_formula(painter, step)

    # The formula card: upstream ⊗ local rule = contribution
    def _formula_parts(self, step):
        """The row of the formula card: upstream ⊗ local rule (with its operands) = result."""
        kind = getattr(step, "kind", "")
        cotangent = getattr(step, "cotangent", None)
        contributions = _arrays(getattr(step, "contributions", None))
        total = getattr(step, "total", None)
        formula = getattr(step, "formula", "") or ""
        operands = dict(getattr(step, "operands", None) or {})
        parts = []
        if kind == "fan_in" and contributions:
            for i, c in enumerate(contributions):
                if i:
                    parts.append(("op", "+"))
                parts.append(("array", c, f"path {i + 1}"))
            result = total if total is not None else cotangent
            if result is not None:
                parts += [("op", "="), ("array", np.asarray(result), "sum")]
        elif kind in ("contribution", "cut"):
            upstream = operands.pop("grad", None)
            result = contributions[0] if contributions else cotangent
            if upstream is None and contributions:
                upstream = cotangent
            if upstream is not None:
                parts.append(("array", np.asarray(upstream), "upstream"))
            if formula:
                if parts:
                    parts.append(("op", "⊗"))
                parts.append(("text", _rhs(formula), "local rule"))
                rhs = _rhs(formula)
                shown = [(k, v) for k, v in operands.items()
                         if v is not None and _mentions(rhs, k) and np.size(v) > 1][:1]
                for name, value in shown:
                    parts.append(("array", np.asarray(value), f"{name}"))
            if result is not None and kind != "cut":
                parts += [("op", "="), ("array", np.asarray(result), "contribution")]
        elif kind == "accumulate":
            result = total if total is not None else cotangent
            if result is not None:
                parts.append(("array", np.asarray(result), "gradient"))
        elif cotangent is not None:
            parts.append(("array", np.asarray(cotangent), "seed" if kind == "seed" else "upstream"))
        elif total is not None:
            parts.append(("array", np.asarray(total), "total"))
        return parts

    def _formula_size(self, step):
        fm_title = QFontMetricsF(preview.sans_font(10, bold=True))
        fm_text = QFontMetricsF(preview.sans_font(9))
        fm_formula = QFontMetricsF(preview.mono_font(9.5))
        parts = self._formula_parts(step)
        row_w, row_h = 0.0, 0.0
        for part in parts:
            if part[0] == "array":
                w, h = preview.measure(part[1])
                w = max(w, fm_text.horizontalAdvance(part[2]))
                row_h = max(row_h, h + LINE_H)
            elif part[0] == "text":
                w = min(fm_formula.horizontalAdvance(part[1]) + 8, 220)
                row_h = max(row_h, LINE_H * 2)
            else:
                w = 22.0
            row_w += w + 8
        title = getattr(step, "title", "") or ""
        width = max(260.0, min(FORMULA_W, max(row_w, fm_title.horizontalAdvance(title)) + 2 * PAD), row_w + 2 * PAD)
        caption = getattr(step, "caption", "") or ""
        cap_h = 0.0
        if caption:
            cap = fm_text.boundingRect(QRectF(0, 0, width - 2 * PAD, 400),
                                       int(Qt.TextFlag.TextWordWrap), caption)
            cap_h = cap.height() + 4
        formula = getattr(step, "formula", "") or ""
        height = PAD + LINE_H + 4 + cap_h + (LINE_H + 4 if formula else 0) + row_h + PAD
        return width, height, cap_h

    def _formula_rect(self, step):
        nid = getattr(step, "node", None)
        if nid not in self.doc.nodes:
            return None
        w, h, _ = self._formula_size(step)
        node = self.rect(nid)
        others = [self.rect(n) for n in self.doc.nodes if n != nid]
        candidates = [
            QRectF(node.left(), node.bottom() + CARD_GAP, w, h),
            QRectF(node.left(), node.top() - BADGE_H - CARD_GAP - h, w, h),
            QRectF(node.right() + CARD_GAP + 20, node.top(), w, h),
            QRectF(node.left() - CARD_GAP - 20 - w, node.top(), w, h),
        ]
        for c in candidates:
            grown = c.adjusted(-8, -8, 8, 8)
            if not any(grown.intersects(o.adjusted(0, -BADGE_H - 4, 0, 0)) for o in others):
                return c
        # Below everything: never covers a node.
        bottom = max(o.bottom() for o in [node, *others])
        return QRectF(node.left(), bottom + CARD_GAP + 10, w, h)

    def _paint_leader(self, painter, step):
        """A dotted line from the formula card to its node, painted under the cards."""
        rect = self._formula_rect(step)
        if rect is None:
            return
        painter.setPen(QPen(QColor(self.theme.formula_border), 1.5, Qt.PenStyle.DotLine))
        painter.drawLine(rect.center(), self.rect(step.node).center())

    def _paint_formula(self, painter, step):
        rect = self._formula_rect(step)
        if rect is None:
            return
        t = self.theme
        painter.setPen(QPen(QColor(t.formula_border), 1.6))
        painter.setBrush(QColor(t.formula_card))
        painter.drawRoundedRect(rect, 8, 8)
        _, _, cap_h = self._formula_size(step)
        x, y = rect.left() + PAD, rect.top() + PAD
        inner = rect.width() - 2 * PAD
        painter.setFont(preview.sans_font(10, bold=True))
        painter.setPen(QColor(t.text))
        index = getattr(step, "index", None)
        steps = len(getattr(self.story, "steps", []) or [])
        title = getattr(step, "title", "") or getattr(step, "kind", "")
        if index is not None and steps:
            title = f"{index + 1}/{steps}  {title}"
        painter.drawText(QRectF(x, y, inner, LINE_H), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         title)
        y += LINE_H + 4
        caption = getattr(step, "caption", "") or ""
        if caption:
            painter.setFont(preview.sans_font(9))
            painter.setPen(QColor(t.muted))
            painter.drawText(QRectF(x, y, inner, cap_h), int(Qt.TextFlag.TextWordWrap), caption)
            y += cap_h
        formula = getattr(step, "formula", "") or ""
        if formula:
            painter.setFont(preview.mono_font(9.5, bold=True))
            painter.setPen(QColor(t.gradient))
            painter.drawText(QRectF(x, y, inner, LINE_H), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             formula)
            y += LINE_H + 4
        parts = self._formula_parts(step)
        row_h = max([preview.measure(p[1])[1] for p in parts if p[0] == "array"] + [LINE_H])
        fm_text = QFontMetricsF(preview.sans_font(8.5))
        for part in parts:
            if part[0] == "array":
                w, h = preview.measure(part[1])
                label_w = fm_text.horizontalAdvance(part[2])
                colour = t.gradient if part[2] in ("contribution", "sum", "gradient") else t.value
                preview.draw(painter, part[1], x, y + (row_h - h) / 2, colour, t)
                painter.setFont(preview.sans_font(8.5))
                painter.setPen(QColor(t.muted))
                painter.drawText(QRectF(x, y + row_h + 1, max(w, label_w), LINE_H),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, part[2])
                x += max(w, label_w) + 8
            elif part[0] == "text":
                painter.setFont(preview.mono_font(9.5))
                painter.setPen(QColor(t.text))
                fm = QFontMetricsF(preview.mono_font(9.5))
                w = min(fm.horizontalAdvance(part[1]) + 8, 220)
                text = fm.elidedText(part[1], Qt.TextElideMode.ElideRight, w)
                painter.drawText(QRectF(x, y, w, row_h), Qt.AlignmentFlag.AlignCenter, text)
                painter.setFont(preview.sans_font(8.5))
                painter.setPen(QColor(t.muted))
                painter.drawText(QRectF(x, y + row_h + 1, w + 20, LINE_H),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, part[2])
                x += w + 8
            else:
                painter.setFont(preview.sans_font(13, bold=True))
                painter.setPen(QColor(t.text))
                painter.drawText(QRectF(x, y, 22, row_h), Qt.AlignmentFlag.AlignCenter, part[1])
                x += 22 + 8


def _section_label(label, title):
    if label == "gradient" and len(title) <= 10:
        return "gradient  ∂target/∂" + title
    return label


def _shown_attrs(node):
    """The attributes worth a line on the card: those that differ from the catalog default."""
    attrs = dict(node.attrs or {})
    catalog = _catalog()
    spec = getattr(catalog, "OPS", {}).get(node.op) if catalog is not None and node.kind == OP else None
    defaults = getattr(spec, "attrs", None) or {}
    return {k: v for k, v in attrs.items() if not (k in defaults and _same(defaults[k], v))}


def _same(a, b):
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
    except Exception:
        return False


def _mentions(text, name):
    import re
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _rhs(formula):
    """The right-hand side of 'grad_a = grad @ bᵀ', the part that is the local rule."""
    return formula.split("=", 1)[1].strip() if "=" in formula else formula


def _arrays(contributions):
    if contributions is None:
        return []
    items = contributions.values() if isinstance(contributions, dict) else contributions
    out = []
    for item in items:
        if isinstance(item, tuple):
            item = next((x for x in reversed(item) if isinstance(x, (np.ndarray, float, int, np.generic))), None)
        elif hasattr(item, "cotangent") and not isinstance(item, np.ndarray):
            item = item.cotangent
        elif hasattr(item, "value") and not isinstance(item, np.ndarray):
            item = item.value
        if item is not None:
            out.append(np.asarray(item))
    return out


def _partial(path, fraction):
    """The first `fraction` of a path, as a polyline (for the travelling cotangent)."""
    fraction = max(0.0, min(1.0, fraction))
    out = QPainterPath(path.pointAtPercent(0.0))
    n = 24
    for i in range(1, n + 1):
        out.lineTo(path.pointAtPercent(fraction * i / n))
    return out


# -- public hooks for the app's step overlay (the player) --------------------------------
def formula_rect(renderer, step):
    """Where `renderer` puts the formula card of `step` (None when it has none)."""
    return renderer._formula_rect(step)


def formula_arrays(renderer, step):
    """[(label, array, QRectF)]: each array of the formula card where `_paint_formula` draws it."""
    rect = renderer._formula_rect(step)
    if rect is None:
        return []
    _, _, cap_h = renderer._formula_size(step)
    x, y = rect.left() + PAD, rect.top() + PAD + LINE_H + 4
    if getattr(step, "caption", ""):
        y += cap_h
    if getattr(step, "formula", ""):
        y += LINE_H + 4
    parts = renderer._formula_parts(step)
    row_h = max([preview.measure(p[1])[1] for p in parts if p[0] == "array"] + [LINE_H])
    fm_text = QFontMetricsF(preview.sans_font(8.5))
    fm_formula = QFontMetricsF(preview.mono_font(9.5))
    out = []
    for part in parts:
        if part[0] == "array":
            w, h = preview.measure(part[1])
            out.append((part[2], part[1], QRectF(x, y + (row_h - h) / 2, w, h)))
            x += max(w, fm_text.horizontalAdvance(part[2])) + 8
        elif part[0] == "text":
            x += min(fm_formula.horizontalAdvance(part[1]) + 8, 220) + 8
        else:
            x += 22 + 8
    return out


def entry_rect(array, x, y, flat_index):
    """The cell of entry `flat_index` in `preview.draw(array, x, y)`; None if elided."""
    k = preview.kind(array)
    w, h = preview.measure(array)
    if k == "scalar":
        return QRectF(x, y, w, h)
    a2 = preview.as_2d(array)
    r, c = divmod(int(flat_index), a2.shape[1])
    if k == "heatmap":
        cell = min(preview.HEAT_W / a2.shape[1], preview.HEAT_H / a2.shape[0], 12.0)
        return QRectF(x + c * cell, y + r * cell, cell, cell)
    full_r, full_c = (preview.FULL_ROWS, preview.FULL_COLS) if k == "grid" else (4, 4)
    rows, cols = preview._picked(a2.shape[0], full_r), preview._picked(a2.shape[1], full_c)
    if r not in rows or c not in cols:
        return None
    widths = preview._column_widths(preview._cells(array, k), 8.5)
    ci = cols.index(c)
    cx = x + preview.BRACKET + 2 + sum(widths[:ci])
    return QRectF(cx - 1, y + 2 + rows.index(r) * preview.CELL_H, widths[ci] - preview.CELL_PAD / 2 + 3,
                  preview.CELL_H)
