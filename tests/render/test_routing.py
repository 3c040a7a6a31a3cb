"""Edges are routed around the cards: no edge passes behind a card it does not connect."""
import math

import pytest
from graphs import chain, mlp
from samples_util import NAMES, edge, renderer

from gradviz.render import Renderer
from gradviz.render.edges import route
from gradviz.render.track import Track
from PySide6.QtCore import QPointF, QRectF


def _crossings(r):
    """[(edge, card)] for every edge whose path enters a card other than its own two."""
    bad = []
    for e in r._drawn_edges():
        track = Track(r.edge_path(e))
        for nid in r.doc.nodes:
            if nid in (e.src.node, e.dst.node):
                continue
            if track.crosses(r.rect(nid).adjusted(1, 1, -1, -1)):
                bad.append((f"{e.src.node}->{e.dst.node}:{e.dst.index}", nid))
    return bad


@pytest.mark.parametrize("name", NAMES)
def test_sample_edges_pass_no_card(name):
    assert _crossings(renderer(name)) == []


ROOMS = (None, (1700.0, 1000.0), (1100.0, 700.0), (800.0, 480.0))   # one row; the window's and
# presentation mode's folds at 1920x1080 and 1280x800


@pytest.mark.parametrize("name", NAMES)
def test_sample_edges_pass_no_port_name(name):
    """No edge runs over a name written beside a port (BatchNorm's output edge crossed
    "gamma" in presentation mode), in the one-row layout, folded as the window and
    presentation mode fold it, and with the cards' tops in one line (as a student places
    them); nor over the names of its own card's ports."""
    from gradviz.render.layout import COLUMN_GAP, layout
    r = renderer(name)
    x, row = 0.0, {}
    for nid, (w, _) in r.sizes().items():
        row[nid], x = (x, 0.0), x + w + COLUMN_GAP
    seen = set()
    bad = []
    for room in ROOMS + ("row",):
        positions = row if room == "row" else layout(r.doc, r.sizes(), r.label_room(), room=room)
        if tuple(sorted(positions.items())) in seen:
            continue
        seen.add(tuple(sorted(positions.items())))
        r.positions = positions
        for e in r._drawn_edges():
            path = r.edge_path(e)
            ends = r.edge_ends(e)
            assert (path.pointAtPercent(0), path.currentPosition()) == ends, (room, e)   # port to port
            track = Track(path)
            for nid in r.doc.nodes:
                for label, port, _ in r.port_labels(nid):
                    if track.crosses(label.adjusted(1, 1, -1, -1)):
                        bad.append((room, f"{e.src.node}->{e.dst.node}:{e.dst.index}", nid, port))
    assert bad == []


def test_generated_documents_edges_pass_no_card():
    from graphs import numpy_values
    from types import SimpleNamespace
    for doc in (mlp(), chain(100)):
        r = Renderer(doc, evaluation=SimpleNamespace(values=numpy_values(doc), gradients={}))
        assert _crossings(r) == []


def test_003_reads_c_times_stopped_c():
    """c -> cc.x goes around the stop_gradient card, and the cut mark sits on the cut edge
    only: well away from the path of c -> cc.x."""
    r = renderer("003_stop_gradient_product")
    doc = r.doc
    direct = Track(r.edge_path(edge(doc, "c", "cc", 0)))
    assert not direct.crosses(r.rect("c_stopped").adjusted(-4, -4, 4, 4))
    mark = r.cut_point(edge(doc, "c", "c_stopped", 0))
    assert not direct.crosses(QRectF(mark.x() - 14, mark.y() - 14, 28, 28))


def test_routes_are_deterministic_and_straight_when_nothing_is_in_the_way():
    a, b = QPointF(0, 10), QPointF(300, 10)
    free = route(a, b, [(100, 100, 150, 150)])   # (left, top, right, bottom)
    assert free.boundingRect().height() == 0
    blocked = [(100, -20, 160, 40)]
    first, second = route(a, b, blocked), route(a, b, blocked)
    assert first == second
    assert not Track(first).crosses(QRectF(101, -19, 58, 58))


