"""Rank-3 and rank-4 tensors read as what they are (issue 21 §1): an NHWC batch as a row of
channel tiles per example, a conv filter as in x out tiles, a sequence as tokens x
features; one colour scale; numbers once zoomed in; large ones summarised in words."""
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPainter

from gradviz import graph
from gradviz.engine.errors import ordinal
from gradviz.graph import Port
from gradviz.render import tiles
from gradviz.render import ensure_app, export
from gradviz.render.cards import entry_under
from gradviz.render.painter import Renderer
from gradviz.render.themes import get_theme
from gradviz.story.numbers import NEAR_ZERO

SAMPLES = Path(__file__).resolve().parents[2] / "gradviz" / "samples"


@pytest.fixture(scope="module", autouse=True)
def app():
    ensure_app()


def every_shown_entry_round_trips(shown, x=7.0, y=11.0):
    """cell_rect and entry_at are each other's inverse on every entry the picture shows;
    an entry left out has no cell. Returns how many entries are shown."""
    count = 0
    for flat in range(shown.array.size):
        rect = shown.cell_rect(x, y, flat)
        if rect is None:
            continue
        count += 1
        assert shown.entry_at(x, y, rect.center()) == flat
    return count


def test_a_1x5x5x1_image_is_one_5x5_tile_not_a_strip():
    image = np.arange(25, dtype=np.float32).reshape(1, 5, 5, 1)
    shown = tiles.picture(image)
    assert shown.kind == "tiles" and shown.layout == "nhwc"
    assert (shown.rows, shown.cols) == ([0], [0]) and shown.tiles.shape == (1, 1, 5, 5)
    assert shown.tile_w == shown.tile_h == 5 * tiles.CELL_MAX
    assert every_shown_entry_round_trips(shown) == 25
    # entry x[0,2,3,0] is the cell in row 2, column 3 of the tile
    flat = np.ravel_multi_index((0, 2, 3, 0), image.shape)
    rect = shown.cell_rect(0, 0, flat)
    assert (rect.left(), rect.top()) == (shown.col_x[0] + 3 * shown.cell, shown.row_y[0] + 2 * shown.cell)
    assert shown.index_text(flat, "x") == "x[0,2,3,0]"


def test_a_large_batch_says_what_it_leaves_out():
    a = np.random.default_rng(0).normal(size=(6, 4, 3, 16)).astype(np.float32)
    shown = tiles.picture(a)
    assert shown.rows == [0, 1, None, 5] and shown.cols == [0, 1, 2, None, 15]
    assert shown.more_rows == "⋮ 3 more examples"
    assert shown.more_cols == ("… 12 more", "channels")
    assert every_shown_entry_round_trips(shown) == 3 * 4 * 4 * 3
    hidden = np.ravel_multi_index((3, 0, 0, 0), a.shape)    # example 3 is left out
    assert shown.cell_rect(0, 0, hidden) is None
    # one colour scale over the whole tensor, not per tile
    assert shown.scale == pytest.approx(float(np.abs(a).max()))


def test_a_filter_reads_as_in_by_out_tiles_of_its_taps():
    w = np.random.default_rng(1).normal(size=(3, 2, 4, 5)).astype(np.float32)   # HWIO
    shown = tiles.picture(w, role=tiles.FILTER)
    assert shown.layout == "hwio" and shown.tiles.shape == (4, 5, 3, 2)
    assert shown.rows == [0, 1, None, 3] and shown.cols == [0, 1, 2, None, 4]
    flat = np.ravel_multi_index((2, 1, 3, 4), w.shape)      # tap (2, 1) from in 3 to out 4
    rect = shown.cell_rect(0, 0, flat)
    assert (rect.left(), rect.top()) == (shown.col_x[4] + shown.cell, shown.row_y[3] + 2 * shown.cell)
    assert every_shown_entry_round_trips(shown) == 3 * 4 * 3 * 2


