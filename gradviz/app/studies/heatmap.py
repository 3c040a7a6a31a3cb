"""A matrix as a zero-centred heatmap: blue for negative, white for zero, red for positive.

The colour map is ColorBrewer's RdBu, which stays readable in greyscale print (the
ends are dark, zero is white) and for red-green colour blindness. Rows run top to
bottom and columns left to right, as a printed matrix, with integer ticks on the
flattened indices; hovering reads out (row, col, value). A square matrix has square
cells (any matrix where asked: the batch Jacobian's patch image). A vector, or a square
matrix that is zero off its diagonal, is drawn as a line plot of its entries instead: a
bell curve reads as a curve, not as a 1-pixel stripe.
An entry that is NaN or infinite is black, a colour no number has, and the caption's
colour key says so; the gutters a patch image leaves between its patches are grey.
"""
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from ...engine.errors import counted
from ...story.numbers import alone
from ..kept_state import unchanged
from . import plot_colours
from .plot_style import (DIVERGING, FONT_PT, LABEL_OVERHANG, IndexAxis, diverging_colormap, forms,
                         relabel, sequential_colormap, style_plot, text_width)

PATCH_GAP = "#b4b4b4"      # the gutter between patches (NaN pixels show the background)
NOT_FINITE = (0, 0, 0, 255)   # an entry that is NaN or infinite: black, a colour no number has
LINE = DIVERGING[-2]       # the line plot of a vector or a diagonal


def symmetric_limit(matrix):
    """The colour range ±lim: the largest finite |value|, never 0."""
    finite = np.abs(matrix[np.isfinite(matrix)]) if matrix.size else np.zeros(0)
    lim = float(finite.max()) if finite.size else 0.0
    return lim if lim > 0 else 1.0


def line_values(m):
    """(kind, entries) when the 2-D `m` reads better as a line plot: ("vector", m flat) for
    a row or a column of more than one entry, ("diagonal", diag(m)) for a square matrix
    whose every off-diagonal entry is 0; None for a matrix to draw as a heatmap."""
    rows, cols = m.shape
    if m.size > 1 and min(rows, cols) == 1:
        return "vector", m.reshape(-1)
    if rows == cols > 1:
        off = m[~np.eye(rows, dtype=bool)]
        if off.size and not np.any(off) and np.isfinite(off).all():
            return "diagonal", np.diagonal(m).copy()
    return None


MARGINS = (2, 6, 2, 2)     # px around the plot and its colour bar


class Readout(QLabel):
    """The hover readout below a heatmap: the longest of its forms (`say`) that its width
    holds on one line, chosen again as it is resized; where none does, the shortest
    wrapped to the lines it needs. Never cut: at 1280 x 800 the Hessian's '∂²loss /
    ∂layer1.kernel[1, 2] ∂layer1.kernel[1, 4] = -1.382×10⁻² (row 10, col 12)' ran 485 px
    in its 328 px column, and at 1920 x 1080 in its 275 px one. Its text never widens the
    heatmap."""

    def __init__(self):
        super().__init__(" ")
        self.forms = (" ",)
        self.setTextFormat(Qt.TextFormat.RichText)   # the views escape the names
        self.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.setMinimumHeight(self.fontMetrics().height() + 4)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def say(self, forms):
        self.forms = tuple(forms) or (" ",)
        self._fit()

    def setText(self, text):
        self.say((text,))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit()

    def _fit(self):
        room = self.contentsRect().width()
        text = next((t for t in self.forms if text_width(self.font(), t) <= room), None)
        self.setWordWrap(text is None)
        text = self.forms[-1] if text is None else text
        if text != self.text():
            super().setText(text)


