"""How a framed step's view is panned (`settle`): as little as it takes, for the step's arrows
to lie whole in view and for no other card to be cut by the view's edge where a slightly
different pan shows it whole or not at all; and what a view shows whole (`shown_whole`), which
presentation mode's refit (step_view) zooms and centres."""
import math

from PySide6.QtCore import QPointF, QRectF

from ...render.involved import involved_nodes
from .card_rects import arrow_rects, step_items, whole_card

CUT = 2.0               # scene units a card may pass the view's edge by without being cut
SLIGHT = 0.25           # the most (share of the view) a pan moves to cut no card
SCROLL_SLACK = 1.5      # pixels kept between the view's edge and a card panned out of it


def seen_rect(view, zoom, centre):
    """The scene rect a view at (`zoom`, `centre`) shows."""
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
    seen = seen_rect(view, zoom, centre).adjusted(-0.5 / zoom, -0.5 / zoom, 0.5 / zoom, 0.5 / zoom)
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


def _span_shifts(inner, outer):
    """(lo, hi) of the shifts s along one axis that keep the span `inner` inside the window
    `outer` moved by s; lo > hi when it is longer than the window."""
    return inner[1] - outer[1], inner[0] - outer[0]


def settle(view, renderer, step, zoom, centre, extra=(), full=False):
    """`centre` moved, at `zoom`, as little as it takes and keeping in view all it shows of
    the step (its cards, formula card, seed), so that the step's arrows lie whole in view
    where they can (lesson 14's fan-in at layer: both paths left the view at the right),
    then so that no other card is cut by the view's edge where a slightly different pan
    (at most SLIGHT of the view, each one cutting fewer cards) shows it whole or not at all
    (the tiny CNN's loss card at 1280 x 800). One pan further than that left the step at the
    view's edge: lesson 17's seed slide at 1280 x 800 moved half its view down to drop layer2
    off the top, the graph in the top 260 pixels and the lower 60 % of the screen empty."""
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    nodes = set(involved_nodes(renderer, step)) | set(extra)
    keep = [rect for rect in step_items(renderer, step, extra, full, arrows=False) if seen.contains(rect)]
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
    half = 0.5 / zoom

    def cut(sx, sy):
        """How many cards the view cuts, then how many it cuts by a pixel or more (a port's
        circle cut by CUT, a sliver of it in view, looks cut: lesson 33's relu at 1280 x 800).
        The first as the view may show it, scrolled by whole pixels (half a pixel more)."""
        view = seen.translated(sx, sy)
        return (len(cut_cards(view.adjusted(-half, -half, half, half), cards)),
                len(cut_cards(view, cards, by=1.0 / zoom)))

    options = []
    # Out of view across, a pixel more (the view scrolls by whole pixels): a view panned to
    # leave xx out ended at its edge and showed its border and half its output port (lesson
    # 13 in presentation).
    for i, (axis, out) in enumerate(zip(axes, (SCROLL_SLACK / zoom, 0.0))):
        a, b = axis(seen)
        found = set()
        for card in cards:
            start, end = axis(card)
            found |= {start - a, end - b, end - a + out, start - b - out}   # whole in view, or out of it
        options.append(([o for o in found if bounds[i][0] <= o <= bounds[i][1]], SLIGHT * (b - a)))
    # Each pan slight, from where the last one left the view, and made only where it cuts
    # fewer cards.
    best = shift
    for _ in range(len(cards) + 1):
        choices = [sorted({best[i]} | {o for o in found if abs(o - best[i]) <= reach})
                   for i, (found, reach) in enumerate(options)]
        moved = min(((sx, sy) for sx in choices[0] for sy in choices[1]),
                    key=lambda s: (cut(*s), abs(s[0] - best[0]) + abs(s[1] - best[1])))
        if cut(*moved) >= cut(*best):
            break
        best = moved
    return QPointF(centre.x() + best[0], centre.y() + best[1])


def cut_cards(seen, cards, by=CUT):
    """The cards (scene rects) that the edge of the view `seen` cuts by more than `by`."""
    inner, outer = seen.adjusted(by, by, -by, -by), seen.adjusted(-by, -by, by, by)
    return [card for card in cards if inner.intersects(card) and not outer.contains(card)]
