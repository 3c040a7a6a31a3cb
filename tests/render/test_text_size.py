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
from samples_util import NAMES, renderer


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
