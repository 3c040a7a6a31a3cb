"""Documents built in code: shape inference, custom rules, gradient nodes, problems on nodes."""
import numpy as np

from gradviz import graph
from gradviz.graph import CONSTANT, CUSTOM_GRADIENT, OP, VARIABLE, Document, Node, Port


def small(rule=None, **attrs):
    doc = Document(title="t")
    doc.add(Node("v", VARIABLE, value=np.array(2.0, np.float32)))
    doc.add(Node("vv", OP, op="multiply"))
    doc.connect("v", "vv", 0, 0)
    doc.connect("v", "vv", 0, 1)
    last = "vv"
    if rule:
        doc.add(Node("c", CUSTOM_GRADIENT, op=rule, attrs=attrs))
        doc.connect("vv", "c")
        last = "c"
    doc.targets, doc.sources = [Port(last)], [Port("v")]
    return doc


def grad(doc):
    ev = graph.evaluate(doc)
    assert ev.problems == []
    return ev.gradients[Port("v")]


def test_custom_rules():
    assert float(grad(small())) == 4.0
    assert float(grad(small("scale", factor=3.0))) == 12.0
    assert float(grad(small("zero"))) == 0.0
    assert float(grad(small("identity"))) == 4.0
    assert float(grad(small("clip_by_norm", clip_norm=0.5))) == 2.0


def test_round_trip_of_a_document_built_in_code():
    doc = small("scale", factor=3)
    text = graph.dumps(doc)
    assert graph.dumps(graph.loads(text)) == text
    assert '"factor": 3.0' in text


def test_infer_shapes():
    doc = Document()
    doc.add(Node("a", CONSTANT, value=np.zeros((5, 3), np.float32)))
    doc.add(Node("b", CONSTANT, value=np.zeros((3, 4), np.float32)))
    doc.add(Node("m", OP, op="matmul"))
    doc.add(Node("s", OP, op="reduce_sum", attrs={"axis": 0}))
    doc.connect("a", "m", 0, 0)
    doc.connect("b", "m", 0, 1)
    doc.connect("m", "s")
    shapes = graph.infer_shapes(doc)
    assert shapes[Port("m")] == ((5, 4), "float32")
    assert shapes[Port("s")] == ((4,), "float32")


def test_engine_refusal_is_a_problem_on_the_node():
    doc = Document()
    doc.add(Node("a", CONSTANT, value=np.zeros((2, 2), np.float32)))
    doc.add(Node("inv", OP, op="linalg.inv"))
    doc.connect("a", "inv")
    problems = graph.validate(doc)
    assert len(problems) == 1 and problems[0].node == "inv"


def test_gradient_node_of_an_unconnected_source_is_a_problem():
    doc = Document()
    doc.add(Node("x", VARIABLE, value=np.array(1.0, np.float32)))
    doc.add(Node("k", CONSTANT, value=np.array(1.0, np.float32)))
    doc.add(Node("y", OP, op="square"))
    doc.add(Node("g", OP, op="gradient"))
    doc.connect("k", "y")
    doc.connect("y", "g", 0, 0)
    doc.connect("x", "g", 0, 1)
    ev = graph.evaluate(doc)
    assert ev.problems and ev.problems[0].node == "g"


def test_nan_is_reported_where_it_starts():
    doc = Document()
    doc.add(Node("a", CONSTANT, value=np.array([-1.0], np.float32)))
    doc.add(Node("s", OP, op="sqrt"))
    doc.add(Node("t", OP, op="square"))
    doc.connect("a", "s")
    doc.connect("s", "t")
    ev = graph.evaluate(doc)
    assert [p.node for p in ev.problems] == ["s"]
