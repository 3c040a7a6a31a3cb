"""The canvas' Renderer: cards measured once and re-measured only when their content changed."""
import copy

import numpy as np

from PySide6.QtCore import QRectF

from ...render import cards as render_cards
from ...render import compact as render_compact
from ...render import legible, preview, text
from ...render.cards import used_ports
from ...render.painter import Renderer
from ...render.themes import get_theme
from ...story.model import evaluation_spec, number_spec


ERROR_LINES = 3
ERROR_W = 240.0     # a problem's lines under a card: at least this wide,
ERROR_TOP = 5.0     # this far below the card,
ERROR_ROW = 15.0    # a line this tall


def problem_lines(problems, card_width):
    """The lines a card's `problems` (graph Problems) take under a card `card_width` wide:
    their messages wrapped where they fit in ERROR_LINES lines, else each one's essentials
    (Problem.brief: the inputs and their shapes, then what is wrong) in the lines they
    need; never cut (cut at three lines, a matmul's mismatch read 'inner dimensions 4
    and …', the numbers to mend left out); the card's tooltip says the message whole. In
    the cards' numbers' type (legible.NUMBER_PT): readable wherever the numbers are."""
    if not problems:
        return []
    font, width = preview.sans_font(legible.NUMBER_PT), max(card_width, ERROR_W)
    lines = text.wrap(font, "\n".join("⚠ " + p.message for p in problems), width, whole=True)
    if len(lines) <= ERROR_LINES:
        return lines
    return text.wrap(font, "\n".join("⚠ " + (p.brief or p.message) for p in problems), width, whole=True)


class CanvasRenderer(Renderer):
    """The render layer's Renderer, re-measuring only the cards whose content changed."""

    formula_heading = False   # the player bar (or presentation's band) writes the step's title and caption
    zoom_labels = None        # the canvas's label_scale (its zoom's): the arrow labels keep their screen size

    @property
    def label_scale(self):
        """The story's arrow labels' scale (render.story_overlay) at the canvas's zoom now."""
        return 1.0 if self.zoom_labels is None else self.zoom_labels()

    view_bounds = None        # the canvas's label_bounds: the view its player framed the step in
    stale_format = False      # its cards' number format is not the story's (CanvasView.story_told)

    @property
    def label_bounds(self):
        """Where the story's arrow labels stay (render.story_overlay): the framed view."""
        return None if self.view_bounds is None else self.view_bounds()

    def __init__(self, doc, evaluation, result, theme, positions, previous=None, hold_sizes=False):
        super().__init__(type(doc)(), theme=theme, positions={})  # every attribute, no cards
        self.hold_sizes = hold_sizes
        self.doc, self.evaluation, self.positions = doc, evaluation, positions
        self._result = result
        self.keys = {}
        self.used = used_ports(doc)
        # in every gradient's label ('∂Σy/∂x'): a target's shape or seed changes every label
        self._target_name = render_cards.objective_name(doc, getattr(evaluation, "values", None))
        self.measured = set()   # the cards measured afresh (the others keep the previous geometry)
        self.renumbered = {}    # node id -> the previous card, where only the numbers are new
        old_cards = getattr(previous, "cards", {}) if previous is not None else {}
        old_keys = getattr(previous, "keys", {}) if previous is not None else {}
        same_theme = previous is not None and previous.theme == self.theme
        # cards kept wide while sizes were held: kept while they still are, else fitted again
        was_held = getattr(previous, "held", frozenset()) if same_theme else frozenset()
        for nid, node in doc.nodes.items():
            key = self._content_key(node)
            self.keys[nid] = key
            old = old_cards.get(nid)
            old = old and (old.full or old)   # a compact card's own measure (make_renderer shortens it)
            if same_theme and old is not None and _same_key(old_keys.get(nid), key) \
                    and (hold_sizes or nid not in was_held):
                self.cards[nid] = old
                if nid in was_held:
                    self.held = self.held | {nid}
                continue
            card = None
            if same_theme and old is not None and old_keys.get(nid, (None,))[0] == key[0]:
                card = self._renumbered(old, node)    # only numbers changed: no new measure
                if card is not None:
                    self.renumbered[nid] = old
            if card is None:
                card = self._measure(node)
                self.measured.add(nid)
            self.cards[nid] = card

    def problem_rects(self):
        """[QRectF] of the problem lines the canvas writes under each card (NodeItem), each
        as wide as its words: what a leader line must not cross."""
        out = []
        font = preview.sans_font(legible.NUMBER_PT)
        for nid, problems in (getattr(self._result, "node_problems", None) or {}).items():
            if nid not in self.cards or nid not in self.positions:
                continue
            card = self.rect(nid)
            for i, line in enumerate(problem_lines(problems, card.width())):
                out.append(QRectF(card.left(), card.bottom() + ERROR_TOP + ERROR_ROW * i,
                                  text.width(font, line) + 2, ERROR_ROW))
        return out

    def moved(self, result):
        """This renderer for `result`, whose document differs from this one's only where
        nodes stand: the same cards, measured nothing (a card dragged or nudged during a
        run: measuring each card's content again cost 1 ms of each move of the 100-node
        grid)."""
        renderer = copy.copy(self)
        renderer._result = result
        renderer.measured, renderer.renumbered = set(), {}
        return renderer

    @property
    def story(self):
        """The controller's story: assembled only when something asks for it."""
        return self._story if self._story is not None else getattr(self._result, "story", None)

    @story.setter
    def story(self, story):
        self._story = story

    def told_story(self):
        """The story if it is assembled already (set, or the result's told), else None:
        asking `story` would assemble it on every edit."""
        if self._story is not None:
            return self._story
        return self._result.story if getattr(self._result, "story_ready", False) else None

    def numbers_spec(self):
        """The format the cards' float tensors share, fixed when this renderer was made: the
        story's when it was told, else the one the result foretells from its backward pass
        (Result.numbers_spec), else the evaluation's (story.model.evaluation_spec), since
        asking the story would tell it on every edit. The player tells it when it can and
        the canvas then measures again the cards a story writes otherwise (CanvasView.story_told)."""
        spec = self.__dict__.get("_cards_spec", self)
        if spec is self:
            told = self.told_story()
            foretold = getattr(self._result, "numbers_spec", None)
            spec = self._cards_spec = number_spec(told) if told is not None else \
                foretold or evaluation_spec(self.evaluation)
        return spec

    def _content_key(self, node):
        """Everything a card shows: if it is unchanged the old measurement still holds."""
        grads = self.card_gradients(node.id)   # the node's own and its layer weights'
        return ((node.kind, node.op, node.label, repr(sorted(node.attrs.items())), node.watched,
                 node.trainable, self.used[node.id], tuple(p.index for p, _ in grads),
                 tuple(self.doc.targets), self._target_name, self.numbers_spec()),
                self._value(node.id), tuple(g for _, g in grads))


