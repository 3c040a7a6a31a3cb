"""Where the canvas looks while the player shows a story step.

The view of step k is a function of k and the viewport's size alone, never of the
steps shown before, so stepping back shows exactly what stepping forward showed. The
cards' smallest numbers are drawn `readable_px` tall (presentation mode asks more than the
window's `READABLE_PX`, for the back row).

The view shows the whole graph with the step's formula card when that fits at that zoom,
the card docked right, left or below the graph where that shows the step larger than the
card's own place beside its node (`_beside_graph`), and as large as `max_zoom` allows.
In presentation mode (`fill`), a graph that shown so covers little of the view (a chain as
wide as the screen and one card tall) is shown closer, the step's items spanning `fill` of
the view (`_close_up`). Else it shows the step's cards (all of them, else its own) with the whole formula card,
docked where it hides none of their names (`_docked`), and every other card too where
the view holds them all with the card docked there: a step too large for the back row's
zoom is shown whole a little smaller, and its formula card may be drawn smaller than its
cards, but no text goes under `READABLE_PX`. Only when even that fails does the view, at the
readable zoom, show in order of priority: the active card and its formula card (from their
top-left corner if even they do not fit), the ports where the cotangent lands, the cards at
the other end of the animated edges; the rest is reached by scrolling. The view then pans
as little as it takes (`settle`) to show the step's arrows whole and to cut no other card in
half where a slightly different pan shows it whole or not at all.
In presentation mode a slide also shows whole every card its caption or rule card names
(`named_nodes`), its cards' text down to the presentation's floor (11 px) for that; a named
card that even then does not fit is named at the view's edge with an arrow toward it
(`edge_markers`), never cut. A seed slide shows the cards that feed its target too
(`seed_context`) where they fit at the back row's size.
"""
import math
import re

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform

from ...render import legible
from ...render import painter as render_painter
from ...render.legible import READABLE_PX
from ...render.formula import CARD_GAP
from ...story.formula_parts import operand_title
from ...render.involved import involved_nodes
from . import docking
from .card_rects import arrow_rects, box, card_as, card_rect, name_strip, ringed_card, step_items, whole_card
from .settle import frame_cuts, frame_shows, nameless_cuts, off_centre, seen_rect, settle, shown_whole

MAX_ZOOM = 1.25
MARGIN = 24.0           # screen pixels kept free around what is framed
LANDING_W = 140.0       # how much of the card where the cotangent lands is worth showing
LABEL_MARGIN = 2.0      # screen pixels between the view's edge and an arrow's label


def text_px(view, zoom=None):
    """How tall (pixels) the cards' smallest numbers are drawn at `zoom` (default: now)."""
    return legible.number_px(view.transform().m11() if zoom is None else zoom, view.logicalDpiY())


def readable_zoom(view, readable_px=READABLE_PX):
    return readable_px / text_px(view, 1.0)


def card_texts(renderer, step):
    """What the step's rule card writes (its formula, rule, operands' names, words and the
    captions under its pictures): the words a reader looks for on the canvas."""
    layout = renderer.formula_layout(step)
    if layout.empty:
        return []
    out = [getattr(step, "formula", "") or ""]
    for part in layout.parts:
        if part[0] in ("text", "word"):
            out.append(part[1])
        elif part[0] == "array":
            out.append(operand_title(part) if len(part) > 3 else layout.caption_of(part[2]))
        elif part[0] == "picture" and part[2]:
            out.append(part[2])
    return out


