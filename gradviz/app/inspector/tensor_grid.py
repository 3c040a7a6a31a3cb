"""The tensor editor's cell grid: a table model over a small array, and a view that types
like a spreadsheet.

Typing on a cell replaces its value; Tab commits and edits the next cell to the right,
Enter commits and moves down (Shift reverses both), so `1 Tab 2 Tab 3 Enter` fills three
cells. Ctrl+C copies the selected cells as tab-separated text, Ctrl+V pastes text into
the selection, Delete sets the selected cells to 0. A committed edit updates the model
in place (dataChanged, never a reset), so the cell cursor and the focus stay put.
"""
import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QKeySequence
from PySide6.QtWidgets import (QAbstractItemDelegate, QAbstractItemView, QApplication,
                               QLineEdit, QStyledItemDelegate, QTableView)

from ...render import preview
from ...story.numbers import written
from .tensor_text import as_grid, cell_text

WARN = QColor(255, 214, 153)


class TensorModel(QAbstractTableModel):
    """A 0-d, 1-d (one row) or 2-d array as a table; `on_edit(row, col, text, where)`
    decides what a typed cell does."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._array = np.zeros((0,), np.float32)
        self._format, self.factor = written(self._array)
        self.read_only = False
        self.on_edit = None

    def set_array(self, array):
        """Show `array`: in place when the shape is the same (the view keeps its cursor and
        editors), a model reset otherwise."""
        array = np.array(array)
        rows, cols = self.rowCount(), self.columnCount()
        if array.shape == self._array.shape and array.dtype == self._array.dtype and rows * cols:
            self._set(array)
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, cols - 1))
            return
        self.beginResetModel()
        self._set(array)
        self.endResetModel()

    def _set(self, array):
        """Take `array` and the format its cells are shown in: the cards' (three decimals,
        a tensor of whole numbers as integers), so a value reads the same in the inspector
        and on its card; the full value is in the cell's editor and tooltip."""
        self._array = array
        numeric = array.dtype.kind in "iuf"
        shown, power = preview.scaled(array) if numeric else (array, 0)
        self._spec = (preview.mantissa_spec(power) or preview.number_spec(shown), power) \
            if numeric else None
        # a card's numbers: a tensor beyond the ordinary magnitudes as mantissas beside the
        # power of ten its card writes (0.116 … ×10⁻⁷), never 1.16e-08 beside a card's 0.116
        self._format, self.factor = written(array) if numeric else (str, "")

    def set_cell(self, row, col, array):
        """`array` differs from the shown one in cell (row, col) only; all cells are shown
        anew when their format changes with it (0.5 typed among whole numbers)."""
        spec = self._spec
        self._set(np.array(array))
        if self._spec != spec:
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))
            return
        index = self.index(row, col)
        self.dataChanged.emit(index, index)

    def text(self, v):
        """The text a cell shows for value `v`."""
        if self._array.dtype.kind == "b":
            return "True" if v else "False"
        return self._format(v.item() if hasattr(v, "item") else v)

    def texts(self):
        """Every cell's shown text, row by row."""
        grid = self._grid()
        return [self.text(v) for v in grid.reshape(-1)] if grid is not None else []

    def array(self):
        return self._array

    def _grid(self):
        return as_grid(self._array)

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else self._grid().shape[0]

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else self._grid().shape[1]

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole:
            if self._array.ndim == 0:
                return ""
            if self._array.ndim == 1 and orientation == Qt.Vertical:
                return ""
            return str(section)
        return None

    def flags(self, index):
        f = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        return f if self.read_only else f | Qt.ItemIsEditable

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        v = self._grid()[index.row(), index.column()]
        dtype = self._array.dtype
        if role == Qt.DisplayRole:
            return self.text(v)
        if role == Qt.EditRole:
            return cell_text(v)
        if role == Qt.ToolTipRole:
            return f"{self.where(index)} = {cell_text(v)}"
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.BackgroundRole and dtype.kind == "f" and not np.isfinite(v):
            return QBrush(WARN)
        return None

    def where(self, index):
        nd = self._array.ndim
        if nd == 0:
            return "value"
        if nd == 1:
            return f"[{index.column()}]"
        return f"[{index.row()}, {index.column()}]"

    def setData(self, index, value, role=Qt.EditRole):
        if role != Qt.EditRole or not index.isValid() or self.read_only or self.on_edit is None:
            return False
        return bool(self.on_edit(index.row(), index.column(), str(value), self.where(index)))


