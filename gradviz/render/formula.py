"""The formula card of a story step: upstream ⊗ local rule = contribution, with every
number the rule uses.

The card is laid out once per step (`FormulaLayout`): title, caption and formula
wrapped to the card's width, then the row of parts flowing onto more rows when it is
too wide. The title and caption are written only where nothing else shows them (an
export); the app's player bar and presentation band write them, so its canvas's
card leaves them out (`FormulaCard.formula_heading`). Painting, the card's bounds and the player's element highlights all read the
same layout, so they cannot disagree.
"""
from __future__ import annotations

import bisect
import functools
import re

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen

from ..graph.structure import filter_ports
from ..story.formatting import number
from ..story.formula_parts import formula_line, formula_parts, operand_title, shown_caption
from ..story.model import number_spec
from ..story.rule_pictures import aligned
from . import leaders, legible, preview, text, tiles
from .cards import BADGE_H, LINE_H, PAD

CARD_GAP = 18.0
FORMULA_MIN_W = 260.0
FORMULA_MAX_W = 780.0
RULE_W = 220.0            # a local rule longer than this wraps onto more lines
PART_GAP = 8.0
OP_W = 22.0
NAME_GAP = 7.0            # between "x =" and the operand's picture
RESULTS = ("contribution", "sum", "gradient")
TILE_SHRINK = (1.0, 5 / 6, 2 / 3)   # a formula card's tiles, tried in turn to keep its equation on one row
RULE_TILE = (120.0, 108.0)   # a rule picture's tiles may be bigger than a card's: 9 x 9 cells of 12
RULE_ROOM = (FORMULA_MAX_W - 2 * PAD, 180.0)   # one whose numbers then read at the zoom the player
                                               # shows steps at grows its cells within this, while
GROWN_MAX_H = 480.0                            # its card stays this short: with the step's cards
                                               # it frames at 1280x800 (tests/app/player/test_step_framing)


def _fonts():
    # label: the words under each part (a fan-in's 'from the relu grad inside t1.gradient(out, x)',
    # where its summand comes from) as large as the card's caption and in its text's colour: in
    # 8.5 pt grey they read smaller than the numbers above them (auditor, lesson 13 at 1024 x 768)
    return dict(title=text.sans(10, bold=True), caption=text.sans(9), formula=text.mono(9.5, bold=True),
                rule=text.mono(9.5), label=text.sans(9), op=text.sans(13, bold=True),
                word=text.sans(9, bold=True), name=text.mono(9.5, bold=True))


def _reads(shown, zoom):
    """Does a tile picture write its numbers at `zoom` (as Tiles paints them)?"""
    return shown.kind == "tiles" and shown.writes_numbers(zoom)


