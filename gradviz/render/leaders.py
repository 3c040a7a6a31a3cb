"""Where a rule card's leader line runs: from the card's edge to the port its step is about,
round every card and every text drawn outside the cards, and into the port from outside its
card, so that what it points at reads at a glance. Drawn under the cards, a line to the port
that ran through its own card showed only up to that card's edge: lesson 14's fan-in at layer
seemed to point at the layer's corner, not its output; lesson 14's step 14 at 1280 x 800 cut
y_sq's corner on the way."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF

from .spots import segments_meet_boxes

EVERY = 12.0        # a leader may leave its card at every this many units of its edge
ELBOW = 14.0        # ... and turn this far out of the port it points at
TEXT_CLEAR = 3.0    # it passes a text this far from it at least
PORT_CLEAR = 1.0    # ... or this far, into a port between two names (a layer's output, kernel)
CARD_CLEAR = 4.0    # ... and a card (the glow round the active one, a card's corner)
CORNER = 10.0       # a line into a card without a port meets its edge this far from a corner
BEND = 30.0         # a bend costs as much as this much more length
# where the last stretch into a port starts: (out of the card, along its edge) in ELBOWs; past
# the port's name above it, the label of an arrow beside it, the names of the ports below it
APPROACH = ((1.0, 0.0), (1.0, 1.0), (1.0, -1.0), (1.0, 2.5), (1.0, -2.5), (2.5, 2.5), (2.5, -2.5), (4.0, 0.0))
HEAD_ON = 0.3       # the last stretch runs at least this much against the edge's outward normal


def _box(rect, grow):
    if isinstance(rect, tuple):
        return (rect[0] - grow, rect[1] - grow, rect[2] + grow, rect[3] + grow)
    return (rect.left() - grow, rect.top() - grow, rect.right() + grow, rect.bottom() + grow)


def edge_points(rect, every):
    """[(x, y)] along `rect`'s edge, about `every` apart, its corners among them."""
    out = []
    l, t, r, b = rect.left(), rect.top(), rect.right(), rect.bottom()
    for (x0, y0), (x1, y1) in (((l, t), (r, t)), ((r, t), (r, b)), ((r, b), (l, b)), ((l, b), (l, t))):
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / every))
        out += [(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n) for i in range(n)]
    return out


def _facing(own, card):
    """(points (n, 2), outward normals (n, 2)) where a line may meet `own`'s edge when it
    points at the card, not a port: the middle of each side and its point nearest `card`'s
    middle, CORNER clear of the corners."""
    c = card.center()
    points, normals = [], []
    for normal, x, y in (((0.0, -1.0), None, own.top()), ((0.0, 1.0), None, own.bottom()),
                         ((-1.0, 0.0), own.left(), None), ((1.0, 0.0), own.right(), None)):
        if x is None:
            lo, hi = own.left() + CORNER, own.right() - CORNER
            points += [((lo + hi) / 2, y), (min(max(c.x(), lo), hi), y)]
        else:
            lo, hi = own.top() + CORNER, own.bottom() - CORNER
            points += [(x, (lo + hi) / 2), (x, min(max(c.y(), lo), hi))]
        normals += [normal, normal]
    return np.array(points), np.array(normals)


