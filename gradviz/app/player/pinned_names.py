"""A card cut by the view's edge with its name out of view shows its name pinned inside the
view's edge, over the part of the card in view, as a sticky header does (issue 20 §4): a box
nobody can name is no help to a student. Settle pans to show such a name where a pan keeping
the step's items in view does that; where none does (the tiny CNN's step 18 in presentation
at 1920 x 1080: 'image x' cut at the top, its name off the top; the pan that shows it pushed
the step's own cards out of view), the name is pinned."""
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from ...render.cards import HEADER_H, PAD, title_font
from .card_rects import name_rect


def pinned_names(renderer, seen, zoom):
    """[(node id, scene rect)] of the name plates for the cards the view `seen` (scene, at
    `zoom`) cuts by a pixel or more with their names (`name_rect`) out of it: each the
    card's header row as far as its name, moved into the part of the card in view (into
    the view, where that part is smaller than the plate)."""
    px = 1.0 / zoom
    inner, grown = seen.adjusted(px, px, -px, -px), seen.adjusted(-px, -px, px, px)
    out = []
    for nid in renderer.doc.nodes:
        body = renderer.rect(nid)
        if not inner.intersects(body) or grown.contains(body):
            continue
        name = name_rect(renderer, nid)
        if grown.contains(name):
            continue
        plate = QRectF(0, 0, min(name.width() + PAD, body.width()), HEADER_H)
        shown = body.intersected(seen)
        x = max(shown.left(), min(name.left(), shown.right() - plate.width()))
        y = max(shown.top(), min(name.top(), shown.bottom() - plate.height()))
        x = max(seen.left(), min(x, seen.right() - plate.width()))
        y = max(seen.top(), min(y, seen.bottom() - plate.height()))
        plate.moveTo(x, y)
        out.append((nid, plate))
    return out


class PinnedNames(QWidget):
    """Over the canvas's view, while a story step is shown with its cards drawn in full: the
    name plates of `pinned_names` for the view as it is now (scrolled or zoomed by hand too),
    each in its card's header colour."""

    def __init__(self, canvas):
        super().__init__(canvas)
        self.canvas = canvas
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        for bar in (canvas.horizontalScrollBar(), canvas.verticalScrollBar()):
            bar.valueChanged.connect(self.update)

    def follow_viewport(self):
        """Lie over the canvas's viewport, above it."""
        self.setGeometry(self.canvas.viewport().geometry())
        self.raise_()
        self.update()

    def plates(self):
        """[(node id, its name as its header writes it, scene rect)] of the plates the view
        shows now."""
        c = self.canvas
        overlay = getattr(c, "step_overlay", None)
        if overlay is None or overlay.step is None or c.compact:
            return []
        r = c.renderer
        if any(n not in r.positions for n in r.doc.nodes):
            return []
        return [(nid, r.cards[nid].title_text, rect)
                for nid, rect in pinned_names(r, c.visible_rect(), c.transform().m11())]

    def paintEvent(self, event):
        plates = self.plates()
        if not plates:
            return
        r = self.canvas.renderer
        theme = r.theme
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.setWorldTransform(self.canvas.viewportTransform())
        painter.setFont(title_font())
        for nid, title, rect in plates:
            kind = r.doc.nodes[nid].kind
            painter.setPen(QPen(QColor(theme.card_border), 1.2))
            painter.setBrush(QColor(theme.header.get(kind, theme.header.get("op", "#1565c0"))))
            painter.drawRect(rect)
            painter.setPen(QColor(theme.header_text))
            painter.drawText(rect.adjusted(PAD, 0, -PAD / 2, 0),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        painter.end()
