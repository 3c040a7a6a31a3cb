"""Pictures of rank-3 and rank-4 tensors as what they are.

An NHWC batch of images reads, per example (a row), as one small heat tile per channel;
a convolution filter (HWIO) as a grid of in x out tiles of its H x W taps; a sequence
(N, T, F) as a tokens x features grid per example. The picture has one colour scale
(zero-centred and diverging, so a gradient's sign reads at a glance), writes each
cell's number once the zoom makes it legible (legible.READABLE_PX tall, in the card's one
number format), and answers which entry lies under a
point (the canvas's tooltip, provenance clicks). Large tensors are summarised, never
cut silently: the first examples or channels, an explicit "… 12 more channels", the last;
a tile's cells are heat_layout.MIN_CELL or more, as a heatmap's, and a tile too large for
heat_layout.CARD_PICTURE at that size shows every k-th row and column, said in its caption.

`picture(array, role=...)` picks this or `preview.Preview`; both have the same face
(width, height, kind, draw, cell_rect, entry_at, renumbered).
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPen

from ..engine.errors import ordinal
from . import heat_layout, legible, preview
from . import text as _text

TILE_W, TILE_H = 72.0, 64.0    # a tile's largest size
CELL_MAX = 12.0                # a small tile's cells grow no bigger (but see CARD_ROOM)
CARD_ROOM = (400.0, 240.0)     # a card's tiles grow their cells within this picture size
                               # towards numbers that read at 100 % (a 6x6 map does; four
                               # 3x3 filters from 123 %): two 4-channel cards side by side
                               # still fit a 1440x900 window at the readable zoom
GAP = 4.0
HEAD_H = 14.0                  # the column names above the tiles
ELIDED_H = 16.0                # the "⋮ 5 more examples" row
MAX_ROWS, MAX_COLS = 3, 4      # shown whole up to this many; else the first ones and the last
PT_PX = 4 / 3                  # pixels a point takes at 96 dpi
DIGIT_EM = 0.6                 # a monospace digit's width in em
FILL = 0.92                    # of a cell's width the widest number may take
PT_PER_CELL = 0.42             # a number's font (points) is at most this times its cell (pixels)
ZOOM_SLACK = 1e-9              # zooms this close are one (computed two ways, they differ in the last bit)
FILTER = "filter"

# layout: (axes of the tile grid (row, column, tile row, tile column) in the array's axes,
#          row name, column name, row noun, column noun, what one tile is)
_LAYOUTS = {
    "nhwc": ((0, 3, 1, 2), "n", "c", "examples", "channels", "one tile per channel"),
    "hwio": ((2, 3, 0, 1), "in", "out", "input channels", "output channels", "one tile per in → out"),
    "ntf": ((0, 1, 2, 3), "n", "", "examples", "", "tokens ↓ × features →"),
}


def layout_of(array, role=None):
    """Which tile layout suits `array` ("nhwc", "hwio", "ntf"), or None (a table or heatmap):
    rank 4 is a batch of images unless its `role` says it is a convolution's filter."""
    a = np.asarray(array)
    if a.size <= 1 or a.dtype.kind not in "biuf":
        return None
    if a.ndim == 4:
        return "hwio" if role == FILTER else "nhwc"
    if a.ndim == 3:
        return "ntf"
    return None


def picture(array, font_size=8.5, compact=False, role=None, tile=(TILE_W, TILE_H), spec=None, room=None,
            read_at=1.0, partly=True):
    """The picture of `array` a card or a formula card shows; `tile`: a tile's largest
    (width, height) (a rule's picture has room for bigger ones); `spec`: a number format
    to impose (None: the array's own, by preview's rule); `room`: the (width, height) up to which tiles may grow
    their cells so that their numbers read at the zoom `read_at` (CARD_ROOM at 100 % on a
    node's card; a rule card's pictures at the zoom the player shows a step at); `partly`:
    when the room is too small for that, grow as far as it allows (else not at all)."""
    layout = layout_of(array, role)
    if layout is None:
        return preview.Preview(array, font_size, compact, spec=spec)
    return Tiles(array, layout, font_size, compact, tile, spec, room, read_at, partly)


def fitted_pt(cell, chars):
    """The largest font (points; whole halves, so few fonts are made) in which a number of
    `chars` characters fits a cell `cell` pixels wide."""
    size = min(cell * PT_PER_CELL, cell * FILL / (DIGIT_EM * PT_PX * chars))
    return max(0.5, math.floor(size * 2) / 2)


