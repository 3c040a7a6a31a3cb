"""A card drawn compact: its name, its exact shape and a heat thumbnail of its value (and
of its gradient), each under a caption that says which it is ('value', 'grad'), a single
number or a tensor of one number repeated written out ('2', 'all 1'), for a zoom at which its numbers would be too small to read (below
legible.READABLE_PX); under the name and shape, the node's problems (a shape mismatch, a
NaN) in words, cut at a word with "…" (its tooltip and the status bar say them whole).
The text is set in screen pixels, so it stays legible however far out the view is; where
the card on screen is narrower than its name, the name's plate stands out of it. Fit to
Window shows every node this way when they only fit far out."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPen, QTransform

from ..graph.tensors import dims
from ..story.numbers import number_format
from . import heat_layout, legible, preview, text
from .cards import CORNER_R, dead_mark, mark_key, ports_height

SHAPE_PT = 7.0                     # 9.3 pixels at 96 dpi: legible.READABLE_PX as a font's size
PAD = 4.0                          # pixels around the text
THUMB_MIN = 6.0                    # a thumbnail smaller than this (pixels) is left out
PROBLEM_LINES = 3                  # a card's problems take at most this many lines
# The least width (pixels) of a plate with problems: three lines of it hold a matmul's inputs
# and shapes ('⚠ relu (a) 2×4, W2 (b) 3×2: matmul shapes do not match'); the name's width
# alone (49 px, 5 zoom notches out of Fit to Window) held 'relu (a) 2×4, W2 …'.
PROBLEM_W = 110.0


def type_pt(scale=1.0):
    """The point size of a compact card's text at `scale` (as label_lines takes it): its
    digits and capitals at least legible.READABLE_PX tall as a reader measures them
    (text.glyph_pt); SHAPE_PT's 9.3 px font wrote a shape's digits 7.1 px tall at Fit to Window."""
    return max(SHAPE_PT * scale, text.glyph_pt(legible.READABLE_PX))


def label_lines(card, node, scale=1.0):
    """[(text, font, colour key)]: the node's name (its label, else its id: two matmuls
    are told apart) and the exact shape of its value (`2×3`, `scalar`; without a value,
    its op, `matmul`, or its kind), as the compact card writes them; and a relu's units
    that are off ('✕ off: units 0, 1'), which the full card marks too (the relu lesson's
    words promise the mark: at Fit to Window its compact cards had none). `scale`: the
    type's size over the least legible one (presentation mode reads from the back row)."""
    shape = dims(np.shape(card.value)) if card.value is not None else (node.op or node.kind)
    lines = [(node.label or node.id, text.sans(type_pt(scale), bold=True), "header_text"),
             (shape, text.sans(type_pt(scale)), "muted")]
    mark = dead_mark(node, card.value, short=True) if card.mark else ""
    return lines + ([(mark, text.sans(type_pt(scale)), mark_key(mark))] if mark else [])


def problem_font(scale=1.0):
    """The type of a compact card's problems: as legible as its name and shape."""
    return text.sans(type_pt(scale))


def problem_texts(problems):
    """What a compact card writes of its `problems` (graph Problems): each one's essentials
    first (Problem.brief: the inputs and their shapes, then what is wrong), else its message.
    The whole message was cut before its shapes, which are what the reader must mend."""
    return tuple(p.brief or p.message for p in problems)


def problem_lines(problems, width_px, dpi=96.0, scale=1.0):
    """The lines a compact card `width_px` wide on screen writes its `problems` (messages)
    in: each '⚠' and its words (the sign held to the first), wrapped, at most PROBLEM_LINES, the last cut at a word
    and ending "…" where words are left out (a problem's words under a compact card were
    the full card's, 8.5 pt scaled down to 6 px, and ran under the next card)."""
    if not problems:
        return []
    room = max(THUMB_MIN, width_px - 2 * PAD) * 96.0 / dpi
    return text.wrap(problem_font(scale), "\n".join("⚠\u00a0" + p for p in problems), room, PROBLEM_LINES)


def _problems_h(problems, width_px, dpi, scale):
    """The height (pixels) of `problem_lines` under the label lines, with a gap above."""
    lines = problem_lines(problems, width_px, dpi, scale)
    return len(lines) * text.metrics(problem_font(scale)).height() * dpi / 96.0 + (PAD / 2 if lines else 0.0)


