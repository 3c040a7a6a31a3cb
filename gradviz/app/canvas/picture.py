"""A layer of the canvas kept as a picture at device resolution between repaints.

The edge layer strokes every edge in view. A value edit repaints the whole viewport
(every card's numbers change) but moves no edge, and stroking the 100-node grid's edges
again took 3.5-4 ms of each such repaint; copying a picture of them takes 0.3. Only
where the layer changed (an edge routed anew, removed, cut) is the picture painted
again, and all of it when the view zooms or resizes; a scroll moves it by whole pixels
and paints only the strips that come into view (moving it costs a scroll step of the
100-node grid at 1920x1200 0.6-1.8 ms more than Qt's own scroll of the view alone).

Qt's own item cache was tried first: repainted in parts while edges moved, it kept stray
pixels of antialiased lines. Here a stale part is cleared and painted again whole (every
line that crosses it, clipped to it), so it is what a fresh picture would be.
"""
from PySide6.QtCore import QPointF, QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEngine

_RASTER = QPaintEngine.Type.Raster
_CLEAR = QColor(0, 0, 0, 0)
MAX_STALE = 500   # stale parts kept before the picture is simply painted afresh
MERGE_AREA = 1.25   # stale parts are painted as one where their bounding rectangle is no bigger


class LayerPicture:
    """The picture of one scene item over the whole viewport. `draw(painter, scene_rect,
    whole)` paints what of the item lies in `scene_rect` (the painter clips to it);
    `whole`: the whole picture is being painted afresh."""

    def __init__(self, view, draw):
        self.view = view
        self._draw = draw
        self._image = self._spare = None
        self._transform = self._size = None   # what the picture was painted for (logical size)
        self._stale = []          # scene rects to paint again
        self._stale_device = []   # device rects to paint again (strips a scroll brought in)

    def drop(self):
        """Paint everything afresh next time."""
        self._image = self._spare = None
        self._stale, self._stale_device = [], []

    def stale(self, rect):
        """What the item shows changed within `rect` (scene units)."""
        if len(self._stale) >= MAX_STALE:   # edits while nothing paints (a minimised window)
            self.drop()
        if self._image is not None:
            self._stale.append(QRectF(rect))

    def usable(self, painter, widget):
        """Is this the view painting itself, onto a raster device of the widget's whole-number
        pixel ratio? (An export at another scale, an SVG or a PDF draws the item itself.)"""
        if widget is not self.view.viewport():
            return False
        engine = painter.paintEngine()
        ratio = widget.devicePixelRatioF()
        return (engine.type() == _RASTER and ratio == int(ratio)
                and engine.paintDevice().devicePixelRatioF() == ratio
                and painter.worldTransform() == self.view.viewportTransform())

    def paint(self, painter, widget, exposed):
        """Copy the picture where `exposed` (scene units) lies, first painting what is stale."""
        transform = painter.worldTransform()
        size, ratio = widget.size(), widget.devicePixelRatioF()
        image = self._image
        if image is None or image.devicePixelRatio() != ratio or image.size() != size * ratio \
                or not self._follow_scroll(transform):
            self._paint_whole(transform, size, ratio)
        elif self._stale or self._stale_device:
            parts = self._stale_parts(transform)
            if sum(part.width() * part.height() for part in parts) >= size.width() * size.height() / 2:
                self._paint_whole(transform, size, ratio)   # no dearer than the parts
            else:
                self._paint_parts(transform, parts)
        target = transform.mapRect(exposed).toAlignedRect().intersected(QRect(0, 0, size.width(), size.height()))
        if target.isEmpty():
            return
        painter.save()
        painter.resetTransform()
        painter.drawImage(QRectF(target), self._image, QRectF(target.x() * ratio, target.y() * ratio,
                                                              target.width() * ratio, target.height() * ratio))
        painter.restore()

    def _new_image(self, size, ratio):
        image = QImage(size * ratio, QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(ratio)
        image.fill(_CLEAR)
        return image

    def _paint_whole(self, transform, size, ratio):
        self._image = self._new_image(size, ratio)
        self._transform, self._size = transform, size
        self._stale, self._stale_device = [], []
        painter = QPainter(self._image)
        painter.setWorldTransform(transform)
        self._draw(painter, transform.inverted()[0].mapRect(QRectF(0, 0, size.width(), size.height())), True)
        painter.end()

    def _follow_scroll(self, transform):
        """False unless `transform` is the picture's moved by whole pixels (a scroll): then
        the picture moves with it and the strips that came into view go stale."""
        old = self._transform
        if (transform.m11(), transform.m12(), transform.m21(), transform.m22()) != \
                (old.m11(), old.m12(), old.m21(), old.m22()):
            return False
        dx, dy = transform.dx() - old.dx(), transform.dy() - old.dy()
        width, height = self._size.width(), self._size.height()
        if dx != int(dx) or dy != int(dy) or abs(dx) >= width or abs(dy) >= height:
            return False
        if dx or dy:
            # into the spare image (kept: a new 5 MB image a scroll step cost 2 ms of page
            # faults); what the copy leaves there is cleared with the strips
            moved = self._spare
            if moved is None or moved.size() != self._image.size() \
                    or moved.devicePixelRatio() != self._image.devicePixelRatio():
                moved = self._new_image(self._size, self._image.devicePixelRatio())
            painter = QPainter(moved)
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
            painter.drawImage(QPointF(dx, dy), self._image)
            painter.end()
            self._spare, self._image, self._transform = self._image, moved, transform
            kept = QRect(int(dx), int(dy), width, height).intersected(QRect(0, 0, width, height))
            for part in (QRect(0, 0, width, kept.top()), QRect(0, kept.bottom() + 1, width, height),
                         QRect(0, 0, kept.left(), height), QRect(kept.right() + 1, 0, width, height)):
                if not part.isEmpty():
                    self._stale_device.append(part)
        return True

    def _stale_parts(self, transform):
        """The stale parts in whole device pixels, within the view. (An edge's bounds hold
        its antialiased line: they reach 14 units beyond its route.)"""
        bounds = QRect(0, 0, self._size.width(), self._size.height())
        parts = [transform.mapRect(rect).toAlignedRect() for rect in self._stale] + self._stale_device
        self._stale, self._stale_device = [], []
        return [part for part in (p.intersected(bounds) for p in parts) if not part.isEmpty()]

    def _paint_parts(self, transform, parts):
        """Clear the stale parts and paint them again, each with a rectangular clip: Qt
        strokes an antialiased line under a clip of many rectangles several times slower
        (the FHD grid's attribute edit: 37 edges in 5.7 ms). Parts that overlap much are
        painted as one, so that an edge crossing them is stroked once."""
        inverse = transform.inverted()[0]
        painter = QPainter(self._image)
        for part in _merged(parts):
            painter.resetTransform()
            painter.setClipping(False)
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
            painter.fillRect(part, _CLEAR)
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
            painter.setClipRect(part)
            painter.setWorldTransform(transform)
            self._draw(painter, inverse.mapRect(QRectF(part)), False)
        painter.end()


def _merged(parts):
    """`parts` (QRects), those that overlap much merged into their bounding rectangle: two
    are merged when it is at most MERGE_AREA times their areas together."""
    parts = list(parts)
    merged = True
    while merged and len(parts) > 1:
        merged = False
        for i in range(len(parts)):
            for j in range(i + 1, len(parts)):
                a, b = parts[i], parts[j]
                both = a.united(b)
                if both.width() * both.height() <= MERGE_AREA * (a.width() * a.height() + b.width() * b.height()):
                    parts[i] = both
                    del parts[j]
                    merged = True
                    break
            if merged:
                break
    return parts
