"""Where the canvas looks while the player shows a story step.

The view of step k is a function of k and the viewport's size alone, never of the
steps shown before, so stepping back shows exactly what stepping forward showed. The
zoom never drops below the one at which the cards' smallest numbers are readable
(`READABLE_PX`); what does not fit at that zoom is reached by scrolling, not shrinking.

The view shows the whole graph with the step's formula card when that fits at a
readable zoom. Else, at the readable zoom, it shows in order of priority: the active card
and its formula card (from their top-left corner if even they do not fit), the ports
where the cotangent lands, the cards at the other end of the animated edges.
"""
import math

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform

from ...render import legible
from ...render import painter as render_painter
from ...render.cards import BADGE_H, HEADER_H, LINE_H
from ...render.legible import READABLE_PX
from ...render.formula import CARD_GAP

MAX_ZOOM = 1.25
MARGIN = 24.0           # screen pixels kept free around what is framed
SEED_ARROW = 90.0       # the seed's arrow comes in from the right of the target card
LANDING_W = 140.0       # how much of the card where the cotangent lands is worth showing


def text_px(view, zoom=None):
    """How tall (pixels) the cards' smallest numbers are drawn at `zoom` (default: now)."""
    return legible.number_px(view.transform().m11() if zoom is None else zoom, view.logicalDpiY())


def readable_zoom(view, readable_px=READABLE_PX):
    return readable_px / text_px(view, 1.0)


def _card(renderer, nid):
    return renderer.rect(nid).adjusted(0, -render_painter.BADGE_H - 4, 0, 0)


def step_rects(renderer, step):
    """[card, must, near, want, whole] (scene rectangles, in order of priority) for `step`.

    card: the active card alone (whole whenever it fits, even when its formula card
    does not fit beside it); must: with its formula card; near: with the ports at the other end
    of the animated edges, where the cotangent lands; want: with the whole cards there;
    whole: every card and the formula card. A step inside a layer (no card of its own)
    gets [whole]; None when there is no graph to show."""
    nodes = renderer.doc.nodes
    if not nodes or any(n not in renderer.positions for n in nodes):
        return None
    nid = getattr(step, "node", None)
    if nid not in nodes:
        whole = QRectF()
        for n in nodes:
            whole = whole.united(_card(renderer, n))
        return [whole]
    card = must = _card(renderer, nid)
    if step.kind == "seed":
        must = must.adjusted(0, 0, SEED_ARROW, 0)
    formula = render_painter.formula_rect(renderer, step)
    if formula is not None:
        must = must.united(formula)
    near, want = QRectF(must), QRectF(must)
    for edge in renderer._step_edges(step):
        if edge.dst.node == nid:      # the cotangent lands on the output port of the source
            other, port = edge.src.node, renderer.output_pos(edge.src.node, edge.src.index)
            landing = QRectF(port.x() - LANDING_W, port.y() - 40, LANDING_W + 20, 80)
        else:                         # it comes from the input port of a consumer
            other, port = edge.dst.node, renderer.input_pos(edge.dst.node, edge.dst.index)
            landing = QRectF(port.x() - 20, port.y() - 40, LANDING_W + 20, 80)
        if other in renderer.doc.nodes:
            near = near.united(landing)
            want = want.united(_card(renderer, other))
    whole = QRectF(want)
    for n in renderer.doc.nodes:
        whole = whole.united(_card(renderer, n))
    return [card, must, near, want, whole]


def step_frame(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM):
    """(zoom, scene centre, docked formula rect or None) that frames `step` in `view`'s
    viewport; None without a graph.

    When the step's cards and its formula card do not fit at a readable zoom but its
    cards alone do, the view frames the cards and the formula card docks beside them, else
    in a corner of the view where it covers the least of them."""
    renderer.dock_formula(step, None)
    rects = step_rects(renderer, step)
    if rects is None:
        return None
    whole = rects[-1]
    port = view.viewport().rect()
    width, height = max(1.0, port.width() - 2 * MARGIN), max(1.0, port.height() - 2 * MARGIN)
    lowest = readable_zoom(view, readable_px)
    fit = min(width / max(whole.width(), 1.0), height / max(whole.height(), 1.0))
    if fit >= lowest:
        return min(fit, max(max_zoom, lowest)), whole.center(), None
    if fit_zoom(rects[3], width, height) < lowest:
        docked = _docked(view, renderer, step, lowest, width, height)
        if docked is not None:
            return docked
    return lowest, QPointF(
        _centre([(r.left(), r.right()) for r in rects], width / lowest, port.width() / lowest),
        _centre([(r.top(), r.bottom()) for r in rects], height / lowest, port.height() / lowest)), None


def fit_zoom(rect, width, height):
    return min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))


def involved_cards(renderer, step):
    """The cards a step is about: its node's and those at the other end of its edges."""
    nid = getattr(step, "node", None)
    if nid not in renderer.doc.nodes:
        return []
    cards = [_card(renderer, nid)]
    for edge in renderer._step_edges(step):
        other = edge.src.node if edge.dst.node == nid else edge.dst.node
        if other in renderer.doc.nodes and other != nid:
            cards.append(_card(renderer, other))
    return cards