def test_a_sequence_reads_as_tokens_by_features_per_example():
    a = np.arange(2 * 4 * 6, dtype=np.float64).reshape(2, 4, 6)
    shown = tiles.picture(a)
    assert shown.layout == "ntf" and shown.tiles.shape == (2, 1, 4, 6)
    assert every_shown_entry_round_trips(shown) == a.size
    flat = np.ravel_multi_index((1, 3, 5), a.shape)
    assert shown.entry_at(0, 0, shown.cell_rect(0, 0, flat).center()) == flat


def test_other_ranks_keep_their_table_or_heatmap():
    assert tiles.picture(np.ones((3, 4))).kind == "grid"
    assert tiles.picture(np.ones((1, 1, 1, 1))).kind == "grid"       # one number: no tile
    assert tiles.picture(np.zeros((0, 2, 2, 1))).kind != "tiles"


def paint(shown, zoom, theme):
    image = QImage(int(shown.width * zoom) + 4, int(shown.height * zoom) + 4, QImage.Format.Format_RGB32)
    image.fill(QColor(theme.card))
    p = QPainter(image)
    p.scale(zoom, zoom)
    shown.draw(p, 0, 0, theme.value, theme)
    p.end()
    return image


def colours_in(image, rect, zoom):
    r = rect.adjusted(1, 1, -1, -1)
    return {image.pixel(int(x * zoom), int(y * zoom)) for x in np.arange(r.left(), r.right(), 0.25)
            for y in np.arange(r.top(), r.bottom(), 0.25)}


def test_a_cell_shows_its_number_only_when_zoomed_in_enough_to_read_it():
    theme = get_theme("light")
    a = np.array([0.0, 2.0, -2.0, 1.0]).reshape(1, 2, 2, 1)
    shown = tiles.picture(a)
    for flat, expected in ((1, theme.diverging[2]), (2, theme.diverging[0]), (0, theme.diverging[1])):
        plain = colours_in(paint(shown, 1, theme), shown.cell_rect(0, 0, flat), 1)
        assert plain == {QColor(expected).rgb()}          # ±max|a| saturate, 0 is the middle
        zoomed = colours_in(paint(shown, 4, theme), shown.cell_rect(0, 0, flat), 4)
        assert len(zoomed) > 2                             # the number's glyphs over the colour


def test_cards_of_the_conv_lesson_draw_an_image_and_a_filter_as_tiles():
    doc = graph.load(SAMPLES / "nets_1_conv_transpose.json")
    r = Renderer(doc, graph.evaluate(doc))
    value_x, grad_x = r.cards["input_image"].sections
    value_w, grad_w = r.cards["filter_w"].sections
    assert r.cards["input_image"].info == "1×5×5×1 · float32" and r.cards["filter_w"].info == "3×3×1×1 · float32"
    assert (value_x.preview.layout, grad_x.preview.layout) == ("nhwc", "nhwc")
    assert (value_w.preview.layout, grad_w.preview.layout) == ("hwio", "hwio")
    assert r.cards["y"].sections[0].preview.layout == "nhwc"
    # the entry under a point of the gradient's tile is the one its cell_rect gives
    flat = np.ravel_multi_index((0, 2, 3, 0), (1, 5, 5, 1))
    from gradviz.render.cards import LINE_H, PAD
    cell = grad_x.preview.cell_rect(PAD, grad_x.y + LINE_H, flat)
    section, hit = entry_under(r.cards["input_image"], cell.center())
    assert section is grad_x and hit == flat
    assert np.asarray(grad_x.array).flat[hit] == -4.0        # the lesson's row 2: [1, 4, -2, -4, 1]


def test_the_svg_export_draws_the_same_tiles(tmp_path):
    doc = graph.load(SAMPLES / "nets_1_conv_transpose.json")
    export(doc, tmp_path / "conv.svg", evaluation=graph.evaluate(doc))
    svg = (tmp_path / "conv.svg").read_text()
    assert svg.count("<image") >= 5           # x, ∂x, w, ∂w, y: one tile each
    assert "one tile per in → out" in svg and "one tile per channel" in svg


