"""The gradient's size along the backward pass: ‖cotangent‖ where it meets each node, from the
target back to the sources, on a log scale (the vanishing and exploding gradient lessons).

A chain of layers that shrinks the cotangent by a similar factor at each layer draws a
straight falling line; one that grows it, a rising one. The numbers come from
story.studies.gradient_norms; this view only lays them out.
"""
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QLabel

from ...story import studies
from ...story.numbers import ORDINARY, alone, line_format, power_text
from .applies import no_backward_pass
from .banners import banner, set_banner
from ._base import StudyView, _html
from .plot_style import DIVERGING, LABEL_GAP, TEXT, still_plot
from .plots_and_words import beside_words

LINE = DIVERGING[-2]          # the chain-cost view's reverse-mode red: the backward pass
SOURCE = DIVERGING[1]         # a source's gradient, in the forward blue


PLAIN_DECADES = 1e-3     # the smallest decade a log axis writes plain (0.001)


class LogAxis(pg.AxisItem):
    """Ticks of a log10 axis written as the numbers they stand for: 0.01, 0.1, 1, 10 while
    each is of an ordinary magnitude (story.numbers), else every one as its power of ten,
    10⁻⁶, 10⁻⁴, 10⁻²: one form on an axis, never 1.0e-04 beside 0.01."""

    def tickValues(self, minVal, maxVal, size):
        """Whole decades (0.1, 1, 10), not the half decades between them written rounded
        (0.32, 3.2: steps that read uneven), while at least two of them fit."""
        levels = super().tickValues(minVal, maxVal, size)
        whole = [(step, [v for v in values if abs(v - round(v)) < 1e-9])
                 for step, values in levels]
        return whole if sum(len(values) for _, values in whole) >= 2 else levels

    def tickStrings(self, values, scale, spacing):
        decades = [round(v) for v in values]
        if any(abs(v - d) > 1e-9 for v, d in zip(values, decades)):
            return [alone(10.0 ** v) for v in values]        # between decades: 3.162
        if self.ordinary():
            return [f"{10.0 ** d:g}" for d in decades]
        return [power_text(d) for d in decades]

    def ordinary(self):
        """True when every decade the axis shows is written plain (0.001 up to the ordinary
        magnitudes' top: a decade is exact, so 0.01 loses no digit as a measured 0.012
        would): the form is the axis' (pyqtgraph asks for its major and minor ticks apart)."""
        low, high = (float(v) for v in self.range)
        return PLAIN_DECADES <= 10.0 ** math.ceil(low - 1e-9) and 10.0 ** math.floor(high + 1e-9) < ORDINARY[1]


