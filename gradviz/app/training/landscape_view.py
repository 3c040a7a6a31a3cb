"""The Landscape tab: contours of the loss over two coordinates, the path the optimizer
took, −∇L at the current point and the quadratic model's minimum (Newton's step along the
two coordinates). The grid is computed on a worker, in chunks, and can be cancelled.

A surface over two of many parameter entries is a slice with the others held where they
are: when Undo, Redo, Reset or an edit moves any of them (or anything else the loss
reads), the slice is another and is computed again; when only x and y move, the point,
path and arrow follow over the same surface."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (QBoxLayout, QComboBox, QFormLayout, QFrame, QHBoxLayout, QLabel, QProgressBar,
                               QPushButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget)

from ...graph.errors import DocumentError
from ...graph.evaluate import NEWTON_EPS
from ...graph.landscape import coordinates, landscape, local_model, value_of, window
from ...graph.training import port_value, variable_ports
from ...story.numbers import significant
from ..evaluation import worded
from ..snapshots import same_for_engine_but, snapshot
from ..studies import plot_colours
from ..studies._base import _html
from ..studies.choosers import port_label
from ..studies.banners import banner, set_banner
from ..studies.plot_style import TEXT, style_plot
from ..worker import run_job
from .kept_paths import KeptPaths

LEVELS = 14                   # contour lines, spaced geometrically over the grid's range
PATH_COLOUR, ARROW_COLOUR, NEWTON_COLOUR = "#D55E00", "#0072B2", "#009E73"
SIDE_MIN_WIDTH = 300         # the column of choices and words beside the plot, at least
KEY_BESIDE_WIDTH = 560       # from this width of the column the key goes beside the choices
# The widest window a surface is drawn over, as wide to tall: in a short dock (1280 x 800,
# 150 px of plot height) a square plot was 170 x 170 px beside a 700 px column of words; at
# 2 it is twice as wide and the words keep a column of 500 px. Equal scales on both axes
# either way: the contours keep their shape.
MAX_ASPECT = 2.0
SHADE = pg.ColorMap([0.0, 1.0], [(150, 170, 205), (255, 255, 255)])   # darker is lower


def _compute(job, doc, x, y, ranges, n, parameters, damping):
    land = landscape(doc, x, y, *ranges, n=n, progress=job.report, parameters=parameters)
    return land, _model(job, doc, x, y, damping)


def _model(job, doc, x, y, damping):
    """The quadratic model at `doc`'s point (its words when it cannot be computed)."""
    try:
        return local_model(doc, x, y, damping)
    except DocumentError as error:
        return str(error)


def same_slice(drawn, doc, x, y):
    """True when the surface drawn at document `drawn` over coordinates x and y is `doc`'s
    too: the two differ at most in the entries x and y, not in a held-fixed entry, another
    value or the graph."""
    try:
        tensors = {c.port: (port_value(drawn, c.port), port_value(doc, c.port)) for c in (x, y)}
    except (KeyError, IndexError, AttributeError):
        return False

    def alike(a, b):
        for port, pair in tensors.items():
            if a is pair[0] and b is pair[1] and a.shape == b.shape:
                held = np.ones(a.shape, bool)
                for c in (x, y):
                    if c.port == port:
                        held[c.index] = False
                return np.array_equal(a[held], b[held], equal_nan=a.dtype.kind in "fc")
        return False
    return same_for_engine_but(drawn, doc, alike)


def contour_levels(losses, count=LEVELS):
    """Levels from the lowest to the highest finite value, spaced geometrically above the
    minimum (a valley's floor and its walls both get lines)."""
    finite = losses[np.isfinite(losses)]
    if finite.size == 0:
        return []
    low, high = float(finite.min()), float(finite.max())
    if high <= low:
        return []
    return list(low + np.geomspace((high - low) * 1e-4, high - low, count))


