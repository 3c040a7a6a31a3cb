"""What the canvas paints over the cards: the story step and a refused connection's note."""
import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QPicture
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject

from ...render import painter as render_painter
from ...render import preview


def _rect_key(rect):
    return None if rect is None else (rect.x(), rect.y(), rect.width(), rect.height())


def _same_key(old, key):
    """The same step and renderer (the same objects), card and neighbouring cards."""
    return old is not None and old[0] is key[0] and old[1] is key[1] and old[2:] == key[2:]


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
        self._still = QRectF()      # the part of the bounds the recorded pictures lie in
        self._under = self._ring_under = QPainterPath()
        self._arrays = []
        self._ring = QPicture()     # the ring and leader line, under the arrows
        self._bands = {}            # the formula card's number_band -> its picture at that band
        self._recorded = None       # what the pictures were recorded for (_same_key)
        self._due = None            # (key, cards near) laid out but not yet recorded
        self.moving = QRectF()
        self.setZValue(20)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(True)     # over the formula card alone (shape)
        self._card = QRectF()               # the formula card, scene coordinates

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
        self._record_if_due()
        return {label: array for label, array, *_ in self._arrays}

    def set_step(self, step, progress=1.0):
        if step is not self.step:
            self.highlight = {}
        self.step = step
        self.progress = min(1.0, max(0.0, float(progress)))
        self.relayout()

    def _sync_pending(self):
        """Cards draw at the step shown: a source's gradient stays pending until its
        accumulation step (before the first, with the view's `before_story`, every one);
        repaint the cards whose pending state changed."""
        r = self.view.renderer
        if self.step is None:
            r.story_index = -1 if self.view.before_story else None
        else:
            r.story_index = getattr(self.step, "index", None)
        pending = r.pending_words()      # {port: what its box says at this step}
        shown = getattr(self, "_pending", (None, {}))
        if shown[0] is r and shown[1] == pending:
            return
        changed = {p.node for p, _ in pending.items() ^ shown[1].items()} if shown[0] is r \
            else {p.node for p in r.reveal_steps()}
        self._pending = (r, pending)
        for nid in changed:
            item = self.view.node_items.get(nid)
            if item is not None:
                item.numbers.update()   # "pending" is drawn where the numbers are

    def set_highlight(self, cells):
        self.highlight = {k: [int(i) for i in v] for k, v in (cells or {}).items()}
        self.update()

    def relayout(self):
        """Recompute where the step paints (after a new step, renderer or node move)."""
        self._clear_where_painted()
        self.prepareGeometryChange()
        self._sync_pending()
        r = self.view.renderer
        step = self.step
        if step is None or getattr(step, "node", None) not in r.doc.nodes \
                or any(n not in r.positions for n in r.doc.nodes):
            self._bounds, self._under, self._arrays, self._card = QRectF(), QPainterPath(), [], QRectF()
            self._recorded = self._due = None
            self.setVisible(step is not None and getattr(step, "node", None) in r.doc.nodes)
            self.update()
            return
        still = r.ring_rect(step.node).adjusted(-18, -18, 18, 18)   # the ring and its glow: what is recorded
        card = render_painter.formula_rect(r, step)
        self._card = QRectF() if card is None else QRectF(card)
        if card is not None:
            still = still.united(card.adjusted(-4, -4, 4, 4))
            for point in r.leader_path(step):      # round the cards in its way, into its port
                still = still.united(QRectF(point, point).adjusted(-3, -3, 3, 3))
        moving = r.moving_rect(step)   # what changes with progress: the travelling cotangent
        near = [r.rect(nid) for nid in r.doc.nodes if r.rect(nid).intersects(still)]
        # (not the moving part's bounds: a zoom step moves the labels, records nothing again)
        key = (step, r, _rect_key(still), _rect_key(card), [_rect_key(rect) for rect in near])
        self._still = still
        self._bounds = still.united(moving)
        self.moving = moving
        self._due = None if _same_key(self._recorded, key) else (key, near)
        self.setVisible(True)
        self.update()

    def _clear_where_painted(self):
        """Repaint where the step is now, in scene units, before its bounds change.
        prepareGeometryChange alone leaves Qt to repaint the old place later, from where it
        was last painted on the viewport; when the player then scrolls the view to frame the
        new step (same event-loop turn) and the X11 backing store moves the pixels, a paint
        before that bookkeeping runs loses the scroll, and a strip of the old card stayed on
        screen behind the new one (lesson 14's second '1/24' card, issue 20)."""
        scene = self.scene()
        if scene is not None and self.isVisible() and not self._bounds.isEmpty():
            scene.update(self._bounds)

    def _record_if_due(self):
        """Lay out and record what the last relayout placed, once, when it is painted or
        asked for: a step change relayouts up to four times before a paint (the canvas'
        sync, set_step, the player's frame and its timer), and recording a conv step's
        tile pictures each time was most of an edit's cost while such a step was shown."""
        if self._due is None:
            return
        key, near = self._due
        step, r = key[0], key[1]
        under = QPainterPath()
        under.addRect(self._still)
        cards, names = QPainterPath(), QPainterPath()
        for rect in near:
            cards.addRoundedRect(rect, 8, 8)
        for nid in (n for n in r.doc.nodes if r.rect(n) in near):   # the ports' names and badges read too
            for rect, _, _ in r.port_labels(nid):
                (cards if nid != step.node else names).addRect(rect)
            for _, _, rect in r.badges(nid):
                cards.addRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        self._ring_under = under.subtracted(cards)
        self._under = self._ring_under.subtracted(names)
        self._arrays = render_painter.formula_pictures(r, step)
        self._record(r, step)
        self._recorded, self._due = key, None

    def pictures(self, zoom=1.0):
        """What the overlay replays at `zoom` (recorded if due): the ring and leader, and the
        formula card."""
        self._record_if_due()
        return self._ring, self._formula_picture(zoom)

    def is_stale(self, story):
        """Is the step shown one of an older story than `story` (the player replaces it)?"""
        steps = getattr(story, "steps", None) or []
        return self.step is not None and not any(s is self.step for s in steps)

    def _record(self, r, step):
        """What does not move while the cotangent travels, recorded once per step: the ring
        and leader (under the arrows, clipped off the cards); the formula card (over them)
        is recorded once per zoom band (`_formula_picture`)."""
        under = QPicture()
        painter = QPainter(under)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # The ring whole, its card's ports' names written again over it (clipped off them, it
        # was cut by a box at each name: 'output', 'kernel', 'bias' in F5); the leader off them.
        painter.setClipPath(self._ring_under, Qt.ClipOperation.IntersectClip)
        r._paint_highlight(painter, step.node)
        if not self.view.compact:       # (a card drawn compact writes no port's name)
            painter.setClipping(False)
            r._paint_port_labels(painter, step.node)
        painter.setClipPath(self._under, Qt.ClipOperation.ReplaceClip)
        r._paint_leader(painter, step)
        painter.end()
        self._ring, self._bands = under, {}

    def _formula_picture(self, zoom):
        """The formula card as seen at `zoom`: its tiles write their numbers from the zoom
        at which they read (render.tiles), so one picture is recorded per band of zooms that
        draw the same numbers, and kept while the step is shown (zooming back and forth
        records nothing again)."""
        r, step = self.view.renderer, self.step
        band = r.formula_layout(step).number_band(zoom * r.formula_scale(step), r.numbers_px) \
            if render_painter.formula_rect(r, step) else 0
        over = self._bands.get(band)
        if over is None:
            over = self._bands[band] = QPicture()
            painter = QPainter(over)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            r._paint_formula(painter, step, zoom)
            painter.end()
        return over

    def boundingRect(self):
        return self._bounds

    def shape(self):
        """The formula card alone: the cursor reaches the cards under the rest."""
        path = QPainterPath()
        path.addRect(self._card)
        return path

    def hoverMoveEvent(self, event):
        """Over an entry of one of the formula card's pictures the tooltip names it and
        gives its number in full, as over a card's."""
        tip = render_painter.formula_entry_text(self.view.renderer, self.step, event.pos()) or ""
        if tip != self.toolTip():
            self.setToolTip(tip)
        super().hoverMoveEvent(event)

    def paint(self, painter, option, widget=None):
        step, r = self.step, self.view.renderer
        if step is None or self._bounds.isEmpty():
            return
        self._record_if_due()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.drawPicture(0, 0, self._ring)
        r.paint_arrows(painter, step, self.progress)
        painter.drawPicture(0, 0, self._formula_picture(painter.worldTransform().m11()))
        if not self.highlight:
            return
        colour = QColor(self.view.highlight_colour())
        fill = QColor(colour)
        fill.setAlpha(70)
        painter.setPen(QPen(colour, 2.0))
        painter.setBrush(fill)
        for label, array, box, shown in self._arrays:
            for flat in self.highlight.get(label, ()):
                if 0 <= flat < np.size(array):
                    cell = shown.cell_rect(box.left(), box.top(), flat)
                    if cell is not None:
                        painter.drawRoundedRect(cell, 3, 3)


class RefusalNote(QGraphicsObject):
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
