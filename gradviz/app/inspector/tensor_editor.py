"""A small grid for editing one tensor: typing, random fill, paste and copy as numpy text.

Tensors of rank 0..2 with at most MAX_GRID entries per axis are edited cell by cell
(tensor_grid: typing moves like a spreadsheet); larger ones show their shape, a summary
and a heatmap, and can still be replaced as a whole (paste, random fill). Pasted text is
parsed (tensor_text), never evaluated; a paste that would change the tensor's shape asks
first, and every refusal says what is wrong in words; a refused edit changes nothing.
"""
import numpy as np

from PySide6.QtCore import QPoint, QRect, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QComboBox, QDialog,
                               QDialogButtonBox, QDoubleSpinBox, QFormLayout, QHBoxLayout,
                               QHeaderView, QLabel, QMessageBox, QSizePolicy, QSpinBox,
                               QToolButton, QVBoxLayout, QWidget)

from ...engine.errors import counted
from ...graph.tensors import dims
from ...story.numbers import line_format
from ..theme import ERROR_STYLE, WARN_STYLE
from ..whole_columns import whole_columns
from .tensor_grid import TensorGrid, TensorModel
from .tensor_text import (TensorTextError, as_grid, cast_to, cells_text, parse_number,
                          parse_tensor_text, random_values, tensor_text)

__all__ = ["TensorEditor", "TensorModel", "TensorTextError", "RandomFillDialog", "MAX_GRID",
           "parse_number", "parse_tensor_text", "random_values", "tensor_text"]

MAX_GRID = 20
ROW_HEIGHT = 22
VISIBLE_ROWS = 10
CELL_MARGIN = 14      # pixels around a cell's number (the grid's padding, a line each side)


class RandomFillDialog(QDialog):
    """Distribution, its two parameters and a seed: the same seed gives the same numbers.
    `name` (the node's label) is in its title and, for screens without a title bar (no
    window manager, presentation on a projector), in a heading of its own."""

    def __init__(self, parent=None, distribution="normal", seed=0, a=0.0, b=1.0, name=""):
        super().__init__(parent)
        self.setWindowTitle(f"Random values for {name}" if name else "Random values")
        form = QFormLayout(self)
        self.heading = QLabel(f"Fill {name} with random numbers" if name
                              else "Fill with random numbers")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        form.addRow(self.heading)
        self.distribution = QComboBox()
        self.distribution.addItems(["normal", "uniform"])
        self.distribution.setCurrentText(distribution)
        self.a = QDoubleSpinBox(decimals=4, minimum=-1e6, maximum=1e6, value=a)
        self.b = QDoubleSpinBox(decimals=4, minimum=-1e6, maximum=1e6, value=b)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=seed)
        self.a_label, self.b_label = QLabel(), QLabel()
        form.addRow("Distribution", self.distribution)
        form.addRow(self.a_label, self.a)
        form.addRow(self.b_label, self.b)
        form.addRow("Seed", self.seed)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.distribution.currentTextChanged.connect(self._labels)
        self._labels(distribution)

    def _labels(self, dist):
        normal = dist == "normal"
        self.a_label.setText("Mean" if normal else "Low")
        self.b_label.setText("Std. dev." if normal else "High")

    def settings(self):
        return dict(distribution=self.distribution.currentText(), seed=self.seed.value(),
                    a=self.a.value(), b=self.b.value())


