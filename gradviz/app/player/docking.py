"""Where a story step's formula card docks when it does not fit beside the step's cards.

A small search, in pure geometry on (left, top, right, bottom) tuples in scene units: for
each (zoom, card scale) in order of preference, the spots beside the cards, then in the
corners and edge middles of views that hold them; the first zoom with a spot that obeys the
rules wins, and among its spots the one that hides least. `framing_dock` says what the rules
are (which cards must be in view, what the card may cover) and in which order to relax them.
"""
from dataclasses import dataclass

import numpy as np

from ...render import spots

PAD = 6.0            # scene units kept free between a docked card and a card it must not touch
SNAP = 16.0          # pixels: the views a corner spot is placed in are this much coarser


@dataclass(frozen=True)
class Rules:
    """What a docked formula card must obey. clear: it touches none of the cards in view
    nor the step's other cards (else it may lie over their bodies); names_free: it hides no
    card's name at all (else only the names of the step's cards are sacred); bodies_free: it
    touches no other card either (else it may lie over their values, their names kept free)."""
    clear: bool
    names_free: bool
    bodies_free: bool = False


def overlap(a, b):
    """The area two rectangles share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def union(rects):
    return (min(r[0] for r in rects), min(r[1] for r in rects),
            max(r[2] for r in rects), max(r[3] for r in rects))


def _spots(nodes, own, w, h, seen_w, seen_h, snap, gap, first=None, grid=0, free=(), around=False):
    """[(spot, centre of the view, is it beside them)] for a card w x h next to `nodes` (the
    union of the cards in view; `own` the step's own card) in a view seen_w x seen_h: beside
    them first (below, above, right, left; aligned with their start, middle and end, and
    with the own card's), then in the corners and edge middles of the views that hold them.
    grid: also the places of a grid x grid lattice over each view. free (cards): also every
    place that touches none of them (spots.free_places). around: also beside the own card
    alone (below, above, right, left of it)."""
    out = []
    if free:
        for x, y in spots.free_places(nodes, (w, h), (seen_w, seen_h), free, PAD):
            both = union([nodes, (x, y, x + w, y + h)])
            out.append(((x, y, x + w, y + h), ((both[0] + both[2]) / 2, (both[1] + both[3]) / 2), False))

    def beside(spot):
        both = union([nodes, spot])
        if both[2] - both[0] <= seen_w and both[3] - both[1] <= seen_h:
            out.append((spot, ((both[0] + both[2]) / 2, (both[1] + both[3]) / 2), True))

    if first is not None:
        beside(first)
    if around:
        for y in (own[3] + gap, own[1] - gap - h):
            for x in (own[0], (own[0] + own[2] - w) / 2, own[2] - w):
                beside((x, y, x + w, y + h))
        for x in (own[2] + gap, own[0] - gap - w):
            for y in (own[1], (own[1] + own[3] - h) / 2, own[3] - h):
                beside((x, y, x + w, y + h))
    xs = [nodes[0], (nodes[0] + nodes[2] - w) / 2, nodes[2] - w,
          own[0], (own[0] + own[2] - w) / 2, own[2] - w]
    ys = [nodes[1], (nodes[1] + nodes[3] - h) / 2, nodes[3] - h,
          own[1], (own[1] + own[3] - h) / 2, own[3] - h]
    for y in (nodes[3] + gap, nodes[1] - gap - h):
        for x in xs:
            beside((x, y, x + w, y + h))
    for x in (nodes[2] + gap, nodes[0] - gap - w):
        for y in ys:
            beside((x, y, x + w, y + h))
    if nodes[2] - nodes[0] > seen_w or nodes[3] - nodes[1] > seen_h:
        return out
    # A view a few pixels shorter (a caption a line taller) leaves a corner spot where it was
    # (not re-recorded a hair away): the views placed are coarser, as large as they need.
    seen_w = min(seen_w, max(snap[0], w, nodes[2] - nodes[0]))
    seen_h = min(seen_h, max(snap[1], h, nodes[3] - nodes[1]))
    lefts = (nodes[2] - seen_w, (nodes[0] + nodes[2] - seen_w) / 2, nodes[0])
    tops = (nodes[3] - seen_h, (nodes[1] + nodes[3] - seen_h) / 2, nodes[1])
    for top in tops:
        for left in lefts:
            right, bottom = left + seen_w, top + seen_h
            centre = ((left + right) / 2, (top + bottom) / 2)
            mid_x, mid_y = (left + right - w) / 2, (top + bottom - h) / 2
            for x, y in ((left, top), (right - w, top), (left, bottom - h), (right - w, bottom - h),
                         (mid_x, top), (mid_x, bottom - h), (left, mid_y), (right - w, mid_y)):
                out.append(((x, y, x + w, y + h), centre, False))
            for i in range(1, grid):        # the last resort: every place on a grid of the view
                for j in range(1, grid):
                    x, y = left + (seen_w - w) * i / grid, top + (seen_h - h) * j / grid
                    out.append(((x, y, x + w, y + h), centre, False))
    return out


def _overlaps(spots_, rects):
    """overlap() of each spot (rows of an (n, 4) array) with each rectangle: (n, len(rects))."""
    r = np.asarray(rects, dtype=float).reshape(-1, 4)
    w = np.minimum(spots_[:, 2:3], r[:, 2]) - np.maximum(spots_[:, 0:1], r[:, 0])
    h = np.minimum(spots_[:, 3:4], r[:, 3]) - np.maximum(spots_[:, 1:2], r[:, 1])
    return np.where((w > 0) & (h > 0), w * h, 0.0)


def _costs(spots_, shown, avoid, others, rules):
    """How much each spot (rows of an (n, 4) array) hides, and whether it obeys the rules.
    shown: (card, name strip) of the cards in view; avoid: those of the step's other cards;
    others: the rest."""
    n = len(spots_)
    padded = spots_ + np.array([-PAD, -PAD, PAD, PAD])
    ok = np.ones(n, dtype=bool)
    cost = np.zeros(n)

    def of(pairs):
        return [card for card, _ in pairs], [name for _, name in pairs]
    if shown:
        cards, names = of(shown)
        if rules.clear:
            ok &= ~(_overlaps(padded, cards) != 0).any(axis=1)
        else:
            ok &= ~(_overlaps(spots_, names) != 0).any(axis=1)
        cost += 3 * _overlaps(spots_, cards).sum(axis=1)
    if avoid:
        cards, names = of(avoid)
        if rules.clear:     # out of view or uncovered (the view starts on the senders)
            ok &= ~(_overlaps(padded, cards) != 0).any(axis=1)
        else:
            ok &= ~(_overlaps(spots_, names) != 0).any(axis=1)
        cost += 3 * _overlaps(spots_, cards).sum(axis=1)
    if others:
        cards, names = of(others)
        if rules.bodies_free:
            ok &= ~(_overlaps(padded, cards) != 0).any(axis=1)
        hidden = _overlaps(spots_, names)
        if rules.names_free:
            ok &= ~(hidden != 0).any(axis=1)
        cost += (10 * hidden + _overlaps(spots_, cards)).sum(axis=1)
    return cost, ok


def cost(spot, shown, avoid, others, rules):
    """How much `spot` hides (None: it breaks the rules); `_costs` of one spot (fit_dock
    weighs its spots with it)."""
    cost, ok = _costs(np.array([spot], dtype=float), shown, avoid, others, rules)
    return float(cost[0]) if ok[0] else None


def _apart(a, b):
    """How far apart two rectangles are (0 when they touch or overlap): the longer of the
    gaps across and down."""
    return max(a[0] - b[2], b[0] - a[2], a[1] - b[3], b[1] - a[3], 0.0)


def _first_least(ok, keys):
    """The index of the first of the allowed (`ok`) entries whose keys, compared in
    order, are least (None if none is allowed)."""
    pick = ok.copy()
    for key in keys:
        if not pick.any():
            return None
        pick &= key == key[pick].min()
    return int(np.flatnonzero(pick)[0]) if pick.any() else None


def search(shown, avoid, others, size, configs, port, rules, gap, natural=None, grid=0, free=False,
           extent=(), near_own=False, near_px=None, wires=(), wires_free=False):
    """(zoom, scale, spot, centre) of the first configuration in `configs` ([(zoom, scale)],
    best first) where the card (`size` at scale 1) docks in a view of `port` pixels beside
    the cards `shown` ([(card, name strip)], the step's own first) by `rules`; over their
    bodies (rules.clear False), the configuration where it hides least of them. None if
    none does. natural: the card's own place (tried first at scale 1). grid: also try the
    places of a grid x grid lattice over each view (dearer: when the usual places fail).
    free: also every place that touches no card (the step shown larger with its card
    anywhere free in view, rather than smaller with it beside its cards). extent: boxes
    that the view holds too (the step's arrows), which the card may lie over. near_own: of
    the spots that hide as little, the nearest the own card (beside it if it can be), not
    the nearest the middle of them all (the whole graph fitted: the seed's card docked at
    the graph's top, its leader across the graph to the target at the bottom). near_px: only
    the spots at most this many pixels (on screen, at the configuration's zoom) from the own
    card count. wires: boxes along the edges' lines (`framing_dock.wire_trace`): of the spots
    that hide as little of the cards, one that covers fewest of them (wires_free: none)."""
    nodes = union([card for card, _ in shown] + list(extent))
    own = shown[0][0]
    cards = [card for card, _ in shown + avoid + others] if free else ()
    over = None       # over the cards' bodies: the configuration that hides least of them
    for zoom, scale in configs:
        seen_w, seen_h = port[0] / zoom, port[1] / zoom
        snap = (port[0] // SNAP * SNAP / zoom, port[1] // SNAP * SNAP / zoom)
        w, h = size[0] * scale, size[1] * scale
        if w > seen_w or h > seen_h or nodes[2] - nodes[0] > seen_w or nodes[3] - nodes[1] > seen_h:
            continue
        found = _spots(nodes, own, w, h, seen_w, seen_h, snap, gap,
                       natural if scale == 1.0 else None, grid, cards, near_own)
        if not found:
            continue
        at = np.array([spot for spot, _, _ in found], dtype=float)
        cost, ok = _costs(at, shown, avoid, others, rules)
        apart = np.maximum.reduce([at[:, 0] - own[2], own[0] - at[:, 2], at[:, 1] - own[3],
                                   own[1] - at[:, 3], np.zeros(len(at))])
        if near_px is not None:
            ok &= ~(apart * zoom > near_px)
        # Of the spots that hide as little, one beside the cards (it stays put when the
        # view's size changes a little), then the nearest them (a short leader line).
        covered = (_overlaps(at, wires) != 0).sum(axis=1) if len(wires) else np.zeros(len(at))
        if wires_free:
            ok &= covered == 0
        if near_own:
            keys = [cost, covered, apart]
        else:
            mid = ((nodes[0] + nodes[2]) / 2, (nodes[1] + nodes[3]) / 2)
            far = np.abs((at[:, 0] + at[:, 2]) / 2 - mid[0]) + np.abs((at[:, 1] + at[:, 3]) / 2 - mid[1])
            keys = [cost, covered, np.array([not beside for _, _, beside in found]), far]
        best = _first_least(ok, keys)
        if best is not None:
            rank = tuple(key[best].item() for key in keys)
            best = (rank, found[best][0], found[best][1])
        if best is None:
            continue
        if rules.clear:
            return zoom, scale, best[1], best[2]
        if over is None or best[0][0] < over[0][0]:
            over = (best[0], zoom, scale, best[1], best[2])
    return None if over is None else over[1:]
