"""Where a story step's formula card goes when Fit to Window is pressed during the story.

Fit to Window frames every card (drawn compact where their numbers would be too small to
read); the formula card, in scene coordinates, would then be drawn as small as the cards,
or left where the step's framing had docked it, out of view. So after the fit it docks
again in the view: whole, its text at least the canvas's readable size (drawn larger than
the compact cards around it, as a docked card may be), next to the step's own card (the
nearest free place: a lesson opened showed the seed's card at the top of the graph, its
leader across the graph to the target at the bottom), where it hides none of the cards
(the view zooming out a little for that, down to `ZOOMS[-1]` of the fit's zoom), else over
the fewest cards' bodies and no card's name, else where it hides least. The step's arrows
and their labels (the seed's word, the cotangent pills) stay in view and uncovered too.
"""
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform

from ...render import compact as compact_card
from ...render import painter as render_painter
from ...render.formula import CARD_GAP
from . import docking, step_view
from .card_rects import box, card_rect, name_strip
from .framing import readable_zoom
from .framing_dock import DOCK_MARGIN, wire_trace

ZOOMS = (1.0, 0.9, 0.81, 0.73)   # of the fit's zoom: a little smaller gives the card a clear spot
MIN_ZOOM = 0.1                   # the canvas's least zoom (navigation.MIN_SCALE)
NEXT_TO_PX = 40.0                # on screen: a card this near its own card is next to it


def _cards(view, renderer, nid, zoom):
    """[(card, name strip)] of every card, the step's own first, as large as drawn compact
    at `zoom` (a compact card's name stands out of a small card)."""
    dpi, scale = view.logicalDpiY(), view.compact_scale()
    out = []
    for n in [nid] + [n for n in renderer.doc.nodes if n != nid]:
        card = card_rect(renderer, n)
        side, down = compact_card.overhang(renderer.cards[n], renderer.doc.nodes[n], zoom, dpi, scale) \
            if n in renderer.cards else (0.0, 0.0)
        drawn = card.adjusted(-side, 0, side, down).united(renderer.footprint(n))   # its ports' names
        out.append((box(drawn), box(name_strip(card))))
    return out


def _marked(view, renderer, nid, zoom):
    """`_cards` at `zoom` with the step's marks (its arrows, the seed's word, the cotangent
    pills: `view.step_marks`), what the formula card may neither hide nor touch."""
    marks = [box(rect) for rect in view.step_marks(zoom)]
    cards = _cards(view, renderer, nid, zoom) + [(mark, mark) for mark in marks[1:]]
    if marks:
        cards.append((marks[0], (marks[0][0], marks[0][1], marks[0][0], marks[0][1])))
    return cards


def _port_names(renderer):
    """[(name, name)] of the ports' names the cards drawn in full write beside them (a
    layer's kernel and bias), each a name that the formula card may not hide."""
    return [(box(label), box(label)) for n in renderer.doc.nodes for label, _, _ in renderer.port_labels(n)]


def _corner(view, size, cards):
    """(spot) in the view as it is, its text readable where the view holds it, that hides
    least of `cards`: a graph too large for any zoom, or a card too large for the view."""
    seen = view.visible_rect().adjusted(*(d / view.transform().m11() for d in (
        DOCK_MARGIN, DOCK_MARGIN, -DOCK_MARGIN, -DOCK_MARGIN)))
    shrink = min(1.0, seen.width() / size[0], seen.height() / size[1])
    w, h = size[0] * shrink, size[1] * shrink
    left, top, right, bottom = seen.left(), seen.top(), seen.right() - w, seen.bottom() - h
    mid_x, mid_y = (left + right) / 2, (top + bottom) / 2
    spots = [(x, y, x + w, y + h) for x, y in ((right, bottom), (left, bottom), (right, top), (left, top),
                                               (mid_x, bottom), (mid_x, top), (left, mid_y), (right, mid_y))]
    rules = docking.Rules(clear=False, names_free=False)
    return min(spots, key=lambda spot: docking.cost(spot, [], [], cards, rules))


def dock_after_fit(view, renderer, step):
    """Dock `step`'s formula card in `view` just fitted (see the module's docstring); the
    view may zoom out a little and scroll. Returns the card's rect, or None (no card)."""
    renderer.dock_formula(step, None)
    view.label_bounds = None
    formula = render_painter.formula_rect(renderer, step)
    nid = getattr(step, "node", None)
    if formula is None or nid not in renderer.doc.nodes:
        step_view.keep_labels_in_view(view)
        return None
    fit = view.transform().m11()
    readable = readable_zoom(view, view.readable_px)
    clear, over = docking.Rules(clear=True, names_free=True), docking.Rules(clear=False, names_free=True)
    ports = _port_names(renderer) if fit >= readable else []     # a compact card writes none
    if fit >= readable and view.visible_rect().contains(formula) \
            and docking.cost(box(formula), _marked(view, renderer, nid, fit), [], ports, clear) is not None:
        step_view.keep_labels_in_view(view)
        return formula              # beside its card, readable, hiding nothing: where the story put it
    zooms = [fit * k for k in ZOOMS if fit * k >= MIN_ZOOM]
    layout = renderer.formula_layout(step)
    size = (layout.width, layout.height)
    cards = _marked(view, renderer, nid, zooms[-1])   # the arrows' labels read too
    lines = [item.route_rect() for item in view.edge_items.values()]
    if lines:   # the edges' lines in view too (BatchNorm's wrapping edge ran off the left at
        reach = docking.union([box(line) for line in lines])   # 1280 x 800): the
        cards += [((x, y, x, y), (x, y, x, y)) for x, y in (reach[:2], reach[2:])]   # corners, points
    port = view.viewport().rect()
    room = (max(1.0, port.width() - 2 * DOCK_MARGIN), max(1.0, port.height() - 2 * DOCK_MARGIN))
    configs = [(zoom, max(1.0, readable / zoom)) for zoom in zooms]
    # Next to its card at the fit's zoom or a little smaller (drawn in full if the fit was),
    # else anywhere clear at the largest zoom, else over the fewest cards' bodies.
    near = [(zoom, scale) for zoom, scale in configs if zoom >= readable or fit < readable]
    found = None
    # Next to it clear of the edges' lines first (lesson 10's seed card lay over x_sq → z at
    # 1024 x 768 where there was room below z), else over as few of them as may be.
    wires = wire_trace(renderer)
    for rules, tried, near_px, wires_free in ((clear, near, NEXT_TO_PX, True), (clear, configs, None, True), (clear, near, NEXT_TO_PX, False),
                                              (clear, configs, None, False), (over, configs, None, False)):
        found = docking.search(cards, [], ports, size, tried, room, rules, CARD_GAP, box(formula),
                               free=True, near_own=True, near_px=near_px, wires=wires, wires_free=wires_free)
        if found is not None:
            break
    if found is not None:
        zoom, _, spot, centre = found
        if zoom != fit:
            view.setTransform(QTransform.fromScale(zoom, zoom))
            if zoom < readable or view.shortened_at is not None:   # drawn compact: as tall
                view.shorten_compact(zoom)      # as at this zoom (shorter: the spot stays clear)
                renderer = view.renderer
        step_view.look_at(view, QPointF(*centre))
    else:
        scale = max(1.0, readable / fit)
        spot = _corner(view, (size[0] * scale, size[1] * scale), cards + ports)
    rect = QRectF(spot[0], spot[1], spot[2] - spot[0], spot[3] - spot[1])
    renderer.dock_formula(step, rect)
    step_view.keep_labels_in_view(view)
    return rect
