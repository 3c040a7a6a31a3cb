"""Every study plot and banner follows the window's theme, live (issue 20 §5, auditor in the
dark theme): pyqtgraph's white stood in a dark window, its axes and titles black, and the
check banners stayed pale green."""
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from gradviz.app import studies as views
from gradviz.app.studies import plot_colours
from gradviz.render.themes import THEMES
from test_views import opened


def _name(colour):
    return QColor(colour).name()


def _check(view, theme):
    ink, ground = _name(theme.text), _name(theme.background)
    widgets = [w for w in view.findChildren(pg.GraphicsView) if w.isVisibleTo(view)]
    assert len(widgets) >= 2
    for widget in widgets:
        assert widget.backgroundBrush().color().name() == ground, (theme.name, widget)
        for item in widget.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible():
                assert item.pen().color().name() == ink and item.textPen().color().name() == ink
                if item.labelText:
                    assert _name(item.labelStyle["color"]) == ink, (theme.name, item.labelText)
            elif isinstance(item, pg.LabelItem) and item.text:
                assert _name(item.opts["color"]) == ink, (theme.name, item.text)
    assert view.eigen_curve.opts["pen"].color().name() == ink     # the dots' rims
    sheet = view.symmetry.styleSheet()
    assert ("#edf7ed" in sheet) == (theme.name != "dark"), sheet   # pale green on white only


def test_the_hessian_study_follows_every_theme_live(qtbot):
    controller, view = opened(qtbot, views.HessianView, "000_layer_hessian")
    view.resize(900, 600)
    try:
        plot_colours.use("dark")        # before it is shown: its marks are drawn then
        view.show()
        qtbot.waitExposed(view)
        for name in ("dark", "contrast", "high-contrast", "light", "dark"):
            plot_colours.use(name)
            _check(view, THEMES[name])
    finally:
        plot_colours.use("light")


def _luminance(colour):
    def channel(c):
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    c = QColor(colour)
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def test_the_landscape_key_writes_the_current_point_in_the_themes_ink(qtbot):
    """The Train dock's Landscape key drew its ◯ in the light theme's ink, unseen on the
    dark theme's background (reviewer)."""
    import re
    from gradviz.app.training.landscape_view import LandscapeView
    view = LandscapeView(panel=None)
    qtbot.addWidget(view)
    try:
        for name in ("dark", "light", "dark"):
            plot_colours.use(name)
            ring = re.search(r"color:([^']+)'>◯", view.key.text()).group(1)
            assert _name(ring) == _name(THEMES[name].text), (name, ring)
        darker, lighter = sorted((_luminance(ring), _luminance(THEMES["dark"].background)))
        assert (lighter + 0.05) / (darker + 0.05) >= 4.5, ring        # WCAG AA on dark
    finally:
        plot_colours.use("light")


def test_a_theme_change_restyles_the_banners_without_walking_every_widget(qtbot, monkeypatch):
    """`use` walked QApplication.allWidgets() for banners, and every window opens with a
    `use`: in one process (the test suite) every window ever made was walked again, each
    window slower than the last. The banners it restyles are now only those set_banner made."""
    controller, view = opened(qtbot, views.HessianView, "000_layer_hessian")

    def walked():
        raise AssertionError("use walked every widget of the app")

    monkeypatch.setattr(QApplication, "allWidgets", staticmethod(walked))
    try:
        plot_colours.use("dark")
        assert "#edf7ed" not in view.symmetry.styleSheet()
        plot_colours.use("light")
        assert "#edf7ed" in view.symmetry.styleSheet()
    finally:
        plot_colours.use("light")
