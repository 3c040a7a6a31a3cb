"""Paint a graph document and one story frame with QPainter (QtGui only, no widgets).

The Renderer measures every node card once (cards.py), lays the cards out
(`layout.layout`, or the positions saved in the document), routes the edges around
them (edges.py) and paints onto any QPaintDevice: a QImage, an SVG generator, a PDF
writer or a widget. A story step is drawn on top (story_overlay.py), with its formula
card (formula.py).
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter

from ..engine.errors import counted
from ..graph.document import OP
from . import compact as compact_card
from . import legible, port_labels, tiles
from .card_painting import CardPainting
from .cards import BADGE_H, HEADER_H, CardPainter
from .edges import EdgePainter
from .formula import FormulaCard
from .layout import layout
from .story_overlay import StepPainter, pill_room
from .themes import get_theme

MARGIN = 28.0
TURN_ROOM = 90.0     # beside the names of a card's output ports: room for an edge to turn
CUT_OPS = {"stop_gradient"}


class Renderer(CardPainter, CardPainting, EdgePainter, StepPainter, FormulaCard):
    """Paints `doc`, optionally with values/gradients (`evaluation`) and a story step.

    `story_index`, when set, is the step the cards are drawn at (the player's): a
    source's gradient stays pending until its accumulation step. `paint(step=...)`
    sets it for one picture.
    """

    numbers_px = legible.READABLE_PX   # a tile picture writes its cells' numbers this tall or more
                                       # (presentation mode: as tall as a slide's rule card's)

    def __init__(self, doc, evaluation=None, story=None, theme="light", positions=None):
        self.doc = doc
        self.evaluation = evaluation
        self.story = story
        self.theme = get_theme(theme)
        self.story_index = None
        self.cards = {nid: self._measure(node) for nid, node in doc.nodes.items()}
        if positions is None:
            saved = [n.position for n in doc.nodes.values()]
            if saved and all(p is not None for p in saved):
                positions = {nid: tuple(n.position) for nid, n in doc.nodes.items()}
            else:
                positions = layout(doc, {nid: (c.width, c.height) for nid, c in self.cards.items()},
                                   self.label_room())
        self.positions = positions

    def label_room(self, pills=True):
        """{node: the column gap its outgoing edges need}: for their cotangent labels (a
        label wider than the gap, a rank-4 shape, would find no free spot between the two
        cards; not with `pills` False, a view that draws them larger than the cards' scale,
        where no gap kept at that scale holds them), and past the names of its output ports,
        where an edge may turn (BatchNorm's moving_variance left its edge to layer2 a sharp bend)."""
        room = {}
        for port, value in (getattr(self.evaluation, "values", None) or {}).items() if pills else ():
            room[port.node] = max(room.get(port.node, 0.0), pill_room(value))
        for nid, card in self.cards.items():
            if card.n_outputs > 1:
                names = port_labels.output_names(self.doc.nodes[nid], card.n_outputs, self.doc)
                reach = max(port_labels.label_rect(name, True).right() for name in names)
                room[nid] = max(room.get(nid, 0.0), reach + TURN_ROOM)
        return room

    # -- geometry ----------------------------------------------------------------------
    def rect(self, nid):
        x, y = self.positions[nid]
        card = self.cards[nid]
        return QRectF(x, y, card.width, card.height)

    def input_pos(self, nid, index):
        r = self.rect(nid)
        n = max(self.cards[nid].n_inputs, index + 1)
        body = r.height() - HEADER_H
        return QPointF(r.left(), r.top() + HEADER_H + body * (index + 1) / (n + 1))

    def output_pos(self, nid, index=0):
        r = self.rect(nid)
        n = max(self.cards[nid].n_outputs, index + 1)
        body = r.height() - HEADER_H
        return QPointF(r.right(), r.top() + HEADER_H + body * (index + 1) / (n + 1))

    def step_at(self, step):
        if step is None:
            return None
        if isinstance(step, int):
            steps = getattr(self.story, "steps", None) or []
            if not -len(steps) <= step < len(steps):
                raise IndexError(f"step {step} is out of range (the story has "
                                 f"{counted(len(steps), 'step')})")
            return steps[step]
        return step

    def bounds(self, step=None):
        """The rectangle everything is painted in, margins included."""
        if not self.doc.nodes:
            return QRectF(0, 0, 320, 120)
        r = QRectF()
        for nid in self.doc.nodes:
            r = r.united(self.rect(nid).adjusted(0, -BADGE_H - 4, 0, 0))
            for label, _, _ in self.port_labels(nid):
                r = r.united(label)
        for path in self.routes().values():
            r = r.united(path.boundingRect())
        step = self.step_at(step)
        if step is not None:
            card = self._formula_rect(step)
            if card is not None:
                r = r.united(card)
            moving = self.moving_rect(step)
            if not moving.isEmpty():
                r = r.united(moving)
        return r.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)

    def cuts(self):
        """All that `is_cut` reads of the document: the stop_recording region and the nodes
        of cutting ops. While it stays the same, no edge's cut changes."""
        return (tuple(self.doc.tape.stop_recording),
                tuple(nid for nid, n in self.doc.nodes.items() if n.kind == OP and n.op in CUT_OPS))

    def is_cut(self, edge):
        dst = self.doc.nodes.get(edge.dst.node)
        if dst is None:
            return False
        return (dst.kind == OP and dst.op in CUT_OPS) or edge.dst.node in self.doc.tape.stop_recording

    def _drawn_edges(self):
        return [e for e in self.doc.edges if e.src.node in self.doc.nodes and e.dst.node in self.doc.nodes]

    # -- painting ----------------------------------------------------------------------
    def paint(self, painter, step=None, progress=1.0, background=True, region=None, compact=None):
        """Paint the graph (and the story `step`, an index or a Step) in document coordinates.

        `region` (document coordinates) skips whatever lies wholly outside it. `compact`:
        the cards drawn compact (render.compact, as the canvas draws them where their
        numbers would be too small to read), their type this many times the least legible.
        """
        step = self.step_at(step)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if background:
            painter.fillRect(self.bounds(step), QColor(self.theme.background))

        def visible(rect):
            return region is None or rect.intersects(region)

        active = getattr(step, "node", None) if step is not None else None
        routes = self.routes()
        for edge in self._drawn_edges():
            path = routes[edge]
            if visible(path.boundingRect().adjusted(-10, -10, 10, 10)):
                self._paint_edge(painter, edge, path)
        if active in self.doc.nodes:
            self._paint_highlight(painter, active)
            self._paint_leader(painter, step)
        pending = self.pending_ports(step) if compact else None
        for nid in self.doc.nodes:
            if not visible(self.rect(nid).adjusted(-8, -BADGE_H - 8, 8, 8)):
                continue
            if compact:
                compact_card.paint(painter, self, nid, pending, compact)
            else:
                self._paint_card(painter, nid, step)
        if step is not None:
            self._paint_step(painter, step, progress)


# -- public hooks for the app's step overlay (the player) --------------------------------
def formula_rect(renderer, step):
    """Where `renderer` puts the formula card of `step` (None when it has none)."""
    return renderer._formula_rect(step)


def formula_pictures(renderer, step):
    """[(label, array, QRectF, picture)]: each array of the formula card where
    `_paint_formula` draws it, and its picture (which finds the cell of an entry)."""
    rect = renderer._formula_rect(step)
    if rect is None:
        return []
    return renderer.formula_layout(step).arrays(rect.left(), rect.top(), renderer.formula_scale(step))


def formula_entry_text(renderer, step, point):
    """What hovering scene `point` on `step`'s formula card says: an entry of one of its
    pictures and its number in full (FormulaLayout.entry_text), or None."""
    rect = renderer._formula_rect(step)
    if rect is None or not rect.contains(point):
        return None
    scale = renderer.formula_scale(step)      # a card docked smaller: its own size's point
    point = QPointF(rect.left() + (point.x() - rect.left()) / scale,
                    rect.top() + (point.y() - rect.top()) / scale)
    return renderer.formula_layout(step).entry_text(rect.left(), rect.top(), point)


def formula_arrays(renderer, step):
    """[(label, array, QRectF)]: each array of the formula card where `_paint_formula` draws it."""
    return [placed[:3] for placed in formula_pictures(renderer, step)]


def formula_spec(renderer, step, array):
    """The number format the step's formula card writes `array` in (None: its own, by
    preview's rule)."""
    return renderer.formula_layout(step).spec_of(array) if renderer._formula_rect(step) is not None else None


def entry_rect(array, x, y, flat_index, spec=None):
    """The cell of entry `flat_index` in the picture of `array` drawn at (x, y) (in the
    card's number format `spec`); None if elided."""
    return tiles.picture(array, spec=spec).cell_rect(x, y, flat_index)