def label_size(card, node, dpi=96.0, scale=1.0, problems=(), box_w=0.0):
    """(width, height) in pixels of the compact card's label block: its lines, its
    `problems`' lines (wrapped to that width, at least PROBLEM_W, or the card's on screen,
    `box_w`) and, when the
    card has numbers, a band for their thumbnails (or a scalar's number), so a card drawn
    shorter than that still shows them on its plate (a 1×36 vector lost its picture)."""
    lines = label_lines(card, node, scale)
    width = max(text.width(font, line) for line, font, _ in lines) * dpi / 96.0 + 2 * PAD
    if problems:
        width = max(width, PROBLEM_W * scale * dpi / 96.0)
    height = sum(text.metrics(font).height() for _, font, _ in lines) * dpi / 96.0 + 2 * PAD
    height += _problems_h(problems, max(width, box_w), dpi, scale)
    arrays = [s for s in card.sections if s.array is not None]
    if arrays:
        number_font = text.mono(type_pt(scale), bold=True)
        number_h = text.metrics(number_font).height() * dpi / 96.0
        height += _caption_h(dpi, scale) + max(THUMB_MIN, number_h) + PAD
        widest = numbers_w(card, scale) * dpi / 96.0
        if widest:
            width = max(width, math.ceil(widest) * len(arrays) + PAD * (len(arrays) + 1))
    return width, height


def numbers_w(card, scale=1.0):
    """The width (pixels at 96 dpi) of the widest number `card` drawn compact writes instead
    of a thumbnail ('2', 'all 0.000'), 0 for none: never shrunk under legible, its slot is
    as wide as it, so its plate's width depends on it (the canvas paints the plate again
    when it changes)."""
    number_font = text.mono(type_pt(scale), bold=True)
    numbers = [said(s.array, s.preview) for s in card.sections if s.array is not None]
    return max((text.width(number_font, n) for n in numbers if n), default=0.0)


def overhang(card, node, zoom, dpi=96.0, scale=1.0, problems=()):
    """(sideways, downwards) in scene units by which the label's plate stands out of the
    card at `zoom` (0 where the card on screen is large enough)."""
    width, height = label_size(card, node, dpi, scale, problems, card.width * zoom)
    return (max(0.0, (width - card.width * zoom) / 2) / zoom,
            max(0.0, height - card.height * zoom) / zoom)


def content_px(card, node, zoom, dpi=96.0, scale=1.0, pending=frozenset(), problems=()):
    """How tall (pixels) the compact card's content is at `zoom`: its name and shape, its
    `problems`' lines, and under them its thumbnails as `paint` draws them in its width
    (each as tall as that width makes it, a single number a line; none of a gradient
    `pending`), with a margin; at least its plate (`label_size`)."""
    width, least = label_size(card, node, dpi, scale, problems, card.width * zoom)
    arrays = [(s.array, s.preview) for s in card.sections
              if s.array is not None and not (s.colour == "gradient" and s.port in pending)]
    if not arrays:
        return least
    inner = max(width, card.width * zoom) - 2 * PAD
    slot = (inner - PAD * (len(arrays) - 1)) / len(arrays)
    number_h = text.metrics(text.mono(type_pt(scale), bold=True)).height() * dpi / 96.0
    band = THUMB_MIN
    for array, shown in arrays:
        grid = None if said(array, shown) else _grid(array, shown)
        band = max(band, number_h if grid is None else max(2.0, slot * grid[0].shape[0] / grid[0].shape[1]))
    return max(least, _label_block(dpi, scale, len(label_lines(card, node, scale))) + _problems_h(problems, max(width, card.width * zoom), dpi, scale)
               + PAD + _caption_h(dpi, scale) + band)


def needed_height(card, node, zoom, dpi=96.0, scale=1.0, pending=frozenset(), problems=()):
    """The height (scene units) of `card` drawn compact at `zoom`: what its content needs
    (`content_px`), no empty body under it (the tiny CNN's 'filters w' kept its full
    card's height, three quarters of it blank), never taller than the card measured in
    full (`card.full`) but by its `problems`' lines (drawn in full, they stand under it),
    never shorter than its ports need."""
    full = card.full or card
    need = math.ceil(content_px(full, node, zoom, dpi, scale, pending, problems) / zoom)
    said = math.ceil(_problems_h(problems, max(label_size(full, node, dpi, scale)[0], full.width * zoom),
                                 dpi, scale) / zoom)
    return min(full.height + said, max(need, math.ceil(ports_height(full.n_inputs, full.n_outputs))))


_THUMBNAILS = {}   # (id of the array, colour map) -> (the array, its picture): the last few
THUMBNAILS_KEPT = 512