def test_tiles_write_their_numbers_in_the_cards_format():
    """One number format per card (issue 20 §5): a tile picture beside a table on the same
    card writes 0.50, not its own 0.500, when the card's format is %.2f."""
    image = np.linspace(-1, 1, 2 * 3 * 3 * 2).reshape(2, 3, 3, 2)
    own = tiles.picture(image)
    carded = tiles.picture(image, spec="%.2f")
    assert own.number_texts(0, 0)[0][0] == "-1.000"
    assert carded.number_texts(0, 0)[0][0] == "-1.00"
    assert carded.renumbered(image * 2, "%.1f").number_texts(0, 0)[0][0] == "-2.0"


def test_the_tiny_cnns_filter_gradient_is_a_3x3_tile_per_output_filter():
    """Issue 21 §2.2: the card filters w, the filter rule's step and the gradient's step
    draw the 3x3x1x4 gradient as four 3x3 tiles (out0 … out3) in one colour scale, the
    rule as the image correlated with the four channels of the upstream."""
    from samples_util import renderer
    theme = get_theme("light")
    r = renderer("nets_5_tiny_cnn")
    gradient = r.story.evaluation.gradients[Port("filters_w")]
    assert gradient.shape == (3, 3, 1, 4)

    def is_four_3x3_tiles(shown):
        assert (shown.kind, shown.layout) == ("tiles", "hwio")
        assert shown.tiles.shape == (1, 4, 3, 3) and (shown.rows, shown.cols) == ([0], [0, 1, 2, 3])
        assert shown.tile_w == shown.tile_h == 3 * shown.cell
        for a, b, o in np.ndindex(3, 3, 4):       # tap (a, b) of filter o is row a, column b of tile o
            flat = np.ravel_multi_index((a, b, 0, o), gradient.shape)
            cell = shown.cell_rect(0, 0, flat)
            assert (cell.left(), cell.top()) == (shown.col_x[o] + b * shown.cell, shown.row_y[0] + a * shown.cell)

    value, grad = r.cards["filters_w"].sections
    for section in (value, grad):
        is_four_3x3_tiles(section.preview)
    np.testing.assert_array_equal(grad.preview.array, gradient)

    rule = next(s for s in r.story.steps if s.kind == "contribution" and s.port == Port("filters_w"))
    placed = {part[2]: (part, shown) for part, shown, *_ in r.formula_layout(rule).placed
              if part[0] in ("picture", "array")}
    image, upstream, result = placed["input (image x)"][1], placed["upstream"][1], placed["contribution"][1]
    assert set(placed) == {"input (image x)", "upstream", "contribution"}   # input ⋆ upstream = contribution
    assert (image.layout, image.tiles.shape) == ("nhwc", (1, 1, 8, 8))
    assert (upstream.layout, upstream.tiles.shape) == ("nhwc", (1, 4, 6, 6))   # g, one tile per filter
    is_four_3x3_tiles(result)
    np.testing.assert_allclose(result.array, gradient, rtol=1e-5, atol=1e-6)
    total = r.story.steps[rule.index + 1]
    assert (total.kind, total.port) == ("accumulate", Port("filters_w"))
    is_four_3x3_tiles(next(shown for part, shown, *_ in r.formula_layout(total).placed if part[0] == "array"))

    # filter 2's middle column is the theme's positive colour (red here, orange in the contrast
    # theme: the lesson says 'positive', e4f5d5a), filter 1's blue (negative), as the lesson says
    picture = paint(grad.preview, 1, theme)
    red, blue = QColor(theme.diverging[2]), QColor(theme.diverging[0])
    for o, colour in ((2, red), (1, blue)):
        for a in range(3):
            cell = grad.preview.cell_rect(0, 0, np.ravel_multi_index((a, 1, 0, o), gradient.shape))
            shade = QColor(picture.pixel(int(cell.left()) + 2, int(cell.top()) + 2))   # beside its number
            assert np.sign(gradient[a, 1, 0, o]) == (1 if colour is red else -1)
            assert shade.red() - shade.blue() == pytest.approx(colour.red() - colour.blue(), abs=110), (a, o)
    assert "filter 2's (counting from 0) has a positive middle column" in r.doc.lesson


