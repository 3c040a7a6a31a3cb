"""The canvas' Tab popup: search every palette entry by name."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCompleter, QFrame, QLineEdit, QVBoxLayout

from ..graph.document import OP


class QuickAdd(QFrame):
    """The Tab popup: type to search every palette entry, Enter adds it where the cursor was."""

    def __init__(self, view, entries, scene_pos):
        super().__init__(view, Qt.WindowType.Popup)
        self.view = view
        self.scene_pos = scene_pos
        self.entries = {}
        for group, kind, op, title, doc in entries:
            label = f"{title}  ({group})" if title != op or kind != OP else f"{op}  ({group})"
            self.entries.setdefault(label, (kind, op))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Add node: type to search…")
        self.edit.setMinimumWidth(280)
        layout.addWidget(self.edit)
        self.completer = QCompleter(list(self.entries), self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setMaxVisibleItems(14)
        self.edit.setCompleter(self.completer)
        self.completer.activated.connect(self.choose)
        self.edit.returnPressed.connect(lambda: self.choose(self.edit.text()))

    def matches(self, text):
        text = text.strip().lower()
        return [label for label in self.entries if text in label.lower()]

    def choose(self, text):
        entry = self.entries.get(text)
        if entry is None:
            found = self.matches(text)
            exact = [m for m in found if m.lower().startswith(text.strip().lower())]
            entry = self.entries[(exact or found)[0]] if found else None
        self.close()
        if entry is not None:
            self.view.add_node_at(entry[0], entry[1], self.scene_pos)
        return entry
