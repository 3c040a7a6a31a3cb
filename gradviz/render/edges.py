"""Edges: routed around the cards they would cross, painted with a cut mark where the
gradient stops (stop_gradient, a node outside the tape's recording).

The router works on any card positions (the layout's or the user's). Between its two
ports an edge meets the cards in its way as "columns" (cards overlapping in x merge
into one); it crosses each column level, through a gap between cards, and changes
height only in the free space between columns. The gaps are chosen to move as little
up and down as possible (a small dynamic program), so a short edge stays straight and
a long one finds the channel the layered layout left for it.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen, QPolygonF

from .cards import BADGE_H, PORT_R

CLEARANCE = 8.0          # kept between an edge and any card
BEND_COST = 24.0         # a change of height costs this much on top of its length
CUT_AT = 0.6             # where the ✕ of a cut edge sits, as a fraction of its length
BACK_REACH = 24.0        # how far an edge to an input behind its output goes out before it turns
CORNER = 12.0            # the radius of its turns
LANE_STEP = 8.0          # between the lanes of edges into one card's inputs
LABEL_CLEAR = 4.0        # past the end of a port's name before an edge turns
DIRECT_SAMPLES = 32      # points along an S between near ports checked against the names beside them
MEMO_MOST = 64           # entries a renderer keeps per card geometry (`_geometry_memo`)


def _merge(intervals):
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def _columns(boxes):
    """Boxes grouped into columns (overlapping in x): [(left, right, [(top, bottom)])]."""
    columns = []
    for box_left, top, box_right, bottom in sorted(boxes):
        if columns and box_left < columns[-1][1]:
            left, right, ys = columns[-1]
            columns[-1] = (left, max(right, box_right), ys + [(top, bottom)])
        else:
            columns.append((box_left, box_right, [(top, bottom)]))
    return [(left, right, _merge(ys)) for left, right, ys in columns]


def _free(blocked):
    """The free y intervals around merged blocked intervals."""
    free, lo = [], -math.inf
    for top, bottom in blocked:
        if top > lo:
            free.append((lo, top))
        lo = max(lo, bottom)
    free.append((lo, math.inf))
    return free


def _levels(columns, x_start, y_start, x_end, y_end):
    """The height at which the edge crosses each column: the least vertical travel, each
    change of height costing a bend, and more where the gap is too narrow for it."""
    if not columns:
        return []
    anchors = [y_start, y_end]
    options = []
    for _, _, blocked in columns:
        choices = set()
        for lo, hi in _free(blocked):
            for y in anchors + [lo, hi]:
                if math.isfinite(y):
                    choices.add(round(min(max(y, lo), hi), 3))
        options.append(sorted(choices))
    rights = [x_start] + [right for _, right, _ in columns]
    lefts = [left for left, _, _ in columns] + [x_end]
    gaps = [max(0.0, left - right) for right, left in zip(rights, lefts)]

    def step(y0, y1, gap):
        d = abs(y1 - y0)
        return 0.0 if d <= 0.5 else d + BEND_COST + 2 * max(0.0, d - gap)

    # best[y]: (cost, path) of the cheapest way to cross the columns so far ending at y,
    # ties going to the smaller path (so the result does not depend on set order). The
    # winner's path is extended once per choice, not once per candidate.
    best = {y: (step(y_start, y, gaps[0]), [y]) for y in options[0]}
    for k, choices in enumerate(options[1:], start=1):
        gap, previous, nxt = gaps[k], list(best.items()), {}
        for y in choices:
            win_cost, win_path = None, None
            for prev, (cost, path) in previous:
                d = abs(y - prev)
                total = cost if d <= 0.5 else cost + (d + BEND_COST + 2 * max(0.0, d - gap))
                if win_path is None or total < win_cost or (total == win_cost and path < win_path):
                    win_cost, win_path = total, path
            nxt[y] = (win_cost, win_path + [y])
        best = nxt
    _, path = min(((c + step(p[-1], y_end, gaps[-1]), p) for c, p in best.values()),
                  key=lambda item: (item[0], item[1]))
    return path


def _s_curve(path, x0, y0, x1, y1):
    """Continue `path` from (x0, y0) to (x1, y1) with horizontal tangents at both ends."""
    if abs(y1 - y0) < 0.5:
        if x1 - x0 > 0.5:
            path.lineTo(QPointF(x1, y1))
        return
    dx = (x1 - x0) * 0.5
    path.cubicTo(QPointF(x0 + dx, y0), QPointF(x1 - dx, y1), QPointF(x1, y1))


def plain_path(a, b):
    """The curve between two points when nothing is in the way (also the wire being dragged)."""
    path = QPainterPath(a)
    dx = max(40.0, abs(b.x() - a.x()) * 0.5)
    path.cubicTo(QPointF(a.x() + dx, a.y()), QPointF(b.x() - dx, b.y()), b)
    return path


_ROUTES = {}        # (ends, the obstacles in the way) -> path, across renderers
_ROUTES_MAX = 4096


def route(a, b, obstacles, slot=0, back=False, lead_out=0.0, lead_in=0.0, ports=()):
    """A path from output port `a` to input point `b` (input `slot` of its card) that crosses
    none of `obstacles` ((left, top, right, bottom) boxes, already grown by the clearance)
    lying between them; a plain curve if none does. `back`: the input lies behind the
    output (a folded layout's next row): the path wraps round the cards along a free lane
    between the two, or is a plain curve where the cards leave none (crowded by hand).
    lead_out, lead_in: how far the path runs straight out of `a` and into `b` before it
    turns, past the names written beside the ports of that side of the card (BatchNorm's
    output edge curved down through "gamma"). (Plain tuples: a hundred QRectF calls cost
    more than the route.)
    ports: the (x, y) of other cards' ports; a wrapping path keeps clear of them (an edge
    that ran down past b's output and turned there read as b's edge).

    Remembered by its ends and the obstacles in its span: after an edit re-measures cards,
    an edge whose own stretch of the canvas did not change is not routed again."""
    if lead_out > 0 or lead_in > 0:
        a2, b2 = QPointF(a.x() + lead_out, a.y()), QPointF(b.x() - lead_in, b.y())
        if back or b2.x() - a2.x() >= 2 * CLEARANCE:
            inner = route(a2, b2, obstacles, slot, back, ports=ports)
            path = QPainterPath(a)
            path.lineTo(a2)
            path.connectPath(inner)
            path.lineTo(b)
            return path
    ax, bx = a.x(), b.x()
    if back:
        span = tuple(box for box in obstacles if box[2] > bx - 2 * BACK_REACH and box[0] < ax + 2 * BACK_REACH)
    else:
        span = tuple(box for box in obstacles if box[2] > ax and box[0] < bx)
        if bx - ax < 2 * CLEARANCE or not span:
            return plain_path(a, b)
        low, high = sorted((a.y(), b.y()))
        if not any(box[1] < high and box[3] > low for box in span):
            # Every card in its stretch above or below both ends: one S between the ports.
            # (Routed round them, a card's column that begins at the output left the turn no
            # room: W2's edge to matmul_1 rose along W2's border, behind the card.)
            path = QPainterPath(a)
            _s_curve(path, ax, a.y(), bx, b.y())
            return path
    near = tuple(ports) if back else ()
    key = (ax, a.y(), bx, b.y(), span, slot if back else 0, near)
    path = _ROUTES.get(key)
    if path is None:
        if len(_ROUTES) >= _ROUTES_MAX:
            _ROUTES.clear()
        path = _ROUTES[key] = _route_back(a, b, span, slot, near) if back else _route_around(a, b, span)
    return QPainterPath(path)  # a copy: the caller may change its own


def _lane(obstacles, x0, x1, y0, y1, slot):
    """The height of a free horizontal lane from x0 to x1 between y0 and y1, nearest their
    middle (None when no gap between the cards there lies between them): near the bottom
    of its gap, a later input `slot` higher, so that edges into one card's inputs nest."""
    blocked = _merge([(top, bottom) for left, top, right, bottom in obstacles if right > x0 and left < x1])
    middle = (y0 + y1) / 2
    best = None
    for lo, hi in _free(blocked):
        if math.isfinite(hi):
            y = max(hi - BACK_REACH / 2 - LANE_STEP * slot, lo + 4)
        else:
            y = lo + BACK_REACH / 2 + LANE_STEP * slot
        if not (lo < y < hi and min(y0, y1) <= y <= max(y0, y1)):
            continue
        if best is None or abs(y - middle) < best[0]:
            best = (abs(y - middle), y)
    return best[1] if best is not None else None


