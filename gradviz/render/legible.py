"""How small text may be drawn and still be read: the cards' numbers at least
READABLE_PX tall on screen (their font's size in pixels, as a font size is counted).
The canvas draws cards compact below that zoom; the player frames steps at or above it.

READABLE_PX is a font's pixel size, not what a reader measures on a screenshot: the
numbers' digits (DejaVu Sans Mono) are 0.76 of it tall, 6.8 px at 9 px (an auditor measured
~7 px in the 1280 x 800 window). Presentation mode's rule cards are held to a digit's glyph
height (tests/app/player/test_rule_card_digits: 9 px at 1280 x 800, 11 px at 1920 x 1080).
Held to 9 px glyphs, the window (issue 20 §4: 'about 9 px') would show 392 of its 494 steps
with a rule card too small at 1280 x 800 and 286 at 1920 x 1080 (every sample's steps in
order, none under 6.8 px; 433 and 292 before a docked rule card was drawn larger than the
cards, RULE_PX, where it has room): the window's floor stays this font size until its
framing is made larger."""
from __future__ import annotations

READABLE_PX = 9.0    # about the smallest type a reader reads without effort
NUMBER_PT = 8.5      # the point size of the cards' numbers (render.preview's tables)
DIGIT_SHARE = 0.76   # a digit's height over its font's pixel size (DejaVu Sans and Sans Mono)
# A rule card the player docks is drawn larger than the cards where it has the room, up to
# digits 9 px tall (issue 20 §4: 'about 9 px'), its numbers' font this many pixels: the cards
# stay at READABLE_PX, the rule card, which the step is about, reads without effort
RULE_PX = 9.0 / DIGIT_SHARE


def number_px(zoom, dpi=96.0):
    """How tall (pixels) the cards' numbers are drawn at `zoom` on a screen of `dpi`."""
    return NUMBER_PT * dpi / 72.0 * zoom


def readable_zoom(dpi=96.0, readable_px=READABLE_PX):
    """The least zoom at which the cards' numbers are `readable_px` tall."""
    return readable_px / number_px(1.0, dpi)
