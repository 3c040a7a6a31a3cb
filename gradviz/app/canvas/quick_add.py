"""The canvas' Tab popup: search every palette entry by name and add it at the pointer.

One popup holding a search line and the list of matches (no second popup for the list),
so it opens, closes and gives the keyboard back cleanly: type to filter, Up / Down to
choose, Enter (or a click) adds, Esc cancels.
"""
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QAbstractItemView, QFrame, QLineEdit, QListWidget, QVBoxLayout

from ...graph.document import OP

VISIBLE_ROWS = 12


def placed(size, at, room):
    """The top-left corner of a popup `size` opened at `at` (global) so that it lies inside
    `room` (the window, global): below and right of `at`, flipped above / left of it where
    it would pass the window's bottom / right edge, and moved in where even that does not
    fit. At the bottom of a 1280 x 800 window the popup ran 110 px past the window."""
    x, y = at.x(), at.y()
    if x + size.width() > room.right() + 1:
        x -= size.width()
    if y + size.height() > room.bottom() + 1:
        y -= size.height()
    x = max(room.left(), min(x, room.right() + 1 - size.width()))
    y = max(room.top(), min(y, room.bottom() + 1 - size.height()))
    return QPoint(x, y)


class QuickAdd(QFrame):
    """The Tab popup over `view` (a CanvasView); the entry is added at `scene_pos`.
    Made once per canvas and opened again with `open_at`."""

    def __init__(self, view, entries, scene_pos=None):
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
        layout.setSpacing(2)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Add node: type to search…")
        self.edit.setMinimumWidth(300)
        self.list = QListWidget(self)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setUniformItemSizes(True)
        layout.addWidget(self.edit)
        layout.addWidget(self.list)
        self.edit.textChanged.connect(self._filter)
        self.edit.returnPressed.connect(self._choose_current)
        self.edit.installEventFilter(self)
        self.list.itemClicked.connect(lambda item: self.choose(item.text()))
        self._filter("")
        row = max(self.list.sizeHintForRow(0), 16)
        self.list.setFixedHeight(VISIBLE_ROWS * row + 2 * self.list.frameWidth())
        # as wide as the longest label, whatever the search shows: near the right edge the
        # list cut "nn.sparse_softmax_cross_entropy_with_logits  (nn" behind a scroll bar
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        widest = max(self.list.fontMetrics().horizontalAdvance(label) for label in self.entries)
        self.list.setMinimumWidth(widest + 2 * self.list.frameWidth() + 4 * self.list.spacing()
                                  + self.list.verticalScrollBar().sizeHint().width() + 8)

    def hideEvent(self, event):
        """Closed (added, Esc, or a click elsewhere): the canvas has the keyboard again."""
        super().hideEvent(event)
        self.view.window().activateWindow()
        self.view.setFocus(Qt.FocusReason.PopupFocusReason)

    def open_at(self, scene_pos, global_pos):
        """Show an empty search at `global_pos`, inside the window; the entry will go to
        `scene_pos`."""
        self.scene_pos = scene_pos
        self.edit.clear()
        self._filter("")
        self.adjustSize()
        self.move(placed(self.size(), global_pos, self.view.window().frameGeometry()))
        self.show()
        # Shown, the frame may settle a pixel wider than adjustSize said: place it again.
        self.move(placed(self.frameGeometry().size(), global_pos, self.view.window().frameGeometry()))
        self.edit.setFocus()

    def matches(self, text):
        """Labels containing `text` (case-insensitive), those that start with it first."""
        text = text.strip().lower()
        found = [label for label in self.entries if text in label.lower()]
        return sorted(found, key=lambda label: not label.lower().startswith(text))

    def _filter(self, text):
        self.list.clear()
        self.list.addItems(self.matches(text))
        if self.list.count():
            self.list.setCurrentRow(0)

    def eventFilter(self, obj, event):
        if obj is self.edit and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1,
                        Qt.Key.Key_PageDown: VISIBLE_ROWS, Qt.Key.Key_PageUp: -VISIBLE_ROWS}[key]
                row = min(max(self.list.currentRow() + step, 0), self.list.count() - 1)
                self.list.setCurrentRow(row)
                return True
            if key == Qt.Key.Key_Escape:
                self.close()
                return True
        return super().eventFilter(obj, event)

    def _choose_current(self):
        item = self.list.currentItem()
        self.choose(item.text() if item is not None else self.edit.text())

    def choose(self, text):
        """Add the entry labelled `text` (or the best match for it); None when nothing matches."""
        entry = self.entries.get(text)
        if entry is None:
            found = self.matches(text)
            entry = self.entries[found[0]] if found else None
        self.close()
        if entry is not None:
            self.view.add_node_at(entry[0], entry[1], self.scene_pos)
        return entry