def thumbnail(array, theme, shown=None):
    """The heat picture of `array` (one pixel a cell, diverging around zero), or None.
    `shown`: the card's picture of it; a tile picture (an NHWC map, a filter, a sequence)
    gives its tiles side by side, a pixel apart, as the full card lays them out, so a
    feature map reads as images rather than as one flattened strip. Kept for the arrays
    last drawn: a compact canvas repaints every card on each zoom step."""
    if array is None or np.size(array) == 0:
        return None
    tiled = shown if getattr(shown, "kind", None) == "tiles" else None
    key = (id(array), theme.diverging, tiled is not None and tiled.layout)
    kept = _THUMBNAILS.get(key)
    if kept is not None and kept[0] is array:
        return kept[1]
    image = _thumbnail(array, theme, tiled)
    if len(_THUMBNAILS) >= THUMBNAILS_KEPT:
        _THUMBNAILS.pop(next(iter(_THUMBNAILS)))
    _THUMBNAILS[key] = (array, image)   # (the array is held, so its id is not reused meanwhile)
    return image


def _tile_grid(tiled):
    """The tiles of a tile picture (the ones it shows) in one block, NaN between them."""
    rows = [r for r in tiled.rows if r is not None]
    cols = [c for c in tiled.cols if c is not None]
    h, w = tiled.tiles.shape[2:]
    block = np.full((len(rows) * (h + 1) - 1, len(cols) * (w + 1) - 1), np.nan)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            block[i * (h + 1):i * (h + 1) + h, j * (w + 1):j * (w + 1) + w] = tiled.tiles[r, c]
    return block, len(rows) * len(cols) * h * w


def _grid(array, shown=None):
    """(the grid of numbers the thumbnail of `array` pictures, its count of real cells), or
    None when they are not numbers (a string tensor). `shown`: as `thumbnail` takes it."""
    if array is None or np.size(array) == 0:
        return None
    try:
        if getattr(shown, "kind", None) == "tiles":
            return _tile_grid(shown)
        return heat_layout.heat_grid(np.asarray(array, dtype=np.float64))
    except (TypeError, ValueError):
        return None


def _thumbnail(array, theme, tiled=None):
    found = _grid(array, tiled)
    if found is None:
        return None
    grid, real = found
    rgb, _ = preview.diverging_rgb(grid, theme.diverging)
    rows, cols = grid.shape
    rgba = np.empty((rows, cols, 4), np.uint8)
    rgba[..., :3] = rgb
    rgba[..., 3] = np.where(np.isnan(grid), 0, 255) if real < grid.size else 255
    return preview.rgba_image(rgba)


