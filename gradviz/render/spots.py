"""Free places for a card beside others: where a step's rule card can lie in one view with
the step's cards, touching no card. Pure geometry on (left, top, right, bottom) tuples,
shared by the layout (is there such a place?) and the player (where is it?); and whether
a line meets a box (a label's arrow, a leader line past the text beside it)."""
import numpy as np


def free_places(near, size, room, obstacles, pad):
    """[(left, top)] of a card of `size` that lies, with the box `near`, in one view of
    `room` ((width, height)) and keeps `pad` away from every box of `obstacles`. Every free
    place slides left, then up, to one of these (it stops at an obstacle's edge or at the
    view's), so none is missed, however tight: a lattice stepped past the one gap right
    of BatchNorm's card that holds its step's rule card."""
    w, h = size
    if near[2] - near[0] > room[0] or near[3] - near[1] > room[1]:
        return []                           # `near` alone fills more than one view
    lo_x, hi_x = near[2] - room[0], near[0] + room[0] - w
    lo_y, hi_y = near[3] - room[1], near[1] + room[1] - h
    if lo_x > hi_x or lo_y > hi_y:
        return []
    xs = sorted({lo_x} | {o[2] + pad for o in obstacles if lo_x < o[2] + pad <= hi_x})
    ys = sorted({lo_y} | {o[3] + pad for o in obstacles if lo_y < o[3] + pad <= hi_y})
    if not obstacles:
        return [(x, y) for y in ys for x in xs]
    # Every (x, y) against every padded obstacle at once: rows y, columns x, in that order.
    o = np.asarray(obstacles, dtype=float).reshape(-1, 4)
    left, top, right, bottom = o[:, 0] - pad, o[:, 1] - pad, o[:, 2] + pad, o[:, 3] + pad
    x, y = np.asarray(xs), np.asarray(ys)
    across = (x[:, None] < right) & (left < x[:, None] + w)          # (x, obstacle)
    down = (y[:, None] < bottom) & (top < y[:, None] + h)            # (y, obstacle)
    hit = (down[:, None, :] & across[None, :, :]).any(axis=2)        # (y, x)
    rows, cols = np.nonzero(~hit)
    return [(xs[c], ys[r]) for r, c in zip(rows.tolist(), cols.tolist())]


def segment_meets_rect(ax, ay, bx, by, x0, y0, x1, y1):
    """Whether the segment a-b meets the rectangle [x0, x1] x [y0, y1] (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def segments_meet_boxes(a, b, boxes):
    """(segments, boxes) bool: whether each segment a[i]-b[i] ((n, 2) arrays) meets each box
    ((m, 4): left, top, right, bottom); segment_meets_rect for many at once (a leader's
    candidate routes against every card and text), tested exactly only where their bounding
    boxes meet."""
    a, b = np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2)
    o = np.asarray(boxes, float).reshape(-1, 4)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    near = (lo[:, None, 0] <= o[None, :, 2]) & (hi[:, None, 0] >= o[None, :, 0]) \
        & (lo[:, None, 1] <= o[None, :, 3]) & (hi[:, None, 1] >= o[None, :, 1])
    i, j = np.nonzero(near)
    if not len(i):
        return near
    start, d, box = a[i], b[i] - a[i], o[j]
    t0, t1 = np.zeros(len(i)), np.ones(len(i))
    for axis in (0, 1):     # a segment flat along `axis` lies within the box's span there: `near` checked it
        flat = d[:, axis] == 0
        step = np.where(flat, 1.0, d[:, axis])
        e0, e1 = (box[:, axis] - start[:, axis]) / step, (box[:, axis + 2] - start[:, axis]) / step
        t0 = np.where(flat, t0, np.maximum(t0, np.minimum(e0, e1)))
        t1 = np.where(flat, t1, np.minimum(t1, np.maximum(e0, e1)))
    near[i, j] = t0 <= t1
    return near
