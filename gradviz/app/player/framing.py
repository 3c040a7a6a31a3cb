"""What every frame of a step weighs: how tall a view at a zoom draws the cards' smallest
numbers (`text_px`) and the zoom at which they read (`readable_zoom`), the zoom that fits a
rect in a view (`fit_zoom`), and the centre of a window that covers spans in order of
priority (`spans_centre`). The framing modules (framing_dock, framing_step, framing_slides)
and step_view build on it."""
import math

from ...render import legible
from ...render.legible import READABLE_PX

MAX_ZOOM = 1.25
MARGIN = 24.0           # screen pixels kept free around what is framed


def text_px(view, zoom=None):
    """How tall (pixels) the cards' smallest numbers are drawn at `zoom` (default: now)."""
    return legible.number_px(view.transform().m11() if zoom is None else zoom, view.logicalDpiY())


def readable_zoom(view, readable_px=READABLE_PX):
    return readable_px / text_px(view, 1.0)


def fit_zoom(rect, width, height):
    return min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))


def spans_centre(spans, seen, full=None):
    """The centre, along one axis, of a window `seen` long (`full` without its margins)
    that covers the spans in order of priority: each as far as the ones before allow.
    A span longer than the window is centred if it fits in the window's margins; the
    first one, when longer still, is shown from its start. Spans already covered may
    slide into the margins to make room for the next one."""
    full = seen if full is None else full
    lo, hi = -math.inf, math.inf            # the window covers the spans so far
    loose_lo, loose_hi = -math.inf, math.inf  # ... counting its margins
    wish = 0.0
    for k, (a, b) in enumerate(spans):
        if b - a <= seen:
            allowed = (b - seen / 2, a + seen / 2)        # the window covers [a, b]
        elif b - a <= full:
            allowed = ((a + b) / 2, (a + b) / 2)          # in the margins
        elif k == 0:
            allowed = (a + seen / 2, a + seen / 2)        # its start
        else:
            allowed = (a + seen / 2, b - seen / 2)        # the window lies inside [a, b]
        wish = (a + b) / 2
        if max(lo, allowed[0]) <= min(hi, allowed[1]):
            pass
        elif max(loose_lo, allowed[0]) <= min(loose_hi, allowed[1]):
            lo, hi = loose_lo, loose_hi
        else:
            break                                         # as close to it as allowed
        lo, hi = max(lo, allowed[0]), min(hi, allowed[1])
        if b - a <= full:
            loose = (b - full / 2, a + full / 2)
            loose_lo, loose_hi = max(loose_lo, loose[0]), min(loose_hi, loose[1])
        else:
            loose_lo, loose_hi = lo, hi
    return min(max(wish, lo), hi)
