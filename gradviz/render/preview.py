"""Small pictures of a tensor: a number, a grid of numbers (with ellipses), or a heatmap.

`Preview(array)` lays the picture out once (its kind and size; the numbers' text when first drawn) and
`draw`s it as often as asked, so a card is sized and painted from the same layout.
Arrays of rank > 2 are folded to 2-D (leading axes into rows) for the picture; the
card's shape line still gives the true shape. (Cards and formula cards draw rank-3 and
rank-4 tensors as tiles instead: render.tiles.) How a heatmap's cells are laid out
(wrapped, cut into blocks, thinned) is render.heat_layout's.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGlyphRun, QImage, QPaintEngine, QPainterPath, QPen, QPixmap, QPolygonF, QRawFont

# the rule for writing numbers, which text (provenance, explain) follows too; its names stay
# reachable here, where the pictures use them
from ..story.numbers import (card_spec, factor_text, mantissa_spec, number_format, number_spec,  # noqa: F401
                             scaled, shared_spec, spec_on_card)
from ..story.numbers import magnitudes_of as _magnitudes
from ..story.numbers import loses_entries, unsigned_zero
from ..engine.errors import ordinal
from ..graph.tensors import dims  # noqa: F401  (the cards' shape words, render's name for them)
from . import text as _text
from .heat_layout import WRAP, HeatLayout, as_2d, square_cell

FULL_ROWS, FULL_COLS = 6, 6       # shown completely up to this size
ELLIPSIS_MAX = 10                 # up to this many rows/cols: first 3, an ellipsis, the last
CELL_H = 16.0
ELLIPSES = ("⋮", "⋯", "⋱")
BRACKET = 5.0
ENTRY_PAD = 2.0      # between an entry's text and the box that marks it
CAPTION_MIN_W = 100.0
_RASTER = QPaintEngine.Type.Raster
_RASTER_DEVICES = (QImage, QPixmap)   # always painted by the raster engine
_NO_BRUSH = QBrush(Qt.BrushStyle.NoBrush)

mono_font = _text.mono
sans_font = _text.sans


def shape_text(array):
    """A card's shape and dtype, "2×3 · float32" (its shape alone: `dims`)."""
    if array is None:
        return ""
    return _shape_text(np.shape(array), getattr(array, "dtype", None))


@lru_cache(maxsize=1024)
def _shape_text(shape, dtype):
    return f"{dims(shape)} · {dtype}" if dtype is not None else dims(shape)


def _table_format(a, spec=None):
    """(printf spec, format function, column width in characters) of a table of the 2-D
    array `a`: what a Preview and its renumbered copies work out from the numbers
    (`spec`: a format the caller imposes, for a numeric array). The spec is None where one
    printf of the table would not write what the function does: booleans, and an entry
    written NEAR_ZERO (story.numbers.loses_entries)."""
    magnitudes = _magnitudes(a) if a.dtype.kind in "iuf" else None
    spec = spec if spec is not None and magnitudes is not None else number_spec(a, magnitudes)
    fmt = number_format(a, magnitudes, spec)
    printf = None if magnitudes is None or loses_entries(magnitudes, spec) else spec
    return printf, fmt, _widest(a, fmt, magnitudes)


def _widest(a, fmt, magnitudes):
    """How many characters the widest number `fmt` can make of `a` takes, a minus sign
    always counted: the largest and the smallest magnitude bound every other one."""
    if a.dtype == bool or a.size == 0:
        return 1
    biggest, smallest, _, nonfinite = magnitudes
    sign = 0 if a.dtype.kind == "u" else 1
    as_number = int if a.dtype.kind in "iu" else float
    return max(4 if nonfinite else 1,                     # "-inf", "nan"
               *(sign + len(fmt(as_number(m))) for m in {biggest, smallest}))


def cell_runs(table, widths, chars):
    """Preview.runs from the text of every cell (`table`), the column `widths` and the
    characters a number takes."""
    out = []
    for row in table:
        runs, x, run, run_x = [], 0.0, "", 0.0
        for c, value in enumerate(row):
            if value in ELLIPSES:
                if run:
                    runs.append((run_x, 0.0, run, False))
                    run = ""
                runs.append((x, widths[c], value, True))
            else:
                if not run:
                    run_x = x
                run += " " + value.rjust(chars)
            x += widths[c]
        if run:
            runs.append((run_x, 0.0, run, False))
        out.append(runs)
    return out


