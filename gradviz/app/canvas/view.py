"""The node canvas: cards painted by render/ (as in the exported pictures), ports to connect.

Every card is painted by `render.Renderer`'s own card painter, so the canvas and an
exported PNG show the same thing. The view only adds what editing needs: selection
and error outlines, ports that can be dragged, the rubber wire, the grid, zoom and pan.
Edits go through the DocumentController (one undo step each); the scene follows the
controller's signals, updating only the cards whose content changed.

The view is here; its parts: renderer (measuring cards), items (node and port), edges
(each edge, and the layer that paints every edge's line in one call), overlay (the story
step), syncing (the scene kept in step with the document), editing (add, copy, paste,
delete), moving (drags, one undo step each), wiring (connecting ports), navigation (zoom,
fit, grid) and quick_add (the Tab popup).
"""
from __future__ import annotations

import json

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QPainter
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QMenu

from ...graph.document import Document
from ...render import legible
from ...render.painter import Renderer
from .edges import EdgeItem, EdgeLayer
from .editing import NODES_MIME, CanvasEditing
from .items import NodeItem, PortItem
from .moving import CanvasMoving
from .navigation import CanvasNavigation
from .overlay import StepOverlay
from .palette import PALETTE_MIME
from .syncing import CanvasSync
from .wiring import CanvasWiring

__all__ = ["CanvasView", "EdgeItem", "NodeItem", "PortItem", "StepOverlay", "PALETTE_MIME",
           "NODES_MIME"]

AFTER_PAINT_WAIT_MS = 100  # how long `after_repaint` waits for a paint that may not come
STORY_KEYS = {Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End}


