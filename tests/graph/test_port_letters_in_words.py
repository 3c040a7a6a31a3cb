"""Every text that names an op's input in words uses the letter its port shows on the
canvas (issue 20 §1, §2). A matmul beside a node named 'b' shows ports c, d (a and b would
give the node b a second value); its shape mismatch said 'x (operand a) has shape …, W
(operand b) …' and `gradviz run` named a multiply's unconnected second input 'y' (the
catalog's word) while the app's port reads b. The letters come from one function
(graph.slots.input_names, which render.port_labels draws), so the app and the CLI agree."""
import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import catalog
from gradviz.graph.document import CONSTANT, OP, Document, Node


def _doc(op, values, names, extra=("b",), connected=None):
    """Constants `names` (holding `values`) fed to one `op` node 'm' in order, beside
    constants named `extra` that feed nothing."""
    doc = Document(title="letters")
    for name, value in zip(names, values):
        doc.add(Node(name, CONSTANT, label=name, value=np.asarray(value)))
    for name in extra:
        doc.add(Node(name, CONSTANT, label=name, value=np.ones((), np.float32)))
    doc.add(Node("m", OP, op=op, attrs=dict(catalog.OPS[op].attrs)))
    for k, name in enumerate(names):
        if connected is None or k in connected:
            doc.connect(name, "m", dst_index=k)
    return doc


def _ports(doc, count):
    from gradviz.graph.slots import input_names
    return input_names(doc.nodes["m"], count, doc)


def _errors(doc):
    return [p.message for p in graph.evaluate(doc).problems if not p.warning and p.node == "m"]


def test_a_shape_mismatch_names_each_input_by_its_port_letter():
    doc = _doc("matmul", [np.ones((2, 4), np.float32), np.ones((5, 2), np.float32)], ["x", "W"])
    assert _ports(doc, 2) == ["c", "d"]          # the canvas: b is a node's name
    (message,) = _errors(doc)
    assert message == ("matmul shapes do not match: x (operand c) has shape 2×4, W (operand "
                       "d) has shape 5×2; inner dimensions 4 and 5 differ")


def test_an_engine_refusal_names_each_input_by_its_port_letter():
    """build.refused: the engine refuses a dtype clash the shape check lets through."""
    doc = _doc("multiply", [np.ones((2, 3), np.float32), np.ones((2, 3), np.float64)], ["x", "w"])
    assert _ports(doc, 2) == ["c", "d"]
    (message,) = _errors(doc)
    assert message.startswith("x (operand c) is float32 (2, 3), w (operand d) is float64 (2, 3): ")


def test_an_unconnected_input_is_named_by_its_port_letter():
    """multiply's catalog names its inputs x, y; its ports read a, b (by place)."""
    doc = _doc("multiply", [np.ones(2, np.float32), np.ones(2, np.float32)], ["p", "q"],
               extra=(), connected={0})
    assert _ports(doc, 2) == ["a", "b"]
    assert _errors(doc) == ["input 2 (b) is not connected"]


def test_the_cli_names_the_inputs_as_the_app_does(tmp_path, capsys):
    from gradviz.app.controller import DocumentController
    from gradviz.cli import main
    from gradviz.graph import fileformat

    doc = _doc("matmul", [np.ones((2, 4), np.float32), np.ones((5, 2), np.float32)], ["x", "W"])
    path = tmp_path / "letters.gradviz.json"
    fileformat.save(doc, path)
    assert main(["run", str(path)]) == 2
    line = capsys.readouterr().err
    controller = DocumentController()
    controller.open(str(path))
    (shown,) = [p.message for p in controller.result.node_problems["m"]]
    assert "x (operand c) has shape 2×4, W (operand d) has shape 5×2" in shown
    assert f"node 'm': {shown}" in line