def kind(array, compact=False):
    """"scalar", "grid" (every number), "ellipsis" (corners and ellipses), "heatmap", or
    "empty" (a tensor with a 0 in its shape: its shape in words, no numbers).

    `compact` (a layer weight's gradient on its card) has no ellipsis form: what is not
    shown whole is a heatmap thumbnail.
    """
    a = np.asarray(array)
    if a.size == 0:
        return "empty"
    if a.ndim == 0 or a.size == 1 and a.ndim <= 1:
        return "scalar"
    rows, cols = as_2d(a).shape
    if rows <= FULL_ROWS and cols <= FULL_COLS:
        return "grid"
    if rows <= ELLIPSIS_MAX and cols <= ELLIPSIS_MAX and not compact:
        return "ellipsis"
    return "heatmap"


def _picked(n, full):
    """Indices shown along one axis; None stands for the ellipsis."""
    if n <= full:
        return list(range(n))
    return [0, 1, 2, None, n - 1]


def _heat_size(shape):
    """(width, height, cell) of a heat picture of `shape` cells (square_cell)."""
    rows, cols = shape
    cell = square_cell(rows, cols)
    return cols * cell, rows * cell, cell


@lru_cache(maxsize=16)
def _colour_stops(colours):
    """(negative end - middle, middle, positive end - middle) of a diverging map as float
    RGB arrays: parsed and subtracted once, not per picture."""
    neg, mid, pos = (np.array(QColor(c).getRgb()[:3], dtype=np.float64) for c in colours)
    return neg - mid, mid, pos - mid


def diverging_rgb(a, colours, scale=None):
    """Zero-centred diverging colour map: -scale -> colours[0], 0 -> colours[1], +scale ->
    colours[2]; `scale` defaults to max|a| (a picture of several parts passes its own)."""
    to_neg, mid, to_pos = _colour_stops(tuple(colours))
    a = np.asarray(a, dtype=np.float64)
    finite = np.isfinite(a)
    every = finite.all()   # mostly: the masks below then cost nothing
    if scale is None:
        scale = (np.abs(a).max() if a.size else 0.0) if every else \
            (np.abs(a[finite]).max() if finite.any() else 0.0)
    t = np.zeros_like(a) if scale == 0 else np.clip((a if every else np.where(finite, a, 0)) / scale, -1, 1)
    t = t[..., None]
    rgb = np.where(t < 0, mid + to_neg * (-t), mid + to_pos * t)
    return np.round(rgb).astype(np.uint8), scale


def rgba_image(rgba):
    """An RGBA array (rows, cols, 4) of uint8 as a QImage in the raster engine's own format
    (premultiplied ARGB32), so that drawing it converts nothing: a 4x4 thumbnail scaled onto
    a card took 57 us as RGBA8888 and takes 4 (a training run draws a hundred a preview)."""
    rows, cols = rgba.shape[:2]
    image = QImage(rgba.tobytes(), cols, rows, cols * 4, QImage.Format.Format_RGBA8888)
    return image.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)