def glyphs_in(shown, zoom, theme, flat):
    """How many colours the cell of entry `flat` shows drawn at `zoom`: one without its
    number, more with it (the glyphs over the cell's colour)."""
    return len(colours_in(paint(shown, zoom, theme), shown.cell_rect(0, 0, flat), zoom))


def test_a_cards_tiles_write_their_numbers_as_soon_as_they_read_at_9_px():
    """Issue 21 §1: the tiny CNN's three-decimal numbers appeared on its cards' tiles only
    from about 280 %: cells of 10.7 and 12 px held them in 2-point type. A card's tiles now
    grow their cells within CARD_ROOM towards the size at which the card's one format reads
    at 9 px at 100 % (reached by a 5x5 or 6x6 map; nearly by 3x3 filters and pooled maps,
    four across, and the 8x8 image) and write their numbers from the zoom at which the
    type is 9 px and the widest number fits its cell."""
    from samples_util import renderer
    from gradviz.render import legible, text
    theme = get_theme("light")
    r = renderer("nets_5_tiny_cnn")
    gradient = r.cards["filters_w"].sections[1].preview
    assert glyphs_in(gradient, 1.25, theme, int(np.argmax(np.abs(gradient.array)))) > 2   # at 125 %
    numbers_from = {}
    for nid in ("image_x", "filters_w", "conv", "relu", "pool"):
        for section in r.cards[nid].sections:
            shown = section.preview
            assert shown.kind == "tiles" and shown.width <= tiles.CARD_ROOM[0] \
                and shown.tiles_h <= tiles.CARD_ROOM[1]
            texts = [t for r_, c in np.ndindex(shown.tiles.shape[:2]) for row in shown.number_texts(r_, c)
                     for t in row]
            # one format: 3 decimals (≈0, a nonzero entry too small for them, is none: conv's)
            assert len({len(t.split(".")[-1]) for t in texts if t.strip() != NEAR_ZERO}) == 1
            zoom = shown.numbers_from
            font = text.mono(shown.number_pt)
            assert legible.READABLE_PX <= shown.number_pt * 4 / 3 * zoom < legible.READABLE_PX * 1.1
            assert max(text.width(font, t) for t in texts) <= shown.cell       # the widest fits its cell
            flat = int(np.argmax(np.abs(shown.array)))
            assert glyphs_in(shown, zoom * 0.97, theme, flat) == 1           # not yet written
            assert glyphs_in(shown, zoom, theme, flat) > 2                   # written from there on
            numbers_from[nid] = zoom
    assert max(numbers_from[nid] for nid in ("filters_w", "pool", "image_x")) < 1.3   # 3x3 filters and maps, 8x8
    assert numbers_from["conv"] < 2.8                                    # four 6x6 maps
    one_map = tiles.picture(np.linspace(-1, 1, 36).reshape(1, 6, 6, 1), spec="%.3f", room=tiles.CARD_ROOM)
    assert one_map.numbers_from <= 1.0 and glyphs_in(one_map, 1.0, theme, 0) > 2


def test_a_rule_cards_tiles_take_the_zoom_they_are_seen_at():
    """A formula card's tile pictures that do not grow (four 6x6 maps of three decimals) write
    their numbers when drawn for a zoom at which they read, even on a painter at 1:1 (the
    canvas records the card once per zoom band: render.formula.FormulaLayout.number_band)."""
    from samples_util import renderer
    theme = get_theme("light")
    r = renderer("nets_5_tiny_cnn")
    rule = next(s for s in r.story.steps if s.kind == "contribution" and s.port == Port("filters_w"))
    layout = r.formula_layout(rule)
    shown = {part[2]: picture for part, picture, *_ in layout.placed if part[0] == "array"}["upstream"]
    assert shown.cell <= tiles.CELL_MAX and not shown.grown and shown.numbers_from > 2
    bands = [layout.number_band(z) for z in (1.0, shown.numbers_from * 0.99, shown.numbers_from, 8.0)]
    assert bands[0] == bands[1] < bands[2] <= bands[3]
    flat = int(np.argmax(np.abs(shown.array)))
    for zoom, written in ((1.0, False), (shown.numbers_from, True)):
        image = QImage(int(shown.width) + 4, int(shown.height) + 4, QImage.Format.Format_RGB32)
        image.fill(QColor(theme.card))
        p = QPainter(image)
        shown.draw(p, 0, 0, theme.gradient, theme, zoom)        # a 1:1 painter, seen at `zoom`
        p.end()
        assert (len(colours_in(image, shown.cell_rect(0, 0, flat), 1)) > 1) == written, zoom


