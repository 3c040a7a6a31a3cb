"""A path flattened once into a polyline: where a point lies along it, how near it passes
a box, the part of it a view shows. The travelling cotangent, its labels and their leader
lines (render/story_overlay.py) and the canvas's edge items (app/canvas/edges.py) read it."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPolygonF

from .spots import segment_meets_rect, segments_meet_boxes

FAN_TAPER = 40.0    # how far from either end the paths of a fan-in along one edge part and meet again


class Track:
    """A path flattened once into a polyline with its running length, so a frame of the
    travelling cotangent only slices it (QPainterPath.pointAtPercent costs a length
    computation per call)."""

    def __init__(self, path=None, xy=None):
        if xy is None:
            polygons = path.toSubpathPolygons()
            points = [(p.x(), p.y()) for poly in polygons[:1] for p in poly] or [(0.0, 0.0)]
            xy = np.array(points, dtype=np.float64)
        self.xy = xy
        steps = np.hypot(*np.diff(self.xy, axis=0).T) if len(self.xy) > 1 else np.zeros(0)
        self.running = np.concatenate([[0.0], np.cumsum(steps)])
        self.length = float(self.running[-1])
        self._segments = None

    def segments(self):
        """(start, step, its squared length, lower and upper corner of its bounding box) of
        every segment, (n - 1, 2) arrays computed once: the label placement weighs a track
        against a thousand spots a step."""
        if self._segments is None:
            a, b = self.xy[:-1], self.xy[1:]
            d = b - a
            self._segments = (a, d, np.maximum((d * d).sum(axis=1), 1e-12), np.minimum(a, b), np.maximum(a, b))
        return self._segments

    def beside(self, offset, taper=FAN_TAPER):
        """The track moved `offset` to its side (left of its direction when positive) along
        the way, coming back to it within `taper` of either end: one of several paths along
        one edge, leaving the same port and meeting at the same sum."""
        if len(self.xy) < 2 or not offset:
            return self
        step = np.diff(self.xy, axis=0)
        step /= np.maximum(np.hypot(*step.T), 1e-9)[:, None]
        normal = np.stack([step[:, 1], -step[:, 0]], axis=1)
        at = np.concatenate([normal[:1], normal[:-1] + normal[1:], normal[-1:]])
        at /= np.maximum(np.hypot(*at.T), 1e-9)[:, None]
        share = np.clip(np.minimum(self.running, self.length - self.running) / taper, 0.0, 1.0)
        return Track(xy=self.xy + at * (offset * share)[:, None])

    def at(self, distance):
        """(point, direction in radians) at `distance` along the track."""
        d = min(max(distance, 0.0), self.length)
        i = int(np.searchsorted(self.running, d, side="right")) - 1
        i = min(max(i, 0), len(self.xy) - 2) if len(self.xy) > 1 else 0
        if len(self.xy) < 2:
            return QPointF(*self.xy[0]), 0.0
        (x0, y0), (x1, y1) = self.xy[i], self.xy[i + 1]
        seg = self.running[i + 1] - self.running[i]
        f = 0.0 if seg <= 0 else (d - self.running[i]) / seg
        return QPointF(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f), math.atan2(y1 - y0, x1 - x0)

    def crosses(self, rect):
        """Whether the polyline passes through `rect`: the segments whose bounding boxes
        meet it (found with numpy) are then tested exactly."""
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right(), rect.bottom()
        a, _, _, lo, hi = self.segments()
        b = self.xy[1:]
        near = np.flatnonzero((hi[:, 0] >= x0) & (lo[:, 0] <= x1) & (hi[:, 1] >= y0) & (lo[:, 1] <= y1))
        return any(segment_meets_rect(*a[i], *b[i], x0, y0, x1, y1) for i in near.tolist())

    def distance(self, rect):
        """How far the polyline passes from `rect` (0 where it crosses it)."""
        if len(self.xy) < 2:
            return apart(rect, QRectF(*self.xy[0], 0.0, 0.0))
        if self.crosses(rect):
            return 0.0
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right(), rect.bottom()
        ends = self.xy
        dx = np.maximum(np.maximum(x0 - ends[:, 0], ends[:, 0] - x1), 0.0)
        dy = np.maximum(np.maximum(y0 - ends[:, 1], ends[:, 1] - y1), 0.0)
        best = float(np.min(np.hypot(dx, dy)))
        a, d, length2, _, _ = self.segments()
        cx, cy = np.array([[x0], [x1], [x0], [x1]]), np.array([[y0], [y0], [y1], [y1]])
        # the corners (rows) nearest each segment's middle, all four at once
        t = np.clip(((cx - a[:, 0]) * d[:, 0] + (cy - a[:, 1]) * d[:, 1]) / length2, 0.0, 1.0)
        return min(best, float(np.min(np.hypot(a[:, 0] + t * d[:, 0] - cx, a[:, 1] + t * d[:, 1] - cy))))

    def within(self, rect, every=2.0):
        """The longest run of the track that lies in `rect` (sampled every `every` units),
        the whole track when `rect` is None or holds it, None when no part of it is in it:
        the part of an arrow a view shows, which its label goes beside."""
        if rect is None or len(self.xy) < 2 or self.length <= 0:
            return self
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right(), rect.bottom()
        if (self.xy[:, 0].min() >= x0 and self.xy[:, 0].max() <= x1
                and self.xy[:, 1].min() >= y0 and self.xy[:, 1].max() <= y1):
            return self
        at = np.linspace(0.0, self.length, max(2, int(self.length / every) + 1))
        xy = np.stack([np.interp(at, self.running, self.xy[:, 0]), np.interp(at, self.running, self.xy[:, 1])], axis=1)
        inside = (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
        if not inside.any():
            return None
        edges = np.diff(np.concatenate([[0], inside.astype(np.int8), [0]]))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        longest = int(np.argmax(ends - starts))
        return Track(xy=xy[starts[longest]:ends[longest]]) if ends[longest] - starts[longest] > 1 else None

    def nearest(self, rect, avoid=()):
        """(point on the track, point of `rect`) nearest each other: where a leader line
        from a label at `rect` meets its arrow, and where it leaves the label; of those
        whose line crosses none of the boxes `avoid` (other text, cards), when some do not."""
        at = np.linspace(0.0, self.length, max(2, int(self.length) + 1))
        xy = np.stack([np.interp(at, self.running, self.xy[:, 0]), np.interp(at, self.running, self.xy[:, 1])], axis=1)
        inner = np.stack([np.clip(xy[:, 0], rect.left(), rect.right()),
                          np.clip(xy[:, 1], rect.top(), rect.bottom())], axis=1)
        i = int(np.argmin(np.hypot(*(xy - inner).T)))
        boxes = [b.getCoords() for b in avoid]

        def clear(a, b):
            return not any(segment_meets_rect(*a, *b, *box) for box in boxes)
        if clear(inner[i], xy[i]):
            return QPointF(*xy[i]), QPointF(*inner[i])
        # else the shortest line that crosses none, from a point of the label's edge (its
        # nearest to a point of the track, or a corner: round a label between it and its arrow)
        corners = np.array([[rect.left(), rect.top()], [rect.right(), rect.top()],
                            [rect.left(), rect.bottom()], [rect.right(), rect.bottom()]])
        ends = xy[::max(1, len(xy) // 200)]
        starts = np.concatenate([np.broadcast_to(corners[:, None, :], (4, len(ends), 2)),
                                 np.stack([np.clip(ends[:, 0], rect.left(), rect.right()),
                                           np.clip(ends[:, 1], rect.top(), rect.bottom())], axis=1)[None]])
        tips = np.broadcast_to(ends[None], starts.shape)
        starts, tips = starts.reshape(-1, 2), tips.reshape(-1, 2)
        order = np.argsort(np.hypot(*(tips - starts).T), kind="stable")
        free = np.flatnonzero(~segments_meet_boxes(starts[order], tips[order], boxes).any(axis=1))
        if len(free):   # all at once: one by one, a thousand lines against every box took a fifth of a story's redraw
            k = order[free[0]]
            return QPointF(*tips[k]), QPointF(*starts[k])
        return QPointF(*xy[i]), QPointF(*inner[i])

    def head(self, distance):
        """The polyline from the start up to `distance`."""
        d = min(max(distance, 0.0), self.length)
        n = int(np.searchsorted(self.running, d, side="right"))
        points = [QPointF(x, y) for x, y in self.xy[:max(n, 1)]]
        points.append(self.at(d)[0])
        return QPolygonF(points)


def apart(a, b):
    """How far apart two rectangles are (0 where they meet)."""
    return math.hypot(max(a.left() - b.right(), b.left() - a.right(), 0.0),
                      max(a.top() - b.bottom(), b.top() - a.bottom(), 0.0))
