"""Finding the cotangent entry under a click on the canvas (on the step's formula card or
on a card's gradient), the rings that mark entries on the cards, and the event filter that
sends such a click to the provenance dock."""
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from ...graph.document import Port
from ...render import painter as render_painter
from ...render.cards import LINE_H, PAD
from ...story.model import path_name

CARD_LABEL = {"seed": "seed", "visit": "upstream", "contribution": "contribution",
              "fan_in": "sum", "accumulate": "gradient", "update": "gradient"}

@dataclass
class GradientBox:
    """Where a card paints one gradient preview (render's card painter: the section's
    label, then the preview at (x, y))."""

    port: Port
    array: np.ndarray
    x: float
    y: float
    picture: object            # the section's laid-out preview (render.preview.Preview)

    def cell(self, flat):
        return self.picture.cell_rect(self.x, self.y, flat)


def gradient_boxes(renderer, nid):
    """[GradientBox] of the gradients card `nid` shows (none that are pending or None)."""
    card = renderer.cards.get(nid)
    if card is None or nid not in renderer.positions:
        return []
    pending = renderer.pending_ports()
    rect = renderer.rect(nid)
    return [GradientBox(s.port, np.asarray(s.array), rect.left() + PAD, rect.top() + s.y + LINE_H,
                        s.preview)
            for s in card.sections
            if s.colour == "gradient" and s.array is not None and s.port not in pending]


def _flat_in_box(box, point):
    return box.picture.entry_at(box.x, box.y, point)


def cotangent_labels(step):
    """The formula card's arrays that hold cotangent entries (not forward values)."""
    kind = step.kind
    if kind == "fan_in":
        return {"sum"} | {path_name(step, k) for k in range(len(step.contributions or []))}
    if kind in ("contribution", "cut"):
        return {"contribution", "upstream"}
    return {CARD_LABEL.get(kind, "")}


def entry_at(renderer, step, point):
    """What entry of a cotangent lies under scene `point`: ('card', label, flat) on the
    step's formula card, ('node', port, flat) on a card's gradient, or None."""
    if step is not None:
        wanted = cotangent_labels(step)
        for label, array, box, shown in render_painter.formula_pictures(renderer, step):
            if label in wanted and box.adjusted(-2, -2, 2, 2).contains(point):
                flat = shown.entry_at(box.left(), box.top(), point) if np.size(array) else None
                if flat is not None:
                    return "card", label, flat
    for nid in renderer.doc.nodes:
        if not renderer.rect(nid).contains(point):
            continue
        for box in gradient_boxes(renderer, nid):
            flat = _flat_in_box(box, point)
            if flat is not None:
                return "node", box.port, flat
    return None


class EntryRings(QGraphicsItem):
    """Rings around entries of the cards' gradient previews (the overlay rings the
    formula card's own)."""

    def __init__(self, colour):
        super().__init__()
        self.colour = QColor(colour)
        self.rects = []
        self.setZValue(21)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_rects(self, rects):
        self.prepareGeometryChange()
        self.rects = list(rects)
        self.update()

    def boundingRect(self):
        out = QRectF()
        for r in self.rects:
            out = out.united(r.adjusted(-3, -3, 3, 3))
        return out

    def paint(self, painter, option, widget=None):
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        fill = QColor(self.colour)
        fill.setAlpha(70)
        painter.setPen(QPen(self.colour, 2.0))
        painter.setBrush(fill)
        for r in self.rects:
            painter.drawRoundedRect(r, 3, 3)


class CanvasClicks(QObject):
    """While a story step is shown, a click on a cotangent or gradient entry on the canvas
    explains it in the panel (and the pointer says the entry can be clicked)."""

    def __init__(self, panel, canvas):
        super().__init__(panel)
        self.panel = panel
        self.canvas = canvas
        self._pointing = False
        canvas.viewport().installEventFilter(self)

    def hit(self, pos):
        if self.panel.player.step is None:
            return None
        return entry_at(self.canvas.renderer, self.panel.player.step,
                        self.canvas.mapToScene(pos.toPoint()))

    def eventFilter(self, obj, event):
        kind = event.type()
        if kind == QEvent.Type.MouseMove and not event.buttons():
            pointing = self.hit(event.position()) is not None
            if pointing != self._pointing:
                self._pointing = pointing
                if pointing:
                    obj.setCursor(Qt.CursorShape.PointingHandCursor)
                else:
                    obj.unsetCursor()
        elif kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton \
                and not event.modifiers():
            hit = self.hit(event.position())
            if hit is not None:
                self.panel.click_canvas(*hit)
                return True
        return False
