"""The backward pass as an animation: frames, a numbered PNG sequence, APNG and GIF.

QtGui and numpy only. The PNG frames come from render.png; the APNG container
(acTL/fcTL/fdAT) and the GIF89a encoder (palette, LZW) are written here, so no imaging library is
needed. Both animated formats store only the rectangle that changed since the previous
frame, and merge identical consecutive frames into one longer frame: a story step
that holds still costs one frame, not many. The camera's glides between steps redraw whole
frames: they are what a file's size grows with, so the camera moves only when a step needs
it, and a short way takes fewer frames.
"""
from __future__ import annotations

import struct
import tempfile
import zlib
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from ..engine import kernels
from ..graph import evaluate
from ..graph.atomic import write_bytes, write_file
from ..story import build
from . import legible, png, text
from .cards import BADGE_H
from .export import CSS_DPI, ensure_app
from .involved import involved_nodes, step_groups
from .layout import layout
from .painter import Renderer
from .themes import get_theme

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


CENTRED = 0.08   # how far off centre (a share of the view) a held frame may show its picture


def off_centre(view, drawn):
    """How far from centred `drawn` (what a frame draws, its picture's bounds) sits in
    `view`, the larger of the two directions, a share of the view; where `drawn` is larger
    than the view in a direction: 0 when it fills the view that way, else 1."""
    def along(v0, v1, d0, d1):
        if d1 - d0 >= v1 - v0:
            return 0.0 if d0 <= v0 + 1e-6 and d1 >= v1 - 1e-6 else 1.0
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
    numbers still read. It is placed on what this frame draws (`renderer.bounds(step)`):
    centred on it where that is smaller than the view, else inside it, so that no empty
    band shows. (Kept inside the union of every step's picture, lesson 1's first step
    left the slide's right third blank, where only a later step's rule card goes, and
    Newton's opening frame sat in the top third.) `last` (the framing of the step before)
    is kept where it holds that much whole, cuts no card, shows this frame's picture
    centred (`off_centre`, within CENTRED) and draws it at least 2/3 as large: the camera
    moves only when the step needs it (Newton's lesson: 6 moves in 18 steps)."""
    step = renderer.step_at(step)
    width, height = slide
    widest = width * scale / legible.readable_zoom()     # the least zoom at which numbers read
    focus = [renderer.bounds(None)] if step is None else _step_focus(renderer, step)
    least = width / WHOLE_ZOOM if step is None else width
    cards = _cards(renderer, step)
    drawn = renderer.bounds(step)

    def size(rect):
        return max(least, rect.width(), rect.height() * width / height)

    def cut(view):
        return [card for card in cards if card.intersects(view) and not view.contains(card)]

    for rect in focus:
        rect = rect.adjusted(-SLIDE_MARGIN, -SLIDE_MARGIN, SLIDE_MARGIN, SLIDE_MARGIN)
        w = size(rect)
        if w <= widest:
            break
    if last is not None and step is not None and last.contains(rect) and last.width() <= 1.5 * w \
            and not cut(last) and off_centre(last, drawn) <= CENTRED:
        return QRectF(last)
    while True:
        h = w * height / width
        view = QRectF(_placed(rect.center().x(), w, drawn.left(), drawn.right()),
                      _placed(rect.center().y(), h, drawn.top(), drawn.bottom()), w, h)
        grown = rect
        for card in cut(view):
            grown = grown.united(card.adjusted(-SLIDE_MARGIN, -SLIDE_MARGIN, SLIDE_MARGIN, SLIDE_MARGIN))
        if grown == rect or size(grown) > widest:
            return view
        rect, w = grown, size(grown)


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
    return max(max(abs(u.left() - v.left()), abs(u.top() - v.top()), abs(u.right() - v.right()),
                   abs(u.bottom() - v.bottom())) / min(u.width(), v.width())
               for u, v in zip(views, views[1:]))


def glide_frames(a, b, frames):
    """Of `frames` that a glide from view `a` to view `b` may take, how many it takes: the
    fewest in which no edge of the view moves more than GLIDE_STEP of it in a frame (all of
    them for a way too far for that). Each glide frame redraws the whole picture (50-75 kB
    of a 1920 x 1080 GIF): a short way in a few frames, not ten (Newton's lesson: 55 glide
    frames, 3.7 of its 4.7 MB; now 30)."""
    if a == b:
        return 0
    return next((n for n in range(1, frames) if _glide_step(a, b, n) <= GLIDE_STEP), frames)


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


# -- helpers ----------------------------------------------------------------------------
_rgb = png.rgb_array


def _changed_box(a, b):
    """(x, y, w, h) of the pixels that differ between two frames, or None if none do."""
    diff = (a != b).reshape(a.shape[0], -1)   # rows of pixels' channels side by side
    rows = np.flatnonzero(diff.any(axis=1))
    if rows.size == 0:
        return None
    top, bottom = int(rows[0]), int(rows[-1])
    cols = diff[top:bottom + 1].any(axis=0)    # only the rows that changed: few, for a moving arrow
    if a.ndim == 3:
        cols = cols.reshape(-1, a.shape[2]).any(axis=1)
    cols = np.flatnonzero(cols)
    return int(cols[0]), top, int(cols[-1] - cols[0] + 1), bottom - top + 1


class Spool:
    """The distinct frames of an animation, drawn once and kept as what each changes: an
    animated file's palette and its frame count go before its frames, and whether a frame
    is one the camera passes through depends on the next one, so a writer reads its frames
    twice. Kept whole they took 6.2 MB each at 1920 x 1080 (Newton's lesson: 1.3 GB,
    lesson 14: 2 GB, an out-of-memory kill on a laptop); here each frame's changed
    rectangle (`_changed_box`) is deflated into an unnamed temporary file (gone with the
    process, whatever ends it), and `arrays()` rebuilds the frames one at a time.

    `repeats[k]`: how many consecutive frames of the source frame k stands for (identical
    ones merged; a held frame, the same image again, is not even converted); `boxes[k]`:
    the rectangle frame k changes (the first: all of it); `passing`: `passing_frames`."""

    def __init__(self, frames, convert):
        self.repeats, self.boxes, self._spans = [], [], []
        self._file = tempfile.TemporaryFile()
        try:
            self._read(frames, convert)
        except BaseException:
            self._file.close()
            raise
        self.passing = passing_frames(self.shape, self.repeats, self.boxes) if self.repeats else []

    def _read(self, frames, convert):
        last = previous = None
        for image in frames:
            if self.repeats and image is last:
                self.repeats[-1] += 1
                continue
            last = image
            array = convert(image)
            if previous is None:
                self.shape = array.shape
                if array.ndim != 3 or array.shape[2] != 3:
                    raise ValueError("every frame must have the size of the first")
                box = (0, 0, array.shape[1], array.shape[0])
            elif array.shape != self.shape:
                raise ValueError("every frame must have the size of the first")
            else:
                box = _changed_box(previous, array)
                if box is None:
                    self.repeats[-1] += 1
                    continue
            x, y, w, h = box
            data = zlib.compress(np.ascontiguousarray(array[y:y + h, x:x + w]).tobytes(), 1)
            self._spans.append(len(data))
            self._file.write(data)
            self.repeats.append(1)
            self.boxes.append(box)
            previous = array

    def __len__(self):
        return len(self.repeats)

    def arrays(self):
        """Each distinct frame, (height, width, 3) uint8, in order: a new array each (the
        writer compares a frame with the one before)."""
        self._file.seek(0)
        array = np.zeros(self.shape, np.uint8)
        for (x, y, w, h), span in zip(self.boxes, self._spans):
            array = array.copy()
            array[y:y + h, x:x + w] = np.frombuffer(zlib.decompress(self._file.read(span)),
                                                    np.uint8).reshape(h, w, 3)
            yield array

    def sampled(self):
        """Every eighth or so of the frames: what a palette is made from."""
        every = max(1, len(self) // 8)
        return (a for k, a in enumerate(self.arrays()) if k % every == 0)

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# A frame the camera passes through is on screen for one frame (1/25 s) and redraws the
# whole picture: drawn with PASSING_COLOURS colours (the theme's flat colours, then the
# most used) it looks the same in passing and costs a fifth less in a GIF (Newton's
# glides: 70 kB a frame), half in an APNG. Every frame that stays, and every frame of the
# cotangent's motion, keeps all its colours.
PASSING_COLOURS = 32
PASSING_SHARE = 0.5    # a frame changes the whole picture when its change covers this much of it


def passing_frames(shape, repeats, boxes):
    """[bool] for each distinct frame of `shape` (shown `repeats[k]` times; `boxes[k]`: the
    change into frame k, None for none): the frames the camera passes through: shown once,
    between two changes that each cover at least PASSING_SHARE of the picture."""
    height, width = shape[:2]

    def whole(box):
        return box is not None and box[2] * box[3] >= PASSING_SHARE * width * height

    return [0 < k < len(repeats) - 1 and repeat == 1 and whole(boxes[k]) and whole(boxes[k + 1])
            for k, repeat in enumerate(repeats)]


# -- PNG sequence ----------------------------------------------------------------------
def write_png_sequence(frames, directory, stem="frame"):
    """stem_0001.png, stem_0002.png ... in `directory` (made if missing); returns the paths.

    Every frame is written, held frames too, so video tools can assume a constant rate.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    try:
        for i, image in enumerate(frames, start=1):
            path = directory / f"{stem}_{i:04d}.png"
            write_bytes(path, png.encode(png.rgb_array(image)))
            paths.append(path)
    except BaseException:   # cancelled or failed: no half sequence left behind
        for path in paths:
            try:
                path.unlink()
            except OSError:
                pass
        raise
    return paths


# -- APNG --------------------------------------------------------------------------------
# A gliding camera redraws whole frames: deflate level 6 stores them a quarter smaller than
# the PNG export's quick level 2 (Newton's lesson, one 1920 x 1080 frame: 74 kB for 100 kB).
APNG_LEVEL = 6

def write_apng(frames, path, fps=FPS, loop=0, keep=()):
    """An animated PNG: frame 0 is the full picture, later frames the changed rectangle.
    A frame the camera passes through (`passing_frames`) is drawn with PASSING_COLOURS
    colours (`adaptive_palette`, `keep`: hex colours it holds exactly); the others exact.

    Returns the number of frames written (identical consecutive frames are merged).
    """
    with Spool(frames, _rgb) as spool:
        if not len(spool):
            raise ValueError("no frames to write")
        return write_file(path, lambda f: _write_apng(f, spool, fps, loop, keep))


def _write_apng(f, spool, fps, loop, keep):
    frame_ms = 1000.0 / max(0.1, float(fps))
    height, width, _ = spool.shape
    if any(spool.passing):
        colours = adaptive_palette(spool.sampled(), size=PASSING_COLOURS, keep=keep)
        coarse = Quantizer(colours)
    seq = 0
    previous = None
    for index, (array, repeat) in enumerate(zip(spool.arrays(), spool.repeats)):
        if spool.passing[index]:
            array = colours[coarse(array)]
        box = (0, 0, width, height) if previous is None else _changed_box(previous, array) or (0, 0, 1, 1)
        x, y, w, h = box
        if index == 0:
            f.write(png.SIGNATURE)
            f.write(png.chunk(b"IHDR", png.header(width, height)))
            f.write(png.chunk(b"acTL", struct.pack(">II", len(spool), loop)))
        delay = max(1, round(frame_ms * repeat))
        f.write(png.chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, min(delay, 65535),
                                               1000, 0, 0)))
        seq += 1
        data = png.image_data(array[y:y + h, x:x + w], level=APNG_LEVEL)
        if index == 0:
            f.write(png.chunk(b"IDAT", data))
        else:
            f.write(png.chunk(b"fdAT", struct.pack(">I", seq) + data))
            seq += 1
        previous = array
    f.write(png.chunk(b"IEND", b""))
    return len(spool)


# -- GIF ---------------------------------------------------------------------------------
def _pack(rgb):
    return (rgb[..., 0].astype(np.uint32) << 16) | (rgb[..., 1].astype(np.uint32) << 8) | rgb[..., 2]


def theme_colours(theme):
    """The hex colours of a render theme (its flat colours, worth keeping exact in a GIF)."""
    t = get_theme(theme)
    out = []
    for value in vars(t).values():
        items = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else [value]
        out += [v for v in items if isinstance(v, str) and v.startswith("#") and len(v) == 7]
    return list(dict.fromkeys(out))


def adaptive_palette(samples, size=256, min_distance=10.0, keep=()):
    """Up to `size` colours: `keep` (hex colours) first, then the most frequent, skipping
    near-duplicates.

    The diagrams are flat colours plus anti-aliased edges, so the flat colours are
    exact and the edges fall on the nearest of a spread of in-between colours.
    """
    counts = {}
    for rgb in samples:
        values, n = np.unique(_pack(rgb).ravel(), return_counts=True)
        for v, c in zip(values.tolist(), n.tolist()):
            counts[v] = counts.get(v, 0) + c
    kept = [int(h[1:], 16) for h in keep][:size]
    ordered = np.array(kept + sorted(set(counts) - set(kept), key=counts.get, reverse=True), np.uint32)
    colours = np.stack([(ordered >> 16) & 255, (ordered >> 8) & 255, ordered & 255], axis=1).astype(np.float64)
    if len(colours) <= size:
        return colours.astype(np.uint8)
    chosen = [c for c in colours[:len(kept)]]
    for threshold in (min_distance, min_distance / 2, 0.0):
        for c in colours:
            if len(chosen) >= size:
                break
            if not chosen or np.min(np.sum((np.array(chosen) - c) ** 2, axis=1)) > threshold ** 2:
                chosen.append(c)
        if len(chosen) >= size:
            break
    return np.array(chosen[:size], np.uint8)


def quantize(rgb, palette):
    """Palette indices (uint8, (h, w)) of the nearest palette colour of every pixel."""
    values, inverse = np.unique(_pack(rgb).ravel(), return_inverse=True)
    return _nearest(values, palette)[inverse.reshape(-1)].reshape(rgb.shape[:2])


def _nearest(values, palette):
    """The index of the nearest `palette` colour of each packed colour in `values`."""
    colours = np.stack([(values >> 16) & 255, (values >> 8) & 255, values & 255], axis=1).astype(np.int32)
    pal = palette.astype(np.int32)
    nearest = np.empty(len(values), np.uint8)
    for start in range(0, len(values), 4096):
        block = colours[start:start + 4096]
        d = ((block[:, None, :] - pal[None, :, :]) ** 2).sum(axis=2)
        nearest[start:start + 4096] = d.argmin(axis=1)
    return nearest


class Quantizer:
    """`quantize` for the frames of one GIF: each colour's nearest palette entry is looked
    up once and kept in a table of every 24-bit colour (32 MB), so that a frame costs a
    lookup per pixel instead of sorting its colours again (np.unique): Newton's 193 frames
    at 1920 x 1080 were written in 47 s, now in 12 s."""
    UNKNOWN = 0xFFFF

    def __init__(self, palette):
        self.palette = palette
        self.table = np.full(1 << 24, self.UNKNOWN, np.uint16)

    def __call__(self, rgb):
        packed = _pack(rgb)
        found = self.table[packed]
        missing = found == self.UNKNOWN
        if missing.any():
            values = np.unique(packed[missing])
            self.table[values] = _nearest(values, self.palette)
            found = self.table[packed]
        return found.astype(np.uint8)


def _lzw_python(indices, min_code_size=8):
    """GIF LZW of a flat uint8 array: bytes (before splitting into sub-blocks)."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    bits = nbits = 0
    code_size = min_code_size + 1

    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += code_size
        while nbits >= 8:
            out.append(bits & 255)
            bits >>= 8
            nbits -= 8

    table = {}
    next_code = end + 1
    emit(clear)
    data = indices.tolist()
    if not data:
        emit(end)
        if nbits:
            out.append(bits & 255)
        return bytes(out)
    prefix = data[0]
    for c in data[1:]:
        key = (prefix << 8) | c
        code = table.get(key)
        if code is not None:
            prefix = code
            continue
        emit(prefix)
        table[key] = next_code
        if next_code == (1 << code_size) and code_size < 12:
            code_size += 1
        next_code += 1
        if next_code == 4096:
            emit(clear)
            table.clear()
            next_code = end + 1
            code_size = min_code_size + 1
        prefix = c
    emit(prefix)
    if next_code == (1 << code_size) and code_size < 12:   # the decoder adds one more entry here
        code_size += 1
    emit(end)
    if nbits:
        out.append(bits & 255)
    return bytes(out)


def _lzw_arrays(indices, min_code_size, child, out):
    """The same LZW with arrays only (numba compiles this); returns the byte count."""
    clear = 1 << min_code_size
    end = clear + 1
    code_size = min_code_size + 1
    next_code = end + 1
    bits = 0
    nbits = 0
    n = 0
    child[:] = -1
    # emit(clear)
    bits |= clear << nbits
    nbits += code_size
    while nbits >= 8:
        out[n] = bits & 255
        n += 1
        bits >>= 8
        nbits -= 8
    prefix = np.int64(indices[0])
    for i in range(1, indices.shape[0]):
        c = np.int64(indices[i])
        code = child[prefix * 256 + c]
        if code >= 0:
            prefix = np.int64(code)
            continue
        bits |= prefix << nbits
        nbits += code_size
        while nbits >= 8:
            out[n] = bits & 255
            n += 1
            bits >>= 8
            nbits -= 8
        child[prefix * 256 + c] = next_code
        if next_code == (1 << code_size) and code_size < 12:
            code_size += 1
        next_code += 1
        if next_code == 4096:
            bits |= clear << nbits
            nbits += code_size
            while nbits >= 8:
                out[n] = bits & 255
                n += 1
                bits >>= 8
                nbits -= 8
            child[:] = -1
            next_code = end + 1
            code_size = min_code_size + 1
        prefix = c
    bits |= prefix << nbits
    nbits += code_size
    if next_code == (1 << code_size) and code_size < 12:
        code_size += 1
    while nbits >= 8:
        out[n] = bits & 255
        n += 1
        bits >>= 8
        nbits -= 8
    bits |= end << nbits
    nbits += code_size
    while nbits > 0:
        out[n] = bits & 255
        n += 1
        bits >>= 8
        nbits -= 8
    return n


NUMBA_MIN_PIXELS = 20000
_LZW = kernels.BackgroundKernel(
    _lzw_arrays, lambda: [(np.zeros(16, np.uint8), 8, np.empty(4096 * 256, np.int32),
                           np.empty(48, np.uint8))])


def _lzw_kernel():
    """The numba-compiled LZW (loaded on a worker, see kernels.BackgroundKernel), or None:
    then the Python LZW codes the frame."""
    return _LZW.get()


def lzw_encode(indices, min_code_size=8):
    """GIF LZW code stream of palette indices (numba for large frames, Python otherwise)."""
    flat = np.ascontiguousarray(indices, np.uint8).ravel()
    kernel = _lzw_kernel() if flat.size >= NUMBA_MIN_PIXELS else None
    if kernel is None or flat.size == 0:
        return _lzw_python(flat, min_code_size)
    child = np.empty(4096 * 256, np.int32)
    out = np.empty(flat.size * 2 + 16, np.uint8)   # 12-bit codes: at most 1.5 bytes per pixel
    n = kernel(flat, min_code_size, child, out)
    return out[:n].tobytes()


def _sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        block = data[i:i + 255]
        out.append(len(block))
        out += block
    out.append(0)
    return bytes(out)


def write_gif(frames, path, fps=FPS, loop=0, palette=None, keep=()):
    """An animated GIF89a (one global palette, NETSCAPE2.0 looping, changed rectangles only).

    The palette is adaptive (see `adaptive_palette`); `keep` lists hex colours it must
    hold exactly, e.g. `theme_colours(theme)`. A frame the camera passes through
    (`passing_frames`) uses only its first PASSING_COLOURS.

    Returns the number of frames written (identical consecutive frames are merged).
    """
    with Spool(frames, _rgb) as spool:
        if not len(spool):
            raise ValueError("no frames to write")
        height, width, _ = spool.shape
        if width > 65535 or height > 65535:
            raise ValueError("a GIF is at most 65535 pixels wide and high")
        if palette is None:
            palette = adaptive_palette(spool.sampled(), keep=keep)
        return write_file(path, lambda f: _write_gif(f, spool, fps, loop, palette))


def _write_gif(f, spool, fps, loop, palette):
    height, width, _ = spool.shape
    boxes, passing = spool.boxes, spool.passing
    table = np.zeros((256, 3), np.uint8)
    table[:len(palette)] = palette
    centis = 100.0 / max(0.1, float(fps))
    nearest, coarse = Quantizer(palette), Quantizer(palette[:PASSING_COLOURS])
    f.write(b"GIF89a")
    f.write(struct.pack("<HHBBB", width, height, 0xF7, 0, 0))
    f.write(table.tobytes())
    f.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00")
    previous = None
    for k, (array, repeat) in enumerate(zip(spool.arrays(), spool.repeats)):
        # only the rectangle that changed is quantized again (the moving arrow); all of
        # the frame after one drawn coarse
        x, y, w, h = boxes[0] if k == 0 or passing[k - 1] else boxes[k] or (0, 0, 0, 0)
        indices = np.empty((height, width), np.uint8) if previous is None else previous.copy()
        indices[y:y + h, x:x + w] = (coarse if passing[k] else nearest)(array[y:y + h, x:x + w])
        box = boxes[0] if previous is None else _changed_box(previous, indices)
        if box is None:                  # differs only below the palette's resolution
            box = (0, 0, 1, 1)
        x, y, w, h = box
        delay = min(65535, max(2, round(centis * repeat)))
        f.write(b"\x21\xf9\x04" + struct.pack("<BHB", 0x04, delay, 0) + b"\x00")
        f.write(b"\x2c" + struct.pack("<HHHHB", x, y, w, h, 0))
        f.write(b"\x08")
        f.write(_sub_blocks(lzw_encode(indices[y:y + h, x:x + w], 8)))
        previous = indices
    f.write(b"\x3b")
    return len(spool)


def write_animation(frames, path, fps=FPS, theme=None):
    """By suffix: .gif, .png/.apng (APNG); returns the number of frames written."""
    suffix = Path(path).suffix.lower()
    if suffix == ".gif":
        return write_gif(frames, path, fps, keep=theme_colours(theme) if theme is not None else ())
    if suffix in (".png", ".apng"):
        return write_apng(frames, path, fps, keep=theme_colours(theme) if theme is not None else ())
    raise ValueError(f"cannot write an animation to '{Path(path).name}': use .gif or .png (APNG)")