class _CellDelegate(QStyledItemDelegate):
    """A plain line edit whose text is selected, so typing replaces the old value."""

    def setEditorData(self, editor, index):
        super().setEditorData(editor, index)
        if isinstance(editor, QLineEdit):
            editor.selectAll()


class TensorGrid(QTableView):
    """The grid of a TensorEditor (`editor` does the copying, pasting and clearing)."""

    def __init__(self, editor, model):
        super().__init__(editor)
        self.editor = editor
        self.setModel(model)
        self.setItemDelegate(_CellDelegate(self))
        self.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                             | QAbstractItemView.AnyKeyPressed)
        self.setSelectionMode(QAbstractItemView.ContiguousSelection)
        self.setTabKeyNavigation(True)
        self._tab_start = None   # the column a run of Tab-typed cells started in

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.editor.fit_columns()      # whole columns at its new width

    def block(self):
        """(row0, col0, row1, col1), end exclusive: the selected cells, else the current one."""
        cells = [(i.row(), i.column()) for i in self.selectedIndexes()]
        if not cells and self.currentIndex().isValid():
            cells = [(self.currentIndex().row(), self.currentIndex().column())]
        if not cells:
            return None
        rows, cols = [r for r, _ in cells], [c for _, c in cells]
        return min(rows), min(cols), max(rows) + 1, max(cols) + 1

    def move_cursor_by(self, drow, dcol):
        index = self.currentIndex()
        if not index.isValid():
            return
        model = self.model()
        row = min(max(index.row() + drow, 0), model.rowCount() - 1)
        col = min(max(index.column() + dcol, 0), model.columnCount() - 1)
        self.setCurrentIndex(model.index(row, col))

    def _enter(self, up=False):
        """Enter moves down a row, back to the column a run of Tabs started in."""
        index = self.currentIndex()
        start, self._tab_start = self._tab_start, None
        if not index.isValid():
            return
        model = self.model()
        row = min(max(index.row() + (-1 if up else 1), 0), model.rowCount() - 1)
        col = index.column() if start is None or row == index.row() else start
        self.setCurrentIndex(model.index(row, col))

    def keyPressEvent(self, event):
        editing = self.state() == QAbstractItemView.State.EditingState
        if not editing and event.matches(QKeySequence.StandardKey.Copy):
            self.editor.copy_cells()
        elif not editing and event.matches(QKeySequence.StandardKey.Paste):
            self.editor.paste_cells()
        elif not editing and event.matches(QKeySequence.StandardKey.SelectAll):
            self.selectAll()
        elif not editing and event.key() == Qt.Key.Key_Delete \
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self.editor.clear_cells()
        elif not editing and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._enter(up=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        else:
            if not editing and event.key() not in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
                self._tab_start = None
            super().keyPressEvent(event)
            return
        event.accept()

    def mousePressEvent(self, event):
        self._tab_start = None
        super().mousePressEvent(event)

    def closeEditor(self, editor, hint):
        """Tab / Shift+Tab commit and edit the next cell; Enter (SubmitModelCache) commits
        and moves down, like a spreadsheet."""
        hints = QAbstractItemDelegate.EndEditHint
        if hint in (hints.EditNextItem, hints.EditPreviousItem) and self._tab_start is None:
            self._tab_start = self.currentIndex().column()
        super().closeEditor(editor, hint)
        if hint == hints.SubmitModelCache:
            self._enter(up=bool(QApplication.keyboardModifiers()
                                & Qt.KeyboardModifier.ShiftModifier))