def _families(starts, tips, normals, lanes, stage):
    """(routes (n, points, 2), the normal each ends against (n, 2)): from every start to every
    tip, straight or by a point ELBOW out of the tip (stage 0); turning square on the way
    there (stage 1); by a lane above, below or beside the cards (stage 2, `lanes`: (xs, ys))."""
    s = starts[:, None, None, :]                                   # (S, 1, 1, 2)
    t = tips[None, :, None, :]                                     # (1, E, 1, 2)
    n = normals[None, :, None, :]
    side = n[..., ::-1] * np.array([1.0, 1.0])                      # along the edge
    out, along = np.array(APPROACH).T
    q = t + n * ELBOW * out[None, None, :, None] + side * ELBOW * along[None, None, :, None]   # (1, E, A, 2)
    shape = (len(starts), len(tips), len(APPROACH), 2)
    s, t, q = np.broadcast_to(s, shape), np.broadcast_to(t, shape), np.broadcast_to(q, shape)
    if stage == 0:
        routes = [np.stack([s[:, :, 0], t[:, :, 0]], axis=2).reshape(-1, 2, 2),
                  np.stack([s, q, t], axis=3).reshape(-1, 3, 2)]
        ends = [np.broadcast_to(normals[None], shape[:2] + (2,)).reshape(-1, 2),
                np.broadcast_to(normals[None, :, None], shape).reshape(-1, 2)]
        return routes, ends
    if stage == 1:
        down = np.stack([s, np.stack([s[..., 0], q[..., 1]], -1), q, t], axis=3)
        across = np.stack([s, np.stack([q[..., 0], s[..., 1]], -1), q, t], axis=3)
        end = np.broadcast_to(normals[None, :, None], shape).reshape(-1, 2)
        return [down.reshape(-1, 4, 2), across.reshape(-1, 4, 2)], [end, end]
    routes, ends = [], []
    end = np.broadcast_to(normals[None, :, None], shape).reshape(-1, 2)
    for y in lanes[1]:
        a, b = np.stack([s[..., 0], np.full(shape[:3], y)], -1), np.stack([q[..., 0], np.full(shape[:3], y)], -1)
        routes.append(np.stack([s, a, b, q, t], axis=3).reshape(-1, 5, 2))
        ends.append(end)
    for x in lanes[0]:
        a, b = np.stack([np.full(shape[:3], x), s[..., 1]], -1), np.stack([np.full(shape[:3], x), q[..., 1]], -1)
        routes.append(np.stack([s, a, b, q, t], axis=3).reshape(-1, 5, 2))
        ends.append(end)
    return routes, ends


def _scored(routes, normals, card, own, others, texts):
    """(text crossings, card crossings, length with bends) of each route ((n, points, 2))."""
    a, b = routes[:, :-1].copy(), routes[:, 1:].copy()
    d = b - a
    length = np.maximum(np.hypot(d[..., 0], d[..., 1]), 1e-9)
    step = d * (2.0 / length)[..., None]
    a[:, 0] += step[:, 0]           # off the card it leaves
    b[:, -1] -= step[:, -1]         # short of the port it meets
    k = a.shape[1]
    a, b = a.reshape(-1, 2), b.reshape(-1, 2)
    last = np.zeros((len(routes), k), bool)
    last[:, -1] = True
    last = last.reshape(-1)
    near = [_box(r, PORT_CLEAR - TEXT_CLEAR) for r in texts]     # (texts come grown by TEXT_CLEAR)
    meets = segments_meet_boxes(a, b, texts + near + others + [_box(card, -1.0), _box(own, -0.5),
                                                               _box(own, CARD_CLEAR)])
    n = len(texts)
    words = np.where(last, meets[:, n:2 * n].any(axis=1), meets[:, :n].any(axis=1))
    boxes = meets[:, 2 * n:-2].any(axis=1)
    mine = np.where(last, meets[:, -2], meets[:, -1])
    text_hits = words.reshape(-1, k).sum(axis=1)
    card_hits = (boxes | mine).reshape(-1, k).sum(axis=1)
    into = d[:, -1] / length[:, -1:]            # into the port from outside
    card_hits = card_hits + ((into * normals).sum(axis=1) > -HEAD_ON)
    cost = length.sum(axis=1) + BEND * (k - 1)
    return text_hits, card_hits, cost


