"""A small grid for editing one tensor: typing, random fill, paste and copy as numpy text.

Tensors of rank 0..2 with at most MAX_GRID entries per axis are edited cell by cell;
larger ones show their shape, a summary and a heatmap, and can still be replaced as a
whole (paste, random fill). Pasted text is parsed here (never evaluated), and every
refusal says what is wrong in words; a refused edit changes nothing.
"""
import re
import sys

import numpy as np

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QComboBox, QDialog,
                               QDialogButtonBox, QDoubleSpinBox, QFormLayout, QHBoxLayout,
                               QHeaderView, QLabel, QSizePolicy, QSpinBox, QTableView,
                               QToolButton, QVBoxLayout, QWidget)

MAX_GRID = 20
WARN = QColor(255, 214, 153)
ERROR_STYLE = "color: #c62828;"
WARN_STYLE = "color: #a15c00;"


class TensorTextError(ValueError):
    """Pasted text that is not a tensor; the message says where and why."""


# -- parsing ----------------------------------------------------------------------------------
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|infinity)",
                     re.IGNORECASE)
_TOKEN = re.compile(r"\s*(\[|\]|,|[^\s\[\],]+)")
_WRAPPER = re.compile(r"^\s*(?:array|tf\.Tensor|np\.array|numpy\.array)\s*\((.*)\)\s*$", re.S)
_TRAILER = re.compile(r",\s*(?:shape\s*=\s*\([^)]*\)\s*,?\s*)?(?:dtype\s*=\s*[\w.]+)?\s*$")


