"""A fresh op's ports on the canvas: the catalog's letters (matmul's a, b beside nodes a and
b), kept through the wiring; a port renamed for a real clash says which node's name it
would repeat (the auditor saw a fresh matmul read c, d, then a, b once wired)."""
import numpy as np

from gradviz.graph.document import CONSTANT, OP, Document, Node, Port


def _ports(canvas, nid):
    return [p.name for p in canvas.scene_item(nid).ports_in]


def test_a_fresh_matmul_reads_a_b_beside_nodes_a_and_b_and_a_real_clash_says_why(editor):
    controller, canvas, _, _ = editor
    doc = Document(title="ports")
    for name in ("a", "b", "x"):
        doc.add(Node(name, CONSTANT, value=np.ones((2, 2), np.float32)))
    doc.add(Node("m", OP, op="matmul"))
    controller.set_document(doc)
    assert _ports(canvas, "m") == ["a", "b"]
    assert canvas.scene_item("m").ports_in[0].tip() == \
        "input 'a' of m: drag to another port to connect"
    assert controller.connect(Port("a"), Port("m", 0)) is None
    assert _ports(canvas, "m") == ["a", "b"]
    assert controller.connect(Port("b"), Port("m", 1)) is None
    assert _ports(canvas, "m") == ["a", "b"]
    controller.disconnect(next(e for e in controller.doc.edges if e.dst == Port("m", 0)))
    assert controller.connect(Port("x"), Port("m", 0)) is None   # x into 'a': a real clash
    first = _ports(canvas, "m")[0]
    assert first not in {"a", "b", "x"}
    assert canvas.scene_item("m").ports_in[0].tip() == (
        f"input '{first}' of m (the catalog's 'a', renamed: 'a' is the name of another node, "
        "not the one wired in): drag to another port to connect")