def paint(painter, renderer, nid, pending=frozenset(), scale=1.0, thumbnails=True, problems=(), warning=False):
    """Paint card `nid` compact where `renderer` places it; `painter` is in scene
    coordinates, at any zoom. `pending`: source ports whose gradient the story has not
    reached (their thumbnail is left out, as the full card says "pending"); `scale`: as
    label_lines takes it. `thumbnails`: False leaves them to `paint_thumbnails` (the
    canvas keeps them in a picture of their own, drawn again when only numbers change).
    `problems`: the node's problems' messages (the canvas's; an export shows none), in
    the error's colour, or with `warning` (they are all warnings: a NaN) the warning's."""
    t, card = renderer.theme, renderer.cards[nid]
    node = renderer.doc.nodes[nid]
    box = painter.worldTransform().mapRect(renderer.rect(nid))
    dpi = _dpi(painter)
    painter.save()
    painter.setWorldTransform(QTransform())   # from here on, screen pixels
    painter.setRenderHint(painter.RenderHint.Antialiasing, True)
    radius = min(CORNER_R, box.height() / 4)
    painter.setPen(QPen(QColor(t.card_border), 1.0))
    painter.setBrush(QColor(t.card))
    painter.drawRoundedRect(box, radius, radius)
    plate = _plate(card, node, box, dpi, scale, problems)
    if plate != box:   # the name (or the thumbnails' band) stands out of a small card
        painter.drawRoundedRect(plate, radius, radius)
    labels = label_lines(card, node, scale)
    name_h = text.metrics(labels[0][1]).height() * dpi / 96.0 + PAD
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(t.header.get(node.kind, t.header.get("op", "#1565c0"))))
    painter.drawRoundedRect(QRectF(plate.left(), plate.top(), plate.width(), name_h), radius, radius)
    y = plate.top() + PAD / 2
    for line, font, colour in labels:
        line_h = text.metrics(font).height() * dpi / 96.0
        painter.setFont(font)
        painter.setPen(QColor(getattr(t, colour)))
        painter.drawText(QRectF(plate.left(), y, plate.width(), line_h), Qt.AlignmentFlag.AlignCenter, line)
        y += line_h + PAD / 2
    lines = problem_lines(problems, plate.width(), dpi, scale)
    if lines:
        font = problem_font(scale)
        line_h = text.metrics(font).height() * dpi / 96.0
        painter.setFont(font)
        painter.setPen(QColor(t.warning if warning else t.error))
        for line in lines:
            painter.drawText(QRectF(plate.left() + PAD, y, plate.width() - 2 * PAD, line_h),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
            y += line_h
    if thumbnails:
        _paint_thumbnails(painter, t, card, _thumbnail_area(plate, box.top() + _label_block(dpi, scale, len(labels))
                                                            + _problems_h(problems, plate.width(), dpi, scale)),
                          pending, dpi, scale)
    painter.restore()


def paint_thumbnails(painter, renderer, nid, pending=frozenset(), scale=1.0, problems=()):
    """The thumbnails `paint` draws on card `nid` (and only them), where it draws them."""
    t, card = renderer.theme, renderer.cards[nid]
    box = painter.worldTransform().mapRect(renderer.rect(nid))
    dpi = _dpi(painter)
    plate = _plate(card, renderer.doc.nodes[nid], box, dpi, scale, problems)
    y = box.top() + _label_block(dpi, scale, len(label_lines(card, renderer.doc.nodes[nid], scale))) \
        + _problems_h(problems, plate.width(), dpi, scale)
    painter.save()
    painter.setWorldTransform(QTransform())
    painter.setRenderHint(painter.RenderHint.Antialiasing, True)
    _paint_thumbnails(painter, t, card, _thumbnail_area(plate, y), pending, dpi, scale)
    painter.restore()


def thumbnails_look(card, theme, pending=frozenset()):
    """What `paint_thumbnails` draws of `card`, as a value two cards compare by: the
    single numbers' text and each thumbnail's colours. Numbers that change without
    changing it (a run's later steps, a value scaled) need no new picture."""
    look = []
    for s in card.sections:
        if s.array is None or s.colour == "gradient" and s.port in pending:
            look.append(None)
            continue
        number = said(s.array, s.preview)
        image = None if number else thumbnail(s.array, theme, s.preview)
        look.append((s.colour, number, None if image is None else (image.width(), image.height(),
                                                                  bytes(image.constBits()))))
    return look


@lru_cache(maxsize=64)
def _label_block(dpi, scale, count=2):
    """Where `paint`'s loop over the `count` label lines (`label_lines`: the name, then
    lines in the shape's type) leaves y, below the card's top (pixels): the lines' fonts'
    heights, whatever their text."""
    fonts = [text.sans(type_pt(scale), bold=True)] + [text.sans(type_pt(scale))] * (count - 1)
    return PAD / 2 + sum(text.metrics(font).height() * dpi / 96.0 + PAD / 2 for font in fonts)


def said(array, shown=None):
    """The text a compact card writes for `array` instead of a heat picture, or None: a
    single number as its card writes it (`shown`, its picture there), a tensor of one
    number repeated as 'all 3' (its thumbnail was a flat block of one colour, or an
    empty box for zeros: it said nothing of the number), in the format its card imposes
    (a zero matmul read 'all 0' beside cards that read 0.000)."""
    if np.size(array) == 1:
        return getattr(shown, "text", None)
    a = np.asarray(array)
    if a.size == 0 or a.dtype.kind not in "iufb":
        return None
    first = a.reshape(-1)[0]
    if not np.isfinite(first) or not np.all(a == first):
        return None
    return f"all {number_format(a.reshape(-1)[:1], spec=getattr(shown, 'spec', None))(first.item())}"


def captions(card, pending=frozenset()):
    """What each thumbnail or number of the compact card is, in the order drawn: 'value',
    'grad' (with the output's name where the card has several gradients)."""
    shown = [s for s in card.sections
             if s.array is not None and not (s.colour == "gradient" and s.port in pending)]
    several = sum(s.colour == "gradient" for s in card.sections) > 1
    return [("value" if s.colour == "value" else
             f"grad {_own_name(s.label.rpartition('/∂')[2], card.title)}" if several else "grad")
            for s in shown]


def whole_words(font, caption, room):
    """As many of `caption`'s words as fit `room` (pixels at 96 dpi), whole: 'grad kernel',
    else 'grad', else nothing (its thumbnail's frame is in its section's colour). Cut letters
    said nothing: the tiny CNN's dense card on a 1280 x 800 title slide read 'v… g… g…'."""
    words = caption.split()
    while words and text.width(font, " ".join(words)) > room:
        words.pop()
    return " ".join(words)


def fitted_captions(card, pending, font, room):
    """`captions` as written in slots `room` wide (pixels at 96 dpi): each its `whole_words`;
    where two gradients' would then read alike ('grad', 'grad'), each its last word, the
    name that tells them apart ('kernel', 'bias': the frame's colour says gradient)."""
    names = captions(card, pending)
    cut = [whole_words(font, name, room) for name in names]
    return [short if short == name or cut.count(short) < 2 else whole_words(font, name.split()[-1], room)
            for name, short in zip(names, cut)]


def _own_name(port, title):
    """A port's name on its own card: 'kernel' for layer.kernel on the card of layer."""
    return port[len(title) + 1:] if port.startswith(title + ".") else port


@lru_cache(maxsize=64)
def _caption_h(dpi, scale):
    """The height (pixels) of the captions' row above the thumbnails."""
    return text.metrics(text.sans(type_pt(scale))).height() * dpi / 96.0


def _dpi(painter):
    return painter.device().logicalDpiY() if painter.device() is not None else 96.0


def _plate(card, node, box, dpi, scale, problems=()):
    """What the compact card covers on screen (pixels): its box, or the plate that stands
    out of a box too small for the name, the shape, the problems and the thumbnails' band."""
    width, height = label_size(card, node, dpi, scale, problems, box.width())
    if width <= box.width() and height <= box.height():
        return box
    return QRectF(box.center().x() - max(width, box.width()) / 2, box.top(), max(width, box.width()),
                  max(height, box.height()))


def _thumbnail_area(box, y):
    """Where the thumbnails go (pixels): under the label block that ends at `y`."""
    return QRectF(box.left() + PAD, y + PAD / 2, box.width() - 2 * PAD, box.bottom() - y - PAD)


def _paint_thumbnails(painter, theme, card, area, pending, dpi=96.0, scale=1.0):
    """The value's and the gradients' heat pictures side by side in `area` (pixels), each
    framed in its section's colour, cells square where the room allows. A single number is
    written instead, in the card's format and legible type: one cell's colour says nothing
    (a scalar was a solid red square)."""
    shown = [(s.array, s.colour, s.preview) for s in card.sections
             if s.array is not None and not (s.colour == "gradient" and s.port in pending)]
    caption_h = _caption_h(dpi, scale)
    if not shown or area.height() < caption_h + THUMB_MIN or area.width() < THUMB_MIN * len(shown):
        return
    slot = (area.width() - PAD * (len(shown) - 1)) / len(shown)
    caption_font = text.sans(type_pt(scale))
    for k, (caption, (_, colour, _)) in enumerate(zip(fitted_captions(card, pending, caption_font, slot * 96.0 / dpi),
                                                      shown)):
        painter.setFont(caption_font)
        painter.setPen(QColor(getattr(theme, colour)))
        painter.drawText(QRectF(area.left() + k * (slot + PAD), area.top(), slot, caption_h),
                         Qt.AlignmentFlag.AlignCenter, caption)
    area = area.adjusted(0, caption_h, 0, 0)
    painter.setRenderHint(painter.RenderHint.SmoothPixmapTransform, False)
    number_font = text.mono(type_pt(scale), bold=True)
    line_h = text.metrics(number_font).height() * dpi / 96.0
    for k, (array, colour, picture) in enumerate(shown):
        number = said(array, picture)
        fits = number and text.width(number_font, number) * dpi / 96.0 <= slot
        if number and line_h <= area.height() and fits:
            # a scalar's one cell of colour says nothing: its number (label_size fits it)
            painter.setFont(number_font)
            painter.setPen(QColor(getattr(theme, colour)))
            painter.drawText(QRectF(area.left() + k * (slot + PAD), area.top(), slot, line_h),
                             Qt.AlignmentFlag.AlignCenter, number)
            continue
        image = thumbnail(array, theme, picture)
        if image is None:
            continue
        cell = min(slot / image.width(), area.height() / image.height())
        w, h = image.width() * cell, image.height() * cell
        if min(w, h) < 2:
            w, h = max(w, 2.0), max(h, 2.0)
        target = QRectF(area.left() + k * (slot + PAD) + (slot - w) / 2, area.top(), w, h)
        painter.drawImage(target, image)
        painter.setPen(QPen(QColor(getattr(theme, colour)), 1.0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(target)
