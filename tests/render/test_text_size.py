"""Every word and number painted on a card or a rule card is at least legible.READABLE_PX
tall at the zoom where the cards' numbers read (legible.readable_zoom), the zoom the canvas
and the player frame cards at (issue 21 §2: a heatmap's caption '±2.030 heatmap' was 7.5 pt,
7.9 px there). Measured on what the painter is asked to draw, over every sample's cards and
every step's rule card."""
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

from gradviz.render import legible

from recording import Recording
from samples_util import NAMES, renderer, sample


def small_texts(name):
    r = renderer(name)
    zoom = legible.readable_zoom()
    image = QImage(4, 4, QImage.Format.Format_RGB32)
    painter = Recording(image)
    painter.scale(zoom, zoom)
    r.paint(painter, None)
    for step in r.story.steps if r.story is not None else []:
        layout = r.formula_layout(step)
        r._paint_formula_at(painter, layout, QRectF(0, 0, layout.width, layout.height), zoom)
    painter.end()
    assert painter.texts
    return sorted({(round(px, 2), t) for px, _, t in painter.texts if t.strip() and px < legible.READABLE_PX - 1e-6})


@pytest.mark.parametrize("name", NAMES)
def test_every_text_on_cards_and_rule_cards_reads_where_their_numbers_do(name):
    assert small_texts(name) == []


def _contrast(a, b):
    """WCAG's contrast ratio of two '#rrggbb' colours."""
    def luminance(h):
        c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    la, lb = sorted((luminance(a), luminance(b)))
    return (lb + 0.05) / (la + 0.05)




@pytest.mark.parametrize("theme", ["light", "dark", "contrast"])
def test_a_sum_cards_words_say_where_each_summand_comes_from_as_large_as_its_body_text(theme):
    """A fan-in's rule card writes under each summand where it comes from ('from ∂y/∂x via xx
    (input b) inside t1.gradient(y, x)'): a teacher reads it to the class. It was 8.5 pt in
    the theme's muted grey (#5b636e on #fffdf5), smaller than the card's caption (9 pt) and
    than the numbers above it (auditor: x-height ~5 px in lesson 13's step 22 at 1024 x 768).
    Each label is drawn at least as large as the card's body text and its numbers, in a colour
    of contrast 7:1 or more against the card (WCAG's AAA for small type)."""
    from gradviz.render.formula import _fonts
    from gradviz.story.model import path_name
    body = max(_fonts()["caption"].pointSizeF(), legible.NUMBER_PT) * 96 / 72
    checked = 0
    for name in NAMES:
        if not sample(name)[1].of_kind("fan_in"):
            continue
        r = renderer(name, theme)
        for step in r.story.of_kind("fan_in"):
            layout = r.formula_layout(step)
            words = {path_name(step, i) for i in range(len(step.contributions or []))} | {
                layout.caption_of("sum")}
            image = QImage(4, 4, QImage.Format.Format_RGB32)
            painter = Recording(image)
            r._paint_formula_at(painter, layout, QRectF(0, 0, layout.width, layout.height), 1.0)
            painter.end()
            drawn = [(px, colour, t) for (px, _, t), colour in zip(painter.texts, painter.colours) if t in words]
            assert {t for _, _, t in drawn} == words, (name, step.index + 1)
            for px, colour, t in drawn:
                where = (name, step.index + 1, t)
                assert px >= body - 1e-6, where
                assert _contrast(colour, r.theme.formula_card) >= 7.0, where + (colour,)
                checked += 1
    assert checked >= 20