def named_nodes(renderer, step):
    """The nodes whose names the step's title, caption (the presentation's caption band) or
    rule card writes, in the document's order: a reader who reads 'Here input is 'image x''
    or '∂y/∂x' looks for those cards. A name inside a longer one ('x' in 't1.gradient(y, x)',
    'out' in 'out[3]') is that one's, not its own. A target is not: every caption names it as
    what is differentiated ('how much the sum of loss's elements changes', '∂Σloss/∂x'), which
    needs no look at its card; a step about the target itself holds its card anyway."""
    nodes = renderer.doc.nodes
    targets = {p.node for p in renderer.doc.targets}
    names = {n: nodes[n].label or n for n in nodes}
    texts = [getattr(step, "title", "") or "", getattr(step, "caption", "") or ""] + card_texts(renderer, step)
    found = set()
    longest_first = sorted(names, key=lambda n: -len(names[n]))
    patterns = {}       # compiled once per step, for the names that occur in some text
    for text in texts:
        for n in longest_first:
            if names[n] not in text:    # (no match without the name itself: most names, most texts)
                continue
            pattern = patterns.get(n)
            if pattern is None:
                pattern = patterns[n] = re.compile(rf"(?<![A-Za-z_]){re.escape(names[n])}(?![A-Za-z0-9_])")
            text, count = pattern.subn(lambda m: "\0" * len(m.group()), text)   # not a shorter one's
            if count:
                found.add(n)
    return [n for n in nodes if n in found and n not in targets]


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
        docked = _docked(view, renderer, step, lowest, readable_px, floor_px, extra, full, rule_px)
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
        _centre([(r.left(), r.right()) for r in rects], width / lowest, port.width() / lowest),
        _centre([(r.top(), r.bottom()) for r in rects], height / lowest, port.height() / lowest)), None


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
        _centre([(r.left(), r.right()) for r in rects], width / close, port.width() / close),
        _centre([(r.top(), r.bottom()) for r in rects], height / close, port.height() / close)), None


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


TRACE_STEP = 12.0      # scene units between the points of an arrow a docked card keeps clear of
TRACE_R = 2.0          # ... each point a box this far out to each side


def arrow_trace(renderer, step):
    """Boxes (left, top, right, bottom) along `step`'s arrows as drawn (a fan-in's paths
    beside each other: `step_tracks`), TRACE_STEP apart, and a seed's arrow with its word:
    what of them a docked formula card must not cover."""
    out = []
    for _, track in renderer.step_tracks(step):
        out += _trace(track.xy, track.running)
    seed = renderer.seed_marks(step)
    if seed is not None:     # the seed's arrow and its word (nets_3_wrong_gradient's seed slide hid them)
        tail, tip, word = seed
        out += _trace(np.array([[tip.x(), tip.y()], [tail.x(), tail.y()]]), np.array([0.0, tail.x() - tip.x()]))
        out.append(word.getCoords())
    return out


def wire_trace(renderer):
    """Boxes along every edge's line as routed, TRACE_STEP apart: what a floating card keeps
    clear of where it has room (lesson 10's seed card lay over the edge x_sq → z at 1024 x
    768, lesson 20's over sq → loss at 1280 x 800)."""
    out = []
    for path in renderer.routes().values():
        for polygon in path.toSubpathPolygons():
            xy = np.array([(p.x(), p.y()) for p in polygon], dtype=float).reshape(-1, 2)
            if len(xy) > 1:
                out += _trace(xy, np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(xy, axis=0).T))]))
    return out


def _trace(xy, running):
    """Boxes TRACE_R out to each side of points TRACE_STEP apart along the line through
    `xy`, `running` the distance along it at each point."""
    n = max(2, int(running[-1] / TRACE_STEP) + 1)
    at = np.linspace(0.0, running[-1], n)
    xs, ys = np.interp(at, running, xy[:, 0]), np.interp(at, running, xy[:, 1])
    return [(x - TRACE_R, y - TRACE_R, x + TRACE_R, y + TRACE_R) for x, y in zip(xs.tolist(), ys.tolist())]


def fit_zoom(rect, width, height):
    return min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))


def senders(renderer, step):
    """The cards a step's cotangent comes from (a fan-in's consumers), where the view starts
    before it follows the arrows to the step's card; none when it starts at the step's card
    (a contribution's arrow leaves it)."""
    nid = getattr(step, "node", None)
    if nid not in renderer.doc.nodes:
        return []
    out = []
    for edge in renderer._step_edges(step):
        other = edge.dst.node
        if other != nid and other in renderer.doc.nodes and edge.src.node == nid:
            card = card_rect(renderer, other)
            if card not in out:
                out.append(card)
    return out


def pan_start(view, renderer, step, zoom, centre):
    """Where (scene centre) the view starts a step framed at (`zoom`, `centre`) whose
    senders that frame does not show: on the senders at the same zoom, from where the camera
    follows the cotangent to the step's card. None when the frame shows them all."""
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    seen.adjust(-1, -1, 1, 1)            # the scroll bars' whole pixels
    cards = senders(renderer, step)
    if all(seen.contains(card) for card in cards):
        return None
    width, height = (max(1.0, side - 2 * MARGIN) / zoom for side in (port.width(), port.height()))
    return QPointF(_centre([(c.left(), c.right()) for c in cards], width, port.width() / zoom),
                   _centre([(c.top(), c.bottom()) for c in cards], height, port.height() / zoom))


