"""Tables of numbers on cards: each number in its cell between the brackets, drawn as one
glyph run with drawText's pixels, columns as wide as the numbers' magnitude so a card keeps
its size while its values change, and a card renumbered after a value edit draws what a
fresh measure draws, its ink within its numbers rect."""
import copy

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from samples_util import NAMES, image_pixels, renderer

from gradviz.render import Renderer, preview


@pytest.mark.parametrize("brush", [None, "#000000"])
@pytest.mark.parametrize("array", [np.arange(-6.0, 6.0).reshape(3, 4) * 1.25, np.arange(64.0).reshape(8, 8)])
def test_a_table_draws_each_number_in_its_cell_between_its_brackets(array, brush):
    """The ink of a table (drawn at an offset, scaled): every shown number inside its
    `cell_rect`, each bracket down the whole height at its side, and nothing else, whatever
    brush the painter held (a card's section frame leaves its fill colour)."""
    shown, scale, (x, y) = preview.Preview(array), 2.0, (7.5, 11.0)
    image = QImage(int((shown.width + 20) * scale), int((shown.height + 20) * scale), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.scale(scale, scale)
    if brush:
        painter.setBrush(QColor(brush))
    shown.draw(painter, x, y, "#000000", None)
    painter.end()
    a = image_pixels(image)[..., :3]
    ink = a.min(axis=2) < 128

    def px(rect):   # a scene rect as a slice of pixel rows and columns
        return (slice(int(rect.top() * scale), int(np.ceil(rect.bottom() * scale))),
                slice(int(rect.left() * scale), int(np.ceil(rect.right() * scale))))
    left = QRectF(x, y, preview.BRACKET + 1, shown.height)
    right = QRectF(x + shown.width - preview.BRACKET - 1, y, preview.BRACKET + 1, shown.height)
    for bracket in (left, right):
        rows = ink[px(bracket)].any(axis=1)
        assert rows[int(1.5 * scale):-int(1.5 * scale)].all()      # a full-height stroke
    arm = preview.BRACKET * 0.7
    for inside in (QRectF(x + 2.5, y + 2.5, arm - 2, shown.height - 5),   # within each [ and ], not filled
                   QRectF(x + shown.width - 1 - arm + 0.5, y + 2.5, arm - 2, shown.height - 5)):
        assert not ink[px(inside)].any()
    cells = [shown.cell_rect(x, y, flat) for flat in range(array.size)]
    cells = [c for c in cells if c is not None]
    assert len(cells) == len([r for r in shown.rows if r is not None]) * len([c for c in shown.cols if c is not None])
    explained = np.zeros_like(ink)
    for rect in [left, right, *cells]:
        explained[px(rect)] = True
    for cell in cells:
        rows, cols = px(cell)
        assert ink[rows, cols].sum() >= 4 * scale * scale          # a number is drawn here,
        ys, xs = np.nonzero(ink[rows, cols])
        middle = (ys.min() + ys.max()) / 2 / scale + rows.start / scale
        assert abs(middle - cell.center().y()) <= 1.5              # in the middle of its row,
        assert cell.right() - 3 <= (xs.max() + 1 + cols.start) / scale   # flush right
    if shown.kind == "grid":
        assert not (ink & ~explained).any()                        # and nothing outside
    else:   # the ellipses are drawn between the cells
        assert (ink & ~explained).sum() < ink.sum() / 4


@pytest.mark.parametrize("lookup", ["table", "qt"])
@pytest.mark.parametrize("dpi, ratio", [(72, 1.0), (96, 1.0), (192, 1.0), (96, 2.0)])
def test_a_table_drawn_as_one_glyph_run_has_drawtexts_pixels(monkeypatch, dpi, ratio, lookup):
    """On raster devices a table of numbers is one glyph run (no shaping); the glyphs come
    from the painter's font as resolved for the device, so every dpi, pixel ratio and zoom
    gives the pixels one drawText a row gives. The glyph indexes come from a translate
    table, or from Qt for a font whose digits have no index below 256 ("qt")."""
    monkeypatch.setattr(preview, "_RAW_FONTS", {})
    if lookup == "qt":
        raw_font = preview._raw_font
        monkeypatch.setattr(preview, "_raw_font", lambda font: (*raw_font(font)[:2], None))
    rng = np.random.default_rng(11)
    tables = [preview.Preview(rng.normal(size=(4, 4)).astype(np.float32)),
              preview.Preview(np.array([[np.nan, -np.inf, 2e9]])), preview.Preview(rng.integers(-99, 99, (6, 5)))]

    def draw(shown, scale):
        image = QImage(int((shown.width + 10) * scale), int((shown.height + 10) * scale),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        image.setDotsPerMeterX(round(dpi / 0.0254))
        image.setDotsPerMeterY(round(dpi / 0.0254))
        image.setDevicePixelRatio(ratio)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.scale(scale, scale)
        shown.draw(painter, 3.3, 2.7, "#1565c0", None)
        painter.end()
        return image_pixels(image)
    ran = []
    glyph_rows = preview._draw_glyph_rows
    monkeypatch.setattr(preview, "_draw_glyph_rows", lambda *a: ran.append(glyph_rows(*a)) or ran[-1])
    runs = {(id(shown), scale): draw(shown, scale) for shown in tables for scale in (0.6, 1.0, 2.0)}
    assert ran and all(ran)
    monkeypatch.setattr(preview, "_draw_glyph_rows", lambda *a: False)   # one drawText a row
    for shown in tables:
        for scale in (0.6, 1.0, 2.0):
            texts = draw(shown, scale)
            assert texts.any() and (runs[id(shown), scale] == texts).all(), (shown.kind, scale)


def test_a_table_keeps_its_size_while_its_values_change():
    """The columns follow the numbers' magnitude (the digits before the point of the
    largest: every float is written with three decimals), not their values or signs: a card
    keeps its width while an edit changes its values within a decade, so its edges keep
    their routes."""
    rng = np.random.default_rng(3)
    for low, high in ((0.2, 9.99), (10.0, 99.99), (100.0, 999.9)):
        widths = set()
        for top in np.linspace(low, high, 20):
            a = rng.uniform(-top, top, size=(4, 4))
            a[0, 0] = top * rng.choice([-1, 1])
            widths.add(preview.Preview(a).width)
        assert len(widths) == 1, (low, high)
    a = rng.normal(size=(3, 3))
    assert preview.Preview(a).width == preview.Preview(-a).width == preview.Preview(np.abs(a)).width


@pytest.mark.parametrize("array", [
    np.array([[-1.5, 2.25], [np.nan, -np.inf]]), np.array([[1e-7, -3e-6]]), np.array([[2e9, -1e5, 3.0]]),
    np.array([[-128, 127]], dtype=np.int8), np.array([[0, 255]], dtype=np.uint8),
    np.array([[True, False]]), np.array([[-9.9996, 0.5]]), np.array([[0.0, -0.0]]),
    np.arange(-50, 50).reshape(10, 10) * 1.5, np.array([[-0.00049, 0.0001]])])
def test_every_number_fits_its_column(array):
    shown = preview.Preview(array)
    for row in shown.table:
        for value in row:
            if value not in preview.ELLIPSES:
                assert len(value) <= shown._chars, (value, shown._chars)
    runs = [run for row in shown.runs for run in row if not run[3]]
    assert runs and all(len(text_) % (shown._chars + 1) == 0 for _, _, text_, _ in runs)


def test_a_table_of_numbers_prints_each_row_at_once_as_its_cells_would_be():
    """Tables without ellipses print every row with one printf (_number_text); the text is the
    one the cell-by-cell path (cell_runs over `table`) makes, for every dtype and format."""
    rng = np.random.default_rng(7)
    arrays = [np.array([[-1.5, 2.25], [np.nan, -np.inf]]), np.array([[1e-7, -3e-6]]),
              np.array([[2e9, -1e5, 3.0]]), np.array([[-128, 127]], dtype=np.int8),
              np.array([[0, 255]], dtype=np.uint8), np.array([[0.0, -0.0]]),
              np.array([[-0.00049, 0.0001]]), np.array([[7.0, -2.0], [1.0, 0.0]], np.float32),
              np.array([0.1234]).reshape(1, 1), rng.normal(size=(3, 2, 2)).astype(np.float16),
              np.zeros((0,), np.float32)]
    for scale in (1e-4, 0.01, 1.0, 30.0, 1e6):
        for shape in ((4, 4), (6, 5), (2, 3), (5,)):
            arrays.append((scale * rng.normal(size=shape)).astype(rng.choice([np.float32, np.float64])))
    arrays.append(rng.integers(-5000, 5000, size=(4, 4)))
    printed = 0
    for array in arrays:
        shown = preview.Preview(array)
        if shown.kind not in ("grid", "ellipsis"):
            continue
        expected = preview.cell_runs(shown.table, shown.widths, shown._chars)
        assert shown.runs == expected, array
        printed += shown._spec is not None and None not in shown.rows and None not in shown.cols
    assert printed >= 20


def _picture(shown):
    """What a Preview shows and how it is laid out, for comparing two."""
    keys = ("kind", "width", "height", "rows", "cols", "widths", "cell_pad", "_chars", "_spec", "text",
            "caption", "heat_w", "heat_h", "cell", "_plain")
    laid_out = {k: getattr(shown, k) for k in keys if hasattr(shown, k)}
    if shown.kind in ("grid", "ellipsis"):
        laid_out.update(table=shown.table, runs=shown.runs, number_text=shown._number_text())
    return laid_out


def test_a_renumbered_preview_is_the_preview_of_its_new_numbers():
    """A value edit renumbers each card's previews (Preview.renumbered keeps the layout
    when the columns keep their width): the result is what a fresh Preview of the new
    numbers shows, whether the width stayed, grew or shrank, for every kind and dtype."""
    rng = np.random.default_rng(5)
    shapes = [(), (1,), (4, 4), (6, 5), (3, 2, 2), (8, 8), (10, 7), (30, 30), (300,)]
    kept = 0
    for shape in shapes:
        for dtype in (np.float32, np.float64, np.int32, np.bool_):
            for compact in (False, True):
                for scale_before, scale_after in ((1.0, 1.3), (1.0, 40.0), (50.0, 0.5), (1e-4, 1.0), (1.0, 1e6)):
                    def draw(scale):
                        a = scale * rng.normal(size=shape)
                        if dtype is np.bool_:
                            return a > 0
                        if np.issubdtype(dtype, np.integer):
                            return np.round(a * 10).astype(dtype)
                        a = a.astype(dtype)
                        if a.size > 2 and scale > 10:
                            a.reshape(-1)[1] = np.nan   # a non-finite number widens the columns
                        return a
                    before, after = draw(scale_before), draw(scale_after)
                    old = preview.Preview(before, compact=compact)
                    old.runs if old.kind in ("grid", "ellipsis") else None   # drawn once before the edit
                    shown = old.renumbered(after)
                    assert _bytes(shown.array) == _bytes(after)
                    assert _picture(shown) == _picture(preview.Preview(after, compact=compact)), (shape, dtype, compact)
                    kept += shown.kind in ("grid", "ellipsis") and shown.width == old.width
    assert kept >= 20


def _bytes(array):
    a = np.asarray(array)
    return a.shape, a.dtype.str, a.tobytes()     # NaN equals NaN here, as the picture does


def _drawn(card):
    """Everything a card paints, arrays as lists and previews as their layout and text."""
    def block(s):
        shown = s.preview
        layout = None if shown is None else (shown.kind, shown.width, shown.height,
                                             getattr(shown, "runs", None) or getattr(shown, "text", None))
        return (s.label, s.colour, s.y, s.port, s.text, None if s.array is None else _bytes(s.array), layout)
    return (card.title_text, card.subtitle_text, card.lines, card.width, card.height, card.n_inputs,
            card.n_outputs, card.has_gradient, [block(s) for s in card.sections])


def _renumbered_cards_agree(name):
    """Scale the sample's float inputs by 0.8..1.2 and re-evaluate; every card `_renumbered`
    keeps must draw what a full measure draws. Returns how many cards were kept."""
    from samples_util import sample

    from gradviz.graph.evaluate import evaluate
    doc, story = sample(name)
    before = Renderer(doc, evaluation=story.evaluation)
    changed = copy.deepcopy(doc)
    rng = np.random.default_rng(1)
    kept = 0
    for node in changed.nodes.values():
        if node.value is not None and np.asarray(node.value).dtype.kind == "f":
            node.value = (np.asarray(node.value) * rng.uniform(0.8, 1.2, np.shape(node.value))).astype(
                np.asarray(node.value).dtype)
    after = Renderer(changed, evaluation=evaluate(changed))
    for nid, node in changed.nodes.items():
        card = after._renumbered(before.cards[nid], node)
        if card is not None:
            kept += 1
            assert _drawn(card) == _drawn(after.cards[nid]), nid
    return kept


@pytest.mark.parametrize("name", NAMES)
def test_a_card_renumbered_after_new_values_draws_what_a_fresh_measure_draws(name):
    """The canvas keeps a card's geometry when only its numbers change (`_renumbered`):
    whenever it does, the card is the one a full measure gives."""
    _renumbered_cards_agree(name)


def test_cards_of_matrices_keep_their_geometry_when_their_values_change():
    assert _renumbered_cards_agree("004_matmul_sum") >= 3


def _inked_outside(r, nid, rect, scale, step=None):
    """How many pixels a card's numbers ink outside `rect` (card coordinates) at `scale`."""
    card, margin = r.cards[nid], 10
    x, y = r.positions[nid]
    image = QImage(int(card.width * scale) + 2 * margin, int(card.height * scale) + 2 * margin,
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.translate(margin, margin)
    painter.scale(scale, scale)
    painter.translate(-x, -y)
    r._paint_card_numbers(painter, nid, step)
    painter.end()
    rows, cols = np.nonzero(image_pixels(image)[..., 3])
    assert rows.size, nid
    left, top = (cols - margin) / scale, (rows - margin) / scale   # each pixel's square, in card units
    right, bottom = left + 1 / scale, top + 1 / scale
    return int(((right <= rect.left()) | (left >= rect.right()) | (bottom <= rect.top())
                | (top >= rect.bottom())).sum())


@pytest.mark.parametrize("name", NAMES)
def test_a_cards_numbers_are_inked_within_its_numbers_rect(name):
    """The canvas caches and repaints only `numbers_rect` when only numbers change: a
    preview, "None" or "pending" inked outside it would leave stale pixels."""
    from gradviz.render.cards import HEADER_H, numbers_rect
    r = renderer(name)
    last = len(r.story.steps) - 1 if r.story is not None else None
    first_step = 0 if r.story is not None and r.pending_ports(0) else None   # sources' gradients pending
    for nid, card in r.cards.items():
        rect = numbers_rect(card)
        if not card.sections:
            assert rect.isEmpty()
            continue
        assert HEADER_H < rect.top() and rect.bottom() < card.height and rect.width() < card.width
        for scale in (1.0, 2.5):
            for step in {last, first_step}:
                assert _inked_outside(r, nid, rect, scale, step) == 0, (nid, scale, step)
