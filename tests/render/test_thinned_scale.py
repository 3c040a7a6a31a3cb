"""Issue 20 §1 (auditor H39x, shot s16c-hover): a heat picture that shows every 3rd row and
column of a 100 x 100 matrix printed '±14.230 heatmap', the largest SHOWN entry, while the
matrix's max |.| was 15.205. The caption says what is shown; the ± and the colour scale are
the whole matrix's."""
import numpy as np
from PySide6.QtGui import QColor

from gradviz.render import preview
from gradviz.render.themes import LIGHT


def test_a_thinned_heat_pictures_scale_is_the_whole_matrixs():
    a = np.random.default_rng(1).uniform(-1, 1, (100, 100)).astype(np.float32)
    a[0, 0] = 10.0      # shown (row 0, column 0)
    a[1, 1] = -15.0     # left out: every 3rd row and column shows rows and columns 0, 3, 6, …
    shown = preview.Preview(a)
    assert shown.kind == "heatmap"
    assert shown.heat.thinned == "every 3rd row and column: 34 × 34 of 100 × 100"
    assert np.abs(shown.grid[np.isfinite(shown.grid)]).max() == 10.0
    assert shown.caption.startswith("±15") and shown.caption.endswith(" heatmap")
    assert shown.scale == 15.0
    # the cell of 10 is coloured as 10 of ±15, not as the extreme colour
    expected, _ = preview.diverging_rgb(np.array([[10.0]]), LIGHT.diverging, 15.0)
    top_left = QColor(shown._image(LIGHT).pixel(0, 0))
    assert (top_left.red(), top_left.green(), top_left.blue()) == tuple(int(v) for v in expected[0, 0])
    extreme, _ = preview.diverging_rgb(np.array([[1.0]]), LIGHT.diverging, 1.0)
    assert tuple(int(v) for v in extreme[0, 0]) != tuple(int(v) for v in expected[0, 0])