class LandscapeView(QWidget):
    def __init__(self, panel, parent=None):
        super().__init__(parent)
        self.panel = panel
        self.job = None
        self.job_at = None            # (document, x, y, n) the job computes a surface of
        self.land = None
        self.drawn_at = None          # the document `land` is the surface of
        self.model = None             # LocalModel at `model_at`, or words why there is none
        self.model_at = None          # the (x, y) the model was computed at
        self.model_job = None         # the model at the document's point, on a worker
        self._coordinates = []
        self.x_box, self.y_box = QComboBox(), QComboBox()
        for box, axis in ((self.x_box, "x"), (self.y_box, "y")):
            box.setToolTip(f"The coordinate along {axis}: a scalar Variable or one entry")
        self.size_box = QSpinBox()
        self.size_box.setRange(10, 300)
        self.size_box.setValue(100)
        self.size_box.setSuffix(" × n")
        self.size_box.setToolTip("Grid points along each axis")
        self.draw_button = QPushButton("Draw")
        self.draw_button.setToolTip("Compute the loss over a square around the current point "
                                    "that holds the path")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.clear_button = QPushButton("Clear paths")
        self.clear_button.setToolTip("Forget the paths of earlier runs drawn beside this run's")
        self.clear_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        choices = QFormLayout()
        choices.addRow("x", self.x_box)
        choices.addRow("y", self.y_box)
        row = QHBoxLayout()
        for widget in (self.size_box, self.draw_button, self.cancel_button, self.clear_button):
            row.addWidget(widget)
        self.note = banner("info")

        self.plot = plot_colours.follow(pg.PlotWidget())
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setAspectLocked(True)
        style_plot(self.plot.getPlotItem())
        self.image = pg.ImageItem()
        self.image.setColorMap(SHADE)
        self.plot.addItem(self.image)
        self.image.setVisible(False)
        self.contours = []
        self.path_curve = self.plot.plot(pen=pg.mkPen(PATH_COLOUR, width=2), symbol="o",
                                         symbolSize=4, symbolBrush=PATH_COLOUR,
                                         symbolPen=None)
        self.point = self.plot.plot(pen=None, symbol="o", symbolSize=11,
                                    symbolBrush="w", symbolPen=pg.mkPen(TEXT, width=2))
        self.arrow_line = self.plot.plot(pen=pg.mkPen(ARROW_COLOUR, width=3))
        self.arrow_head = pg.ArrowItem(pen=pg.mkPen(ARROW_COLOUR), brush=ARROW_COLOUR,
                                       headLen=16, tipAngle=35)
        self.arrow_head.setVisible(False)
        self.plot.addItem(self.arrow_head)
        self.newton = self.plot.plot(pen=None, symbol="star", symbolSize=16,
                                     symbolBrush=NEWTON_COLOUR, symbolPen=pg.mkPen(TEXT))
        for item in (self.path_curve, self.point, self.arrow_line, self.arrow_head, self.newton):
            item.setZValue(1)        # over the earlier runs' paths
        self.kept = KeptPaths(self.plot)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        # The key beside the plot, not over it (pyqtgraph's legend sat on the path).
        self.key = QLabel()
        self.key.setWordWrap(True)
        self._write_key()
        plot_colours.rewrite_on_use(self._write_key)      # its ◯ in the theme's ink

        # The choices and the words beside the plot, not above and below it: the plot keeps
        # its aspect, so a short dock (a 1280 x 800 window) gives it the whole height.
        # The key beside the choices where the column is wide (a short dock then shows it
        # whole), below them where it is narrow.
        asked = QVBoxLayout()
        asked.addLayout(choices)
        asked.addLayout(row)
        asked.addWidget(self.progress)
        self.top = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.top.addLayout(asked, 1)
        self.top.addWidget(self.key, 1, Qt.AlignmentFlag.AlignTop)
        side = QVBoxLayout()
        side.addLayout(self.top)
        side.addWidget(self.note)
        side.addWidget(self.caption)
        side.addStretch(1)
        column = QWidget()
        column.setLayout(side)
        scroll = QScrollArea()
        scroll.setWidget(column)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumWidth(SIDE_MIN_WIDTH)
        # No surface and no path: words over the plot say what to choose, not 0..1 axes
        # around nothing. (Over it, not instead of it: a hidden plot is not laid out, and
        # its view box was no longer square when it came back.)
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(12)
        self.empty.setAutoFillBackground(True)
        self.holder = ShapedPlot(self.plot, self.empty)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 4, 0)      # the plot as tall as the tab
        layout.addWidget(self.holder)
        layout.addWidget(scroll, 1)
        self.note.setVisible(False)
        self.draw_button.clicked.connect(self.draw)
        for box in (self.x_box, self.y_box):      # without a surface the path follows them
            box.currentIndexChanged.connect(lambda *_: self.land is None and self.refresh_overlay())
        self.cancel_button.clicked.connect(self.cancel)
        self.clear_button.clicked.connect(self.clear_paths)

    def _write_key(self):
        """The key: the run's path (its optimizer and settings), the earlier runs' paths,
        the point, −∇L and the star."""
        live = self.kept.live
        self.key.setText(
            f"<span style='color:{PATH_COLOUR}'>━●━</span> path of the run"
            + (f": {_html(live[1])}" if live else "") + "<br>" + self.kept.key()
            + f"<span style='color:{plot_colours.ink()}'>◯</span> current point<br>"
            f"<span style='color:{ARROW_COLOUR}'>━━▶</span> −∇L (direction; length not to "
            f"scale)<br><span style='color:{NEWTON_COLOUR}'>★</span> quadratic model's minimum "
            "(Newton)")
        self.clear_button.setEnabled(bool(self.kept.paths))

    def clear_paths(self):
        """Forget the earlier runs' paths (the run's own stays)."""
        self.kept.paths = []
        self.refresh_overlay()

    def resizeEvent(self, event):
        """The plot as wide as its view box needs at this height for the window drawn (or to
        be drawn: aspect()); the words take the rest (a plot as wide as the tab stretched a
        square window's x range to three times the contours' width)."""
        margins = self.layout().contentsMargins()
        height = self.height() - margins.top() - margins.bottom()
        extra_w, extra_h = self.holder.extras()
        self.holder.aspect = self.aspect()
        plot_width = max(40, min(round((height - extra_h) * self.holder.aspect) + extra_w, self._room()))
        self.holder.setFixedWidth(plot_width)
        wide = self.width() - plot_width >= KEY_BESIDE_WIDTH
        self.top.setDirection(QBoxLayout.Direction.LeftToRight if wide
                              else QBoxLayout.Direction.TopToBottom)
        super().resizeEvent(event)

    def _reshape(self):
        """The plot takes the shape of the window drawn (or to be drawn) now."""
        if self.width() > 0 and self.height() > 0:
            self.resizeEvent(QResizeEvent(self.size(), self.size()))
            self.holder.place()

    def _room(self):
        """The width the plot may take: the tab's, less the column of words."""
        margins = self.layout().contentsMargins()
        return self.width() - margins.left() - margins.right() - SIDE_MIN_WIDTH - self.layout().spacing()

    def aspect(self):
        """Width over height of the plot's view box: the drawn surface's window's, else the
        next one's (room_aspect)."""
        if self.land is None:
            return self.room_aspect()
        xs, ys = self.land.xs, self.land.ys
        return float((xs[-1] - xs[0]) / (ys[-1] - ys[0]))

    def room_aspect(self):
        """The shape of window a surface drawn now gets: as wide as the room beside the
        words allows at the tab's height, from square to MAX_ASPECT."""
        margins = self.layout().contentsMargins()
        extra_w, extra_h = self.holder.extras()
        height = self.height() - margins.top() - margins.bottom() - extra_h
        return min(MAX_ASPECT, max(1.0, (self._room() - extra_w) / max(1, height)))

    # -- choices --------------------------------------------------------------------------
    def update_coordinates(self):
        doc = self.panel.controller.doc
        params = self.panel.chosen_parameters()
        found = coordinates(doc, params)
        if found == self._coordinates:
            self._say_when_empty()
            return
        keep = (self.x_box.currentIndex(), self.y_box.currentIndex())
        self._coordinates = found
        for box in (self.x_box, self.y_box):
            box.blockSignals(True)
            box.clear()
            for c in found:
                box.addItem(c.text(port_label(doc, c.port)))
            box.blockSignals(False)
        n = len(found)
        self.x_box.setCurrentIndex(keep[0] if 0 <= keep[0] < n else 0)
        self.y_box.setCurrentIndex(keep[1] if 0 <= keep[1] < n and keep[1] != keep[0]
                                   else min(1, n - 1))
        self.draw_button.setEnabled(n >= 2 and self.job is None)
        self._say_when_empty()

    def chosen(self):
        c = self._coordinates
        i, j = self.x_box.currentIndex(), self.y_box.currentIndex()
        return (c[i], c[j]) if 0 <= i < len(c) and 0 <= j < len(c) else (None, None)

    # -- computing ------------------------------------------------------------------------
    def draw(self):
        x, y = self.chosen()
        if x is None or x == y:
            set_banner(self.note, "error", "Choose two different coordinates for x and y.")
            return False
        self._start(x, y, self.size_box.value())
        return True

    def _start(self, x, y, n):
        """The surface over x and y at the document's values now, on a worker (a job still
        computing one for an older document is cancelled)."""
        if self.job is not None:
            self.job.cancel()
        doc = snapshot(self.panel.controller.doc)
        center = (value_of(doc, x), value_of(doc, y))
        held = self.path_points(x, y) + sum(self.kept.points(x, y), [])   # every path drawn
        ranges = window(center, held, aspect=self.room_aspect())
        job = self.job = run_job(_compute, doc, x, y, ranges, n,
                                 self.panel.chosen_parameters(), self._damping())
        self.job_at = (doc, x, y, n)

        def ours(slot):
            """`slot`, while `job` is the view's (not a job a newer one replaced)."""
            return lambda *args: self.job is job and slot(*args)
        job.progress.connect(ours(lambda f, _: self.progress.setValue(int(1000 * f))))
        job.finished.connect(ours(lambda result: self._show(result, doc)))
        job.failed.connect(ours(lambda e: set_banner(self.note, "error",
                                                     _html(worded(e, self.panel.controller.doc)))))
        job.cancelled.connect(ours(lambda: set_banner(self.note, "info", "Cancelled.")))
        job.done.connect(ours(self._done))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.cancel_button.setEnabled(True)
        self.draw_button.setEnabled(False)

    def clear(self):
        """No surface (another document): its grid, contours, path, arrow, star, words and
        axes go."""
        self.cancel()
        self.land = self.model = self.model_at = self.drawn_at = None
        self._drop_contours()
        self.image.clear()
        self.image.setVisible(False)  # (its empty box at the old corner would be auto-ranged)
        for curve in (self.path_curve, self.point, self.arrow_line, self.newton):
            curve.setData([], [])
        self.kept.clear()
        self._write_key()
        self.arrow_head.setVisible(False)
        self.caption.setText("")
        set_banner(self.note, "info", "")
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)   # not the last one's
        self.plot.enableAutoRange()
        self._reshape()
        self._say_when_empty()

    def _drop_contours(self):
        """The contour lines are the image's children, not the plot's items: removeItem
        would leave them on screen (they stayed over the next document's plot)."""
        for item in self.contours:
            item.setParentItem(None)
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.contours = []

    def cancel(self):
        for job in (self.job, self.model_job):
            if job is not None:
                job.cancel()

    def _done(self):
        self.job = self.job_at = None
        self.progress.setVisible(False)
        self.cancel_button.setEnabled(False)
        self.draw_button.setEnabled(len(self._coordinates) >= 2)

    def _damping(self):
        fields = getattr(self.panel, "fields", {})
        try:
            return float(fields["damping"].text()) if "damping" in fields else NEWTON_EPS
        except ValueError:
            return NEWTON_EPS

    # -- drawing --------------------------------------------------------------------------
    def path_points(self, x, y, upto=None):
        """(x, y) of the run's recorded path (up to step `upto`)."""
        trainer = self.panel.session.trainer
        if trainer is None or not trainer.path:
            return []
        return [(float(np.asarray(v[x.port])[x.index]), float(np.asarray(v[y.port])[y.index]))
                for step, v in list(trainer.path) if x.port in v and y.port in v
                and (upto is None or step <= upto)]

    def _show(self, result, doc):
        land, model = result
        self.land, self.model, self.model_at = land, model, tuple(land.center)
        self.drawn_at = doc
        self._drop_contours()
        data = land.losses.T                  # ImageItem: axis 0 is x
        finite = np.isfinite(data)
        shade = np.full(data.shape, np.nan)
        if finite.any():                      # darker is lower: the rank of each value
            order = np.argsort(np.argsort(data[finite]))
            shade[finite] = order / max(1, order.size - 1)
        self.image.setImage(shade, levels=(0, 1))
        self.image.setVisible(True)
        dx = (land.xs[-1] - land.xs[0]) / max(1, len(land.xs) - 1)
        dy = (land.ys[-1] - land.ys[0]) / max(1, len(land.ys) - 1)
        self.image.setRect(QRectF(land.xs[0] - dx / 2, land.ys[0] - dy / 2,
                                  dx * len(land.xs), dy * len(land.ys)))
        for level in contour_levels(land.losses):
            curve = pg.IsocurveItem(data=np.where(finite, data, np.nanmax(data[finite])
                                                  if finite.any() else 0), level=level,
                                    pen=pg.mkPen("#303030", width=1))
            curve.setParentItem(self.image)
            self.contours.append(curve)
        self.refresh_overlay()
        self._reshape()
        self.plot.setXRange(land.xs[0], land.xs[-1], padding=0)
        self.plot.setYRange(land.ys[0], land.ys[-1], padding=0)
        self._write_caption()

    def _write_caption(self):
        """The surface's words, and the model's at the current point (none while the
        model at a point the Variables moved to is being computed)."""
        land, model = self.land, self.model
        if land is None:
            return
        if self.model_at != self.current_point(land.x, land.y):
            model = None
        warning = model if isinstance(model, str) else getattr(model, "note", "")
        set_banner(self.note, "warning", warning or "")
        doc = self.panel.controller.doc
        across, up = (_html(c.text(port_label(doc, c.port))) for c in (land.x, land.y))
        self.caption.setText(
            f"<b>{land.note}</b> Loss over {across} and {up}, {len(land.xs)} × {len(land.ys)} "
            f"points; contours spaced geometrically above the lowest, "
            f"{significant(np.nanmin(land.losses), 4)}; darker is lower."
            + ("" if model is None or isinstance(model, str) else
               f" At the point: loss {significant(model.loss)}, ∇L = "
               f"({significant(model.gradient[0], 4)}, {significant(model.gradient[1], 4)}); the star minimises L + gᵀδ + ½δᵀ(H + λI)δ "
               f"(λ = {significant(model.damping)}) over {across} and {up}."))

    def current_point(self, x, y):
        """(x, y) of the document's Variables now (None when a coordinate is gone)."""
        try:
            return value_of(self.panel.controller.doc, x), value_of(self.panel.controller.doc, y)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            return None

    def follow_document(self):
        """The document's values changed (a run's preview, Undo, Redo, Reset, an edit):
        when a held-fixed entry moved the surface is computed again (it was a slice at the
        old values); else the point, path, −∇L and the star follow, the model at a new point
        computed on a worker (until it comes, no arrow or star is drawn at a point they are
        not of). During a run the plots' timer redraws the overlay, not each preview (the
        canvas goes first), and the surface waits for the run's end."""
        if self.panel.session.running:
            return
        self.refresh_overlay()
        land = self.land
        asked = self.job_at or (land and (self.drawn_at, land.x, land.y, len(land.xs)))
        if asked is None:
            return
        doc, x, y, n = asked
        if self.current_point(x, y) is not None \
                and not same_slice(doc, self.panel.controller.doc, x, y):
            self._start(x, y, n)
            return
        now = self.current_point(land.x, land.y) if land is not None else None
        if now is None or now == self.model_at:
            return
        self._write_caption()
        if self.model_job is not None:
            self.model_job.cancel()
        doc = snapshot(self.panel.controller.doc)
        job = self.model_job = run_job(_model, doc, land.x, land.y, self._damping())

        def take(model):
            if self.land is land and self.current_point(land.x, land.y) == now:
                self.model, self.model_at = model, now
                self.refresh_overlay()
                self._write_caption()
        job.finished.connect(take)
        job.done.connect(lambda: self.model_job is job and setattr(self, "model_job", None))

    def refresh_overlay(self, upto=None):
        """The path (up to step `upto`), the current point, −∇L and the star there: cheap,
        redrawn as a run goes on and when Undo, Redo or Reset move the Variables. Without
        a drawn surface the run's path is drawn over the chosen coordinates alone."""
        self._draw_overlay(upto)
        self._say_when_empty()

    def _say_when_empty(self):
        point = self.point.getData()[0]
        empty = self.land is None and (point is None or len(point) == 0)
        if empty:
            self.empty.setText(
                "Choose x and y, then Draw: the loss over them around the current point."
                if len(self._coordinates) >= 2 else
                "A landscape draws the loss over two entries of the Variables: tick Variables "
                "with two entries or more in all under “Parameters (Variables) to train”."
                if variable_ports(self.panel.controller.doc) else
                "A landscape draws the loss over two entries of the Variables, and this "
                "document has no Variable.")
        self.empty.setVisible(empty)

    def _draw_overlay(self, upto):
        land = self.land
        x, y = (land.x, land.y) if land is not None else self.chosen()
        self.kept.follow(self.panel.session.trainer, tuple(self._coordinates))
        self.kept.draw(*((None, None) if x is None or x == y else (x, y)))
        self._write_key()
        if x is None or x == y:
            for curve in (self.path_curve, self.point):
                curve.setData([], [])
            self._no_arrow()
            return
        path = self.path_points(x, y, upto)
        xs, ys = (np.array(v, float) for v in zip(*path)) if path else (np.zeros(0), np.zeros(0))
        self.path_curve.setData(xs, ys)
        now = None if upto is not None else self.current_point(x, y)
        if upto is not None:        # a replay: the point is the step's; −∇L and the star were not
            self.point.setData(xs[-1:], ys[-1:])
        elif now is not None and (land is not None or path):
            self.point.setData([now[0]], [now[1]])
        else:
            self.point.setData([], [])
        model = self.model if land is not None and now is not None and now == self.model_at \
            else None
        if model is None or isinstance(model, str) or not np.all(np.isfinite(model.gradient)) \
                or not np.any(model.gradient):
            self._no_arrow()
            return
        span = land.xs[-1] - land.xs[0]
        direction = -model.gradient / np.linalg.norm(model.gradient)
        tip = np.array(now) + 0.2 * span * direction
        self.arrow_line.setData([now[0], tip[0]], [now[1], tip[1]])
        angle = np.degrees(np.arctan2(direction[1], direction[0]))
        self.arrow_head.setStyle(angle=180 - angle)
        self.arrow_head.setPos(*tip)
        self.arrow_head.setVisible(True)
        if model.minimum is not None:
            self.newton.setData([model.minimum[0]], [model.minimum[1]])
        else:
            self.newton.setData([], [])

    def _no_arrow(self):
        self.arrow_line.setData([], [])
        self.arrow_head.setVisible(False)
        self.newton.setData([], [])