def readable_cell(chars, zoom=1.0):
    """The least cell (whole pixels) in which a number of `chars` characters is written
    legible.READABLE_PX tall at `zoom`."""
    pt = math.ceil(round(legible.READABLE_PX / (PT_PX * zoom) * 2, 6)) / 2
    return math.ceil(max(pt / PT_PER_CELL, pt * DIGIT_EM * PT_PX * chars / FILL))


def _picked(n, most):
    """Indices shown along one axis of tiles; None stands for the ones left out."""
    if n <= most:
        return list(range(n))
    return list(range(most - 1)) + [None, n - 1]


class Tiles:
    """One tensor's tile picture, laid out once."""

    kind = "tiles"

    def __init__(self, array, layout, font_size=8.5, compact=False, tile=(TILE_W, TILE_H), spec=None,
                 room=None, read_at=1.0, partly=True):
        self.array = np.asarray(array)
        self.layout, self.font_size, self.compact, self.tile = layout, font_size, compact, tile
        self.spec, self.room, self.read_at = spec, room, read_at   # spec: the card's number format
        self.partly = partly
        _, self._fmt, self._chars = preview._table_format(self.array, spec)   # as the card's tables
        perm, self.row_name, self.col_name, row_noun, col_noun, self.one_tile = _LAYOUTS[layout]
        a4 = self.array.reshape(self.array.shape[0], 1, *self.array.shape[1:]) if self.array.ndim == 3 \
            else self.array
        self._shape4, self._perm = a4.shape, perm
        whole = a4.transpose(perm)                 # (rows, cols, h, w): a view, nothing copied
        n_rows, n_cols, self.full_h, self.full_w = whole.shape
        self.rows, self.cols = _picked(n_rows, MAX_ROWS), _picked(n_cols, MAX_COLS)
        self.label_font = _text.sans(legible.NUMBER_PT)   # names and scale as legible as the numbers
        # names only where they tell tiles apart: one example of one channel needs none
        self.head_h = HEAD_H if self.col_name and n_cols > 1 else 0.0
        self.row_labels = {r: f"{self.row_name}{r}" for r in self.rows if r is not None} \
            if n_rows > 1 or n_cols > 1 else {}
        self.label_w = max([_text.width(self.label_font, t) + 4 for t in self.row_labels.values()] + [0.0])
        self.more_rows = f"⋮ {n_rows - len(self.rows) + 1} more {row_noun}" if None in self.rows else ""
        more_cols = n_cols - len(self.cols) + 1
        self.more_cols = (f"… {more_cols} more", col_noun) if None in self.cols else ()
        self.elided_w = elided_w = max([_text.width(self.label_font, t) + 6 for t in self.more_cols] + [0.0])
        # cells of MIN_CELL or more (as a heatmap's: heat_layout.square_cell); a tile too large for
        # CARD_PICTURE at MIN_CELL shows every k-th row and column of its cells
        self.step = heat_layout.thinned(self._fits_card, lambda k: [(k, k)])[0]
        self.tiles = whole[:, :, ::self.step, ::self.step]
        h, w = self.tiles.shape[2:]
        self.cell = self._cell(h, w)
        self.grown = self.cell > heat_layout.square_cell(h, w, self.tile, CELL_MAX)   # within `room`
        self.tile_w, self.tile_h = w * self.cell, h * self.cell
        self.number_pt = fitted_pt(self.cell, self._chars)
        self.col_x, x = {}, self.label_w
        for c in self.cols:
            self.col_x[c] = x
            x += (elided_w if c is None else self.tile_w) + GAP
        self.row_y, y = {}, self.head_h
        for r in self.rows:
            self.row_y[r] = y
            y += (ELIDED_H if r is None else self.tile_h) + GAP
        self.tiles_w, self.tiles_h = x - GAP, y - GAP
        finite = self.array[np.isfinite(self.array)] if self.array.dtype.kind == "f" else self.array
        self.scale = float(np.abs(finite.astype(np.float64)).max()) if finite.size else 0.0
        # the scale in the format of the cells' numbers (one format per card)
        self.caption = f"±{self._fmt(self.scale)} · {self.one_tile}"
        self.caption_lines = (self.caption,) + ((
            f"every {ordinal(self.step)} row and column of a tile: {h} × {w} of "
            f"{self.full_h} × {self.full_w}",) if self.step > 1 else ())
        self.caption_font = _text.sans(legible.NUMBER_PT)
        self.width = max(self.tiles_w, preview.CAPTION_MIN_W,
                         *(_text.width(self.caption_font, line) + 2 for line in self.caption_lines))
        self.height = self.tiles_h + preview.CELL_H * len(self.caption_lines)
        self._images = {}

    def _fixed(self):
        """(width, height) the picture takes besides its tiles: row names, elisions, gaps."""
        fixed_w = self.label_w + (self.elided_w if self.more_cols else 0.0) + GAP * (len(self.cols) - 1)
        fixed_h = self.head_h + (ELIDED_H if self.more_rows else 0.0) + GAP * (len(self.rows) - 1)
        return fixed_w, fixed_h

    def _fits_card(self, step):
        """Do the tiles, showing every step-th row and column of their cells, fit
        heat_layout.CARD_PICTURE at their cell size (never below heat_layout.MIN_CELL)?"""
        h, w = math.ceil(self.full_h / step[0]), math.ceil(self.full_w / step[1])
        cell = heat_layout.square_cell(h, w, self.tile, CELL_MAX)
        (fixed_w, fixed_h), most_w, most_h = self._fixed(), *heat_layout.CARD_PICTURE
        shown_cols = sum(c is not None for c in self.cols)
        shown_rows = sum(r is not None for r in self.rows)
        return fixed_w + shown_cols * w * cell <= most_w + 1e-9 and fixed_h + shown_rows * h * cell <= most_h + 1e-9

    def _cell(self, h, w):
        """A cell's side: as large as the tile's box allows, up to CELL_MAX, never below
        heat_layout.MIN_CELL (heat_layout.square_cell, as a heatmap's); within `room`, as large as its
        numbers need to read at the zoom `read_at` (readable_cell), or (partly) as near to it
        as the room allows."""
        cell = heat_layout.square_cell(h, w, self.tile, CELL_MAX)
        if not self.room:
            return cell
        shown_cols, shown_rows = [c for c in self.cols if c is not None], [r for r in self.rows if r is not None]
        fixed_w, fixed_h = self._fixed()
        fits = min((self.room[0] - fixed_w) / (w * len(shown_cols)), (self.room[1] - fixed_h) / (h * len(shown_rows)))
        readable = readable_cell(self._chars, self.read_at)
        if not self.partly and readable > fits:
            return cell
        return max(cell, min(readable, math.floor(fits)))

    @property
    def numbers_from(self):
        """The least zoom at which the cells' numbers are written (legible.READABLE_PX tall)."""
        return legible.READABLE_PX / (self.number_pt * PT_PX)

    def renumbered(self, array, spec=None):
        """The picture of `array`, of this one's shape: the same layout, new numbers, in the
        card's format `spec`."""
        return Tiles(array, self.layout, self.font_size, self.compact, self.tile, spec, self.room, self.read_at,
                     self.partly)

    @property
    def size(self):
        return self.width, self.height

    # -- entries and cells -----------------------------------------------------------
    def _tile_index(self, flat):
        """(row, column, tile row, tile column) of the array's entry `flat`."""
        orig = np.unravel_index(int(flat), self._shape4)
        return tuple(int(orig[axis]) for axis in self._perm)

    def _flat(self, r, c, i, j):
        orig = [0] * 4
        for axis, k in zip(self._perm, (r, c, i, j)):
            orig[axis] = k
        return int(np.ravel_multi_index(orig, self._shape4))

    def cell_rect(self, x, y, flat_index):
        """The cell of entry `flat_index` when drawn at (x, y); None if left out."""
        r, c, i, j = self._tile_index(flat_index)
        if r not in self.row_y or c not in self.col_x or i % self.step or j % self.step:
            return None
        i, j = i // self.step, j // self.step
        return QRectF(x + self.col_x[c] + j * self.cell, y + self.row_y[r] + i * self.cell, self.cell, self.cell)

    def entry_at(self, x, y, point):
        """The flat index of the entry drawn under `point` (drawn at (x, y)), or None."""
        px, py = point.x() - x, point.y() - y
        for r, top in self.row_y.items():
            if r is None or not top <= py < top + self.tile_h:
                continue
            for c, left in self.col_x.items():
                if c is not None and left <= px < left + self.tile_w:
                    i, j = math.floor((py - top) / self.cell), math.floor((px - left) / self.cell)
                    h, w = self.tiles.shape[2:]
                    return self._flat(r, c, min(i, h - 1) * self.step, min(j, w - 1) * self.step)
        return None

    def index_text(self, flat, name=""):
        """'x[0,2,3,0]': the entry as the user writes it (NHWC, or the filter's HWIO)."""
        multi = np.unravel_index(int(flat), self.array.shape)
        return f"{name}[{','.join(str(int(k)) for k in multi)}]"

    # -- painting ---------------------------------------------------------------------
    def _image(self, r, c, colours):
        key = (r, c, colours)
        image = self._images.get(key)
        if image is None:
            tile = np.asarray(self.tiles[r, c], dtype=np.float64)
            rgb, _ = preview.diverging_rgb(tile, colours, self.scale)
            h, w = tile.shape
            rgba = np.empty((h, w, 4), dtype=np.uint8)
            rgba[..., :3], rgba[..., 3] = rgb, 255
            image = self._images[key] = preview.rgba_image(rgba)
        return image

    def look(self, theme):
        """What `draw` paints, as a value two pictures of one layout compare by (as
        preview.Preview.look): the caption, each tile's colours and numbers."""
        shown = [(r, c) for r in self.rows if r is not None for c in self.cols if c is not None]
        return (self.caption_lines, [bytes(self._image(r, c, theme.diverging).constBits()) for r, c in shown],
                [self.number_texts(r, c) for r, c in shown])

    def writes_numbers(self, zoom, least_px=legible.READABLE_PX):
        """Does the picture seen at `zoom` write its cells' numbers: are they at least
        `least_px` tall (the window's legible size, or more: a slide's rule card's)?"""
        return zoom * legible.READABLE_PX / least_px >= self.numbers_from * (1 - ZOOM_SLACK)   # to the last bit

    def draw(self, painter, x, y, colour, theme, zoom=None, least_px=legible.READABLE_PX):
        """Paint with the top-left corner at (x, y); `zoom`: the scale the picture will be
        seen at, when not the painter's (a QPicture recorded at 1:1 and replayed zoomed); the
        cells' numbers only where they are `least_px` tall or more (`writes_numbers`): a
        picture whose numbers would be smaller is its colours alone, its shape said beside it."""
        painter.save()
        if zoom is None:
            zoom = painter.worldTransform().m11()
        numbers = self.writes_numbers(zoom, least_px)
        painter.setRenderHint(painter.RenderHint.SmoothPixmapTransform, self.cell * zoom < 1)
        painter.setFont(self.label_font)
        painter.setPen(QColor(theme.muted))
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        centre = Qt.AlignmentFlag.AlignCenter
        for c, cx in self.col_x.items():
            if c is not None and self.head_h:
                painter.drawText(QRectF(x + cx, y, self.tile_w, HEAD_H), left, f"{self.col_name}{c}")
        border = QPen(QColor(theme.card_border), 0.8)
        for r, ry in self.row_y.items():
            if r is None:
                painter.setPen(QColor(theme.muted))
                painter.drawText(QRectF(x, y + ry, self.tiles_w, ELIDED_H), left, self.more_rows)
                continue
            painter.setPen(QColor(theme.muted))
            if self.row_labels:
                painter.drawText(QRectF(x, y + ry, self.label_w, self.tile_h), left, self.row_labels[r])
            for c, cx in self.col_x.items():
                if c is None:
                    continue
                target = QRectF(x + cx, y + ry, self.tile_w, self.tile_h)
                painter.drawImage(target, self._image(r, c, theme.diverging))
                if numbers:
                    self._draw_numbers(painter, target, r, c, theme)
                painter.setPen(border)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(target)
        if self.more_cols:
            cx = self.col_x[None]
            top, bottom = y + self.head_h, y + self.tiles_h
            painter.setPen(QColor(theme.muted))
            painter.drawText(QRectF(x + cx, (top + bottom) / 2 - 12, self.elided_w, 24), centre,
                             "\n".join(self.more_cols))
        painter.setFont(self.caption_font)
        painter.setPen(QColor(theme.muted))
        for k, line in enumerate(self.caption_lines):
            painter.drawText(QRectF(x, y + self.tiles_h + k * preview.CELL_H, self.width, preview.CELL_H),
                             left, line)
        painter.restore()
        return self.width, self.height

    def number_texts(self, r, c):
        """The numbers tile (r, c) writes in its cells once zoomed in, row by row."""
        fmt = self._fmt
        return [[fmt(v) for v in row] for row in self.tiles[r, c].tolist()]

    def _draw_numbers(self, painter, target, r, c, theme):
        """Each cell's number, dark on light cells and light on dark ones."""
        texts = self.number_texts(r, c)
        painter.setFont(_text.mono(self.number_pt))
        image = self._image(r, c, theme.diverging)
        for i, row in enumerate(texts):
            for j, t in enumerate(row):
                rgb = QColor(image.pixel(j, i))
                light = 0.299 * rgb.red() + 0.587 * rgb.green() + 0.114 * rgb.blue() > 140
                painter.setPen(QColor("#111111" if light else "#ffffff"))
                painter.drawText(QRectF(target.left() + j * self.cell, target.top() + i * self.cell, self.cell,
                                        self.cell), Qt.AlignmentFlag.AlignCenter, t)