class CanvasView(CanvasEditing, CanvasMoving, CanvasNavigation, CanvasSync, CanvasWiring,
                 QGraphicsView):
    """The editor's canvas over a DocumentController."""

    nodeActivated = Signal(str)        # a card was double-clicked
    spaceTapped = Signal()             # Space pressed and released without panning
    fitted = Signal()                  # Fit to Window has zoomed and scrolled (the player docks its card)

    def __init__(self, controller, parent=None, theme="light"):
        super().__init__(parent)
        self.controller = controller
        self.theme_name = theme
        self.grid_visible = True
        self.positions = {}                # node id -> (x, y): what the scene shows
        self._placed = False               # did the document place a node at the last sync
        self.node_items = {}
        self.edge_items = {}
        self._synced_edges = None   # doc.edges as the last sync saw them
        self._synced_labels = None  # the nodes' labels as the last sync saw them
        self._synced_cuts = None    # the renderer's cuts() as the last sync saw them
        self._cache_view = None     # the view the pixmap cache was last sized for
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
        self._drag_start = None   # card positions at a press on a card (note_drag_start)
        self.moved_from = None    # ... while the drag that moved them becomes an edit
        self._note = None
        self._quick = None                 # the Tab popup, made the first time it opens
        self._banding = False              # a rubber band is being dragged
        self._band_changed = False
        self._paste_count = 0
        self._copied = ("", {})           # selection_text: (the text, {its node id: the card's})
        self._move_start = {}
        self._space_panned = False
        self.step_overlay = None
        self.before_story = False          # no step shown: cards as before the story (set_before_story)
        self.sizes_held = False            # hold_sizes: cards keep their size (a training run)
        self.compact = False               # cards drawn compact: too far out to read numbers
        self.shortened_at = None           # (zoom, pending, type scale) the cards are as tall as compact at
        self._compact_kept = {}            # node id -> (card, its compact height): shorten_compact's
        self.compact_layout = False        # the canvas laid the cards out as tall as drawn compact
        self.readable_px = legible.READABLE_PX   # ... numbers smaller than this (set_readable_px)
        self.numbers_px = legible.READABLE_PX    # a tile picture's numbers: this tall or none (presentation)
        self._followed_zoom = None
        self._labels_followed = None       # the label scale the step shown was placed at
        self.labels_at = None              # (zoom, readable_px) the labels are sized for a moment (step_marks, framing)
        self.label_bounds = None           # the view the player framed the step in (scene): its labels stay in it
        self._after_paint = []             # callbacks waiting for the next paint
        self._running_after_paint = False
        self._after_paint_timer = QTimer(self)
        self._after_paint_timer.setSingleShot(True)
        self._after_paint_timer.timeout.connect(self._run_after_paint)

        self.setScene(QGraphicsScene(self))
        self.edge_layer = EdgeLayer(self)
        self.scene().addItem(self.edge_layer)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        # The grid is painted once per zoom and scroll, not under every repainted card
        # (a value edit of 76 cards in view: 2.5 ms of each repaint).
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.story_keys = lambda: False   # the window's: True while → ← Home End step a story
        self.setMouseTracking(True)
        self.scene().selectionChanged.connect(self._scene_selection_changed)

        controller.documentReplaced.connect(self._document_replaced)
        controller.changed.connect(self._changed)
        controller.evaluated.connect(self._evaluated)
        controller.selectionChanged.connect(self._controller_selection)
        self.sync(full=True)
        controller.keep_view(self)   # undo and redo put back the cards' places and the view

    # -- theme --------------------------------------------------------------------------
    def set_theme(self, name):
        self.theme_name = name
        self.sync(full=True, new_document=False)  # new colours; nothing moves
        self.resetCachedContent()   # (repaints the viewport too)

    def highlight_colour(self):
        return "#f4a100" if self.theme_name == "light" else "#ffc44d"

    def hold_sizes(self, held):
        """While a training run updates the numbers many times a second, a card whose new
        numbers need less room keeps its size, so no edge takes a new route at each update;
        when the run ends the cards fit their numbers again."""
        if held != self.sizes_held:
            self.sizes_held = held
            if not held:
                self.sync()

    # -- the others' share of an edit waits for the canvas -----------------------------------
    def after_repaint(self, callback):
        """Call `callback` once the canvas has painted (or after AFTER_PAINT_WAIT_MS when
        no paint comes): panels that follow an edit (the player's step list) do their part
        after the user sees the edit's new numbers, not before."""
        if callback not in self._after_paint:
            self._after_paint.append(callback)
        if self._running_after_paint:   # asked by one of them: the paint has happened
            return
        if not self.isVisible():
            self._after_paint_timer.start(0)
        elif not self._after_paint_timer.isActive():
            # The wait starts when the event loop is free again, not during the edit.
            QTimer.singleShot(0, self, self._wait_for_paint)

    def _wait_for_paint(self):
        if self._after_paint and not self._after_paint_timer.isActive():  # not painted yet
            self._after_paint_timer.start(AFTER_PAINT_WAIT_MS)

    @property
    def waiting_for_paint(self):
        """True while callbacks given to `after_repaint` have not run yet."""
        return bool(self._after_paint)

    def paintEvent(self, event):
        self._follow_zoom()
        self._hold_cards_in_cache()
        super().paintEvent(event)
        if self._after_paint:
            self._after_paint_timer.start(0)

    def _run_after_paint(self):
        self._after_paint_timer.stop()
        self._running_after_paint = True
        try:
            while self._after_paint:
                callback = self._after_paint.pop(0)
                try:
                    callback()
                except Exception:
                    if self._after_paint:   # the others still run, on the next turn
                        self._after_paint_timer.start(0)
                    raise
        finally:
            self._running_after_paint = False

    def scene_item(self, node_id):
        return self.node_items.get(node_id)

    # -- the story step (the player) ------------------------------------------------------
    def set_step(self, step, progress=1.0):
        """Show story `step` at animation `progress` (0..1) over the cards; None hides it."""
        if step is None and self.step_overlay is None and not self.before_story:
            return
        if self.step_overlay is None:
            self.step_overlay = StepOverlay(self)
            self.scene().addItem(self.step_overlay)
        if step is None:
            self.step_overlay.set_step(None)
        elif step is self.step_overlay.step:
            progress = min(1.0, max(0.0, float(progress)))
            if progress != self.step_overlay.progress:
                self.step_overlay.progress = progress
                self.step_overlay.update(self.step_overlay.moving)  # only the arrow moves
        else:
            self.step_overlay.set_step(step, progress)  # the player frames the step (step_view)

    def set_before_story(self, before):
        """With no step shown, draw the cards as before the story's first step (`before`:
        presentation mode's title slide): every source's gradient pending, as an exported
        animation's intro draws it, not the answers the steps go on to reveal one by one;
        else (the window, editing) as the story ends."""
        self.before_story = before
        if self.step_overlay is None or self.step_overlay.step is None:
            self.set_step(None)

    def set_highlight(self, cells):
        """Ring entries of the step's formula card: {card label: [flat indices]}."""
        if self.step_overlay is not None:
            self.step_overlay.set_highlight(cells)

    # -- selection ----------------------------------------------------------------------
    def _scene_selection_changed(self):
        if self._selecting:
            return
        if self._banding:  # the inspector follows once the rubber band is let go
            self._band_changed = True
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

    # -- input --------------------------------------------------------------------------
    def wheelEvent(self, event):
        """Ctrl + wheel zooms at the pointer; the wheel alone scrolls (Shift: sideways)."""
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            delta = event.angleDelta().y() or event.angleDelta().x()
            if delta:
                self.zoom_by(1.0015 ** delta)
            event.accept()
            return
        super().wheelEvent(event)

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
        plain = not mods & ~Qt.KeyboardModifier.KeypadModifier
        if key in STORY_KEYS and plain and self.story_keys():
            event.accept()   # the story's key at its first or last step: it scrolls no framing away
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event):
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            if not self._space:   # its press went elsewhere (a dialog, presentation): no tap
                event.accept()
                return
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
            self._banding = item is None
            self._band_changed = False
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
        if self._banding:
            self._banding = False
            if self._band_changed:
                self._scene_selection_changed()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._update_scene_rect()

    def showEvent(self, event):
        super().showEvent(event)
        if not getattr(self, "_shown_once", False):
            self._shown_once = True
            QTimer.singleShot(0, self, self.first_view)

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
            self.setFocus(Qt.FocusReason.OtherFocusReason)  # Delete, Ctrl+D… act on the new node
            return
        super().dropEvent(event)

    # -- context menu -------------------------------------------------------------------

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