class GradientNormView(StudyView):
    title = "Gradient norms"
    MIN_SIZE = (520, 240)

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.layout_.addLayout(self.chooser_row())
        self.layout_.addWidget(self.message)
        self.summary = banner("info")
        self.plot = still_plot(LogAxis("left"), ("‖cotangent‖ (log scale)", "‖cotangent‖"),
                               ("where the backward pass meets it, from the target back",
                                "from the target back"))
        self.line = pg.PlotDataItem([], [], pen=pg.mkPen(LINE, width=2), symbol="o",
                                    symbolSize=9, symbolBrush=LINE, symbolPen=pg.mkPen(TEXT))
        self.sources = pg.ScatterPlotItem([], [], size=12, symbol="s", brush=SOURCE,
                                          pen=pg.mkPen(TEXT))
        self.branches = pg.PlotDataItem([], [], pen=pg.mkPen(LINE, width=2), connect="pairs")
        self.plot.addItem(self.branches)    # the pass's edges between visits not side by side
        self.plot.addItem(self.line)
        self.plot.addItem(self.sources)
        self.names = []
        self.numbered = False          # the ticks number the dots: the names do not fit
        self.plot.getAxis("bottom").geometryChanged.connect(self._name_ticks)
        self.explanation = QLabel()
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)   # names as written
        self.explanation.setWordWrap(True)
        self.layout_.addWidget(beside_words((self.plot,), (self.summary, self.explanation), (3, 2)), 1)

    def job(self):
        story = self.controller.result.story
        norms = None if story is None else studies.gradient_norms(story)
        if norms is None or not norms.norms:
            error, missing = no_backward_pass(self.controller, "cotangent to measure")
            return self._show_error(error) if error else self._show_not_applicable(missing)
        return (lambda: norms), 0

    def show_result(self, norms):
        values = np.asarray(norms.norms, float)
        shown = np.isfinite(values) & (values > 0)
        ks = np.arange(len(values), dtype=float)
        logs = np.where(shown, np.log10(np.where(shown, values, 1.0)), np.nan)
        visits = np.array([k == "visit" for k in norms.kinds], bool)
        drawn = visits & shown
        # the line joins two dots side by side only where the backward pass goes from one to
        # the other (two inputs of one op are siblings); its other edges are drawn apart
        order = np.flatnonzero(drawn)
        edges = {(k, j) for k, j in norms.edges if drawn[k] and drawn[j]}
        joined = {(int(a), int(b)) for a, b in zip(order, order[1:]) if (a, b) in edges}
        connect = [(int(a), int(b)) in joined for a, b in zip(order, order[1:])] + [False]
        self.line.setData(ks[drawn], logs[drawn], connect=np.array(connect, bool) if order.size else "all")
        rest = [(k, j) for k, j in sorted(edges) if (k, j) not in joined]
        self.branches.setData(ks[[p for e in rest for p in e]], logs[[p for e in rest for p in e]])
        self.sources.setData(ks[~visits & shown], logs[~visits & shown])
        self.names = list(norms.names)
        if shown.any():
            low, high = np.nanmin(logs), np.nanmax(logs)
            self.plot.setYRange(np.floor(low) - 0.2, np.ceil(high) + 0.2, padding=0)
        self.plot.setXRange(-0.5, len(values) - 0.5, padding=0)
        number = line_format(*values[np.isfinite(values)])      # one format on the line
        # each run of the pass on its line: y → upstream, then y → grad (siblings, not a chain)
        points = "<br>".join(" → ".join(f"{_html(norms.names[k])} <b>{number(values[k])}</b>" for k in run)
                             for run in norms.paths())
        missing = [name for name, ok in zip(norms.names, shown) if not ok]
        set_banner(self.summary, "info", f"<span style='font-size:12pt'>{points}</span>")
        self._words = (
            "Each dot is the size (Euclidean norm) of the cotangent the backward pass carries "
            "when it reaches a node, the upstream of that node's step; squares are the sources' "
            "gradients. Going back through a layer multiplies the cotangent by the layer's "
            "local Jacobian: a factor below 1 at every layer makes the line fall (vanishing "
            "gradients), above 1 rise (exploding)."
            + (f" Not drawn (0, NaN or infinite): {', '.join(missing)}." if missing else ""))
        self.numbered = None
        self._name_ticks()

    def _name_ticks(self):
        """Every dot labelled: by its node's name where the names fit side by side along the
        axis, else by its number from the target back, the words saying which is which (the
        axis left out the names that touched: 1 of 5 on lesson 14 at 1280 x 800)."""
        axis = self.plot.getAxis("bottom")
        if not self.names:
            return
        font = axis.style.get("tickFont") or QFont()
        widths = [QFontMetrics(font).horizontalAdvance(name) for name in self.names]
        slot = axis.width() / len(self.names)      # the x range gives each dot one slot
        numbered = any((a + b) / 2 + 3 * LABEL_GAP > slot for a, b in zip(widths, widths[1:])) \
            or max(widths[0], widths[-1]) > slot
        if numbered == self.numbered:
            return
        self.numbered = numbered
        labels = [str(k + 1) for k in range(len(self.names))] if numbered else self.names
        axis.setTicks([list(enumerate(labels)), []])
        key = ", ".join(f"{k + 1} {name}" for k, name in enumerate(self.names))
        self.explanation.setText(self._words + (f" The axis numbers the dots from the target "
                                                f"back: {key}." if numbered else ""))

    def clear_result(self):
        self.line.setData([], [])
        self.branches.setData([], [])
        self.sources.setData([], [])
        self.names, self.numbered = [], False
        self.plot.getAxis("bottom").setTicks(None)   # no node names of a document gone
        set_banner(self.summary, "info", "")
        self.explanation.setText("")
