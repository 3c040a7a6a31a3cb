"""Node cards: measured once (every text elided to the card's width, every preview laid
out), then painted from that measurement without measuring again (card_painting.py).

A card shows the op (or the tensor's name), its shape, the attributes that differ from
the catalog's defaults, a value preview and the gradient of every source port of the
node: a tensor's own gradient, or each layer weight's (kernel, bias ...), in the format of
the card's value (numbers beside numbers, a heatmap beside a heatmap). While a story step is drawn, a source's gradient waits, "pending", until its
accumulation step: the answer is not shown before the story reaches it.
"""
from __future__ import annotations

import copy
import math
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QRectF

from ..graph import catalog
from ..graph.cut_paths import none_words
from ..graph.document import CONSTANT, LAYER, OP, VARIABLE, Port
from ..graph.names import node_kind, node_name, objective_name
from ..graph.structure import MAX_VARIADIC_INPUTS, filter_ports, input_slots, n_outputs
from ..story import dead_units
from ..story.model import evaluation_spec, number_spec
from . import preview, text, tiles

HEADER_H = 28.0
PAD = 10.0
LINE_H = 17.0
MIN_W = 132.0
MAX_TEXT_W = 300.0      # text never widens a card beyond this; longer text wraps (a name is elided)
TITLE_KEPT = 200.0      # a title this wide stands whole beside its op's name (the header may pass the cap)
PORT_R = 5.0
CORNER_R = 8.0          # a card's rounded corners
BADGE_H = 18.0
NUMBERS_MARGIN = 3.0    # around the section bodies (numbers_rect): a pending box's outline stands in it
PENDING_TEXT = "pending: not yet accumulated"
PENDING_OUT = 2.0       # a pending gradient's box stands this far out of the body, its words as far in

_IN_NUMBERS = ("scalar", "grid", "ellipsis")   # preview kinds that write a tensor's numbers
Section = namedtuple("Section", "label array colour y port preview text")
Section.__doc__ = """One value or gradient block of a card: `text` is the elided label as painted,
`y` its top relative to the card, `preview` the laid-out picture (None for a None gradient)."""


@dataclass
class Card:
    """The measured content of one node card (coordinates relative to its top-left)."""

    node_id: str
    title: str
    subtitle: str
    info: str
    value: object = None
    gradient: object = None
    has_gradient: bool = False
    n_inputs: int = 0
    n_outputs: int = 1
    width: float = MIN_W
    height: float = 60.0
    sections: list = field(default_factory=list)   # [Section]
    attrs: str = ""
    title_text: str = ""      # title and subtitle as painted (elided to the header)
    subtitle_text: str = ""
    lines: list = field(default_factory=list)      # info and attribute lines as painted
    mark: str = ""            # a warning line under them: a relu's dead units
    full = None               # drawn compact: the card as measured (this one is shorter)

    def compacted(self, height):
        """This card `height` tall (its compact form's, render.compact.needed_height): a
        shallow copy that remembers the card in `full`."""
        full = self.full or self
        if height == full.height:
            return full
        card = object.__new__(Card)
        card.__dict__.update(full.__dict__, height=height, full=full)
        return card

    def with_numbers(self, value, gradient, has_gradient, sections):
        """This card showing other numbers: a shallow copy (copy.copy took 4 us, this 1),
        its text and geometry shared."""
        card = object.__new__(Card)
        card.__dict__.update(self.__dict__, value=value, gradient=gradient, has_gradient=has_gradient,
                             sections=sections)
        return card


def ports_height(n_inputs, n_outputs):
    """The least height of a card with that many ports on a side: room to tell them apart."""
    return HEADER_H + 14 + max(n_inputs, n_outputs) * 18


def used_ports(doc):
    """{node id: (sorted input slots fed by an edge, sorted outputs read by an edge)}, only
    the ports the node's op has: an index in the file never adds a port (an edge from
    'x:999999' is a problem on the edge, shown by validation, not a million port items)."""
    ins, outs = {}, {}
    for e in doc.edges:
        ins.setdefault(e.dst.node, []).append(e.dst.index)
        outs.setdefault(e.src.node, set()).add(e.src.index)
    return {nid: _existing(node, ins.get(nid, ()), outs.get(nid, ()))
            for nid, node in doc.nodes.items()}


def _existing(node, ins, outs):
    try:
        fixed, variadic = input_slots(node)
        n_out = n_outputs(node)
    except Exception:  # an op the catalog does not know (a file opened leniently)
        fixed, variadic, n_out = 1, False, 1
    ins = [i for i in ins if i < fixed or variadic and i < MAX_VARIADIC_INPUTS]
    return tuple(sorted(ins)), tuple(sorted(i for i in outs if i < n_out))


