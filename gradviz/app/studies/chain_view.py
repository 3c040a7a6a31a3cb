"""Forward versus reverse accumulation of the chain rule for the current graph (seed 000).

The gradient is a product of Jacobians J_L ⋯ J_1. Multiplying from the input side
(forward) carries a matrix with one column per input element through every product;
multiplying from the loss side (reverse) carries one row per output element, a
vector when the loss is a scalar. The bars count the multiply-adds of each product; a
product that costs nothing has a flat mark and a "0" where its bar would be, not a gap.
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel

from ...engine.errors import counted
from ...story import studies
from . import plot_colours
from .applies import no_backward_pass
from .banners import banner, set_banner
from ._base import StudyView, _html
from .plot_style import DIVERGING, TEXT, CountAxis, still_plot
from .plots_and_words import PLOT_USABLE_H, beside_words

FORWARD, REVERSE = DIVERGING[1], DIVERGING[-2]   # mid blue and mid red: distinct in grey too
BAR_W = 0.38
SWATCH_PX = 60            # a legend entry's swatch and the spacing beside it
LEFT_AXIS_PX = 80         # the count axis at the plot's left
LEGEND_ROWS_H = 48        # a legend_row's two rows (one entry a row in a narrow view)
ZERO_MARK_PX = 4          # a bar of height 0: a flat mark this thick, and "0" above it


class ChainCostView(StudyView):
    title = "Forward vs reverse"
    MIN_SIZE = (520, 240)

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.layout_.addLayout(self.chooser_row())
        self.layout_.addWidget(self.message)
        self.totals = banner("info")
        self.plot = still_plot(CountAxis("left"), ("multiply-adds", "mul-adds"),
                               ("product k (Jₖ, from the input side)", "product k (Jₖ)"))
        self.legend = legend_row(self.plot)
        self.plot.installEventFilter(self)      # its columns follow the plot's width
        self.forward_bars = pg.BarGraphItem(x=[], height=[], width=BAR_W,
                                            brush=FORWARD, pen=pg.mkPen(TEXT, width=1))
        self.reverse_bars = pg.BarGraphItem(x=[], height=[], width=BAR_W,
                                            brush=REVERSE, pen=pg.mkPen(TEXT, width=1))
        self.zero_marks = {colour: pg.PlotDataItem([], [], connect="pairs",
                                                   pen=pg.mkPen(colour, width=ZERO_MARK_PX))
                           for colour in (FORWARD, REVERSE)}
        for mark in self.zero_marks.values():
            self.plot.addItem(mark)
        self.zero_labels = []
        self.plot.addItem(self.forward_bars)
        self.plot.addItem(self.reverse_bars)
        self.legend.addItem(self.forward_bars, "forward")   # what each product is: show_result
        self.legend.addItem(self.reverse_bars, "reverse")
        self.ops = QLabel()
        self.ops.setTextFormat(Qt.TextFormat.RichText)
        self.ops.setWordWrap(True)
        self.explanation = QLabel()
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.explanation.setWordWrap(True)
        self.layout_.addWidget(beside_words((self.plot,), (self.totals, self.ops, self.explanation),
                                            (3, 2)), 1)

    def eventFilter(self, watched, event):
        """Before the plot lays itself out at a new width: the legend's entries side by
        side where they fit, else one above the other (a legend wider than the plot made
        the plot draw past its widget, J8 and 'reverse' cut off)."""
        if watched is self.plot and event.type() == QEvent.Type.Resize:
            fit_legend(self.legend, event.size().width())
        return super().eventFilter(watched, event)

    def job(self):
        story = self.controller.result.story
        sizes = [] if story is None else studies.chain_sizes(story)
        if len(sizes) < 2:
            error, missing = no_backward_pass(self.controller, "chain of Jacobians")
            return self._show_error(error) if error else self._show_not_applicable(missing)
        self._ops = chain_ops(story)
        if len(sizes) == 2:    # one Jacobian: 'forward 0, reverse 0, the same' over empty bars
            op = f", {self._ops[0]}" if len(self._ops) == 1 else ""
            return self._show_not_applicable(
                f"the backward pass goes through one op{op}: one Jacobian, {sizes[0]} → "
                f"{sizes[1]}, and no product of Jacobians whose order could change the cost. "
                "Forward and reverse mode differ once the path has two ops or more.")
        return (lambda: studies.chain_cost(sizes)), 0

    def show_result(self, cost):
        sizes = cost.sizes
        n = len(sizes) - 1
        ks = np.arange(1, n + 1, dtype=float)
        # Product k multiplies by J_k; forward starts at k = 2 (J_1 itself is the start),
        # reverse ends at k = n - 1 (the loss row of J_n is the start).
        fwd = np.zeros(n)
        rev = np.zeros(n)
        fwd[1:] = cost.forward_terms
        rev[:n - 1] = cost.reverse_terms
        self.legend.getLabel(self.forward_bars).setText(f"forward: Jₖ · {cost.forward_carries}")
        self.legend.getLabel(self.reverse_bars).setText(f"reverse: {cost.reverse_carries} · Jₖ")
        fit_legend(self.legend, self.plot.width())
        self.forward_bars.setOpts(x=ks - 0.2, height=fwd)
        self.reverse_bars.setOpts(x=ks + 0.2, height=rev)
        self._mark_zeros([(ks - 0.2, fwd, FORWARD), (ks + 0.2, rev, REVERSE)])
        self.plot.getAxis("bottom").setTicks([[(k, _tick(int(k), sizes, n)) for k in ks], []])
        self.plot.setXRange(0.4, n + 0.6, padding=0)
        self.plot.setYRange(0, max(1.0, float(max(fwd.max(initial=0), rev.max(initial=0)))) * 1.1,
                            padding=0)
        if cost.forward == cost.reverse:
            verdict = "both orders cost the same here"
        elif cost.ratio >= 1:
            verdict = f"reverse mode is {cost.ratio:,.1f}× cheaper"
        else:
            verdict = f"forward mode is {1 / cost.ratio:,.1f}× cheaper"
        set_banner(self.totals, "info",
                   f"<span style='font-size:12pt'>Chain of {n} Jacobian{'s' if n != 1 else ''}, "
                   f"sizes {' → '.join(map(str, sizes))}<br>"
                   f"<b>forward</b> {cost.forward:,} multiply-adds &nbsp;·&nbsp; "
                   f"<b>reverse</b> {cost.reverse:,} multiply-adds &nbsp;·&nbsp; "
                   f"<b>{verdict}</b></span>")
        scalar = sizes[-1] == 1
        ops = self._ops if len(self._ops) == n else [""] * n
        self.ops.setText("   ".join(f"<b>J{k + 1}</b> {_html(name)}" for k, name in enumerate(ops)
                                   if name))
        self.explanation.setText(
            "The gradient is a product of Jacobians J<sub>L</sub> ⋯ J<sub>1</sub>, one per op on the path from the "
            f"source ({counted(sizes[0], 'element')}) to the target ({sizes[-1]}). Forward mode multiplies "
            f"from the input side and carries a matrix with {counted(sizes[0], 'column')} through every "
            "product. Reverse mode starts from the target's side and carries "
            + ("a single row, because the loss is a scalar: every product is vector × matrix. "
               "That is why backpropagation wants a scalar loss."
               if scalar else
               f"{sizes[-1]} rows, because the target is not a scalar; tape.gradient avoids "
               "this by seeding ones, i.e. differentiating the sum of the target.")
            + " (Forward starts from J1 itself and reverse from the target's rows of the last "
              "Jacobian, so those two cost nothing.)")

    def _mark_zeros(self, series):
        """A flat mark and a "0" label on every bar of height 0 (a bar too thin to see)."""
        for label in self.zero_labels:
            self.plot.removeItem(label)
        self.zero_labels = []
        for xs, heights, colour in series:
            zero = xs[heights == 0]
            ends = np.column_stack([zero - BAR_W / 2, zero + BAR_W / 2]).reshape(-1)
            self.zero_marks[colour].setData(ends, np.zeros_like(ends))
            for x in zero.tolist():
                label = pg.TextItem("0", color=plot_colours.ink(), anchor=(0.5, 1.0))
                label.setPos(x, 0)
                self.plot.addItem(label)
                self.zero_labels.append(label)

    def clear_result(self):
        self.forward_bars.setOpts(x=[], height=[])
        self.reverse_bars.setOpts(x=[], height=[])
        self._mark_zeros([])
        for mark in self.zero_marks.values():
            mark.setData([], [])
        self.plot.getAxis("bottom").setTicks(None)
        set_banner(self.totals, "info", "")
        self.ops.setText("")
        self.explanation.setText("")


def legend_row(plot):
    """A legend in a row of its own above the bars of the PlotWidget `plot`, its entries side
    by side: inside the plot it covered the tallest bars (J5 to J7 of lesson 14 in a tabbed
    dock at 1280 x 800), wherever it stood. The plot's least heights grow by the legend's
    two rows (one entry a row when narrow), `headroom`, so that its axes keep PLOT_MIN_H
    (PLOT_USABLE_H in a low dock, PlotsAndWords): a stacked view at 1280 x 800 left the y
    axis 63 px, too short for its title."""
    legend = pg.LegendItem(colCount=2, labelTextColor=TEXT, labelTextSize="11pt",
                           horSpacing=24)
    plot.headroom = LEGEND_ROWS_H
    plot.setMinimumHeight(max(plot.minimumHeight(), PLOT_USABLE_H + LEGEND_ROWS_H))
    plot_item = plot.getPlotItem()
    layout = plot_item.layout
    layout.removeItem(plot_item.titleLabel)      # the row of a title this plot never has
    plot_item.titleLabel.hide()
    layout.addItem(legend, 0, 0, 1, 2)          # over the axis too: one entry a row in a narrow view
    layout.setAlignment(legend, Qt.AlignmentFlag.AlignHCenter)
    return legend


def fit_legend(legend, width):
    """A legend_row's entries side by side where a plot `width` wide holds them, else one
    above the other."""
    wide = sum(label.boundingRect().width() + SWATCH_PX for _, label in legend.items)
    columns = 2 if width >= wide + LEFT_AXIS_PX else 1
    if legend.columnCount != columns:
        legend.setColumnCount(columns)


def _tick(k, sizes, n):
    return f"J{k}: {sizes[k - 1]}→{sizes[k]}" if n <= 6 else f"J{k}"


def chain_ops(story):
    """The op each Jacobian J_1 … J_L belongs to, from the input side (as chain_sizes counts)."""
    visits = [s for s in story.steps if s.kind == "visit" and s.cotangent is not None]
    return [s.title.removeprefix("Visit ") for s in visits[::-1]]