LATTICE = 12           # places per side of the view a formula card may dock at, as a last resort
DOCK_MARGIN = 2.0      # screen pixels kept free around a docked formula card and its cards
LEVEL_STEP = 0.9       # the zooms tried below the readable one, each this much smaller


def _configs(view, readable_px, floor_px=READABLE_PX, rule_px=READABLE_PX):
    """[(zoom of the cards, scale of the formula card)], best first: the smallest text on
    screen (cards' or formula card's) as large as it can be, from `readable_px` down to the
    legible floor (`floor_px`, never under READABLE_PX); at each such size, the cards as large as they can be. In
    presentation mode (readable_px above the floor) a step that does not fit at the back row's
    zoom is shown whole a little smaller rather than cut. The formula card's text is never
    under `rule_px` (the first size of those at or above it): with cards smaller than that, it
    is drawn larger than they (presentation mode: lesson 14's rule cards at 1280 x 800, drawn
    with their cards at 10.7 px, had digits 7.8 px tall, too small for the back row)."""
    top, floor = readable_zoom(view, readable_px), readable_zoom(view, max(READABLE_PX, floor_px))
    levels = [top]
    while levels[-1] * LEVEL_STEP > floor:
        levels.append(levels[-1] * LEVEL_STEP)
    if levels[-1] > floor:
        levels.append(floor)
    rule = readable_zoom(view, rule_px) * (1 - 1e-9)
    least = min([level for level in levels if level >= rule] or [top])
    return [(zoom, level / zoom) for level in levels for zoom in levels if zoom >= level >= least] + \
        [(zoom, least / zoom) for zoom in levels if zoom < least]


def _with_name(renderer, nid, full=False, own=False):
    """(the card with its port names, its name strip) as docking takes them; `full`: with
    its ports' circles, and the step's `own` card with its ring (`card_as`)."""
    card = renderer.footprint(nid)
    if full:
        card = card.united(ringed_card(renderer, nid) if own else whole_card(renderer, nid))
    return box(card), box(name_strip(card_rect(renderer, nid)))


