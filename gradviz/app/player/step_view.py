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
from ...render.cards import BADGE_H, HEADER_H, LINE_H, PORT_R
from ...render.legible import READABLE_PX
from ...render.formula import CARD_GAP, operand_title
from ...render.involved import involved_nodes
from ...render.story_overlay import GLOW, RING
from . import docking

MAX_ZOOM = 1.25
MARGIN = 24.0           # screen pixels kept free around what is framed
LANDING_W = 140.0       # how much of the card where the cotangent lands is worth showing
LABEL_MARGIN = 2.0      # screen pixels between the view's edge and an arrow's label
ARROW_PAD = 8.0         # scene units kept in view around a step's arrows (their heads)
CUT = 2.0               # scene units a card may pass the view's edge by without being cut
SCROLL_SLACK = 1.5      # pixels kept between the view's edge and a card panned out of it


def text_px(view, zoom=None):
    """How tall (pixels) the cards' smallest numbers are drawn at `zoom` (default: now)."""
    return legible.number_px(view.transform().m11() if zoom is None else zoom, view.logicalDpiY())


def readable_zoom(view, readable_px=READABLE_PX):
    return readable_px / text_px(view, 1.0)


def _card(renderer, nid):
    return renderer.rect(nid).adjusted(0, -render_painter.BADGE_H - 4, 0, 0)


def shown_card(renderer, nid):
    """A card with its badge, its ports' circles and their names (`whole_card`): what a view
    must hold for the card not to look cut."""
    return _card(renderer, nid).united(whole_card(renderer, nid))


def _card_as(renderer, nid, full, own=False):
    """A card as framing takes it: `_card`, or (`full`: presentation's slides) `shown_card`,
    with its ring (`ringed_card`) for the step's `own` card."""
    if not full:
        return _card(renderer, nid)
    return ringed_card(renderer, nid) if own else shown_card(renderer, nid)


def ringed_card(renderer, nid):
    """The step's own card with the ring and glow round it (RING + GLOW out of the card):
    framed without them, attention's V and K in presentation at 1920 x 1080 (steps 15, 17)
    ended at the view's bottom edge, their ring under the caption band."""
    out = RING + GLOW
    return shown_card(renderer, nid).united(renderer.rect(nid).adjusted(-out, -out, out, out))


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
    for text in texts:
        for n in sorted(names, key=lambda n: -len(names[n])):
            pattern = rf"(?<![A-Za-z_]){re.escape(names[n])}(?![A-Za-z0-9_])"
            if re.search(pattern, text):
                found.add(n)
                text = re.sub(pattern, lambda m: "\0" * len(m.group()), text)
    return [n for n in nodes if n in found and n not in targets]


def step_rects(renderer, step, extra=(), full=False):
    """[card, must, near, want, whole] (scene rectangles, in order of priority) for `step`.

    card: the active card alone (whole whenever it fits, even when its formula card
    does not fit beside it); must: with its formula card; near: with the ports at the other end
    of the animated edges, where the cotangent lands; want: with the whole cards there;
    whole: every card and the formula card. A step inside a layer (no card of its own)
    gets [whole]; None when there is no graph to show. extra: nodes whose whole cards
    `want` holds too (the cards a slide's caption names, `named_nodes`). full: the cards with
    their ports and the own card's ring (`_card_as`)."""
    nodes = renderer.doc.nodes
    if not nodes or any(n not in renderer.positions for n in nodes):
        return None
    nid = getattr(step, "node", None)
    if nid not in nodes:
        whole = QRectF()
        for n in nodes:
            whole = whole.united(_card(renderer, n))
        return [whole]
    card = must = _card_as(renderer, nid, full, own=True)
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
            want = want.united(_card_as(renderer, other, full))
    for arrow in arrow_rects(renderer, step):    # the arrows whole, where they bulge out
        want = want.united(arrow)
    for n in extra:
        want = want.united(whole_card(renderer, n))
    whole = QRectF(want)
    for n in renderer.doc.nodes:
        whole = whole.united(_card_as(renderer, n, full))
    return [card, must, near, want, whole]


