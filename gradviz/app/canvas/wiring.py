"""Wires: dragging from a port to connect it, snapping to the nearest port, and the note
at the cursor that says why a connection was refused."""
import math

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QCursor, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from .items import NodeItem, PortItem
from .overlay import RefusalNote

SNAP_RADIUS = 22.0


class CanvasWiring:
    """CanvasView's wires (a mixin: `self` is the CanvasView)."""

    def start_wire(self, port_item, scene_pos):
        self._cancel_wire()
        self._wire_from = port_item
        self._wire = QGraphicsPathItem()
        pen = QPen(QColor(self.highlight_colour()), 2.2, Qt.PenStyle.DashLine)
        self._wire.setPen(pen)
        self._wire.setZValue(5)
        self.scene().addItem(self._wire)
        self.update_wire(scene_pos)

    def _port_near(self, scene_pos, want_output, own_node=False):
        """The port a wire dropped at `scene_pos` snaps to; `own_node`: also the wire's own
        node's ports (so a drop there is refused with its reason, not ignored)."""
        best, best_d = None, SNAP_RADIUS
        area = QRectF(scene_pos.x() - SNAP_RADIUS, scene_pos.y() - SNAP_RADIUS, 2 * SNAP_RADIUS,
                      2 * SNAP_RADIUS)
        start = getattr(self._wire_from, "node_item", None)
        for item in self.scene().items(area):
            if isinstance(item, PortItem) and item.is_output == want_output \
                    and (own_node or item.node_item is not start):
                d = math.dist((item.scenePos().x(), item.scenePos().y()), (scene_pos.x(), scene_pos.y()))
                if d < best_d:
                    best, best_d = item, d
        if best is None:  # dropped on a card: its first free input (or its output)
            for item in self.scene().items(scene_pos):
                if isinstance(item, NodeItem) and item is not getattr(self._wire_from, "node_item", None):
                    ports = item.ports_out if want_output else item.ports_in
                    if want_output:
                        return ports[0] if ports else None
                    taken = {e.dst.index for e in self.controller.doc.edges if e.dst.node == item.nid}
                    free = [p for p in ports if p.index not in taken]
                    return free[0] if free else (ports[0] if len(ports) == 1 else None)
        return best

    def update_wire(self, scene_pos):
        if self._wire is None:
            return
        start = self._wire_from.scenePos()
        target = self._port_near(scene_pos, not self._wire_from.is_output)
        if target is not self._wire_target:
            old, self._wire_target = self._wire_target, target
            for p in (old, target):
                if p is not None:
                    p.refresh_look()
        end = target.scenePos() if target is not None else scene_pos
        a, b = (start, end) if self._wire_from.is_output else (end, start)
        self._wire.setPath(self.renderer._edge_path(a, b))

    def finish_wire(self, scene_pos):
        if self._wire is None:
            return None
        start = self._wire_from
        target = self._port_near(scene_pos, not start.is_output) \
            or self._port_near(scene_pos, not start.is_output, own_node=True)
        self._cancel_wire()
        if target is None:
            return None
        src, dst = (start, target) if start.is_output else (target, start)
        return self.try_connect(src.port, dst.port, scene_pos)

    def _cancel_wire(self):
        if self._wire is not None:
            self.scene().removeItem(self._wire)
        old = self._wire_target
        self._wire = self._wire_from = self._wire_target = None
        if old is not None and old.scene() is not None:
            old.refresh_look()

    def try_connect(self, src, dst, scene_pos=None):
        """Connect output `src` to input `dst`; a refusal is shown at the cursor. Returns the reason."""
        reason = self.controller.connect(src, dst)
        if reason:
            self.show_refusal(reason, scene_pos)
        return reason

    def show_refusal(self, reason, scene_pos=None):
        self.last_refusal = reason
        if scene_pos is None:
            scene_pos = self.mapToScene(self.mapFromGlobal(QCursor.pos()))
        text = f"Cannot connect: {reason}"
        if self._note is not None and self._note.scene() is not None:
            self.scene().removeItem(self._note)
        self._note = RefusalNote(text, self.renderer.theme)
        self._note.setPos(scene_pos + QPointF(12, 12) / max(self.transform().m11(), 1e-3))
        self.scene().addItem(self._note)
        note = self._note
        QTimer.singleShot(4000, self, lambda: self._drop_note(note))

    def _drop_note(self, note):
        if note.scene() is not None:
            note.scene().removeItem(note)
        if self._note is note:
            self._note = None

    def refusal_note(self):
        """The message shown at the cursor, while it is visible (else None)."""
        return self._note.text if self._note is not None and self._note.scene() is not None else None