def _docked(view, renderer, step, lowest, readable_px, floor_px=READABLE_PX, extra=(), full=False,
            rule_px=READABLE_PX):
    """(zoom, centre, docked rect) with the formula card docked where it shows whole with the
    step's cards and hides none of their names (nor, where it can, any card's name); its
    own card alone when all of them cannot be shown (with `extra`, the nodes a slide names:
    all or nothing); None when nothing fits."""
    formula = render_painter.formula_rect(renderer, step)
    nids = involved_nodes(renderer, step)
    nids += [n for n in extra if n not in nids]
    cards = [card_rect(renderer, n) for n in nids]
    if formula is None or not cards:
        return None
    port = view.viewport().rect()
    size = (max(1.0, port.width() - 2 * DOCK_MARGIN), max(1.0, port.height() - 2 * DOCK_MARGIN))
    configs = _configs(view, readable_px, floor_px, rule_px)
    smaller = [c for c in _configs(view, readable_px, floor_px) if c not in configs]   # (presentation)
    involved = {getattr(step, "node", None)} | set(extra)
    for edge in renderer._step_edges(step):
        involved |= {edge.src.node, edge.dst.node}
    others = [_with_name(renderer, n, full) for n in renderer.doc.nodes if n not in involved]
    layout = renderer.formula_layout(step)
    natural = box(formula)
    groups = [nids, nids[:1]] if len(nids) > 1 and not extra else [nids]
    trace = arrow_trace(renderer, step)
    # A seed's card, floating by its target, is docked as Fit docks it (fit_dock): clear of
    # the edges' lines where it can be, next to the target (nets_3_wrong_gradient's seed
    # slide at 1920 x 1080 laid it over x → wx, or over hand-written rule → t, far from loss).
    seed = getattr(step, "kind", "") == "seed"
    wires = wire_trace(renderer) if seed else ()
    # The step's arrows kept uncovered where they can be (the tiny CNN's conv → filters w
    # docked its card over 46 % of the arrow from conv's port to filters w).
    tries = [(group, points) for group in groups for points in ((trace, ()) if trace and group is nids else ((),))]
    # Clear of every card, beside the step's cards or anywhere free in the view, at the
    # largest zoom that has such a place (down to the legible size); only then over other
    # cards' values (a lattice, dearer, when the usual places fail). A rule card drawn larger
    # than the cards (`rule_px`) clear of every card, on the lattice too, before one drawn as
    # small as they are (attention's step 20 at 1280 x 800). Then clear of its own card alone,
    # and last over a name or the step's cards (at 1024 x 768 lesson 14's fan-ins lay over
    # layer's values where layer and its card fit alone; BatchNorm's step 9 over the target's).
    for tiers in (((True, True, True, 0, configs), (True, True, True, LATTICE, configs),
                  (True, True, True, 0, smaller), (True, True, False, 0, configs),
                  (True, True, False, LATTICE, configs), (True, False, False, 0, configs)),
                 ((False, True, False, 0, configs), (False, False, False, 0, configs))):
        for group, guard in tries:
            shown = [_with_name(renderer, n, full, k == 0) for k, n in enumerate(group)] + [(point, point) for point in guard]
            arrows = [box(rect) for rect in arrow_rects(renderer, step)] if group is nids else []
            avoid = [_with_name(renderer, n, full) for n in nids[len(group):]]
            for clear, names_free, bodies_free, grid, tried in tiers:
                if not tried:
                    continue
                found = docking.search(shown, avoid, others, (layout.width, layout.height),
                                       tried, size, docking.Rules(clear, names_free, bodies_free),
                                       CARD_GAP, natural, grid, free=bodies_free, extent=arrows,
                                       wires=wires, near_own=seed)
                if found is not None:
                    zoom, scale, spot, centre = found
                    rect = QRectF(spot[0], spot[1], spot[2] - spot[0], spot[3] - spot[1])
                    renderer.dock_formula(step, rect)
                    return zoom, QPointF(*centre), rect
    nodes = QRectF(cards[0])
    for c in cards[1:]:
        nodes = nodes.united(c)
    wider = formula.width() > port.width() / lowest or formula.height() > port.height() / lowest
    if wider and not extra and fit_zoom(nodes, port.width() - 2 * MARGIN, port.height() - 2 * MARGIN) >= lowest:
        return lowest, nodes.center(), None     # a formula card larger than the view: the cards
    return None


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


def frame_step(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
               floor_px=READABLE_PX, rule_px=READABLE_PX):
    """Zoom and scroll `view` to frame `step` (`slide_frame`); returns (zoom, scene centre),
    or None (nothing done)."""
    framed = slide_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, rule_px)
    if framed is None:
        view.edge_markers = []
        return None
    zoom, centre = framed
    named = named_nodes(renderer, step) if fill is not None else []
    view.edge_markers = edge_markers(renderer, named, seen_rect(view, zoom, centre))
    view.setTransform(QTransform.fromScale(zoom, zoom))
    look_at(view, centre)
    keep_labels_in_view(view)
    # A step too large for presentation mode's zoom is framed smaller, down to the legible
    # size: its cards still show their numbers there (the canvas draws compact below this).
    shown = text_px(view, zoom)
    view.set_readable_px(readable_px if shown >= readable_px - 1e-6 else shown * (1 - 1e-9))
    return zoom, centre


def slide_frame(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
                floor_px=READABLE_PX, rule_px=READABLE_PX):
    """(zoom, scene centre) `frame_step` frames `step` at, or None; the view's transform left
    as it is. In presentation mode (`fill`) a slide shows whole every card its caption
    or rule card names (`named_nodes`) where they fit with the step's, the cards' text down to
    `floor_px` (the back row's size gives way to them: the tiny CNN's step 17 named 'image x'
    and cut it at the top); those that do not are named at the view's edge
    (`view.edge_markers`), the slide framed for the step's own cards; a seed slide with the
    cards that feed its target (`_seed_slide`). rule_px: the least size of the formula card's
    text (presentation mode: larger than the cards' floor)."""
    view.label_bounds = None            # the labels as they would lie anywhere, while weighed
    named = named_nodes(renderer, step) if fill is not None else []
    involved = involved_nodes(renderer, step)
    extra = [n for n in named if n not in involved]
    tries = [(extra, floor_px)] if extra else []
    context = [n for n in seed_context(renderer, step) if n not in involved + extra] if fill is not None else []
    if context:
        tries.insert(0, (extra + context, readable_px))
    framed = None
    for nodes, least in tries:
        framed = _framed(view, renderer, step, readable_px, max_zoom, fill, least, nodes, rule_px)
        if framed is not None and frame_shows(view, renderer, step, framed, nodes):
            break
        framed = None
    if framed is not None and context and nodes == tries[0][0]:
        framed = _seed_slide(view, renderer, step, framed, extra, nodes, (readable_px, max_zoom, fill, floor_px, rule_px))
    if framed is None:      # the step's own cards, down to the legible size where they must
        framed = _framed(view, renderer, step, readable_px, max_zoom, fill, READABLE_PX, rule_px=rule_px)
    if framed is not None and fill is not None:
        framed = _uncut(view, renderer, step, framed, (readable_px, max_zoom, fill, rule_px))
    return framed


