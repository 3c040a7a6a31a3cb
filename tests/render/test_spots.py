"""spots' two tests of whether a line meets a box agree: segments_meet_boxes (numpy, every
candidate route of a leader against every card and text) and segment_meets_rect (one line,
the label's leader and the arrows' pills). Where they differed, a route the router took as
clear would be one the test of the picture finds crossing a card, or the other way round."""
import numpy as np

from gradviz.render.spots import segment_meets_rect, segments_meet_boxes


def _one_by_one(a, b, boxes):
    return np.array([[segment_meets_rect(*p, *q, *box) for box in boxes] for p, q in zip(a, b)])


def test_a_few_lines_and_boxes_by_hand():
    box = (0.0, 0.0, 10.0, 10.0)
    cases = [((-5, 5), (15, 5), True),      # straight through, both ends outside
             ((-5, -5), (15, 15), True),    # through the corners' diagonal
             ((-5, 5), (5, -5), True),      # through the corner (0, 0) alone
             ((-5, 6), (6, -5), True),
             ((-5, 3), (3, -6), False),     # beside the corner: their bounding boxes meet
             ((2, 2), (2, 2), True),        # a point inside
             ((10, 12), (10, 20), False),   # along the box's right edge, past its end
             ((10, -3), (10, 3), True),     # along the right edge, onto it
             ((11, -3), (11, 30), False)]   # beside the right edge, all along it
    a = np.array([c[0] for c in cases], float)
    b = np.array([c[1] for c in cases], float)
    want = [c[2] for c in cases]
    assert _one_by_one(a, b, [box])[:, 0].tolist() == want
    assert segments_meet_boxes(a, b, [box])[:, 0].tolist() == want


def test_many_at_once_agrees_with_one_by_one():
    """On a small integer grid (ends on boxes' edges and corners, lines along them, points,
    vertical and horizontal lines: the cases where a strict < for <= tells) and off it."""
    rng = np.random.default_rng(7)
    for scale, grid in ((6, True), (40.0, False)):
        a, b = rng.integers(-1, scale, (300, 2)), rng.integers(-1, scale, (300, 2))
        lo, size = rng.integers(0, scale - 1, (40, 2)), rng.integers(0, 3, (40, 2))
        if not grid:
            a, b = a + rng.random((300, 2)), b + rng.random((300, 2))
            lo, size = lo + rng.random((40, 2)), rng.random((40, 2)) * 12
        a, b = a.astype(float), b.astype(float)
        boxes = np.concatenate([lo, lo + size], axis=1).astype(float)
        many, one = segments_meet_boxes(a, b, boxes), _one_by_one(a, b, boxes)
        assert many.shape == one.shape == (300, 40)
        assert 0.05 < one.mean() < 0.95       # both answers are common: the test can tell
        wrong = np.argwhere(many != one)
        assert not len(wrong), [(a[i].tolist(), b[i].tolist(), boxes[j].tolist(), bool(one[i, j]))
                                for i, j in wrong[:5]]