def test_a_rename_says_a_problem_s_inputs_anew():
    """H42r's review of 98aaf15: a rename keeps the engine's view, so the app reused the
    last evaluation's problems and their words went stale: after x became inp and b became
    zz (the ports read a, b again) the card still said 'x (operand c) … W (operand d)'.
    Problem.words says them anew against the document as it is (graph.errors.named)."""
    from gradviz.app.controller import DocumentController

    doc = _doc("matmul", [np.ones((2, 4), np.float32), np.ones((5, 2), np.float32)], ["x", "W"])
    controller = DocumentController()
    controller.set_document(doc)
    controller.set_field("x", "label", "inp")
    controller.set_field("b", "label", "zz")
    now = controller.doc
    assert _ports(now, 2) == ["a", "b"]
    (shown,) = controller.result.node_problems["m"]
    (fresh,) = [p for p in graph.evaluate(now).problems if p.node == "m"]
    assert shown.message == fresh.message == (
        "matmul shapes do not match: inp (operand a) has shape 2×4, W (operand b) has "
        "shape 5×2; inner dimensions 4 and 5 differ")
    assert shown.brief == fresh.brief == "inp (a) 2×4, W (b) 5×2: matmul shapes do not match"


def test_a_renamed_engine_refusal_names_its_inputs_anew():
    """build.refused's words (the dtype clash) after a rename, as test above."""
    from gradviz.app.controller import DocumentController

    doc = _doc("multiply", [np.ones((2, 3), np.float32), np.ones((2, 3), np.float64)], ["x", "w"])
    controller = DocumentController()
    controller.set_document(doc)
    controller.set_field("b", "label", "zz")
    (shown,) = controller.result.node_problems["m"]
    assert shown.message.startswith("x (operand a) is float32 (2, 3), w (operand b) is float64 (2, 3): ")
    assert shown.brief.startswith("x (a) float32 2×3, w (b) float64 2×3: ")


def test_a_role_s_words_name_its_port_not_a_node_of_that_name():
    """softmax_cross_entropy_with_logits beside a scalar node named labels: its first port
    reads y, and the message said 'logits and labels must be broadcastable: … labels_size=
    [2, 3]', giving the node labels a size it does not have. Each input is named as its
    port reads (shapes._in), in every message of graph.shapes."""
    doc = _doc("nn.softmax_cross_entropy_with_logits",
               [np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)], ["y", "z"], extra=("labels",))
    assert _ports(doc, 2) == ["y", "logits"]
    assert _errors(doc) == ["the input shapes do not broadcast together: y has shape 2×3, "
                            "logits (z) has shape 2×4"]


@pytest.mark.parametrize("op, values, names, extra, brief", [
    ("matmul", [np.ones((2, 4), np.float32), np.ones((5, 2), np.float32)], ["x", "W"], ("b",),
     "x (c) 2×4, W (d) 5×2: matmul shapes do not match"),
    # the words before the first input were 'input depth must equal filter depth: 2 vs 3 (the
    # third dimension of', cut mid-sentence: a brief cuts only at a clause's end
    ("nn.conv2d", [np.ones((1, 6, 5, 2), np.float32), np.ones((2, 2, 3, 3), np.float32)],
     ["x", "filters"], ("input",),
     "a (x) 1×6×5×2, filters 2×2×3×3: a (x) has 2 channels, but the in_channels of filters is 3: "
     "they must be equal"),
    ("losses.CategoricalCrossentropy", [np.ones((), np.float32), np.ones((), np.float32)],
     ["t", "p"], (), "y_true (t) scalar, y_pred (p) scalar: losses.CategoricalCrossentropy needs "
     "y_pred (p) with at least one axis, got a scalar"),
])
def test_a_brief_leads_with_the_inputs_then_whole_clauses(op, values, names, extra, brief):
    doc = _doc(op, values, names, extra=extra)
    (problem,) = [p for p in graph.evaluate(doc).problems if p.node == "m" and not p.warning]
    assert problem.brief == brief
