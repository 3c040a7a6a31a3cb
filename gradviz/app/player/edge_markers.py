"""Presentation mode's edge markers: where a slide cannot show a card its caption or rule card
names, a small label at the view's edge with an arrow toward it (step_view.edge_markers)."""
import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QWidget

from .caption_band import slide_font

ARROWS = "→↘↓↙←↖↑↗"         # toward a card, by the eighth of the circle it lies in (y down)
MARKER_PT = 14               # a marker's type on a screen 900 pixels tall, larger above
MARKER_PAD = 12.0            # pixels between a marker and the view's edge


class EdgeMarkers(QWidget):
    """Over the canvas's view: at its edge, a small label for each card the slide's caption or
    rule card names that the view could not show with the step's cards ('← x'), an arrow
    toward it (step_view.edge_markers). Never a card cut in half instead."""

    def __init__(self, canvas, scale=1.0):
        super().__init__(canvas)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.font_ = slide_font(MARKER_PT * scale, bold=True)
        self.markers = []
        self.cards = []

    def show_markers(self, markers, geometry, cards=()):
        """Show `markers` ([(name, (dx, dy))]) over the view at `geometry` (the viewport's),
        clear of `cards` (QRectF, the widget's pixels) where the edge leaves room."""
        self.setGeometry(geometry)
        self.markers = list(markers)
        self.cards = list(cards)
        self.setVisible(bool(self.markers))
        self.raise_()
        self.update()

    def rects(self):
        """[(text, QRectF)] of the markers, in the widget's pixels: each on the view's edge
        where the way toward its card leaves the view, kept apart from the ones before."""
        metrics = QFontMetricsF(self.font_)
        out = []
        w, h = self.width(), self.height()
        for name, (dx, dy) in self.markers:
            angle = math.atan2(dy, dx)
            arrow = ARROWS[int(round(angle / (math.pi / 4))) % 8]
            text = f"{arrow} {name}" if dx < 0 or (dx == 0 and dy < 0) else f"{name} {arrow}"
            size = (metrics.horizontalAdvance(text) + 20, metrics.height() + 10)
            reach = min((w / 2 - MARKER_PAD - size[0] / 2) / abs(dx) if dx else math.inf,
                        (h / 2 - MARKER_PAD - size[1] / 2) / abs(dy) if dy else math.inf)
            centre = QPointF(w / 2 + dx * reach, h / 2 + dy * reach)
            rect = QRectF(0, 0, *size)
            rect.moveCenter(centre)
            # along its edge, nearest first, to a place that hides no card nor another marker
            across = abs(centre.x() - w / 2) >= w / 2 - MARKER_PAD - size[0] / 2 - 1
            step = (0.0, size[1] / 2) if across else (size[0] / 2, 0.0)
            tries = [rect.translated(step[0] * k * sign, step[1] * k * sign)
                     for k in range(int(max(w, h) / max(min(size), 1.0)) + 1) for sign in (1, -1)]
            inside = QRectF(0, 0, w, h).adjusted(MARKER_PAD / 2, MARKER_PAD / 2, -MARKER_PAD / 2, -MARKER_PAD / 2)
            free = [r for r in tries if inside.contains(r)
                    and not any(r.intersects(other) for other in self.cards + [o for _, o in out])]
            out.append((text, free[0] if free else rect))
        return out

    def paintEvent(self, event):
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font_)
        for text, rect in self.rects():
            painter.setPen(QPen(QColor("#000000"), 2.0))
            painter.setBrush(QColor("#ffffff"))
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
        painter.end()