def parse_number(text):
    """A float from cell or paste text: decimal, scientific, nan, inf, True/False."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return 1.0 if low == "true" else 0.0
    if not _NUMBER.fullmatch(t):
        raise TensorTextError(f"'{t[:30]}' is not a number")
    return float(t)


def parse_tensor_text(text):
    """An ndarray (float64) from numpy/TF repr text, a nested list, or CSV/TSV rows."""
    text = text.strip()
    if not text:
        raise TensorTextError("the text is empty")
    if "..." in text or "…" in text:
        raise TensorTextError("the text is abbreviated with '...'; print the whole array "
                              "(np.set_printoptions(threshold=sys.maxsize)) and copy again")
    if "numpy=" in text:  # <tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([...])>
        text = text.split("numpy=", 1)[1].rstrip().rstrip(">")
    m = _WRAPPER.match(text)
    if m:
        text = _TRAILER.sub("", m.group(1)).strip()
    if "[" in text or "]" in text:
        return _parse_nested(text)
    return _parse_rows(text)


def _parse_nested(text):
    tokens = _TOKEN.findall(text)
    pos = 0

    def item(depth):
        nonlocal pos
        if pos >= len(tokens):
            raise TensorTextError("the text ends early: a ']' is missing")
        tok = tokens[pos]
        if tok == "[":
            pos += 1
            items = []
            while True:
                if pos >= len(tokens):
                    raise TensorTextError("the text ends early: a ']' is missing")
                if tokens[pos] == "]":
                    pos += 1
                    return items
                if tokens[pos] == ",":
                    pos += 1
                    continue
                items.append(item(depth + 1))
        if tok == "]":
            raise TensorTextError("there is a ']' without a matching '['")
        pos += 1
        return parse_number(tok)

    value = item(0)
    if pos < len(tokens):
        rest = "".join(tokens[pos:])[:30]
        raise TensorTextError(f"unexpected text after the array: '{rest}'")
    return np.array(_regular(value, ()), dtype=np.float64)


def _regular(value, where):
    """Check a nested list is rectangular; name the first row that is not."""
    if not isinstance(value, list):
        return value
    if not value:
        if where:
            raise TensorTextError(f"row {_where(where)} is empty")
        raise TensorTextError("the array is empty")
    kinds = {isinstance(v, list) for v in value}
    if len(kinds) > 1:
        raise TensorTextError(f"{'row ' + _where(where) if where else 'the array'} mixes "
                              "numbers and lists")
    if True in kinds:
        lengths = [_depth_len(v) for v in value]
        for i, n in enumerate(lengths):
            if n != lengths[0]:
                raise TensorTextError(f"row {_where(where + (i,))} has {n[1]} values, expected "
                                      f"{lengths[0][1]}" if n[0] == lengths[0][0] else
                                      f"row {_where(where + (i,))} is nested differently")
        return [_regular(v, where + (i,)) for i, v in enumerate(value)]
    return value


def _depth_len(v):
    depth = 0
    x = v
    while isinstance(x, list) and x:
        depth += 1
        x = x[0]
    return depth, len(v)


def _where(where):
    return ", ".join(str(i + 1) for i in where)


def _parse_rows(text):
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" in line:
            cells = line.split("\t")
        elif "," in line:
            cells = line.split(",")
        elif ";" in line:
            cells = line.split(";")
        else:
            cells = line.split()
        cells = [c for c in (c.strip() for c in cells)]
        if cells and cells[-1] == "":  # a trailing separator
            cells.pop()
        rows.append(cells)
    if not rows:
        raise TensorTextError("the text is empty")
    values = []
    for r, cells in enumerate(rows, 1):
        if len(cells) != len(rows[0]):
            raise TensorTextError(f"row {r} has {len(cells)} values, expected {len(rows[0])}")
        row = []
        for c, cell in enumerate(cells, 1):
            try:
                row.append(parse_number(cell))
            except TensorTextError as e:
                where = f"row {r}, column {c}" if len(rows) > 1 else f"value {c}"
                raise TensorTextError(f"{where}: {e}") from None
        values.append(row)
    array = np.array(values, dtype=np.float64)
    if array.shape[0] == 1:
        array = array[0]
        if array.shape[0] == 1 and len(rows[0]) == 1 and "," not in text and "\t" not in text:
            array = array[0]  # a lone number is a scalar
    return array


def tensor_text(array):
    """numpy repr text that reads back to exactly the same values (and parses above)."""
    array = np.asarray(array)
    with np.printoptions(threshold=sys.maxsize, floatmode="unique", linewidth=100):
        return repr(array)


def shape_text(shape):
    return "scalar" if len(shape) == 0 else "×".join(str(n) for n in shape)


def cast_to(values, dtype):
    """`values` as `dtype`, refusing what would silently change (fractions into ints, nan)."""
    dtype = np.dtype(dtype)
    values = np.asarray(values, dtype=np.float64)
    if dtype.kind in "iub":
        if not np.all(np.isfinite(values)):
            raise TensorTextError(f"a {dtype.name} tensor cannot hold nan or inf")
        if np.any(values != np.round(values)):
            raise TensorTextError(f"a {dtype.name} tensor holds whole numbers only")
        if dtype.kind == "b":
            return values != 0
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.astype(dtype)
    if dtype.kind == "f" and np.any(np.isinf(out) & np.isfinite(values)):
        raise TensorTextError(f"a value is too large for {dtype.name}")
    return out


def format_value(v, dtype):
    if dtype.kind == "b":
        return "True" if v else "False"
    if dtype.kind in "iu":
        return str(int(v))
    return f"{float(v):.6g}"


# -- the model --------------------------------------------------------------------------------
class TensorModel(QAbstractTableModel):
    """A 0-d, 1-d (one row) or 2-d array as a table; edits go through `edited`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._array = np.zeros((0,), np.float32)
        self.read_only = False
        self.on_edit = None  # callable(new_array, row, col, value) -> bool

    def set_array(self, array):
        self.beginResetModel()
        self._array = np.array(array)
        self.endResetModel()

    def array(self):
        return self._array

    def _grid(self):
        a = self._array
        return a.reshape(1, 1) if a.ndim == 0 else a.reshape(1, -1) if a.ndim == 1 else a

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
            return format_value(v, dtype)
        if role == Qt.EditRole:
            return str(v.item()) if dtype.kind != "f" else repr(float(dtype.type(v)))
        if role == Qt.ToolTipRole:
            where = self._where(index)
            return f"{where} = {v.item()!r}"
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.BackgroundRole and dtype.kind == "f" and not np.isfinite(v):
            return QBrush(WARN)
        return None

    def _where(self, index):
        nd = self._array.ndim
        if nd == 0:
            return "value"
        if nd == 1:
            return f"[{index.column()}]"
        return f"[{index.row()}, {index.column()}]"

    def setData(self, index, value, role=Qt.EditRole):
        if role != Qt.EditRole or not index.isValid() or self.read_only:
            return False
        if self.on_edit is None:
            return False
        return bool(self.on_edit(index.row(), index.column(), str(value), self._where(index)))