def test_an_edge_to_an_input_behind_its_output_wraps_round_the_cards():
    """A folded layout's edge from one row's end to the next row's start: out to the right,
    along a free lane between the rows, in from the left, crossing no card; two edges into
    one card's inputs nest (the later input's lane higher and further out), never overlap."""
    row1 = [(0.0, 0.0, 200.0, 120.0), (300.0, 0.0, 500.0, 150.0)]
    row2 = [(300.0, 260.0, 500.0, 380.0)]
    a1, a2 = QPointF(508.0, 40.0), QPointF(508.0, 100.0)
    into = QPointF(94.0, 300.0), QPointF(94.0, 340.0)
    paths = [route(a, b, row1 + row2, slot, back=True) for a, b, slot in ((a1, into[0], 0), (a2, into[1], 1))]
    for path in paths:
        track = Track(path)
        assert not any(track.crosses(QRectF(QPointF(l + 1, t + 1), QPointF(r - 1, b - 1)))
                       for l, t, r, b in row1 + row2)
        box = path.boundingRect()
        assert box.right() > 508.0 and box.left() < 94.0      # round both ends, not through them
    lanes = [min((path.pointAtPercent(k / 200).y() for k in range(201)
                  if 150 < path.pointAtPercent(k / 200).y() < 260 and 150 < path.pointAtPercent(k / 200).x() < 300),
                 default=None) for path in paths]
    assert None not in lanes and lanes[1] < lanes[0]
    assert paths[1].boundingRect().left() < paths[0].boundingRect().left() - 4   # side by side, not on top


def test_a_wrapping_edge_steps_round_a_wider_card_under_its_output():
    src = (300.0, 0.0, 500.0, 150.0)
    src_below = (280.0, 150.0, 600.0, 220.0)      # wider than the output's card, right under it
    row2 = [(300.0, 300.0, 500.0, 380.0)]
    a, b = QPointF(508.0, 40.0), QPointF(94.0, 330.0)
    boxes = [src, src_below, *row2]
    path = route(a, b, boxes, 0, back=True)
    track = Track(path)
    assert not any(track.crosses(QRectF(QPointF(l + 1, t + 1), QPointF(r - 1, bt - 1)))
                   for l, t, r, bt in boxes[1:])
    assert path.boundingRect().right() > 600.0


def _hidden_by_own_card(r):
    """[(edge, card)] for every edge that runs inside or along the border of one of its own
    two cards away from its ports (drawn under the card, its port looks unconnected)."""
    bad = []
    for e in r._drawn_edges():
        path = r.edge_path(e)
        ends = (path.pointAtPercent(0.0), path.pointAtPercent(1.0))
        n = max(20, int(path.length() / 2))
        points = [path.pointAtPercent(path.percentAtLength(path.length() * i / n)) for i in range(n + 1)]
        for nid in {e.src.node, e.dst.node}:
            rect = r.rect(nid).adjusted(-1, -1, 1, 1)
            inside = [p for p in points if rect.contains(p)
                      and min(abs(p.x() - q.x()) + abs(p.y() - q.y()) for q in ends) > 12]
            if inside:
                bad.append((f"{e.src.node}->{e.dst.node}:{e.dst.index}", nid))
    return bad


def _students_mlp():
    from pathlib import Path

    from gradviz.graph import load
    from gradviz.story import build
    doc = load(Path(__file__).parent / "data" / "student_mlp.gradviz.json")
    story = build(doc)
    return Renderer(doc, evaluation=story.evaluation, story=story)


@pytest.mark.parametrize("name", NAMES)
def test_sample_edges_leave_their_own_cards_at_their_ports(name):
    assert _hidden_by_own_card(renderer(name)) == []


def test_a_students_mlp_edges_pass_under_no_card():
    """x @ W1 -> relu -> @ W2 -> reduce_sum as a student placed it (W2 left of and below
    matmul_1, relu above): relu's edge to matmul_1 wrapped round behind W2's card, and W2's
    edge to matmul_1 rose along W2's border, so W2's output port looked unconnected."""
    r = _students_mlp()
    assert _crossings(r) == []
    assert _hidden_by_own_card(r) == []


