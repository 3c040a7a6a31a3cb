"""The canvas' editing commands: add nodes, apply roles, copy / paste / duplicate, delete, layout.

Each is one controller call, so one undo step.
"""
import copy

import numpy as np
from PySide6.QtCore import QMimeData, QPointF
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication

from ..graph import fileformat
from ..graph.document import CONSTANT, VARIABLE, Document, Port
from ..render.layout import layout as layout_positions
from .quick_add import QuickAdd

NODES_MIME = "application/x-gradviz-nodes"


class CanvasEditing:
    """CanvasView's edit commands (a mixin: `self` is the CanvasView)."""

    def add_node_at(self, kind, op="", scene_pos=None):
        """Add a node from a palette entry at `scene_pos` (the view's centre when None).
        Role entries ('role', 'target' | 'source' | 'output_gradients') act on the selection."""
        if kind == "role":
            return self.apply_role(op)
        pos = self._free_spot(self.view_centre()) if scene_pos is None else QPointF(scene_pos)
        c = self.controller
        variant = op if kind in (CONSTANT, VARIABLE) else ""
        node = c.make_node(kind, "" if variant else op, (round(pos.x() - 60.0), round(pos.y() - 20.0)))
        if variant == "watched":
            node.watched = True
        elif variant == "frozen":
            node.trainable = False
        ids = c.add_nodes([node], (), text=f"Add {node.title}")
        return ids[0] if ids else None

    def _free_spot(self, pos):
        """`pos`, moved down and right until no card starts within 30 px of it."""
        taken = [QPointF(x + 60.0, y + 20.0) for x, y in self.positions.values()]
        for _ in range(50):
            if not any(abs(t.x() - pos.x()) < 30 and abs(t.y() - pos.y()) < 30 for t in taken):
                break
            pos = pos + QPointF(36, 36)
        return pos

    def apply_role(self, role):
        c = self.controller
        ids = [i for i in c.selection if i in c.doc.nodes]
        if not ids:
            c.message.emit("Select a node first, then choose "
                           f"'{ {'target': 'Mark as target', 'source': 'Mark as source'}.get(role, role)}'")
            return None
        ports = [Port(i, 0) for i in ids]
        if role in ("target", "source"):
            key = role + "s"
            current = list(getattr(c.doc, key))
            if all(p in current for p in ports):
                new = [p for p in current if p not in ports]
            else:
                new = current + [p for p in ports if p not in current]
            c.set_ports(key, new)
        elif role == "output_gradients":
            values = getattr(c.result.evaluation, "values", None) or {}

            def change(doc):
                for p in ports:
                    if p not in doc.targets:
                        doc.targets.append(p)
                    v = values.get(p)
                    doc.output_gradients[p] = np.ones(np.shape(v), getattr(v, "dtype", np.float32)) \
                        if v is not None else np.ones((), np.float32)
            c.edit("Set output_gradients", change)
        return None

    def quick_add(self, scene_pos=None):
        """Tab: a search box at the cursor; Enter adds the chosen entry there."""
        from .palette import palette_entries
        if scene_pos is None:
            local = self.mapFromGlobal(QCursor.pos())
            if not self.viewport().rect().contains(local):
                local = self.viewport().rect().center()
            scene_pos = self.mapToScene(local)
        entries = palette_entries()
        popup = QuickAdd(self, entries, QPointF(scene_pos))
        popup.move(self.viewport().mapToGlobal(self.mapFromScene(scene_pos)))
        popup.show()
        popup.edit.setFocus()
        self._quick = popup
        return popup

    # -- clipboard and deletion ---------------------------------------------------------
    def _selected_ids(self):
        return [i for i in self.controller.selection if i in self.controller.doc.nodes]

    def selection_text(self, ids=None):
        """The selected nodes (and the edges among them) as gradviz JSON text."""
        doc = self.controller.doc
        ids = self._selected_ids() if ids is None else ids
        sub = Document(title="clipboard")
        for nid in ids:
            node = copy.deepcopy(doc.nodes[nid])
            if node.position is None and nid in self.positions:
                node.position = self.positions[nid]
            sub.add(node)
        sub.edges = [e for e in doc.edges if e.src.node in sub.nodes and e.dst.node in sub.nodes]
        return fileformat.dumps(sub)

    def copy(self):
        ids = self._selected_ids()
        if not ids:
            return False
        text = self.selection_text(ids)
        data = QMimeData()
        data.setText(text)
        data.setData(NODES_MIME, text.encode())
        QApplication.clipboard().setMimeData(data)
        self._paste_count = 0
        self.controller.message.emit(f"Copied {len(ids)} node{'s' if len(ids) > 1 else ''}")
        return True

    def cut(self):
        if self.copy():
            self.delete_selected()

    def paste(self, text=None):
        if text is None:
            data = QApplication.clipboard().mimeData()
            if data is None:
                return []
            text = bytes(data.data(NODES_MIME)).decode() if data.hasFormat(NODES_MIME) else data.text()
        try:
            sub = fileformat.loads(text, strict=False)
        except Exception as e:  # noqa: BLE001 (anything else on the clipboard)
            self.controller.message.emit(
                f"Nothing to paste: the clipboard holds no gradviz nodes ({e})"[:200])
            return []
        if not sub.nodes:
            return []
        self._paste_count += 1
        shift = 40.0 * self._paste_count
        for node in sub.nodes.values():
            x, y = node.position if node.position is not None else tuple(self.view_centre().toTuple())
            node.position = (round(x + shift, 1), round(y + shift, 1))
        return self.controller.add_nodes(list(sub.nodes.values()), sub.edges, text="Paste")

    def duplicate(self):
        ids = self._selected_ids()
        if not ids:
            return []
        self._paste_count = 0
        return self.paste(self.selection_text(ids))

    def delete_selected(self):
        ids = self._selected_ids()
        edges = [e for e in self.selected_edges() if e in self.controller.doc.edges]
        if not ids and not edges:
            return

        def change(doc):
            for e in edges:
                if e in doc.edges:
                    doc.edges.remove(e)
            for nid in ids:
                if nid in doc.nodes:
                    doc.remove(nid)
        what = f"Delete {ids[0]}" if len(ids) == 1 and not edges else (
            "Disconnect" if not ids and len(edges) == 1 else "Delete")
        self.controller.edit(what, change)
        self.controller.set_selection([])

    # -- layout -------------------------------------------------------------------------
    def auto_layout(self):
        """The render layer's layout, as one undoable move."""
        doc = self.controller.doc
        if not doc.nodes:
            return
        sizes = {nid: (c.width, c.height) for nid, c in self.renderer.cards.items()}
        positions = layout_positions(doc, sizes)
        self.controller.move_nodes({nid: positions[nid] for nid in doc.nodes}, merge=False)
        self.controller.end_move()
        self.fit()