def _uncut(view, renderer, step, framed, how):
    """(zoom, centre) of a slide framed at `framed` that cuts cards with their names out of
    view (`nameless_cuts`: no pan the settle allows dropped them), framed smaller to show them
    whole with all it shows whole, where that leaves fewer such cuts: nets_1_conv_transpose's
    step 2 at 1920 x 1080, y alone and its rule card at 21 px, cut 'input image' at the top,
    its name out of view, where the whole graph shows at 16.2 px. Down to the rule card's
    least size (`rule_px`, one level under the back row's), not the slides' floor: the tiny
    CNN's step 7 at 1280 x 800 went from 14 px to 11.3 px to show one card whole (its name is
    pinned in view where it stays cut: pinned_names)."""
    cut = nameless_cuts(view, renderer, framed)
    if not cut:
        return framed
    readable_px, max_zoom, fill, rule_px = how
    seen = seen_rect(view, *framed).adjusted(-0.5, -0.5, 0.5, 0.5)
    involved = involved_nodes(renderer, step)
    shown = [n for n in renderer.doc.nodes if n not in involved and seen.contains(whole_card(renderer, n))]
    nodes = shown + cut
    docked = renderer.docked_formula()
    wider = _framed(view, renderer, step, readable_px, max_zoom, fill, rule_px, nodes, rule_px)
    if wider is not None and frame_shows(view, renderer, step, wider, nodes) \
            and len(nameless_cuts(view, renderer, wider)) < len(cut):
        return wider
    renderer.dock_formula(*(docked or (None, None)))     # (as the slide kept docked it)
    return framed


def _seed_slide(view, renderer, step, framed, extra, nodes, how):
    """(zoom, centre) of a seed slide framed with its context (`nodes`: `extra` and the
    cards that feed the target) at `framed`. Where that view cuts cards, the slide shows the
    whole graph, drawn a little smaller (nets_3_wrong_gradient at 1920 x 1080 kept t and cut
    w at the top, its name out of view); where the graph does not fit so, the slide without
    its context where that cuts fewer cards."""
    readable_px, max_zoom, fill, floor_px, rule_px = how
    cut = frame_cuts(view, renderer, step, framed, nodes)
    if not cut:
        return framed
    graph = nodes + [n for n in renderer.doc.nodes if n not in nodes and n != step.node]
    whole = _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px, graph, rule_px)
    if whole is not None and whole[0] >= framed[0] * LEVEL_STEP ** 2 \
            and frame_shows(view, renderer, step, whole, graph):
        return whole        # (two levels smaller at most: 001_higher_order's whole graph at 1920 x 1080
                            # put the seed's word out of view, and its next step zoomed in 2.1 times)
    bare = _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px if extra else READABLE_PX, extra, rule_px)
    if bare is not None and frame_shows(view, renderer, step, bare, extra) \
            and len(frame_cuts(view, renderer, step, bare, extra)) < len(cut):
        return bare
    # (framing docks the rule card: docked again for the slide kept)
    return _framed(view, renderer, step, readable_px, max_zoom, fill, readable_px, nodes, rule_px)


def seed_context(renderer, step):
    """The nodes that feed a seed's target: a seed slide shows where the target sits in the
    graph, and the next slides go there (lesson 26's seed slide showed loss alone at the zoom
    cap, its cotangent arrow from nowhere, a third of the screen empty); none for other steps."""
    if getattr(step, "kind", "") != "seed":
        return []
    nid = getattr(step, "node", None)
    return list(dict.fromkeys(e.src.node for e in renderer._drawn_edges() if e.dst.node == nid and e.src.node != nid))


