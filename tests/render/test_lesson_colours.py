"""A lesson's colour words are true in every theme it can be shown in (issue 20 §1): the
window (light or dark), presentation mode and slide exports (contrast), the high-contrast
export. Lesson 33 said 'red is positive' and 'filter 2's has a red middle column', and
presentation mode and the exports draw positive in the contrast theme's orange (Okabe-Ito
vermilion, kept for colour-blind viewers); lesson 27 said relu's cards mark off units 'in
red', drawn in the contrast theme's dark orange. Every colour word in a lesson must belong
to a phrase below, which says which theme colour it names; each theme's colour must then
have the hue of one of the words."""
import colorsys
import json
import re
from pathlib import Path

import pytest

from gradviz.render.themes import THEMES

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

# hue ranges (degrees) of the colour words
HUES = {"red": [(340, 360), (0, 15)], "orange": [(15, 45)], "yellow": [(45, 70)],
        "green": [(70, 170)], "blue": [(170, 260)], "purple": [(260, 340)]}
COLOUR_WORD = re.compile(r"\b(" + "|".join(HUES) + r"|violet|pink|brown|grey|gray|vermilion|crimson)\b", re.I)

# (a phrase naming a theme colour, its words in the group 'words'; the colour in a theme)
PHRASES = [
    (re.compile(r"positive is (?P<words>red or orange), as the theme draws it"), lambda t: t.diverging[2]),
    (re.compile(r"negative (?P<words>blue)"), lambda t: t.diverging[0]),
]


def _hue_words(colour):
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    assert s > 0.3, colour          # a hue, not a grey
    deg = h * 360
    return {w for w, ranges in HUES.items() if any(lo <= deg <= hi for lo, hi in ranges)}


def _lessons():
    return [(p.stem, json.loads(p.read_text())["lesson"] or "") for p in sorted(SAMPLES.glob("*.json"))]


@pytest.mark.parametrize("stem, text", _lessons(), ids=[s for s, _ in _lessons()])
def test_every_colour_word_of_a_lesson_is_true_in_every_theme(stem, text):
    covered = []
    for phrase, colour in PHRASES:
        for m in phrase.finditer(text):
            covered.append(m.span("words"))
            named = set(re.split(r"\W+", m.group("words"))) - {"or", "and"}
            for theme in THEMES.values():
                assert _hue_words(colour(theme)) & named, (stem, m.group(0), theme.name, colour(theme))
    for m in COLOUR_WORD.finditer(text):
        assert any(a <= m.start() < b for a, b in covered), \
            (stem, "a colour word no phrase here defines", text[max(0, m.start() - 60):m.end() + 40])


def test_the_hues_are_told_apart():
    """The check itself: lesson 33's old words were false in presentation mode's theme."""
    assert _hue_words(THEMES["contrast"].diverging[2]) == {"orange"}
    assert _hue_words(THEMES["light"].diverging[2]) == {"red"}
    assert _hue_words(THEMES["contrast"].cut) == {"orange"}
