"""The backward pass as an animation: the frame plan, the camera and the frames drawn.

The files (a numbered PNG sequence, APNG, GIF) are written by render.animation_files. The
camera's glides between steps redraw whole frames: they are what a file's size grows with,
so the camera moves only when a step needs it, and a short way takes fewer frames.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from ..graph import evaluate
from ..story import build
from . import legible, text
from .cards import BADGE_H
from .export import CSS_DPI, ensure_app
from .involved import involved_nodes, step_groups
from .layout import layout
from .painter import Renderer
from .story_overlay import GLOW

class Cancelled(Exception):
    """Raised by a frame source when the user cancels; writers leave no partial file."""


# -- frames -----------------------------------------------------------------------------
# Defaults for slides: as sharp as an exported PNG, motion smooth at 25 frames a second
# (a GIF counts time in hundredths: 4 each), each finished step held long enough to read,
# the camera gliding from one step's framing to the next's instead of cutting, never more
# than GLIDE_STEP of the view in a frame, in as few frames as that allows: each glide frame
# redraws the whole picture, 50-75 kB of a 1920 x 1080 GIF.
SCALE = 2.0
FPS = 25.0
MOTION_SECONDS = 0.8   # the cotangent travelling along its edge
HOLD_SECONDS = 1.6     # the finished step, still
GLIDE_SECONDS = 0.4    # the camera, from the last framing to the next step's (the longest glide)
GLIDE_STEP = 0.15      # the most an edge of the view moves in a glide's frame (a share of the view)


def frames_for(seconds, fps=FPS):
    """How many frames at `fps` last `seconds` (at least one for motion, none for no hold)."""
    return max(0, round(float(seconds) * float(fps)))


FRAMES_PER_STEP = frames_for(MOTION_SECONDS)
HOLD = frames_for(HOLD_SECONDS)
GLIDE = frames_for(GLIDE_SECONDS)


def eased(t):
    """Smoothstep: the cotangent starts and stops gently instead of jumping into motion."""
    return t * t * (3.0 - 2.0 * t)


class Frame(NamedTuple):
    """One frame of an animation: `step` (its index; None: the graph before the story) drawn
    with its cotangent `progress` of the way (eased), seen by the camera `shot`: (origin,
    target, k, n), the k-th of n frames in which the camera may glide from the framing of
    step `origin` to that of `target` (a still camera: (step, step, 0, 0); see `shots`)."""
    step: int | None
    progress: float
    shot: tuple


def frame_plan(n_steps, frames_per_step=FRAMES_PER_STEP, hold=HOLD, intro=True, glide=GLIDE):
    """[Frame] for every frame, in order.

    `intro` starts with the plain graph, before the backward pass. Before each step the
    camera has `glide` frames to glide from the picture shown last to the step's framing,
    that picture still (`shots`: a short way takes fewer, then waits there); then the
    step's cotangent travels in `frames_per_step` frames (eased) and the finished picture
    is held for `hold` more (identical frames, merged by the GIF/APNG writers).
    """
    frames_per_step = max(1, int(frames_per_step))
    plan = [Frame(None, 1.0, (None, None, 0, 0))] * ((1 + hold) if intro else 0)
    shown = plan[-1] if plan else None
    for i in range(n_steps):
        if shown is not None:
            glide = max(0, int(glide))
            plan += [Frame(shown.step, shown.progress, (shown.step, i, k + 1, glide)) for k in range(glide)]
        plan += [Frame(i, eased((k + 1) / frames_per_step), (i, i, 0, 0)) for k in range(frames_per_step)]
        plan += [Frame(i, 1.0, (i, i, 0, 0))] * hold
        shown = plan[-1]
    return plan


def frame_count(story, frames_per_step=FRAMES_PER_STEP, hold=HOLD, intro=True, glide=GLIDE):
    return len(frame_plan(len(getattr(story, "steps", []) or []), frames_per_step, hold, intro, glide))


def canvas_rect(renderer):
    """The union of the picture's bounds over every step: all that any frame may show."""
    rect = QRectF(renderer.bounds(None))
    for i in range(len(getattr(renderer.story, "steps", []) or [])):
        rect = rect.united(renderer.bounds(i))
    return rect


