"""How far in the player may zoom on a step, given the steps beside it (issue 20 §4): a step
of one card (a Visit, an accumulation) fits the view at a larger zoom than the edge steps
around it, and framed to the cap it pumped the camera in and out as a teacher stepped on
(lesson 27 in presentation at 1920 x 1080: 1.59, 3.97, 1.8, 3.1, 2.37, 3.1 ...). Bounded by
the zoom its neighbours are framed at, it stays near them. The bound is computed from the
steps alone (not from the steps shown before), so going back to a step shows the same view."""
from ...render.involved import involved_nodes
from ...render.legible import READABLE_PX
from .framing import MAX_ZOOM
from .framing_names import named_nodes, seed_context
from .framing_slides import slide_frame
from .framing_step import step_frame

NEIGHBOUR_GAIN = 1.3    # a step is shown at most this much larger than a neighbour


def zoom_cap(view, renderer, steps, index, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
             floor_px=READABLE_PX, rule_px=READABLE_PX, known=None):
    """The largest zoom (at most `max_zoom`) for step `index` of `steps` in `view`:
    NEIGHBOUR_GAIN times the zoom of the step before it or the one after it (the lesser),
    as step_frame frames them (in presentation mode (`fill`) with the cards their captions
    name; a step too large to show whole at the legible zoom, at that zoom, undocked).
    Framing never goes under the legible zoom for this cap (step_frame takes the larger).
    `known`: {step index: that zoom} for this view, renderer and framing, filled as computed.
    The renderer's docked formula card is left as it was."""
    known = {} if known is None else known
    docked = renderer.docked_formula()
    cap = max_zoom
    for k in (index - 1, index + 1):
        if not 0 <= k < len(steps):
            continue
        if k not in known:
            step = steps[k]
            extra = []
            if fill is not None:
                involved = involved_nodes(renderer, step)
                extra = [n for n in named_nodes(renderer, step) if n not in involved]
            # A seed slide as it is shown, with its context or the whole graph (001_higher_order's
            # at 1920 x 1080 at 1.59, its next step weighed against its card alone at 3.36)
            if fill is not None and seed_context(renderer, step):
                framed = slide_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, rule_px)
            else:
                framed = step_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra,
                                    fill is not None, rule_px, dock=False)
            known[k] = None if framed is None else framed[0]
        if known[k] is not None:
            cap = min(cap, NEIGHBOUR_GAIN * known[k])
    renderer.dock_formula(*(docked or (None, None)))
    return cap