def _same_key(a, b):
    return (a is not None and a[0] == b[0] and _same_array(a[1], b[1])
            and all(_same_array(x, y) for x, y in zip(a[2], b[2])))


def make_renderer(doc, result, theme, positions, previous=None, hold_sizes=False, heights=None):
    """A Renderer over the controller's result (its cards show every port of a node, as
    every export's do: render.cards.port_counts);
    `hold_sizes`: a card whose new numbers need less room keeps its size (a training run);
    `heights` ((card, node) -> height or None): the cards drawn compact, as tall as their
    compact form (the canvas's compact_height). From `previous` it keeps the cards whose
    content is unchanged and where the player docked the step's formula card."""
    if _only_moved(previous, doc, result, theme, hold_sizes):
        return _shortened(previous.moved(result), heights, previous)
    ev = getattr(result, "evaluation", None)
    if _all_drawable(doc, ev):
        renderer = CanvasRenderer(doc, ev, result, theme, positions, previous, hold_sizes)
    else:   # a string, complex or rank > 8 tensor: its card shows the rest without it
        renderer = CanvasRenderer(_drawable_doc(doc), _drawable_evaluation(ev), result, theme, positions)
    docked = previous.docked_formula() if previous is not None else None
    if docked is not None:
        # The step on screen keeps its card where the player docked it: a renderer made with
        # no new story (a run's end measuring the cards again, a theme) drew the seed card of
        # lesson 23 at its layout's size, 7 px digits beside compact cards.
        renderer.dock_formula(*docked)
    return _shortened(renderer, heights, previous)