class FormulaLayout:
    """Where everything of one step's formula card goes, relative to its top-left corner."""

    def __init__(self, step, n_steps, filters=frozenset(), heading=True, shared=None):
        f = _fonts()
        self.heading = heading   # the step's title and caption on the card
        self.fonts = f
        self.parts = formula_parts(step)
        self.formula_text = formula_line(step, self.parts)   # the line above the row, as written
        self.caption_of = functools.partial(shown_caption, step)   # the words under a part
        self._filter_port = getattr(step, "port", None) in filters
        self._kind = getattr(step, "kind", "")
        # One format for the card's tensors (0.000 beside 0.052, not 0): see preview.shared_spec;
        # `shared`, its story's (Story.number_spec): a tensor reads one way at every step
        self.spec = shared if shared is not None else \
            preview.shared_spec(part[1] for part in self.parts if part[0] in ("array", "picture"))
        # Pooling's pictures correspond cell by cell with the upstream and contribution beside
        # them: all at the cards' scale. Others grow where their numbers then read.
        self._room = None if aligned(step) else RULE_ROOM
        # the rule drawn with numbers that read (conv's): the equation's arrays take that form
        self._numbered = self._room is not None and any(
            part[0] == "picture" and _reads(self._rule_picture(part[1], part[3]), legible.readable_zoom())
            for part in self.parts)
        for shrink in TILE_SHRINK:      # the equation on one row: its tiles smaller before it wraps
            self._tile = (tiles.TILE_W * shrink, tiles.TILE_H * shrink)
            self._lay_out(step, n_steps, f)
            if self._equation_w <= FORMULA_MAX_W - 2 * PAD:
                break
        if self._room and self.height > GROWN_MAX_H and any(
                part[0] == "picture" and getattr(shown, "grown", False) for part, shown, *_ in self.placed):
            self._room = None       # too tall to frame with the step's cards: the pictures keep their size
            self._lay_out(step, n_steps, f)
        self._numbers_from = sorted(shown.numbers_from for part, shown, *_ in self.placed
                                    if part[0] in ("array", "picture") and shown.kind == "tiles")

    def _lay_out(self, step, n_steps, f):
        items, row_w = self._items(f)
        title = getattr(step, "title", "") or getattr(step, "kind", "")
        index = getattr(step, "index", None)
        if index is not None and n_steps:
            title = f"{index + 1}/{n_steps}  {title}"
        title = title if self.heading else ""
        natural = max([row_w, text.width(f["title"], title)] + [0.0])
        self.width = max(FORMULA_MIN_W, min(FORMULA_MAX_W, natural + 2 * PAD), row_w + 2 * PAD)
        formula = getattr(step, "formula", "") or ""
        if self.formula_text != formula:     # which node its letter is: wider, never a line more
            lines = len(text.wrap(f["formula"], formula, self.width - 2 * PAD))
            while self.width < FORMULA_MAX_W and \
                    len(text.wrap(f["formula"], self.formula_text, self.width - 2 * PAD)) > lines:
                self.width = min(FORMULA_MAX_W, self.width + 4.0)
        inner = self.width - 2 * PAD
        self.title = text.wrap(f["title"], title, inner, max_lines=2) if title else []
        caption = (getattr(step, "caption", "") or "") if self.heading else ""
        self.caption = text.wrap(f["caption"], caption, inner) if caption else []
        self.formula = text.wrap(f["formula"], self.formula_text, inner) if self.formula_text else []
        y = PAD + (LINE_H * len(self.title) + 4 if self.title else 0)
        self.caption_y = y
        y += LINE_H * len(self.caption) + (4 if self.caption else 0)
        self.formula_y = y
        y += LINE_H * len(self.formula) + (4 if self.formula else 0)
        self.placed = self._flow(items, inner, PAD, y)
        bottom = max([y] + [top + h for _, _, top, _, h in self.placed])
        self.height = bottom + PAD

    @property
    def empty(self):
        """Nothing to write: a step without a formula on a card whose title and caption the
        player shows (a cut, a seed of one number): no card is drawn, not an empty box."""
        return not (self.title or self.caption or self.formula or self.placed)

    def spec_of(self, array):
        """The number format of `array` on this card (None: its own, by preview's rule)."""
        return preview.spec_on_card(array, self.spec)

    def number_band(self, zoom, least_px=legible.READABLE_PX):
        """How many of the card's tile pictures write their numbers at `zoom` (those
        `least_px` tall or more: Tiles.writes_numbers): the card is drawn the same at every
        zoom of one band, so a picture of it recorded at one serves the band."""
        return bisect.bisect_right(self._numbers_from, zoom * legible.READABLE_PX / least_px * (1 + tiles.ZOOM_SLACK))

    def _items(self, f):
        """[(part, width, content height, has label)] and the width of the widest row."""
        items, row, widest = [], 0.0, 0.0
        self._equation_w = None
        for part in self.parts:
            kind = part[0]
            if kind == "break":
                items.append((part, 0.0, 0.0, None))
                widest, row = max(widest, row), 0.0
                self._equation_w = widest if self._equation_w is None else self._equation_w
                continue
            if kind == "array":
                role = tiles.FILTER if self._is_filter(part) else None
                if len(part) <= 3 and self._numbered:
                    # beside the rule's pictures, the equation's upstream and contribution take
                    # their form: numbers where they read as the pictures' do
                    shown = self._rule_picture(part[1], role)
                else:
                    shown = tiles.picture(part[1], role=role, tile=self._tile, spec=self.spec_of(part[1]))
                if len(part) > 3:
                    w = text.width(f["name"], operand_title(part)) + NAME_GAP + shown.width
                    items.append((part, w, shown.height, shown))
                else:
                    w = max(shown.width, text.width(f["label"], self.part_label(part, shown)))
                    items.append((part, w, shown.height + LINE_H, shown))
            elif kind == "picture":
                shown = self._rule_picture(part[1], part[3])
                w = max(shown.width, text.width(f["label"], part[2]))
                items.append((part, w, shown.height + (LINE_H if part[2] else 0), shown))
            elif kind == "text":
                lines = text.wrap(f["rule"], part[1], RULE_W)
                w = max(text.width(f["rule"], line) for line in lines) + 8
                items.append((part, max(w, text.width(f["label"], self.caption_of(part[2]))), LINE_H * (len(lines) + 1),
                              lines))
            elif kind == "op":
                items.append((part, OP_W, LINE_H, None))
            else:
                items.append((part, text.width(f["word"], part[1]) + 4, LINE_H, None))
            row += items[-1][1] + PART_GAP
        self._equation_w = max(widest, row) if self._equation_w is None else self._equation_w
        return items, min(max(widest, row), FORMULA_MAX_W - 2 * PAD)

    def part_label(self, part, shown):
        """The words under the upstream or the contribution drawn as `shown`: what it is,
        and, a picture of cells whose numbers it does not write at the zoom the player shows
        steps at (a heatmap, small tiles), its shape as the cards write it ('contribution ·
        1×36'); its scale is in the picture's own caption. (The rule's pictures are of the
        operands, whose cards say their shapes.)"""
        words = self.caption_of(part[2])
        if shown.kind in ("heatmap", "tiles") and not _reads(shown, legible.readable_zoom()):
            return f"{words} · {preview.dims(np.shape(part[1]))}"
        return words

    def _rule_picture(self, array, role):
        """A picture of the rule: its cells grow within the room when its numbers then read at
        the zoom the player shows steps at (the card's are smaller: they are on the cards too)."""
        tile = RULE_TILE if self._room else self._tile       # pooling's: as the arrays'
        return tiles.picture(array, role=role, tile=tile, spec=self.spec_of(array), room=self._room,
                             read_at=legible.readable_zoom(), partly=False)

    def _is_filter(self, part):
        """Does this array hold a convolution's filter (read as in x out tiles)? The operand
        `filters`, and a cotangent of a filter port (not the upstream it is made from)."""
        if len(part) > 3:
            return part[2] == "filters"
        return self._filter_port and not (self._kind in ("contribution", "cut") and part[2] == "upstream")

    @staticmethod
    def _flow(items, inner, x0, y0):
        """[(part, extra, top, x, height)]: rows left to right, wrapped at `inner`, each item
        centred in its row; an operator is centred on the pictures, not on their labels."""
        rows, row, x = [], [], 0.0
        for i, item in enumerate(items):
            need = item[1]
            if item[0][0] == "op" and i + 1 < len(items):   # an operator goes with what follows
                need += PART_GAP + items[i + 1][1]
            if item[0][0] == "break" or (row and x + need > inner):
                rows.append(row)
                row, x = [], 0.0
                if item[0][0] == "break":
                    continue
            row.append(item)
            x += item[1] + PART_GAP
        rows.append(row)
        placed, y = [], y0
        for row in [r for r in rows if r]:
            height = max(h for _, _, h, _ in row)
            labelled = any((p[0] in ("array", "text") and len(p) == 3) or (p[0] == "picture" and p[2])
                           for p, _, _, _ in row)
            pictures = max(LINE_H, height - LINE_H) if labelled else height
            x = x0
            for part, w, h, extra in row:
                if part[0] in ("op", "word"):
                    placed.append((part, extra, y, x, pictures))
                else:
                    placed.append((part, extra, y + (height - h) / 2, x, h))
                x += w + PART_GAP
            y += height + 6
        return placed

    def arrays(self, origin_x, origin_y, scale=1.0):
        """[(label, array, QRectF of its picture, the picture)] with the card's top-left at the
        origin, drawn `scale` times its size: the picture finds an entry's cell (`cell_rect`)
        and the entry under a point."""
        out = []
        for part, shown, top, x, _ in self.placed:
            if part[0] != "array":
                continue
            if len(part) > 3:
                x += text.width(self.fonts["name"], operand_title(part)) + NAME_GAP
            if scale != 1.0:
                shown = Scaled(shown, scale)
            out.append((part[2], part[1], QRectF(origin_x + x * scale, origin_y + top * scale,
                                                 shown.width, shown.height), shown))
        return out

    def entry_text(self, origin_x, origin_y, point):
        """'grad filters[0,1,0,2] = 1.1018444': the entry of any of the card's pictures under
        `point` (the card's top-left at the origin) with its number in full, what hovering
        it says (a rule picture writes its numbers only far zoomed in); None elsewhere."""
        word = ""
        for part, shown, top, x, _ in self.placed:
            if part[0] == "word":
                word = part[1]
            if part[0] not in ("array", "picture"):
                continue
            name = re.split("[:,]", part[2])[0].strip() or word.removesuffix("=").strip()
            if part[0] == "array" and len(part) <= 3:
                name = self.caption_of(name)           # hovering the upstream of a node called upstream
            if part[0] == "array" and len(part) > 3:
                x += text.width(self.fonts["name"], operand_title(part)) + NAME_GAP
            array = np.asarray(part[1])
            flat = shown.entry_at(origin_x + x, origin_y + top, point) if array.size else None
            if flat is not None:
                index = ",".join(str(int(i)) for i in np.unravel_index(flat, array.shape))
                return f"{name}[{index}] = {number(array.flat[flat], 8)}" if array.ndim \
                    else f"{name} = {number(array.flat[flat], 8)}"
        return None