# -- dialogs ----------------------------------------------------------------------------------
class RandomFillDialog(QDialog):
    """Distribution, its two parameters and a seed: the same seed gives the same numbers."""

    def __init__(self, parent=None, distribution="normal", seed=0, a=0.0, b=1.0):
        super().__init__(parent)
        self.setWindowTitle("Random fill")
        form = QFormLayout(self)
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


def random_values(shape, distribution="normal", seed=0, a=0.0, b=1.0):
    """Reproducible numbers: numpy's PCG64 generator seeded with `seed`."""
    rng = np.random.default_rng(seed)
    if distribution == "uniform":
        return rng.uniform(a, b, size=shape)
    return rng.normal(a, b, size=shape)


# -- the widget -------------------------------------------------------------------------------
class TensorEditor(QWidget):
    """Edit one tensor. `valueEdited(ndarray)` is emitted once per committed edit.

    `fixed_shape`: a paste must keep the current shape (layer weights, output_gradients);
    otherwise a paste may bring a new shape. `set_array` never emits.
    """

    valueEdited = Signal(object)
    message = Signal(str)

    def __init__(self, parent=None, read_only=False, fixed_shape=False, tools=True):
        super().__init__(parent)
        self.fixed_shape = fixed_shape
        self.random_settings = dict(distribution="normal", seed=0, a=0.0, b=1.0)
        self._array = np.zeros((0,), np.float32)

        self.model = TensorModel(self)
        self.model.read_only = read_only
        self.model.on_edit = self._cell_edited
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                                  | QAbstractItemView.AnyKeyPressed)
        self.view.setSelectionMode(QAbstractItemView.ContiguousSelection)
        h = self.view.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.Interactive)
        h.setDefaultSectionSize(68)
        h.setMinimumSectionSize(36)
        v = self.view.verticalHeader()
        v.setDefaultSectionSize(22)
        v.setSectionResizeMode(QHeaderView.Fixed)
        self.view.setSizeAdjustPolicy(QAbstractItemView.AdjustToContents)
        self.view.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Maximum)
        self.view.setMaximumHeight(10 * 22 + 30)
        self.view.setAlternatingRowColors(False)

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.heatmap = QLabel(self)
        self.heatmap.setAlignment(Qt.AlignLeft)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.hide()

        self.shape_label = QLabel(self)
        self.shape_label.setStyleSheet("color: palette(mid);")
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
        b.clicked.connect(slot)
        return b

    # -- state ---------------------------------------------------------------------------
    @property
    def read_only(self):
        return self.model.read_only

    def array(self):
        return self._array.copy()

    def set_array(self, array, keep_message=False):
        """Show `array` (no signal). Unchanged values leave the grid and its editor alone."""
        array = np.array(array)
        if (array.shape == self._array.shape and array.dtype == self._array.dtype
                and np.array_equal(array, self._array, equal_nan=array.dtype.kind == "f")):
            return
        self._array = array
        gridded = self.gridded(array)
        self.view.setVisible(gridded)
        self.summary.setVisible(not gridded)
        self.heatmap.setVisible(not gridded)
        self.shape_label.setText(f"{shape_text(array.shape)}  {array.dtype.name}")
        if gridded:
            self.model.set_array(array)
            self._fit_view()
        else:
            self.model.set_array(np.zeros((0,), array.dtype))
            self.summary.setText(self._summary_text(array))
            self.heatmap.setPixmap(_heatmap(array))
        if not keep_message:
            self._flag_nonfinite()

    @staticmethod
    def gridded(array):
        return array.ndim <= 2 and all(n <= MAX_GRID for n in array.shape) and array.size > 0

    def _fit_view(self):
        rows = self.model.rowCount()
        h = self.view.horizontalHeader().height() + rows * 22 + 2 * self.view.frameWidth()
        if self.view.horizontalScrollBar().isVisible() or self.model.columnCount() > 4:
            h += self.view.horizontalScrollBar().sizeHint().height()
        self.view.setMinimumHeight(min(h, 10 * 22 + 30))
        self.view.setMaximumHeight(min(h, 10 * 22 + 30) if rows <= 10 else 10 * 22 + 30)
        cols = self.model.columnCount()
        self.view.horizontalHeader().setSectionResizeMode(
            QHeaderView.Stretch if cols <= 5 else QHeaderView.ResizeToContents)
        self.view.verticalHeader().setVisible(self._array.ndim == 2)
        self.view.horizontalHeader().setVisible(self._array.ndim >= 1)

    def _summary_text(self, a):
        if a.size == 0:
            return f"shape {list(a.shape)}: no values"
        f = a.astype(np.float64)
        finite = f[np.isfinite(f)]
        parts = [f"shape {list(a.shape)} ({a.size} values): too large to edit cell by cell; "
                 "paste or fill it as a whole."]
        if finite.size:
            parts.append(f"min {finite.min():.4g}, max {finite.max():.4g}, "
                         f"mean {finite.mean():.4g}")
        if finite.size < f.size:
            parts.append(f"{f.size - finite.size} entries are nan or inf")
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
                              "the engine will flag the nodes it reaches", "warning")
        else:
            self.show_message("")

    # -- edits ---------------------------------------------------------------------------
    def _cell_edited(self, row, col, text, where):
        try:
            v = parse_number(text)
            new = self._array.copy()
            grid = new.reshape(1, 1) if new.ndim == 0 else new.reshape(1, -1) if new.ndim == 1 \
                else new
            grid[row, col] = cast_to(np.array(v), new.dtype)
        except TensorTextError as e:
            self.show_message(f"{where}: {e}; the value was not changed")
            return False
        if np.array_equal(new, self._array, equal_nan=True):
            return True
        self._array = new
        self.model.set_array(new)
        self._flag_nonfinite()
        self.valueEdited.emit(new.copy())
        return True

    def set_text(self, text):
        """Replace the values with parsed text; False (and a message) when refused."""
        if self.read_only:
            return False
        try:
            values = parse_tensor_text(text)
            if self.fixed_shape and values.shape != self._array.shape:
                if values.size == self._array.size:
                    values = values.reshape(self._array.shape)
                else:
                    raise TensorTextError(
                        f"the pasted values have shape {list(values.shape)} ({values.size} "
                        f"values), this tensor needs shape {list(self._array.shape)} "
                        f"({self._array.size} values)")
            new = cast_to(values, self._array.dtype)
        except TensorTextError as e:
            self.show_message(f"Paste refused: {e}. Nothing was changed.")
            return False
        self._array = np.zeros((0,), new.dtype)  # force a refresh
        self.set_array(new)
        self.valueEdited.emit(new.copy())
        return True

    def paste(self):
        return self.set_text(QApplication.clipboard().text())

    def copy(self):
        QApplication.clipboard().setText(tensor_text(self._array))

    def random_fill(self, distribution="normal", seed=0, a=0.0, b=1.0):
        """Fill every entry from `distribution` with `seed` (same seed, same numbers)."""
        if self.read_only or self._array.size == 0:
            return False
        self.random_settings = dict(distribution=distribution, seed=seed, a=a, b=b)
        values = random_values(self._array.shape, distribution, seed, a, b)
        if self._array.dtype.kind in "iu":
            values = np.round(values)
        elif self._array.dtype.kind == "b":
            values = values > np.median(values)
        new = values.astype(self._array.dtype)
        self._array = np.zeros((0,), new.dtype)
        self.set_array(new)
        self.valueEdited.emit(new.copy())
        return True

    def random_dialog(self):
        dialog = RandomFillDialog(self, **self.random_settings)
        if dialog.exec() == QDialog.Accepted:
            settings = dialog.settings()
            self.random_fill(**settings)
            self.random_settings["seed"] = settings["seed"]


def _heatmap(array, width=240, height=96):
    """The tensor as a small diverging heatmap (rank >2 flattened to rows × last axis)."""
    a = np.asarray(array, dtype=np.float64)
    if a.size == 0:
        return QPixmap()
    grid = a.reshape(1, 1) if a.ndim == 0 else a.reshape(1, -1) if a.ndim == 1 \
        else a.reshape(-1, a.shape[-1])
    finite = np.isfinite(grid)
    scale = np.max(np.abs(grid[finite])) if finite.any() else 1.0
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