# A slide: 16:9, 960 x 540 CSS pixels at the cards' own size (1920 x 1080 at the default
# scale 2). Each step is framed on it as the player frames it: its cards, its arrows and
# their labels, its rule card; larger than the slide, drawn smaller, never below the
# zoom at which the cards' numbers read (legible.READABLE_PX); before the story, the graph.
SLIDE = (960.0, 540.0)
SLIDE_MARGIN = 24.0
WHOLE_ZOOM = 1.25       # the graph before the story: drawn up to this much larger, as Fit to Window draws it


def slide_room(slide=SLIDE, scale=SCALE):
    """(width, height), scene units: what a `slide` drawn at `scale` shows at the least zoom
    at which the cards' numbers read, inside its margins and above the top row's badges
    (the room a layout folds a long chain into, as the canvas's `layout_room`)."""
    zoom = legible.readable_zoom() / scale
    return (slide[0] / zoom - 2 * SLIDE_MARGIN, slide[1] / zoom - 2 * SLIDE_MARGIN - BADGE_H - 4)


def slide_renderer(renderer, slide=SLIDE, scale=SCALE):
    """`renderer` again, its graph laid out for the slide as the player lays it out for its
    view (`layout.layout` with the steps' groups, `involved.step_groups`): a chain too long
    for the slide at a readable zoom folds into rows, where that frames more steps too. A
    document whose cards the user placed keeps its own layout."""
    doc = renderer.doc
    if not doc.nodes or all(node.position is not None for node in doc.nodes.values()):
        return renderer
    room = slide_room(slide, scale)
    groups, cards, reach = step_groups(renderer, getattr(renderer.story, "steps", None) or [])
    positions = layout(doc, {nid: (c.width, c.height) for nid, c in renderer.cards.items()},
                       renderer.label_room(), room=room, steps=(groups, room, cards, reach))
    if positions == renderer.positions:
        return renderer
    return Renderer(doc, evaluation=renderer.evaluation, story=renderer.story, theme=renderer.theme,
                    positions=positions)


def _step_focus(renderer, step):
    """[what `step` is about, the least of it] (scene rectangles): its card with the cards
    at the other end of its arrows, the arrows, their labels and its rule card; else its
    card, its rule card and its labels. A step without a card of its own: the graph."""
    nid = getattr(step, "node", None)
    if nid not in renderer.doc.nodes:
        return [renderer.bounds(None)]
    least = renderer.footprint(nid)
    formula = renderer._formula_rect(step)
    if formula is not None:
        least = least.united(formula)
    for _, rect in renderer.label_rects(step):
        least = least.united(rect)
    seed = renderer.seed_marks(step)
    if seed is not None:
        least = least.united(QRectF(seed[1], seed[0]).normalized())
    full = least.united(renderer.moving_rect(step))
    for other in involved_nodes(renderer, step)[1:]:
        full = full.united(renderer.footprint(other))
    return [full, least]


class Drawn:
    """What a frame of `step` draws, piece by piece: every card with its badges and its
    ports' names, the edges (points along them), the step's rule card, labels and seed;
    where a view placed on it lies (`place`), and what a view shows of it (`seen`)."""

    def __init__(self, renderer, step):
        rects = [renderer.footprint(nid) for nid in renderer.doc.nodes]
        if getattr(step, "node", None) in renderer.doc.nodes:    # the active card's ring and its glow
            rects.append(renderer.ring_rect(step.node).adjusted(-GLOW, -GLOW, GLOW, GLOW))
        if step is not None:
            formula = renderer._formula_rect(step)
            rects += [] if formula is None else [formula]
            rects += [rect for _, rect in renderer.label_rects(step)]
            seed = renderer.seed_marks(step)
            if seed is not None:
                rects.append(QRectF(seed[1], seed[0]).normalized())
        boxes = [r.getCoords() for r in rects]
        for path in renderer.routes().values():      # an edge: the points along it, each a box
            polygon = path.toFillPolygon()
            boxes += [(p.x(), p.y(), p.x(), p.y()) for p in polygon]
        self.boxes = np.array(boxes, dtype=float).reshape(-1, 4)
        self.whole = renderer.bounds(step)

    def _span(self, axis, lo, hi):
        """(low, high) along `axis` (0: x, 1: y) of the pieces that reach into [lo, hi]
        along the other axis (the whole picture's when none do)."""
        b = self.boxes
        other = 1 - axis
        hit = (b[:, other + 2] >= lo) & (b[:, other] <= hi)
        if not hit.any():
            whole = self.whole.getCoords()
            return whole[axis], whole[axis + 2]
        return b[hit, axis].min(), b[hit, axis + 2].max()

    def place(self, centre, w, h):
        """The view w x h centred on `centre`, moved inside what the frame draws where it
        fits there, else centred on it: across on the whole picture, then down on what
        is drawn across the view's width, then across on what is drawn down its height (a
        wide graph's step framed on the whole picture's height sat in the lower part of the
        slide under a band of white, the cards above it lying left or right of the view)."""
        whole = self.whole
        x = _placed(centre.x(), w, whole.left(), whole.right())
        y = _placed(centre.y(), h, *self._span(1, x, x + w))
        x = _placed(centre.x(), w, *self._span(0, y, y + h))
        y = _placed(centre.y(), h, *self._span(1, x, x + w))    # (the view's width, moved)
        return QRectF(x, y, w, h)

    def seen(self, view):
        """What `view` is placed on (`place`): across, the span of what is drawn down its
        height; down, the span of what is drawn across its width. A span wider than the
        view reaches past its edge: the picture goes on there."""
        (x0, x1), (y0, y1) = self._span(0, view.top(), view.bottom()), self._span(1, view.left(), view.right())
        return QRectF(QPointF(x0, y0), QPointF(x1, y1))


