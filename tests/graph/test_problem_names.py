"""Every problem or error the graph layer reports names a node as the canvas does: by its
label (ids are internal). Walk-through: opening a bad file said "node 'w' value: …" for the
node labelled W1; the story bar said "node 'matmul_1': matmul shapes do not match" for the
node labelled out."""
import json

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import CONSTANT, OP, VARIABLE, Document, DocumentError, Node, Port
from gradviz.graph.errors import named
from gradviz.graph.evaluate import evaluate, jacobian
from gradviz.graph.training import Trainer, make_optimizer

from hidden_ids import file_with_memory_ids

IDS = ("'x'", "'w'", "'matmul_1'", "'s'", "'c'")


def _doc(w_shape=(3, 2)):
    """inputs @ W1 -> out -> loss, the nodes labelled unlike their ids."""
    doc = Document()
    doc.add(Node("x", CONSTANT, value=np.ones((2, 3), np.float32), label="inputs"))
    doc.add(Node("w", VARIABLE, value=np.ones(w_shape, np.float32), label="W1"))
    doc.add(Node("c", CONSTANT, value=np.ones(2, np.float32), label="bias"))
    doc.add(Node("matmul_1", OP, op="matmul", label="out"))
    doc.add(Node("s", OP, op="reduce_sum", label="loss"))
    doc.connect("x", "matmul_1", 0, 0)
    doc.connect("w", "matmul_1", 0, 1)
    doc.connect("matmul_1", "s")
    doc.targets, doc.sources = [Port("s")], [Port("w")]
    return doc


def _no_ids(text):
    assert not [i for i in IDS if i in text], text
    return text


def test_an_evaluation_names_the_node_of_each_problem_by_its_label():
    ev = evaluate(_doc(w_shape=(2, 2)))
    assert [str(p) for p in ev.errors][0].startswith("node 'out': matmul shapes do not match")
    assert all(_no_ids(str(p)) for p in ev.problems)
    with pytest.raises(DocumentError) as info:      # a study stopped by it says the same
        jacobian(_doc(w_shape=(2, 2)))
    assert str(info.value).startswith("node 'out': ")
    doc = _doc(w_shape=(2, 2))
    doc.nodes["matmul_1"].label = ""                # no label: the id is its name
    assert str(evaluate(doc).errors[0]).startswith("node 'matmul_1': ")


def test_a_renamed_node_is_named_anew():
    """A problem found before a rename names the node as the document names it now."""
    doc = _doc(w_shape=(2, 2))
    problems = evaluate(doc).problems
    doc.nodes["matmul_1"].label = "logits"
    assert str(named(problems, doc)[0]).startswith("node 'logits': ")
    assert str(problems[0]).startswith("node 'out': ")   # the evaluation's own stay as found


def test_an_unconnected_input_is_named_anew_by_its_port_letter():
    """A multiply fed only its first input says 'input 2 (b)'; a node renamed a since takes
    the first port's letter, the ports read b, c, and the problem says them so (Problem.words,
    as the canvas's port labels and the DocumentError a worker raises from it)."""
    doc = _doc()
    doc.add(Node("m", OP, op="multiply"))
    doc.connect("c", "m", 0, 0)
    (problem,) = [p for p in evaluate(doc).problems if p.node == "m"]
    assert problem.message == "input 2 (b) is not connected"
    doc.nodes["s"].label = "a"
    assert named([problem], doc)[0].message == "input 2 (c) is not connected"
    error = DocumentError.from_problem(problem)
    assert named([error.problem], doc)[0].message == "input 2 (c) is not connected"
    assert problem.message == "input 2 (b) is not connected"   # the evaluation's own stays


def test_a_bad_file_names_the_node_by_its_label():
    obj = file_with_memory_ids(_doc())   # ids unlike the labels: a file written by hand
    node = next(n for n in obj["nodes"] if n["id"] == "w")
    node["value"]["data"] = node["value"]["data"][:5]
    with pytest.raises(DocumentError) as info:
        graph.loads(json.dumps(obj))
    message = _no_ids(str(info.value))
    assert "node 'W1' value: data has 5 values but shape" in message
    node["value"] = {"dtype": "float32", "shape": [3, 2], "data": [0] * 6}
    node["attrs"] = {"units": 3}                    # a Variable has no attributes
    with pytest.raises(DocumentError) as info:
        graph.loads(json.dumps(obj))
    assert str(info.value).startswith("node 'W1': ")
    del node["attrs"]
    obj["nodes"].append(dict(obj["nodes"][0], label="again"))
    with pytest.raises(DocumentError, match="^node 'again': two nodes have the id 'x'"):
        graph.loads(json.dumps(obj))


def test_references_cycles_and_training_name_nodes_by_label():
    doc = _doc()
    doc.nodes["c2"] = Node("c2", OP, op="negative", label="neg b")
    doc.nodes["c3"] = Node("c3", OP, op="negative", label="neg a")
    doc.connect("c2", "c3")
    doc.connect("c3", "c2")
    doc.output_gradients[Port("c")] = np.ones(2, np.float32)   # not a target
    texts = [str(p) for p in evaluate(doc).problems]
    assert any("the graph has a cycle through neg b, neg a" in t for t in texts), texts
    assert any(t.startswith("output_gradients 'bias': ") for t in texts), texts
    assert all(_no_ids(t) and "'c2'" not in t and "'c3'" not in t for t in texts)
    with pytest.raises(DocumentError, match="'inputs' is not a Variable"):
        Trainer(_doc(), make_optimizer("sgd"), parameters=[Port("x")])
