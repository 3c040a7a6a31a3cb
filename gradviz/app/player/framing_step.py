"""The frame of one step (`step_frame`): the zoom, centre and docked formula card that show
its cards, its arrows and its formula card, in order of priority (`step_rects`); the whole
graph with the formula card beside it where that fits (`_beside_graph`), a small graph shown
closer in presentation mode (`_close_up`), else the card docked by the step's cards
(framing_dock). The view is not touched: step_view and framing_slides settle and apply it."""
from PySide6.QtCore import QPointF, QRectF

from ...render import painter as render_painter
from ...render.formula import CARD_GAP
from ...render.legible import READABLE_PX
from .card_rects import arrow_rects, card_as, card_rect, ringed_card, step_items, whole_card
from .framing import MARGIN, MAX_ZOOM, fit_zoom, readable_zoom, spans_centre
from .framing_dock import DOCK_MARGIN, docked_frame

LANDING_W = 140.0       # how much of the card where the cotangent lands is worth showing


def step_rects(renderer, step, extra=(), full=False):
    """[card, must, near, want, whole] (scene rectangles, in order of priority) for `step`.

    card: the active card alone (whole whenever it fits, even when its formula card
    does not fit beside it); must: with its formula card; near: with the ports at the other end
    of the animated edges, where the cotangent lands; want: with the whole cards there;
    whole: every card and the formula card. A step inside a layer (no card of its own)
    gets [whole]; None when there is no graph to show. extra: nodes whose whole cards
    `want` holds too (the cards a slide's caption names, `named_nodes`). full: the cards with
    their ports and the own card's ring (`card_as`)."""
    nodes = renderer.doc.nodes
    if not nodes or any(n not in renderer.positions for n in nodes):
        return None
    nid = getattr(step, "node", None)
    if nid not in nodes:
        whole = QRectF()
        for n in nodes:
            whole = whole.united(card_rect(renderer, n))
        return [whole]
    card = must = card_as(renderer, nid, full, own=True)
    if step.kind == "seed":
        must = must.united(renderer.moving_rect(step))   # the seed's arrow and its label
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
            want = want.united(card_as(renderer, other, full))
    for arrow in arrow_rects(renderer, step):    # the arrows whole, where they bulge out
        want = want.united(arrow)
    for n in extra:
        want = want.united(whole_card(renderer, n))
    whole = QRectF(want)
    for n in renderer.doc.nodes:
        whole = whole.united(card_as(renderer, n, full))
    return [card, must, near, want, whole]


def step_frame(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
               floor_px=READABLE_PX, extra=(), full=False, rule_px=READABLE_PX, dock=True):
    """(zoom, scene centre, docked formula rect or None) that frames `step` in `view`'s
    viewport; None without a graph. fill (presentation mode): a graph that, shown whole,
    leaves most of the view empty is shown closer (`_close_up`). floor_px: the least size
    of the cards' text a step too large is shown at. extra: nodes framed with the step's.
    full: the cards with their ports and the own card's ring (`card_as`). rule_px: the least
    size of the formula card's text (`_configs`). dock False: a step too large to show
    whole is not docked (its zoom is the legible one's: `steady_zoom`'s quick estimate)."""
    renderer.dock_formula(step, None)
    rects = step_rects(renderer, step, extra, full)
    if rects is None:
        return None
    whole = rects[-1]
    port = view.viewport().rect()
    width, height = max(1.0, port.width() - 2 * MARGIN), max(1.0, port.height() - 2 * MARGIN)
    lowest = readable_zoom(view, readable_px)
    fit, framed, docked = _beside_graph(renderer, step, whole, width, height, max(max_zoom, lowest), full)
    if fit >= lowest:
        close = None if fill is None else _close_up(view, renderer, step, rects, framed, fit, max_zoom, fill, extra)
        if close is not None:
            return close
        if docked is not None:
            renderer.dock_formula(step, docked)
        return fit, framed.center(), docked
    if dock and fit_zoom(rects[3], width, height) < lowest:
        docked = docked_frame(view, renderer, step, lowest, readable_px, floor_px, extra, full, rule_px)
        if docked is not None:
            picture = _graph(renderer, step, full).united(docked[2]) if docked[2] is not None else None
            room = (port.width() - 2 * DOCK_MARGIN, port.height() - 2 * DOCK_MARGIN)   # as docked
            if picture is not None and fit_zoom(picture, *room) >= docked[0]:
                return docked[0], picture.center(), docked[2]   # the whole graph with it
                # (lesson 15's step 3 docked its card above y and showed neither x nor delta)
            return docked
    close = None if fill is None else _close_up(view, renderer, step, rects, whole, lowest, max_zoom, fill, extra)
    if close is not None:
        return close
    return lowest, QPointF(
        spans_centre([(r.left(), r.right()) for r in rects], width / lowest, port.width() / lowest),
        spans_centre([(r.top(), r.bottom()) for r in rects], height / lowest, port.height() / lowest)), None