def _route_back(a, b, obstacles, slot, ports=()):
    """A path to an input behind the output, as a folded layout's rows wrap: out to the
    right, down (or up) to a free lane between the cards, back along it, and in from the
    left (a later input `slot` further out), with rounded corners. Where a card stands
    between the way down (up) and the port it leads to, the way runs in the gap between
    that card and the port's own (a student's W2 left of matmul_1: the edge from relu ran
    behind W2's card into matmul_1's input). Where that way passes another card's port
    (`ports`), the lane beyond the input's height is taken if it passes none: a student's
    y under add, b left of both: sigmoid's edge to y came down between b and add and
    turned into y at the height of b's output, reading as b's edge."""
    corners = _back_corners(a, b, obstacles, slot, _lane)
    if corners is None:     # cards crowded with no gap between the two rows: no lane to take
        return plain_path(a, b)
    if _passes(corners, ports):
        beyond = _back_corners(a, b, obstacles, slot, _lane_beyond)
        if beyond is not None and not _passes(beyond, ports):
            corners = beyond
    path = QPainterPath(a)
    for before, at, after in zip(corners, corners[1:], corners[2:]):
        r = min(CORNER, abs(at.x() - before.x()) / 2 + abs(at.y() - before.y()) / 2,
                abs(after.x() - at.x()) / 2 + abs(after.y() - at.y()) / 2)
        into = _toward(at, before, r)
        path.lineTo(into)
        path.quadTo(at, _toward(at, after, r))
    path.lineTo(b)
    return path