class Heatmap(QWidget):
    """A matrix shown with a symmetric (zero-centred) diverging colour bar.

    `set_matrix(m, ...)` takes any 2-D array; `matrix` is what is displayed and
    `levels` the colour range (-lim, lim).
    """

    hovered = Signal(int, int, float)
    refit = Signal()       # the width the plot needs changed: its splitter sizes it again

    def __init__(self, row_label="row", col_label="column", parent=None, colorbar_label="value",
                 lines=True, square_cells=False):
        super().__init__(parent)
        self.lines = lines           # False: always a heatmap (the pattern is the point)
        self.square_cells = square_cells   # True: square cells whatever the matrix's shape
        self.mode = "heatmap"        # or "vector" / "diagonal": the line plot is shown
        self._defaults = (row_label, col_label, colorbar_label)
        self.matrix = np.zeros((0, 0))
        self.levels = (-1.0, 1.0)
        self.row_shape = self.col_shape = None
        self._names = ("", "")
        self._nonnegative = False
        # optional (row, col) -> the readout's text, or its forms longest first (Readout)
        self.describe = None
        self._said = None        # (what the readout's words were for, by identity; ... by value): _say
        self.graphics = pg.GraphicsLayoutWidget()
        self.plot = self.graphics.addPlot(axisItems={"left": IndexAxis("left"),
                                                     "bottom": IndexAxis("bottom"),
                                                     "top": IndexAxis("top")})
        self.plot.invertY(True)
        self.plot.setAspectLocked(False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        # Read, not explored (as still_plot): the wheel zoomed a 7 x 7 grid to a dot that no
        # button or menu could bring back.
        self.plot.setMouseEnabled(False, False)
        self.plot.showAxis("top")
        self.plot.getAxis("top").setStyle(showValues=False)
        self.plot.getAxis("top").setHeight(1)         # a frame's edge, not a row of room
        self.graphics.ci.setContentsMargins(*MARGINS)   # the plot, not a border, gets the room
        self._slack = (0, 0)         # px beside (and below) a square-celled image's box, not in it
        style_plot(self.plot)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.marks = pg.ImageItem(axisOrder="row-major")   # the entries NaN or infinite, black
        self.marks.setZValue(1)
        self.plot.addItem(self.marks)
        self.not_finite = np.zeros((0, 0), bool)
        self.entries = 0             # the matrix's entries (a patch image's gutters are none)
        self.colorbar = pg.ColorBarItem(values=self.levels, colorMap=diverging_colormap(),
                                        interactive=False, width=18)
        self.colorbar.setImageItem(self.image, insert_in=self.plot)
        style_plot(self.colorbar, FONT_PT)
        self.colorbar.axis.setTickDensity(0.6)
        self.colorbar.axis.setWidth(52)
        self.line_plot = pg.PlotWidget(axisItems={"bottom": IndexAxis("bottom")})
        self.line_plot.setMenuEnabled(False)
        self.line_plot.hideButtons()
        self.line_plot.setMouseEnabled(False, False)
        self.line_plot.showGrid(x=False, y=True, alpha=0.25)
        # room at the right for the last index label, which may reach past the axis' end
        self.line_plot.getPlotItem().setContentsMargins(2, 2, LABEL_OVERHANG + 4, 2)
        style_plot(self.line_plot.getPlotItem())
        self.line_plot.addItem(pg.InfiniteLine(0, angle=0, pen=pg.mkPen("#555555", width=1,
                                                                         style=Qt.DashLine)))
        self.curve = self.line_plot.plot([], [], pen=pg.mkPen(LINE, width=2.5))
        plot_colours.follow(self.graphics)
        plot_colours.follow(self.line_plot)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.graphics)
        self.stack.addWidget(self.line_plot)
        self.set_colorbar_label(colorbar_label)
        self.set_labels(row_label, col_label)
        self.readout = Readout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.readout)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse)
        self.plot.getViewBox().sigResized.connect(self._fit_box)
        self.line_plot.scene().sigMouseMoved.connect(self._on_line_mouse)

    def set_labels(self, row_label, col_label):
        """The axes' titles; each a text or a tuple of its forms, longest first (relabel)."""
        self._label_forms = (forms(row_label), forms(col_label))
        self._labels = (self._label_forms[0][0], self._label_forms[1][0])   # whole
        relabel(self.plot.getAxis("left"), *forms(row_label))
        relabel(self.plot.getAxis("bottom"), *forms(col_label))
        self._label_line_plot()

    def set_colorbar_label(self, text, *shorter):
        """The colour bar's title (rich text); `shorter` forms, longest first, stand in when
        the bar is too short for `text` (relabel)."""
        self._value_labels = (text, *shorter)
        relabel(self.colorbar.axis, *self._value_labels)
        self._label_line_plot()

    @property
    def _value_label(self):
        """The colour bar's title as shown."""
        return self.colorbar.axis.title_shown

    def _label_line_plot(self):
        """The line plot's axes: the index along the vector (or diagonal), and the value."""
        row_label, col_label = getattr(self, "_label_forms", (("",), ("",)))
        rows, cols = self.matrix.shape
        index = col_label if self.mode == "vector" and rows == 1 else row_label
        relabel(self.line_plot.getAxis("bottom"), *index)
        relabel(self.line_plot.getAxis("left"), *getattr(self, "_value_labels", ("",)))

    def clear(self):
        """Nothing shown: no picture, the labels it was made with, no ticks of a document
        gone (File ▸ New and a new lesson leave no stale plot behind)."""
        self.describe = None
        self.set_matrix(np.zeros((0, 0)))
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTicks(None)
        row_label, col_label, value_label = self._defaults
        self.set_colorbar_label(value_label)
        self.set_labels(row_label, col_label)
        self.readout.setText(" ")

    def set_matrix(self, matrix, row_shape=None, col_shape=None, names=("", ""), limit=None,
                   nonnegative=False, gaps=None):
        """Show `matrix` (2-D); row/col shapes let the readout unflatten indices.

        Colours run over (-lim, lim) centred on zero, or (0, lim) white to red when
        `nonnegative` (norms, sizes); an entry NaN or infinite is black. `gaps`: the cells
        (True) that are no entry but the room between patches, NaN drawn grey."""
        m = np.asarray(matrix)
        if m.ndim != 2:
            m = m.reshape(m.shape[0] if m.ndim else 1, -1)
        m = m.astype(np.float32, copy=False)
        self.matrix = m
        gaps = np.zeros(m.shape, bool) if gaps is None else np.asarray(gaps, bool).reshape(m.shape)
        self.not_finite = ~np.isfinite(m) & ~gaps
        self.entries = int(m.size - gaps.sum())
        self.setHidden(bool(self.entries) and int(self.not_finite.sum()) == self.entries)  # nothing to draw
        self.row_shape, self.col_shape, self._names = row_shape, col_shape, names
        lim = symmetric_limit(m) if limit is None else float(limit)
        self.levels = (0.0, lim) if nonnegative else (-lim, lim)
        if nonnegative != self._nonnegative:
            self._nonnegative = nonnegative
            self.colorbar.setColorMap(sequential_colormap() if nonnegative
                                      else diverging_colormap())
        rows, cols = m.shape
        line = line_values(m) if self.lines else None
        self.mode = line[0] if line else "heatmap"
        self.stack.setCurrentWidget(self.line_plot if line else self.graphics)
        if line:
            return self._show_line(*line)
        self.curve.setData([], [])
        self.plot.getViewBox().setBackgroundColor(PATCH_GAP if gaps.any() else plot_colours.background())
        if not m.size:
            self.image.clear()
            self.marks.clear()
            return
        # NaN shows what lies below (the gutters' grey); ±∞ would take an end's colour
        self.image.setImage(np.where(np.isfinite(m), m, np.nan), autoLevels=False, levels=self.levels)
        self.image.setRect(QRectF(-0.5, -0.5, cols, rows))
        if self.not_finite.any():
            marks = np.zeros((rows, cols, 4), np.uint8)
            marks[self.not_finite] = NOT_FINITE
            self.marks.setImage(marks, autoLevels=False, levels=(0, 255))
            self.marks.setRect(QRectF(-0.5, -0.5, cols, rows))
            self.marks.show()
        else:
            self.marks.hide()
        self.colorbar.setLevels(self.levels)
        square = self._square()
        self.plot.setAspectLocked(square)      # a square matrix has square cells
        for name, count in (("left", rows), ("top", cols), ("bottom", cols)):
            self.plot.getAxis(name).count = count
        if square:   # the locked view is wider (or taller) than the matrix: no limits then
            self.plot.setLimits(xMin=None, xMax=None, yMin=None, yMax=None)
        else:
            self.plot.setLimits(xMin=-0.5, xMax=cols - 0.5, yMin=-0.5, yMax=rows - 0.5)
        self.plot.setRange(xRange=(-0.5, cols - 0.5), yRange=(-0.5, rows - 0.5), padding=0)
        self._fit_box()

    def _square(self):
        """Are the cells drawn square: a square matrix's, or any matrix's with square_cells."""
        rows, cols = self.matrix.shape
        return self.mode == "heatmap" and (rows == cols or self.square_cells) and self.matrix.size > 0

    def chrome(self):
        """(width, height) of what is not the plot box: axes, colour bar, readout, margins;
        the slack a square image leaves beside its box counts as box."""
        self.graphics.resizeEvent(None)        # the scene's layout at the widget's size now
        self.graphics.ci.layout.activate()
        self.plot.layout.activate()
        box = self.plot.getViewBox()
        return (self.width() - box.width() - self._slack[0],
                self.height() - box.height() - self._slack[1])

    def _fit_box(self):
        """The plot box as the aspect of an image of square cells, whatever room the widget
        has: the room the image does not take goes beside the colour bar (or below the axis),
        not into the box, where it drew an empty (or, with a patch image's grey, a grey) band."""
        slack = (0, 0)
        if self._square():
            # the room: the widget less what stands beside the box (axes, colour bar,
            # margins); box + slack said it until the widget shrank below its slack, where
            # the layout overflowed and a box of 129 px in 250 beside 532 of slack stayed so
            rows, cols = self.matrix.shape
            box = self.plot.getViewBox().sceneBoundingRect()
            plot = self.plot.sceneBoundingRect()
            view = self.graphics.viewport()
            room_w = view.width() - box.left() - (plot.right() - box.right()) - MARGINS[2]
            room_h = view.height() - box.top() - (plot.bottom() - box.bottom()) - MARGINS[3]
            cell = min(room_w / cols, room_h / rows)
            slack = (int(room_w - cell * cols), int(room_h - cell * rows))
        if slack != self._slack:
            self._set_slack(slack)
            self.refit.emit()

    def _set_slack(self, slack):
        self._slack = slack
        left, top, right, bottom = MARGINS
        self.graphics.ci.setContentsMargins(left, top, right + slack[0], bottom + slack[1])

    def natural_width(self):
        """The width at which the cells are square at the widget's height: the plot box as
        wide as the cells need, beside it the axes and the colour bar; None for a line plot
        or no matrix."""
        if self.mode != "heatmap" or not self.matrix.size:
            return None
        rows, cols = self.matrix.shape
        chrome_w, chrome_h = self.chrome()
        return int(math.ceil(chrome_w + max(self.height() - chrome_h, 1) * cols / rows))

    def square_width(self):
        """natural_width for an image of square cells, whose box keeps its aspect; None when
        the heatmap's cells may stretch."""
        return self.natural_width() if self._square() else None

    def height_for_width(self, width):
        """The height at which the matrix's cells are square at `width` (its box as wide as
        the width leaves, as tall as the cells need)."""
        rows, cols = self.matrix.shape
        chrome_w, chrome_h = self.chrome()
        return max(width - chrome_w, 1) * rows / max(cols, 1) + chrome_h

    def colour_key(self):
        """The caption's sentence on colours (only a heatmap has them, a line plot none) and
        on the entries that are NaN or infinity (not_finite_key)."""
        black = self.not_finite_key()
        if self.mode != "heatmap" or self.isHidden():
            return f" {black[0].upper()}{black[1:]}." if black else ""
        key = (" White is zero, red positive" if self._nonnegative
               else " Blue is negative, white zero, red positive")
        return key + (f"; {black}." if black else ".")

    def not_finite_key(self):
        """What is shown of the entries that are NaN or infinity: 'black is NaN or infinity
        (3 of 16 entries)'; on a line plot, which leaves them out, '3 of 16 entries are NaN
        or infinity, not drawn'; with no entry a number, that nothing is drawn (the heatmap
        hides); '' when every entry is a number."""
        n = int(self.not_finite.sum())
        if not n:
            return ""
        if n == self.entries:
            return "every entry is NaN or infinity: there is nothing to draw"
        total = counted(self.entries, "entry", "entries")
        if self.mode != "heatmap":
            return f"{n} of {total} {'is' if n == 1 else 'are'} NaN or infinity, not drawn"
        return f"black is NaN or infinity ({n} of {total})"

    def _show_line(self, kind, values):
        n = values.size
        self.line_data = values
        kept = np.flatnonzero(np.isfinite(values))   # NaN and ±∞ left out, the line broken there
        self.curve.setData(kept, values[kept].astype(np.float64),
                           connect=np.append(np.diff(kept) == 1, False),
                           symbol="o" if n <= 40 else None, symbolSize=6,
                           symbolBrush=LINE, symbolPen=None)
        rows, cols = self.matrix.shape
        self._line_titles = ((f"the diagonal of this {rows} × {cols} matrix (every other entry is 0)",
                              f"the diagonal of this {rows} × {cols} matrix", f"diagonal of {rows} × {cols}")
                             if kind == "diagonal" else
                             (f"all {n} entries of this {rows} × {cols} matrix", f"all {n} entries ({rows} × {cols})",
                              f"{rows} × {cols}"))
        self._line_title_shown = None
        self._fit_line_title()
        self.line_plot.setXRange(-0.5, n - 0.5, padding=0.02)
        self._label_line_plot()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_line_title()

    def leaveEvent(self, event):
        """The readout names the cell under the pointer, so none once the pointer leaves:
        it stood on screen, and in Export View's picture, after the pointer had gone to
        the button."""
        super().leaveEvent(event)
        self.readout.setText(" ")

    def _fit_line_title(self):
        """The line plot's title: the longest of its forms that its width holds (a view
        stacked in a narrow column has a plot 300 px wide)."""
        forms = getattr(self, "_line_titles", ())
        if not forms:
            return
        font = QFont(self.font())
        font.setPointSizeF(FONT_PT)
        metrics = QFontMetrics(font)
        item = self.line_plot.getPlotItem()     # the title stands over the plot's box: its
        room = self.width() - (item.width() - item.getViewBox().width()) - 8   # width, not the item's
        text = next((t for t in forms if room <= 0 or metrics.horizontalAdvance(t) <= room), forms[-1])
        if text != self._line_title_shown:
            self._line_title_shown = text
            self.line_plot.setTitle(text, color=plot_colours.ink(), size=f"{FONT_PT}pt")

    def cell_text(self, row, col):
        """'J[2, 3 | 1, 4] = 0.250  (row 23, col 14)': the readout for one cell, whole."""
        return self.cell_forms(row, col)[0]

    def cell_forms(self, row, col):
        """The readout's forms for one cell, longest first, each true as written: the names
        and indices of both ends, the value and where it stands; then without where; then
        the row and column with the value (Readout shows the longest its width holds)."""
        if self.describe is not None:
            return forms(self.describe(row, col))
        value = alone(float(self.matrix[row, col]))
        where = f"row {row}, col {col}"
        left, right = self._names
        if self.row_shape is not None and self.col_shape is not None:
            r = ", ".join(map(str, np.unravel_index(row, self.row_shape))) if self.row_shape else ""
            c = ", ".join(map(str, np.unravel_index(col, self.col_shape))) if self.col_shape else ""
            named = f"d {left}[{r}] / d {right}[{c}] = {value}"
            return f"{named}    ({where})", named, f"{where}: {value}"
        return (f"{where}: {value}",)

    def _say(self, row, col):
        """The readout names the cell (`cell_forms`); a move within the cell it names already
        leaves it as it is: a 40 x 40 Hessian's readout was worded and measured afresh at
        every mouse move, 1-3 ms each."""
        state = ((self.matrix, self.describe, self.readout.forms),
                 (row, col, self._names, self.row_shape, self.col_shape))
        if unchanged(self._said, state):
            return
        self.readout.say(self.cell_forms(row, col))
        self._said = ((self.matrix, self.describe, self.readout.forms), state[1])  # the forms said

    def _on_line_mouse(self, pos):
        if self.mode == "heatmap" or not self.line_plot.sceneBoundingRect().contains(pos):
            return
        k = int(round(self.line_plot.getViewBox().mapSceneToView(pos).x()))
        rows, cols = self.matrix.shape
        if not 0 <= k < self.line_data.size:
            return self.readout.setText(" ")
        row, col = (k, k) if self.mode == "diagonal" else (k, 0) if cols == 1 else (0, k)
        self._say(row, col)
        self.hovered.emit(row, col, float(self.matrix[row, col]))

    def _on_mouse(self, pos):
        if not self.matrix.size or not self.plot.sceneBoundingRect().contains(pos):
            return
        p = self.plot.getViewBox().mapSceneToView(pos)
        row, col = int(round(p.y())), int(round(p.x()))
        rows, cols = self.matrix.shape
        if 0 <= row < rows and 0 <= col < cols and (np.isfinite(self.matrix[row, col])
                                                     or self.not_finite[row, col]):
            self._say(row, col)
            self.hovered.emit(row, col, float(self.matrix[row, col]))
        else:
            self.readout.setText(" ")