class TensorEditor(QWidget):
    """Edit one tensor. `valueEdited(ndarray)` is emitted once per committed edit.

    `fixed_shape`: a paste must keep the current shape (layer weights, output_gradients);
    otherwise a paste may bring a new shape once `confirm` agrees. `set_array` never emits.
    """

    valueEdited = Signal(object)
    message = Signal(str)

    def __init__(self, parent=None, read_only=False, fixed_shape=False, tools=True):
        super().__init__(parent)
        self.fixed_shape = fixed_shape
        self.confirm = self._ask  # confirm(text) -> bool, before a paste changes the shape
        # seed None: the user chose none, so each fill draws a fresh one (fresh_seed)
        self.random_settings = dict(distribution="normal", seed=None, a=0.0, b=1.0)
        # () -> (whose tensor it is, the node's name; the rectangles, global, that the Random
        # fill leaves in view, most important first: its card, the canvas): asked on opening
        self.subject = lambda: ("", [])
        self._array = np.zeros((0,), np.float32)

        self.model = TensorModel(self)
        self.model.read_only = read_only
        self.model.on_edit = self._cell_edited
        self.view = TensorGrid(self, self.model)
        h = self.view.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.Interactive)
        h.setDefaultSectionSize(68)
        h.setMinimumSectionSize(36)
        v = self.view.verticalHeader()
        v.setDefaultSectionSize(ROW_HEIGHT)
        v.setSectionResizeMode(QHeaderView.Fixed)
        self.view.setSizeAdjustPolicy(QAbstractItemView.AdjustToContents)
        self.view.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Maximum)
        self.view.setMaximumHeight(VISIBLE_ROWS * ROW_HEIGHT + 30)
        self.view.setAlternatingRowColors(False)
        if not read_only:
            self.view.setToolTip("Type to replace a value; Tab moves right, Enter down. "
                                 "Ctrl+C / Ctrl+V copy and paste cells as text, Delete sets "
                                 "them to 0.")

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.heatmap = QLabel(self)
        self.heatmap.setAlignment(Qt.AlignLeft)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.hide()

        self.shape_label = QLabel(self)
        self.shape_label.setStyleSheet("color: palette(placeholder-text);")
        self.random_button = self._tool("Random…", "Fill with reproducible random numbers",
                                        self.random_dialog)
        self.paste_button = self._tool("Paste", "Replace the values with numpy or CSV text "
                                       "from the clipboard", self.paste)
        self.copy_button = self._tool("Copy", "Copy the values as numpy text", self.copy)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(2)
        bar.addWidget(self.shape_label)
        bar.addStretch(1)
        for b in (self.random_button, self.paste_button, self.copy_button):
            bar.addWidget(b)
        self._bar = QWidget(self)
        self._bar.setLayout(bar)
        if read_only:
            self.random_button.hide()
            self.paste_button.hide()
        if not tools:
            self._bar.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self._bar)
        layout.addWidget(self.view)
        layout.addWidget(self.summary)
        layout.addWidget(self.heatmap)
        layout.addWidget(self.status)

    def _tool(self, text, tip, slot):
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        b.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Fixed)   # its text whole, never cut
        b.clicked.connect(slot)
        return b

    # -- state ---------------------------------------------------------------------------
    @property
    def read_only(self):
        return self.model.read_only

    def array(self):
        return self._array.copy()

    def set_array(self, array, keep_message=False):
        """Show `array` (no signal). Unchanged values leave the grid and its editor alone;
        new values of the same shape update the cells in place."""
        array = np.array(array)
        if (array.shape == self._array.shape and array.dtype == self._array.dtype
                and np.array_equal(array, self._array, equal_nan=array.dtype.kind == "f")):
            return
        self._array = array
        gridded = self.gridded(array)
        self.view.setVisible(gridded)
        self.summary.setVisible(not gridded)
        self.heatmap.setVisible(not gridded)
        if gridded:
            self.model.set_array(array)
            self._fit_view()
        else:
            self.model.set_array(np.zeros((0,), array.dtype))
            self.summary.setText(self._summary_text(array))
            self.heatmap.setPixmap(_heatmap(array))
        factor = f"   cells {self.model.factor}" if gridded and self.model.factor else ""
        self.shape_label.setText(f"{dims(array.shape)}  {array.dtype.name}{factor}")
        if not keep_message:
            self._flag_nonfinite()

    @staticmethod
    def gridded(array):
        return array.ndim <= 2 and all(n <= MAX_GRID for n in array.shape) and array.size > 0

    def _fit_view(self):
        rows, cols = self.model.rowCount(), self.model.columnCount()
        self.view.verticalHeader().setVisible(self._array.ndim == 2)
        self.view.horizontalHeader().setVisible(self._array.ndim >= 1)
        columns = self.view.horizontalHeader()
        columns.setSectionResizeMode(QHeaderView.Stretch if cols <= 5 else QHeaderView.Fixed)
        # never narrower than its widest number: a value is never cut ("-0.1321…")
        columns.setMinimumSectionSize(self.column_width())
        self.fit_columns()
        header = columns.sizeHint().height() if self._array.ndim >= 1 else 0
        h = header + min(rows, VISIBLE_ROWS) * ROW_HEIGHT + 2 * self.view.frameWidth()
        if cols > 5 or cols * columns.minimumSectionSize() > self.view.viewport().width():
            h += self.view.horizontalScrollBar().sizeHint().height()
        self.view.setFixedHeight(h)

    def fit_columns(self):
        """More than five columns: each as wide as the widest number, and where they are wider
        than the grid, whole columns only (whole_columns): at 1280 x 800 a 7 x 8 value showed
        its column 5 in part, a number cut to another."""
        cols = self.model.columnCount()
        if cols > 5:
            whole_columns(self.view, [self.column_width()] * cols)

    def column_width(self):
        """The width every column needs for the widest of the numbers it shows."""
        metrics = self.view.fontMetrics()
        widest = max([metrics.horizontalAdvance(t) for t in self.model.texts()] + [0])
        return max(36, widest + CELL_MARGIN)

    def _summary_text(self, a):
        if a.size == 0:
            return f"shape {list(a.shape)}: no values"
        f = a.astype(np.float64)
        finite = f[np.isfinite(f)]
        parts = [f"shape {list(a.shape)} ({a.size} values): too large to edit cell by cell; "
                 "paste or fill it as a whole."]
        if finite.size:
            low, high, mean = finite.min(), finite.max(), finite.mean()
            number = line_format(low, high, mean)     # as a study's line writes them
            parts.append(f"min {number(low)}, max {number(high)}, mean {number(mean)}")
        if finite.size < f.size:
            bad = f.size - finite.size
            parts.append(f"{counted(bad, 'entry', 'entries')} {'is' if bad == 1 else 'are'} nan or inf")
        return "\n".join(parts)

    # -- messages ------------------------------------------------------------------------
    def show_message(self, text, level="error"):
        """An inline message under the grid (level 'error', 'warning'; empty text hides)."""
        self.status.setText(text)
        self.status.setStyleSheet(ERROR_STYLE if level == "error" else WARN_STYLE)
        self.status.setVisible(bool(text))
        if text:
            self.message.emit(text)

    def message_text(self):
        return self.status.text() if self.status.isVisibleTo(self) else ""

    def _flag_nonfinite(self):
        a = self._array
        if a.dtype.kind == "f" and a.size and not np.all(np.isfinite(a)):
            n = int(np.sum(~np.isfinite(a)))
            self.show_message(f"{n} {'entry is' if n == 1 else 'entries are'} nan or inf: "
                              "the graph still runs, and it spreads to what it reaches", "warning")
        else:
            self.show_message("")

    def _ask(self, text):
        answer = QMessageBox.question(self, "Change the shape?", text,
                                      QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        return answer == QMessageBox.Yes

    # -- edits ---------------------------------------------------------------------------
    def _commit(self, new, row=None, col=None):
        """Show `new` and emit it as one edit (one cell changed when row/col are given)."""
        if new.shape == self._array.shape and np.array_equal(new, self._array, equal_nan=True):
            return True
        if row is None or new.shape != self._array.shape:
            self.set_array(new)
        else:
            self._array = new
            self.model.set_cell(row, col, new)
            self.view.horizontalHeader().setMinimumSectionSize(self.column_width())
            self.fit_columns()
            self._flag_nonfinite()
        self.valueEdited.emit(new.copy())
        return True

    def _cell_edited(self, row, col, text, where):
        if not text.strip():  # an editor left empty: the value stays as it was
            return False
        try:
            v = parse_number(text)
            new = self._array.copy()
            as_grid(new)[row, col] = cast_to(np.array(v), new.dtype)
        except TensorTextError as e:
            self.show_message(f"{where}: {e}; the value was not changed")
            return False
        return self._commit(new, row, col)

    def set_text(self, text):
        """Replace the whole tensor with parsed text; False (and a message) when refused.
        A different shape is asked about first (and refused when the shape is fixed)."""
        if self.read_only:
            return False
        try:
            values = parse_tensor_text(text)
            if values.shape != self._array.shape:
                values = self._reshaped(values)
                if values is None:
                    return False
            new = cast_to(values, self._array.dtype)
        except TensorTextError as e:
            self.show_message(f"Paste refused: {e}. Nothing was changed.")
            return False
        return self._commit(new)

    def _reshaped(self, values):
        """`values` for a tensor of another shape: the same count of values in a fixed shape
        is reshaped; otherwise the user agrees to the new shape (None when not)."""
        old = self._array.shape
        if self.fixed_shape:
            if values.size == self._array.size:
                return values.reshape(old)
            raise TensorTextError(
                f"the pasted values have shape {list(values.shape)} ({counted(values.size, 'value')}), "
                f"this tensor needs shape {list(old)} ({counted(self._array.size, 'value')})")
        if not self.confirm(
                f"The pasted values are {dims(values.shape)}; this tensor is "
                f"{dims(old)}. Change its shape to {dims(values.shape)}?\n\n"
                "Nodes that use it may stop working until they are changed too."):
            self.show_message("Paste cancelled: nothing was changed.", "warning")
            return None
        return values

    def paste(self):
        """The Paste button: the clipboard's text replaces the whole tensor."""
        return self.set_text(QApplication.clipboard().text())

    def copy(self):
        """The Copy button: the whole tensor as numpy text."""
        QApplication.clipboard().setText(tensor_text(self._array))

    # -- the selected cells (Ctrl+C, Ctrl+V, Delete in the grid) ----------------------------
    def copy_cells(self):
        block = self.view.block()
        if block is None:
            return self.copy()
        r0, c0, r1, c1 = block
        QApplication.clipboard().setText(cells_text(as_grid(self._array)[r0:r1, c0:c1]))
        return True

    def paste_cells(self, text=None):
        """Paste text into the selection: one value fills it, a block of its size fills it,
        a block pasted on one cell fills from there; a block of the tensor's shape replaces
        it; any other shape is a new shape for the whole tensor (asked first)."""
        if self.read_only:
            return False
        text = QApplication.clipboard().text() if text is None else text
        block = self.view.block()
        try:
            values = parse_tensor_text(text)
        except TensorTextError as e:
            self.show_message(f"Paste refused: {e}. Nothing was changed.")
            return False
        pasted = as_grid(values)
        grid_shape = as_grid(self._array).shape
        whole = values.shape == self._array.shape or (pasted is not None
                                                       and pasted.shape == grid_shape)
        if whole:
            return self._paste_block(values, (0, 0) + grid_shape)
        if block is None or pasted is None:
            return self.set_text(text)
        r0, c0, r1, c1 = block
        if values.size == 1:
            return self._paste_block(np.full((r1 - r0, c1 - c0), values.item()), block)
        h, w = pasted.shape
        if (h, w) == (r1 - r0, c1 - c0) or ((r1 - r0, c1 - c0) == (1, 1) and r0 + h <= grid_shape[0]
                                            and c0 + w <= grid_shape[1]):
            return self._paste_block(pasted, (r0, c0, r0 + h, c0 + w))
        return self.set_text(text)

    def _paste_block(self, values, block):
        r0, c0, r1, c1 = block
        new = self._array.copy()
        try:
            as_grid(new)[r0:r1, c0:c1] = cast_to(np.asarray(values).reshape(r1 - r0, c1 - c0),
                                                 new.dtype)
        except TensorTextError as e:
            self.show_message(f"Paste refused: {e}. Nothing was changed.")
            return False
        return self._commit(new)

    def clear_cells(self):
        """Delete: the selected cells become 0."""
        block = self.view.block()
        if self.read_only or block is None:
            return False
        r0, c0, r1, c1 = block
        return self._paste_block(np.zeros((r1 - r0, c1 - c0)), block)

    def random_fill(self, distribution="normal", seed=None, a=0.0, b=1.0):
        """Fill every entry from `distribution` with `seed` (same seed, same numbers; None: a
        fresh one, so two tensors filled one after the other never hold the same numbers).
        The numbers are the tensor's value from then on, saved with the document."""
        if self.read_only or self._array.size == 0:
            return False
        self.random_settings = dict(distribution=distribution, seed=seed, a=a, b=b)
        seed = fresh_seed() if seed is None else seed
        values = random_values(self._array.shape, distribution, seed, a, b)
        if self._array.dtype.kind in "iu":
            values = np.round(values)
        elif self._array.dtype.kind == "b":
            values = values > np.median(values)
        return self._commit(values.astype(self._array.dtype))

    def random_dialog(self):
        name, keep = self.subject()
        chosen = self.random_settings["seed"]       # the user's, or None
        proposed = fresh_seed() if chosen is None else chosen
        dialog = RandomFillDialog(self, **{**self.random_settings, "seed": proposed}, name=name)
        dialog.adjustSize()
        button = self.random_button
        dialog.move(clear_spot(dialog.frameGeometry().size(),
                               QRect(button.mapToGlobal(QPoint(0, 0)), button.size()),
                               QRect(self.mapToGlobal(QPoint(0, 0)), self.size()),
                               keep, self.screen().availableGeometry()
                               | self.window().frameGeometry()))
        if dialog.exec() == QDialog.Accepted:
            settings = dialog.settings()
            self.random_fill(**settings)
            # a seed the user typed is kept for the next fill; a proposed one is not
            self.random_settings["seed"] = (settings["seed"] if chosen is not None
                                            or settings["seed"] != proposed else None)


_SEEDS = np.random.default_rng()     # seeded from the OS: proposals differ between sessions


def fresh_seed():
    """A seed the Random fill proposes where the user has chosen none."""
    return int(_SEEDS.integers(2**31 - 1))


def clear_spot(size, button, column, keep, room, gap=4):
    """The top-left corner (global) of a dialog of `size` opened from `button` in the
    inspector's `column`: below the button, else above it, right-aligned with the column,
    else beside the column (left, then right); the first such place in the `room` (the
    screen, and the window where it is larger) that covers none of the rectangles `keep` (most important first: the node's card, the
    canvas), else the one covering least of the first. Centred on the window, the Random
    fill covered the cards."""
    right = column.right() + 1 - size.width()
    spots = [QPoint(right, button.bottom() + 1 + gap),
             QPoint(right, button.top() - gap - size.height()),
             QPoint(column.left() - gap - size.width(), button.top()),
             QPoint(column.right() + 1 + gap, button.top())]

    def on_screen(at):
        x = max(room.left(), min(at.x(), room.right() + 1 - size.width()))
        y = max(room.top(), min(at.y(), room.bottom() + 1 - size.height()))
        return QPoint(x, y)

    def covered(at):
        overlaps = (QRect(at, size).intersected(rect) for rect in keep)
        return [0 if o.isEmpty() else o.width() * o.height() for o in overlaps]
    return min((on_screen(at) for at in spots), key=covered)   # the first of equals


def _heatmap(array, width=240, height=96):
    """The tensor as a small diverging heatmap (rank >2 flattened to rows × last axis).
    Only the rows and columns the picture has room for are coloured (a 1000 x 1000
    gradient coloured a million cells for 240 x 96 pixels: 0.4 s of opening it); the
    colour scale is the whole tensor's."""
    a = np.asarray(array)
    if a.size == 0:
        return QPixmap()
    a = a if a.dtype.kind == "f" else a.astype(np.float64)
    grid = a.reshape(1, 1) if a.ndim == 0 else a.reshape(1, -1) if a.ndim == 1 \
        else a.reshape(-1, a.shape[-1])
    finite = np.isfinite(grid)
    every = finite.all()
    scale = float(np.max(np.abs(grid))) if every else \
        float(np.max(np.abs(grid[finite]))) if finite.any() else 1.0
    grid = grid[np.ix_(_spread(grid.shape[0], height), _spread(grid.shape[1], width))]
    grid = grid.astype(np.float64)
    finite = np.isfinite(grid)
    t = np.where(finite, grid / (scale or 1.0), 0.0)
    rgb = np.empty(grid.shape + (3,), np.uint8)
    pos, neg = np.clip(t, 0, 1), np.clip(-t, 0, 1)
    rgb[..., 0] = 255 - 155 * neg
    rgb[..., 1] = 255 - 150 * (pos + neg)
    rgb[..., 2] = 255 - 155 * pos
    rgb[~finite] = (255, 170, 0)
    rgb = np.ascontiguousarray(rgb)
    h, w = grid.shape
    image = QImage(rgb.data, w, h, 3 * w, QImage.Format_RGB888).copy()
    return QPixmap.fromImage(image).scaled(width, height, Qt.IgnoreAspectRatio,
                                           Qt.FastTransformation)


def _spread(count, room):
    """The indices of `count` rows (or columns) a picture `room` pixels long shows: all
    of them when they fit, else `room` of them evenly spread, first and last included."""
    if count <= room:
        return np.arange(count)
    return np.round(np.linspace(0, count - 1, room)).astype(np.int64)