def _back_corners(a, b, obstacles, slot, lane):
    """The corners of a wrapping path whose lane `lane` finds, or None if it finds none."""
    out_x, in_x = a.x() + BACK_REACH, b.x() - BACK_REACH - LANE_STEP * slot
    y = lane(obstacles, in_x, out_x, a.y(), b.y(), slot)
    if y is None:
        return None
    # A wider card under the output's (or over the input's) pushes the way down (up) aside.
    out_x, in_x = _clear(out_x, a.y(), y, obstacles, 1), _clear(in_x, y, b.y(), obstacles, -1)
    out_x, in_x = _between(a, out_x, y, obstacles, 1), _between(b, in_x, y, obstacles, -1)
    y = lane(obstacles, in_x, out_x, a.y(), b.y(), slot)
    if y is None:
        return None
    return [a, QPointF(out_x, a.y()), QPointF(out_x, y), QPointF(in_x, y), QPointF(in_x, b.y()), b]


def _lane_beyond(obstacles, x0, x1, y0, y1, slot):
    """The free horizontal lane from x0 to x1 nearest past the input's height y1, on the far
    side from the output's y0 (the path comes back to the input from there)."""
    blocked = _merge([(top, bottom) for left, top, right, bottom in obstacles if right > x0 and left < x1])
    down = y1 >= y0
    best = None
    for lo, hi in _free(blocked):
        if down and lo >= y1 and math.isfinite(lo):
            y = lo + BACK_REACH / 2 + LANE_STEP * slot
            if y < hi and (best is None or y < best):
                best = y
        elif not down and hi <= y1 and math.isfinite(hi):
            y = hi - BACK_REACH / 2 - LANE_STEP * slot
            if y > lo and (best is None or y > best):
                best = y
    return best