def _near_other_ports(r, reach=10.0):
    """[(edge, node, port)] for every edge that passes within `reach` of a port that is not
    one of its two ends (an edge running past b's output and turning there reads as b's)."""
    bad = []
    for e in r._drawn_edges():
        path = r.edge_path(e)
        n = max(40, int(path.length() / 2))
        points = [path.pointAtPercent(path.percentAtLength(path.length() * i / n)) for i in range(n + 1)]
        for nid, card in r.cards.items():
            ports = [("output", k, r.output_pos(nid, k)) for k in range(card.n_outputs)
                     if (nid, k) != (e.src.node, e.src.index)]
            ports += [("input", k, r.input_pos(nid, k)) for k in range(card.n_inputs)
                      if (nid, k) != (e.dst.node, e.dst.index)]
            for kind, k, q in ports:
                if min(math.hypot(p.x() - q.x(), p.y() - q.y()) for p in points) < reach:
                    bad.append((f"{e.src.node}->{e.dst.node}:{e.dst.index}", nid, f"{kind} {k}"))
    return bad


@pytest.mark.parametrize("name", NAMES)
def test_sample_edges_pass_no_other_port(name):
    assert _near_other_ports(renderer(name)) == []


def test_a_wrapping_edge_does_not_turn_at_another_cards_output():
    """A student's x @ W + b -> sigmoid -> reduce_sum y, placed by hand: sigmoid above add,
    y under add, b left of both. sigmoid's edge to y wrapped down the 8 px channel between b
    and add's port names and turned into y at the height of b's output port: it read as b
    feeding y (an auditor, in the window, the PNG and the SVG). It now comes back to y from
    the lane under the cards."""
    from pathlib import Path

    from gradviz.graph import load
    from gradviz.story import build
    doc = load(Path(__file__).parent / "data" / "student_sigmoid_layer.gradviz.json")
    story = build(doc)
    r = Renderer(doc, evaluation=story.evaluation, story=story)
    assert _near_other_ports(r) == []
    assert _crossings(r) == []
    assert _hidden_by_own_card(r) == []


def test_routes_hold_only_the_documents_edges_whatever_steps_came_before():
    """Lesson 14's steps draw links of their own (t1.gradient reading layer's kernel, 'no
    edge'); their routes were cached with the document's edges and `routes()` returned them
    from then on: the graph's bounds and what an animation's camera took for drawn grew
    with the steps shown before (lesson 14's slide 11 was centred on an arrow that it does
    not draw, its picture 11 % of the slide off centre)."""
    r = renderer("001_input_gradient_regularization")
    before = {e: path.boundingRect() for e, path in r.routes().items()}
    links = {e for step in r.story.steps for e in r._step_edges(step)} - set(r.doc.edges)
    assert links
    for step in r.story.steps:
        r.step_paths(step)
    assert {e: path.boundingRect() for e, path in r.routes().items()} == before
    assert set(before) == set(r._drawn_edges())


def test_an_edge_into_an_input_just_in_front_runs_between_the_two_cards():
    """A student's x and W placed 24 units left of matmul, its port names 'c' and 'd'
    between: the edges wrapped round as if matmul lay behind, and W's ran back up along
    W's own border, behind its port. Each now runs in the gap between the two cards, never
    left of the port it leaves, and over no port's name."""
    from pathlib import Path

    from gradviz.graph import load
    from gradviz.story import build
    doc = load(Path(__file__).parent / "data" / "student_w_beside_matmul.gradviz.json")
    story = build(doc)
    r = Renderer(doc, evaluation=story.evaluation, story=story)
    for e in r._drawn_edges():
        a, b = r.edge_ends(e)
        if b.x() <= a.x():
            continue
        path = r.edge_path(e)
        xs = [path.pointAtPercent(i / 64).x() for i in range(65)]
        assert min(xs) >= a.x() - 0.5 and max(xs) <= b.x() + 0.5, (e.src.node, e.dst.node, min(xs), max(xs))
    assert _crossings(r) == []
    labels = [rect for nid in doc.nodes for rect, _, _ in r.port_labels(nid)]
    assert not [e for e in r._drawn_edges() if any(Track(r.edge_path(e)).crosses(rect) for rect in labels)]
