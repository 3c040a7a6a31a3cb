"""How small text may be drawn and still be read: the cards' numbers at least
READABLE_PX tall on screen (their font's size in pixels, as a font size is counted).
The canvas draws cards compact below that zoom; the player frames steps at or above it.

READABLE_PX is a font's pixel size, not what a reader measures on a screenshot: the
numbers' digits (DejaVu Sans Mono) are 0.76 of it tall, 6.8 px at 9 px (an auditor measured
~7 px in the 1280 x 800 window). Presentation mode's rule cards are held to a digit's glyph
height (tests/app/player/test_rule_card_digits: 9 px at 1280 x 800, 11 px at 1920 x 1080).
Held to 9 px glyphs, the window (issue 20 §4: 'about 9 px') would show 433 of its 494 steps
with a rule card too small at 1280 x 800 and 292 at 1920 x 1080 (measured on main at
c664f39, every sample's steps in order, none under 6.8 px): the window's floor stays this
font size until its framing is made larger."""
from __future__ import annotations

READABLE_PX = 9.0    # about the smallest type a reader reads without effort
NUMBER_PT = 8.5      # the point size of the cards' numbers (render.preview's tables)


def number_px(zoom, dpi=96.0):
    """How tall (pixels) the cards' numbers are drawn at `zoom` on a screen of `dpi`."""
    return NUMBER_PT * dpi / 72.0 * zoom


def readable_zoom(dpi=96.0, readable_px=READABLE_PX):
    """The least zoom at which the cards' numbers are `readable_px` tall."""
    return readable_px / number_px(1.0, dpi)
