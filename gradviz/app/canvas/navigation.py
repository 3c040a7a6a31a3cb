"""Moving around the canvas: zoom, fit, the background grid, and what an undo puts back."""
import math
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QPixmapCache
from PySide6.QtWidgets import QGraphicsView

from ...render import compact as compact_card
from ...render import legible
from ...render.cards import BADGE_H
from ...render.involved import step_groups
from .cover import boxes_meet

GRID = 20.0
MIN_SCALE, MAX_SCALE = 0.1, 4.0
MAX_FIT_SCALE = 1.25  # Fit to Window enlarges a small graph no further
FIT_MARGIN = 24.0     # screen pixels kept free around the graph
COMPACT_ROUNDS = 4    # Fit lays compact cards out again at most this often, each time larger ...
COMPACT_SETTLED = 0.01   # ... until the zoom grows less than this share
NARROWER_ROUNDS = 3   # Fit lays the cards out for a narrower room at most this often before going compact
SPARE = 1500.0        # scroll room around the graph (scene units)
CACHE_ROOM = 2.0      # Qt's pixmap cache holds this many times the pictures of the cards in view


def _union(rects):
    total = QRectF()
    for rect in rects:
        total = total.united(rect)
    return total


def _fit_zoom(rect, width, height):
    return min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))


@dataclass(frozen=True)
class CanvasShown:
    """What the canvas shows, for undo and redo to put back (DocumentController.keep_view):
    where every card stands (the document places none of a sample's: the canvas laid them
    out, for this window and the story's steps), how they are drawn and laid out (compact,
    as tall as compact at a zoom), the zoom and the scroll."""
    positions: dict
    compact_layout: bool
    shortened_at: tuple
    followed: tuple          # (the zoom `_follow_zoom` last followed, compact at it)
    label_bounds: QRectF
    transform: object
    scene_rect: QRectF
    scroll: tuple


