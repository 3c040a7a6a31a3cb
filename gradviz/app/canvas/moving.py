"""Moving cards: a drag becomes one undoable edit, edges a moved card now covers take a
new route around it, and cards that grew (a gradient appeared, a value got larger, a
problem's lines appeared under it) or were added push the cards they would cover (with
their own problems' lines) out of the way, within the edit that made them grow."""
from PySide6.QtCore import QTimer

from ...render.cards import BADGE_H
from ...render.layout import layout as layout_positions
from .cover import boxes_meet

ROOM = 24.0          # kept between a card that grew and the cards it pushed
PUSHES_PER_CARD = 50  # more pushes than this per card: the layout is made afresh instead


def make_room(boxes, grown, room=ROOM):
    """{node id: (dx, dy)}: how far cards move so that none overlaps a card in `grown`.

    `boxes`: {node id: (left, top, right, bottom)}. A card a grown card now covers moves
    right or down, whichever is shorter, to `room` past it; a moved card pushes the
    cards it then covers in turn. Cards that overlapped before, up and to the left of
    the grown card, are left as they were. None when the pushing does not settle."""
    boxes = dict(boxes)
    shift = {}
    queue, pushes = list(grown), 0
    while queue:
        pusher = queue.pop(0)
        left, top, right, bottom = boxes[pusher]
        for nid, (l, t, r, b) in list(boxes.items()):
            if nid == pusher or not (l < right and left < r and t < bottom and top < b):
                continue
            moves = ([(right + room - l, 0.0)] if l >= left else []) + \
                    ([(0.0, bottom + room - t)] if t >= top else [])
            if not moves:
                continue
            dx, dy = min(moves, key=lambda m: m[0] + m[1])
            boxes[nid] = (l + dx, t + dy, r + dx, b + dy)
            sx, sy = shift.get(nid, (0.0, 0.0))
            shift[nid] = (sx + dx, sy + dy)
            queue.append(nid)
            pushes += 1
            if pushes > PUSHES_PER_CARD * len(boxes):
                return None
    return shift


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
        placing = any(n.position is None for n in doc.nodes.values())
        if placing:
            moved = {nid: (round(x, 1), round(y, 1)) for nid, (x, y) in self._placed_for_reading().items()}
        self.moved_from = start     # the places an undo puts back (`view`), not the drag's end
        try:
            self.controller.move_nodes(moved)
        finally:
            self.moved_from = None
        if placing:
            self.compact_layout = False   # the document places them all now
        self.controller.end_move()
        self._reroute_around(moved)
        self._update_scene_rect()   # the cards were already where the edit puts them: sync saw no move

    def _placed_for_reading(self):
        """Where the first drag places every card: where they stand, or, laid out as tall as
        drawn compact (Fit's overview), pushed apart as far as they need to be drawn in full
        too (else zooming in after the drag showed them overlapping)."""
        if not self.compact_layout:
            return dict(self.positions)
        sizes = self.renderer.sizes()
        boxes = {nid: (x, y - BADGE_H - 4, x + sizes[nid][0], y + sizes[nid][1])
                 for nid, (x, y) in self.positions.items() if nid in sizes}
        shift = make_room(boxes, sorted(boxes, key=lambda n: (boxes[n][1], boxes[n][0]))) or {}
        return {nid: (x + shift.get(nid, (0.0, 0.0))[0], y + shift.get(nid, (0.0, 0.0))[1])
                for nid, (x, y) in self.positions.items()}

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

    def make_room_soon(self, grown):
        """Once the edit that made `grown` cards grow is done, push aside what they cover."""
        QTimer.singleShot(0, self, lambda: self.make_room_for(grown))

    def make_room_for(self, grown):
        """Move the cards the `grown` ones cover, as part of the edit that made them grow
        (one undo restores the positions with the rest); when pushing does not settle, the
        layout is made afresh. Nothing moves after an undo or a redo: they restore the
        positions as they were."""
        r, doc = self.renderer, self.controller.doc
        items = {nid: item for nid, item in self.node_items.items()
                 if nid in r.cards and nid in self.positions and item.card is not None}
        grown = [nid for nid in grown if nid in items]
        boxes = {nid: item.footprint(self.positions[nid]) for nid, item in items.items()}
        shift = make_room(boxes, grown)
        if shift is None:
            positions = layout_positions(doc, r.sizes())
        elif not shift:
            return
        else:
            positions = {nid: (self.positions[nid][0] + dx, self.positions[nid][1] + dy)
                         for nid, (dx, dy) in shift.items()}
        if any(n.position is None for n in doc.nodes.values()):   # laid out by the canvas: keep it so
            positions = {**self.positions, **positions}
        self.controller.amend_last_edit(positions)

