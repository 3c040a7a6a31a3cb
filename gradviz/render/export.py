"""Export a rendered graph (or one story step) to PNG, SVG or PDF.

Coordinates are CSS pixels at 96 dpi everywhere: the PNG is drawn at `scale` device
pixels per CSS pixel, the SVG generator and the PDF writer are told 96 dpi so
point-sized text keeps its size (QSvgGenerator's default of 72 dpi would shrink it).
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QGuiApplication, QImage, QImageWriter, QPageLayout, QPageSize, QPainter, \
    QPdfWriter

from .painter import Renderer

FORMATS = ("png", "svg", "pdf")
CSS_DPI = 96.0


def ensure_app():
    """A QGuiApplication is needed for fonts; create one (offscreen if headless) if none exists."""
    app = QGuiApplication.instance()
    if app is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication(["gradviz"])
    return app


def export(doc, path, step=None, theme="light", scale=2.0, dpi=None, evaluation=None, story=None,
           renderer=None):
    """Write `doc` (with `step` of the story drawn on top) to `path`; the format comes from the suffix.

    `dpi`, when given for a PNG, sets the scale (dpi / 96) and the resolution recorded in the file.
    Returns the path written.
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"cannot export to '{path.name}': the file name must end in .png, .svg or .pdf")
    ensure_app()
    renderer = renderer or Renderer(doc, evaluation=evaluation, story=story, theme=theme)
    bounds = renderer.bounds(step)
    if fmt == "png":
        if dpi is not None:
            scale = dpi / CSS_DPI
        _png(renderer, bounds, path, step, scale)
    elif fmt == "svg":
        _svg(renderer, bounds, path, step, doc.title)
    else:
        _pdf(renderer, bounds, path, step, doc.title)
    return path


def render_image(renderer, step=None, scale=2.0):
    """The picture as a QImage (ARGB32, `scale` pixels per CSS pixel)."""
    ensure_app()
    bounds = renderer.bounds(step)
    width = max(1, round(bounds.width() * scale))
    height = max(1, round(bounds.height() * scale))
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(renderer.theme.background))
    painter = QPainter(image)
    try:
        painter.scale(scale, scale)
        painter.translate(-bounds.left(), -bounds.top())
        renderer.paint(painter, step, background=False)
    finally:
        painter.end()
    dots_per_metre = round(CSS_DPI * scale / 0.0254)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    return image


def _png(renderer, bounds, path, step, scale):
    image = render_image(renderer, step, scale)
    writer = QImageWriter(str(path), b"png")
    writer.setQuality(80)            # zlib level 1: flat colours compress well, fast
    if not writer.write(image):
        raise OSError(f"cannot write {path}: {writer.errorString()}")


def _svg(renderer, bounds, path, step, title):
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setResolution(int(CSS_DPI))
    generator.setSize(QSize(round(bounds.width()), round(bounds.height())))
    generator.setViewBox(QRectF(0, 0, bounds.width(), bounds.height()))
    generator.setTitle(title or "gradviz")
    generator.setDescription("gradviz graph export")
    painter = QPainter()
    if not painter.begin(generator):
        raise OSError(f"cannot write {path}")
    try:
        painter.translate(-bounds.left(), -bounds.top())
        renderer.paint(painter, step)
    finally:
        painter.end()


def _pdf(renderer, bounds, path, step, title):
    writer = QPdfWriter(str(path))
    writer.setResolution(int(CSS_DPI))
    writer.setTitle(title or "gradviz")
    writer.setCreator("gradviz")
    points = QSizeF(bounds.width() * 72 / CSS_DPI, bounds.height() * 72 / CSS_DPI)
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize.Unit.Point, "gradviz"),
                                     QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"cannot write {path}")
    try:
        painter.translate(-bounds.left(), -bounds.top())
        renderer.paint(painter, step)
    finally:
        painter.end()
