"""The provenance dock's grid of a tensor's numbers: a matrix as rows and columns, a long
vector wrapped, a tensor of rank 3 or more laid out so an image reads as an image; a click
names the entry (its flat index)."""
import math

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QSizePolicy, QTableWidget,
                               QTableWidgetItem)

from ...render import heat_layout, tiles
from ...story.formatting import number
from ...story.numbers import written
from ..whole_columns import whole_columns

MAX_CELLS = 4000                     # entries a grid shows (it scrolls)
WRAP_MIN, WRAP_MAX = 4, 10           # a long vector wraps into rows this wide


def grid_order(shape, role=None, max_cells=MAX_CELLS):
    """(flat index of each cell, row headers, column headers) of a tensor's grid, at most
    `max_cells` entries (whole rows): a scalar one cell with no index, a vector one row of
    its entries headed [0], [1], … (no row: a header '0' read as an index it has not); a
    matrix as it is; an NHWC tensor one image row a
    grid row, [n,h,:,c], so an image reads as an image; a conv filter (`role`
    tiles.FILTER) one row of taps a grid row, [h,:,i,o]; another of rank 3 or more its
    last axis across, [i,j,:]."""
    shape = tuple(int(d) for d in shape)
    if len(shape) < 2:     # a scalar has no index; a vector's one row holds its entries [0], [1], …
        cols = int(np.prod(shape))
        return np.arange(cols).reshape(1, cols), [""], [f"[{c}]" for c in range(cols)] if shape else [""]
    if len(shape) == 2:
        rows, cols = shape
        rows = min(rows, max(1, max_cells // cols))
        return np.arange(rows * cols).reshape(rows, cols), [str(r) for r in range(rows)], \
            [str(c) for c in range(cols)]
    if len(shape) == 4:    # rows fix these axes (slowest first), the columns run along the last one
        outer_axes, col_axis = ((2, 3, 0), 1) if role == tiles.FILTER else ((0, 3, 1), 2)
    else:
        outer_axes, col_axis = tuple(range(len(shape) - 1)), len(shape) - 1
    cols, outer = shape[col_axis], tuple(shape[a] for a in outer_axes)
    rows = min(int(np.prod(outer)), max(1, max_cells // cols))
    order, heads = np.empty((rows, cols), np.int64), []
    for r in range(rows):
        multi = [0] * len(shape)
        for axis, i in zip(outer_axes, np.unravel_index(r, outer)):
            multi[axis] = int(i)
        heads.append("[" + ",".join(":" if a == col_axis else str(multi[a]) for a in range(len(shape))) + "]")
        multi[col_axis] = np.arange(cols)
        order[r] = np.ravel_multi_index(tuple(multi), shape)
    return order, heads, [str(c) for c in range(cols)]


class TensorGrid(QTableWidget):
    """A small read-only grid of numbers; a click emits the entry's flat index.

    A matrix shows as rows and columns (numpy's indices in the headers); a long vector
    wraps into rows, the row header giving the index its row starts at; a tensor of rank
    3 or more shows as `grid_order` lays it out."""

    entryClicked = Signal(int)
    keys_for_story = True    # read-only, chosen by a click: the arrows step the story (focus_keys)

    def __init__(self, title="", parent=None):
        super().__init__(parent)
        self.title = title
        self.array = None
        self.factor = ""     # '×10⁻⁵' when the numbers are written divided by it, as on the cards
        self.highlighted = []
        self._order = np.zeros((0, 0), int)   # the flat index each cell shows (-1: none)
        self._cells = {}                        # flat index -> (row, column)
        self._layout = None                     # (order, row labels, column labels) shown
        self.wrapped = False
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # sized to their contents by set_array once it has filled every cell: ResizeToContents
        # measured the whole column again after each cell's new text (38 ms for a 12x3 filter)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setMinimumSectionSize(24)
        font = QFont("DejaVu Sans Mono")
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setPointSizeF(9.5)
        self.setFont(font)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.cellClicked.connect(self._clicked)

    def _wrap_width(self, texts):
        """Columns of a wrapped vector: as many as fit the dock's width, within limits."""
        cell = self.fontMetrics().horizontalAdvance(max(texts, key=len, default="0")) + 14
        room = max(self.width(), self.parentWidget().width() if self.parentWidget() else 0, 240)
        return max(WRAP_MIN, min(WRAP_MAX, (room - 48) // max(cell, 1)))

    def set_array(self, array, role=None, shared=None):
        """Show `array`; `role` tiles.FILTER lays a rank-4 array out as a conv filter;
        `shared`, the format its story's tensors share (Story.number_spec)."""
        self.array = None if array is None else np.asarray(array)
        if self.array is None or self.array.size == 0:
            self.highlighted, self._layout, self.factor = [], None, ""
            self.clear()
            self.setRowCount(0)
            self.setColumnCount(0)
            self.setFixedHeight(0)
            return
        a2 = heat_layout.as_2d(self.array)
        fmt, self.factor = written(self.array, shared)   # as its card writes it, the power of ten apart
        flat = self.array.reshape(-1)
        self.wrapped = a2.shape[0] == 1 and a2.shape[1] > WRAP_MAX
        if self.wrapped:
            cols = self._wrap_width([fmt(v) for v in flat[:200].tolist()])
            order = np.full(math.ceil(flat.size / cols) * cols, -1)
            order[:flat.size] = np.arange(flat.size)
            order = order.reshape(-1, cols)
            row_labels = [str(r * cols) for r in range(order.shape[0])]
            col_labels = [f"+{c}" for c in range(cols)]
        else:
            order, row_labels, col_labels = grid_order(self.array.shape, role)
        order = order[:max(1, MAX_CELLS // order.shape[1])]   # a wrapped vector's rows too
        rows, cols = order.shape
        layout = (order.tobytes(), rows, cols, row_labels[:rows], col_labels)
        self.set_highlight([])
        if layout != self._layout:   # new numbers in the same grid (an edit) keep its cells
            self.clear()
            self._layout, self._order = layout, order
            self._cells = {int(k): (r, c) for (r, c), k in np.ndenumerate(order) if k >= 0}
            self.setRowCount(rows)
            self.setColumnCount(cols)
            self.setVerticalHeaderLabels(row_labels[:rows])
            self.setHorizontalHeaderLabels(col_labels)
            self.verticalHeader().setVisible(any(row_labels[:rows]))     # a vector's one row: none
            self.horizontalHeader().setVisible(any(col_labels))          # a scalar: no index at all
        for (r, c), k in np.ndenumerate(order):
            if k < 0:
                continue
            v = flat[k].item()
            item = self.item(r, c)
            if item is None:
                item = QTableWidgetItem()
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
            item.setText(fmt(v))   # one format for the whole table: 0.000 beside 3.000
            index = f"[{self._index_text(k)}]" if self.array.ndim else ""
            item.setToolTip(f"{self.title}{index} = {number(flat[k], 8)}")
        self.resizeColumnsToContents()
        self._natural = [self.columnWidth(c) for c in range(cols)]
        self.resizeRowsToContents()
        self._fit_height()
        self._fit_columns()

    _natural = ()       # each column's width for its numbers

    def _fit_columns(self):
        """Columns as wide as their numbers where they fit the viewport; else whole columns
        only, scrolled a column at a time (whole_columns): at 1280 x 800 the dock showed a
        7 x 8 grid's column 5 cut after '0.36', a number that read as another."""
        if len(self._natural) != self.columnCount() or not self._natural:
            return
        whole_columns(self, self._natural)

    def _fit_height(self):
        """Tall enough for up to 8 rows and, when the columns are wider than the dock, the
        horizontal scroll bar below them (it never covers a row: a 1×6 row of 1.88e-05s
        did)."""
        if self.array is None or not self.rowCount():
            return
        shown = min(self.rowCount(), 8)
        head = 0 if self.horizontalHeader().isHidden() else self.horizontalHeader().height()
        side = 0 if self.verticalHeader().isHidden() else self.verticalHeader().width()
        height = head + sum(self.rowHeight(r) for r in range(shown))
        wide = side + self.horizontalHeader().length() \
            + 2 * self.frameWidth() > self.width()
        scroll = self.horizontalScrollBar().sizeHint().height() if wide else 0
        height = int(height + 2 * self.frameWidth() + scroll)
        if height != self.minimumHeight() or height != self.maximumHeight():
            self.setFixedHeight(height)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_columns()
        self._fit_height()

    def _index_text(self, flat):
        shape = np.shape(self.array)
        return ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) if shape else ""

    def cell_of(self, flat):
        return self._cells.get(int(flat), (-1, -1))

    def text_at(self, flat):
        item = self.item(*self.cell_of(flat))
        return None if item is None else item.text()

    def _clicked(self, r, c):
        flat = int(self._order[r, c]) if self.array is not None else -1
        if 0 <= flat < self.array.size:
            self.entryClicked.emit(flat)

    def set_highlight(self, flats, colour="#f4a100"):
        for flat in self.highlighted:
            item = self.item(*self.cell_of(flat))
            if item is not None:
                item.setBackground(QBrush())
        self.highlighted = []
        fill = QColor(colour)
        fill.setAlpha(110)
        for flat in flats:
            item = self.item(*self.cell_of(flat))
            if item is not None:
                item.setBackground(QBrush(fill))
                self.highlighted.append(int(flat))
        if len(self.highlighted) == 1:
            self.scrollToItem(self.item(*self.cell_of(self.highlighted[0])))
