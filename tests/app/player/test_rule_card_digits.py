"""A slide's rule card reads from the back row (issue 20 §4): in presentation mode, every
step of every sample shows its rule card's digits at least DIGIT_PX tall on screen (the
height of a digit's glyph, as a reader measures it on a screenshot, not the font's pixel
size: the numbers' digits are 0.76 of it), the card whole in view and over
none of the cards that send or receive the step's cotangent; smaller only where the
card that large has no place in view clear of every card (the framing keeps a rule card off
every card: attention's step 20 at 1280 x 800, whose larger card fits only over w_k's and
w_v's values). An auditor measured lesson
14's rule cards (steps 5, 6, 8, 9, 11) at ~7 px at 1280 x 800: a step too large for the
back row's zoom was framed smaller, its rule card with its cards, down to the window's
legible size (9 px font, 6.8 px digits).

The measure is the glyph, not the font: DIGIT_PX is a digit's height on screen, what a reader
(or an auditor on a screenshot) sees; `digit_share` (rule_card_reads.py) turns the card's
type into it (0.76 of the numbers' font size, DejaVu Sans Mono). The window's own floor, legible.READABLE_PX, is a
font size (9 px, digits 6.8 px tall): its docstring gives the count of window steps under 9 px
glyphs. Measured on main at c664f39 in presentation mode at 1280 x 800: one rule card under
9 px (attention's step 20, 7.8 px), the step's cards' digits under 9 px at 16 steps."""
import pytest

import shared_walks


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.parametrize("size", [pytest.param((1280, 800), marks=pytest.mark.walk("presented 1280 x 800")),
                                  pytest.param((1920, 1080), marks=pytest.mark.walk("presented 1920 x 1080"))])
def test_every_rule_card_reads_from_the_back_row(walks, open_window, present, size, monkeypatch):
    """Checked at each step of the walk in presentation mode that test_step_framing's
    framing test takes too (shared_walks.presented: walked once for both)."""
    misses = shared_walks.presented(walks, open_window, present, size, monkeypatch)["rule cards"]
    assert misses == [], f"{len(misses)} misses\n" + "\n".join(map(str, misses))
