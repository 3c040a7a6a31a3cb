"""Edges are routed around the cards: no edge passes behind a card it does not connect."""
import pytest
from graphs import chain, mlp
from samples_util import NAMES, edge, renderer

from gradviz.render import Renderer
from gradviz.render.edges import route
from gradviz.render.story_overlay import Track
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
