"""The palette: every node a document can hold, grouped as in the catalog, searchable.

Double-click adds an entry at the centre of the canvas, dragging drops it where it
lands; the same entries feed the canvas's Tab quick-add. The gradient tools 'Mark as
target', 'Mark as source' and 'Set output_gradients' are roles, so they act on the
selected nodes instead of adding one.
"""
from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ...graph import catalog
from ...graph.document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE

# What a palette entry carries when dragged onto the canvas: {'kind', 'op'} as json.
PALETTE_MIME = "application/x-gradviz-palette-entry"

GROUP_TITLES = {
    "inputs": "Inputs", "variables": "Variables", "math": "Math", "linalg": "Linear algebra",
    "reduce": "Reduce", "shape": "Shape", "nn": "Neural network (tf.nn)", "losses": "Losses (keras)",
    "layers": "Layers (keras)",
    "gradient": "Gradient tools",
}
ROLE = "role"
LONG_TITLE = 30  # characters; a longer palette entry does not widen the palette
ENTRY_ROLE = Qt.ItemDataRole.UserRole


def palette_entries():
    """[(group, kind, op, title, doc)] for every entry, in palette order."""
    entries = [
        ("inputs", CONSTANT, "", "Constant", "tf.constant: a fixed tensor. The tape does not watch it."),
        ("inputs", CONSTANT, "watched", "Watched tensor",
         "tf.constant followed by tape.watch(x): gradients can be taken with respect to it."),
        ("variables", VARIABLE, "", "Variable",
         "tf.Variable (trainable): the tape watches it automatically when it is read."),
        ("variables", VARIABLE, "frozen", "Frozen variable",
         "tf.Variable(trainable=False): not watched unless you call tape.watch."),
    ]
    for group in catalog.GROUPS:
        if group in ("inputs", "variables", "layers", "gradient"):
            continue
        for name, spec in catalog.OPS.items():
            if spec.group == group:
                entries.append((group, OP, name, name, f"tf.{name}({', '.join(spec.inputs)}): {spec.doc}"))
    for name, spec in catalog.LAYERS.items():
        entries.append(("layers", LAYER, name, name, f"keras.layers.{name}: {spec.doc}"))
    entries += [
        ("gradient", ROLE, "target", "Mark as target",
         "Make the selected node's output a target of tape.gradient (click again to unmark)."),
        ("gradient", ROLE, "source", "Mark as source",
         "Take the gradient with respect to the selected node's output (click again to unmark)."),
        ("gradient", ROLE, "output_gradients", "Set output_gradients",
         "Seed the selected target with output_gradients (ones to start; edit them in the inspector)."),
    ]
    for name, spec in catalog.OPS.items():
        if spec.group == "gradient":
            entries.append(("gradient", OP, name, name, f"tf.{name}: {spec.doc}"))
    for name, (defaults, doc, _) in catalog.CUSTOM_RULES.items():
        params = ", ".join(f"{k}={v}" for k, v in defaults.items())
        entries.append(("gradient", CUSTOM_GRADIENT, name, f"custom gradient: {name}",
                        f"@tf.custom_gradient: identity forward; backward: {doc}"
                        + (f" ({params})" if params else "")))
    return entries


class _Tree(QTreeWidget):
    """The entry tree; dragging an entry carries it as PALETTE_MIME json."""

    def mimeTypes(self):
        return [PALETTE_MIME]

    def mimeData(self, items):
        data = QMimeData()
        item = next((i for i in items if i.data(0, ENTRY_ROLE)), None)
        if item is not None:
            kind, op = item.data(0, ENTRY_ROLE)
            data.setData(PALETTE_MIME, json.dumps({"kind": kind, "op": op}).encode())
            data.setText(item.text(0))
        return data

    def supportedDropActions(self):
        return Qt.DropAction.CopyAction


class PaletteWidget(QWidget):
    """Search box over a tree of palette entries grouped like the catalog."""

    def __init__(self, controller, canvas, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.canvas = canvas
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search ops…")
        self.search.setToolTip("Type to filter the palette; Enter adds the first match.\n"
                               "On the canvas, Tab opens the same search at the mouse pointer.")
        self.search.setClearButtonEnabled(True)
        self.tree = _Tree(self)
        self.tree.setHeaderHidden(True)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self.groups = {}
        self.items = []          # (QTreeWidgetItem, entry)
        self._fill()
        self.search.textChanged.connect(self.filter)
        self.search.returnPressed.connect(self._add_first)
        self.tree.itemActivated.connect(self._activated)

    def _fill(self):
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for entry in palette_entries():
            group, kind, op, title, doc = entry
            parent = self.groups.get(group)
            if parent is None:
                parent = QTreeWidgetItem(self.tree, [GROUP_TITLES.get(group, group)])
                parent.setFont(0, bold)
                parent.setFlags(Qt.ItemFlag.ItemIsEnabled)
                parent.setExpanded(group not in ("shape",))
                self.groups[group] = parent
            item = QTreeWidgetItem(parent, [title])
            item.setToolTip(0, doc)
            item.setData(0, ENTRY_ROLE, (kind, op))
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if kind != ROLE:
                flags |= Qt.ItemFlag.ItemIsDragEnabled
            item.setFlags(flags)
            if kind == ROLE:
                font = QFont(self.tree.font())
                font.setItalic(True)
                item.setFont(0, font)
            self.items.append((item, entry))

    def filter(self, text):
        """Show only the entries whose title, op name, group or doc contain `text`."""
        words = text.lower().split()
        for item, (group, kind, op, title, doc) in self.items:
            hay = f"{title} {op} {group} {doc}".lower()
            item.setHidden(not all(w in hay for w in words))
        for group, parent in self.groups.items():
            visible = any(not parent.child(i).isHidden() for i in range(parent.childCount()))
            parent.setHidden(not visible)
            if words:
                parent.setExpanded(True)

    def visible_entries(self):
        return [entry for item, entry in self.items if not item.isHidden() and not item.parent().isHidden()]

    def entry_item(self, title):
        return next((item for item, entry in self.items if entry[3] == title), None)

    def _add_first(self):
        shown = self.visible_entries()
        if shown:
            self.add_entry(shown[0])

    def _activated(self, item, column=0):
        entry = item.data(0, ENTRY_ROLE)
        if entry:
            self._add(entry[0], entry[1])

    def add_entry(self, entry, scene_pos=None):
        group, kind, op, title, doc = entry
        return self._add(kind, op, scene_pos)

    def _add(self, kind, op, scene_pos=None):
        """Add the entry; the canvas takes the keyboard so Delete, Ctrl+D… act on the new node."""
        added = self.canvas.add_node_at(kind, op, scene_pos)
        if added is not None:
            self.canvas.setFocus(Qt.FocusReason.OtherFocusReason)
        return added

    def sizeHint(self):
        """Wide enough for the longest entry, so nothing is cut off; except the few names
        longer than LONG_TITLE characters (tf.nn's cross-entropy ops), which would take
        the canvas's room for them: they are elided in the middle, whole in the tooltip."""
        hint = super().sizeHint()
        tree = self.tree
        width = max((tree.fontMetrics().horizontalAdvance(item.text(0)) for item, _ in self.items
                     if len(item.text(0)) <= LONG_TITLE), default=0)
        width += 2 * tree.indentation() + tree.verticalScrollBar().sizeHint().width() + 24
        return hint.expandedTo(QSize(width, hint.height()))
