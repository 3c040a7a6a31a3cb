"""How every study plot looks: its colour maps, axes, tick and title texts (the Train dock's too)."""
import html
import math
import re

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF, QTextDocument
from PySide6.QtWidgets import QGraphicsTextItem

from ...render.themes import LIGHT
from ...story.numbers import exponent, factor_text
from . import plot_colours

# ColorBrewer RdBu (9 classes), negative (blue) to positive (red), white in the middle.
DIVERGING = (LIGHT.diverging[0], "#4393c3", "#92c5de", "#d1e5f0", LIGHT.diverging[1],
             "#fddbc7", "#f4a582", "#d6604d", LIGHT.diverging[2])
TEXT = LIGHT.text
FONT_PT = 11


def diverging_colormap():
    return pg.ColorMap(np.linspace(0.0, 1.0, len(DIVERGING)), DIVERGING, name="RdBu-gradviz")


def sequential_colormap():
    """White to dark red: the positive half of the diverging map, for norms and sizes."""
    half = DIVERGING[len(DIVERGING) // 2:]
    return pg.ColorMap(np.linspace(0.0, 1.0, len(half)), half, name="Reds-gradviz")


def tick_texts(values):
    """A linear axis' tick labels by the cards' rule (story.numbers): fixed-point with the
    decimals its ticks need while the ticks are of an ordinary magnitude (0, 0.25, 0.5);
    beyond it, every tick divided by one power of ten for the axis, that power after it
    (2×10⁻⁵, 4×10⁻⁵), never pyqtgraph's 2e-05 or 1.2e+06."""
    values = [float(v) for v in values]
    biggest = max((abs(v) for v in values), default=0.0)
    power = exponent((biggest, biggest, False, False))
    mantissas = [v / 10.0 ** power for v in values]
    places = 0                       # the decimals that write every tick exactly: 2.5, 5.0
    while places < 6 and any(abs(m - round(m, places)) > 1e-9 * max(1.0, abs(m))
                             for m in mantissas):
        places += 1
    out = []
    for v in mantissas:
        text = f"{v:.{places}f}"
        zero = text.lstrip("-").strip("0.") == ""
        out.append("0" if zero else text + factor_text(power))
    return out


UPRIGHT_CHARS = 3      # a vertical axis' title this short stands upright


def stand_short_title(axis):
    """A vertical axis' title of up to three signs (i, λₖ, ‖·‖) upright, centred beside the
    axis: turned as a long title is, a lone 'i' read as a dash (the Hessian's heatmap stacked
    at 1280 x 800), a norm's bars as '≡'. Called after pyqtgraph places the title
    (AxisItem.resizeEvent)."""
    label = getattr(axis, "label", None)
    if label is None or axis.orientation not in ("left", "right"):
        return
    shown = html.unescape(re.sub("<[^>]+>", "", getattr(axis, "title_shown", None) or ""))
    upright = 0 < len(shown.strip()) <= UPRIGHT_CHARS
    label.setRotation(0 if upright else -90)
    if upright:
        box = label.boundingRect()
        x = -5 if axis.orientation == "left" else axis.size().width() - box.width() + 5
        label.setPos(x, int(axis.size().height() / 2 - box.height() / 2))


class CountAxis(pg.AxisItem):
    """Plain numbers with thousands separators, never a '(x1e+06)' scale in the label."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)

    def resizeEvent(self, event=None):
        super().resizeEvent(event)
        stand_short_title(self)

    def tickStrings(self, values, scale, spacing):
        if spacing >= 1:
            return [f"{v:,.0f}" for v in values]
        return tick_texts(values)


class IndexAxis(pg.AxisItem):
    """An axis that only ticks whole indices and prints them as integers; with `count`
    set, only the indices 0 … count-1 (a locked aspect shows room beside the matrix)."""

    count = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.orientation in ("top", "bottom"):   # the 0 below a narrow matrix's first cell
            self.setStyle(hideOverlappingLabels=LABEL_OVERHANG)

    def resizeEvent(self, event=None):
        super().resizeEvent(event)
        stand_short_title(self)

    def tickValues(self, minVal, maxVal, size):
        levels = super().tickValues(minVal, maxVal, size)
        if self.count is None:
            return levels
        return [(spacing, [v for v in values if -0.5 < v < self.count - 0.5])
                for spacing, values in levels]

    def tickSpacing(self, minVal, maxVal, size):
        """One level of whole steps (1, 2, 5, 10, 20 …) wide enough that no label touches
        the next: the labels-never-touch rule then leaves none out ('0 10 30' was a gap)."""
        span = maxVal - minVal
        if span <= 0 or size <= 0:
            return [(1.0, 0.0)]
        metrics = QFontMetrics(self.style.get("tickFont") or QFont())
        widest = str(int(max(abs(minVal), abs(maxVal)) + 1))
        label = metrics.height() if self.orientation in ("left", "right") \
            else metrics.horizontalAdvance(widest)
        need = (label + 3 * LABEL_GAP) * span / size
        step = 1.0
        while step < need:
            step *= 2.5 if str(int(step))[0] == "2" else 2.0   # 1, 2, 5, 10, 20, 50 …
        return [(step, 0.0)]

    def tickStrings(self, values, scale, spacing):
        return [str(int(round(v))) for v in values]


def style_plot(plot, font_pt=FONT_PT):
    """Black text in a readable size on a white plot (for projectors and print)."""
    font = QFont()
    font.setPointSize(font_pt)
    for name in ("left", "bottom", "right", "top"):
        axis = plot.getAxis(name)
        axis.setTickFont(font)
        axis.setPen(pg.mkPen(TEXT))
        axis.setTextPen(pg.mkPen(TEXT))
        axis.label.setFont(font)
        axis.enableAutoSIPrefix(False)
        if type(axis).tickStrings is pg.AxisItem.tickStrings:   # no numbers of its own
            axis.tickStrings = lambda values, scale, spacing: tick_texts(values)
        _labels_never_touch(axis)


LABEL_GAP = 4    # px between two tick labels; a label closer to the one before is left out
LABEL_OVERHANG = 10   # px an index label may reach past its axis' end


def _labels_never_touch(axis):
    """pyqtgraph writes every label of the major ticks however narrow the plot (a 110 px
    axis read '0.20.40.60.8'): a label that would touch one already written is left out,
    as its own rule does for the minor ticks."""
    generate = axis.generateDrawSpecs

    def thinned(painter):
        specs = generate(painter)
        if specs is None:
            return specs
        axis_spec, tick_specs, text_specs = specs
        kept = []
        for spec in text_specs:
            room = spec[0].adjusted(-LABEL_GAP, -LABEL_GAP / 2, LABEL_GAP, LABEL_GAP / 2)
            if not any(room.intersects(other[0]) for other in kept):
                kept.append(spec)
        return axis_spec, tick_specs, kept
    axis.generateDrawSpecs = thinned


TITLE_SLACK = 8    # px an axis title keeps free at each end of its axis, together


def relabel(axis, text, *shorter):
    """Set an axis title: the first of `text` and its `shorter` forms (longest first) that
    the axis holds whole, chosen again as the axis is resized; the full form is the axis'
    tooltip while a shorter one stands in (a vertical title longer than its plot is cut at
    both ends: '∂²g1_mag / ∂layer.ker' at 1280 x 800)."""
    axis.title_forms = (text, *shorter)
    axis.title_shown = None
    if not getattr(axis, "_title_follows", False):
        axis._title_follows = True
        axis.geometryChanged.connect(lambda: _fit_title(axis))
    _fit_title(axis)


def title_length(axis, text):
    """How long (px, along its axis) the title `text` is drawn."""
    global _PROBE
    if _PROBE is None:
        _PROBE = QGraphicsTextItem()
    _PROBE.setFont(axis.label.font())
    _PROBE.setHtml(text)
    return _PROBE.boundingRect().width() - 2 * _PROBE.document().documentMargin()


_PROBE = None


def _fit_title(axis):
    if not shiboken6.isValid(axis):      # geometryChanged also comes while it is deleted
        return
    forms = axis.title_forms
    vertical = axis.orientation in ("left", "right")
    room = (axis.size().height() if vertical else axis.size().width()) - 2 * TITLE_SLACK
    text = next((t for t in forms if room <= 0 or title_length(axis, t) <= room), forms[-1])
    if text != axis.title_shown:
        axis.title_shown = text
        axis.setLabel(text, color=plot_colours.ink())
        axis.setToolTip("" if text == forms[0] else html.unescape(re.sub("<[^>]+>", "", forms[0])))
        axis.resizeEvent()     # pyqtgraph centres a title only when its axis is resized
    stand_short_title(axis)     # a colour bar's axis too, placed again at each resize


def forms(label):
    return (label,) if isinstance(label, str) else tuple(label)


def still_plot(left_axis, left_label, bottom_label, bottom_axis=None):
    """A plot (in the window's theme: plot_colours) that neither pans, zooms nor offers
    pyqtgraph's menu: a study's chart is read, not explored (a stray drag must not lose the
    view a teacher framed). A label may be a tuple: its forms, longest first (relabel).
    `bottom_axis`: an IndexAxis where the x values are whole indices (no tick between two)."""
    axes = {"left": left_axis} if bottom_axis is None else {"left": left_axis, "bottom": bottom_axis}
    plot = pg.PlotWidget(axisItems=axes)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMouseEnabled(False, False)
    style_plot(plot.getPlotItem())
    for name, label in (("left", left_label), ("bottom", bottom_label)):
        relabel(plot.getAxis(name), *forms(label))
    return plot_colours.follow(plot)


def text_width(font, text):
    """How wide (px) the rich `text` is drawn on one line in `font`, as a QLabel draws it: a
    text of no tags by its font's metrics (its white space collapsed, its entities read,
    as rich text draws them; a readout is chosen on every move of the pointer), else laid
    out as a document."""
    if "<" not in text:
        plain = html.unescape(" ".join(text.split()))
        return math.ceil(QFontMetricsF(font).horizontalAdvance(plain)) + 1
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font)
    doc.setHtml(text)
    return math.ceil(doc.idealWidth())
