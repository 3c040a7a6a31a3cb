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


def _edge_tip(canvas, edge):
    """An edge's tooltip as the canvas shows it when the pointer comes onto the edge."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QGraphicsSceneHoverEvent

    item = canvas.edge_items[edge]
    item.hoverEnterEvent(QGraphicsSceneHoverEvent(QEvent.Type.GraphicsSceneHoverEnter))
    return item.toolTip()


def test_an_edge_tooltip_names_the_input_as_its_port_reads(editor):
    """An edge into a matmul beside a node named b, whose ports read c and d, said
    'W → m (input 2)' (issue 20 §1): its words name the port by its letter, and by the
    names of now, after a rename; an op of one input has no letter to name."""
    controller, canvas, _, _ = editor
    doc = Document(title="ports")
    for name in ("x", "W", "b"):
        doc.add(Node(name, CONSTANT, label=name, value=np.ones((2, 2), np.float32)))
    doc.add(Node("m", OP, op="matmul"))
    doc.add(Node("r", OP, op="nn.relu"))
    controller.set_document(doc)
    for src, dst in ((Port("x"), Port("m", 0)), (Port("W"), Port("m", 1)), (Port("m"), Port("r"))):
        assert controller.connect(src, dst) is None
    assert _ports(canvas, "m") == ["c", "d"]
    edges = {(e.src.node, e.dst.node): e for e in controller.doc.edges}
    assert _edge_tip(canvas, edges["W", "m"]).startswith("W → m (input d); ")
    assert _edge_tip(canvas, edges["x", "m"]).startswith("x → m (input c); ")
    assert _edge_tip(canvas, edges["m", "r"]).startswith("m → r; ")
    controller.set_field("b", "label", "bias")      # no node named b: the ports read a, b again
    assert _ports(canvas, "m") == ["a", "b"]
    assert _edge_tip(canvas, edges["W", "m"]).startswith("W → m (input b); ")