def port_counts(node, used):
    """(inputs, outputs) a node's card shows, in the window and in every export alike: its
    catalog slots (a layer's output and each weight, even one no edge reads: the story's
    arrows end there), one free slot when variadic, and any slot an edge uses (`used`: its
    entry of `used_ports`)."""
    try:
        fixed, variadic = input_slots(node)
        outs = n_outputs(node)
    except Exception:  # an op the catalog does not know (a file loaded leniently)
        fixed, variadic, outs = 1, False, 1
    used_in = [i + 1 for i in used[0]]
    n_in = max([fixed, *used_in])
    if variadic:
        n_in = max(n_in, (max(used_in) + 1) if used_in else 1)
    return max(0, n_in), max([1, outs, *(i + 1 for i in used[1])])


def _shown_attrs(node):
    """The attributes worth a line on the card: those that differ from the catalog default."""
    attrs = dict(node.attrs or {})
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    defaults = getattr(spec, "attrs", None) or {}
    return {k: v for k, v in attrs.items() if not (k in defaults and _same(defaults[k], v))}


def _same(a, b):
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
    except Exception:
        return False


WARN_SIGN, CUT_SIGN = "⚠ ", "✕ "


def dead_mark(node, value, short=False):
    """A relu node's dead units under the card's text lines ('' if none): '⚠ dead relu …' for
    units off over the whole batch, a warning as the status bar counts it; '✕ relu off for
    this example …' for one example's off units, relu at work cutting their cotangent.
    `short`: a compact card's few words of it ('✕ off: units 0, 1')."""
    if value is None or not dead_units.is_relu_node(node):
        return ""
    said = dead_units.card_mark(value, short)
    if not said:
        return ""
    return (WARN_SIGN if dead_units.warning(value) else CUT_SIGN) + said


def mark_key(mark):
    """The theme's colour key of a mark: the warning's for a warning, else the cut's."""
    return "warning" if mark.startswith(WARN_SIGN) else "cut"


def mark_color(theme, mark):
    """The warning colour for a warning, the cut colour for units relu cuts."""
    return getattr(theme, mark_key(mark))


def port_name(doc, port):
    """How a card calls one output (graph.catalog.port_name: 'layer.kernel', 'n:1')."""
    return catalog.port_name(doc, port)


def _widened(shown, old):
    """`shown` (new numbers) as wide as `old`, the picture of the same kind it replaces: a
    table keeps old's columns, its numbers right-aligned in them; any other picture is
    drawn from its left edge in old's width."""
    wide = copy.copy(shown)
    if getattr(old, "_chars", None) is not None and hasattr(wide, "_lay_out_table"):
        wide._runs = wide._text = None
        wide._lay_out_table(old._chars)
    wide.width = old.width
    return wide


