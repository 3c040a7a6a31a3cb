"""The palette of an animation's GIF (and of an APNG's passing frames): the story's own
colours and the ramps between them, each pixel mapped onto its own ramp (`StoryPalette`).
Moved as it was from render.animation_files, which writes the files."""
from __future__ import annotations

import numpy as np


def _pack(rgb):
    return (rgb[..., 0].astype(np.uint32) << 16) | (rgb[..., 1].astype(np.uint32) << 8) | rgb[..., 2]


# The palette of an animation: the story's own colours and the ramps between them. Its
# pictures are flat colours (cards, fills, text, edges, heatmap cells) and anti-aliased
# edges whose pixels mix two of them. Drawn in the palette's nearest colour such a pixel
# could take another hue: grey text in a glide's frames (32 colours: the theme's, then the
# most used) had pink and blue fringes. Here a pixel on a ramp takes a colour of that ramp
# (its ends, an in-between colour, a flat colour on it such as a heatmap's cell), lighter
# or darker but of its own hue; a pixel on no ramp, the nearest colour. One in-between
# colour a ramp reads as smooth at 2x as the 256 most used colours did, and an edge drawn
# in fewer colours codes smaller: lesson 14's GIF took 4.43 MB, now 3.8 (bench/README.md).
FLAT_BLOCK = 3         # a flat colour fills blocks of this many pixels square
FLAT_PIXELS = 16       # ... at least this many of the sampled frames' pixels
RAMP_ENDS = 40         # ramps run between the theme's colours and the flat ones that cover
END_SHARE = 0.001      # ... this share of the sampled pixels (a card, a header; not a heatmap's cell)
LINE_SHARE = END_SHARE / 4   # ... and the colours on no ramp that cover this share (see the class)
OFF_RAMP_SHARE = 0.0001      # a colour on no ramp covering this share of the samples: in the palette
RAMP_LEVELS = 2        # the in-between colours of a ramp: l / RAMP_LEVELS of the way
RAMP_TOLERANCE = 12.0  # a pixel this close to a ramp lies on it (rounding, a third colour under it)
RAMP_SLACK = 4.0       # ... and no farther than this beyond the nearest ramp (a grey pixel 3.7 from
                       # blue to peach, 6.3 from grey text's ramp, may be either)
HUE_WEIGHT = 32.0      # an error in hue (off the grey axis) costs this much more than one in lightness
MEMBER_TOLERANCE = 3.0  # a palette colour this close to a ramp is one of its colours (rounding):
                        # near white, cream (#fffdf5) and peach (#fff1e6) lie 12 apart


def _unpack(values):
    values = np.asarray(values, np.int64)
    return np.stack([(values >> 16) & 255, (values >> 8) & 255, values & 255], axis=1).astype(np.float64)


def _colour_counts(samples):
    """({packed colour: pixels}, {packed colour: pixels at the corner of a FLAT_BLOCK
    square of it}) over the `samples` (rgb arrays)."""
    counts, flat = {}, {}
    for rgb in samples:
        packed = _pack(rgb)
        for into, values in ((counts, packed), (flat, _inside_blocks(packed, FLAT_BLOCK))):
            found, n = np.unique(values, return_counts=True)
            for v, c in zip(found.tolist(), n.tolist()):
                into[v] = into.get(v, 0) + c
    return counts, flat


def _inside_blocks(packed, m):
    """The colours of the pixels whose m x m block (the pixel at its top left) is one colour."""
    h, w = packed.shape
    if h < m or w < m:
        return packed[:0, :0]
    corner = packed[:h - m + 1, :w - m + 1]
    same = np.ones(corner.shape, bool)
    for dy in range(m):
        for dx in range(m):
            if dy or dx:
                same &= packed[dy:dy + h - m + 1, dx:dx + w - m + 1] == corner
    return corner[same]


