"""A picture's look (what it draws, as a value to compare): the canvas keeps a card's
numbers picture while new numbers look the same (a training run's later steps), and
draws it again as soon as a digit printed or a colour changes."""
import numpy as np
import pytest

from gradviz.render import preview, tiles
from gradviz.render.themes import LIGHT


def looks(array, changed):
    """(the look of `array`'s picture, of `changed`'s in the same layout)."""
    shown = tiles.picture(array)
    return shown.look(LIGHT), shown.renumbered(changed).look(LIGHT)


@pytest.mark.parametrize("shape", [(), (2, 3), (9, 9), (30, 30), (2, 4, 4, 3)],
                         ids=["scalar", "table", "ellipsis", "heatmap", "tiles"])
def test_a_picture_looks_the_same_until_a_digit_or_a_colour_changes(qapp, shape):
    rng = np.random.default_rng(5)
    a = np.array(rng.normal(size=shape) * 3, dtype=np.float64)
    if a.ndim:
        a.reshape(-1)[0] = 4.0   # the largest magnitude, kept: a heatmap's caption and colour scale stay
    below_print = a.copy()
    below_print.reshape(-1)[-1] += 1e-9   # far below the printed digits and the colour steps
    kind = tiles.picture(a).kind
    assert kind == {(): "scalar", (2, 3): "grid", (9, 9): "ellipsis", (30, 30): "heatmap"}.get(shape, "tiles")
    same, now = looks(a, below_print)
    assert same == now
    flipped = a.copy()
    flipped.reshape(-1)[-1] *= -1   # another sign: another digit and colour
    assert flipped.reshape(-1)[-1] != a.reshape(-1)[-1]
    same, now = looks(a, flipped)
    assert same != now


def test_a_heatmap_image_is_in_the_painters_own_format(qapp):
    """Drawn without a conversion each time (a thumbnail scaled onto a card: 57 us as
    RGBA8888, 4 us premultiplied), and with the colours the map gives."""
    rgba = np.zeros((2, 3, 4), np.uint8)
    rgba[..., 0], rgba[..., 1], rgba[..., 2], rgba[..., 3] = 200, 30, 90, 255
    image = preview.rgba_image(rgba)
    assert image.format() == image.Format.Format_ARGB32_Premultiplied
    assert (image.width(), image.height()) == (3, 2)
    assert image.pixelColor(2, 1).getRgb() == (200, 30, 90, 255)
