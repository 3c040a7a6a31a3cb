"""The loss curve and, per parameter, the gradient-norm and update-norm curves of a run.

x is the step: the loss at k is the loss after k updates (k = 0 before the first); the
gradient norm at k is ‖g‖ where update k + 1 was computed, the update norm at k is
‖w_k − w_(k−1)‖. On a log scale a value ≤ 0 cannot be drawn: it is left out, and
`hidden` says how many were. A line of one point draws nothing, so a curve of one point
(the loss before any step, or after an Undo) is drawn as a dot.
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ..studies._base import port_label
from ..studies.heatmap import TEXT, style_plot

# Distinct in colour and in grey (Okabe-Ito), one per parameter.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
LOSS_COLOUR = "#202020"
DOT_SIZE = 8


def _plot(title, y_label):
    plot = pg.PlotWidget(background="w")
    plot.setMenuEnabled(False)
    plot.hideButtons()
    item = plot.getPlotItem()
    item.setTitle(title, color=TEXT, size="11pt")
    plot.setLabel("bottom", "step", color=TEXT)
    plot.setLabel("left", y_label, color=TEXT)
    style_plot(item)
    item.setDownsampling(auto=True, mode="peak")
    item.setClipToView(True)
    return plot


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
        self.legend = self.gradient_plot.addLegend(offset=(-10, 10), labelTextColor=TEXT)
        self.gradient_curves, self.update_curves = [], []
        self.log = False
        self.hidden = 0

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

    def show_history(self, losses, history):
        """`losses` (steps 0..N) and the TrainStep records 1..N."""
        self.hidden = 0
        _draw(self.loss_curve, *self._xy(np.arange(len(losses)), losses))
        if not history:
            for curve in self.gradient_curves + self.update_curves:
                _draw(curve, [], [])
            return
        steps = np.array([r.index for r in history], float)
        gradients = np.array([r.gradient_norms for r in history], float)
        updates = np.array([r.update_norms for r in history], float)
        for i, curve in enumerate(self.gradient_curves):
            _draw(curve, *self._xy(steps - 1, gradients[:, i]))
        for i, curve in enumerate(self.update_curves):
            _draw(curve, *self._xy(steps, updates[:, i]))

    def _xy(self, x, y):
        y = np.asarray(y, float)
        keep = np.isfinite(y) & ((y > 0) if self.log else True)
        self.hidden += int(np.count_nonzero(~keep))
        return np.asarray(x, float)[keep], y[keep]


def _draw(curve, x, y):
    """The points as a line; a single point as a dot of the line's colour."""
    colour = curve.opts["pen"].color()
    alone = len(x) == 1
    curve.setData(x, y, symbol="o" if alone else None, symbolSize=DOT_SIZE,
                  symbolPen=pg.mkPen(colour), symbolBrush=pg.mkBrush(colour))