def arrow_rects(renderer, step):
    """The bounds of the routes of `step`'s arrows, with room for their heads."""
    return [renderer.edge_path(e).boundingRect().adjusted(-ARROW_PAD, -ARROW_PAD, ARROW_PAD, ARROW_PAD)
            for e in renderer._step_edges(step)]


def step_frame(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
               floor_px=READABLE_PX, extra=(), full=False):
    """(zoom, scene centre, docked formula rect or None) that frames `step` in `view`'s
    viewport; None without a graph. fill (presentation mode): a graph that, shown whole,
    leaves most of the view empty is shown closer (`_close_up`). floor_px: the least size
    of the cards' text a step too large is shown at. extra: nodes framed with the step's.
    full: the cards with their ports and the own card's ring (`_card_as`)."""
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
    if fit_zoom(rects[3], width, height) < lowest:
        docked = _docked(view, renderer, step, lowest, readable_px, floor_px, extra, full)
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
    own = _card(renderer, nid)
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
        graph = graph.united(renderer.footprint(n)).united(_card_as(renderer, n, full))
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
    beside each other: `step_tracks`), TRACE_STEP apart: what of them a docked formula card
    must not cover."""
    out = []
    for _, track in renderer.step_tracks(step):
        n = max(2, int(track.length / TRACE_STEP) + 1)
        xs = np.interp(np.linspace(0.0, track.length, n), track.running, track.xy[:, 0])
        ys = np.interp(np.linspace(0.0, track.length, n), track.running, track.xy[:, 1])
        out += [(x - TRACE_R, y - TRACE_R, x + TRACE_R, y + TRACE_R) for x, y in zip(xs.tolist(), ys.tolist())]
    return out


def fit_zoom(rect, width, height):
    return min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))


def involved_cards(renderer, step, extra=(), full=False):
    """The cards a step is about: its node's and those at the other end of its edges (`full`:
    with their ports, its own with its ring: `_card_as`); and the whole cards of `extra`."""
    nodes = involved_nodes(renderer, step)
    return [_card_as(renderer, nid, full, own=k == 0) for k, nid in enumerate(nodes)] + \
        [whole_card(renderer, n) for n in extra if n not in nodes]


def step_items(renderer, step, extra=(), full=False):
    """What a step is about, as scene rects: its cards (`involved_cards`, with `extra`), its
    arrows, its formula card, and the seed's arrow with its word."""
    items = involved_cards(renderer, step, extra, full) + arrow_rects(renderer, step)
    formula = render_painter.formula_rect(renderer, step)
    if formula is not None:
        items.append(formula)
    if getattr(step, "kind", "") == "seed":
        items.append(renderer.moving_rect(step))
    return items


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
            card = _card(renderer, other)
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


def _configs(view, readable_px, floor_px=READABLE_PX):
    """[(zoom of the cards, scale of the formula card)], best first: the smallest text on
    screen (cards' or formula card's) as large as it can be, from `readable_px` down to the
    legible floor (`floor_px`, never under READABLE_PX); at each such size, the cards as large as they can be. In
    presentation mode (readable_px above the floor) a step that does not fit at the back row's
    zoom is shown whole a little smaller rather than cut."""
    top, floor = readable_zoom(view, readable_px), readable_zoom(view, max(READABLE_PX, floor_px))
    levels = [top]
    while levels[-1] * LEVEL_STEP > floor:
        levels.append(levels[-1] * LEVEL_STEP)
    if levels[-1] > floor:
        levels.append(floor)
    return [(zoom, level / zoom) for level in levels for zoom in levels if zoom >= level]


def _box(rect):
    return rect.left(), rect.top(), rect.right(), rect.bottom()


def _with_name(renderer, nid, full=False, own=False):
    """(the card with its port names, its name strip) as docking takes them; `full`: with
    its ports' circles, and the step's `own` card with its ring (`_card_as`)."""
    card = renderer.footprint(nid)
    if full:
        card = card.united(ringed_card(renderer, nid) if own else whole_card(renderer, nid))
    return _box(card), _box(name_strip(_card(renderer, nid)))


