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
(or an auditor on a screenshot) sees; `digit_share` turns the card's type into it (0.76 of
the numbers' font size, DejaVu Sans Mono). The window's own floor, legible.READABLE_PX, is a
font size (9 px, digits 6.8 px tall): its docstring gives the count of window steps under 9 px
glyphs. Measured on main at c664f39 in presentation mode at 1280 x 800: one rule card under
9 px (attention's step 20, 7.8 px), the step's cards' digits under 9 px at 16 steps."""
import pytest
from PySide6.QtCore import QCoreApplication, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPicture

from gradviz.app.player import card_rects
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render import text, tiles
from gradviz.render import painter as render_painter
from gradviz.render.involved import involved_nodes
from gradviz.render.legible import NUMBER_PT, READABLE_PX

SAMPLE_FILES = sorted(SAMPLES_DIR.glob("*.json"))
DIGIT_PX = {(1280, 800): 9.0, (1920, 1080): 11.0}   # a digit's height on screen, at least
EPS = 1e-6


def digit_share(font):
    """A digit's glyph height as a share of `font`'s pixel size (measured large)."""
    big = QFont(font)
    big.setPixelSize(200)
    return QFontMetricsF(big).tightBoundingRect("0123456789").height() / 200


def rule_card_digit_px(view, renderer, step):
    """The height (screen pixels) of the digits of the step's rule card's type: its
    matrices' numbers, its 'where' operands' and its labels' (8.5 pt), at the view's zoom
    times the card's own scale (its tile pictures: `tile_digit_px`)"""
    zoom = view.transform().m11() * renderer.formula_scale(step)
    px = view.logicalDpiY() / 72.0 * zoom * NUMBER_PT
    return min(px * digit_share(text.mono(NUMBER_PT)), px * digit_share(text.sans(NUMBER_PT)))


def tile_digit_px(view, renderer, step, monkeypatch):
    """The heights (screen pixels) of the digits each tile picture of the step's rule card
    writes in its cells, as the canvas paints the card at the view's zoom (a tile whose cells
    are small writes them in a smaller type than the card's; none where it writes none).
    Before: the conv-transpose lesson's accumulate step 5 wrote them 7.2 px tall at 1280 x
    800, 8.0 px at 1920 x 1080, beside a label that said the picture's shape as if it wrote
    none ('gradient · 1×5×5×1')."""
    layout = renderer.formula_layout(step)
    if not any(part[0] in ("array", "picture") and shown.kind == "tiles" for part, shown, *_ in layout.placed):
        return []
    written = []
    zoom = view.transform().m11()
    with monkeypatch.context() as patched:
        patched.setattr(tiles.Tiles, "_draw_numbers", lambda self, *args: written.append(self.number_pt))
        picture = QPicture()
        painter = QPainter(picture)
        renderer._paint_formula(painter, step, zoom)     # as the canvas records it (overlay)
        painter.end()
    zoom *= renderer.formula_scale(step)
    return [view.logicalDpiY() / 72.0 * zoom * pt * digit_share(text.mono(pt)) for pt in written]


def _clear_spot(seen, size, cards, step=6.0):
    """Is there a place for a card of `size` in `seen` that touches no card (a scan on a
    grid, independent of how the player docks)?"""
    w, h = size
    y = seen.top()
    while y + h <= seen.bottom():
        x = seen.left()
        while x + w <= seen.right():
            if not any(QRectF(x, y, w, h).intersects(card.adjusted(-2, -2, 2, 2)) for card in cards):
                return True
            x += step
        y += step
    return False


def _misses(w, path, size, monkeypatch):
    c, p = w.canvas, w.player
    out = []
    for step in p.steps:
        w.presentation.go(step.index)
        p.finish_animation()
        for _ in range(3):
            QCoreApplication.processEvents()
            while w.presentation._fit_pending:
                QCoreApplication.processEvents()
        r = c.renderer
        formula = render_painter.formula_rect(r, step)
        if formula is None:
            continue
        where = (path.stem, step.index + 1)
        digits = rule_card_digit_px(c, r, step)
        seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
        grow = DIGIT_PX[size] / digits
        if grow > 1 + EPS and _clear_spot(seen, (formula.width() * grow, formula.height() * grow),
                                          [r.footprint(n) for n in r.doc.nodes if n in r.positions]):
            out.append(where + ("rule card's digits", round(digits, 1)))
        small = [px for px in tile_digit_px(c, r, step, monkeypatch) if px < DIGIT_PX[size] - EPS]
        if small:
            out.append(where + ("a tile picture's digits", round(min(small), 1)))
        if not seen.contains(formula):
            out.append(where + ("rule card not whole in view",))
        nodes = involved_nodes(r, step)
        for nid, card in zip(nodes, card_rects.involved_cards(r, step)):
            if formula.intersects(r.footprint(nid)):
                out.append(where + ("rule card over a card of the step", nid))
    return out


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_rule_card_reads_from_the_back_row(open_window, present, size, monkeypatch):
    w = open_window(None, size=size)
    present(w, size)
    w.setUpdatesEnabled(False)
    misses = []
    for path in SAMPLE_FILES:
        assert w.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        w.canvas.relayout_unplaced(READABLE_PX)   # as Fit to Window lays it out in the window
        misses += _misses(w, path, size, monkeypatch)
    w.presentation.exit()
    assert misses == [], f"{len(misses)} misses\n" + "\n".join(map(str, misses))
