"""How a heatmap lays out its cells: square cells of at least MIN_CELL, a long vector
wrapped into rows of WRAP, a thin matrix cut into blocks side by side or one under
another, and a matrix whose picture would outgrow CARD_PICTURE shown by every k-th row
(and column), said in words (`HeatLayout`). Tiles (render.tiles) take their cells by the
same rule (square_cell, thinned). Geometry only: render.preview draws it."""
from __future__ import annotations

import math

import numpy as np

from ..engine.errors import counted, ordinal

HEAT_W, HEAT_H = 132.0, 84.0      # heatmap thumbnail box
HEAT_MAX_CELL = 12.0
MIN_CELL = 5.0                    # a heat cell's least side at zoom 1 (px): smaller ones do not read
CARD_PICTURE = (400.0, 240.0)     # the most a picture of cells (a heatmap, tiles) grows to at MIN_CELL
                                  # (w, h): two such cards side by side fit a 1440x900 window at
                                  # the readable zoom; a larger tensor shows every k-th row and column
WRAP = 20                         # a long vector's heatmap: rows of this many cells
THIN = 4                          # a matrix this many times as long as wide is thin: laid out in
                                  # blocks, and, too large, shown by every k-th row along its length


def as_2d(array):
    a = np.asarray(array)
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])  # -1 cannot stand for 0 rows