def test_a_tiles_names_and_scale_read_wherever_the_cards_numbers_do():
    """The column and row names (c0, in0, out3) and the colour scale under the tiles (±2.03)
    were 7 and 7.5 pt: 7.4 and 7.9 px at the zoom the canvas and the player frame cards at
    (their numbers 9 px). They are written in the numbers' size."""
    from gradviz.render import legible
    zoom = legible.readable_zoom()
    for array, role in ((np.ones((2, 3, 3, 4)), None), (np.ones((3, 3, 1, 4)), tiles.FILTER)):
        shown = tiles.picture(array, role=role)
        for font in (shown.label_font, shown.caption_font):
            assert font.pointSizeF() * 4 / 3 * zoom >= legible.READABLE_PX - 1e-9


def test_a_rule_picture_reads_at_the_zoom_the_player_shows_steps_at_when_the_card_has_room():
    """Issue 21 §1: a rule picture's cells were 12 px whatever its numbers, so the tiny CNN's
    three decimals appeared from ~340 % and the conv lesson's integers from 135 %, while the
    player shows steps at the readable zoom (the cards' numbers 9 px, 79 %). A picture whose
    numbers then read within formula.RULE_ROOM grows its cells to that size, while its card
    stays within formula.GROWN_MAX_H (it frames with the step's cards at 1280x800); one that
    cannot keeps its size (its numbers on hover), and pooling's pictures, which correspond cell
    by cell, grow all or none. Over every step with a rule picture of every sample."""
    from samples_util import NAMES, renderer
    from gradviz.render import formula, legible
    zoom = legible.readable_zoom()
    theme = get_theme("light")
    seen = {}
    for name in NAMES:
        r = renderer(name)
        for step in r.story.steps if r.story is not None else []:
            layout = r.formula_layout(step)
            for part, shown, *_ in layout.placed:
                if part[0] != "picture" or shown.kind != "tiles":
                    continue
                fits = tiles.readable_cell(shown._chars, zoom) * max(shown.tiles.shape[2:]) <= formula.RULE_ROOM[1]
                assert shown.width <= formula.RULE_ROOM[0]
                if shown.grown:
                    assert shown.numbers_from <= zoom * (1 + 1e-9) and shown.tiles_h <= formula.RULE_ROOM[1]
                    assert glyphs_in(shown, zoom, theme, int(np.argmax(np.abs(shown.array)))) > 2
                else:
                    assert shown.cell <= tiles.CELL_MAX
                seen[(name, step.index + 1, part[2])] = shown.grown
                if not fits:
                    assert not shown.grown
                if shown.grown:
                    assert layout.height <= formula.GROWN_MAX_H
    conv = [grown for (name, _, _), grown in seen.items() if name == "nets_1_conv_transpose"]
    assert len(conv) == 3 and all(conv)                                  # integers: every picture
    assert not seen[("nets_5_tiny_cnn", 17, "input (image x)")]           # 8x8 of three decimals: on hover
    pool = [grown for (name, step, _), grown in seen.items() if name == "nets_5_tiny_cnn" and step == 13]
    assert len(pool) == 1 and not any(pool)         # the cards' scale: cell by cell with the upstream


