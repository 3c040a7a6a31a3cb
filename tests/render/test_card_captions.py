"""A rule card beside a node named after one of its caption words (issue 20 §1) writes the
longer word under its arrays and in what hovering them says; tests/story/test_caption_words
checks every op's captions."""
import numpy as np

from gradviz import story
from gradviz.graph.document import CONSTANT, OP, Document, Edge, Node, Port
from gradviz.render.formula import FormulaLayout


def _multiply(a, b, out):
    """out = a * b, constants [1 2] and [3 5]."""
    doc = Document(title="captions")
    for nid, name, v in (("n0", a, [1.0, 2.0]), ("n1", b, [3.0, 5.0])):
        doc.nodes[nid] = Node(nid, CONSTANT, value=np.float32(v), watched=True, label=name)
    doc.nodes["m"] = Node("m", OP, op="multiply", attrs={}, label=out)
    doc.edges = [Edge(Port("n0"), Port("m", 0)), Edge(Port("n1"), Port("m", 1))]
    doc.targets, doc.sources = [Port("m")], [Port("n0"), Port("n1")]
    return story.build(doc)


def _captions(s):
    step = s.of_kind("contribution")[0]
    layout = FormulaLayout(step, len(s.steps))
    words = [layout.caption_of(p[2]) for p in layout.parts if p[0] in ("array", "text") and len(p) <= 3]
    hovered = []
    for part, shown, top, x, _ in layout.placed:     # the first entry of each captioned array
        if part[0] == "array" and len(part) <= 3:
            cell = shown.cell_rect(x, top, 0)
            hovered.append(layout.entry_text(0.0, 0.0, cell.center()).split("[")[0])
    return words, hovered


def test_the_card_says_incoming_and_outgoing_beside_nodes_called_upstream_and_contribution():
    words, hovered = _captions(_multiply("upstream", "a", "contribution"))
    assert words == ["incoming cotangent", "local rule", "outgoing cotangent"]
    assert hovered == ["incoming cotangent", "outgoing cotangent"]


def test_a_card_with_no_such_node_keeps_the_short_words():
    words, hovered = _captions(_multiply("x", "a", "y"))
    assert words == ["upstream", "local rule", "contribution"]
    assert hovered == ["upstream", "contribution"]
