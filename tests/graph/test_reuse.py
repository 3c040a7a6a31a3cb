"""An evaluation may take the checks and plan of the last one when only attributes that keep
every shape changed (graph.evaluate.checks_hold): the result must be the evaluation made
from scratch, for every attribute edit of every sample that is let through."""
import copy

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import OP, Node, Port, catalog
from gradviz.graph.budget import entry_holds
from gradviz.graph.evaluate import checks_hold

from graph_samples import SAMPLE_FILES

ALTERNATIVES = {   # attribute kind -> other values to try, from the current one
    "bool": lambda v: [not v],
    "int": lambda v: [v + 1, v - 1, 0],
    "float": lambda v: [v * 0.5 - 0.25, v + 1.0],
    "axis": lambda v: [None, 0, 1, -1, [0, 1]],
    "index": lambda v: [0, 1],
    "ints": lambda v: [list(reversed(v))] if isinstance(v, list) else [[1]],
    "str": lambda v: ["relu", "tanh", "linear", "ij,kj->ik", v + "?"],
    "dtype": lambda v: ["float64", "int32"],
    "paddings": lambda v: [[[1, 1], [0, 0]]],
}


def _problems(ev):
    return [(str(p), p.warning) for p in ev.problems]


def _plan(plan):
    return (plan.order, plan.shapes, plan.values, plan.multiply_adds, [str(p) for p in plan.problems],
            plan.total_values, plan.total_multiply_adds)


def assert_same_evaluation(ev, fresh):
    assert _problems(ev) == _problems(fresh)
    assert _plan(ev.plan) == _plan(fresh.plan)
    assert ev.values.keys() == fresh.values.keys() and ev.gradients.keys() == fresh.gradients.keys()
    for p, v in fresh.values.items():
        np.testing.assert_array_equal(ev.values[p], v)
    for p, g in fresh.gradients.items():
        assert (ev.gradients[p] is None) == (g is None)
        if g is not None:
            np.testing.assert_array_equal(ev.gradients[p], g)


def attribute_edits(doc):
    """(node id, document with one attribute of that node changed) for every attribute
    of every node and the alternatives of its kind."""
    for nid, node in doc.nodes.items():
        defaults, kinds = catalog.defaults_and_kinds(node)
        attrs = catalog.full_attrs(node)
        for key in defaults:
            for value in ALTERNATIVES[kinds[key]](attrs[key]):
                edited = copy.deepcopy(doc)
                edited.nodes[nid].attrs[key] = value
                yield nid, edited


def square_document():
    """x @ w of 3 x 3 matrices, then tanh and a sum: transposing either keeps every shape."""
    doc = graph.Document()
    rng = np.random.default_rng(4)
    doc.add(Node("x", "constant", value=rng.normal(size=(3, 3)).astype(np.float32), watched=True))
    doc.add(Node("w", "variable", value=rng.normal(size=(3, 3)).astype(np.float32)))
    doc.add(Node("m", OP, op="matmul"))
    doc.add(Node("t", OP, op="tanh"))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "m")
    doc.connect("w", "m", dst_index=1)
    doc.connect("m", "t")
    doc.connect("t", "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port("x"), Port("w")]
    return doc


def test_a_square_transpose_keeps_the_checks_and_evaluates_as_from_scratch():
    doc = square_document()
    ev = graph.evaluate(doc)
    edited = copy.deepcopy(doc)
    edited.nodes["m"].attrs["transpose_a"] = True
    assert checks_hold(ev, doc, edited, {"m"})
    reused = graph.evaluate(edited, same_structure_as=ev)
    assert reused.plan is ev.plan and reused.structure is ev.structure
    fresh = graph.evaluate(edited)
    assert_same_evaluation(reused, fresh)
    x, w = doc.nodes["x"].value, doc.nodes["w"].value
    np.testing.assert_allclose(reused.values[Port("m")], x.T @ w, rtol=1e-6)
    assert not np.allclose(reused.values[Port("m")], ev.values[Port("m")])


@pytest.mark.parametrize("change, why", [
    (lambda d: d.nodes["loss"].attrs.__setitem__("axis", 0), "another output shape"),
    (lambda d: d.nodes["loss"].attrs.__setitem__("axis", 5), "a shape error"),
    (lambda d: d.nodes["loss"].attrs.__setitem__("keepdims", "yes"), "an invalid attribute"),
])
def test_checks_do_not_hold_when_a_changed_node_plans_or_checks_otherwise(change, why):
    doc = square_document()
    ev = graph.evaluate(doc)
    edited = copy.deepcopy(doc)
    change(edited)
    changed = {"m", "loss"}
    assert not checks_hold(ev, doc, edited, changed), why


def test_a_changed_entry_is_told_by_its_shapes_and_cost():
    doc = square_document()
    plan = graph.evaluate(doc).plan
    node = copy.deepcopy(doc.nodes["m"])
    node.attrs["transpose_b"] = True
    assert entry_holds(plan, doc, node)
    doc.nodes["x"].value = np.ones((2, 3), np.float32)   # 2 x 3 @ 3 x 3 planned as 3 x 3
    wide = graph.evaluate(doc).plan
    node.attrs["transpose_b"] = False
    assert entry_holds(wide, doc, node)
    node.attrs["transpose_a"] = True                        # 3 x 2 @ 3 x 3: no product
    assert not entry_holds(wide, doc, node)
    assert not entry_holds(wide, doc, Node("m", OP, op="gradient"))


def test_every_attribute_edit_of_the_samples_that_keeps_the_checks_evaluates_as_from_scratch():
    held = refused = 0
    for path in SAMPLE_FILES:
        doc = graph.load(path)
        ev = graph.evaluate(doc)
        for nid, edited in attribute_edits(doc):
            if checks_hold(ev, doc, edited, {nid}):
                held += 1
                assert_same_evaluation(graph.evaluate(edited, same_structure_as=ev), graph.evaluate(edited))
            else:
                refused += 1
    assert held >= 20 and refused >= 20, (held, refused)