def _docked(view, renderer, step, lowest, width, height):
    """Frame the step's cards with its formula card docked beside them; else its own card."""
    formula = render_painter.formula_rect(renderer, step)
    cards = involved_cards(renderer, step)
    if formula is None or not cards:
        return None
    docked = _dock_beside(view, renderer, step, cards, formula, lowest, width, height) \
        or _dock_over(view, renderer, step, cards, formula, lowest, width, height) \
        or _dock_beside(view, renderer, step, cards[:1], formula, lowest, width, height)
    if docked is not None:             # all the step's cards, else its own card
        return docked
    nodes = QRectF(cards[0])
    for c in cards[1:]:
        nodes = nodes.united(c)
    port = view.viewport().rect()
    wider = formula.width() > port.width() / lowest or formula.height() > port.height() / lowest
    if wider and fit_zoom(nodes, width, height) >= lowest:   # a formula card wider than
        return lowest, nodes.center(), None                   # the view: the cards
    return None


def _dock_beside(view, renderer, step, cards, formula, lowest, width, height):
    """Put the formula card next to the union of `cards` (below, above, right or left:
    the first that fits the view at the readable zoom) and frame both."""
    nodes = QRectF(cards[0])
    for c in cards[1:]:
        nodes = nodes.united(c)
    w, h, gap = formula.width(), formula.height(), CARD_GAP
    port = view.viewport().rect()     # the margins may hold part of them
    seen_w, seen_h = port.width() / lowest - 2, port.height() / lowest - 2
    x_mid = nodes.center().x() - w / 2
    y_mid = nodes.center().y() - h / 2
    spots = [QRectF(x_mid, nodes.bottom() + gap, w, h),
             QRectF(x_mid, nodes.top() - gap - h, w, h),
             QRectF(nodes.right() + gap, y_mid, w, h),
             QRectF(nodes.left() - gap - w, y_mid, w, h)]
    for spot in spots:
        both = nodes.united(spot)
        if both.width() <= seen_w and both.height() <= seen_h:
            renderer.dock_formula(step, spot)
            return lowest, both.center(), spot
    return None



def _dock_over(view, renderer, step, cards, formula, lowest, width, height):
    """When the cards fit the view but nothing beside them holds the formula card too: frame
    the cards and dock the formula card in the corner of the view that covers the least of
    them (a fan-in at an input with several consumers at 1280x800)."""
    nodes = QRectF(cards[0])
    for c in cards[1:]:
        nodes = nodes.united(c)
    if fit_zoom(nodes, width, height) < lowest:
        return None
    port = view.viewport().rect()     # the margins may hold part of it
    seen = QRectF(0, 0, port.width() / lowest - 2, port.height() / lowest - 2)
    seen.moveCenter(nodes.center())
    w, h = formula.width(), formula.height()
    if w > seen.width() or h > seen.height():
        return None
    corners = [QRectF(x, y, w, h) for y in (seen.top(), seen.bottom() - h)
               for x in (seen.left(), seen.right() - w)]

    def covered(spot):
        """How much of the cards `spot` hides; their names (badge, header and first line)
        count ten times: a fan-in card over the top of its node hid whose fan-in it is."""
        return sum(weight * max(0.0, r.width()) * max(0.0, r.height())
                   for c in cards for part, weight in ((c, 1.0), (name_strip(c), 10.0))
                   for r in [spot.intersected(part)])
    spot = min(corners, key=covered)
    renderer.dock_formula(step, spot)
    return lowest, nodes.center(), spot


def name_strip(card):
    """The top of a card as involved_cards gives it: its badge, header and first line."""
    return QRectF(card.left(), card.top(), card.width(), BADGE_H + 4 + HEADER_H + LINE_H)


def _centre(spans, seen, full=None):
    """The centre, along one axis, of a window `seen` long (`full` without its margins)
    that covers the spans in order of priority: each as far as the ones before allow.
    A span longer than the window is centred if it fits in the window's margins; the
    first one, when longer still, is shown from its start. Spans already covered may
    slide into the margins to make room for the next one."""
    full = seen if full is None else full
    lo, hi = -math.inf, math.inf            # the window covers the spans so far
    loose_lo, loose_hi = -math.inf, math.inf  # ... counting its margins
    wish = 0.0
    for k, (a, b) in enumerate(spans):
        if b - a <= seen:
            allowed = (b - seen / 2, a + seen / 2)        # the window covers [a, b]
        elif b - a <= full:
            allowed = ((a + b) / 2, (a + b) / 2)          # in the margins
        elif k == 0:
            allowed = (a + seen / 2, a + seen / 2)        # its start
        else:
            allowed = (a + seen / 2, b - seen / 2)        # the window lies inside [a, b]
        wish = (a + b) / 2
        if max(lo, allowed[0]) <= min(hi, allowed[1]):
            pass
        elif max(loose_lo, allowed[0]) <= min(loose_hi, allowed[1]):
            lo, hi = loose_lo, loose_hi
        else:
            break                                         # as close to it as allowed
        lo, hi = max(lo, allowed[0]), min(hi, allowed[1])
        if b - a <= full:
            loose = (b - full / 2, a + full / 2)
            loose_lo, loose_hi = max(loose_lo, loose[0]), min(loose_hi, loose[1])
        else:
            loose_lo, loose_hi = lo, hi
    return min(max(wish, lo), hi)


def frame_step(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM):
    """Zoom and scroll `view` to frame `step`; returns the zoom, or None (nothing done)."""
    framed = step_frame(view, renderer, step, readable_px, max_zoom)
    if framed is None:
        return None
    zoom, centre, _ = framed
    view.setTransform(QTransform.fromScale(zoom, zoom))
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    scene_rect = view.sceneRect()
    if not scene_rect.contains(seen):
        view.setSceneRect(scene_rect.united(seen.adjusted(-200, -200, 200, 200)))
    view.centerOn(centre)
    return zoom
