"""Which edges lie wholly under the cards, so that the canvas need not stroke them.

Cards are opaque and stand above the edge layer; placed closer than their width (a
crowded grid) they hide most edges between them. A card covers its rounded rectangle
less the corners, and less a rim of device pixels (its antialiased border, and the half
pixel its cached picture may be shifted by): two whole-unit rectangles. An edge is
covered when its bounds, widened to whole units, lie within the union of them.

`boxes_meet` is the plain-float overlap test of boxes that the whole canvas uses.
"""
import numpy as np
from PySide6.QtCore import QRect
from PySide6.QtGui import QRegion

from ...render.cards import CORNER_R


def covered(boxes, cards, rim):
    """The indexes of `boxes` ((left, top, right, bottom) each, scene units) that lie wholly
    under `cards` ((x, y, width, height) each) less a `rim` (scene units).

    A box with a corner outside every card's inside is not covered: numpy tells that for
    all boxes at once. Only the others are tested exactly, against the region of the
    insides they meet (testing each of the 100-node grid's 142 edges against a region of
    all cards took 1.5 ms; after one card grew, 15 edges are tested again)."""
    if not len(boxes) or not len(cards):
        return []
    b = np.asarray(boxes, float)
    b = np.stack([np.floor(b[:, 0]), np.floor(b[:, 1]), np.ceil(b[:, 2]), np.ceil(b[:, 3])], axis=1)
    x, y, w, h = np.asarray(cards, float).T
    inner = np.concatenate([_inner(x + CORNER_R, y + rim, w - 2 * CORNER_R, h - 2 * rim),
                            _inner(x + rim, y + CORNER_R, w - 2 * rim, h - 2 * CORNER_R)])
    corners = np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [0, 3]], b[:, [2, 3]]], axis=1) + [0.5, 0.5]
    corners -= np.array([[0, 0], [1, 0], [0, 1], [1, 1]])   # the box's corner pixels' centres
    px, py = corners[..., 0, None], corners[..., 1, None]
    inside = (inner[:, 0] <= px) & (px < inner[:, 2]) & (inner[:, 1] <= py) & (py < inner[:, 3])
    candidates = np.flatnonzero(inside.any(axis=2).all(axis=1))
    if not len(candidates):
        return []
    meet = ((inner[:, 0] < b[candidates, 2, None]) & (b[candidates, 0, None] < inner[:, 2])
            & (inner[:, 1] < b[candidates, 3, None]) & (b[candidates, 1, None] < inner[:, 3])).any(axis=0)
    cover = QRegion()
    for left, top, right, bottom in inner[meet].astype(int).tolist():
        cover += QRect(left, top, right - left, bottom - top)
    return [int(i) for i, (left, top, right, bottom) in zip(candidates, b[candidates].astype(int).tolist())
            if QRegion(left, top, right - left, bottom - top).subtracted(cover).isEmpty()]


def _inner(x, y, w, h):
    """The largest whole-unit boxes (left, top, right, bottom) inside rectangles (x, y, w, h);
    an empty one where there is none."""
    left, top = np.ceil(x), np.ceil(y)
    return np.stack([left, top, np.maximum(left, np.floor(x + w)), np.maximum(top, np.floor(y + h))], axis=1)


def boxes_meet(a, b):
    """Do (left, top, right, bottom) boxes `a` and `b` overlap (as QRectF.intersects)? Plain
    floats: the canvas tests every edge this way, where a QRectF call each costs more."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
