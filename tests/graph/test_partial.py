"""A problem stops only what depends on it: the gradients come back whenever the part of
the graph the targets need is sound, and a NaN is a warning where it first appears."""
import json

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import CONSTANT, OP, VARIABLE, Node, Port

from graph_samples import SAMPLES

ROW_SUMS = [-0.17307831, 1.1900724, 2.245003]  # d sum(t @ b) / dt, every row (seed 004)


def seed004():
    return graph.load(SAMPLES / "004_matmul_sum.json")


def grad(ev):
    return ev.gradients[Port("tf_t")]


def test_an_unconnected_node_elsewhere_does_not_hide_the_gradient():
    doc = seed004()
    doc.add(Node("stray", OP, op="matmul"))
    ev = graph.evaluate(doc)
    assert [(p.node, p.message, p.warning) for p in ev.problems] == [
        ("stray", "input 1 (a) is not connected", False)]
    np.testing.assert_allclose(grad(ev), np.tile(ROW_SUMS, (5, 1)), rtol=1e-6)
    assert Port("y_tf") in ev.values and Port("stray") not in ev.values


def test_broken_nodes_of_every_kind_elsewhere_leave_the_target_alone():
    doc = seed004()
    doc.add(Node("unknown", OP, op="no_such_op"))
    doc.add(Node("bad_attr", OP, op="reduce_sum", attrs={"axis": "rows"}))
    doc.add(Node("n1", OP, op="negative"))
    doc.add(Node("n2", OP, op="negative"))
    doc.connect("n1", "n2")
    doc.connect("n2", "n1")  # a cycle
    doc.connect("tf_t", "bad_attr")
    doc.add(Node("after", OP, op="exp"))
    doc.connect("bad_attr", "after")  # downstream of a broken node: does not run, no noise
    ev = graph.evaluate(doc)
    assert {p.node for p in ev.problems} == {"unknown", "bad_attr", "n1"}
    assert Port("after") not in ev.values
    np.testing.assert_allclose(grad(ev), np.tile(ROW_SUMS, (5, 1)), rtol=1e-6)
    assert not ev.ok


def test_a_problem_the_target_needs_stops_the_gradient_and_is_named():
    doc = seed004()
    doc.edges = [e for e in doc.edges if e.dst != Port("y_tf", 1)]
    ev = graph.evaluate(doc)
    assert ev.gradients == {}
    assert [(p.node, p.message) for p in ev.errors] == [("y_tf", "input 2 (b) is not connected")]


def test_a_bomb_no_target_needs_is_refused_and_the_gradient_still_comes():
    doc = seed004()
    doc.add(Node("k", CONSTANT, value=np.array(1.0, np.float32)))
    for i in range(3):
        doc.add(Node(f"big{i}", OP, op="broadcast_to", attrs={"shape": [7000, 7000]}))
        doc.connect("k", f"big{i}")
    ev = graph.evaluate(doc)
    refused = [p for p in ev.problems if p.node and p.node.startswith("big")]
    assert len(refused) == 1 and "the limit is 1e8" in refused[0].message
    np.testing.assert_allclose(grad(ev), np.tile(ROW_SUMS, (5, 1)), rtol=1e-6)


def test_studies_ignore_problems_elsewhere_but_not_their_own():
    doc = seed004()
    doc.add(Node("stray", OP, op="matmul"))
    jac = graph.jacobian(doc)
    assert jac.shape == (5, 3, 5, 3)
    np.testing.assert_allclose(jac.sum(axis=(0, 1)), np.tile(ROW_SUMS, (5, 1)), rtol=1e-5)
    with pytest.raises(graph.DocumentError) as info:
        graph.jacobian(doc, target="stray")
    assert str(info.value) == "node 'stray': input 1 (a) is not connected"


def test_nan_in_a_value_is_a_warning_and_the_gradient_is_computed():
    doc = seed004()
    doc.nodes["tf_b"].value[0, 0] = np.nan
    ev = graph.evaluate(doc)
    assert ev.ok and ev.errors == []
    assert [(p.node, p.message, p.warning) for p in ev.problems] == [
        ("tf_b", "its value holds NaN or infinity", True)]
    g = grad(ev)
    assert np.isnan(g[:, 0]).all() and np.isfinite(g[:, 1:]).all()
    assert np.isnan(ev.values[Port("y_tf")][:, 0]).all()


def test_nan_produced_by_an_op_is_a_warning_where_it_starts():
    doc = graph.Document()
    doc.add(Node("a", VARIABLE, value=np.array([-1.0, 4.0], np.float32)))
    doc.add(Node("s", OP, op="sqrt"))
    doc.add(Node("t", OP, op="square"))
    doc.connect("a", "s")
    doc.connect("s", "t")
    doc.targets, doc.sources = [Port("t")], [Port("a")]
    with np.errstate(all="raise"):  # evaluation says it in words, numpy stays quiet
        ev = graph.evaluate(doc)
    assert [(p.node, p.message, p.warning) for p in ev.problems] == [
        ("s", "produced NaN or infinity", True)]
    np.testing.assert_array_equal(ev.values[Port("t")], [np.nan, 4.0])
    np.testing.assert_allclose(ev.gradients[Port("a")], [np.nan, 1.0])  # d(√a)²/da = 1


def test_a_gradient_that_becomes_infinite_is_a_warning_on_the_source():
    doc = graph.Document()
    doc.add(Node("a", VARIABLE, value=np.array([0.0, 4.0], np.float32)))
    doc.add(Node("s", OP, op="sqrt"))
    doc.connect("a", "s")
    doc.targets, doc.sources = [Port("s")], [Port("a")]
    ev = graph.evaluate(doc)
    assert [(p.node, p.message, p.warning) for p in ev.problems] == [
        ("a", "its gradient holds NaN or infinity", True)]
    np.testing.assert_array_equal(ev.gradients[Port("a")], [np.inf, 0.25])


def test_nan_data_in_a_file_loads_and_runs():
    d = json.loads((SAMPLES / "003_matmul_gradient.json").read_text(encoding="utf-8"))
    d["nodes"][0]["value"]["data"][0] = "nan"
    doc = graph.loads(json.dumps(d))
    assert graph.validate(doc) == []
    ev = graph.evaluate(doc)
    assert ev.ok and [p.warning for p in ev.problems] == [True]


def test_a_gradient_node_whose_target_ignores_its_source_is_a_gradient_problem_on_it():
    """g1 = gradient(out, x) after out stops depending on x (it takes the layer's bias, not
    its output): TF's tape.gradient gives None there. The node says so in words, and like
    every problem only running can find, it is a gradient problem (found by test_fuzz)."""
    doc = json.loads((SAMPLES / "001_input_gradient_regularization.json").read_text())
    for edge in doc["edges"]:
        if (edge["from"], edge["to"]) == ("layer", "y_sq"):
            edge["from"] = "layer:2"
    loaded = graph.loads(json.dumps(doc))
    assert graph.validate(loaded) == []
    ev = graph.evaluate(loaded)
    assert [(p.node, p.where, p.warning) for p in ev.errors] == [("t1_gradient_out_x", "gradient", False)]
    assert ev.errors[0].message.startswith("the gradient is None")
    assert str(ev.errors[0]).startswith("node 't1.gradient(out, x)': ")   # its label, as the canvas writes
