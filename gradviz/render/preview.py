"""Small pictures of a tensor: a number, a grid of numbers (with ellipses), or a heatmap.

`measure(array)` says how big the picture is, `draw(...)` paints it; both agree, so the
node card can be sized before it is painted. Arrays of rank > 2 are folded to 2-D
(leading axes into rows) for the picture; the card's shape line still gives the true shape.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPen

FULL_ROWS, FULL_COLS = 6, 5       # shown completely up to this size
ELLIPSIS_MAX = 10                 # up to this many rows/cols: first 3, an ellipsis, the last
HEAT_W, HEAT_H = 132.0, 84.0      # heatmap thumbnail box
CELL_H = 16.0
CELL_PAD = 7.0
BRACKET = 5.0


def mono_font(size=8.5, bold=False):
    font = QFont("DejaVu Sans Mono")
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(size)
    font.setBold(bold)
    return font


def sans_font(size=9.0, bold=False):
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(size)
    font.setBold(bold)
    return font


def shape_text(array):
    if array is None:
        return ""
    shape = np.shape(array)
    dims = "×".join(str(d) for d in shape) if shape else "scalar"
    dtype = getattr(array, "dtype", None)
    return f"{dims} · {dtype}" if dtype is not None else dims


def as_2d(array):
    a = np.asarray(array)
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    return a.reshape(-1, a.shape[-1])


def number_format(values):
    """A format that suits every number of `values`: same decimals, so columns line up."""
    a = np.asarray(values)
    if a.dtype == bool:
        return lambda v: "T" if v else "F"
    if np.issubdtype(a.dtype, np.integer):
        return lambda v: str(int(v))
    finite = np.abs(a[np.isfinite(a)]) if a.size else a
    biggest = float(finite.max()) if finite.size else 0.0
    smallest = float(finite[finite > 0].min()) if np.any(finite > 0) else 0.0
    if biggest >= 1e5 or (0 < biggest < 1e-3):
        return lambda v: f"{v:.2e}"
    if biggest == 0 or (np.all(a[np.isfinite(a)] == np.round(a[np.isfinite(a)])) and biggest < 1e5):
        return lambda v: f"{v:.0f}" if math.isfinite(v) else str(v)
    decimals = 4 if biggest < 10 and smallest >= 1e-3 and a.size <= 4 else 3
    decimals = max(0, min(decimals, decimals - int(math.floor(math.log10(biggest)))))
    return lambda v: f"{v:.{decimals}f}" if math.isfinite(v) else str(v)


def kind(array):
    a = np.asarray(array)
    if a.ndim == 0 or a.size == 1 and a.ndim <= 1:
        return "scalar"
    rows, cols = as_2d(a).shape
    if rows <= FULL_ROWS and cols <= FULL_COLS:
        return "grid"
    if rows <= ELLIPSIS_MAX and cols <= ELLIPSIS_MAX:
        return "ellipsis"
    return "heatmap"


def _picked(n, full):
    """Indices shown along one axis; None stands for the ellipsis."""
    if n <= full:
        return list(range(n))
    return [0, 1, 2, None, n - 1]


def _cells(array, kind_):
    a = as_2d(array)
    full_r, full_c = (FULL_ROWS, FULL_COLS) if kind_ == "grid" else (4, 4)
    rows = _picked(a.shape[0], full_r)
    cols = _picked(a.shape[1], full_c)
    fmt = number_format(a)
    table = []
    for r in rows:
        line = []
        for c in cols:
            if r is None:
                line.append("⋮" if c is not None else "⋱")
            elif c is None:
                line.append("⋯")
            else:
                line.append(fmt(a[r, c].item()))
        table.append(line)
    return table


def measure(array, font_size=8.5):
    if array is None:
        return 0.0, 0.0
    k = kind(array)
    if k == "scalar":
        fm = QFontMetricsF(mono_font(font_size + 2, bold=True))
        text = number_format(np.asarray(array))(np.asarray(array).reshape(-1)[0].item())
        return fm.horizontalAdvance(text) + 4, fm.height() + 2
    if k == "heatmap":
        a = as_2d(array)
        w, h = _heat_size(a.shape)
        return max(w, 100.0), h + CELL_H
    table = _cells(array, k)
    widths = _column_widths(table, font_size)
    return sum(widths) + 2 * BRACKET + 4, len(table) * CELL_H + 4


def _column_widths(table, font_size):
    fm = QFontMetricsF(mono_font(font_size))
    return [max(fm.horizontalAdvance(row[c]) for row in table) + CELL_PAD for c in range(len(table[0]))]


def _heat_size(shape):
    rows, cols = shape
    cell = min(HEAT_W / cols, HEAT_H / rows, 12.0)
    return cols * cell, rows * cell


def _lerp(c1, c2, t):
    return (c1[0] + (c2[0] - c1[0]) * t, c1[1] + (c2[1] - c1[1]) * t, c1[2] + (c2[2] - c1[2]) * t)


def diverging_rgb(a, colours):
    """Zero-centred diverging colour map: -max|a| -> colours[0], 0 -> colours[1], +max|a| -> colours[2]."""
    neg, mid, pos = (np.array(QColor(c).getRgb()[:3], dtype=np.float64) for c in colours)
    a = np.asarray(a, dtype=np.float64)
    finite = np.isfinite(a)
    scale = np.abs(a[finite]).max() if finite.any() else 0.0
    t = np.zeros_like(a) if scale == 0 else np.clip(np.where(finite, a, 0) / scale, -1, 1)
    t = t[..., None]
    rgb = np.where(t < 0, mid + (neg - mid) * (-t), mid + (pos - mid) * t)
    return np.round(rgb).astype(np.uint8), scale


def draw(painter, array, x, y, colour, theme, font_size=8.5):
    """Paint the preview of `array` with its top-left corner at (x, y); returns (w, h)."""
    w, h = measure(array, font_size)
    k = kind(array)
    a = np.asarray(array)
    painter.save()
    if k == "scalar":
        painter.setFont(mono_font(font_size + 2, bold=True))
        painter.setPen(QColor(colour))
        text = number_format(a)(a.reshape(-1)[0].item())
        painter.drawText(QRectF(x, y, w, h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
    elif k == "heatmap":
        _draw_heatmap(painter, a, x, y, theme, font_size)
    else:
        table = _cells(a, k)
        widths = _column_widths(table, font_size)
        pen = QPen(QColor(colour), 1.1)
        painter.setPen(pen)
        top, bottom = y + 1, y + h - 1
        left, right = x + 1, x + w - 1
        for side, edge in ((left, 1), (right, -1)):
            painter.drawLine(QPointF(side, top), QPointF(side, bottom))
            painter.drawLine(QPointF(side, top), QPointF(side + edge * BRACKET * 0.7, top))
            painter.drawLine(QPointF(side, bottom), QPointF(side + edge * BRACKET * 0.7, bottom))
        painter.setFont(mono_font(font_size))
        cy = y + 2
        for row in table:
            cx = x + BRACKET + 2
            for text, cw in zip(row, widths):
                align = Qt.AlignmentFlag.AlignRight if text not in ("⋮", "⋯", "⋱") else Qt.AlignmentFlag.AlignHCenter
                painter.drawText(QRectF(cx, cy, cw - CELL_PAD / 2, CELL_H),
                                 align | Qt.AlignmentFlag.AlignVCenter, text)
                cx += cw
            cy += CELL_H
    painter.restore()
    return w, h


def _draw_heatmap(painter, a, x, y, theme, font_size):
    a2 = as_2d(a).astype(np.float64)
    rgb, scale = diverging_rgb(a2, theme.diverging)
    rows, cols = a2.shape
    rgba = np.empty((rows, cols, 4), dtype=np.uint8)
    rgba[..., :3] = rgb
    rgba[..., 3] = 255
    image = QImage(rgba.tobytes(), cols, rows, cols * 4, QImage.Format.Format_RGBA8888).copy()
    w, h = _heat_size(a2.shape)
    painter.setRenderHint(painter.RenderHint.SmoothPixmapTransform, False)
    painter.drawImage(QRectF(x, y, w, h), image)
    painter.setPen(QPen(QColor(theme.card_border), 0.8))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(QRectF(x, y, w, h))
    painter.setFont(sans_font(font_size - 1))
    painter.setPen(QColor(theme.muted))
    fmt = number_format(np.array([scale]))
    painter.drawText(QRectF(x, y + h, max(w, 100.0), CELL_H), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                     f"±{fmt(scale)} heatmap")