SLID_SIZES = 96   # the sizes a view moved off the cards it cuts tries, from its least to the widest (0.7 % apart)
SLID_PLACES = 64  # of the places a view of one size may be moved to, the nearest tried for a centred picture
CENTRED = 0.08   # how far off centre (a share of the view) a held frame may show its picture
NUDGE = 0.03     # a framing this close to the last (its edges moved by a share of the view) keeps the last


def off_centre(view, drawn):
    """How far from centred `drawn` (what a frame draws, its picture's bounds) sits in
    `view`, the larger of the two directions, a share of the view; where `drawn` is larger
    than the view in a direction: 0 when it fills the view that way but for at most a
    margin (SLIDE_MARGIN) at its edges, else 1. (Filled to the last unit, a view moved off
    a card that it would cut, 11 units short of the picture's edge, counted as wholly off
    centre: the tiny CNN's step 4 could then only cut its cards.)"""
    def along(v0, v1, d0, d1):
        if d1 - d0 >= v1 - v0:
            return 0.0 if d0 <= v0 + SLIDE_MARGIN and d1 >= v1 - SLIDE_MARGIN else 1.0
        return abs((d0 - v0) - (v1 - d1)) / (v1 - v0)
    return max(along(view.left(), view.right(), drawn.left(), drawn.right()),
               along(view.top(), view.bottom(), drawn.top(), drawn.bottom()))


def _cards(renderer, step):
    """The rectangles a frame of `step` (a Step or None) shows whole or not at all: every
    card with its badge line and its ports' names (`footprint`), and the step's rule card."""
    rects = [renderer.footprint(nid) for nid in renderer.doc.nodes]
    formula = None if step is None else renderer._formula_rect(step)
    return rects if formula is None else rects + [formula]


