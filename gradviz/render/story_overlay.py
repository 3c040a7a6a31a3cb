"""One story step drawn over the graph: the active node, the cotangent travelling back
along the edges that carry it, its labels, the seed arrow and the formula card.

Which edges carry a cotangent comes from the story itself: an edge from tensor P into
input k of node D carries one exactly when the story has a contribution step of D for
input k delivering to P. So a cut edge (stop_gradient, a node not recorded) never
animates, and an unconnected source gets no arrow at all.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from ..graph.document import Edge, Port
from ..graph.tensors import dims
from . import text
from .cards import BADGE_H, PORT_R, port_name
from .spots import segment_meets_rect
from .track import Track, apart

ARROW_HEAD = 14.0
PILL_H = BADGE_H - 2
PILL_PAD = 10.0        # a pill is its text plus this
PILL_ROOM = 24.0       # a column gap fits a pill with this to spare (ports, card glow)


def pill_font():
    return text.sans(8, bold=True)


def seed_font():
    return text.sans(9, bold=True)


def cotangent_label(array):
    """A pill's text for a cotangent: its shape as the cards write it, never read as its
    value: "cotangent 2×3"; a vector's shape, one bare number, says it is a shape
    ("cotangent 2" read as the value 2), "cotangent shape 2"; "cotangent · scalar"."""
    shape = np.shape(array)
    if not shape:
        return "cotangent · scalar"
    return f"cotangent {'shape ' if len(shape) == 1 else ''}{dims(shape)}"


def pill_room(array):
    """The column gap a pill for `array` needs between two cards (whole pixels, as the
    layout's other gaps)."""
    return math.ceil(text.width(pill_font(), cotangent_label(array)) + PILL_PAD + PILL_ROOM)
SEED_LEN = 60.0
SEED_GAP = 5.0         # between the seed arrow's tail and its label
SEED_H = 16.0          # the seed label's box
FAN_SPREAD = 10.0       # between the arrows of a fan-in's paths that come along one edge
LEADER_FROM = PILL_H    # a label further than this from what it names gets a leader line to it
BESIDE = PILL_H + 4 + 5  # a label this near a line (in its own units) reads as that line's
PILL_LEVELS = 8        # rows of spots a pill tries on each side of its arrow, nearest first
_PILL_SPOTS = (0.5, 0.35, 0.65, 0.22, 0.78, 0.12, 0.88)
LEADER_TRIES = 6       # spots a label tries whose leader line would cross a text or a card
RING, GLOW = 6.0, 4.0  # the active card's ring lies this far out of it, its glow this much further


def _best_spot(spots, reach, bounds, blocked, pills, grey, clear, rejected=()):
    """The first of `spots` (nearest their arrow first; `reach`: how far a spot is from
    it) by the rules in order of what gives way last: in `bounds` (None: anywhere), off
    `blocked`, `clear` of the step's other arrows, no `grey` Track (another edge) nearer
    than its own arrow (else none within BESIDE of it, where it would read as that edge's);
    then the same spots moved into `bounds`; then off the other labels (`pills`). None of
    `rejected` (spots whose leader line could not run clear) while another is left."""
    if bounds is not None:
        spots = spots + [
            r.translated(min(max(r.left(), bounds.left()), bounds.right() - r.width()) - r.left(),
                         min(max(r.top(), bounds.top()), bounds.bottom() - r.height()) - r.top())
            for r in spots if not bounds.contains(r)]
    seen = bounds.contains if bounds is not None else (lambda r: True)
    boxes = [(t, t.xy.min(axis=0), t.xy.max(axis=0)) for t in grey if len(t.xy)]
    near = BESIDE * spots[0].height() / PILL_H

    def alone(r, limit=math.inf):
        """No other edge nearer `r` than its own arrow (within `limit`); on its own arrow,
        none through it (a pill over its arrow lay over the other edge into matmul's b too)."""
        d = max(min(reach(r), limit), 1e-9)
        return not any(lo[0] <= r.right() + d and hi[0] >= r.left() - d and lo[1] <= r.bottom() + d
                       and hi[1] >= r.top() - d and t.distance(r) < d for t, lo, hi in boxes)
    off = [r for r in spots if not any(r.intersects(b) for b in blocked) and r not in rejected and clear(r)]
    for rule in (lambda r: seen(r) and alone(r), lambda r: seen(r) and alone(r, near), seen,
                 lambda r: alone(r, near), lambda r: True):
        found = next((r for r in off if rule(r)), None)
        if found is not None:
            return found
    return next((r for r in spots if seen(r) and not any(r.intersects(b) for b in pills)),
                next((r for r in spots if not any(r.intersects(b) for b in pills)), spots[0]))


class StepPainter:
    """The story-step overlay (a part of Renderer)."""

    # Scene units per unit of the labels' own size (the pills, the seed's word): 1 in an
    # export, where they are drawn to scale with the cards; the canvas sets it from its zoom
    # so that they keep one size on screen (Fit far out drew them 5 px tall, issue 20)
    label_scale = 1.0
    # The scene rect the labels stay in where they can (the view the player framed the step
    # in); None (an export): anywhere
    label_bounds = None

    # -- which edges a step animates ---------------------------------------------------
    def _contribution_edges(self, step):
        """The edges a contribution (or cut) step concerns: those from its port into its node
        (the slot tells apart two from the same port, as in x * x: an op's inputs need not be
        in its node's order, cross-entropy's op takes the logits first). A contribution to a
        tensor that its node uses inside (a gradient node's rule reads a layer's output) and
        no edge brings in comes along a link drawn for the step (`_used_inside`)."""
        nid = step.node
        edges = [e for e in self.doc.inputs_of(nid) if e.src.node in self.doc.nodes]
        slot = getattr(step, "input_index", None)
        port = getattr(step, "port", None)
        if port is None:
            return [e for e in edges if e.dst.index == slot] if slot is not None else edges
        if port.node == nid:          # the node's own variable (a layer's kernel): no edge
            return []
        edges = [e for e in edges if e.src == port]
        if len(edges) > 1 and slot is not None:
            edges = [e for e in edges if e.dst.index == slot] or edges
        if not edges and getattr(step, "kind", "") == "contribution" and port.node in self.doc.nodes:
            edges = [self._used_inside(nid, port)]
        return edges

    def _used_inside(self, nid, port):
        """The link from `port` into node `nid` that uses it inside: into the first input that
        depends on it (a gradient node reads its target's tape), drawn only for the step."""
        inputs = self.doc.inputs_of(nid)
        slot = next((e.dst.index for e in inputs if port.node in self.doc.ancestors({e.src.node})),
                    inputs[0].dst.index if inputs else 0)
        return Edge(port, Port(nid, slot))

    def _through(self, edge):
        """', which reads layer.kernel (no edge)' for a link drawn only for a step
        (`_used_inside`: t1.gradient(out, x) reads layer.kernel inside, not by an input of
        its own), '' for an edge of the graph."""
        if edge in self.doc.edges:
            return ""
        return f", which reads {port_name(self.doc, edge.src)} (no edge)"

    def _delivered(self):
        """{step index: [edges]} for every contribution step (cached per story)."""
        cached = getattr(self, "_delivered_cache", None)
        if cached is not None and cached[0] is self.story and cached[1] is self.doc:
            return cached[2]
        out = {}
        for s in getattr(self.story, "steps", None) or []:
            if getattr(s, "kind", "") == "contribution" and s.node in self.doc.nodes and s.port is not None:
                out[s.index] = self._contribution_edges(s)
        self._delivered_cache = (self.story, self.doc, out)
        return out

    def carrying_edges(self, step):
        """The edges along which a cotangent flows in `step`, in the order the story sums them."""
        nid = getattr(step, "node", None)
        kind = getattr(step, "kind", "")
        if nid not in self.doc.nodes:
            return []
        if kind == "contribution":
            return self._contribution_edges(step) if getattr(step, "port", None) is not None else []
        if kind not in ("visit", "fan_in", "accumulate"):
            return []
        port = getattr(step, "port", None)
        if port is None:
            return []
        delivered = self._delivered()
        index = getattr(step, "index", None)
        sources = getattr(step, "_sources", None) if kind == "fan_in" else None
        if sources:
            order = [i for i in sources if i in delivered]
        else:
            order = sorted(i for i in delivered if index is None or i < index)
        edges = []
        for i in order:
            for e in delivered[i]:
                same = e.src == port if kind != "visit" else e.src.node == nid
                if same and e not in edges:
                    edges.append(e)
        return edges

    def _step_edges(self, step):
        """The edges `step` draws: the cut edges of a cut step, else those carrying a cotangent."""
        if getattr(step, "kind", "") == "cut":
            return self._contribution_edges(step) if getattr(step, "node", None) in self.doc.nodes else []
        return self.carrying_edges(step)

    # -- geometry of the overlay -----------------------------------------------------------
    def step_paths(self, step):
        """[(edge, path)]: each drawn edge's route reversed, from the consumer back to the producer."""
        return [(e, self.edge_path(e).toReversed()) for e in self._step_edges(step)]

    def step_tracks(self, step):
        """[(edge, Track)] of `step_paths`, flattened once per step and route; a fan-in's
        paths that come along one edge (two uses inside t1.gradient(out, x)) each get their
        own arrow beside the others, meeting at the port where they are summed."""
        paths = [(e, self.edge_path(e)) for e in self._step_edges(step)]
        key = (id(step), tuple(id(p) for _, p in paths))
        cached = getattr(self, "_track_cache", None)
        if cached is not None and cached[0] == key and cached[1] is step:
            return cached[2]
        tracks = []
        for e, p in paths:
            track, n = Track(p.toReversed()), len(self._fan_paths(step, e))
            tracks += [(e, track.beside((j - (n - 1) / 2) * FAN_SPREAD)) for j in range(n)] if n > 1 \
                else [(e, track)]
        self._track_cache = (key, step, tracks)
        return tracks

    def _fan_paths(self, step, edge):
        """The names of a fan-in step's paths whose contribution comes along `edge` (as its
        card writes them under their numbers); [] for another kind of step."""
        if getattr(step, "kind", "") != "fan_in":
            return []
        delivered, names = self._delivered(), getattr(step, "paths", None) or []
        return [names[k] if k < len(names) else "" for k, s in enumerate(getattr(step, "_sources", None) or ())
                if edge in delivered.get(s, ())]

    def _pill_texts(self, step):
        """A label per track of `step_tracks`: a fan-in's path by where it comes from, as
        the card says; a cotangent's shape."""
        texts, seen = [], {}
        for edge, _ in self.step_tracks(step):
            if getattr(step, "kind", "") != "fan_in":
                texts.append(self._pill_text(step, edge))
                continue
            names = self._fan_paths(step, edge)
            k = seen[edge] = seen.get(edge, -1) + 1
            texts.append(names[k] if len(names) > 1 and names[k] else self._pill_text(step, edge))
        return texts

    def _pill_text(self, step, edge):
        if getattr(step, "kind", "") == "fan_in":   # the path by where it comes from, as the card says
            node = self.doc.nodes.get(edge.dst.node)
            twice = sum(e.src == edge.src and e.dst.node == edge.dst.node for e in self.doc.edges) > 1
            ports = [name for _, name, is_output in self.port_labels(edge.dst.node) if not is_output] \
                if node is not None else []
            slot = ports[edge.dst.index] if edge.dst.index < len(ports) else edge.dst.index + 1
            return (f"from {(node.label or node.id) if node is not None else edge.dst.node}"
                    + (f", input {slot}" if twice else "") + self._through(edge))
        array = getattr(step, "cotangent", None)
        if array is None:
            array = getattr(step, "total", None)
        label = "cotangent" if array is None else cotangent_label(array)
        return label if edge in self.doc.edges else f"{label} (no edge)"

    def pill_rects(self, step):
        """[(text, QRectF)]: a label per animated path (one for paths saying the same), placed
        off every card, the formula card, the other arrows and each other: the first free
        spot along the path, moving away from it only when nearer spots are taken."""
        return [(label, rect) for label, rect, _ in self.placed_pills(step)]

    def placed_pills(self, step):
        """[(text, QRectF, anchor)] of `pill_rects`, each with what it labels: the Track of
        its arrow, or the card (QRectF) a path with no arrow is inside (a layer's own matmul
        reading its kernel). A label goes, best first: inside `label_bounds` (the view the
        player framed), off the cards, names, formula card and other labels, clear of the
        step's other arrows, and with no other edge nearer it than its own arrow (BatchNorm's
        step 9 put "cotangent (7, 8)" above the view, and others sat on a grey edge far from
        their own); each rule is given up only where no spot keeps it."""
        if getattr(step, "kind", "") == "cut":
            return []
        card = self._formula_rect(step)      # beside its node, or docked where the player put it
        k = self.label_scale
        bounds = self.label_bounds
        key = (id(step), None if card is None else card.getRect(), k, None if bounds is None else bounds.getRect())
        memo = self._geometry_memo("_pill_cache")
        hit = memo.get(key)
        if hit is not None and hit[0] is step:
            return hit[1]
        font = pill_font()
        blocked = self._label_obstacles(card, step.node)
        placed = []
        tracks = self.step_tracks(step)
        own_edges = set(self._step_edges(step))
        grey = [t for e, t in self._edge_tracks().items() if e not in own_edges]
        texts = [r for n in self.doc.nodes for r, _, _ in self.port_labels(n)]
        texts += [r for n in self.doc.nodes for _, _, r in self.badges(n)] + self.problem_rects()
        leads = []      # the leader lines of the labels placed: the next ones keep off them
        for i, ((edge, track), label) in enumerate(zip(tracks, self._pill_texts(step))):
            if any(label == done for done, _, _ in placed):   # one label says it for parallel arrows
                continue
            track = track.within(bounds) or track      # the part of the arrow in view
            w, h = (text.width(font, label) + PILL_PAD) * k, PILL_H * k
            others = [other for j, (_, other) in enumerate(tracks) if j != i]
            spots = []
            for level in range(PILL_LEVELS):         # further from the path only when nearer is taken
                shift = (5 + level * (PILL_H + 4)) * k
                points = [track.at(track.length * at)[0] for at in _PILL_SPOTS]
                for c in points:                     # below or above the path, centred on it
                    spots += [QRectF(c.x() - w / 2, c.y() + shift, w, h),
                              QRectF(c.x() - w / 2, c.y() - shift - h, w, h)]
                for c in points:                     # ... ending or starting there; beside it
                    spots += [QRectF(x, y, w, h) for x in (c.x() - w, c.x())
                              for y in (c.y() + shift, c.y() - shift - h)]
                    spots += [QRectF(c.x() + shift, c.y() - h / 2, w, h),
                              QRectF(c.x() - shift - w, c.y() - h / 2, w, h)]
            pills = blocked[len(blocked) - len(placed):]
            clear = lambda r: not any(o.crosses(r.adjusted(-2 * k, -2 * k, 2 * k, 2 * k)) for o in others) \
                and not any(segment_meets_rect(*ends, *r.getCoords()) for ends in leads)
            rejected, first = [], None
            for _ in range(LEADER_TRIES):       # a spot whose leader would cross a text or a card: the next
                free = _best_spot(spots, track.distance, bounds, blocked, pills, grey, clear, rejected)
                line, ok = self._leader_line(track, free, texts + [r for _, r, _ in placed])
                first = first or (free, line)
                if ok:
                    break
                rejected.append(free)
            else:
                free, line = first
            if line is not None:
                leads.append((line.x1(), line.y1(), line.x2(), line.y2()))
            placed.append((label, free, track))
            blocked.append(free.adjusted(-3 * k, -3 * k, 3 * k, 3 * k))
        for label in self._inside_paths(step):   # no arrow: said beside the port, else just
            w, h = (text.width(font, label) + PILL_PAD) * k, PILL_H * k   # below or above the node
            out = self.output_pos(step.port.node, step.port.index)
            own = self.rect(step.port.node)
            row = h + 4 * k
            spots = [QRectF(out.x() + 8 * k, out.y() + n * row - h / 2, w, h) for n in (0, 1, -1, 2, -2, 3, -3)]
            spots += [QRectF(own.right() - w, own.bottom() + RING + GLOW + 3 * k + n * row, w, h)
                      for n in range(3)]   # below, clear of the ring round its card
            spots += [QRectF(own.right() - w, own.top() - BADGE_H - 8 * k - h - n * row, w, h)
                      for n in range(3)]
            # ... then from its left, or centred under or over it, where those lie beside
            # another edge (lesson 14's step 22 after Auto Layout: x's edge into
            # t1.gradient ran past the label's left end, nearer it than layer's card)
            spots += [rect.translated(x - rect.left(), 0) for rect in spots[-6:]
                      for x in (own.left(), own.center().x() - w / 2)]
            free = _best_spot(spots, lambda r, own=own: apart(r, own), bounds, blocked,
                              blocked[len(blocked) - len(placed):], grey, lambda r: True)
            placed.append((label, free, own))
            blocked.append(free.adjusted(-3 * k, -3 * k, 3 * k, 3 * k))
        memo[key] = (step, placed)
        return placed

    def pill_leaders(self, step):
        """[(text, QLineF)]: a leader line from each label that could not lie within
        LEADER_FROM of what it names (the part of its arrow in view, or its card) to the
        nearest point of it, so that which arrow a label names reads at a glance (the
        nearer spots taken by cards, port names and other edges: a relu chain's
        "cotangent (1, 6)" lay under layer6's card, ~50 px from its arrow)."""
        out = []
        for label, rect, anchor in self.placed_pills(step):
            line, _ = self._leader_line(anchor, rect, [r for r in self.text_rects(step) if r != rect])
            if line is not None:
                out.append((label, line))
        return out

    def _leader_line(self, anchor, rect, texts):
        """(QLineF or None, whether it crosses none of `texts` and no card): the leader from
        a label at `rect` to `anchor` (its arrow's Track, or the card a path is inside), None
        within LEADER_FROM of it."""
        if not isinstance(anchor, Track):
            anchor = Track(xy=np.array([[anchor.left(), anchor.top()], [anchor.right(), anchor.top()],
                                        [anchor.right(), anchor.bottom()], [anchor.left(), anchor.bottom()],
                                        [anchor.left(), anchor.top()]]))
        if anchor.distance(rect) <= LEADER_FROM * self.label_scale:
            return None, True
        avoid = list(texts) + [self.rect(n).adjusted(1, 1, -1, -1) for n in self.doc.nodes]
        tip, start = anchor.nearest(rect, avoid)
        ok = not any(segment_meets_rect(start.x(), start.y(), tip.x(), tip.y(), *b.getCoords()) for b in avoid)
        return QLineF(start, tip), ok

    def _edge_tracks(self):
        """{edge: Track} of every edge drawn, flattened once per card geometry."""
        key = self._obstacles_key()
        cached = getattr(self, "_edge_track_cache", None)
        if cached is None or cached[0] != key:
            tracks = {e: Track(self.edge_path(e)) for e in self._drawn_edges()}
            cached = self._edge_track_cache = (key, tracks)
        return cached[1]

    def _inside_paths(self, step):
        """A fan-in's paths that no edge brings: uses inside the node itself (a layer's own
        matmul reading its kernel), named as the card names them, and said to be inside
        the node, with no edge (so no arrow)."""
        if getattr(step, "kind", "") != "fan_in" or getattr(step, "port", None) is None:
            return []
        delivered, steps = self._delivered(), getattr(self.story, "steps", None) or []
        paths = getattr(step, "paths", None) or []
        node = self.doc.nodes.get(step.port.node)
        owner = (node.label or node.id) if node is not None else step.port.node
        return [f"{paths[k]}, inside {owner} (no edge)"
                for k, i in enumerate(getattr(step, "_sources", None) or ())
                if k < len(paths) and not delivered.get(i) and i < len(steps)
                and steps[i].kind == "contribution" and steps[i].node == step.port.node]

    def _label_obstacles(self, card, active=None):
        """What an overlay's label must not cover: every card with its badges, the ring and
        glow round the `active` card (lesson 14's "from layer's matmul, inside layer (no edge)"
        lay on layer's ring), the ports' names beside the cards (matmul's a and b, a layer's
        output and kernel) and the formula card."""
        blocked = [self.rect(n).adjusted(-1, -BADGE_H - 4 if self._has_badge(n) else -4, 1, 1)
                   for n in self.doc.nodes]
        if active in self.doc.nodes:
            blocked.append(self.ring_rect(active).adjusted(-GLOW, -GLOW, GLOW, GLOW))
        blocked += [r.adjusted(-2, -2, 2, 2) for n in self.doc.nodes for r, _, _ in self.port_labels(n)]
        if card is not None:
            blocked.append(card.adjusted(-3, -3, 3, 3))
        return blocked

    def problem_rects(self, nid=None):
        """[QRectF] of the problems written under cards (under card `nid` alone): none in a
        picture (the canvas writes them: CanvasRenderer)."""
        return []

    def text_rects(self, step):
        """[QRectF] of the text drawn outside the cards at `step`: the ports' names, the
        badges, the step's labels (`label_rects`) and the problems under cards: what a
        leader line must not cross."""
        out = [r for n in self.doc.nodes for r, _, _ in self.port_labels(n)]
        out += [r for n in self.doc.nodes for _, _, r in self.badges(n)]
        out += [r for _, r in self.label_rects(step)]
        return out + self.problem_rects()

    def _has_badge(self, nid):
        """Does the card write a badge above it (source, target, not recorded)?"""
        return bool(self.source_badge(nid)) or nid in self.doc.tape.stop_recording \
            or any(p.node == nid for p in self.doc.targets)

    def seed_marks(self, step):
        """(tail, tip, label rect) of a seed step's arrow into the target's output port, or
        None: the label at the tail, else above or below the shaft, wherever it covers no
        card, no port's name, no formula card and no other label."""
        if getattr(step, "kind", "") != "seed" or getattr(step, "node", None) not in self.doc.nodes:
            return None
        out = self.output_pos(step.node, getattr(getattr(step, "port", None), "index", 0) or 0)
        k = self.label_scale
        w, h = (text.width(seed_font(), "seed") + 6) * k, SEED_H * k
        tail, tip = QPointF(out.x() + SEED_LEN, out.y()), QPointF(out.x() + PORT_R + 2, out.y())
        middle = (tail.x() + tip.x() + ARROW_HEAD) / 2
        spots = [QRectF(tail.x() + SEED_GAP * k, out.y() - h / 2, w, h),
                 QRectF(middle - w / 2, out.y() - 6 - h, w, h),
                 QRectF(middle - w / 2, out.y() + 6, w, h)]
        blocked = self._label_obstacles(self._formula_rect(step), step.node)
        blocked += [r for _, r in self.pill_rects(step)]
        label = next((r for r in spots if not any(r.intersects(b) for b in blocked)), spots[0])
        return tail, tip, label

    def label_rects(self, step):
        """[(text, rect)] of every label the overlay writes for `step`: the pills, the seed's."""
        labels = list(self.pill_rects(step))
        seed = self.seed_marks(step)
        if seed is not None:
            labels.append(("seed", seed[2]))
        return labels

    def moving_rect(self, step):
        """Where the animation of `step` paints while its progress changes (arrows and labels)."""
        rect = QRectF()
        for e in self._step_edges(step):  # a route's bounds do not depend on its direction
            rect = rect.united(self.edge_path(e).boundingRect().adjusted(-ARROW_HEAD, -ARROW_HEAD,
                                                                          ARROW_HEAD, ARROW_HEAD))
        for _, r in self.label_rects(step):
            rect = rect.united(r.adjusted(-2, -2, 2, 2))
        reach = 4 * self.label_scale
        for _, line in self.pill_leaders(step):
            rect = rect.united(QRectF(line.p1(), line.p2()).normalized().adjusted(-reach, -reach, reach, reach))
        seed = self.seed_marks(step)
        if seed is not None:
            tail, tip, _ = seed
            rect = rect.united(QRectF(tip.x() - 4, tip.y() - ARROW_HEAD, tail.x() - tip.x() + 8,
                                      2 * ARROW_HEAD))
        return rect

    # -- painting -----------------------------------------------------------------------
    def ring_rect(self, nid):
        """The active card's ring: RING out of the card and round its badges (the ring over
        the card's top ran through 'target' and 'source', lessons 17 and 19 in F5)."""
        r = self.rect(nid)
        for _, _, badge in self.badges(nid):
            r = r.united(badge)
        return r.adjusted(-RING, -RING, RING, RING)

    def _paint_highlight(self, painter, nid):
        r = self.ring_rect(nid)
        glow = QColor(self.theme.active)
        glow.setAlpha(70)
        # a band from the card's edge to GLOW beyond the ring, not a fill: round the badges'
        # row it would tint the gap between them and the card
        shift = (GLOW - RING) / 2
        painter.setPen(QPen(glow, RING + GLOW))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(r.adjusted(-shift, -shift, shift, shift), 12.5, 12.5)
        painter.setPen(QPen(QColor(self.theme.active), 3.0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(r, 11, 11)

    def _in_label_units(self, painter, rect):
        """`painter` (saved) scaled so that `rect` is drawn as (0, 0, its size in the labels'
        own units): their text keeps the size `label_scale` gives it, fonts unchanged."""
        k = self.label_scale
        painter.save()
        painter.translate(rect.topLeft())
        painter.scale(k, k)
        return QRectF(0, 0, rect.width() / k, rect.height() / k)

    def _pill(self, painter, rect, label, colour):
        rect = self._in_label_units(painter, rect)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(pill_font())
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
        painter.restore()

    def _leader(self, painter, line, colour):
        """A thin dotted line from a label to the arrow it names, a dot where it meets it."""
        k = self.label_scale
        pen = QPen(QColor(colour), 1.5 * k)
        pen.setStyle(Qt.PenStyle.DotLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawLine(line)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawEllipse(line.p2(), 3.0 * k, 3.0 * k)

    def _arrow_pen(self, step, edge):
        """A cotangent's arrow: solid along an edge, dashed where the gradient is cut, dotted
        along a link drawn only for the step (`_through`: no wire in the graph)."""
        kind = getattr(step, "kind", "")
        pen = QPen(QColor(self.theme.cut if kind == "cut" else self.theme.cotangent), 4.0)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        if kind == "cut":
            pen.setStyle(Qt.PenStyle.DashLine)
        elif edge not in self.doc.edges:
            pen.setStyle(Qt.PenStyle.DotLine)
        return pen

    def paint_arrows(self, painter, step, progress):
        """The moving part of a step: cotangent arrows (and, once arrived, their labels)."""
        t = self.theme
        kind = getattr(step, "kind", "")
        colour = t.cut if kind == "cut" else t.cotangent
        progress = min(1.0, max(0.0, progress))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for edge, track in self.step_tracks(step):
            travelled = max(0.0, track.length - PORT_R - 3) * progress   # stops at the port's rim
            painter.setPen(self._arrow_pen(step, edge))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPolyline(track.head(max(0.0, travelled - ARROW_HEAD + 2)))
            tip, angle = track.at(travelled)
            self._arrowhead(painter, tip, angle, colour, size=ARROW_HEAD)
            if kind == "cut":
                self._cut_mark(painter, self.cut_point(edge))
        if progress >= 1.0:
            for _, line in self.pill_leaders(step):
                self._leader(painter, line, colour)
            for label, rect in self.pill_rects(step):
                self._pill(painter, rect, label, colour)
        seed = self.seed_marks(step)
        if seed is not None:
            tail, tip, label = seed
            painter.setPen(QPen(QColor(colour), 4.0))
            painter.drawLine(tail, QPointF(tip.x() + 8, tip.y()))
            self._arrowhead(painter, tip, math.pi, colour, size=ARROW_HEAD)
            label = self._in_label_units(painter, label)
            painter.setFont(seed_font())
            painter.setPen(QColor(colour))
            painter.drawText(label, Qt.AlignmentFlag.AlignCenter, "seed")
            painter.restore()

    def _paint_step(self, painter, step, progress):
        self.paint_arrows(painter, step, progress)
        self._paint_formula(painter, step)

