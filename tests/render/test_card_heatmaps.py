"""Heat pictures on cards and rule cards: a long vector wraps into rows and says so, a tall or
wide matrix is cut into blocks that keep each entry where its words put it, and every cell
is large enough to see."""
import numpy as np
import pytest
from samples_util import NAMES, renderer

from gradviz.render import heat_layout, preview
from gradviz.render.cards import PAD


def test_long_vector_heatmap_wraps_into_rows():
    shown = preview.Preview(np.linspace(-1, 1, 201))
    assert shown.kind == "heatmap" and shown.grid.shape == (11, 20)
    assert shown.cell >= 6 and shown.heat_h >= 60
    assert "201 values, 20 per row" in shown.caption
    cell = shown.cell_rect(0, 0, 25)
    assert (cell.x(), cell.y()) == pytest.approx((5 * shown.cell, 1 * shown.cell))
    column = preview.Preview(np.ones((300, 1)))
    assert column.grid.shape == (15, 20)


def test_a_tall_matrix_heatmap_is_no_sliver():
    """The tiny CNN's dense.kernel gradient (36 x 3) was drawn 7 scene units wide, a ~10 px
    sliver at slide 19 in presentation mode: the picture is at least HEAT_H / 2 wide and
    every entry's cell is where a click finds it; a square or wide one keeps square cells.
    (This test first asked for wider cells, 14 x 2.33: still 2.33 px tall, unreadable. A tall
    matrix is now cut into blocks of rows side by side, cells square and MIN_CELL or more:
    test_every_heat_picture_has_visible_cells_and_fills_its_box.)"""
    tall = preview.Preview(np.linspace(-1, 1, 108).reshape(36, 3))
    assert tall.kind == "heatmap" and tall.heat.blocks
    assert tall.heat_w >= heat_layout.HEAT_H / 2 and tall.heat_h <= heat_layout.HEAT_H
    for flat in (0, 5, 107):
        cell = tall.cell_rect(0, 0, flat)
        assert tall.entry_at(0, 0, cell.center()) == flat
        assert cell.width() == pytest.approx(cell.height()) and cell.height() >= heat_layout.MIN_CELL
    for shape in ((30, 30), (10, 40)):
        shown = preview.Preview(np.linspace(-1, 1, shape[0] * shape[1]).reshape(shape))
        cell = shown.cell_rect(0, 0, 0)
        assert shown.kind == "heatmap" and cell.width() == pytest.approx(cell.height())


def test_a_wrapped_heatmap_says_how_many_values_it_lays_out_in_rows():
    """The tiny CNN's flat card (1 x 36) read '±2.030 heatmap, rows of 20': rows of 20 of a
    36-vector. Over every sample, every card and every story step, a vector drawn wrapped
    says what the picture is: its values' count and how many a row. (A wrapped vector is
    told by `heat.wrapped`, no longer by a grid of another shape: a matrix cut into blocks
    has one too.)"""
    seen = []
    for name in NAMES:
        for card in renderer(name).cards.values():
            for section in card.sections:
                shown = section.preview
                if shown is None or shown.kind != "heatmap":
                    continue
                assert "rows of" not in shown.caption, (name, shown.caption)
                if shown.heat.wrapped:
                    seen.append(shown.caption)
                    assert shown.caption.endswith(
                        f", {shown.array.size} values, {heat_layout.WRAP} per row"), shown.caption
    assert any(c.endswith(", 36 values, 20 per row") for c in seen), seen


def _heat_pictures(name):
    """(where, picture, room) of every heatmap a sample draws: on its cards (room: the
    section's inner width) and on the rule card of every story step (room: the picture's
    own width)."""
    r = renderer(name)
    for nid, card in r.cards.items():
        for section in card.sections:
            if section.preview is not None and section.preview.kind == "heatmap":
                yield nid, section.preview, card.width - 2 * PAD
    for k, step in enumerate(r.story.steps if r.story is not None else ()):
        layout = r.formula_layout(step)
        for part, shown, *_ in (layout.placed if layout is not None else ()):
            if getattr(shown, "kind", None) == "heatmap":
                yield f"step {k + 1}", shown, shown.width


