"""Fonts, their metrics and text that fits: elided with "…" or wrapped onto lines.

Fonts and metrics are made once per (family, size, weight): building a QFont and its
QFontMetricsF is what cost most when every card measured its text from scratch.
The combining hat of x̂ needs care, as seen in the real fonts: shaped, DejaVu Sans
puts it far above the line; unshaped, DejaVu Sans Mono puts it after the x. So the
sans-serif fonts prefer no shaping (Latin, Greek and math text need none) and the
monospace ones keep it.
"""
from __future__ import annotations

import math
from functools import lru_cache

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

SANS = "DejaVu Sans"
MONO = "DejaVu Sans Mono"
ELLIPSIS = "…"


_SPECS = {}   # id of a font made by _font -> its (family, size, bold); those fonts live on


@lru_cache(maxsize=None)
def _font(family, size, bold):
    font = QFont(family)
    _SPECS[id(font)] = (family, size, bold)
    font.setStyleHint(QFont.StyleHint.Monospace if family == MONO else QFont.StyleHint.SansSerif)
    if family == SANS:
        font.setStyleStrategy(QFont.StyleStrategy.PreferNoShaping)
    font.setPointSizeF(size)
    font.setBold(bold)
    return font


def sans(size=9.0, bold=False):
    """The shared sans-serif font of that size: copy it before changing it."""
    return _font(SANS, float(size), bool(bold))


def mono(size=8.5, bold=False):
    """The shared monospace font of that size: copy it before changing it."""
    return _font(MONO, float(size), bool(bold))


@lru_cache(maxsize=None)
def _metrics(family, size, bold):
    return QFontMetricsF(_font(family, size, bold))


def metrics(font):
    """The (shared) metrics of a font made by `sans` or `mono`."""
    return _metrics(font.family(), font.pointSizeF(), font.bold())


@lru_cache(maxsize=None)
def glyph_pt(px, family=SANS):
    """The least point size (whole halves) whose digits and capitals are `px` pixels tall at
    96 dpi: a reader measures the glyph, not the font's size (DejaVu's digits are 0.76 of
    its pixel size: a 9 px font writes 6.9 px digits)."""
    big = _metrics(family, 150.0, False).tightBoundingRect("0123456789").height() / 200.0
    return math.ceil(px / big * 0.75 * 2) / 2


@lru_cache(maxsize=4096)
def _advance(family, size, bold, text):
    return _metrics(family, size, bold).horizontalAdvance(text)


def width(font, text):
    """Advance width of `text` (memoised: card text repeats from card to card)."""
    spec = _SPECS.get(id(font))
    if spec is None:
        spec = font.family(), font.pointSizeF(), font.bold()
    return _advance(*spec, text)


def elide(font, text, max_width):
    """`text` if it fits in `max_width`, else its longest prefix that fits followed by "…"."""
    if width(font, text) <= max_width:
        return text
    return metrics(font).elidedText(text, Qt.TextElideMode.ElideRight, max(0.0, max_width))


def _pieces(font, word, max_width):
    """`word` cut into pieces that each fit `max_width` (itself when it fits)."""
    pieces = []
    while width(font, word) > max_width and len(word) > 1:
        n = len(word) - 1
        while n > 1 and width(font, word[:n]) > max_width:
            n -= 1
        pieces.append(word[:n])
        word = word[n:]
    return pieces + [word]


def wrap(font, text, max_width, max_lines=None, whole=False):
    """Lines of `text` that each fit `max_width`, broken at spaces (a word too long for a
    line is elided, or with `whole` broken where it reaches the edge, so every character
    is shown); with `max_lines`, the last line kept ends in "…" if text was left out, after
    its last whole word that leaves room for it (never "4 a…": a word cut is a word lost)."""
    lines = []
    for paragraph in text.split("\n"):
        line = ""
        words = paragraph.split(" ")
        if whole:
            words = [piece for word in words for piece in _pieces(font, word, max_width)]
        for word in words:
            trial = f"{line} {word}" if line else word
            if line and width(font, trial) > max_width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    lines = [elide(font, line, max_width) for line in lines]
    if max_lines is not None and len(lines) > max_lines:
        kept = lines[:max_lines]
        words = kept[-1].split(" ")
        while len(words) > 1 and width(font, " ".join(words) + " " + ELLIPSIS) > max_width:
            words.pop()
        kept[-1] = elide(font, " ".join(words) + " " + ELLIPSIS, max_width)
        return kept
    return lines