def camera(renderer, step, slide=SLIDE, scale=SCALE, last=None):
    """The scene rectangle a frame of `step` (an index, a Step or None: the graph before
    the story) shows on a `slide` drawn at `scale`: the slide's aspect, at least its size
    (no zoom above the cards' own; the whole graph before the story up to WHOLE_ZOOM), its
    focus (`_step_focus`; before the story the graph alone, without any step's rule card,
    as tight as it fits) whole when its numbers still read at that zoom, else the least of
    it; grown to hold whole every card that its edge would cut (`_cards`), while the
    numbers still read (`_framing`; where the whole focus cannot be framed so, the
    least of it, if that can). It is placed on what this frame draws (`renderer.bounds(step)`):
    centred on it where that is smaller than the view, else inside it, so that no empty
    band shows. (Kept inside the union of every step's picture, lesson 1's first step
    left the slide's right third blank, where only a later step's rule card goes, and
    Newton's opening frame sat in the top third.) `last` (the framing of the step before)
    is kept where it holds that much whole, cuts no card, shows this frame's picture
    centred (`off_centre`, within CENTRED) and draws it at least 2/3 as large: the camera
    moves only when the step needs it (Newton's lesson: 6 moves in 18 steps); drawn larger,
    it is kept where the new framing would differ by a nudge (NUDGE: a move that shows
    nothing new and redraws the whole picture; nets_2_bad_init made 9 of 0.4-1.4 %, each
    70-95 kB of its GIF)."""
    step = renderer.step_at(step)
    width, height = slide
    widest = width * scale / legible.readable_zoom()     # the least zoom at which numbers read
    focus = [renderer.bounds(None)] if step is None else _step_focus(renderer, step)
    least = width / WHOLE_ZOOM if step is None else width
    cards = _cards(renderer, step)
    drawn = Drawn(renderer, step)

    def size(rect):
        return max(least, rect.width(), rect.height() * width / height)

    def cut(view):
        inner = view.adjusted(-1e-6, -1e-6, 1e-6, 1e-6)    # a card on the view's edge is whole
        return [card for card in cards if card.intersects(view) and not inner.contains(card)]

    candidates = [rect.adjusted(-SLIDE_MARGIN, -SLIDE_MARGIN, SLIDE_MARGIN, SLIDE_MARGIN) for rect in focus]
    readable = [rect for rect in candidates if size(rect) <= widest] or candidates[-1:]
    rect = readable[0]
    if last is not None and step is not None and last.contains(rect) and last.width() <= 1.5 * size(rect) \
            and not cut(last) and off_centre(last, drawn.seen(last)) <= CENTRED:
        return QRectF(last)
    view = _framing(readable, cut, size, widest, drawn, height / width, cards)
    if last is not None and step is not None and _edge_move(last, view) <= NUDGE and last.contains(rect) \
            and not cut(last) and off_centre(last, drawn.seen(last)) <= CENTRED:
        return QRectF(last)
    return view


def _framing(readable, cut, size, widest, drawn, aspect, cards):
    """The first view grown from a rectangle of `readable` (each at once, then singly:
    `_grown_view`) that cuts no card. Where each cuts one in the end, the least view, from
    the rectangle's own size to the widest (SLID_SIZES sizes), that moved (`_slid_view`)
    holds the rectangle, cuts none and shows its picture centred; else the least that cuts
    none; else the first grown (it cuts a card)."""
    first = None
    for rect in readable:
        for singly in (False, True):
            view = _grown_view(rect, cut, size, widest, drawn, aspect, singly)
            if not cut(view):
                return view
            first = view if first is None else first
    uncut = None
    for rect in readable:
        core = rect.adjusted(SLIDE_MARGIN, SLIDE_MARGIN, -SLIDE_MARGIN, -SLIDE_MARGIN)
        for w in np.unique(np.geomspace(size(rect), max(size(rect), widest), SLID_SIZES)):
            view = _slid_view(drawn.place(rect.center(), w, w * aspect), core, cards, drawn)
            if view is not None and off_centre(view, drawn.seen(view)) <= CENTRED:
                return view
            uncut = view if uncut is None else uncut
    return first if uncut is None else uncut


def _grown_view(rect, cut, size, widest, drawn, aspect, singly=False):
    """The view that holds `rect`, placed on what its frame draws (`Drawn.place`: centred
    on `rect` and moved inside it), grown to hold whole the cards that its edge cuts (`cut`)
    and placed again, until it cuts none; `singly`: one card at a time, the one that grows
    it least first (a card cut at one edge is often left whole outside the other once the
    view moves: tiny CNN's step 18, taking in at once its image x above and relu and pool
    below, grew so wide that it cut the loss). A card is taken in with SLIDE_MARGIN around
    it, or as much of that margin as keeps the view at most `widest` (step 15 cut its
    image x 22 units short of holding it with the whole margin); where none is, the view
    as it is (it cuts it)."""
    w = size(rect)
    while True:
        view = drawn.place(rect.center(), w, w * aspect)
        cards = cut(view)
        options = [[card] for card in cards] if singly else [cards] if cards else []
        grown = []
        for taken in options:
            for m in (SLIDE_MARGIN, SLIDE_MARGIN / 2, 0.0):
                g = rect
                for card in taken:
                    g = g.united(card.adjusted(-m, -m, m, m))
                if size(g) <= widest:
                    if g != rect:
                        grown.append(g)
                    break
        if not grown:
            return view
        rect = min(grown, key=size)
        w = size(rect)


