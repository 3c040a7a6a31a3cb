"""How a framed step's view is panned (`settle`): as little as it takes, for the step's arrows
to lie whole in view, for no card to be cut by the view's edge with its name out of view, and
for no other card to be cut at all, where a slightly different pan shows it whole (its name,
for the first) or not at all; and what a view shows whole (`shown_whole`), which
presentation mode's refit (framing_slides) zooms and centres."""
import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF

from ...render.involved import involved_nodes
from .card_rects import arrow_rects, name_rect, step_items, whole_card

CUT = 2.0               # scene units a card may pass the view's edge by without being cut
SLIGHT = 0.25           # the most (share of the view) a pan moves to cut no card
NAME_REACH = 0.4        # the most (share of the view) a pan moves to show a cut card's name
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


def frame_shows(view, renderer, step, framed, nodes):
    """Does the view at `framed` (zoom, centre) show whole the step's items with `nodes`?"""
    seen = seen_rect(view, *framed).adjusted(-0.5, -0.5, 0.5, 0.5)
    return all(seen.contains(rect) for rect in step_items(renderer, step, nodes, full=True))


def frame_cuts(view, renderer, step, framed, nodes):
    """The nodes, but the step's and `nodes`, whose cards the view at `framed` cuts."""
    keep = set(involved_nodes(renderer, step)) | set(nodes)
    seen = seen_rect(view, *framed)
    return [n for n in renderer.doc.nodes if n not in keep and cut_cards(seen, [whole_card(renderer, n)])]


def nameless_cuts(view, renderer, framed):
    """The nodes whose cards the view at `framed` (zoom, centre) cuts, by a pixel or more, with
    their names (`name_rect`) out of it: boxes nobody can name."""
    seen, px = seen_rect(view, *framed), 1.0 / framed[0]
    named = seen.adjusted(-px, -px, px, px)
    return [n for n in renderer.doc.nodes
            if cut_cards(seen, [renderer.rect(n)], by=px) and not named.contains(name_rect(renderer, n))]


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
    then so that no card is cut by the view's edge with its name out of view (lesson 17's
    slides 1-2 at 1280 x 800 cut layer2 at the top-left, its name off the top; lesson 28's
    step 9 cut loss at the right, 'los' in view), nor any other card, where a slightly
    different pan (at most SLIGHT of the view, each one cutting fewer cards; NAME_REACH for
    a card still cut without its name) shows it whole or not at all (the tiny CNN's loss card
    at 1280 x 800). One pan further than that left the step at the
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

    cards = _boxes([whole_card(renderer, n) for n in renderer.doc.nodes if n not in nodes])
    bodies = _boxes([renderer.rect(n) for n in renderer.doc.nodes])
    names = _boxes([name_rect(renderer, n) for n in renderer.doc.nodes])
    half, pixel = 0.5 / zoom, 1.0 / zoom

    def cut(xs, ys):
        """For the view moved by each of `xs` across and `ys` down: how many cards it cuts
        with their names out of it (a card partly in view shows its name, or lies wholly out of
        it: lesson 17's slides 1-2 at 1280 x 800 cut layer2 at the top-left, its name off the
        top), then how many it cuts, then how many it cuts by a pixel or more (a port's circle
        cut by CUT, a sliver of it in view, looks cut: lesson 33's relu at 1280 x 800). The
        first two as the view may show it, scrolled by whole pixels (half a pixel more)."""
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        return np.stack([_cut_grid(seen, xs, ys, bodies, -half, -half, names),
                         _cut_grid(seen, xs, ys, cards, CUT - half, CUT + half),
                         _cut_grid(seen, xs, ys, cards, pixel, pixel)])

    options = []
    # Out of view across, a pixel more (the view scrolls by whole pixels): a view panned to
    # leave xx out ended at its edge and showed its border and half its output port (lesson
    # 13 in presentation); or a card's name a pixel inside the view.
    for i, (axis, out) in enumerate(zip(axes, (SCROLL_SLACK / zoom, 0.0))):
        a, b = axis(seen)
        found = set()
        for left, top, right, bottom in cards.tolist():
            start, end = (left, right) if i == 0 else (top, bottom)
            found |= {start - a, end - b, end - a + out, start - b - out}   # whole in view, or out of it
        for body, name in zip(bodies.tolist(), names.tolist()):
            start, end = body[i], body[i + 2]
            found |= {end - a + out + pixel, start - b - out - pixel}      # out of view
            found |= {name[i] - a - pixel, name[i + 2] - b + pixel}         # its name in view
        options.append(([o for o in found if bounds[i][0] <= o <= bounds[i][1]], b - a))
    # Each pan slight, from where the last one left the view, and made only where it cuts
    # fewer cards.
    best = tuple(shift)
    best, now = _slight_pans(cut, options, best, tuple(cut([best[0]], [best[1]])[:, 0, 0]), len(bodies) + 1)
    # Then, where a card is still cut without its name, one pan a little further (NAME_REACH)
    # that shows it or drops it: the tiny CNN's pool at 1280 x 800 (steps 7-20) lay cut at the
    # view's left, its name 0.26 of the view away; and slight pans again from there (the relu
    # chain's Visit steps in presentation at 1280 x 800 showed loss's name 0.35 of the view
    # away and left layer5 cut 44 units inside the view's left edge).
    if now[0]:
        moved = _pan(cut, options, best, NAME_REACH)
        if moved[1][0] < now[0]:
            best, now = _slight_pans(cut, options, *moved, len(bodies) + 1)
    return QPointF(centre.x() + best[0], centre.y() + best[1])


