"""Light and dark themes for the widgets, with the colours of the render themes.

The canvas paints with `render.themes` (same names), so the window chrome and the
graph agree. Fusion is used in both themes: it follows a QPalette faithfully on
every platform.
"""
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from .. import bundled
from ..render.themes import get_theme

THEMES = ("light", "dark")
# Problems told in widget text (the inspector, the status line, a card's tooltip).
ERROR_STYLE = "color: #c62828;"
WARN_STYLE = "color: #a15c00;"
CHECK = bundled.resource("check.svg")

_CHROME = {
    # window, base (editors), alternate, button, text, mid, highlight, tooltip base, disabled
    "light": dict(window="#f3f4f6", base="#ffffff", alternate="#f7f8fa", button="#eceef1",
                  text="#1f2328", mid="#c4c9d0", highlight="#1565c0", tooltip="#fffdf5",
                  disabled="#8c949e", link="#1565c0", light="#ffffff", midlight="#e2e5e9",
                  dark="#9aa3ad", shadow="#6b7380"),
    "dark": dict(window="#23272e", base="#1b1e23", alternate="#262a31", button="#2c313a",
                 text="#e6e9ee", mid="#5a6370", highlight="#3d8bfd", tooltip="#2b2a22",
                 disabled="#6f7885", link="#8cc4ff", light="#4a525e", midlight="#3a414b",
                 dark="#8a94a3", shadow="#0f1114"),
}

_STYLE = """
QDockWidget::title {{ padding: 4px 6px; background: {button}; }}
QToolTip {{ color: {text}; background: {tooltip}; border: 1px solid {mid}; padding: 3px; }}
QStatusBar QLabel {{ color: {disabled}; padding: 0 6px; }}
QTextEdit#codeText {{ background: {base}; }}
QCheckBox::indicator, QAbstractItemView::indicator {{ border: 1px solid {dark}; border-radius: 2px;
    background: {base}; width: 12px; height: 12px; }}
QCheckBox::indicator:checked, QAbstractItemView::indicator:checked {{ background: {highlight};
    border-color: {highlight}; image: url({check}); }}
QCheckBox::indicator:disabled {{ border-color: {mid}; }}
"""


def palette(name):
    """The QPalette of theme `name` ('light' or 'dark')."""
    c = _CHROME[name]
    render = get_theme(name)
    p = QPalette()
    role = QPalette.ColorRole
    for r, key in [(role.Window, "window"), (role.Base, "base"), (role.AlternateBase, "alternate"),
                   (role.Button, "button"), (role.ToolTipBase, "tooltip"),
                   (role.Highlight, "highlight"), (role.Link, "link"), (role.Mid, "mid"),
                   (role.Light, "light"), (role.Midlight, "midlight"), (role.Dark, "dark"),
                   (role.Shadow, "shadow")]:
        p.setColor(r, QColor(c[key]))
    for r in (role.WindowText, role.Text, role.ButtonText, role.ToolTipText):
        p.setColor(r, QColor(c["text"]))
    p.setColor(role.PlaceholderText, QColor(render.muted))
    p.setColor(role.HighlightedText, QColor("#ffffff"))
    p.setColor(role.BrightText, QColor(render.error))
    group = QPalette.ColorGroup.Disabled
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(group, r, QColor(c["disabled"]))
    return p


def apply(name, app=None):
    """Apply theme `name` to the application; returns the name actually applied. The theme
    already applied is left as it is: each new window applies it, and applying restyles
    every widget of the application (0.1 s and more)."""
    name = name if name in THEMES else "light"
    app = app or QApplication.instance()
    sheet = _STYLE.format(check=CHECK.as_posix(), **_CHROME[name])
    if app.property("gradviz_theme") == name and app.styleSheet() == sheet:
        return name
    if "Fusion" in QStyleFactory.keys() and app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    app.setPalette(palette(name))
    app.setStyleSheet(sheet)
    app.setProperty("gradviz_theme", name)
    return name


def current(app=None):
    app = app or QApplication.instance()
    return (app.property("gradviz_theme") if app else None) or "light"