def _docked(view, renderer, step, lowest, readable_px, floor_px=READABLE_PX, extra=(), full=False):
    """(zoom, centre, docked rect) with the formula card docked where it shows whole with the
    step's cards and hides none of their names (nor, where it can, any card's name); its
    own card alone when all of them cannot be shown (with `extra`, the nodes a slide names:
    all or nothing); None when nothing fits."""
    formula = render_painter.formula_rect(renderer, step)
    nids = involved_nodes(renderer, step)
    nids += [n for n in extra if n not in nids]
    cards = [_card(renderer, n) for n in nids]
    if formula is None or not cards:
        return None
    port = view.viewport().rect()
    size = (max(1.0, port.width() - 2 * DOCK_MARGIN), max(1.0, port.height() - 2 * DOCK_MARGIN))
    configs = _configs(view, readable_px, floor_px)
    involved = {getattr(step, "node", None)} | set(extra)
    for edge in renderer._step_edges(step):
        involved |= {edge.src.node, edge.dst.node}
    others = [_with_name(renderer, n, full) for n in renderer.doc.nodes if n not in involved]
    layout = renderer.formula_layout(step)
    natural = _box(formula)
    groups = [nids, nids[:1]] if len(nids) > 1 and not extra else [nids]
    trace = arrow_trace(renderer, step)
    # The step's arrows kept uncovered where they can be (the tiny CNN's conv → filters w
    # docked its card over 46 % of the arrow from conv's port to filters w).
    for group, guard in [(group, points) for group in groups
                         for points in ((trace, ()) if trace and group is nids else ((),))]:
        shown = [_with_name(renderer, n, full, k == 0) for k, n in enumerate(group)] + [(point, point) for point in guard]
        arrows = [_box(rect) for rect in arrow_rects(renderer, step)] if group is nids else []
        avoid = [_with_name(renderer, n, full) for n in nids[len(group):]]
        # Clear of every card, beside the step's cards or anywhere free in the view, at the
        # largest zoom that has such a place (down to the legible size); only then over other
        # cards' values (anywhere in the view: a lattice, dearer, when the usual places fail),
        # and last over a name or the step's cards (BatchNorm's step 9 docked its card over
        # the target's value at the readable zoom).
        for clear, names_free, bodies_free, grid in (
                (True, True, True, 0), (True, True, False, 0), (True, True, False, LATTICE),
                (True, False, False, 0), (False, True, False, 0), (False, False, False, 0)):
            found = docking.search(shown, avoid, others, (layout.width, layout.height),
                                   configs, size, docking.Rules(clear, names_free, bodies_free),
                                   CARD_GAP, natural, grid, free=bodies_free, extent=arrows)
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


def frame_step(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
               floor_px=READABLE_PX):
    """Zoom and scroll `view` to frame `step`; returns (zoom, scene centre), or None
    (nothing done). In presentation mode (`fill`) a slide shows whole every card its caption
    or rule card names (`named_nodes`) where they fit with the step's, the cards' text down to
    `floor_px` (the back row's size gives way to them: the tiny CNN's step 17 named 'image x'
    and cut it at the top); those that do not are named at the view's edge
    (`view.edge_markers`), the slide framed for the step's own cards.""" 
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
        framed = _framed(view, renderer, step, readable_px, max_zoom, fill, least, nodes)
        if framed is not None and all(_seen(view, *framed).adjusted(-0.5, -0.5, 0.5, 0.5).contains(rect)
                                      for rect in step_items(renderer, step, nodes, full=True)):
            break
        framed = None
    if framed is None:      # the step's own cards, down to the legible size where they must
        framed = _framed(view, renderer, step, readable_px, max_zoom, fill, READABLE_PX)
    if framed is None:
        view.edge_markers = []
        return None
    zoom, centre = framed
    view.edge_markers = edge_markers(renderer, named, _seen(view, zoom, centre))
    view.setTransform(QTransform.fromScale(zoom, zoom))
    look_at(view, centre)
    keep_labels_in_view(view)
    # A step too large for presentation mode's zoom is framed smaller, down to the legible
    # size: its cards still show their numbers there (the canvas draws compact below this).
    shown = text_px(view, zoom)
    view.set_readable_px(readable_px if shown >= readable_px - 1e-6 else shown * (1 - 1e-9))
    return zoom, centre


