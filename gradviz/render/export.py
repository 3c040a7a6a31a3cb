"""Export a rendered graph (or one story step) to PNG, SVG or PDF.

Coordinates are CSS pixels at 96 dpi everywhere: the PNG is drawn at `scale` device
pixels per CSS pixel, the SVG generator and the PDF writer are told 96 dpi so
point-sized text keeps its size (QSvgGenerator's default of 72 dpi would shrink it).
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPageLayout, QPageSize, QPainter, \
    QPdfWriter

from ..graph.atomic import write_bytes
from . import png
from .painter import Renderer

FORMATS = ("png", "svg", "pdf")
CSS_DPI = 96.0
# Larger PNGs do not open in common viewers: browsers and GPU textures stop at 16384 px a
# side, Qt's own reader refuses images above 256 MB (64 Mpx of 32-bit pixels).
MAX_PNG_SIDE = 16384
MAX_PNG_PIXELS = 60_000_000
BAND_ROWS = 256
BAND_OVERLAP = 4


def ensure_app():
    """The application Qt needs for fonts; create one (offscreen if headless) if none exists.

    It is a QApplication, not the QGuiApplication painting needs: a process has one
    application for good, and every widget made later in it (matplotlib's Qt backend or
    IPython's `%gui qt` in the notebook that drew a captured tape, the app's window, a
    pytest-qt test after an in-process export) finds this one and aborts the process
    ("QWidget: Cannot create a QWidget without QApplication") if it is not a QApplication.
    It costs nothing measurable: a process that imports and makes either took 0.51-0.55 s.
    """
    app = QGuiApplication.instance()
    if app is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6.QtWidgets import QApplication   # the only QtWidgets name in render
        app = QApplication(["gradviz"])
    return app


def export(doc, path, step=None, theme="light", scale=2.0, dpi=None, evaluation=None, story=None,
           renderer=None, warn=None):
    """Write `doc` (with `step` of the story drawn on top) to `path`; the format comes from the suffix.

    `dpi`, when given for a PNG, sets the scale (dpi / 96) and the resolution recorded in the file.
    A PNG too large to open is drawn at a smaller scale and `warn(message)` says so.
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
        fitted = png_scale(bounds, scale)
        if fitted < scale and warn is not None:
            warn(f"{path.name}: drawn at scale {fitted:.2f} instead of {scale:g} "
                 f"({round(bounds.width() * fitted)} x {round(bounds.height() * fitted)} px), "
                 f"since larger PNGs do not open in common viewers; SVG and PDF have no such limit")
        _png(renderer, bounds, path, step, fitted)
    elif fmt == "svg":
        _svg(renderer, bounds, path, step, doc.title)
    else:
        _pdf(renderer, bounds, path, step, doc.title)
    return path


def png_scale(bounds, scale):
    """`scale`, reduced so that a PNG of `bounds` stays within MAX_PNG_SIDE and MAX_PNG_PIXELS."""
    width, height = max(1.0, bounds.width()), max(1.0, bounds.height())
    limit = min(MAX_PNG_SIDE / width, MAX_PNG_SIDE / height, (MAX_PNG_PIXELS / (width * height)) ** 0.5)
    return min(scale, max(0.01, math.floor(limit * 100) / 100))


def render_image(renderer, step=None, scale=2.0):
    """The picture as a QImage (ARGB32, `scale` pixels per CSS pixel)."""
    ensure_app()
    bounds = renderer.bounds(step)
    width = max(1, round(bounds.width() * scale))
    height = max(1, round(bounds.height() * scale))
    image = QImage(width, height, QImage.Format.Format_RGB32)   # opaque: the PNG stores RGB
    _fill(image, QColor(renderer.theme.background))
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


def _fill(image, colour):
    """Fill a fresh RGB32 image; a large one on threads, since the first touch of its
    memory (page faults) is what fills cost and it halves on two cores."""
    if image.width() * image.height() < 4_000_000:
        image.fill(colour)
        return
    pixels = np.frombuffer(image.bits(), np.uint32).reshape(image.height(), -1)
    bands = np.array_split(np.arange(image.height()), min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(len(bands)) as pool:
        list(pool.map(lambda rows: pixels[rows[0]:rows[-1] + 1].fill(colour.rgb()), bands))


def png_bytes(renderer, step=None, scale=2.0, band_rows=BAND_ROWS):
    """The PNG file of the picture, painted and coded band by band.

    A band of rows is painted (only what reaches into it) into a small reused image
    while the band before is being coded on another thread: no full-size image is
    filled, converted or copied, and the two cores share the work.
    """
    ensure_app()
    bounds = renderer.bounds(step)
    width = max(1, round(bounds.width() * scale))
    height = max(1, round(bounds.height() * scale))
    # Each band is painted with a few rows of the next ones around it: an antialiased
    # line crossing the band's edge is then rasterised as in one whole picture.
    writer = png.BandWriter(width, height, band_rows, dpi=CSS_DPI * scale, overlap=BAND_OVERLAP)
    background = QColor(renderer.theme.background)
    step = renderer.step_at(step)
    for top in range(0, height, band_rows):
        rows = min(band_rows, height - top)
        image = writer.band()
        image.fill(background)
        region = QRectF(bounds.left(), bounds.top() + (top - BAND_OVERLAP) / scale, bounds.width(),
                        (rows + 2 * BAND_OVERLAP) / scale)
        painter = QPainter(image)
        try:
            painter.translate(0, BAND_OVERLAP - top)
            painter.scale(scale, scale)
            painter.translate(-bounds.left(), -bounds.top())
            renderer.paint(painter, step, background=False, region=region.adjusted(-2, -2, 2, 2))
        finally:
            painter.end()
        writer.submit(image, rows)
    return writer.finish()


def _png(renderer, bounds, path, step, scale):
    write_bytes(path, png_bytes(renderer, step, scale))


def _memory_device():
    """An in-memory file for Qt's SVG and PDF writers: the bytes are checked and written
    atomically by `write_bytes`, so a full disk never leaves half a drawing."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    return buffer


def _paint_into(device, renderer, bounds, step, path):
    painter = QPainter()
    if not painter.begin(device):
        raise OSError(f"cannot draw {path}")
    try:
        painter.translate(-bounds.left(), -bounds.top())
        renderer.paint(painter, step)
    finally:
        painter.end()


def _svg(renderer, bounds, path, step, title):
    buffer = _memory_device()
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setResolution(int(CSS_DPI))
    generator.setSize(QSize(round(bounds.width()), round(bounds.height())))
    generator.setViewBox(QRectF(0, 0, bounds.width(), bounds.height()))
    generator.setTitle(title or "gradviz")
    generator.setDescription("gradviz graph export")
    _paint_into(generator, renderer, bounds, step, path)
    write_bytes(path, bytes(buffer.data()))


def _pdf(renderer, bounds, path, step, title):
    buffer = _memory_device()
    writer = QPdfWriter(buffer)
    writer.setResolution(int(CSS_DPI))
    writer.setTitle(title or "gradviz")
    writer.setCreator("gradviz")
    points = QSizeF(bounds.width() * 72 / CSS_DPI, bounds.height() * 72 / CSS_DPI)
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize.Unit.Point, "gradviz"),
                                     QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    _paint_into(writer, renderer, bounds, step, path)
    del writer   # the PDF is complete in the buffer once its writer is gone
    write_bytes(path, bytes(buffer.data()))
