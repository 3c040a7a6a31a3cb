"""The names written beside a card's ports never give a node's name another value."""
from pathlib import Path

import pytest

from gradviz.graph import fileformat
from gradviz.graph.catalog import port_name
from gradviz.graph.document import CONSTANT, OP, Document, Edge, Node, Port
from gradviz.render import Renderer
from gradviz.render.port_labels import input_names, output_names
from gradviz.story.build import build

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))


def _squares():
    """y = x * x: the node y is the product; multiply's own second operand is x."""
    import numpy as np
    doc = Document()
    doc.nodes["x"] = Node("x", CONSTANT, value=np.array([1.0, 2.0], np.float32), watched=True)
    doc.nodes["y"] = Node("y", OP, op="multiply")
    doc.edges = [Edge(Port("x"), Port("y", 0)), Edge(Port("x"), Port("y", 1))]
    doc.targets, doc.sources = [Port("y")], [Port("x")]
    return doc


def _clashes(doc):
    """[(node, port name, what the port holds)] where a written port name is the name of
    a node other than the one that feeds it. An unconnected port holds nothing, so its
    catalog letter repeats no node's value: it keeps it (a fresh add beside nodes a, b
    reads add(a, b), not add(c, d) that turned into add(a, b) once wired)."""
    names, found = {n.label or n.id for n in doc.nodes.values()}, []
    feeds = {(e.dst.node, e.dst.index): port_name(doc, e.src) for e in doc.edges}
    for nid, node in doc.nodes.items():
        n_in = max([e.dst.index + 1 for e in doc.edges if e.dst.node == nid], default=0)
        for i, name in enumerate(input_names(node, n_in, doc) if n_in > 1 else []):
            if name in names and (nid, i) in feeds and feeds[(nid, i)] != name:
                found.append((nid, name, feeds.get((nid, i))))
        for i, name in enumerate(output_names(node, 4, doc)):
            if name in names - {node.label or node.id}:
                found.append((nid, name, port_name(doc, Port(nid, i))))
    return found


@pytest.mark.parametrize("path", SAMPLES + ["squares"], ids=lambda p: getattr(p, "stem", p))
def test_no_port_name_gives_a_node_name_another_value(path):
    doc = _squares() if path == "squares" else fileformat.load(path, strict=False)
    assert _clashes(doc) == []


def test_the_port_and_the_rule_card_never_give_y_another_value():
    """multiply's ports read a, b in operand order (not x beside the node x and a renamed
    y); the rule card writes both operands as the node they are: grad_x = grad · x (issue
    20: the user's names substituted)."""
    doc = _squares()
    renderer = Renderer(doc)
    assert [name for _, name, out in renderer.port_labels("y") if not out] == ["a", "b"]
    story = build(doc)
    second = next(s for s in story.steps if s.kind == "contribution" and "(input b)" in s.title)
    assert second.formula == "grad_x = grad · x" and second.operand_nodes == {"x": "x"}
    assert "y" not in second.caption.split(":", 1)[1], second.caption
