"""The studies' and the Train dock's plots and banners in the window's theme (issue 20 §5):
pyqtgraph draws on white with black ink whatever the palette, so in the dark theme every
plot stood white in a dark window. A plot widget registered with `follow` takes the
background, ink (axes, ticks, titles, colour-bar labels, legends, the black of its marks)
and muted grey (zero lines) of the render theme of the same name, now and on every `use`.
"""
import weakref

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor

from ...render.themes import THEMES, get_theme
from .plots_and_words import VIEW_FONT_PT

_current = "light"
_widgets = weakref.WeakSet()      # the plot widgets that follow the theme
_writers = []                     # weak methods that rewrite words coloured in the theme's ink
_banners = weakref.WeakSet()      # the banner labels (set_banner), restyled by `use`
# The ink and the grey the views draw with, in any theme: a mark of these is restyled.
_INKS = {QColor(c).name() for t in THEMES.values() for c in (t.text,)} | {"#000000", "#202020"}
_GREYS = {"#555555"} | {QColor(t.muted).name() for t in THEMES.values()}

BANNERS = {
    "light": {
        "warning": "background:#fff4e5; color:#5f2b00; border:2px solid #e65100;",
        "ok": "background:#edf7ed; color:#1e4620; border:1px solid #2e7d32;",
        "error": "background:#fdecea; color:#611a15; border:1px solid #c62828;",
        "info": f"background:#f4f6f8; color:{get_theme('light').text}; border:1px solid #c5ccd3;",
    },
    "dark": {
        "warning": "background:#3a2a14; color:#ffd9b0; border:2px solid #f57c00;",
        "ok": "background:#1c3322; color:#c8e6c9; border:1px solid #4caf50;",
        "error": "background:#3d1d1d; color:#ffcdd2; border:1px solid #ef5350;",
        "info": f"background:#262a31; color:{get_theme('dark').text}; border:1px solid #5a6370;",
    },
}


def current():
    return _current


def _render(name):
    return get_theme(name if name in THEMES else "light")


def ink(name=None):
    """The colour of a plot's text and axes in theme `name` (the current one by default)."""
    return _render(name or _current).text


def background(name=None):
    return _render(name or _current).background


def banner_sheet(kind, padding, name=None):
    """A banner's style sheet: its colours (background, text, border) in theme `name`, the
    dark ones on a dark background, the light ones on every white one (light, contrast,
    high-contrast)."""
    colours = BANNERS["dark" if _render(name or _current).name == "dark" else "light"][kind]
    return f"QLabel {{{colours} padding:{padding}; border-radius:4px; font-size:{VIEW_FONT_PT}pt;}}"


class _OnShow(QObject):
    """Restyles a followed plot as it is shown: the views add their marks (drawn in the
    light ink) after the plot is made."""

    def eventFilter(self, widget, event):
        if event.type() == QEvent.Type.Show:
            restyle(widget)
        return False


_ON_SHOW = None


def follow(widget):
    """`widget` (a pyqtgraph GraphicsView) in the current theme now, as it is shown, and
    after every `use`."""
    global _ON_SHOW
    if _ON_SHOW is None:
        _ON_SHOW = _OnShow()
    _widgets.add(widget)
    widget.installEventFilter(_ON_SHOW)
    restyle(widget)
    return widget


def rewrite_on_use(method):
    """Call `method` (a widget's bound method that writes rich text in `ink()`) after every
    `use`: a label's coloured spans do not follow a palette."""
    _writers.append(weakref.WeakMethod(method))


def use(name):
    """Every followed plot and every banner in theme `name` (any render theme's name)."""
    global _current
    if _render(name).name == _current:
        return      # every plot and banner is styled as it is made and shown; a window opens with a `use`
    _current = _render(name).name
    for widget in list(_widgets):
        if shiboken6.isValid(widget):
            restyle(widget)
    for writer in list(_writers):
        method = writer()
        if method is None or not shiboken6.isValid(method.__self__):
            _writers.remove(writer)
        else:
            method()
    for label in list(_banners):      # not every widget of the app: a window opens with a `use`
        if shiboken6.isValid(label):
            label.setStyleSheet(banner_sheet(label.property("kind"), label.property("banner_padding")))


def follow_banner(label):
    """`label` (a banner) restyled by every `use`."""
    _banners.add(label)


def _colour(pen):
    return pg.mkPen(pen).color().name() if pen is not None else None


def _swap(pen):
    """`pen` in the theme's ink or grey where it was drawn in another theme's; else None."""
    name = _colour(pen)
    if name in _INKS:
        new = pg.mkPen(pen)
        new.setColor(QColor(ink()))
        return new
    if name in _GREYS:
        new = pg.mkPen(pen)
        new.setColor(QColor(_render(_current).muted))
        return new
    return None


def restyle(widget):
    """The background, axes, titles, legends and the ink of the marks of one plot widget."""
    colour = ink()
    widget.setBackground(background())
    for item in widget.scene().items():
        if isinstance(item, pg.AxisItem):
            item.setPen(pg.mkPen(colour))
            item.setTextPen(pg.mkPen(colour))
            item.labelStyle = {**item.labelStyle, "color": colour}
            if item.labelText:
                item.label.setHtml(item.labelString())
        elif isinstance(item, pg.LegendItem):
            item.setLabelTextColor(colour)
        elif isinstance(item, pg.LabelItem):
            item.opts["color"] = colour
            if item.text:
                item.setText(item.text)
        elif isinstance(item, pg.TextItem):
            item.setColor(colour)
        elif isinstance(item, pg.ViewBox):
            brush = item.background.brush().color().name() if item.background.isVisible() else None
            if brush in {QColor(_render(t).background).name() for t in THEMES}:
                item.setBackgroundColor(background())
        elif isinstance(item, pg.PlotDataItem):
            for key, setter in (("pen", item.setPen), ("symbolPen", item.setSymbolPen)):
                new = _swap(item.opts.get(key))
                if new is not None:
                    setter(new)
        elif isinstance(item, (pg.ScatterPlotItem, pg.InfiniteLine)):
            new = _swap(item.opts.get("pen") if isinstance(item, pg.ScatterPlotItem) else item.pen)
            if new is not None:
                item.setPen(new)
        elif isinstance(item, pg.BarGraphItem):
            new = _swap(item.opts.get("pen"))
            if new is not None:
                item.setOpts(pen=new)
