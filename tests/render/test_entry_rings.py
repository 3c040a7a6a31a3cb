"""The box that marks an entry (provenance's highlight, a rule's ring on max_pool's maxima)
is centred on the entry as drawn: a table's numbers are right-aligned in columns as wide as
the widest number, and a box the width of the column stood left of a short entry ('nan' in
a column of '0.000', lesson 32's NaN steps)."""
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter
from samples_util import renderer

from gradviz.render.painter import formula_pictures
from gradviz.render.preview import Preview

ZOOM = 4     # pixels of the test's image per unit of the picture


def _ink_runs(picture):
    """Per table row, [(left, right)] in the picture's units of each run of ink between the
    brackets (an entry's text: its characters stand closer than the space between entries)."""
    w, h = int(picture.width * ZOOM) + 8, int(picture.height * ZOOM) + 8
    image = QImage(w, h, QImage.Format.Format_ARGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.scale(ZOOM, ZOOM)
    picture.draw(painter, 0, 0, "#000000", None)
    painter.end()
    ink = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine() // 4, 4)[:, :w, :3].min(axis=2) < 160
    cell = picture.cell_rect(0, 0, 0)
    gap = picture.cell_pad * 2 * ZOOM * 0.6       # below a space's advance, above a '.'
    out = []
    for i in range(len(picture.rows)):
        band = ink[int((2 + i * 16 + 2) * ZOOM):int((2 + (i + 1) * 16 - 2) * ZOOM)]
        cols = np.flatnonzero(band.any(axis=0))
        cols = cols[(cols > (cell.left() - 1) * ZOOM) & (cols < (picture.table_w - 6) * ZOOM)]   # brackets off
        runs, start = [], cols[0]
        for a, b in zip(cols[:-1], cols[1:]):
            if b - a > gap:
                runs.append((start / ZOOM, (a + 1) / ZOOM))
                start = b
        runs.append((start / ZOOM, (cols[-1] + 1) / ZOOM))
        out.append(runs)
    return out


def _assert_centred(picture, what):
    runs = _ink_runs(picture)
    rows, cols = np.asarray(picture.array).reshape(len(picture.rows), -1).shape
    for r in range(rows):
        assert len(runs[r]) == cols, (what, r, runs[r])
        for c, (left, right) in enumerate(runs[r]):
            box = picture.cell_rect(0, 0, r * cols + c)
            assert abs(box.center().x() - (left + right) / 2) <= 1.0, (what, r, c, box, left, right)
            assert box.left() < left and box.right() > right, (what, r, c)      # around the whole text
            assert abs(box.center().y() - (2 + 16 * r + 8)) <= 1.0, (what, r, c)


@pytest.mark.parametrize("array", [[[-np.inf, 0.0, 0.0]], [[np.nan, np.nan, np.nan]],
                                   [[1.5, -123.25, np.nan], [0.0, 7.0, -np.inf]],
                                   [[1, 22, -333]]])
def test_a_highlight_box_is_centred_on_its_entry(array):
    _assert_centred(Preview(np.array(array)), array)


def test_every_entry_of_lesson_32s_rule_cards_is_boxed_where_it_is_drawn():
    """Every array of every rule card of lesson 32 (softmax, then log: -inf and nan beside
    0.000), every entry: the box provenance draws around it is centred on its text."""
    r = renderer("nets_4_softmax_then_log")
    seen = 0
    for step in r.story.steps:
        for label, array, _, shown in formula_pictures(r, step):
            picture = getattr(shown, "shown", shown)
            if isinstance(picture, Preview) and picture.kind == "grid":
                _assert_centred(picture, (step.index, label))
                seen += 1
    assert seen >= 10
