"""Every text that names an op's input in words uses the letter its port shows on the
canvas (issue 20 §1, §2). A matmul beside a node named 'b' shows ports c, d (a and b would
give the node b a second value); its shape mismatch said 'x (operand a) has shape …, W
(operand b) …' and `gradviz run` named a multiply's unconnected second input 'y' (the
catalog's word) while the app's port reads b. The letters come from one function
(graph.slots.input_names, which render.port_labels draws), so the app and the CLI agree."""
import numpy as np

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
    assert message == ("matmul shapes do not match: x (operand c) has shape (2, 4), W (operand "
                       "d) has shape (5, 2); inner dimensions 4 and 5 differ")


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
    assert "x (operand c) has shape (2, 4), W (operand d) has shape (5, 2)" in shown
    assert f"node 'm': {shown}" in line