class CardPainter:
    """Measuring node cards, and which gradients a story step has not revealed yet (a part of
    Renderer; card_painting paints them)."""

    # True while the numbers change many times a second (a training run): a card whose new
    # numbers need less room keeps its size (`_renumbered`), so no edge takes a new route
    hold_sizes = False
    held = frozenset()     # the node ids whose card `_renumbered` kept wider than needed

    def sizes(self, compact=False):
        """{node: (width, height)} of the cards as measured in full, what a layout to read
        them lays out; `compact`: as drawn, a compact card shorter (`Card.compacted`)."""
        return {nid: (c.width, c.height if compact else (c.full or c).height) for nid, c in self.cards.items()}

    # -- what a card shows ------------------------------------------------------------
    def _value(self, nid):
        """The value of the node's first output: the evaluation's, else a constant's own."""
        values = getattr(self.evaluation, "values", None) or {}
        cached = self.__dict__.get("_values_by_node")
        if cached is None or cached[0] is not values:
            # By node id once per evaluation: a Port key costs a dataclass made and hashed.
            cached = self._values_by_node = (values, {getattr(p, "node", None): v for p, v in values.items()
                                                      if getattr(p, "index", None) == 0})
        if nid in cached[1]:
            return cached[1][nid]
        node = self.doc.nodes[nid]
        return node.value if node.kind in (CONSTANT, VARIABLE) else None

    def _gradient(self, nid):
        """(known, array) of the gradient of the node's first output."""
        for port, array in self.card_gradients(nid):
            if port.index == 0:
                return True, array
        return False, None

    def card_gradients(self, nid):
        """[(port, array or None)]: every gradient the evaluation holds for outputs of `nid`."""
        grads = getattr(self.evaluation, "gradients", None) or {}
        cached = self.__dict__.get("_gradients_by_node")
        if cached is None or cached[0] is not grads:
            # Grouped once per evaluation: every card asks, twice per edit in the app.
            by_node = {}
            for p, g in grads.items():
                by_node.setdefault(getattr(p, "node", None), []).append((p, g))
            for items in by_node.values():
                items.sort(key=lambda item: item[0].index)
            cached = self._gradients_by_node = (grads, by_node)
        return list(cached[1].get(nid, ()))

    def none_text(self, port):
        """A None gradient's words on the card (cut_paths.none_words: 'None (cut at argmax)'
        where the canvas joins the source to the target), found once per evaluation."""
        evaluation, known = getattr(self, "_none_texts", (None, {}))
        if evaluation is not self.evaluation:
            known = {}
            self._none_texts = (self.evaluation, known)
        if port not in known:
            known[port] = none_words(self.doc, getattr(self.evaluation, "values", None) or {}, port)
        return known[port]

    def numbers_spec(self):
        """The format the float tensors of the cards share: their story's (Story.number_spec),
        so that a tensor reads on its node's card as on every rule card (the seed's ones
        1.000 there and here, not 1 on the card); without a story, its evaluation's."""
        story = getattr(self, "story", None)
        return number_spec(story) if story is not None else evaluation_spec(self.evaluation)

    def _card_spec(self, value, gradients):
        """The format of a node card's float tensors: the one they share with the others
        (numbers_spec), else the one its value and gradients share (a constant's value is
        no evaluation's: x = [1 2] beside its gradient [0.5 0.25] reads 1.000 2.000)."""
        return self.numbers_spec() or _shared_spec(value, gradients)

    def ports_used(self):
        """`used_ports` of the document, found once per renderer (every card asks)."""
        used = self.__dict__.get("used")
        if used is None:
            used = self.used = used_ports(self.doc)
        return used

    def tensor_role(self, port):
        """tiles.FILTER for a port that holds a convolution's filter, else None: what
        says how a rank-4 tensor reads (graph.structure.filter_ports, found once per renderer)."""
        filters = self.__dict__.get("_filter_ports")
        if filters is None:
            filters = self._filter_ports = filter_ports(self.doc)
        return tiles.FILTER if port in filters else None

    def _measure(self, node):
        value = self._value(node.id)
        has_grad, grad = self._gradient(node.id)
        title = node_name(node)   # what the story, the inspector and every message call it
        if node.kind in (OP, LAYER, "custom_gradient"):
            subtitle = node_kind(node)   # what it computes, also where the name repeats it
        else:
            subtitle = node.kind + (" · watched" if node.watched else "")
            if node.kind == VARIABLE and not node.trainable:
                subtitle = "variable · frozen"
        info = preview.shape_text(value) if value is not None else ""
        attrs = ", ".join(f"{k}={v}" for k, v in _shown_attrs(node).items())
        if node.kind == "custom_gradient" and node.op and node.op != title:   # its rule
            attrs = node.op + (f" ({attrs})" if attrs else "")
        n_in, n_out = port_counts(node, self.ports_used().get(node.id, ((), ())))
        card = Card(node.id, title, subtitle, info, value, grad, has_grad, n_inputs=n_in, n_outputs=n_out,
                    attrs=attrs)
        f_title, f_sub, f_body, f_label = fonts()
        title_w, sub_w = text.width(f_title, title), text.width(f_sub, subtitle)
        head_w = title_w + sub_w + 3 * PAD
        # The op's name (the catalog's: never long without end) whole beside a title of up to
        # TITLE_KEPT, past the cap if need be: 'nn.softmax_cross_entropy_with_logits' was cut
        whole_head = sub_w + min(title_w, TITLE_KEPT) + 3 * PAD
        mark = dead_mark(node, value)
        text_w = max(head_w, *(text.width(f_body, t) + 2 * PAD for t in (info, attrs, mark) if t),
                     0.0)
        sections = []
        gradients = self.card_gradients(node.id)
        shared = self._card_spec(value, gradients)
        if value is not None:
            sections.append(("value", value, "value", Port(node.id, 0),
                             tiles.picture(value, role=self.tensor_role(Port(node.id, 0)),
                                           room=tiles.CARD_ROOM, spec=preview.spec_on_card(value, shared))))
        target = objective_name(self.doc, getattr(self.evaluation, "values", None))
        # one format per card: a layer weight's gradient (port index > 0) is written in
        # numbers, corners and ellipses where it is large, when the card writes its value so
        # (lesson 14's kernel gradient was a heatmap under a value written in numbers); a
        # heatmap when the value is one
        pictured = not sections or sections[0][4].kind not in _IN_NUMBERS
        for port, array in gradients:
            compact = port.index > 0 and pictured
            label = f"gradient  ∂{target}/∂{port_name(self.doc, port)}"
            shown = None if array is None else tiles.picture(array, compact=compact, role=self.tensor_role(port),
                                                             room=tiles.CARD_ROOM,
                                                             spec=preview.spec_on_card(array, shared))
            sections.append((label, array, "gradient", port, shown))
        preview_w = 0.0
        for label, array, colour, port, shown in sections:
            text_w = max(text_w, text.width(f_label, label) + 2 * PAD)
            if colour == "gradient":
                text_w = max(text_w, *(text.width(text.sans(8.5), words) + 2 * PAD
                                       for words in self.pending_texts(port)))
            if shown is None:
                text_w = max(text_w, text.width(preview.mono_font(9), self.none_text(port)) + 2 * PAD)
            if shown is not None:
                preview_w = max(preview_w, shown.width + 2 * PAD + 6)
        width = math.ceil(max(MIN_W, min(MAX_TEXT_W, text_w), min(head_w, whole_head), preview_w))
        inner = width - 2 * PAD
        self._fit_header(card, width, f_title, f_sub)
        # The shape and the attributes whole: wrapped on as many lines as they need (a
        # BatchNormalization's 'training=…' was cut at the card's 300 px cap)
        card.lines = [line for t in (info, attrs) if t for line in text.wrap(f_body, t, inner, whole=True)]
        card.mark = text.elide(f_body, mark, inner) if mark else ""
        y = HEADER_H + 6 + LINE_H * (len(card.lines) + bool(card.mark))
        for label, array, colour, port, shown in sections:
            y += 4
            card.sections.append(Section(label, array, colour, y, port, shown, text.elide(f_label, label, inner)))
            y += LINE_H + (shown.height if shown is not None else LINE_H) + 6
        card.width = width
        card.height = math.ceil(max(y + 2, ports_height(card.n_inputs, card.n_outputs), 54.0))
        return card

    def _renumbered(self, old, node):
        """`old` (the card of `node` before an edit that changed only numbers) with the new
        numbers, when every preview keeps its kind and size: the same shapes and dtypes
        and numbers of the same magnitude. Nothing is measured again, so an edit that
        changes every value downstream stays cheap. None when the card must be measured."""
        value = self._value(node.id)
        has_grad, grad = self._gradient(node.id)
        blocks = ([("value", Port(node.id, 0), value)] if value is not None else [])
        blocks += [("gradient", port, array) for port, array in self.card_gradients(node.id)]
        mark = dead_mark(node, value)
        if len(blocks) != len(old.sections) or (mark and text.elide(
                fonts()[2], mark, old.width - 2 * PAD)) != old.mark:
            return None
        sections = []
        shared = self._card_spec(value, [(port, array) for colour, port, array in blocks if colour == "gradient"])
        for (colour, port, array), section in zip(blocks, old.sections):
            if colour != section.colour or port != section.port or (array is None) != (section.array is None):
                return None
            if array is None:
                sections.append(section)
                continue
            before = section.array
            if getattr(array, "shape", None) != getattr(before, "shape", None) \
                    or getattr(array, "dtype", None) != getattr(before, "dtype", None):
                return None
            old_shown = section.preview
            shown = old_shown.renumbered(array, preview.spec_on_card(array, shared))
            if self.hold_sizes and shown.kind == old_shown.kind and shown.width < old_shown.width:
                shown = _widened(shown, old_shown)
                self.held = self.held | {node.id}
            if shown.kind != old_shown.kind or shown.width != old_shown.width or shown.height != old_shown.height:
                return None
            label, _, colour, y, port, _, label_text = section   # (Section._replace takes 3 us)
            sections.append(Section(label, array, colour, y, port, shown, label_text))
        return old.with_numbers(value, grad, has_grad, sections)

    @staticmethod
    def _fit_header(card, width, f_title, f_sub):
        """Title left, subtitle right; when both do not fit, the title keeps up to TITLE_KEPT
        and the subtitle gives way first."""
        avail = width - 3 * PAD
        title_w, sub_w = text.width(f_title, card.title), text.width(f_sub, card.subtitle)
        if title_w + sub_w > avail:
            sub_w = min(sub_w, max(avail * 0.35, avail - min(title_w, TITLE_KEPT)))
            title_w = avail - sub_w
        card.title_text = text.elide(f_title, card.title, title_w)
        card.subtitle_text = text.elide(f_sub, card.subtitle, sub_w)

    # -- which gradients wait for their step ------------------------------------------
    def reveal_steps(self):
        """{source port: index of the step that delivers its gradient (accumulate/unconnected)}."""
        return self._source_steps()[0]

    def story_so_far(self):
        """The story if it is told already, else None: measuring or painting a card must not
        tell it (the app tells it after the document shows, its bar saying 'Computing'
        meanwhile; a card that asked for it told every edit's story at once)."""
        told = getattr(self, "told_story", None)
        return told() if told is not None else getattr(self, "story", None)

    def arrival_steps(self):
        """{source port: indices of the steps whose contribution arrives at it}."""
        return self._source_steps()[1]

    def _source_steps(self):
        """`reveal_steps` and `arrival_steps` of the story told so far, read once per story."""
        story = self.story_so_far()
        cached = getattr(self, "_source_steps_of", None)
        if cached is not None and cached[0] is story:
            return cached[1]
        steps = getattr(story, "steps", None) or []
        reveal, arrivals = {}, {}
        for step in steps:
            if getattr(step, "kind", "") in ("accumulate", "unconnected") and getattr(step, "port", None) is not None:
                reveal.setdefault(step.port, step.index)
        for step in steps:
            port = getattr(step, "port", None)
            if getattr(step, "kind", "") == "contribution" and port in reveal:
                arrivals.setdefault(port, []).append(step.index)
        self._source_steps_of = (story, (reveal, arrivals))
        return reveal, arrivals

    def pending_text(self, port, index=None):
        """What a source's gradient box says before the step that shows the gradient, true
        at step `index` (the one drawn): nothing has arrived yet, k of its n contributions
        have, or all have and the gradient is shown at step N (the timeline's number). It
        said 'not yet accumulated' all along, long after a single contribution had come."""
        index = getattr(self, "story_index", None) if index is None else index
        arrived = self.arrival_steps().get(port, ())
        come = sum(1 for at in arrived if index is not None and at <= index)
        if not come:
            return PENDING_TEXT
        if come < len(arrived):
            return f"pending: {come} of {len(arrived)} arrived"
        return f"complete: shown at step {self.reveal_steps()[port] + 1}"

    def pending_texts(self, port):
        """Every text `pending_text` may write for `port` (a card is as wide as the widest)."""
        arrived = self.arrival_steps().get(port, ())
        return {PENDING_TEXT, *(self.pending_text(port, at) for at in arrived)}

    def pending_words(self):
        """{port: its pending text} at the step drawn: a card repaints when its words change."""
        return {port: self.pending_text(port) for port in self.pending_ports()}

    def pending_ports(self, step=None):
        """Source ports whose gradient is not yet known at story `step` (an index or a Step).

        Without a step (plain editing, an export without one) nothing is pending.
        """
        if step is None:
            step = getattr(self, "story_index", None)
        if step is None:
            return frozenset()
        index = step if isinstance(step, int) else getattr(step, "index", None)
        if index is None:
            return frozenset()
        return frozenset(p for p, at in self.reveal_steps().items() if at > index)