SIDE_GAIN = 1.05        # how much larger a step must show for its formula card to dock off its node
CLOSE_AREA = 0.6        # a graph shown whole over less of the view's area than this ...
CLOSE_GAIN = 1.1        # ... is shown closer where its step's cards show this much larger


def _close_up(view, renderer, step, rects, framed, zoom, cap, fill, extra=()):
    """(zoom, centre, None) for a step whose graph (`framed`, shown at `zoom`) covers less
    than CLOSE_AREA of the view (a chain as wide as the screen and one card tall, lesson 13
    in presentation: 40-47 % at 1920 x 1080): the zoom at which the step's items (its
    cards, arrows and formula card) span `fill` of the view's width or height, up to `cap`;
    the view covers the rest of `rects` as far as it can (and the frame's pan cuts no other
    card where it can help it). None where that is not CLOSE_GAIN larger."""
    port = view.viewport().rect()
    width, height = max(1.0, port.width() - 2 * MARGIN), max(1.0, port.height() - 2 * MARGIN)
    shown = min(framed.width() * zoom, port.width()) * min(framed.height() * zoom, port.height())
    if shown >= CLOSE_AREA * port.width() * port.height():
        return None
    items = QRectF()
    for rect in step_items(renderer, step, extra, full=True):
        items = items.united(rect)
    close = min(cap, fill * fit_zoom(items, port.width(), port.height()))
    if close < zoom * CLOSE_GAIN:
        return None
    return close, QPointF(
        spans_centre([(r.left(), r.right()) for r in rects], width / close, port.width() / close),
        spans_centre([(r.top(), r.bottom()) for r in rects], height / close, port.height() / close)), None


def _beside_graph(renderer, step, whole, width, height, cap, full=False):
    """(zoom, framed rect, formula rect to dock or None) for a step shown with the whole graph
    (`whole`, the formula card in its own place) in `width` x `height` pixels: the formula
    card docked right of the graph, left of it (a source's card at its left) or below it
    where that shows the step at least SIDE_GAIN larger (up to `cap`) than the card in its
    own place (lesson 1 at 1920 x 1080: the seed's card under y_tf made the graph's column of
    two cards one card taller, and the step was framed for that height). The docked card
    touches no card, and no other card lies between it and its own card, which its leader
    line joins."""
    best = (min(cap, fit_zoom(whole, width, height)), whole, None)
    formula = render_painter.formula_rect(renderer, step)
    nid = getattr(step, "node", None)
    if formula is None or nid not in renderer.doc.nodes:
        return best
    graph = _graph(renderer, step, full)
    own = card_rect(renderer, nid)
    w, h = formula.width(), formula.height()
    top = max(graph.top(), min(own.top(), graph.bottom() - h))     # level with its card
    right = QRectF(graph.right() + CARD_GAP, top, w, h)
    if step.kind == "seed":     # below the seed's arrow, which its leader would run along
        right.moveTop(max(top, renderer.moving_rect(step).bottom() + CARD_GAP))
    left = QRectF(graph.left() - CARD_GAP - w, top, w, h)
    below = QRectF(max(graph.left(), min(own.left(), graph.right() - w)), graph.bottom() + CARD_GAP, w, h)
    others = [renderer.footprint(n) for n in renderer.doc.nodes if n != nid]
    for spot in (right, left, below):
        between = own.united(spot)
        if any(between.intersects(card) for card in others):
            continue
        framed = graph.united(spot)
        zoom = min(cap, fit_zoom(framed, width, height))
        if zoom > best[0] * SIDE_GAIN:
            best = (zoom, framed, spot)
    return best


def _graph(renderer, step, full=False):
    """Every card (with its badge and its ports' names) and `step`'s arrows (the seed's
    with its word): the picture a small graph's step shows, its formula card aside."""
    graph = QRectF()
    for n in renderer.doc.nodes:
        graph = graph.united(renderer.footprint(n)).united(card_as(renderer, n, full))
    for arrow in arrow_rects(renderer, step):
        graph = graph.united(arrow)
    if step.kind == "seed":
        graph = graph.united(renderer.moving_rect(step))
    if full and getattr(step, "node", None) in renderer.doc.nodes:
        graph = graph.united(ringed_card(renderer, step.node))
    return graph
