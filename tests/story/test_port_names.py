"""A port's label says what the rule card calls that operand (issue 20: multiply's second
port read 'a' beside a card that wrote grad_x = grad · x). An op whose rule names its
operands by letters labels its ports a, b, c in operand order; one whose rule names them by
role (conv2d's input and filters) by those words; the card, where it writes an operand by a
letter or word rather than its node's name, uses its port's label; no label is another
node's name unless that node feeds the port."""
from pathlib import Path

import numpy as np
import pytest

from gradviz.graph import catalog, fileformat
from gradviz.graph.document import CONSTANT, OP, Document, Edge, Node, Port
from gradviz.story.build import build
from gradviz.graph.input_names import by_place, slot_letter
from gradviz.graph.structure import unconnected
from gradviz.render.port_labels import with_port_names
from gradviz.graph.slots import input_names, renamed

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))

M = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
N = np.array([[1.0, 2.0], [0.5, 1.0]], np.float32)
# op -> its inputs' values and attrs: every catalog op of several inputs
OPS = {
    "add": ([M, N], {}), "subtract": ([M, N], {}), "multiply": ([M, N], {}),
    "divide": ([M, N], {}), "pow": ([M, N], {}), "maximum": ([M, N], {}),
    "minimum": ([M, N], {}), "matmul": ([M, N], {}), "linalg.solve": ([M, N], {}),
    "add_n": ([M, N, M], {}), "concat": ([M, N, M], {}), "stack": ([M, N, M], {}),
    "einsum": ([M, N], {"equation": "ij,jk->ik"}),
    "nn.softmax_cross_entropy_with_logits": ([N / 3, M], {}),
    "nn.embedding_lookup": ([M, np.array([1, 0], np.int32)], {}),
    "losses.MeanSquaredError": ([M, N], {}),
    "nn.conv2d": ([np.ones((1, 3, 3, 1), np.float32), np.ones((2, 2, 1, 1), np.float32)],
                  {"strides": [1, 1], "padding": "VALID"}),
}


def _op_doc(op, labels, others=()):
    """y = op(inputs labelled `labels`), beside nodes named `others` that feed nothing."""
    values, attrs = OPS[op]
    doc = Document(title=op)
    for i, v in enumerate(values):
        doc.nodes[f"n{i}"] = Node(f"n{i}", CONSTANT, value=v, watched=True, label=labels[i])
    doc.nodes["y"] = Node("y", OP, op=op, attrs={**catalog.OPS[op].attrs, **attrs})
    for name in others:
        doc.nodes[f"other_{name}"] = Node(f"other_{name}", CONSTANT, value=np.float32(1), label=name)
    doc.edges = [Edge(Port(f"n{i}"), Port("y", i)) for i in range(len(values))]
    doc.targets = [Port("y")]
    doc.sources = [Port(f"n{i}") for i, v in enumerate(values) if v.dtype.kind == "f"]
    return doc


def _documents():
    for path in SAMPLES:
        yield path.stem, fileformat.load(path)
    for op, (values, _) in OPS.items():
        n = len(values)
        for kind, labels in (("terms", [f"t{i}" for i in range(n)]),
                             ("no terms", [f"in put {i}" for i in range(n)])):
            for others in ((), ("a", "b", "x", "y")):
                yield f"{op}, {kind}{', a b x y' if others else ''}", _op_doc(op, labels, others)


def _ports(doc):
    """{node id: its input labels} for every node with several inputs."""
    out = {}
    for nid, node in doc.nodes.items():
        n = max([e.dst.index + 1 for e in doc.edges if e.dst.node == nid], default=0)
        if n > 1:
            out[nid] = input_names(node, n, doc)
    return out


def _slot(doc, step):
    """The node's input a contribution goes back through: the edge from its port (an op's
    inputs need not come in its node's order: cross-entropy's takes the logits first)."""
    slots = [e.dst.index for e in doc.edges if e.dst.node == step.node and e.src == step.port]
    return slots[0] if len(slots) == 1 else step.input_index