def _ramps(colours, ends, misses):
    """For each of `colours` ((n, 3) float): the ramp between two of `ends` ((k, 3) float)
    it lies nearest to: (its ends' indices i < j, how far along from ends[i] to ends[j],
    distance); `misses`: `_misses(colours, ends)`."""
    n = len(colours)
    if len(ends) < 2:
        return np.zeros(n, int), np.zeros(n, int), np.zeros(n), np.full(n, np.inf)
    best = misses.argmin(axis=1)
    first, second = (index[best] for index in np.triu_indices(len(ends), 1))
    d = ends[second] - ends[first]
    along = ((colours - ends[first]) * d).sum(axis=1) / np.maximum((d * d).sum(axis=1), 1e-9)
    along = np.clip(along, 0.0, 1.0)
    return first, second, along, misses[np.arange(n), best]


class StoryPalette:
    """The colours of an animation's frames and how each pixel maps onto them.

    `colours` ((n, 3) uint8, n <= `size`): the ramps' ends first (the theme's colours
    `keep` that the frames use, the flat colours covering END_SHARE of them, then the
    colours on no ramp that cover LINE_SHARE: a highlight's ring, too thin for a flat
    block; up to RAMP_ENDS), then by the pixels each stands for: the other flat colours (a
    heatmap's cells), the colours on no ramp covering OFF_RAMP_SHARE, and the ramps'
    in-between colours (RAMP_LEVELS) where anti-aliased pixels lie.
    Calling it on an rgb array gives palette indices (uint8): each pixel's nearest colour
    among those of the ramps it lies on (any colour where it lies on none), an error in
    hue counted HUE_WEIGHT times one in lightness (a grey pixel may lie on a grey ramp and
    on blue to peach). Each colour is mapped once and kept in a table of every 24-bit
    colour (32 MB, made on the first call: an APNG maps only with `first`): a frame costs
    a lookup per pixel.
    `first(n)`: the same mapping onto the first n colours (a glide's frames)."""
    UNKNOWN = 0xFFFF

    def __init__(self, samples, keep=(), size=256):
        counts, flat = _colour_counts(samples)
        if not counts:
            raise ValueError("no pixels to make a palette of")
        total = sum(counts.values())
        present = [v for v in (int(h[1:], 16) for h in keep) if v in counts]
        large = sorted((v for v, n in flat.items() if n >= END_SHARE * total), key=flat.get, reverse=True)
        ends = list(dict.fromkeys(present + large))[:min(RAMP_ENDS, size)] or [max(counts, key=counts.get)]
        values = np.array(sorted(counts, key=counts.get, reverse=True), np.int64)
        weights = np.array([counts[v] for v in values.tolist()], np.float64)
        # a line's colour (a highlight's ring, thinner than a flat block) on no ramp yet: an end too
        colours = _unpack(values)
        misses = _misses(colours, _unpack(ends))
        distance = misses.min(axis=1, initial=np.inf)
        lines = values[(distance > RAMP_TOLERANCE) & (weights >= LINE_SHARE * total)]
        grown = list(dict.fromkeys(ends + lines.tolist()))[:min(RAMP_ENDS, size)]
        end_colours = _unpack(grown)
        if len(grown) > len(ends):     # only the ramps to a line's colour are new
            misses = _misses(colours, end_colours, since=len(ends), known=misses)
        ends = grown
        first, second, along, distance = _ramps(colours, end_colours, misses)
        wanted = {}   # a colour the palette may hold -> the pixels it stands for
        for v, n, miss in zip(values.tolist(), weights.tolist(), distance.tolist()):
            if flat.get(v, 0) >= FLAT_PIXELS or (miss > RAMP_TOLERANCE and n >= OFF_RAMP_SHARE * total):
                wanted[v] = n           # a flat colour (a heatmap's cell), a frequent one on no ramp
        level = np.round(along * RAMP_LEVELS)
        on_ramp = (distance <= RAMP_TOLERANCE) & (level > 0) & (level < RAMP_LEVELS)
        if on_ramp.any():
            a, b = end_colours[first[on_ramp]], end_colours[second[on_ramp]]
            points = np.round(a + (level[on_ramp] / RAMP_LEVELS)[:, None] * (b - a)).astype(np.int64)
            for v, n in zip(((points[:, 0] << 16) | (points[:, 1] << 8) | points[:, 2]).tolist(),
                            weights[on_ramp].tolist()):
                wanted[v] = wanted.get(v, 0) + n
        for v in ends:
            wanted.pop(v, None)
        chosen = ends + sorted(wanted, key=wanted.get, reverse=True)[:size - len(ends)]
        self._setup(_unpack(chosen).astype(np.uint8), end_colours)

    def _setup(self, colours, ends):
        self.colours = colours
        self._ends = ends[:len(colours)]
        self._members = None
        self._table = None       # made on the first call: an APNG maps only its glides' frames

    def first(self, n):
        """This palette's mapping onto its first `n` colours."""
        other = object.__new__(StoryPalette)
        other._setup(self.colours[:n], self._ends)
        return other

    def __len__(self):
        return len(self.colours)

    def __call__(self, rgb):
        packed = _pack(rgb)
        if self._table is None:
            self._table = np.full(1 << 24, self.UNKNOWN, np.uint16)
        found = self._table[packed]
        missing = found == self.UNKNOWN
        if missing.any():
            values = np.unique(packed[missing])
            self._table[values] = self._nearest(values)
            found = self._table[packed]
        return found.astype(np.uint8)

    def _nearest(self, values):
        """The index of each packed colour's palette colour (see the class)."""
        colours = _unpack(values)
        palette = self.colours.astype(np.float64)
        if self._members is None:      # [ramp, colour]: the palette's colours on each ramp
            self._members = (_misses(palette, self._ends) <= MEMBER_TOLERANCE).T.astype(np.float32)
        out = np.empty(len(values), np.uint16)
        squares, sums = (palette * palette).sum(axis=1), palette.sum(axis=1)
        for s in range(0, len(values), 1024):
            block = colours[s:s + 1024]
            whole = squares[None, :] - 2.0 * block @ palette.T + (block * block).sum(axis=1)[:, None]
            lightness = (sums[None, :] - block.sum(axis=1)[:, None]) ** 2 / 3.0
            error = lightness + HUE_WEIGHT * (whole - lightness)
            misses = _misses(block, self._ends)
            best = misses.min(axis=1, initial=np.inf)[:, None]
            near = ((misses <= RAMP_TOLERANCE) & (misses <= best + RAMP_SLACK)).astype(np.float32)
            allowed = (near @ self._members) > 0          # the colours of the ramps it lies on
            allowed[~near.any(axis=1)] = True             # on no ramp: any colour
            error[~allowed] = np.inf
            out[s:s + 1024] = error.argmin(axis=1)
        return out


def _misses(colours, ends, since=None, known=None):
    """[colour, ramp]: how far each of `colours` lies from each ramp between two `ends`
    (the pairs of np.triu_indices). `known`: this for the first `since` of the ends (the
    ramps between those, in the same order), worked out only for the ramps to the others."""
    first, second = np.triu_indices(len(ends), 1)
    out = np.empty((len(colours), len(first)), np.float32)
    new = slice(None) if known is None else second >= since
    if known is not None:
        out[:, ~new] = known
    first, second = first[new], second[new]
    p, d = ends[first].astype(np.float32), (ends[second] - ends[first]).astype(np.float32)
    length = np.maximum((d * d).sum(axis=1), 1e-9)
    for s in range(0, len(colours), 256):
        c = colours[s:s + 256, None, :].astype(np.float32)
        t = np.clip(((c - p) * d).sum(axis=2) / length, 0.0, 1.0)
        out[s:s + 256, new] = np.sqrt((((p + t[..., None] * d) - c) ** 2).sum(axis=2))
    return out
