"""Moving cards: a drag becomes one undoable edit, and edges a moved card now covers take
a new route around it."""
from .cover import boxes_meet


class CanvasMoving:
    """CanvasView's card moves (a mixin: `self` is the CanvasView)."""

    def _node_moved(self, item):
        p = item.pos()
        self.positions[item.nid] = (p.x(), p.y())
        for e, edge_item in self.edge_items.items():
            if item.nid in (e.src.node, e.dst.node):
                edge_item.update_geometry()
        if self.step_overlay is not None and self.step_overlay.step is not None:
            self.step_overlay.relayout()

    def note_drag_start(self):
        """Where the cards are when a press may start a drag: a click that moves nothing
        (a card laid out automatically has no stored position) must not become an edit."""
        self._drag_start = {nid: (item.pos().x(), item.pos().y())
                            for nid, item in self.node_items.items()}

    def commit_moves(self):
        """After a drag: the new positions become one undoable edit."""
        doc = self.controller.doc
        start, self._drag_start = self._drag_start, None
        if start is not None and all(
                nid in start and abs(item.pos().x() - start[nid][0]) <= 0.05
                and abs(item.pos().y() - start[nid][1]) <= 0.05
                for nid, item in self.node_items.items()):
            return
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
        self._reroute_around(moved)
        self._update_scene_rect()   # the cards were already where the edit puts them: sync saw no move

    def _reroute_around(self, node_ids):
        """Edges the dropped or resized cards now sit on take a new route around them (while
        dragging only the moved cards' own edges follow; routing every edge costs too much
        per move)."""
        r = self.renderer
        rects = [r.rect(nid) for nid in node_ids if nid in r.cards and nid in r.positions]
        boxes = [rect.getCoords() for rect in rects]
        for e, edge_item in self.edge_items.items():
            if e.src.node in node_ids or e.dst.node in node_ids:
                continue
            if any(boxes_meet(edge_item.box, box) and edge_item.path_crosses(rect)
                   for rect, box in zip(rects, boxes)):
                edge_item.update_geometry()