class ShapedPlot(QWidget):
    """Holds the landscape's plot so that its view box has the window's shape (`aspect`,
    width over height; graph/landscape.window): the axes then span exactly that window,
    and with equal scales the contours keep their shape and −∇L is perpendicular to them."""

    def __init__(self, plot, instead, parent=None):
        super().__init__(parent)
        self.plot = plot
        self.aspect = 1.0
        plot.setParent(self)
        self.instead = instead        # shown over the plot while it has nothing to draw
        instead.setParent(self)
        instead.raise_()
        self._placing = False
        plot.getPlotItem().getViewBox().sigResized.connect(self.place)

    def extras(self):
        """(width, height) the plot takes beside its view box: the axes and margins."""
        box = self.plot.getPlotItem().getViewBox().geometry()
        if box.width() <= 0 or box.height() <= 0:
            return 60, 40
        return (round(self.plot.width() - box.width()), round(self.plot.height() - box.height()))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.place()

    def place(self, *_):
        """The plot at its shape, the words instead of it over the whole holder (also while
        hidden: the holder's resize event waits for it to show)."""
        if self._placing:
            return
        self._placing = True
        try:
            self.instead.setGeometry(self.rect())
            extra_w, extra_h = self.extras()
            tall = max(20, min(self.height() - extra_h, (self.width() - extra_w) / self.aspect))
            width, height = round(tall * self.aspect) + extra_w, round(tall) + extra_h
            self.plot.setGeometry(0, max(0, (self.height() - height) // 2), width, height)
        finally:
            self._placing = False