def _passes(corners, ports, reach=PORT_R + CLEARANCE):
    """Whether the straight runs between `corners` (the ends' own ports aside) pass within
    `reach` of any of `ports`."""
    for p0, p1 in zip(corners, corners[1:]):
        x0, x1 = sorted((p0.x(), p1.x()))
        y0, y1 = sorted((p0.y(), p1.y()))
        for px, py in ports:
            dx = max(x0 - px, 0.0, px - x1)
            dy = max(y0 - py, 0.0, py - y1)
            if math.hypot(dx, dy) < reach:
                return True
    return False


def _between(port, x, y, obstacles, side):
    """`x`, where the way between the lane at `y` and `port` turns, moved next to the port
    (`side` 1: right of an output; -1: left of an input) when a card stands between x and
    the port on the port's level: just past that card, then past any card in the way down
    (up) there, the port's own card aside. `x` as it was if no place there is free."""
    px, py = port.x(), port.y()
    own = [box for box in obstacles if box[0] <= px <= box[2] and box[1] <= py <= box[3]]
    others = [box for box in obstacles if box not in own]
    lo, hi = min(x, px), max(x, px)
    hit = [box for box in others if box[0] < hi and box[2] > lo and box[1] < py < box[3]]
    if not hit:
        return x
    near = max(box[2] for box in hit) if side < 0 else min(box[0] for box in hit)
    moved = _clear(near, y, py, others, -side, margin=0.0)   # (the boxes hold the clearance)
    if (moved - px) * side <= 0:
        return x
    return moved


def _clear(x, y0, y1, obstacles, side, margin=CLEARANCE):
    """`x` moved right (`side` 1) or left (-1) past every box that a vertical line there
    from y0 to y1 would cross, `margin` beyond it."""
    lo, hi = min(y0, y1), max(y0, y1)
    for _ in range(len(obstacles)):
        hit = [box for box in obstacles if box[0] < x < box[2] and box[1] < hi and box[3] > lo]
        if not hit:
            break
        x = max(box[2] for box in hit) + margin if side > 0 else min(box[0] for box in hit) - margin
    return x


def _toward(point, other, r):
    """The point `r` from `point` in the direction of `other`."""
    dx, dy = other.x() - point.x(), other.y() - point.y()
    d = math.hypot(dx, dy) or 1.0
    return QPointF(point.x() + dx / d * r, point.y() + dy / d * r)


def _route_around(a, b, span):
    columns = [(max(left, a.x()), min(right, b.x()), ys) for left, right, ys in _columns(span)]
    levels = _levels(columns, a.x(), a.y(), b.x(), b.y())
    if all(abs(y - a.y()) < 0.5 for y in levels) and abs(a.y() - b.y()) < 0.5:
        return plain_path(a, b)
    path = QPainterPath(a)
    x, y = a.x(), a.y()
    for (left, right, _), level in zip(columns, levels):
        _s_curve(path, x, y, max(left, x), level)
        if right - x > 0.5:
            path.lineTo(QPointF(right, level))
        x, y = max(right, x), level
    _s_curve(path, x, y, b.x(), b.y())
    return path


def end_angle(path):
    """The direction (radians, y down) in which `path` arrives at its end."""
    n = path.elementCount()
    end = path.elementAt(n - 1)
    for i in range(n - 2, -1, -1):
        before = path.elementAt(i)
        if abs(before.x - end.x) + abs(before.y - end.y) > 1e-6:
            return math.atan2(end.y - before.y, end.x - before.x)
    return 0.0