def body_height(section):
    return section.preview.height if section.preview is not None else LINE_H


def entry_under(card, point):
    """(section, flat index) of the entry drawn under `point` (relative to the card's
    top-left), or None: what a hover over a card's numbers names."""
    for section in card.sections:
        if section.preview is not None and section.array is not None and np.size(section.array):
            flat = section.preview.entry_at(PAD, section.y + LINE_H, point)
            if flat is not None:
                return section, flat
    return None


def numbers_rect(card):
    """Where the card's section bodies are painted (relative to the card), with a margin
    for antialiasing and overhanging glyphs; an empty rect when it has none. The canvas
    caches only this as a card's numbers picture, not the whole card: the 100-node grid's
    numbers pictures took 5.9 MB of Qt's pixmap cache at 1920x1200, now 2.7."""
    if not card.sections:
        return QRectF()
    first, last = card.sections[0], card.sections[-1]
    top, bottom = first.y + LINE_H, last.y + LINE_H + body_height(last)
    return QRectF(PAD - NUMBERS_MARGIN, top - NUMBERS_MARGIN, card.width - 2 * PAD + 2 * NUMBERS_MARGIN,
                  bottom - top + 2 * NUMBERS_MARGIN)


def fonts():
    return title_font(), text.sans(8.5), text.sans(9), text.sans(8.5, bold=True)


def title_font():
    """The font a card's header writes its name in."""
    return text.sans(11, bold=True)


def _shared_spec(value, gradients):
    """The number format a node's value and gradients share on its card (preview.shared_spec):
    x = [1 2] beside its gradient [0.5 0.25] reads 1.000 2.000, one format per card."""
    return preview.shared_spec([value, *(array for _, array in gradients)])