def _slid_view(view, core, cards, drawn):
    """`view` moved, its size kept, so that it holds `core` whole and cuts none of `cards`:
    each card left outside it or taken in, SLIDE_MARGIN, half of it or one unit (not none:
    the card's border would be a line along the frame's edge) from its edge; the nearest
    such place to `view` (of the SLID_PLACES nearest) where what it shows is centred
    (`off_centre`, within CENTRED), else the nearest; None where there is none. Growing a
    view to take in each card that its edge cuts can go on until it is too wide to read
    and cuts others (the tiny CNN's step 4, the layout's gaps 10 units narrower, cut image
    x, filters w and relu), where a view of a size it passed, moved a little, cuts none."""
    w, h = view.width(), view.height()
    c = np.array([card.getCoords() for card in cards], dtype=float).reshape(-1, 4)

    def starts(lo, hi, size, low, high, placed):
        """Where the view may start along one axis: its own place, and each card's edges
        at either of its edges, that keep [low, high] in it."""
        s = np.unique(np.concatenate([[placed]] + [np.concatenate([hi + m, lo - m - size, lo - m, hi + m - size])
                                                   for m in (SLIDE_MARGIN, SLIDE_MARGIN / 2, 1.0)]))
        return s[(s <= low + 1e-6) & (s + size >= high - 1e-6)]

    xs = starts(c[:, 0], c[:, 2], w, core.left(), core.right(), view.left())
    ys = starts(c[:, 1], c[:, 3], h, core.top(), core.bottom(), view.top())
    x, y = (a[..., None] for a in np.meshgrid(xs, ys, indexing="ij"))
    meets = (c[:, 2] > x) & (c[:, 0] < x + w) & (c[:, 3] > y) & (c[:, 1] < y + h)
    inside = (c[:, 0] >= x - 1e-6) & (c[:, 2] <= x + w + 1e-6) & (c[:, 1] >= y - 1e-6) & (c[:, 3] <= y + h + 1e-6)
    i, j = np.nonzero(~(meets & ~inside).any(axis=2))
    if not len(i):
        return None
    order = np.argsort(np.hypot(xs[i] - view.left(), ys[j] - view.top()), kind="stable")
    places = [QRectF(xs[i[k]], ys[j[k]], w, h) for k in order[:SLID_PLACES]]
    return next((v for v in places if off_centre(v, drawn.seen(v)) <= CENTRED), places[0])


def between(a, b, t):
    """The rectangle `t` of the way from `a` to `b`: each edge moves straight and evenly
    with t, so a camera gliding between two framings pans and zooms at once, never back."""
    return QRectF(a.left() + (b.left() - a.left()) * t, a.top() + (b.top() - a.top()) * t,
                  a.width() + (b.width() - a.width()) * t, a.height() + (b.height() - a.height()) * t)


def _placed(centre, size, low, high):
    """Where a span of `size` centred at `centre` starts, moved inside [low, high] when it
    fits there, else centred on it."""
    if size >= high - low:
        return (low + high - size) / 2
    return min(max(centre - size / 2, low), high - size)


def _glide_step(a, b, frames):
    """The largest share of the view by which an edge of it moves in one frame when the
    camera glides from `a` to `b` in `frames` frames (eased, as `shots` moves it)."""
    views = [a] + [between(a, b, eased(k / (frames + 1))) for k in range(1, frames + 1)] + [b]
    return max(_edge_move(u, v) for u, v in zip(views, views[1:]))


def _edge_move(u, v):
    """The most an edge moves from view `u` to view `v`, a share of the narrower view."""
    return max(abs(u.left() - v.left()), abs(u.top() - v.top()), abs(u.right() - v.right()),
               abs(u.bottom() - v.bottom())) / min(u.width(), v.width())


def glide_frames(a, b, frames):
    """Of `frames` that a glide from view `a` to view `b` may take, how many it takes: the
    fewest in which no edge of the view moves more than GLIDE_STEP of it in a frame (all of
    them for a way too far for that). Each glide frame redraws the whole picture (50-75 kB
    of a 1920 x 1080 GIF): a short way in a few frames, not ten (Newton's lesson: 55 glide
    frames, 3.7 of its 4.7 MB; now 30), and a way no longer than GLIDE_STEP in none, the
    camera there at once (a frame halfway along 3 % of the view, as lesson 14 had four,
    showed no motion and cost 55 kB)."""
    if a == b:
        return 0
    return next((n for n in range(frames) if _glide_step(a, b, n) <= GLIDE_STEP), frames)


