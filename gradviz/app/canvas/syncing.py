"""The scene kept in step with the document: cards and edges made, moved, repainted or removed."""
from PySide6.QtCore import QPointF, QTimer
from PySide6.QtWidgets import QGraphicsItem

from ...story.model import number_spec
from .edges import EdgeItem
from .items import CARD, NUMBERS, OUTLINE, NodeItem, badge_roles
from .renderer import make_renderer

MANY_CARDS = 8             # cards in view repainting at once: the whole viewport repaints


class CanvasSync:
    """CanvasView's part that follows the controller's signals (a mixin)."""

    def _document_replaced(self):
        # A new file (the undo history was cleared) is rebuilt; undo/redo updates in place.
        if self.controller.undo_stack.count() == 0:
            self._needs_full = True
        self._dirty = True
        self.documents += 1

    def _changed(self):
        self._dirty = True
        QTimer.singleShot(0, self, self._sync_if_dirty)

    def _sync_if_dirty(self):
        if self._dirty:
            self.sync()

    def _evaluated(self, result):
        self.sync()

    def story_told(self, story):
        """The player has told the result's story: where it writes the tensors in another
        format than the cards took from the evaluation (a rule card's 0.500 among whole
        values, lesson 001_clip_gradient), the cards are measured again in the story's,
        so a tensor reads the same on its node's card and its rule cards."""
        if story is not None and number_spec(story) != self.renderer.numbers_spec():
            self.renderer.stale_format = True
            self.sync(full=False, new_document=False)

    def _place_missing(self, doc, missing):
        """Positions for nodes the document does not place: the render layout for a whole
        unplaced document (folded to the view where that lets it read), else each the free
        place nearest the centre of the view, clear of every card as this sync draws it
        (at the view's centre, an added node covered the card there)."""
        if len(missing) == len(doc.nodes):
            self.positions.update(self._view_layout(doc))
            return
        centre = self.view_centre()
        centre = QPointF(round(centre.x()), round(centre.y()))   # the corner found whole
        problems = self.controller.result.node_problems or {}
        occupied = self._occupied(unplaced=set(missing)) + self._story_marks()
        for nid in missing:
            bounds = self._taken(nid, problems)
            corner = self.place_card(bounds, centre, occupied)
            self.positions[nid] = (round(corner.x()), round(corner.y()))
            occupied.append(bounds.translated(*self.positions[nid]))

    def sync(self, full=None, new_document=None):
        """Bring the scene up to date with controller.doc and controller.result. `full`
        rebuilds every item; for a new document (the default with `full`) the unplaced
        nodes are laid out afresh and the view fits them."""
        full = self._needs_full if full is None else full
        new_document = full if new_document is None else new_document
        doc = self.controller.doc
        self._dirty = False
        self._needs_full = False
        self._cancel_wire()
        placed = any(node.position is not None for node in doc.nodes.values())
        if new_document or (self._placed and not placed):   # new, or Auto Layout (undo, redo) gave
            self.positions = {}                               # the placing back to the canvas
        if new_document:
            self.shortened_at, self._compact_kept, self.compact_layout = None, {}, False
        self._placed = placed
        for nid, node in doc.nodes.items():
            if node.position is not None:
                self.positions[nid] = (float(node.position[0]), float(node.position[1]))
        for nid in [n for n in self.positions if n not in doc.nodes]:
            del self.positions[nid]
        missing = [nid for nid in doc.nodes if nid not in self.positions]
        for nid in missing:
            self.positions[nid] = (0.0, 0.0)
        # a new theme hands over the renderer before it too (whose cards, in the old colours,
        # it measures again) for what carries over: where the player docked the step's card
        previous = None if new_document else self.renderer
        self.renderer = make_renderer(doc, self.controller.result, self.theme_name, self.positions,
                                      previous, self.sizes_held, self.compact_height)
        self.renderer.positions = self.positions
        self.renderer.zoom_labels = self.label_scale
        self.renderer.numbers_px = self.numbers_px
        self.renderer.view_bounds = lambda: self.label_bounds
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
            gone = [n for n in self.node_items if n not in doc.nodes]
            for nid in gone:
                scene.removeItem(self.node_items.pop(nid))
            moved, repainted, grown = set(), [], []
            reshaped = full or bool(gone)
            roles = badge_roles(doc)
            shown = self.visible_rect()
            added = False
            for nid in doc.nodes:
                item = self.node_items.get(nid)
                if item is None:
                    item = self.node_items[nid] = NodeItem(self, nid)
                    scene.addItem(item)
                    moved.add(nid)
                    added = True
                pos = QPointF(*self.positions[nid])
                if item.pos() != pos:
                    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges, False)
                    item.setPos(pos)
                    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges, True)
                    moved.add(nid)
                was = None if item.card is None else item.footprint(full=True)
                change = item.refresh(self.renderer, problems.get(nid, []), roles, shown)
                if change == OUTLINE:
                    moved.add(nid)
                if change in (OUTLINE, CARD) and (was is None and not full or was is not None and _larger(
                        item.footprint(full=True), was)):
                    grown.append(nid)   # new, larger, or a problem's lines under it (not a
                if change is not None:  # compact card drawn in full again)
                    repainted.append(item)
                    reshaped = reshaped or change != NUMBERS   # problem lines, a new outline
                item.setSelected(nid in self.controller.selection)
            new_edges = set()
            rewired = full or gone or added or doc.edges != self._synced_edges
            if rewired:
                new_edges, removed = self._sync_edges(doc)
                reshaped = reshaped or bool(new_edges) or removed
            labels = [n.label for n in doc.nodes.values()]
            if rewired or labels != self._synced_labels:   # a port's name may clash anew
                for item in self.node_items.values():
                    item.sync_port_names()
                self._synced_labels = labels
            cuts = self.renderer.cuts()
            recut = cuts != self._synced_cuts
            for e, item in self.edge_items.items():
                if new_edges and e in new_edges:
                    continue
                if e.src.node in moved or e.dst.node in moved:
                    item.update_geometry()
                if recut:
                    item.refresh()  # cut status may change with the tape settings
            self._synced_edges, self._synced_cuts = list(doc.edges), cuts
            if moved and not full:
                self._reroute_around(moved)  # a card that grew may now cover other edges
            if full:
                self.edge_layer.refit()
        finally:
            self._selecting = False
        self._repaint_many(repainted)
        overlay = self.step_overlay
        if overlay is not None and overlay.step is not None:
            if not overlay.is_stale(self.renderer.story):   # else the player sets the new story's
                overlay.relayout()
            reshaped = True
        elif overlay is not None:
            overlay.relayout()          # a new renderer's cards before the story, or after it
        if reshaped or moved:   # new numbers alone keep every item's bounds
            self._update_scene_rect()
        if new_document:
            QTimer.singleShot(0, self, self.first_view)
        elif grown and not self.controller.replaying:   # undo, redo: the cards stand as they stood
            self.make_room_soon(grown)

    def _sync_edges(self, doc):
        """An edge item for every edge between nodes there are, and no other: returns (the
        edges whose items are new, whether an item went). Skipped when the document's edges
        are the last sync's: hashing every Edge cost 0.6 ms of each value edit at 100 nodes."""
        edges = {e for e in doc.edges if e.src.node in doc.nodes and e.dst.node in doc.nodes}
        gone = [e for e in self.edge_items if e not in edges]
        for e in gone:
            item = self.edge_items.pop(e)
            self.scene().removeItem(item)
            self.edge_layer.edge_removed(item)
        new = set()
        for e in doc.edges:
            if e in edges and e not in self.edge_items:
                item = self.edge_items[e] = EdgeItem(self, e)
                self.scene().addItem(item)
                new.add(e)
        return new, bool(gone)

    def _repaint_many(self, items):
        """When many cards in view repaint, repaint the viewport as one rectangle: the view
        then finds and clips its items against one rectangle, not against a region of
        dozens (a value edit of 76 cards in view: 20 ms of paint instead of 28, CPU)."""
        if len(items) < MANY_CARDS:
            return
        view = self.visible_rect()
        shown = 0
        for item in items:
            shown += view.intersects(item.sceneBoundingRect())
            if shown >= MANY_CARDS:
                self.viewport().update()
                return


def _larger(box, was):
    """Does footprint `box` reach further right or down than `was` (the same card before)?"""
    return box[2] - box[0] > was[2] - was[0] or box[3] - box[1] > was[3] - was[1]
