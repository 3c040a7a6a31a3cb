"""What test_rule_card_digits.py checks at each step of its walk (its docstring says what
and why), in a module of its own: the walk in presentation mode also checks the framing
(shared_walks.py), and steps once for both."""
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPicture

from gradviz.app.player import card_rects
from gradviz.render import text, tiles
from gradviz.render import painter as render_painter
from gradviz.render.involved import involved_nodes
from gradviz.render.legible import NUMBER_PT

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


def misses(w, path, step, size, monkeypatch):
    """What the rule card of `step` (of sample `path`, settled in presentation mode on a
    screen of `size`) gets wrong: its digits or its tile pictures' under DIGIT_PX where a
    place clear of every card had room for it larger, the card cut by the view's edge or
    lying over a card of the step."""
    c = w.canvas
    r = c.renderer
    formula = render_painter.formula_rect(r, step)
    if formula is None:
        return []
    out = []
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
