"""A step too large to show whole at the readable zoom (`docked_frame`): its formula card
docked where it shows whole with the step's cards and hides none of their names, at the
largest zoom that has such a place (`_configs`), down to the legible size; and what of the
step's arrows and the edges' lines a docked card keeps clear of (`arrow_trace`, `wire_trace`:
fit_dock docks the card after Fit to Window by them too)."""
import numpy as np
from PySide6.QtCore import QPointF, QRectF

from ...render import painter as render_painter
from ...render.formula import CARD_GAP
from ...render.involved import involved_nodes
from ...render.legible import READABLE_PX
from . import docking
from .card_rects import arrow_rects, box, card_rect, name_strip, ringed_card, whole_card
from .framing import MARGIN, fit_zoom, readable_zoom

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


def docked_frame(view, renderer, step, lowest, readable_px, floor_px=READABLE_PX, extra=(), full=False,
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