class Scaled:
    """A picture on a formula card drawn `scale` times its size (a card docked smaller to fit
    the view with the step's cards): its cells and the entry under a point, in scene units."""

    def __init__(self, shown, scale):
        self.shown, self.scale = shown, scale
        self.width, self.height = shown.width * scale, shown.height * scale

    def cell_rect(self, x, y, flat_index):
        cell, s = self.shown.cell_rect(0.0, 0.0, flat_index), self.scale
        return None if cell is None else QRectF(x + cell.x() * s, y + cell.y() * s,
                                                cell.width() * s, cell.height() * s)

    def entry_at(self, x, y, point):
        return self.shown.entry_at(0.0, 0.0, QPointF((point.x() - x) / self.scale,
                                                     (point.y() - y) / self.scale))


class FormulaCard:
    """Laying out, placing and painting the formula card (a part of Renderer)."""

    formula_heading = True   # the card writes the step's title and caption (an export has no player)

    def _formula_parts(self, step):
        return formula_parts(step)

    def formula_layout(self, step):
        cache = self.__dict__.setdefault("_formula_layouts", {})
        hit = cache.get(id(step))
        if hit is not None and hit[0] is step:
            return hit[1]
        layout = FormulaLayout(step, len(getattr(self.story, "steps", []) or []),
                               self.__dict__.get("_filter_ports") or filter_ports(self.doc),
                               self.formula_heading, number_spec(self.story))
        cache[id(step)] = (step, layout)
        return layout

    def dock_formula(self, step, rect):
        """Put `step`'s formula card at `rect` (scene) instead of beside its node: the
        player docks it where it hides no card when the step's cards and the card
        beside them do not fit the view at a readable zoom. A `rect` smaller than the card
        draws it smaller, in proportion (`formula_scale`). None: beside its node."""
        self.__dict__["_docked"] = None if rect is None else (step, QRectF(rect))

    def docked_formula(self):
        """(step, rect) where `dock_formula` put a step's card, or None."""
        return self.__dict__.get("_docked")

    def formula_scale(self, step):
        """How much smaller than its layout the step's formula card is drawn (1: not)."""
        rect = self._formula_rect(step)
        return 1.0 if rect is None else rect.width() / self.formula_layout(step).width

    def _formula_rect(self, step):
        nid = getattr(step, "node", None)
        if nid not in self.doc.nodes or self.formula_layout(step).empty:
            return None
        docked = self.__dict__.get("_docked")
        if docked is not None and docked[0] is step:
            return QRectF(docked[1])
        # One entry per step for the current card geometry: a drag changes the geometry
        # on every mouse move, and the old entries go with it.
        geometry = self._obstacles_key()
        cached = self.__dict__.get("_formula_rects")
        if cached is None or cached[0] != geometry:
            cached = self._formula_rects = (geometry, {})
        cache = cached[1]
        hit = cache.get(id(step))
        if hit is not None and hit[0] is step:
            return QRectF(hit[1])
        layout = self.formula_layout(step)
        w, h = layout.width, layout.height
        node, foot = self.rect(nid), self.footprint(nid)     # beside its ports' names too
        others = [self.footprint(n) for n in self.doc.nodes if n != nid]
        candidates = [
            QRectF(node.left(), foot.bottom() + CARD_GAP, w, h),    # under its problems' lines too
            QRectF(node.left(), node.top() - BADGE_H - CARD_GAP - h, w, h),
            QRectF(max(node.right() + 20, foot.right()) + CARD_GAP, node.top(), w, h),
            QRectF(min(node.left() - 20, foot.left()) - CARD_GAP - w, node.top(), w, h),
        ]
        rect = next((c for c in candidates
                     if not any(c.adjusted(-8, -8, 8, 8).intersects(o) for o in others)), None)
        if rect is None:     # below everything: never covers a card
            bottom = max(o.bottom() for o in [node, *others])
            rect = QRectF(node.left(), bottom + CARD_GAP + 10, w, h)
        cache[id(step)] = (step, rect)
        return QRectF(rect)

    def leader_target(self, step):
        """Where the card's leader line points: the port the step is about (a fan-in's or a
        gradient's output port, the input a contribution's arrow leaves by), else its node's centre.
        Aimed at the centre, the line left a layer's card beside its bias port on a fan-in at
        its output (lesson 14, step 14)."""
        nid, port = step.node, getattr(step, "port", None)
        if getattr(step, "kind", "") in ("contribution", "cut"):   # the input its arrow leaves by
            into = [e.dst for e in self._step_edges(step) if e.dst.node == nid]
            return self.input_pos(nid, into[0].index) if into else self.rect(nid).center()
        if port is not None and port.node == nid:
            return self.output_pos(nid, port.index)
        return self.rect(nid).center()

    def leader_path(self, step):
        """[QPointF] of the formula card's leader line, from the card's edge to
        `leader_target` (none without a card), round the other cards and the texts drawn
        outside them (`text_rects`: lesson 32's '⚠ produced NaN or infinity' under log_p, a
        port's name, a label), into its port from outside its card (leaders.route)."""
        rect = self._formula_rect(step)
        if rect is None:
            return []
        bounds = self.label_bounds      # (where the labels go, which it passes round)
        key = (id(step), rect.getRect(), self.label_scale, None if bounds is None else bounds.getRect())
        memo = self._geometry_memo("_leader_cache")
        hit = memo.get(key)
        if hit is not None and hit[0] is step:
            return list(hit[1])
        tip, node = self.leader_target(step), self.rect(step.node)
        normal = (-1.0, 0.0) if tip.x() <= node.left() + 1 else (1.0, 0.0) if tip.x() >= node.right() - 1 else None
        others = [self.rect(n) for n in self.doc.nodes if n != step.node]
        path = leaders.route(rect, tip, normal, node, self.footprint(step.node), others, self.text_rects(step))
        memo[key] = (step, path)
        return list(path)

    def _paint_leader(self, painter, step):
        """A dotted line from the formula card to the port its step is about, under the cards."""
        path = self.leader_path(step)
        if not path:
            return
        painter.setPen(QPen(QColor(self.theme.formula_border), 1.5, Qt.PenStyle.DotLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPolyline(path)

    def _paint_formula(self, painter, step, zoom=None):
        """Paint `step`'s formula card; `zoom`: the scale it will be seen at, when not the
        painter's (the canvas records it 1:1 once per number_band and replays it zoomed)."""
        rect = self._formula_rect(step)
        if rect is None:
            return
        layout = self.formula_layout(step)
        scale = rect.width() / layout.width
        painter.save()
        painter.translate(rect.topLeft())      # laid out at its own size, drawn at rect's
        painter.scale(scale, scale)
        self._paint_formula_at(painter, layout, QRectF(0, 0, layout.width, layout.height),
                               None if zoom is None else zoom * scale)
        painter.restore()

    def _paint_formula_at(self, painter, layout, rect, zoom):
        t = self.theme
        f = layout.fonts
        painter.setPen(QPen(QColor(t.formula_border), 1.6))
        painter.setBrush(QColor(t.formula_card))
        painter.drawRoundedRect(rect, 8, 8)
        left, inner = rect.left() + PAD, rect.width() - 2 * PAD
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for font, colour, lines, top in ((f["title"], t.text, layout.title, PAD),
                                         (f["caption"], t.muted, layout.caption, layout.caption_y),
                                         (f["formula"], t.gradient, layout.formula, layout.formula_y)):
            painter.setFont(font)
            painter.setPen(QColor(colour))
            for i, line in enumerate(lines):
                painter.drawText(QRectF(left, rect.top() + top + i * LINE_H, inner, LINE_H), align, line)
        for part, extra, top, x, h in layout.placed:
            x, y = rect.left() + x, rect.top() + top
            kind = part[0]
            if kind == "array":
                shown = extra
                colour = t.gradient if part[2] in RESULTS else t.value
                if len(part) > 3:
                    name = operand_title(part)
                    painter.setFont(f["name"])
                    painter.setPen(QColor(t.text))
                    w = text.width(f["name"], name)
                    painter.drawText(QRectF(x, y, w + 2, shown.height), align, name)
                    shown.draw(painter, x + w + NAME_GAP, y, colour, t, zoom, self.numbers_px)
                    continue
                shown.draw(painter, x, y, colour, t, zoom, self.numbers_px)
                self._part_label(painter, layout, x, y + shown.height + 1, layout.part_label(part, shown))
            elif kind == "picture":
                extra.draw(painter, x, y, t.gradient if part[2].startswith("grad") else t.value, t, zoom,
                           self.numbers_px)
                self._ring_cells(painter, extra, x, y, part[4])
                if part[2]:
                    self._part_label(painter, layout, x, y + extra.height + 1, part[2])
            elif kind == "text":
                painter.setFont(f["rule"])
                painter.setPen(QColor(t.text))
                for i, line in enumerate(extra):
                    painter.drawText(QRectF(x + 4, y + i * LINE_H, RULE_W + 8, LINE_H), align, line)
                self._part_label(painter, layout, x, y + len(extra) * LINE_H + 1, layout.caption_of(part[2]))
            elif kind == "op":
                painter.setFont(f["op"])
                painter.setPen(QColor(t.text))
                painter.drawText(QRectF(x, y, OP_W, h), Qt.AlignmentFlag.AlignCenter, part[1])
            else:
                painter.setFont(f["word"])
                painter.setPen(QColor(t.muted))
                painter.drawText(QRectF(x, y, text.width(f["word"], part[1]) + 4, h), align, part[1])

    def _ring_cells(self, painter, shown, x, y, flats):
        """Rings around the entries a rule picks (max_pool's maxima)."""
        if not flats:
            return
        painter.setBrush(Qt.BrushStyle.NoBrush)
        cells = [cell for cell in (shown.cell_rect(x, y, flat) for flat in flats) if cell is not None]
        for colour, width in ((self.theme.card, 3.0), (self.theme.target, 1.6)):   # a halo, then the ring
            painter.setPen(QPen(QColor(colour), width))
            for cell in cells:
                painter.drawRect(cell.adjusted(0.8, 0.8, -0.8, -0.8))

    def _part_label(self, painter, layout, x, y, label):
        font = layout.fonts["label"]
        painter.setFont(font)
        painter.setPen(QColor(self.theme.text))
        painter.drawText(QRectF(x, y, text.width(font, label) + 4, LINE_H),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
