"""Documents that ask for too much are refused before anything large is allocated or
computed, on the node that asks, with the numbers; ordinary work stays well inside."""
import json
import tracemalloc

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import CONSTANT, OP, Document, DocumentError, Node, Port, budget


def document(nodes, edges, **top):
    return json.dumps({"format": "gradviz", "version": 1, "nodes": nodes,
                       "edges": [{"from": a, "to": b} for a, b in edges], **top})


def scalar(nid="x", watched=False):
    return {"id": nid, "kind": "constant", "watched": watched,
            "value": {"dtype": "float32", "shape": [], "data": [1.0]}}


def vector(nid, n, value=0.5):
    return {"id": nid, "kind": "constant", "watched": True,
            "value": {"dtype": "float32", "shape": [n], "data": [value] * n}}


def op(nid, name, **attrs):
    return {"id": nid, "kind": "op", "op": name, "attrs": attrs}


def refusal(text):
    with pytest.raises(DocumentError) as info:
        graph.loads(text)
    return str(info.value)


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
    except DocumentError:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


GATHER_BOMB = document(  # 600 bytes: [1, 4e7] gathered 25 times would be 4 GB
    [scalar(), op("b", "broadcast_to", shape=[1, 40_000_000]),
     op("g", "gather", indices=[0] * 25, axis=0)], [("x", "b"), ("b", "g")])


def test_gather_is_sized_before_it_runs():
    assert refusal(GATHER_BOMB) == (
        "node 'g': the output would have shape (25, 40000000): 1e9 elements, more than the "
        "limit of 5e7 for one tensor")
    assert peak_bytes(lambda: graph.loads(GATHER_BOMB)) < 20e6


def test_einsum_without_an_arrow_is_sized_before_it_runs():
    text = document([vector("v", 300)] + [op("e", "einsum", equation="i,j,k,l")],
                    [("v", "e"), ("v", "e:1"), ("v", "e:2"), ("v", "e:3")])
    assert refusal(text) == (
        "node 'e': the output would have shape (300, 300, 300, 300): 8.1e9 elements, more than "
        "the limit of 5e7 for one tensor")


def test_computed_tensors_share_one_budget():
    nodes, edges = [scalar(watched=True)], []
    for i in range(6):
        nodes += [op(f"b{i}", "broadcast_to", shape=[7000, 7000]), op(f"s{i}", "sin")]
        edges += [("x", f"b{i}"), (f"b{i}", f"s{i}")]
    text = document(nodes, edges)
    assert refusal(text) == (
        "node 'b2': this broadcast_to (4.9e7 values) would bring the tensors of the evaluation "
        "to 1.47e8 values; the limit is 1e8")


def test_a_gradient_counts_its_cotangents(monkeypatch):
    monkeypatch.setattr(budget, "MAX_VALUES", 1_000_000)  # the same sums, smaller
    nodes = [scalar(watched=True), op("b", "broadcast_to", shape=[600, 600]), op("s", "sin"),
             op("r", "reduce_sum")]
    edges = [("x", "b"), ("b", "s"), ("s", "r")]
    graph.loads(document(nodes, edges))  # 7.2e5 values forward: fine
    assert refusal(document(nodes, edges, targets=["r"], sources=["x"])) == (
        "node 's': this sin (360000 values and as many for its gradient) would bring the "
        "tensors of the evaluation to 1.44e6 values; the limit is 1e6")


def test_matrix_products_that_would_take_minutes_are_refused():
    nodes = [scalar(watched=True), op("B", "broadcast_to", shape=[5000, 5000])]
    edges = [("x", "B")]
    previous = "B"
    for i in range(6):
        nodes.append(op(f"m{i}", "matmul"))
        edges += [(previous, f"m{i}"), ("B", f"m{i}:1")]
        previous = f"m{i}"
    assert refusal(document(nodes, edges, targets=["m5"], sources=["x"])) == (
        "node 'm0': this matmul would take ~3.75e11 multiply-adds (forward, and twice that for "
        "its gradient); the limit for one evaluation is 5e10")



def test_matrix_products_add_up(monkeypatch):
    monkeypatch.setattr(budget, "MAX_MULTIPLY_ADDS", 100_000_000)  # the same sums, smaller
    nodes = [scalar(), op("B", "broadcast_to", shape=[300, 300])]
    edges = [("x", "B")]
    for i in range(6):  # 2.7e7 multiply-adds each: the fourth goes over
        nodes.append(op(f"m{i}", "matmul"))
        edges += [(f"m{i - 1}" if i else "B", f"m{i}"), ("B", f"m{i}:1")]
    assert refusal(document(nodes, edges)) == (
        "node 'm3': this matmul (~2.7e7 multiply-adds) would bring the evaluation to "
        "~1.08e8; the limit is 1e8")


def test_studies_are_sized_on_load():
    nodes = [vector("x", 7000), op("s", "square"), op("l", "reduce_sum")]
    edges = [("x", "s"), ("s", "l")]
    text = document(nodes, edges, targets=["l"], sources=["x"],
                    studies={"hessian": {"newton_eps": 0.001}})
    assert refusal(text) == ("studies.hessian: the hessian would take ~3.43e11 multiply-adds "
                             "(7000 backward passes); the limit is 5e10")
    text = document([vector("x", 8000), op("s", "square")], [("x", "s")], targets=["s"],
                    sources=["x"], studies={"jacobian": {}})
    assert refusal(text) == ("studies.jacobian: the jacobian would have 6.4e7 elements, more "
                             "than the limit of 5e7 for one tensor")


def test_a_600_by_600_hessian_is_well_inside_the_limits():
    x = np.linspace(-1, 1, 600).astype(np.float32)
    doc = Document()
    doc.add(Node("x", CONSTANT, value=x, watched=True))
    doc.add(Node("three", CONSTANT, value=np.array(3.0, np.float32)))
    doc.add(Node("cube", OP, op="pow"))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "cube", 0, 0)
    doc.connect("three", "cube", 0, 1)
    doc.connect("cube", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("x")]
    doc.studies = {"hessian": {"newton_eps": 0.001}}
    assert graph.validate(doc) == []
    h = graph.hessian(doc)
    np.testing.assert_allclose(h, np.diag(6 * x), atol=1e-5)


def test_budget_numbers_read_as_words():
    assert [budget.amount(n) for n in (7, 999_999, 1_000_000, 3.75e11, 49_000_000)] == [
        "7", "999999", "1e6", "3.75e11", "4.9e7"]