def shots(renderer, plan, slide=SLIDE, scale=SCALE, content=None):
    """The scene rectangle each Frame of `plan` shows: the framing of its step (`camera`,
    the last one kept where it serves); while the camera glides, `between` the two, eased,
    over the frames the way needs (`glide_frames`), then still. With `slide` None,
    `content` on every frame."""
    content = canvas_rect(renderer) if content is None else content
    cameras = {}

    def framed(step):
        if step not in cameras:
            last = cameras.get(step - 1) if isinstance(step, int) else None
            cameras[step] = content if slide is None else camera(renderer, step, slide, scale, last)
        return cameras[step]

    for frame in plan:
        origin, target, k, n = frame.shot
        if origin == target:
            yield framed(target)
            continue
        a, b = framed(origin), framed(target)
        used = glide_frames(a, b, n)
        yield b if k > used else between(a, b, eased(k / (used + 1)))


@lru_cache(maxsize=1)
def digit_height():
    """How tall (scene units) the cards' digits are: their glyphs, not their font's size
    (legible.number_px), which counts the room above and below them too."""
    return text.metrics(text.mono(legible.NUMBER_PT)).tightBoundingRect("0123456789").height()


def overview_compact(step, zoom, scale=SCALE):
    """The type scale of compact cards (render.compact) for a frame of `step` drawn at
    `zoom` (the frame's pixels a scene unit) on a picture at `scale`, or None: the cards in
    full. The graph before the story draws its cards compact, as Fit to Window does, where
    their digits would be less than legible.READABLE_PX tall in the frame (Newton's lesson
    at 1920 x 1080 wrote them 8.5 px tall, lesson 14 7.4 px); their names then at the
    picture's scale. A step's frame keeps its numbers: they are what it shows (and a
    poster, `frames` without a slide, draws every frame at one zoom, all in full)."""
    if step is not None or digit_height() * zoom >= legible.READABLE_PX:
        return None
    return scale


def frames(doc, evaluation=None, story=None, theme="light", scale=SCALE, frames_per_step=FRAMES_PER_STEP,
           hold=HOLD, intro=True, positions=None, renderer=None, slide=SLIDE, glide=GLIDE):
    """Every frame of `frame_plan` as a QImage, all of one size (RGB32): the `slide` (CSS
    pixels) at `scale` pixels each, each step framed on it (`camera`), the camera gliding
    between steps, the graph before the story compact where its digits would not read
    (`overview_compact`); with `slide` None, the whole picture (`canvas_rect`) on every frame, as
    a poster shows it.

    Without `renderer` one is made here (the document evaluated and its story built unless
    `evaluation`/`story` are given), laid out for the slide (`slide_renderer`) unless
    `positions` are given.
    """
    ensure_app()
    if renderer is None:
        if evaluation is None or story is None:
            evaluation = evaluation if evaluation is not None else evaluate(doc)
            story = story if story is not None else build(doc)
        renderer = Renderer(doc, evaluation=evaluation, story=story, theme=theme, positions=positions)
        if positions is None and slide is not None:
            renderer = slide_renderer(renderer, slide, scale)
    content = canvas_rect(renderer)
    size = (content.width(), content.height()) if slide is None else slide
    width, height = max(1, round(size[0] * scale)), max(1, round(size[1] * scale))
    dots_per_metre = round(CSS_DPI * scale / 0.0254)
    background = QColor(renderer.theme.background)
    steps = renderer.story.steps if renderer.story is not None else []
    plan = frame_plan(len(steps), frames_per_step, hold, intro, glide)
    last = None
    for frame, rect in zip(plan, shots(renderer, plan, slide, scale, content)):
        key = (frame.step, frame.progress, rect.getRect())
        if last is not None and last[0] == key:
            yield last[1]
            continue
        step = frame.step
        zoom = width / rect.width()
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.fill(background)
        painter = QPainter(image)
        shown_at = renderer.story_index
        if step is None and steps:
            renderer.story_index = -1        # the intro comes before the story: no answer yet
        try:
            painter.scale(zoom, zoom)
            painter.translate(-rect.left(), -rect.top())
            renderer.paint(painter, step, frame.progress, background=False, region=rect,
                           compact=None if slide is None else overview_compact(step, zoom, scale))
        finally:
            painter.end()
            renderer.story_index = shown_at
        # The resolution is recorded only after painting: set before, it would make Qt draw
        # point-sized text `scale` times larger on top of painter.scale (render_image does the same).
        image.setDotsPerMeterX(dots_per_metre)
        image.setDotsPerMeterY(dots_per_metre)
        last = (key, image)
        yield image