def _detour(starts, tips, normals, card, own, others, texts):
    """The shortest route (pure length) from a start by the corners of the cards and texts in
    the way to a point out of the tip that runs into it clear, where no route of the
    families does (train_1's y2 and b stand left of loss's input, the rule card below it);
    None where there is none either."""
    qs, ends = _families(starts[:1], tips, normals, None, 0)
    q, end = qs[1][:, 1], ends[1]
    tip = qs[1][:, 2]
    last = np.stack([q, tip], axis=1)
    text_hits, card_hits, _ = _scored(last, end, card, own, others, texts)
    usable = (text_hits == 0) & (card_hits == 0)
    if not usable.any():
        return None
    q, tip = q[usable], tip[usable]
    grown = [_box(b, 1.0) for b in others + texts + [_box(own, CARD_CLEAR), _box(card, 0.0)]]
    corners = np.array([(x, y) for x0, y0, x1, y1 in grown for x in (x0, x1) for y in (y0, y1)])
    points = np.concatenate([starts, corners, q])
    n, first = len(points), len(starts)
    i, j = np.triu_indices(n, 1)
    blocked = segments_meet_boxes(points[i], points[j], texts + others + [_box(own, CARD_CLEAR), _box(card, -1.0)])
    weight = np.full((n, n), np.inf)
    free = ~blocked.any(axis=1)
    length = np.hypot(*(points[j] - points[i]).T)
    weight[i[free], j[free]] = weight[j[free], i[free]] = length[free]
    weight[:first, :first] = np.inf              # (along the card itself: no route)
    dist, parent, done = np.full(n, np.inf), np.full(n, -1), np.zeros(n, bool)
    dist[:first] = 0.0
    while True:
        k = int(np.argmin(np.where(done, np.inf, dist)))
        if done[k] or not np.isfinite(dist[k]):
            break
        done[k] = True
        better = dist[k] + weight[k] < dist
        dist[better], parent[better] = dist[k] + weight[k][better], k
    arrive = dist[n - len(q):] + np.hypot(*(tip - q).T)
    k = int(np.argmin(arrive))
    if not np.isfinite(arrive[k]):
        return None
    path, at = [tip[k]], n - len(q) + k
    while at >= 0:
        path.append(points[at])
        at = parent[at]
    return np.array(path[::-1])


def route(card, tip, normal, own, foot, others, texts):
    """[QPointF] of the leader from the rule card `card` to `tip` on the card `own`: into it
    against `normal` (a port's side, outward), or, without one (None), to the nearest point
    of `own`'s edge that any route reaches (`foot`: `own` with its ports' names and badges,
    which a lane round it passes); crossing no box of `texts` and no card of
    `others` (QRectF), nor `own` nor `card` on the way, where such a route exists: the
    shortest, a bend counted as BEND. Else the one crossing fewest texts, then cards."""
    if normal is not None:
        tips, normals = np.array([[tip.x(), tip.y()]]), np.array([normal], float)
        starts = np.array(edge_points(card, EVERY))
    else:
        tips, normals = _facing(own, card)
        starts = np.array(edge_points(card, 2 * EVERY))
    texts = [_box(r, TEXT_CLEAR) for r in texts]
    boxes = [_box(r, CARD_CLEAR) for r in others]
    lanes = ([foot.left() - ELBOW, foot.right() + ELBOW, card.left() - ELBOW, card.right() + ELBOW],
             [foot.top() - ELBOW, foot.bottom() + ELBOW, card.top() - ELBOW, card.bottom() + ELBOW])
    best = None
    for stage in range(3):
        for found, ends in zip(*_families(starts, tips, normals, lanes, stage)):
            keys = np.stack(_scored(found, ends, card, own, boxes, texts), axis=1)
            k = int(np.lexsort(keys.T[::-1])[0])
            if best is None or tuple(keys[k]) < best[0]:
                best = (tuple(keys[k]), found[k])
        if best[0][0] == 0 and best[0][1] == 0:
            break
    else:
        detour = _detour(starts, tips, normals, card, own, boxes, texts)
        if detour is not None:
            best = (None, detour)
    return [QPointF(float(x), float(y)) for x, y in best[1]]
