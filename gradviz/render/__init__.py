"""Painting a graph document and one story frame (QtGui only); PNG, SVG and PDF export.

Shared by the desktop app and the command line. Imports QtWidgets only for the
QApplication that ensure_app makes (a QGuiApplication would abort any later widget).
"""
from .export import ensure_app, export, render_image  # noqa: F401
from .layout import layout  # noqa: F401
from .painter import Renderer  # noqa: F401
from .themes import THEMES, Theme, get_theme  # noqa: F401