def test_every_heat_picture_has_visible_cells_and_fills_its_box():
    """The tiny CNN's dense.kernel gradient (36 x 3) was a 7 x 84 px strip of 2.3 px cells
    in a 200 px wide section (steps 19-20). Over every sample, every card and every story
    step: each heat cell is MIN_CELL or more at zoom 1, the picture takes at least half its
    box's width unless its cells are as large as they grow, the box is the picture and its
    caption lines (no empty band), and a matrix cut into blocks says so in its caption."""
    pictures = [(name, *found) for name in NAMES for found in _heat_pictures(name)]
    assert any(shown.array.shape == (36, 3) for _, _, shown, _ in pictures)
    for name, where, shown, room in pictures:
        rows, cols = shown.grid.shape
        assert shown.cell >= heat_layout.MIN_CELL, (name, where, shown.array.shape, shown.cell)
        assert (shown.heat_w, shown.heat_h) == (cols * shown.cell, rows * shown.cell)
        assert shown.heat_w >= room / 2 or shown.cell == heat_layout.HEAT_MAX_CELL, (name, where, shown.heat_w, room)
    for name, where, shown, room in pictures:
        assert shown.height == shown.heat_h + preview.CELL_H * len(shown.caption_lines)
        assert (len(shown.caption_lines) == 2) == (shown.heat.count > 1), shown.caption_lines


@pytest.mark.parametrize("shape, blocks, thinned", [
    ((36, 3), "36 rows as 4 blocks of 9, left to right", ""),
    ((3, 36), "36 columns as 3 blocks of 12, top to bottom", ""),
    ((37, 3), "37 rows as 4 blocks of up to 10, left to right", ""),
    ((1, 36), "", ""), ((36, 1), "", ""), ((7, 7), "", ""), ((48, 80), "", ""),
    # too large for heat_layout.CARD_PICTURE at MIN_CELL: every k-th row (of a thin matrix) or
    # row and column, said in words (issue 20: a 100 x 100 matrix drew a 500 px picture)
    ((784, 10), "262 rows as 6 blocks of up to 44, left to right", "every 3rd row: 262 of 784"),
    ((100, 100), "", "every 3rd row and column: 34 × 34 of 100 × 100"),
    ((3, 5000), "834 columns as 12 blocks of up to 70, top to bottom", "every 6th column: 834 of 5000"),
])
def test_a_thin_matrix_is_laid_out_in_blocks_that_keep_each_entry_where_it_says(shape, blocks, thinned):
    """A tall or wide matrix is cut into blocks of whole rows (or columns), never
    transposed: each cell draws the entry the layout in words puts there, a hover over it
    names that entry, and the cells are MIN_CELL or more. (A 100 x 100 picture grew past the
    thumbnail box to 500 px: a picture that would outgrow heat_layout.CARD_PICTURE shows every
    k-th row, or row and column, and its caption says which; the entries it leaves out
    have no cell.)"""
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 7.5
    shown = preview.Preview(a, compact=True)
    assert shown.kind == "heatmap" and shown.heat.blocks == blocks and shown.heat.thinned == thinned
    assert shown.caption_lines == tuple(line for line in (shown.caption, thinned, blocks) if line)
    assert shown.cell >= heat_layout.MIN_CELL
    assert shown.heat_w <= heat_layout.CARD_PICTURE[0] and shown.heat_h <= heat_layout.CARD_PICTURE[1]
    kr, kc = shown.heat.step
    drawn = 0
    for i in range(a.size):
        r, c = divmod(i, shape[1])
        if r % kr or c % kc:
            assert shown.cell_rect(0, 0, i) is None
            continue
        drawn += 1
        r, c = shown.heat.position(i)
        assert shown.grid[r, c] == a.reshape(-1)[i] and shown.heat.index[r, c] == i
        assert shown.entry_at(0, 0, shown.cell_rect(0, 0, i).center()) == i
    if blocks and shape[0] > shape[1] and kr == 1:   # block b holds rows b*per.. of every column, left to right
        per = shown.heat.per
        assert shown.grid[0, shape[1] + 1] == a[per, 0] and np.isnan(shown.grid[0, shape[1]])
    assert (shown.heat.index >= 0).sum() == drawn == -(-shape[0] // kr) * -(-shape[1] // kc)