def seed_context(renderer, step):
    """The nodes that feed a seed's target: a seed slide shows where the target sits in the
    graph, and the next slides go there (lesson 26's seed slide showed loss alone at the zoom
    cap, its cotangent arrow from nowhere, a third of the screen empty); none for other steps."""
    if getattr(step, "kind", "") != "seed":
        return []
    nid = getattr(step, "node", None)
    return list(dict.fromkeys(e.src.node for e in renderer._drawn_edges() if e.dst.node == nid and e.src.node != nid))


def _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra=()):
    """(zoom, centre) of `step` framed (with the nodes `extra`), settled and, in presentation
    mode, refitted; None without a graph."""
    full = fill is not None
    framed = step_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra, full)
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
OFF_CENTRE = 0.05      # ... and centred where its margins differ by more than this of the view
REFITS = 4             # ... zoomed and panned again at most this many times


def _seen(view, zoom, centre):
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    return seen


def shown_whole(view, renderer, step, zoom, centre, extra=()):
    """(the union (scene) of what a view at (`zoom`, `centre`) shows whole: the step's items
    (`step_items`), its arrows' labels where they lie free of the view's edges (the tiny
    conv_transpose's cotangent label below y at 1280 x 800: a slide zoomed without its room
    put it on another arrow), and every card (`whole_card`), or None; are all of the step's
    items and labels in it?)"""
    seen = _seen(view, zoom, centre).adjusted(-0.5 / zoom, -0.5 / zoom, 0.5 / zoom, 0.5 / zoom)
    items = step_items(renderer, step, extra, full=True) + [rect for _, rect in renderer.label_rects(step)]
    picture, every = None, True
    for k, rect in enumerate(items + [whole_card(renderer, n) for n in renderer.doc.nodes]):
        if seen.contains(rect):
            picture = QRectF(rect) if picture is None else picture.united(rect)
        elif k < len(items):
            every = False
    return picture, every


def off_centre(picture, seen):
    """How far (share of the view, the larger of across and down) `picture`'s centre lies
    from the centre of the view `seen`."""
    return max(abs(picture.center().x() - seen.center().x()) / seen.width(),
               abs(picture.center().y() - seen.center().y()) / seen.height())


def _refit(view, renderer, step, zoom, centre, cap, extra=()):
    """(zoom, centre) of a presentation slide framed at (`zoom`, `centre`) and settled: what it
    shows whole, shown as large as the view allows (up to `cap`), and centred where it shows
    all the step's items, then settled again, until that is stable. The frame's zoom and
    centre were chosen for more than the settle's pan kept in view: the seed slide of lesson
    26 at 1920 x 1080 left room for a neighbour that the pan then dropped, attention's was
    centred on the whole graph's height, and each left a third of the screen empty."""
    port = view.viewport().rect()
    width, height = max(1.0, port.width() - 2 * MARGIN), max(1.0, port.height() - 2 * MARGIN)
    for _ in range(REFITS):
        picture, every = shown_whole(view, renderer, step, zoom, centre, extra)
        if picture is None:
            break
        larger = min(cap, fit_zoom(picture, width, height))
        if larger > zoom * REFIT_GAIN:
            zoom = larger
        elif not every or off_centre(picture, _seen(view, zoom, centre)) <= OFF_CENTRE:
            break
        moved = settle(view, renderer, step, zoom, picture.center(), extra, full=True)
        if moved == centre:
            break
        centre = moved
    return zoom, centre


def _span_shifts(inner, outer):
    """(lo, hi) of the shifts s along one axis that keep the span `inner` inside the window
    `outer` moved by s; lo > hi when it is longer than the window."""
    return inner[1] - outer[1], inner[0] - outer[0]