@pytest.mark.parametrize("shape, layout, step", [
    ((1, 28, 28, 1), "nhwc", 1),        # a 28 x 28 image: 2.3 px cells in a 72 x 64 tile box
    ((2, 28, 28, 3), "nhwc", 2),        # three of them side by side: 420 px wide at MIN_CELL
    ((1, 64, 64, 1), "nhwc", 2),        # one 64 x 64 image: 320 px tall at MIN_CELL
    ((1, 224, 224, 3), "nhwc", 10),
    ((5, 5, 3, 4), "hwio", 1),
    ((2, 40, 30), "ntf", 2),
])
def test_tile_cells_are_as_large_as_a_heatmaps_and_a_large_tile_says_what_it_shows(shape, layout, step):
    """A heatmap's cells are heat_layout.MIN_CELL or more (last session); a tile's had no least
    size: a 28 x 28 image drew 2.3 px cells. Tiles take their cells from the same rule
    (heat_layout.square_cell), and a picture that would outgrow heat_layout.CARD_PICTURE at MIN_CELL
    shows every k-th row and column of each tile, said in its caption; every entry it draws
    still round-trips between its cell and a hover."""
    from gradviz.render import heat_layout, preview
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    shown = tiles.picture(a, role=tiles.FILTER if layout == "hwio" else None)
    assert shown.layout == layout and shown.cell >= heat_layout.MIN_CELL
    assert shown.tiles_w <= heat_layout.CARD_PICTURE[0] and shown.tiles_h <= heat_layout.CARD_PICTURE[1]
    assert shown.step == step
    if step > 1:      # the least step that fits
        assert not shown._fits_card((step - 1, step - 1))
    h, w = (shape[1:3] if layout == "nhwc" else shape[:2] if layout == "hwio" else shape[1:])
    if step > 1:
        shown_h, shown_w = -(-h // step), -(-w // step)
        assert shown.caption_lines[1] == (f"every {ordinal(step)} row and column of a tile: "
                                          f"{shown_h} × {shown_w} of {h} × {w}")
    else:
        assert len(shown.caption_lines) == 1
    drawn = every_shown_entry_round_trips(shown)
    n_rows, n_cols = shown.tiles.shape[:2]
    tiles_shown = sum(r is not None for r in shown.rows) * sum(c is not None for c in shown.cols)
    assert drawn == tiles_shown * shown.tiles.shape[2] * shown.tiles.shape[3]
    assert shown.height == shown.tiles_h + preview.CELL_H * len(shown.caption_lines)


def test_every_tile_and_heat_picture_of_every_sample_keeps_its_cells_and_its_size():
    """Over every sample, card and story step: each heat or tile picture's cells are
    heat_layout.MIN_CELL or more, and at MIN_CELL the picture stays within heat_layout.CARD_PICTURE
    (a picture larger than that only where its cells grew for its numbers to read); its
    caption says when it shows every k-th row."""
    from samples_util import NAMES, renderer

    from gradviz.render import heat_layout
    seen = 0
    for name in NAMES:
        r = renderer(name)
        pictures = [s.preview for card in r.cards.values() for s in card.sections if s.preview is not None]
        for step in (r.story.steps if r.story is not None else ()):
            layout = r.formula_layout(step)
            pictures += [shown for _, shown, *_ in (layout.placed if layout is not None else ())]
        for shown in pictures:
            kind = getattr(shown, "kind", None)
            if kind not in ("heatmap", "tiles"):
                continue
            seen += 1
            assert shown.cell >= heat_layout.MIN_CELL, (name, kind, shown.array.shape)
            if shown.cell == heat_layout.MIN_CELL:
                w, h = (shown.heat_w, shown.heat_h) if kind == "heatmap" else (shown.tiles_w, shown.tiles_h)
                assert w <= heat_layout.CARD_PICTURE[0] and h <= heat_layout.CARD_PICTURE[1], (name, shown.array.shape)
            step = shown.heat.step if kind == "heatmap" else (shown.step, shown.step)
            assert (step != (1, 1)) == any("every " in line for line in shown.caption_lines)
    assert seen > 50
