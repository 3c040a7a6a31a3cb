"""How small text may be drawn and still be read: the cards' numbers at least
READABLE_PX tall on screen (their font's size in pixels, as a font size is counted).
The canvas draws cards compact below that zoom; the player frames steps at or above it."""
from __future__ import annotations

READABLE_PX = 9.0    # about the smallest type a reader reads without effort
NUMBER_PT = 8.5      # the point size of the cards' numbers (render.preview's tables)


def number_px(zoom, dpi=96.0):
    """How tall (pixels) the cards' numbers are drawn at `zoom` on a screen of `dpi`."""
    return NUMBER_PT * dpi / 72.0 * zoom


def readable_zoom(dpi=96.0, readable_px=READABLE_PX):
    """The least zoom at which the cards' numbers are `readable_px` tall."""
    return readable_px / number_px(1.0, dpi)