def settle(view, renderer, step, zoom, centre, extra=(), full=False):
    """`centre` moved, at `zoom`, as little as it takes and keeping in view all it shows of
    the step (its cards, formula card, seed), so that the step's arrows lie whole in view
    where they can (lesson 14's fan-in at layer: both paths left the view at the right),
    then so that no other card is cut by the view's edge where a slightly different pan
    shows it whole or not at all (the tiny CNN's loss card at 1280 x 800)."""
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    nodes = set(involved_nodes(renderer, step)) | set(extra)
    keep = involved_cards(renderer, step, extra, full)
    formula = render_painter.formula_rect(renderer, step)
    if formula is not None:
        keep.append(formula)
    if getattr(step, "kind", "") == "seed":
        keep.append(renderer.moving_rect(step))
    keep = [rect for rect in keep if seen.contains(rect)]
    axes = ((lambda r: (r.left(), r.right())), (lambda r: (r.top(), r.bottom())))
    bounds = []
    for axis in axes:
        lo, hi = -math.inf, math.inf
        for rect in keep:
            a, b = _span_shifts(axis(rect), axis(seen))
            lo, hi = max(lo, a), min(hi, b)
        bounds.append((min(lo, 0.0), max(hi, 0.0)))

    routes = arrow_rects(renderer, step)
    shift = [0.0, 0.0]
    if routes:
        arrows = routes[0]
        for rect in routes[1:]:
            arrows = arrows.united(rect)
        for i, axis in enumerate(axes):
            a, b = _span_shifts(axis(arrows), axis(seen))
            want = min(max(0.0, a), b) if a <= b else (a + b) / 2
            shift[i] = min(max(want, bounds[i][0]), bounds[i][1])
            if a <= shift[i] <= b:      # the arrows now in view stay there
                bounds[i] = (max(bounds[i][0], a), min(bounds[i][1], b))

    cards = [whole_card(renderer, n) for n in renderer.doc.nodes if n not in nodes]

    def cut(sx, sy):
        """How many cards the view cuts, then how many it cuts by a pixel or more (a port's
        circle cut by CUT, a sliver of it in view, looks cut: lesson 33's relu at 1280 x 800)."""
        view = seen.translated(sx, sy)
        return len(cut_cards(view, cards)), len(cut_cards(view, cards, by=1.0 / zoom))

    choices = []
    # Out of view across, a pixel more (the view scrolls by whole pixels): a view panned to
    # leave xx out ended at its edge and showed its border and half its output port (lesson
    # 13 in presentation).
    for i, (axis, out) in enumerate(zip(axes, (SCROLL_SLACK / zoom, 0.0))):
        options = {shift[i]}
        a, b = axis(seen)
        for card in cards:
            start, end = axis(card)
            options |= {start - a, end - b, end - a + out, start - b - out}   # whole in view, or out of it
        choices.append(sorted(o for o in options if bounds[i][0] <= o <= bounds[i][1]) or [shift[i]])
    best = min(((sx, sy) for sx in choices[0] for sy in choices[1]),
               key=lambda s: (cut(*s), abs(s[0] - shift[0]) + abs(s[1] - shift[1])))
    if cut(*best) == cut(*shift):
        best = shift
    return QPointF(centre.x() + best[0], centre.y() + best[1])


def whole_card(renderer, nid):
    """A card as a view shows it whole: with its ports' circles (PORT_R out of its sides:
    without them the tiny CNN's loss card was 'whole' at the right edge of its last step in
    presentation at 1920 x 1080, its output port cut in half), its port names, and its badge
    if it has one (the footprint's badge line counted once: counted twice, lesson 3's a
    seemed cut at the top of the whole graph framed at 1920 x 1080, and its step 2 was
    panned to show c alone at the left of an empty screen, a and b cut by its left edge)."""
    card = renderer.cards[nid]
    rect = renderer.rect(nid).adjusted(-PORT_R if card.n_inputs else 0,
                                       -BADGE_H - 4 if renderer._has_badge(nid) else 0,
                                       PORT_R if card.n_outputs else 0, 0)
    for label, _, _ in renderer.port_labels(nid):
        rect = rect.united(label)
    return rect


def cut_cards(seen, cards, by=CUT):
    """The cards (scene rects) that the edge of the view `seen` cuts by more than `by`."""
    inner, outer = seen.adjusted(by, by, -by, -by), seen.adjusted(-by, -by, by, by)
    return [card for card in cards if inner.intersects(card) and not outer.contains(card)]


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