class EdgePainter:
    """Routing and painting edges (a part of Renderer)."""

    def _edge_path(self, a, b):
        return plain_path(a, b)

    def _obstacles_key(self):
        """What routes depend on: every card's place and size (a card keeps its size once
        measured, and a renderer keeps its cards, so a card's identity stands for its size)."""
        return tuple(self.positions.items()), tuple(map(id, self.cards.values()))

    def _geometry_memo(self, name):
        """{key: value} kept under `name` for the card geometry now (`_obstacles_key`), emptied
        when a card moves or changes size or when it holds MEMO_MOST: the player frames a step
        3 or 4 times as it is shown, weighing its labels anywhere, then in the view it chose,
        and a single last entry placed them afresh each time (every step of every sample in the
        window and in presentation mode at two sizes: 12,046 placements, with this 6,648)."""
        key = self._obstacles_key()
        kept = self.__dict__.get(name)
        if kept is None or kept[0] != key or len(kept[1]) >= MEMO_MOST:
            kept = (key, {})
            setattr(self, name, kept)
        return kept[1]

    def _obstacles(self):
        """Every card grown by the clearance (and its badge line, and the names beside its
        ports: a wrapping edge ran down over a layer's "output", "kernel" and "bias") as a
        (left, top, right, bottom) box, cached per card geometry."""
        key = self._obstacles_key()
        cached = getattr(self, "_obstacle_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        grown = {}
        for nid, card in self.cards.items():
            if nid in self.positions:
                x, y = self.positions[nid]
                left, right = x, x + card.width     # with the names written beside its ports
                for label, _, _ in self.port_labels(nid):
                    left, right = min(left, label.left()), max(right, label.right())
                grown[nid] = (left - CLEARANCE, y - BADGE_H - 4 - CLEARANCE / 2,
                              right + CLEARANCE, y + card.height + CLEARANCE)
        self._obstacle_cache = (key, grown)
        self._route_cache = {}
        return grown

    def routes(self):
        """{edge: path} of every drawn edge, checked against the card geometry once. Only
        the document's edges: the cache also holds the links a step draws for itself
        (`edge_path`), which other frames do not draw."""
        obstacles = self._obstacles()
        routes = {}
        for edge in self._drawn_edges():
            if edge not in self._route_cache:
                self._route_cache[edge] = self._route(edge, obstacles)
            routes[edge] = self._route_cache[edge]
        return routes

    def edge_ends(self, edge):
        """(start at the output port, end just before the input port's circle)."""
        a = self.output_pos(edge.src.node, edge.src.index)
        b = self.input_pos(edge.dst.node, edge.dst.index)
        return a, QPointF(b.x() - PORT_R - 1, b.y())

    def edge_path(self, edge):
        """The routed path of `edge`, from its output port to its input port's arrowhead."""
        obstacles = self._obstacles()
        path = self._route_cache.get(edge)
        if path is None:
            path = self._route_cache[edge] = self._route(edge, obstacles)
        return path

    def _route(self, edge, obstacles):
        a, b = self.edge_ends(edge)
        lead_out, lead_in = self._label_leads(edge, a, b)
        # An input behind its output, or too near in front for a turn (and the ports' names)
        # between them (lesson 14's x just left of t1.gradient's "target" and "source"; a
        # student's relu placed above matmul, its input 15 px left of matmul's output, had a
        # loop over matmul's corner): the edge wraps round,
        back = b.x() - lead_in - a.x() - lead_out < 2 * CLEARANCE
        if back and b.x() - a.x() >= 2 * CLEARANCE:
            direct = self._direct(edge, a, b, lead_in, obstacles)
            if direct is not None:
                return direct
        return route(a, b, [r for nid, r in obstacles.items()   # its lane clear of its own cards too
                            if back or nid not in (edge.src.node, edge.dst.node)], edge.dst.index, back,
                     lead_out, lead_in, self._other_ports(edge) if back else ())

    def _direct(self, edge, a, b, lead_in, obstacles):
        """The S between `a` and an input `b` just in front of it, straight in past the name
        beside `b` (`lead_in`) where the gap leaves room, where it passes no other card and
        no name beside the two cards' ports; else None. Wrapped round instead, a student's
        W beside matmul (24 units apart, the name 'd' between) had its edge run up along
        W's own border, behind its port."""
        path = QPainterPath(a)
        turn = max(a.x() + CLEARANCE, b.x() - max(0.0, lead_in))
        _s_curve(path, a.x(), a.y(), turn, b.y())
        path.lineTo(b)
        ends = (edge.src.node, edge.dst.node)
        blocked = [box for nid, box in obstacles.items() if nid not in ends]
        blocked += [label.getCoords() for nid in ends for label, _, _ in self.port_labels(nid)]
        for i in range(1, DIRECT_SAMPLES):
            p = path.pointAtPercent(i / DIRECT_SAMPLES)
            if any(left < p.x() < right and top < p.y() < bottom for left, top, right, bottom in blocked):
                return None
        return path

    def _other_ports(self, edge):
        """(x, y) of every port but the two `edge` joins."""
        ports = []
        for nid, card in self.cards.items():
            if nid not in self.positions:
                continue
            ports += [(p.x(), p.y()) for k in range(card.n_outputs)
                      if (nid, k) != (edge.src.node, edge.src.index) for p in (self.output_pos(nid, k),)]
            ports += [(p.x(), p.y()) for k in range(card.n_inputs)
                      if (nid, k) != (edge.dst.node, edge.dst.index) for p in (self.input_pos(nid, k),)]
        return tuple(ports)

    def _label_leads(self, edge, a, b):
        """(lead_out, lead_in): how far past port `a` and before point `b` the names written
        beside the ports of those sides of the two cards reach, and a little more."""
        out = max([label.right() - a.x() for label, _, is_output in self.port_labels(edge.src.node)
                   if is_output] + [-LABEL_CLEAR])
        into = max([b.x() - label.left() for label, _, is_output in self.port_labels(edge.dst.node)
                    if not is_output] + [-LABEL_CLEAR])
        return out + LABEL_CLEAR, into + LABEL_CLEAR

    def cut_point(self, edge):
        path = self.edge_path(edge)
        return path.pointAtPercent(path.percentAtLength(path.length() * CUT_AT))

    @staticmethod
    def _arrow_polygon(tip, angle, size):
        left = QPointF(tip.x() - size * math.cos(angle - 0.42), tip.y() - size * math.sin(angle - 0.42))
        right = QPointF(tip.x() - size * math.cos(angle + 0.42), tip.y() - size * math.sin(angle + 0.42))
        return QPolygonF([tip, left, right])

    def _arrowhead(self, painter, tip, angle, colour, size=9.0):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawPolygon(self._arrow_polygon(tip, angle, size))

    def _edge_look(self, edge, path):
        """(pen, arrow colour, arrowhead, cut mark centre or None) of an edge drawn along
        `path`, kept while the path object lives (edges repaint with every canvas frame)."""
        cache = self.__dict__.setdefault("_edge_looks", {})
        hit = cache.get(edge)
        cut = self.is_cut(edge)
        if hit is not None and hit[0] is path and hit[1] == cut:
            return hit[2]
        colour = QColor(self.theme.cut if cut else self.theme.edge)
        pen = QPen(colour, 1.8)
        if cut:
            pen.setStyle(Qt.PenStyle.DashLine)
        arrow = self._arrow_polygon(path.currentPosition(), end_angle(path), 9.0)
        mark = path.pointAtPercent(path.percentAtLength(path.length() * CUT_AT)) if cut else None
        look = (pen, colour, arrow, mark)
        cache[edge] = (path, cut, look)
        return look

    def _paint_edge(self, painter, edge, path=None, look=None):
        """Paint `edge` along `path` (its route unless given: the canvas keeps its own),
        with `look` (`_edge_look`'s) when the caller keeps it."""
        path = self.edge_path(edge) if path is None else path
        pen, colour, arrow, mark = look or self._edge_look(edge, path)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawPolygon(arrow)
        if mark is not None:
            self._cut_mark(painter, mark)

    def _cut_mark(self, painter, c):
        """A round badge with a cross: the gradient does not flow through here."""
        t = self.theme
        painter.setPen(QPen(QColor(t.cut), 1.5))
        painter.setBrush(QColor(t.background))
        painter.drawEllipse(c, 8.0, 8.0)
        pen = QPen(QColor(t.cut), 2.2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        d = 3.8
        painter.drawLine(QPointF(c.x() - d, c.y() - d), QPointF(c.x() + d, c.y() + d))
        painter.drawLine(QPointF(c.x() - d, c.y() + d), QPointF(c.x() + d, c.y() - d))