class CanvasNavigation:
    """CanvasView's zoom, fit and grid (a mixin: `self` is the QGraphicsView)."""

    # -- what undo and redo put back (DocumentController.keep_view) --------------------------
    def view(self):
        """Where the cards stand (before a drag, where it started) and the view."""
        positions = dict(self.positions)
        positions.update(self.moved_from or {})
        label_bounds = self.label_bounds
        return CanvasShown(positions, self.compact_layout, self.shortened_at,
                           (self._followed_zoom, self.compact),
                           None if label_bounds is None else QRectF(label_bounds), self.transform(),
                           QRectF(self.scene().sceneRect()),
                           (self.horizontalScrollBar().value(), self.verticalScrollBar().value()))

    def restore_view(self, shown):
        """Before the restored document is synced: its cards go where they stood with it,
        drawn as they were; none is laid out afresh."""
        self._cancel_wire()
        self.positions = dict(shown.positions)
        self._placed = False      # (sync: the document gave no placing back to lay out anew)
        self.compact_layout = shown.compact_layout
        self.shortened_at, self._compact_kept = shown.shortened_at, {}
        self._followed_zoom, self.compact = shown.followed
        self.label_bounds = shown.label_bounds

    def view_restored(self, shown):
        """Once the restored document is synced and shown: the zoom and the scroll (in the
        scroll room they had)."""
        for item in self.node_items.values():
            item.fit_bounds()         # (a compact card's name plate, at that zoom)
        self.scene().setSceneRect(shown.scene_rect)
        self.setTransform(shown.transform)
        self.horizontalScrollBar().setValue(shown.scroll[0])
        self.verticalScrollBar().setValue(shown.scroll[1])
        self._cache_view = None

    # -- what a recovered document opens at (window.recovery) --------------------------------
    def seen_at(self):
        """What the canvas shows, as the autosave keeps it: {'zoom', 'centre'} (the scene
        point at the viewport's centre)."""
        centre = self.mapToScene(self.viewport().rect().center())
        return {"zoom": self.transform().m11(), "centre": [centre.x(), centre.y()]}

    _open_at = None     # (zoom, centre, the document shown) open_at gave: not fitted
    documents = 0       # documents shown so far (CanvasView._document_replaced counts them)

    def open_at(self, seen):
        """The document now shown (a recovered one) opens at `seen` (seen_at's, read back
        from a file: anything else is ignored, and it is fitted as any document is), also
        when the window is shown first, which fits it otherwise."""
        try:
            zoom, (x, y) = float(seen["zoom"]), seen["centre"]
            x, y = float(x), float(y)
        except (KeyError, TypeError, ValueError):
            return
        if all(math.isfinite(v) for v in (zoom, x, y)) and zoom > 0:
            self._open_at = (zoom, QPointF(x, y), self.documents)

    def first_view(self):
        """A new document shown, or the window shown first: fitted, or where open_at said
        for this document (not fitted first: fitting would lay its cards out again, and
        say they are compact)."""
        if self._open_at is None or self._open_at[2] != self.documents:
            self._open_at = None
            self.fit()
            return
        zoom, centre, _ = self._open_at
        self._set_scale(zoom)
        self._update_scene_rect()
        self.centerOn(centre)

    def _update_scene_rect(self):
        """Room to scroll: the view, every card and every edge, and SPARE units around them.

        Found from the cards' places and sizes and the edges' bounds, not by the scene's
        itemsBoundingRect, which calls the Python boundingRect of every item (about 700 in
        a 100-node document: 1.3 ms, on every structural edit and zoom step). What stands
        out of a card (its ports, badges and problem lines, the player's formula card) is
        well within the spare room. The room is kept while it holds all that with at most
        SPARE more to a side: a new scroll range repaints the whole view."""
        view = self.visible_rect()
        left, top, right, bottom = view.left(), view.top(), view.right(), view.bottom()
        cards = self.renderer.cards
        for nid, (x, y) in self.positions.items():
            card = cards.get(nid)
            if card is not None:
                left, top = min(left, x), min(top, y)
                right, bottom = max(right, x + card.width), max(bottom, y + card.height)
        for item in self.edge_items.values():
            edge_left, edge_top, edge_right, edge_bottom = item.box
            left, top = min(left, edge_left), min(top, edge_top)
            right, bottom = max(right, edge_right), max(bottom, edge_bottom)
        wanted = QRectF(left - SPARE, top - SPARE, right - left + 2 * SPARE, bottom - top + 2 * SPARE)
        room = self.scene().sceneRect()
        if not (room.contains(wanted) and wanted.adjusted(-SPARE, -SPARE, SPARE, SPARE).contains(room)):
            self.scene().setSceneRect(wanted)
        self._cache_view = None   # cards came, went or moved: the next paint sizes the cache again

    def _hold_cards_in_cache(self):
        """Let Qt's pixmap cache hold CACHE_ROOM times the cached pictures of the cards in
        view (each card has two: its frame and its numbers). Qt's 10 MB default holds less
        than a big window shows of many cards (2560x1440, 100 crowded cards: 18 MB):
        painting 100 cards' new numbers evicted frames still in view, and each value edit
        drew all 100 frames again. Called before each paint; it counts again only when the
        view moved, zoomed or resized, or cards changed. Never lowered: every view in the
        app shares the cache."""
        dpr = self.viewport().devicePixelRatioF()
        scale = self.transform().m11() * dpr
        view = self.visible_rect()
        key = (scale, view.left(), view.top(), view.width(), view.height())
        if key == self._cache_view:
            return
        self._cache_view = key
        shown = view.getCoords()
        area = 0.0
        for nid, item in self.node_items.items():
            x, y = self.positions.get(nid, (0.0, 0.0))
            frame, numbers = item.boundingRect(), item.numbers.boundingRect()
            left, top, right, bottom = frame.getCoords()
            if boxes_meet((x + left, y + top, x + right, y + bottom), shown):
                area += frame.width() * frame.height() + numbers.width() * numbers.height()
        need_kb = math.ceil(CACHE_ROOM * area * scale * scale * 4 / 1024)   # 4 bytes a pixel
        if need_kb > QPixmapCache.cacheLimit():
            QPixmapCache.setCacheLimit(need_kb)

    def view_centre(self):
        return self.mapToScene(self.viewport().rect().center())

    def visible_rect(self):
        """The part of the scene the viewport shows."""
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def layout_room(self, readable_px=None):
        """(width, height) of the scene the viewport shows at the least readable zoom (its
        numbers `readable_px` tall, default the canvas's), less the fit's margins and the top
        row's badges: what a layout folds a long chain into."""
        port = self.viewport().rect()
        zoom = legible.readable_zoom(self.logicalDpiY(), readable_px or self.readable_px)
        return ((port.width() - 2 * FIT_MARGIN) / zoom,
                (port.height() - 2 * FIT_MARGIN) / zoom - BADGE_H - 4)

    def fit(self):
        """Every card in view, at most 125 %. A document the canvas laid out (no node placed
        by the user) is laid out again for this view first: a long chain folds into rows
        where that lets its numbers read. Where the fitting zoom still draws the numbers
        smaller than legible, the cards are drawn compact (`compact`), each as tall as its
        compact form (`shorten_compact`), and laid out again at those sizes, unless the
        player's layout for the story told, drawn compact where it stands, shows the graph
        as large (then the cards stay where the player frames its steps: three lessons at
        1280 x 800 rearranged at step 2, fitted no smaller so); only a graph too big even
        at MIN_SCALE shows its inputs' end, the rest a scroll away."""
        if not self.node_items:
            self.reset_zoom()
            return
        readable = legible.readable_zoom(self.logicalDpiY(), self.readable_px)
        zoom, rect, cards = self._fold_to_read(readable)
        if MIN_SCALE < zoom < readable:
            folded = zoom
            zoom, rect, cards = self._compact_overview(zoom, readable)
            steps = self._story_groups()
            if steps is not None:
                self.relayout_unplaced(overview=False, steps=steps, keep=False)
                self.shorten_compact(min(self._fitting()[0], readable * (1 - 1e-9)))
                player = self._fitting()
                if player[0] >= zoom * (1 - 1e-9) and self._plates_apart(max(MIN_SCALE, min(player[0], readable))):
                    zoom, rect, cards = min(player[0], readable * (1 - 1e-9)), player[1], player[2]
                else:
                    self.relayout_unplaced()
                    zoom, rect, cards = self._compact_overview(folded, readable)
        self._update_scene_rect()
        self._set_scale(min(MAX_FIT_SCALE, zoom))
        if zoom < readable:
            self.offer_layout()
        if zoom >= MIN_SCALE:
            self.centerOn(rect.center())
            self.fitted.emit()
            return
        # Too big even at MIN_SCALE: show the inputs' end, scroll for the rest.
        view = self.visible_rect()
        x = min(rect.center().x(), rect.left() + view.width() / 2)
        # Level with the cards at that end (a layered layout may put them far down).
        near = [box.center().y() for _, _, box in cards if box.left() < rect.left() + view.width()]
        y = sorted(near)[len(near) // 2] if near else rect.center().y()
        y = min(max(y, rect.top() + view.height() / 2), rect.bottom() - view.height() / 2) \
            if rect.height() > view.height() else rect.center().y()
        self.centerOn(x, y)
        self.fitted.emit()

    def _compact_overview(self, zoom, readable):
        """`_fitting` of Fit's layout drawn compact: the cards as tall as their compact form
        at the zoom that fits them, laid out again at those sizes, a few rounds.

        Never drawn smaller than laid out for: a compact card's plate has a size in pixels,
        so the layout leaves it less room the larger its zoom (a 3-layer MLP on a 700 x 500
        canvas, laid out for 0.267 and drawn at 0.201, had its weights' plates over the
        cards above). Where the layout fits only smaller, it is laid out again for a zoom
        under that one (the plates then need more room, so that zoom is undershot by the
        share it fell short), and drawn at the zoom the last layout was made for."""
        rect = cards = None
        want = zoom
        for _ in range(COMPACT_ROUNDS):   # compact cards are shorter: the graph fits larger
            laid = want
            self.shorten_compact(laid)
            self.relayout_unplaced(compact=True)
            zoom, rect, cards = self._fitting()
            zoom = min(zoom, readable * (1 - 1e-9))    # drawn compact, as measured
            if laid <= zoom < laid * (1 + COMPACT_SETTLED) or zoom < laid <= MIN_SCALE:
                break                                  # settled; or too big even there: fit scrolls
            want = zoom if zoom > laid else max(MIN_SCALE, zoom * zoom / laid)
        if zoom < laid:      # the last layout still fits only smaller: drawn as laid out
            zoom = laid if laid > MIN_SCALE else zoom
        return zoom, rect, cards

    def _plates_apart(self, zoom):
        """Do the cards where they stand, drawn compact at `zoom`, keep clear of each other
        with the plates that stand out of small ones? The player's layout is for cards in
        full: drawn compact far out, an 8-layer MLP's plates covered their neighbours."""
        r, dpi, scale = self.renderer, self.logicalDpiY(), self.compact_scale()
        boxes = []
        for nid in self.node_items:
            side, down = compact_card.overhang(r.cards[nid], r.doc.nodes[nid], zoom, dpi, scale,
                                               self.compact_texts(nid))
            left, top, right, bottom = r.rect(nid).getCoords()
            boxes.append((left - side, top, right + side, bottom + down))
        boxes.sort(key=lambda box: box[1])
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if b[1] >= a[3]:
                    break
                if boxes_meet(a, b):
                    return False
        return True

    def _fold_to_read(self, readable):
        """`_fitting` of the layout for this view (`relayout_unplaced`) drawn in full at the
        `readable` zoom where one fits. The layout folds for the room the cards take; what
        stands out of them (the story's arrow labels, an edge that wraps, the badges) can
        leave the fit just under the readable zoom: BatchNorm's one row fitted 1920 x 1080
        at 0.754 (legible from 0.794) and went compact, thumbnails in one row, where 1280 x
        800 folded it into rows that read. So it is laid out again for a room narrower by
        what stood out, a few times; none that reads: the layout for the view's room.
        A story told (a lesson opened in the window): the player's layout for its steps
        where it reads whole and Fit's serves the story worse or does not read
        (`relayout_unplaced` with the steps keeps Fit's where it serves as well)."""
        self.relayout_unplaced()
        fitting = self._fitting()
        narrower = 1.0
        for _ in range(NARROWER_ROUNDS):
            if fitting[0] >= readable or fitting[0] <= MIN_SCALE:
                break
            narrower = min(narrower * fitting[0] / readable, self._narrower_to_read(fitting, readable))
            self.relayout_unplaced(narrower=narrower)
            fitting = self._fitting()
        steps = self._story_groups()
        if steps is not None:
            self.relayout_unplaced(overview=False, steps=steps, keep=fitting[0] >= readable)
            player = self._fitting()
            if player[0] >= readable:
                return player
        if fitting[0] < readable:
            self.relayout_unplaced()
            fitting = self._fitting()
        elif steps is not None:             # Fit's, which reads
            self.relayout_unplaced(narrower=narrower)
            fitting = self._fitting()
        return fitting

    def _narrower_to_read(self, fitting, readable):
        """The share of the layout room (`layout_room`) the cards of `fitting` (`_fitting`)
        must take across so that they and what stands out of them beside (the seed's label)
        fit the view's width at the `readable` zoom; 1 where the width is not what is short."""
        _, rect, cards = fitting
        port = self.viewport().rect()
        excess = rect.width() - (port.width() - 2 * FIT_MARGIN) / readable
        if excess <= 0:
            return 1.0
        across = _union([box for _, _, box in cards]).width()
        return max(0.0, across - excess) / self.layout_room()[0]

    def _story_groups(self):
        """render.involved.step_groups of the story told, as the player lays the cards out
        for it in the window (not for presentation mode's larger type); None without one."""
        story = self.renderer.told_story()
        steps = getattr(story, "steps", None)
        if not steps or self.readable_px > legible.READABLE_PX \
                or any(getattr(s, "node", None) not in self.renderer.doc.nodes for s in steps if getattr(s, "node", None)):
            return None
        return step_groups(self.renderer, steps)

    def _fitting(self):
        """(zoom, scene rect, [(card, node, box)]) that fits every card and edge in the
        viewport, and the story step's arrows and their labels (the seed's ran off the
        right edge); drawn compact, with the plates that stand out of small cards."""
        r = self.renderer
        cards = [(r.cards[nid], r.doc.nodes[nid], r.rect(nid).adjusted(0, -BADGE_H - 4, 0, 0))
                 for nid in self.node_items]
        edges = [item.route_rect() for item in self.edge_items.values()]
        port = self.viewport().rect()
        width, height = port.width() - 2 * FIT_MARGIN, port.height() - 2 * FIT_MARGIN
        edges += self.step_marks(_fit_zoom(_union([box for _, _, box in cards] + edges), width, height))
        rect = _union([box for _, _, box in cards] + edges)
        zoom = _fit_zoom(rect, width, height)
        readable = legible.readable_zoom(self.logicalDpiY(), self.readable_px)
        for _ in range(3):   # compact: a card's name may stand out of it, and needs room too
            if zoom >= readable or zoom <= MIN_SCALE:
                break
            rect = _union([box.adjusted(-side, 0, side, down) for card, node, box in cards
                           for side, down in [compact_card.overhang(card, node, zoom, self.logicalDpiY(),
                                                                     self.compact_scale(),
                                                                     self.compact_texts(node.id))]] + edges)
            zoom = min(zoom, _fit_zoom(rect, width, height))
        return zoom, rect, cards

    def shorten_compact(self, zoom):
        """Draw each card as tall as its compact form at `zoom` (render.compact.needed_height,
        at the story's step shown: a gradient still pending takes no room); None: as
        measured. Their ports, edges and the step shown follow."""
        key = None if zoom is None else (zoom, self.renderer.pending_ports(), self.compact_scale())
        if key == self.shortened_at:
            return
        self.shortened_at, self._compact_kept = key, {}
        self.sync(full=False, new_document=False)

    def compact_height(self, card, node):
        """How tall `card` (as measured) of `node` is drawn (make_renderer's `heights`): as
        `shorten_compact` says, worked out again only for a card measured anew (a value
        that grew); None while the cards are as measured."""
        if self.shortened_at is None:
            return None
        problems = self.compact_texts(node.id)
        kept = self._compact_kept.get(node.id)
        if kept is not None and kept[0] is card and kept[1] == problems:
            return kept[2]
        zoom, pending, scale = self.shortened_at
        height = compact_card.needed_height(card, node, zoom, self.logicalDpiY(), scale, pending, problems)
        self._compact_kept[node.id] = (card, problems, height)
        return height

    def compact_texts(self, nid):
        """What node `nid`'s card drawn compact says on it of its problems (a shape mismatch,
        a NaN): render.compact.problem_texts."""
        return compact_card.problem_texts((self.controller.result.node_problems or {}).get(nid, ()))

    def _follow_zoom(self):
        """Before each paint: once the zoom has changed, decide whether the cards are drawn
        compact (their numbers would be under legible.READABLE_PX) and let each card's
        bounds follow (a compact card's name may stand out of it)."""
        zoom = self.transform().m11()
        if zoom == self._followed_zoom:
            return
        self._followed_zoom = zoom
        was, self.compact = self.compact, zoom < legible.readable_zoom(self.logicalDpiY(), self.readable_px)
        if not self.compact and (self.shortened_at is not None or self.compact_layout):
            self.shorten_compact(None)    # drawn in full: as tall as measured, laid out so
            if self.compact_layout:
                self.relayout_unplaced()
        elif self.compact and self.shortened_at is None:
            self.shorten_compact(zoom)    # zoomed out: they shorten in place
        if self.compact or was:
            for item in self.node_items.values():
                item.fit_bounds()
            self._update_scene_rect()
        self.follow_label_scale()

    def label_scale(self):
        """The story's arrow labels' scale (render's `label_scale`) at this zoom (or as
        `labels_at` sizes them a moment): to scale with the cards, as an export draws
        them, and never smaller on screen than at 1:1 times a compact card's type over the
        least legible (Fit far out drew them 5 px tall; presentation mode reads from the
        back row). Held at that screen size as the zoom grew, they were a third of the
        size of the cards beside them in presentation mode. `labels_at`: (zoom, readable_px)
        of a view being weighed (the player's framing)."""
        zoom, readable_px = self.labels_at or (self.transform().m11(), self.readable_px)
        return max(1.0, self.compact_scale(readable_px) / zoom)

    def step_marks(self, zoom):
        """[scene rect] of what the story step shown draws over the graph but its formula
        card (its arrows, the seed's, their labels), their labels sized for `zoom`."""
        r, overlay = self.renderer, self.step_overlay
        step = None if overlay is None or overlay.is_stale(r.story) else overlay.step
        if step is None or getattr(step, "node", None) not in r.doc.nodes:
            return []
        self.labels_at = (zoom, self.readable_px)
        try:
            return [r.moving_rect(step)] + [rect for _, rect in r.label_rects(step)]
        finally:
            self.labels_at = None

    def follow_label_scale(self):
        """A step shown places its labels again at the size this zoom gives them (the
        renderer reads `label_scale` whenever it places them)."""
        scale = self.label_scale()
        if scale == self._labels_followed:
            return
        self._labels_followed = scale
        overlay = self.step_overlay
        if overlay is not None and overlay.step is not None and not overlay.is_stale(self.renderer.story):
            overlay.relayout()

    def zoom_level(self):
        return self.transform().m11()

    def set_readable_px(self, px):
        """The least size (pixels) at which the cards' numbers read: below that zoom the
        cards are drawn compact, their type this large (presentation mode: the back row)."""
        if px != self.readable_px:
            self.readable_px = px
            self._followed_zoom = None
            if self.shortened_at is not None or self.compact_layout:   # for the other type's size
                self.relayout_unplaced()
            self.viewport().update()

    def set_numbers_px(self, px):
        """The least size (pixels) at which a tile picture writes its cells' numbers, on the
        cards and the rule card (presentation mode: a slide's rule card's); smaller, its
        colours alone (render.tiles)."""
        if px != self.numbers_px:
            self.numbers_px = self.renderer.numbers_px = px
            self.sync(full=True, new_document=False)     # the cards drawn again
            self.resetCachedContent()

    def compact_scale(self, readable_px=None):
        """How much larger than the least legible type a compact card's type is (with the
        cards' numbers read at `readable_px`, default the canvas's)."""
        return max(1.0, (self.readable_px if readable_px is None else readable_px) / legible.READABLE_PX)

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
        self.resetCachedContent()   # (repaints the viewport too)

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