def _slight_pans(cut, options, best, now, most):
    """(pan, counts) after at most `most` slight pans from `best` (counts `now`), each made
    only where it cuts fewer cards (`_pan`)."""
    for _ in range(most):
        moved = _pan(cut, options, best, SLIGHT)
        if moved[1] >= now:
            break
        best, now = moved
    return best, now


def _pan(cut, options, best, share):
    """((x, y), counts) of the pan from `best` (at most `share` of the view along each axis,
    to one of the `options`) whose view cuts fewest cards (`cut`'s counts in order), then the
    shortest."""
    xs, ys = [np.array(sorted({best[i]} | {o for o in found if abs(o - best[i]) <= share * side}))
              for i, (found, side) in enumerate(options)]
    counts = cut(xs, ys)
    moves = np.abs(xs - best[0])[:, None] + np.abs(ys - best[1])[None, :]
    order = np.lexsort((moves.ravel(), counts[2].ravel(), counts[1].ravel(), counts[0].ravel()))
    j, k = np.unravel_index(order[0], moves.shape)
    return (float(xs[j]), float(ys[k])), tuple(int(v) for v in counts[:, j, k])


def _boxes(rects):
    """Scene rects as an (n, 4) array of (left, top, right, bottom)."""
    return np.array([[r.left(), r.top(), r.right(), r.bottom()] for r in rects], float).reshape(-1, 4)


def _cut_grid(seen, xs, ys, boxes, inner, outer, names=None):
    """(len(xs), len(ys)) counts of the `boxes` that the view `seen` moved by (x, y) cuts:
    that lie in part in it shrunk by `inner` and not whole in it grown by `outer` (as
    `cut_cards`); with `names` (a box per box), only those whose name is not whole in it
    grown by `outer` either."""
    left, right = seen.left() + xs[:, None], seen.right() + xs[:, None]
    top, bottom = seen.top() + ys[:, None], seen.bottom() + ys[:, None]
    across = (boxes[:, 0] < right - inner) & (boxes[:, 2] > left + inner)
    down = (boxes[:, 1] < bottom - inner) & (boxes[:, 3] > top + inner)
    whole_x = (boxes[:, 0] >= left - outer) & (boxes[:, 2] <= right + outer)
    whole_y = (boxes[:, 1] >= top - outer) & (boxes[:, 3] <= bottom + outer)
    hit = (across[:, None, :] & down[None, :, :]) & ~(whole_x[:, None, :] & whole_y[None, :, :])
    if names is not None:
        named_x = (names[:, 0] >= left - outer) & (names[:, 2] <= right + outer)
        named_y = (names[:, 1] >= top - outer) & (names[:, 3] <= bottom + outer)
        hit &= ~(named_x[:, None, :] & named_y[None, :, :])
    return hit.sum(axis=-1)


def cut_cards(seen, cards, by=CUT):
    """The cards (scene rects) that the edge of the view `seen` cuts by more than `by`."""
    inner, outer = seen.adjusted(by, by, -by, -by), seen.adjusted(-by, -by, by, by)
    return [card for card in cards if inner.intersects(card) and not outer.contains(card)]