class Preview:
    """One tensor's picture, laid out once: `width`, `height`, `draw`, `cell_rect`."""

    def __init__(self, array, font_size=8.5, compact=False, spec=None):
        self.array = np.asarray(array)
        self.font_size, self.compact = font_size, compact
        self.kind = kind(self.array, compact)
        self._images = {}
        numeric = self.array.dtype.kind in "iuf"
        self.spec = spec if numeric else None    # a format the caller imposes, if any
        shown, self.power = scaled(self.array) if spec is None else (self.array, 0)
        self.factor = factor_text(self.power)    # beside numbers divided by 10**power
        own = mantissa_spec(self.power, self.spec)
        if self.kind in ("scalar", "empty"):
            if self.kind == "scalar":
                self.font = _text.mono(font_size + 2, bold=True)
                self.text = number_format(shown, spec=own)(shown.reshape(-1)[0].item()) + self.factor
            else:
                self.font = _text.sans(font_size)
                self.text = f"empty, shape {dims(np.shape(self.array))}"
            self.width = _text.width(self.font, self.text) + 4
            self.height = _text.metrics(self.font).height() + 2
        elif self.kind == "heatmap":
            self.heat = HeatLayout(self.array)
            self.grid, self.real = self.heat.grid, self.heat.real
            self.heat_w, self.heat_h, self.cell = _heat_size(self.grid.shape)
            # the colour scale and its ± of the whole matrix, not of the rows and columns a
            # thinned picture shows (a 100 x 100 said ±14.230 where max |.| was 15.205)
            whole = self.array.astype(np.float64)
            finite = whole[np.isfinite(whole)]
            scale = self.scale = float(np.abs(finite).max()) if finite.size else 0.0
            scale_text = number_format(np.array([scale]) / 10.0 ** self.power, spec=own)
            self.caption = f"±{scale_text(scale / 10.0 ** self.power)}{self.factor} heatmap"
            if self.heat.wrapped:   # a vector wrapped: say so (and which of its values, if not all)
                every = f"every {ordinal(self.heat.step[0])} of " if self.heat.step[0] > 1 else ""
                self.caption += f", {every}{self.array.size} values, {WRAP} per row"
            self.caption_lines = tuple(line for line in (self.caption, self.heat.thinned, self.heat.blocks)
                                       if line)
            self.caption_font = _text.sans(font_size)   # as legible as the numbers (legible.NUMBER_PT)
            self.width = max(self.heat_w, CAPTION_MIN_W,
                             *(_text.width(self.caption_font, line) + 2 for line in self.caption_lines))
            self.height = self.heat_h + CELL_H * len(self.caption_lines)
        else:
            a = as_2d(shown)
            full_r, full_c = (FULL_ROWS, FULL_COLS) if self.kind == "grid" else (4, 4)
            self.rows, self.cols = _picked(a.shape[0], full_r), _picked(a.shape[1], full_c)
            self._a2 = a
            self._spec, self._fmt, chars = _table_format(a, own)
            self._runs = self._text = None
            self._plain = self._printf_table(self._spec)
            self.font = _text.mono(font_size)
            self._lay_out_table(chars)
            self.height = len(self.rows) * CELL_H + 4

    def renumbered(self, array, spec=None):
        """The picture of `array`, of this one's shape and dtype: a table whose numbers
        need columns as wide keeps this layout (only the numbers' format is made again),
        anything else is laid out afresh. A value edit renumbers every card downstream.
        `spec`: a format the caller imposes on the new numbers."""
        if self.kind not in ("grid", "ellipsis"):
            return Preview(array, self.font_size, self.compact, spec)
        array = np.asarray(array)
        shown, power = scaled(array) if spec is None else (array, 0)
        a = as_2d(shown)
        written, fmt, chars = _table_format(a, mantissa_spec(power, spec))
        if chars != self._chars or power != self.power:
            return Preview(array, self.font_size, self.compact, spec)
        shown = object.__new__(Preview)
        shown.__dict__.update(self.__dict__, array=array, spec=spec, _a2=a, _spec=written, _fmt=fmt,
                              _runs=None, _text=None, _images={}, _plain=self._printf_table(written))
        return shown

    def _printf_table(self, printf):
        """Is the table one printf of every value (`_number_text`): numbers only, no
        ellipsis, no boolean, no entry written NEAR_ZERO (`printf`: _table_format's spec)?"""
        return printf is not None and bool(self.cols) and None not in self.rows and None not in self.cols

    def look(self, theme):
        """What `draw` paints, as a value two pictures of one layout compare by: the text
        of a number or a table, a heatmap's caption and colours. New numbers that leave it
        as it was (a change below the printed digits) need no new picture."""
        if self.kind in ("scalar", "empty"):
            return self.text
        if self.kind == "heatmap":
            image = self._image(theme)
            return self.caption_lines, bytes(image.constBits())
        return self.factor, self._number_text() or self.table

    @property
    def size(self):
        return self.width, self.height

    def draw(self, painter, x, y, colour, theme, zoom=None, least_px=None):
        """Paint with the top-left corner at (x, y). (`zoom`, the scale it is seen at, and
        `least_px` are for tiles.Tiles, the same face: a table writes its numbers at every zoom.)"""
        painter.save()
        if self.kind in ("scalar", "empty"):
            painter.setFont(self.font)
            painter.setPen(QColor(colour))
            painter.drawText(QRectF(x, y, self.width, self.height),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.text)
        elif self.kind == "heatmap":
            self._draw_heatmap(painter, x, y, theme)
        else:
            self._draw_table(painter, x, y, colour)
            if self.factor:
                painter.setFont(self.factor_font)
                painter.drawText(QRectF(self.table_w + 2, 0, self.width - self.table_w - 2, self.height),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.factor)
        painter.restore()
        return self.width, self.height

    def _lay_out_table(self, chars):
        """Column widths: every number column `chars` digits wide (sign included), so the
        picture's size follows the numbers' magnitude, not their values, and a card keeps
        its width while its values change (its edges need no new route)."""
        self._chars = chars
        self.widths, self.cell_pad, self.table_w = _table_layout(self.font_size, chars,
                                                                 tuple(c is None for c in self.cols))
        self.width = self.table_w
        if self.factor:    # written after the closing bracket, as legible as the numbers
            self.factor_font = _text.sans(self.font_size)
            self.width += _text.width(self.factor_font, self.factor) + 4

    @property
    def table(self):
        """The text of every cell as drawn: numbers, "⋯" / "⋮" / "⋱" where rows or columns are left out."""
        a, fmt = self._a2, self._fmt
        return [["⋮" if c is not None else "⋱" for c in self.cols] if r is None else
                ["⋯" if c is None else fmt(a[r, c].item()) for c in self.cols]
                for r in self.rows]

    @property
    def runs(self):
        """Per row, the text runs to draw, made when first drawn (a card out of view never
        formats its numbers).

        The numbers are in a monospace font, so a run of number cells is one string,
        each cell a space and the number padded on the left to the column width: one
        drawText a run instead of one a cell. The ellipsis glyphs come from a fallback
        font of other widths, so each is drawn alone, centred in its column.
        """
        if self._runs is None:
            text = self._number_text()
            if text is not None:
                step = len(text) // len(self.rows)
                self._runs = [[(0.0, 0.0, text[i:i + step], False)] for i in range(0, len(text), step)]
            else:
                self._runs = cell_runs(self.table, self.widths, self._chars)
        return self._runs

    def _number_text(self):
        """The rows of a table without ellipses, one after the other, from one printf of
        every value (padding included): the text `cell_runs` makes cell by cell, many times
        faster. None for other tables, or if a number came out wider than its column."""
        if self._text is None and self._plain:
            a = self._a2
            cell = f" %{self._chars}{self._spec[1:]}"
            text = unsigned_zero((cell * a.size) % tuple(a.ravel().tolist()))
            self._text = text if len(text) == a.size * (self._chars + 1) else ""
        return self._text or None

    def _draw_table(self, painter, x, y, colour):
        painter.translate(x, y)
        painter.setPen(_pen(colour))
        painter.setBrush(_NO_BRUSH)   # the brackets' path is two open polylines: stroked, not filled
        painter.drawPath(_brackets(self.table_w, self.height))
        painter.setFont(self.font)
        # A run is drawn at its baseline (no layout box to align in: the cheapest drawText).
        origins = _row_origins(self.font_size, len(self.rows))
        text = self._number_text()
        if text is not None and _draw_glyph_rows(painter, self.font_size, text, len(self.rows), origins[0]):
            return
        centre = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter
        for i, (runs, origin) in enumerate(zip(self.runs, origins)):
            for rx, rw, value, glyph in runs:
                if glyph:
                    painter.drawText(QRectF(BRACKET + 2 + rx + self.cell_pad, 2 + i * CELL_H, rw - self.cell_pad,
                                            CELL_H), centre, value)
                else:
                    painter.drawText(origin + QPointF(rx, 0.0) if rx else origin, value)

    def _image(self, theme):
        image = self._images.get(theme.diverging)
        if image is None:
            rgb, _ = diverging_rgb(self.grid, theme.diverging, self.scale)
            rows, cols = self.grid.shape
            rgba = np.empty((rows, cols, 4), dtype=np.uint8)
            rgba[..., :3] = rgb
            rgba[..., 3] = np.where(self.heat.index < 0, 0, 255) if self.real < self.grid.size else 255
            image = rgba_image(rgba)
            self._images[theme.diverging] = image
        return image

    def _draw_heatmap(self, painter, x, y, theme):
        w, h = self.heat_w, self.heat_h
        painter.setRenderHint(painter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(QRectF(x, y, w, h), self._image(theme))
        painter.setPen(QPen(QColor(theme.card_border), 0.8))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(QRectF(x, y, w, h))
        painter.setFont(self.caption_font)
        painter.setPen(QColor(theme.muted))
        for i, line in enumerate(self.caption_lines):
            painter.drawText(QRectF(x, y + h + i * CELL_H, self.width, CELL_H),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)

    def cell_rect(self, x, y, flat_index):
        """The cell of entry `flat_index` when drawn at (x, y); None if an ellipsis hides it
        (or a heatmap of every k-th row and column leaves it out)."""
        if self.kind == "scalar":
            return QRectF(x, y, self.width, self.height)
        if self.kind == "empty":
            return None
        if self.kind == "heatmap":
            at = self.heat.position(flat_index)
            if at is None:          # between the rows and columns a large matrix shows
                return None
            r, c = at
            return QRectF(x + c * self.cell, y + r * self.cell, self.cell, self.cell)
        column = self._column_rect(x, y, flat_index)
        if column is None:
            return None
        # The number is right-aligned in its column (`cell_runs`): the box holds its text
        # with ENTRY_PAD on either side, centred on it ('nan' in a column of '0.000').
        r, c = divmod(int(flat_index), as_2d(self.array).shape[1])
        advance = 2 * self.cell_pad
        chars = len(self._fmt(self._a2[r, c].item()).strip())
        right = column.right() - ENTRY_PAD
        return QRectF(right - chars * advance - ENTRY_PAD, column.top(), chars * advance + 2 * ENTRY_PAD,
                      column.height())

    def _column_rect(self, x, y, flat_index):
        """The whole column's cell of entry `flat_index` of a table (what a click finds it by),
        its right edge ENTRY_PAD right of the number's."""
        r, c = divmod(int(flat_index), as_2d(self.array).shape[1])
        if r not in self.rows or c not in self.cols:
            return None
        ci = self.cols.index(c)
        cx = x + BRACKET + 2 + sum(self.widths[:ci]) + self.cell_pad
        return QRectF(cx - 1, y + 2 + self.rows.index(r) * CELL_H, self.widths[ci] - self.cell_pad + 1 + ENTRY_PAD,
                      CELL_H)


    def entry_at(self, x, y, point):
        """The flat index of the entry drawn under `point` (drawn at (x, y)), or None:
        the inverse of `cell_rect`."""
        if self.kind == "heatmap":
            r = math.floor((point.y() - y) / self.cell)
            c = math.floor((point.x() - x) / self.cell)
            rows, cols = self.grid.shape
            flat = int(self.heat.index[r, c]) if 0 <= r < rows and 0 <= c < cols else -1
            return flat if flat >= 0 else None
        if self.kind == "empty":
            return None
        candidates = [0] if self.kind == "scalar" else (
            r * as_2d(self.array).shape[1] + c for r in self.rows if r is not None
            for c in self.cols if c is not None)
        find = self.cell_rect if self.kind == "scalar" else self._column_rect
        for flat in candidates:
            rect = find(x, y, flat)
            if rect is not None and rect.contains(point):
                return int(flat)
        return None


@lru_cache(maxsize=256)
def _table_layout(font_size, chars, ellipsis_columns):
    """(column widths, cell padding, table width) of a table of `chars`-digit numbers."""
    font = _text.mono(font_size)
    adv = _text.width(font, "0")
    glyph_w = max(_text.width(font, g) for g in ELLIPSES) + adv
    widths = [glyph_w if glyph else (chars + 1) * adv for glyph in ellipsis_columns]
    return widths, adv / 2, sum(widths) + adv / 2 + 2 * BRACKET + 4


@lru_cache(maxsize=64)
def _pen(colour):
    """The table's pen (brackets and numbers) in `colour`: made once, not once a table."""
    return QPen(QColor(colour), 1.1)


@lru_cache(maxsize=256)
def _brackets(width, height):
    """The [ and ] of a table `width` x `height`, relative to its top-left corner: one path
    of two polylines (one drawPath instead of two drawPolyline, the same pixels)."""
    top, bottom, left, right = 1.0, height - 1, 1.0, width - 1
    arm = BRACKET * 0.7
    path = QPainterPath()
    for side, edge in ((left, arm), (right, -arm)):
        path.addPolygon(QPolygonF([QPointF(side + edge, top), QPointF(side, top),
                                   QPointF(side, bottom), QPointF(side + edge, bottom)]))
    return path


@lru_cache(maxsize=64)
def _row_origins(font_size, rows):
    """Where each row's text starts (its baseline), relative to the table's top-left."""
    metrics = _text.metrics(_text.mono(font_size))
    baseline = (CELL_H - metrics.height()) / 2 + metrics.ascent()
    return tuple(QPointF(BRACKET + 2, 2 + i * CELL_H + baseline) for i in range(rows))


_RAW_FONTS = {}   # (font size, device dpi) -> (QRawFont, advance of a digit, NUMBER_CHARS' glyph table)
_GLYPH_RUNS = {}  # (font size, device dpi, rows, characters a row) -> QGlyphRun, positions set
NUMBER_CHARS = " 0123456789.-+einfa"   # all printf writes for a number (with "inf", "nan")


def _raw_font(font):
    """(`font` as a QRawFont, the advance of a digit, a bytes.translate table from each of
    NUMBER_CHARS to its glyph index: None unless every one has a glyph below 256)."""
    raw = QRawFont.fromFont(font)
    glyphs = raw.glyphIndexesForString(NUMBER_CHARS)
    table = None
    if all(0 < g < 256 for g in glyphs):
        table = bytearray(256)
        for char, glyph in zip(NUMBER_CHARS, glyphs):
            table[ord(char)] = glyph
        table = bytes(table)
    return raw, raw.advancesForGlyphIndexes(raw.glyphIndexesForString("0"))[0].x(), table


def _draw_glyph_rows(painter, font_size, text, rows, origin):
    """Draw `text`, `rows` rows of numbers of one length one after the other, as one glyph
    run, the first row's baseline at `origin`, and say whether it could: not when a glyph
    is missing from the font (drawText would take it from another font).

    drawText shapes its text every time, a third of its cost; these rows need no shaping,
    since every glyph of the monospace font stands one advance after the other. The pixels
    are drawText's. Raster painting only: an SVG would get paths instead of text. The
    glyph indexes come from a table (one bytes.translate) rather than a call into Qt:
    every card's numbers are drawn again after a value edit.
    """
    device = painter.device()
    if not isinstance(device, _RASTER_DEVICES) and painter.paintEngine().type() != _RASTER:
        return False
    dpi = device.logicalDpiY()
    raw = _RAW_FONTS.get((font_size, dpi))
    if raw is None:   # the painter's font is resolved for its device (its dpi sets the pixel size)
        raw = _RAW_FONTS[font_size, dpi] = _raw_font(painter.font())
    font, advance, table = raw
    if table is not None:
        indexes = text.encode("ascii", "replace").translate(table)   # 0 for a character not in the table
        if 0 in indexes:
            return False
        glyphs = list(indexes)
    else:
        glyphs = font.glyphIndexesForString(text)
        if 0 in glyphs:
            return False
    chars = len(text) // rows
    key = (font_size, dpi, rows, chars)
    template = _GLYPH_RUNS.get(key)
    if template is None:
        template = _GLYPH_RUNS[key] = QGlyphRun()
        template.setRawFont(font)
        template.setPositions([QPointF(c * advance, r * CELL_H) for r in range(rows) for c in range(chars)])
    run = QGlyphRun(template)
    run.setGlyphIndexes(glyphs)
    painter.drawGlyphRun(origin, run)
    return True


def measure(array, font_size=8.5):
    if array is None:
        return 0.0, 0.0
    return Preview(array, font_size).size


def draw(painter, array, x, y, colour, theme, font_size=8.5):
    """Paint the preview of `array` with its top-left corner at (x, y); returns (w, h)."""
    return Preview(array, font_size).draw(painter, x, y, colour, theme)