def _shortened(renderer, heights, previous=None):
    """`renderer` with its cards as tall as `heights` says (as measured where it says
    None; taller where a compact card writes its problems); a card `previous` shortened
    alike is kept, so its item sees the same card."""
    before = getattr(previous, "cards", {})
    cards = {}
    for nid, card in renderer.cards.items():
        full = card.full or card
        height = None if heights is None or nid not in renderer.doc.nodes else heights(full, renderer.doc.nodes[nid])
        kept = before.get(nid)
        if height is None or height == full.height:
            cards[nid] = full
        elif kept is not None and kept.full is full and kept.height == height:
            cards[nid] = kept
        else:
            cards[nid] = full.compacted(height)
    if any(cards[nid] is not card for nid, card in renderer.cards.items()):
        renderer.cards = cards
    return renderer


def _only_moved(previous, doc, result, theme, hold_sizes):
    """True when `previous` (a renderer of `doc`) shows every card as `result` would: since
    its result only nodes moved (the controller's `content` token says so), in the same
    theme, with sizes held as they were."""
    last = getattr(previous, "_result", None)
    content = getattr(result, "content", None)
    return isinstance(previous, CanvasRenderer) and previous.doc is doc and content is not None \
        and getattr(last, "content", None) is content and previous.hold_sizes == hold_sizes \
        and previous.theme == get_theme(theme) and not previous.stale_format


def _drawable(array):
    try:
        a = np.asarray(array)
        return a.dtype.kind in "biuf" and a.ndim <= 8   # an empty one says "empty, shape …"
    except Exception:
        return False


def _all_drawable(doc, ev):
    """True when every value and gradient can be previewed; any other failure of a preview
    is a defect to report, not a reason to hide a card's numbers."""
    arrays = [n.value for n in doc.nodes.values() if n.value is not None]
    if ev is not None:
        arrays += list((getattr(ev, "values", None) or {}).values())
        arrays += [g for g in (getattr(ev, "gradients", None) or {}).values() if g is not None]
    return all(_drawable(a) for a in arrays)


def _drawable_doc(doc):
    """A copy of `doc` without the tensor values a preview cannot draw."""
    safe = copy.copy(doc)
    safe.nodes = {}
    for nid, node in doc.nodes.items():
        if node.value is not None and not _drawable(node.value):
            node = copy.copy(node)
            node.value = None
        safe.nodes[nid] = node
    return safe


def _drawable_evaluation(ev):
    if ev is None:
        return None
    safe = copy.copy(ev)
    safe.values = {p: v for p, v in (getattr(ev, "values", None) or {}).items() if _drawable(v)}
    safe.gradients = {p: (g if g is None or _drawable(g) else None)
                      for p, g in (getattr(ev, "gradients", None) or {}).items()}
    return safe


def _same_array(a, b):
    """True when `a` and `b` certainly draw the same (the same bytes, shape and dtype)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.hasobject:
        return bool(np.array_equal(a, b))
    return a.tobytes() == b.tobytes()


def _card_key(card):
    return (card.title, card.subtitle, card.info, card.attrs, card.width, card.height,
            card.n_inputs, card.n_outputs, card.has_gradient,
            tuple((s[0], s[3], s[1] is None) for s in card.sections))


def same_frame(a, b):
    """True when cards `a` and `b` differ at most in their numbers (NumbersItem's part):
    the same text, size, ports and section boxes."""
    return _card_key(a) == _card_key(b) and [getattr(s.preview, "height", None) for s in a.sections] \
        == [getattr(s.preview, "height", None) for s in b.sections]


def same_numbers(a, b):
    """True when cards `a` and `b` show the same value and gradients in the same format:
    the same numbers under another shared format (render.cards' numbers_spec) are written
    otherwise (a zero matmul's '0 0' kept beside cards that went to 0.000)."""
    return _same_array(a.value, b.value) and all(
        _same_array(x.array, y.array) and getattr(x.preview, "spec", None) == getattr(y.preview, "spec", None)
        for x, y in zip(a.sections, b.sections))


def numbers_look(card, theme, pending, compact):
    """What the numbers item of `card` draws, as a value to compare: each section's
    picture (render.preview's `look`: the digits printed, a heatmap's colours), or drawn
    `compact`, its thumbnails' colours; a `pending` gradient is drawn as a word. A training
    run's later steps change numbers in digits no card prints: their cards keep their
    pictures."""
    if compact:
        return render_compact.thumbnails_look(card, theme, pending)
    return [None if s.colour == "gradient" and s.port in pending else
            (s.colour, None if s.preview is None else s.preview.look(theme)) for s in card.sections]


# -- items --------------------------------------------------------------------------------