def test_every_port_label_is_its_operand_as_the_card_calls_it():
    wrong = []
    for name, doc in _documents():
        ports = _ports(doc)
        feeds = {(e.dst.node, e.dst.index): catalog.port_name(doc, e.src) for e in doc.edges}
        shown = {n.label or n.id for n in doc.nodes.values()}
        for nid, labels in ports.items():
            node = doc.nodes[nid]
            where = f"{name}: {node.label or nid} {labels}"
            if len(set(labels)) != len(labels):
                wrong.append(f"{where}: two ports read alike")
            for i, label in enumerate(labels):
                if label in shown and feeds.get((nid, i)) != label:
                    wrong.append(f"{where}: port {i + 1} reads {label}, another node's name")
            if by_place(node, len(labels)):
                letters = [lab for i, lab in enumerate(labels) if lab != feeds.get((nid, i))]
                if letters != sorted(letters, key=lambda s: (len(s), s)) or \
                        (letters and letters[0] != slot_letter(0) and "a" not in shown):
                    wrong.append(f"{where}: letters out of operand order")
            else:
                declared = catalog.OPS[node.op].inputs
                if not all(lab in declared or lab == feeds.get((nid, i)) or len(lab) == 1
                           for i, lab in enumerate(labels)):
                    wrong.append(f"{where}: neither its role nor a letter")
        story = build(doc)
        assert story.steps, (name, story.problems)   # (a sample may warn of a NaN it teaches)
        for s in story.steps:
            if s.kind != "contribution" or s.node not in ports or s._op is None \
                    or len(story.evaluation.entries.get(s.node, ())) != 1:
                continue
            slot = _slot(doc, s)
            label, fed = ports[s.node][slot], feeds.get((s.node, slot))
            if s._slot != label and s._slot != fed:
                wrong.append(f"{name}: {s.title}: the card calls input {s.input_index + 1} "
                             f"{s._slot}, its port reads {label}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("op, expected", [("multiply", ["a", "b"]), ("matmul", ["a", "b"]),
                                          ("linalg.solve", ["a", "b"]),
                                          ("concat", ["a", "b", "c"]),
                                          ("nn.conv2d", ["input", "filters"]),
                                          ("nn.softmax_cross_entropy_with_logits",
                                           ["labels", "logits"])])
def test_ports_read_by_place_or_by_role(op, expected):
    doc = _op_doc(op, [f"in put {i}" for i in range(len(OPS[op][0]))])
    assert input_names(doc.nodes["y"], len(expected), doc) == expected
    card = build(doc)
    slots = {_slot(doc, s): s._slot for s in card.steps if s.kind == "contribution"
             and s.node == "y"}
    assert slots and all(slots[k] == expected[k] for k in slots), slots


def test_a_cut_of_one_input_numbers_nothing():
    """'c_stopped (stop_gradient) stops gradients: input 0 (c)', then 'input 1 (c)': an op of
    one input has no port label and nothing to count (issue 20 §2); it says 'its input'."""
    doc = fileformat.load(SAMPLES[0].parent / "003_stop_gradient_product.json")
    cut = next(s for s in build(doc).steps if s.kind == "cut")
    assert "stops gradients: its input (c)" in cut.caption, cut.caption


def _beside_a_and_b(op, wired=()):
    """Nodes a and b, and a fresh `op` (as from the palette) with the edges `wired`:
    [(node, input index)]."""
    doc = Document(title=op)
    for name in ("a", "b", "x"):
        doc.nodes[name] = Node(name, CONSTANT, value=M, watched=True)
    doc.nodes["m"] = Node("m", OP, op=op, attrs=dict(catalog.OPS[op].attrs))
    doc.edges = [Edge(Port(src), Port("m", i)) for src, i in wired]
    return doc, doc.nodes["m"]


@pytest.mark.parametrize("op, text", [("add", "add(a, b): a + b"),
                                      ("matmul", "matmul(a, b): a @ b")])
def test_a_fresh_ops_ports_keep_the_catalogs_letters_beside_nodes_a_and_b(op, text):
    """A fresh add beside nodes a and b read 'add(c, d): c + d' with ports c, d, and 'add(a,
    b)' once wired from a and b: an unconnected port holds no value, so its letter gives no
    node's name a second value. The letters stay as the catalog says through the wiring."""
    for wired in ((), [("a", 0)], [("a", 0), ("b", 1)]):
        doc, node = _beside_a_and_b(op, wired)
        assert input_names(node, 2, doc) == ["a", "b"], wired
        assert with_port_names(node, doc, catalog_text(node)) == text
        assert renamed(node, 2, doc) == {}
    doc, node = _beside_a_and_b(op)
    assert unconnected(0, input_names(node, 2, doc)[0]) == "input 1 (a) is not connected"


def test_a_real_clash_moves_the_letters_and_says_which_node():
    """x feeding matmul's first input would read 'a' beside the node a: that is a real clash,
    the letters move on together, and the port says which node's name it would repeat."""
    doc, node = _beside_a_and_b("matmul", [("x", 0), ("a", 1)])
    shown = input_names(node, 2, doc)
    assert shown[0] not in {"a", "b", "x"} and shown[1] == slot_letter(
        "abcdefghijklmnopqrstuvwxyz".index(shown[0]) + 1)
    assert renamed(node, 2, doc) == {
        0: ("a", "'a' is the name of another node, not the one wired in; "
                 "'b' is the name of another node, not the one wired in"),
        1: ("b", "'a' is the name of another node, not the one wired in; "
                 "'b' is the name of another node, not the one wired in")}


def catalog_text(node):
    spec = catalog.OPS[node.op]
    return f"{node.op}({', '.join(spec.inputs)}): {spec.doc}"
