"""The loss curve and, per parameter, the gradient-norm and update-norm curves of a run.

x is the step: the loss at k is the loss after k updates (k = 0 before the first); the
gradient norm at k is ‖g‖ where update k + 1 was computed, the update norm at k is
‖w_k − w_(k−1)‖. On a log scale a value ≤ 0 cannot be drawn: it is left out, and
`hidden` says how many were. A line of one point draws nothing, so a curve of one point
(the loss before any step, or after an Undo) is drawn as a dot.

The three plots share one step axis, from 0 to the last step and at least MIN_STEPS: a run
of one step showed its gradient norm's dot on an axis from -0.4 to 0.4. The gradient-norm
plot's key is a row below its step axis, where it covers no point (inside the plot it sat
on the data).

A run of the compiled replay takes 600-700 steps a second: drawn whole, the curves of an
8 s run (5,000 points each) took the UI thread 200 ms a repaint, growing with the run.
So a curve draws at most MAX_POINTS of its points (each bucket's lowest and highest, so a
spike stays as tall as it was), and a run's records are turned into arrays once, as they
come (RunColumns): a repaint costs the same at step 100 and at step 100,000.
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ..studies import plot_colours
from ..studies.choosers import port_label
from ..studies.plot_style import TEXT, IndexAxis, style_plot

# Distinct in colour and in grey (Okabe-Ito), one per parameter.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
LOSS_COLOUR = "#202020"
DOT_SIZE = 8
MAX_POINTS = 1000      # per curve: two per pixel of the widest plot a screen shows
MIN_STEPS = 5          # the step axis runs at least this far: one step reads as the first of a run


def _plot(title, y_label):
    plot = pg.PlotWidget(axisItems={"bottom": IndexAxis("bottom")})  # whole steps
    plot.setMenuEnabled(False)
    plot.hideButtons()
    item = plot.getPlotItem()
    item.setTitle(title, color=TEXT, size="11pt")
    plot.setLabel("bottom", "step", color=TEXT)
    plot.setLabel("left", y_label, color=TEXT)
    style_plot(item)
    item.setDownsampling(auto=True, mode="peak")
    item.setClipToView(True)
    return plot_colours.follow(plot)


class TrainingCurves(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.loss_plot = _plot("loss", "loss")
        self.gradient_plot = _plot("gradient norm ‖g‖", "‖g‖")
        self.update_plot = _plot("update norm ‖Δw‖", "‖Δw‖")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for plot in self.plots:
            layout.addWidget(plot, 1)
        self.loss_curve = self.loss_plot.plot(pen=pg.mkPen(LOSS_COLOUR, width=2))
        self.legend = _key_below(self.gradient_plot)
        self.gradient_curves, self.update_curves = [], []
        self.log = False
        self.hidden = 0
        self.columns = RunColumns()

    @property
    def plots(self):
        return (self.loss_plot, self.gradient_plot, self.update_plot)

    def set_log(self, log):
        self.log = bool(log)
        for plot in self.plots:
            plot.setLogMode(False, self.log)

    def clear(self, doc=None, parameters=()):
        """No run yet: empty curves, one line per parameter in each norm plot, and the axes
        fit again (they would keep the last run's range around no data)."""
        _draw(self.loss_curve, [], [])
        for plot in self.plots:
            plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
            plot.enableAutoRange()
        self.legend.clear()
        for curve in self.gradient_curves:
            self.gradient_plot.removeItem(curve)
        for curve in self.update_curves:
            self.update_plot.removeItem(curve)
        self.gradient_curves, self.update_curves = [], []
        for i, port in enumerate(parameters):
            pen = pg.mkPen(COLOURS[i % len(COLOURS)], width=2)
            name = port_label(doc, port) if doc is not None else str(port)
            self.gradient_curves.append(self.gradient_plot.plot(pen=pen, name=name))
            self.update_curves.append(self.update_plot.plot(pen=pen, name=name))
        self.hidden = 0
        self.columns = RunColumns()

    def follow(self, history, loss):
        """A run's records so far (`history`, a list the worker may still be adding to):
        only those added since the last call are read. `loss`: the loss when there is
        no record yet."""
        columns = self.columns.take(history)
        losses = np.concatenate(([columns.first_loss], columns.loss_after)) if len(columns) \
            else np.array([loss], float)
        self._show(losses, columns.steps, columns.gradients, columns.updates)

    def show_history(self, losses, history):
        """`losses` (steps 0..N) and the TrainStep records 1..N (a run's frames replayed)."""
        columns = RunColumns().take(history)
        self._show(np.asarray(losses, float), columns.steps, columns.gradients, columns.updates)

    def _show(self, losses, steps, gradients, updates):
        self.hidden = 0
        last = max(len(losses) - 1, int(steps[-1]) if len(steps) else 0, MIN_STEPS)
        for plot in self.plots:
            plot.setXRange(-0.5, last + 0.5, padding=0)    # a dot at step 0 whole
        _draw(self.loss_curve, *self._xy(np.arange(len(losses)), losses))
        if not len(steps):
            for curve in self.gradient_curves + self.update_curves:
                _draw(curve, [], [])
            return
        for i, curve in enumerate(self.gradient_curves):
            _draw(curve, *self._xy(steps - 1, gradients[:, i]))
        for i, curve in enumerate(self.update_curves):
            _draw(curve, *self._xy(steps, updates[:, i]))

    def _xy(self, x, y):
        y = np.asarray(y, float)
        keep = np.isfinite(y) & ((y > 0) if self.log else True)
        self.hidden += int(np.count_nonzero(~keep))
        return peaks(np.asarray(x, float)[keep], y[keep])


class RunColumns:
    """A run's records as arrays, grown by the records added since the last `take`; taken
    afresh when the history is another (a new trainer, or Undo rewound it)."""

    def __init__(self):
        self._seen, self._last, self.first_loss = 0, None, None
        self._steps = self._loss_after = self._gradients = self._updates = None

    def __len__(self):
        return self._seen

    def take(self, history):
        n = len(history)
        if self._seen and (n < self._seen or history[self._seen - 1] is not self._last):
            self.__init__()
        new = history[self._seen:n]
        if not new:
            return self
        if not self._seen:
            self.first_loss = new[0].loss
        width = len(new[0].gradient_norms)
        rows = np.array([(r.index, r.loss_after, *r.gradient_norms, *r.update_norms)
                         for r in new], float).reshape(len(new), 2 + 2 * width)
        self._steps = _grown(self._steps, self._seen, rows[:, 0])
        self._loss_after = _grown(self._loss_after, self._seen, rows[:, 1])
        self._gradients = _grown(self._gradients, self._seen, rows[:, 2:2 + width])
        self._updates = _grown(self._updates, self._seen, rows[:, 2 + width:])
        self._seen, self._last = n, new[-1]
        return self

    steps = property(lambda self: _head(self._steps, self._seen))
    loss_after = property(lambda self: _head(self._loss_after, self._seen))
    gradients = property(lambda self: _head(self._gradients, self._seen))
    updates = property(lambda self: _head(self._updates, self._seen))


def _grown(buffer, used, rows):
    """`rows` written after the first `used` rows of `buffer`, which doubles when full."""
    if buffer is None or used + len(rows) > len(buffer):
        bigger = np.empty((max(64, 2 * (used + len(rows))),) + rows.shape[1:], float)
        if buffer is not None:
            bigger[:used] = buffer[:used]
        buffer = bigger
    buffer[used:used + len(rows)] = rows
    return buffer


def _head(buffer, used):
    return np.zeros(0) if buffer is None else buffer[:used]


def peaks(x, y, budget=MAX_POINTS):
    """At most `budget` points of the line through (x, y): in each bucket of consecutive
    points its lowest and its highest, in their order, and the last point (where the run
    is). Drawn at two points per pixel or more, the line looks as the whole would."""
    n = len(y)
    if n <= budget:
        return x, y
    size = -(-n // (budget // 2 - 1))          # points per bucket, rounded up
    whole = n - n % size
    rows = y[:whole].reshape(-1, size)
    starts = np.arange(0, whole, size)
    low, high = starts + rows.argmin(axis=1), starts + rows.argmax(axis=1)
    keep = [np.minimum(low, high), np.maximum(low, high)]
    if whole < n:
        rest = y[whole:]
        keep.append(np.array([whole + rest.argmin(), whole + rest.argmax()]))
    keep = np.unique(np.concatenate(keep + [np.array([0, n - 1])]))
    return x[keep], y[keep]


def _key_below(plot):
    """The plot's key in a row below its step axis (the curves named there as they are
    drawn), its entries side by side."""
    item = plot.getPlotItem()
    key = pg.LegendItem(labelTextColor=TEXT, colCount=4)
    item.layout.addItem(key, 4, 1)
    item.legend = key
    return key


def _draw(curve, x, y):
    """The points as a line; a single point as a dot of the line's colour."""
    colour = curve.opts["pen"].color()
    alone = len(x) == 1
    curve.setData(x, y, symbol="o" if alone else None, symbolSize=DOT_SIZE,
                  symbolPen=pg.mkPen(colour), symbolBrush=pg.mkBrush(colour))