def _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra=(), rule_px=READABLE_PX):
    """(zoom, centre) of `step` framed (with the nodes `extra`), settled and, in presentation
    mode, refitted; None without a graph."""
    full = fill is not None
    framed = step_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra, full, rule_px)
    if framed is None:
        return None
    zoom, centre, _ = framed
    centre = settle(view, renderer, step, zoom, centre, extra, full)
    if fill is not None:
        zoom, centre = _refit(view, renderer, step, zoom, centre, max(zoom, max_zoom), extra)
    return zoom, centre


def edge_markers(renderer, nids, seen):
    """[(name, (dx, dy))] of the cards of `nids` not whole in the view `seen` (scene): each
    card's name and the way toward it from the view's centre, for a marker at the view's
    edge (a slide that cannot show every card its caption names)."""
    out = []
    for n in nids:
        card = whole_card(renderer, n)
        if seen.adjusted(-0.5, -0.5, 0.5, 0.5).contains(card):
            continue
        d = card.center() - seen.center()
        out.append((renderer.doc.nodes[n].label or n, (d.x(), d.y())))
    return out


REFIT_GAIN = 1.1       # a slide's picture this much larger in its view is shown that large
WHOLE_GAIN = 1.05      # ... this much, where it is the whole graph, the step's items with it
OFF_CENTRE = 0.05      # ... and centred where its margins differ by more than this of the view
REFITS = 4             # ... zoomed and panned again at most this many times


def _refit(view, renderer, step, zoom, centre, cap, extra=()):
    """(zoom, centre) of a presentation slide framed at (`zoom`, `centre`) and settled: what it
    shows whole, shown as large as the view allows (up to `cap`), and centred where it shows
    all the step's items, then settled again, until that is stable. The frame's zoom and
    centre were chosen for more than the settle's pan kept in view: the seed slide of lesson
    26 at 1920 x 1080 left room for a neighbour that the pan then dropped, attention's was
    centred on the whole graph's height, and each left a third of the screen empty. A picture
    of the whole graph is shown larger where it fits WHOLE_GAIN larger (001_higher_order's step
    16 at 1920 x 1080, docked at the back row's size, fit 1.086 times larger); one of part of
    it only REFIT_GAIN larger: zoomed in, the pan drops more of what it cut (nets_1_conv_transpose's
    seed slide went from 1.95 to 2.53, three times zoomed in, next to a step at 1.43)."""
    port = view.viewport().rect()
    width, height = max(1.0, port.width() - 2 * MARGIN), max(1.0, port.height() - 2 * MARGIN)
    for _ in range(REFITS):
        picture, every = shown_whole(view, renderer, step, zoom, centre, extra)
        if picture is None:
            break
        larger = min(cap, fit_zoom(picture, width, height))
        seen = seen_rect(view, zoom, centre).adjusted(-0.5 / zoom, -0.5 / zoom, 0.5 / zoom, 0.5 / zoom)
        graph = every and all(seen.contains(whole_card(renderer, n)) for n in renderer.doc.nodes)
        if larger > zoom * (WHOLE_GAIN if graph else REFIT_GAIN):
            zoom = larger
        elif not every or off_centre(picture, seen_rect(view, zoom, centre)) <= OFF_CENTRE:
            break
        moved = settle(view, renderer, step, zoom, picture.center(), extra, full=True)
        if moved == centre:
            break
        centre = moved
    return zoom, centre


def keep_labels_in_view(view):
    """The step's arrow labels stay in the view as it is now (its scene rect, LABEL_MARGIN
    pixels in), where they can."""
    inset = LABEL_MARGIN / view.transform().m11()
    view.label_bounds = view.visible_rect().adjusted(inset, inset, -inset, -inset)


def look_at(view, centre):
    """Scroll `view` (at its zoom) to centre on `centre`, the scene grown to allow it."""
    zoom = view.transform().m11()
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    scene_rect = view.sceneRect()
    if not scene_rect.contains(seen):
        view.setSceneRect(scene_rect.united(seen.adjusted(-200, -200, 200, 200)))
    view.centerOn(centre)