class HeatLayout:
    """Where a heatmap draws each entry of an array: `grid` (the picture's cells, NaN where
    no entry is: a wrapped vector's padding, the gaps between blocks), `index` (the flat
    index drawn in each cell, -1 for none), `real` (how many entries it draws), and the
    layout in words: `wrapped` (a vector laid out WRAP a row), `blocks` ("36 rows as 4
    blocks of 9, left to right", or "") and `thinned` ("every 3rd row and column: 34 × 34 of
    100 × 100", or ""): an array whose cells at MIN_CELL would make a picture larger than
    CARD_PICTURE shows every k-th row (`step`: (k, 1)) along a thin matrix's length, else
    every k-th row and column ((k, k)), every k-th value of a wrapped vector."""

    def __init__(self, array):
        a2 = as_2d(array).astype(np.float64)
        n = a2.size
        self.shape, self.wrapped = a2.shape, min(a2.shape) == 1 and n > WRAP
        # at MIN_CELL, the picture's area bounds the step from below
        least = n * MIN_CELL ** 2 / (CARD_PICTURE[0] * CARD_PICTURE[1])
        # a thin matrix (THIN times as long as wide) loses rows (or columns) along its length
        # only, where its few columns fit, not a column; any other keeps its cells' aspect
        rows, cols = a2.shape
        if self.wrapped:
            ways, start = (lambda k: [(k, k)]), int(least)
        elif rows >= THIN * cols and cols * MIN_CELL <= CARD_PICTURE[0]:
            ways, start = (lambda k: [(k, 1)]), int(least)
        elif cols >= THIN * rows and rows * MIN_CELL <= CARD_PICTURE[1]:
            ways, start = (lambda k: [(1, k)]), int(least)
        else:
            ways, start = (lambda k: [(k, k)]), int(math.sqrt(least))
        self.step = thinned(lambda s: _fits_card(*_arranged_shape(self._base_shape(s))), ways, start)
        index = self._base(self.step)
        self.base = index.shape                  # the wrapped (or the array's own) rows x columns
        self.split, self.count, self.per = _blocks(*self.base)
        self.index = _arranged(index, self.split, self.count, self.per)
        self.real = int((index >= 0).sum())
        flat = a2.reshape(-1)
        self.grid = np.where(self.index >= 0, flat[np.maximum(self.index, 0)] if n else np.nan, np.nan)
        rows, cols = self.base
        every = "" if (rows if self.split == "rows" else cols) % self.per == 0 else "up to "
        self.blocks = "" if self.count == 1 else (
            f"{counted(rows, 'row')} as {counted(self.count, 'block')} of {every}{self.per}, left to right"
            if self.split == "rows" else
            f"{counted(cols, 'column')} as {counted(self.count, 'block')} of {every}{self.per}, top to bottom")
        self.thinned = "" if self.wrapped else _thinned_words(self.step, self.shape, index.shape)

    def _base(self, step):
        """The flat indices of every `step`-th entry ((rows, columns): every k-th row and
        every l-th column of a matrix, every k-th value of a vector, wrapped WRAP a row, -1
        past its end)."""
        rows, cols = self.shape
        if self.wrapped:
            index = np.arange(0, rows * cols, step[0], dtype=np.int64)
            rows = math.ceil(len(index) / WRAP)
            return np.concatenate([index, np.full(rows * WRAP - len(index), -1, np.int64)]).reshape(rows, WRAP)
        return (np.arange(0, rows, step[0], dtype=np.int64)[:, None] * cols
                + np.arange(0, cols, step[1], dtype=np.int64)[None, :])

    def _base_shape(self, step):
        """The shape of `_base(step)`, computed without it."""
        rows, cols = self.shape
        if self.wrapped:
            return math.ceil(math.ceil(rows * cols / step[0]) / WRAP), WRAP
        return math.ceil(rows / step[0]), math.ceil(cols / step[1])

    def position(self, flat_index):
        """(row, column) of the cell that draws entry `flat_index`, or None where the picture
        shows every k-th row or column (`step`) and this is not in one."""
        flat, (kr, kc) = int(flat_index), self.step
        if self.wrapped:
            if flat % kr:
                return None
            r, c = divmod(flat // kr, WRAP)
        else:
            r, c = divmod(flat, self.shape[1])
            if r % kr or c % kc:
                return None
            r, c = r // kr, c // kc
        if self.count == 1:
            return r, c
        if self.split == "rows":
            block, r = divmod(r, self.per)
            return r, block * (self.base[1] + 1) + c
        block, c = divmod(c, self.per)
        return block * (self.base[0] + 1) + r, c


def _fit_cell(rows, cols, box=(HEAT_W, HEAT_H), most=HEAT_MAX_CELL):
    return min(box[0] / cols, box[1] / rows, most)


def square_cell(rows, cols, box=(HEAT_W, HEAT_H), most=HEAT_MAX_CELL):
    """The side of the square cells of a `rows` x `cols` picture (a heatmap, a tile): as large
    as its `box` (w, h) allows up to `most`, never below MIN_CELL (a picture too large for the
    box at MIN_CELL grows beyond it rather than shrink its cells out of sight)."""
    return max(_fit_cell(rows, cols, box, most), MIN_CELL)


def _fits_card(rows, cols, box=(HEAT_W, HEAT_H), most=HEAT_MAX_CELL):
    cell = square_cell(rows, cols, box, most)
    return cols * cell <= CARD_PICTURE[0] + 1e-9 and rows * cell <= CARD_PICTURE[1] + 1e-9


def thinned(fits, ways, start=1):
    """The first of `ways(k)` (steps (row step, column step) showing every k-th row and, or,
    column of a heatmap or a tile) that `fits`, for the least k from `start` (1 at least):
    a picture at MIN_CELL within CARD_PICTURE."""
    k = max(1, start)
    while True:
        for step in ways(k):
            if fits(step):
                return step
        k += 1


def _thinned_words(step, shape, shown):
    """'every 3rd row: 262 of 784', 'every 3rd row and column: 34 × 34 of 100 × 100', or ''
    for a picture of every entry; `shown`: the rows x columns drawn of `shape`."""
    kr, kc = step
    if kr == kc == 1:
        return ""
    if kc == 1:
        return f"every {ordinal(kr)} row: {shown[0]} of {shape[0]}"
    if kr == 1:
        return f"every {ordinal(kc)} column: {shown[1]} of {shape[1]}"
    if kr == kc:
        return f"every {ordinal(kr)} row and column: {shown[0]} × {shown[1]} of {shape[0]} × {shape[1]}"
    return (f"every {ordinal(kr)} row and {ordinal(kc)} column: {shown[0]} × {shown[1]} of "
            f"{shape[0]} × {shape[1]}")


def _arranged_shape(base):
    """The rows x columns of a heatmap of `base` cells laid out in blocks (_blocks)."""
    rows, cols = base
    split, count, per = _blocks(rows, cols)
    if count == 1:
        return rows, cols
    return (per, count * (cols + 1) - 1) if split == "rows" else (count * (rows + 1) - 1, per)


def _blocks(rows, cols):
    """("rows" or "columns", how many blocks, how many rows or columns a block) that lay a
    `rows` x `cols` picture out with the largest cells in the HEAT_W x HEAT_H box: one block
    when its cells are MIN_CELL or more already; else a tall block cut into blocks of rows
    placed side by side, a wide one into blocks of columns placed one under another (a
    cell's gap between blocks)."""
    if _fit_cell(rows, cols) >= MIN_CELL:
        return "rows", 1, rows
    split, length, other = ("rows", rows, cols) if rows >= cols else ("columns", cols, rows)
    best = (_fit_cell(rows, cols), 1, length)
    for count in range(2, length + 1):
        per = math.ceil(length / count)
        if math.ceil(length / per) != count:     # that many blocks would leave one empty
            continue
        across, along = count * other + count - 1, per
        cell = _fit_cell(along, across) if split == "rows" else _fit_cell(across, along)
        if cell > best[0]:
            best = (cell, count, per)
        if across * MIN_CELL > 4 * max(HEAT_W, HEAT_H):   # more blocks only shrink the cells
            break
    return split, best[1], best[2]


def _arranged(index, split, count, per):
    """`index` (rows x columns) cut into `count` blocks of `per` rows side by side ("rows")
    or of `per` columns one under another ("columns"), -1 in the gaps."""
    if count == 1:
        return index
    rows, cols = index.shape
    if split == "rows":
        out = np.full((per, count * (cols + 1) - 1), -1, np.int64)
        for b in range(count):
            part = index[b * per:(b + 1) * per]
            out[:len(part), b * (cols + 1):b * (cols + 1) + cols] = part
    else:
        out = np.full((count * (rows + 1) - 1, per), -1, np.int64)
        for b in range(count):
            part = index[:, b * per:(b + 1) * per]
            out[b * (rows + 1):b * (rows + 1) + rows, :part.shape[1]] = part
    return out


def heat_grid(array):
    """The 2-D block a heatmap shows (NaN where no entry is drawn) and how many cells are
    real: `HeatLayout`'s grid."""
    layout = HeatLayout(array)
    return layout.grid, layout.real
