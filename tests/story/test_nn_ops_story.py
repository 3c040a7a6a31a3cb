"""The backprop story through the deep-learning ops: each op's rule text on its step, and an
element's provenance adding up to the gradient the tape gives."""
import numpy as np
import pytest

from gradviz import story
from gradviz.graph import evaluate
from gradviz.graph.document import CONSTANT, LAYER, OP, VARIABLE, Document, Node, Port

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 3)).astype(np.float32)
Y = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], np.float32)


def _doc(nodes, edges, target, source):
    doc = Document(title="t")
    for n in nodes:
        doc.add(n)
    for src, dst, slot in edges:
        doc.connect(src, dst, 0, slot)
    doc.targets, doc.sources = [Port(target)], [Port(source)]
    return doc


def _chain(node, extra=(), first_slot=0):
    """x → node (→ square), with `extra` constant inputs in the node's other slots."""
    nodes = [Node("x", CONSTANT, value=X, watched=True), node, Node("sq", OP, op="square")]
    edges = [("x", node.id, first_slot), (node.id, "sq", 0)]
    for slot, (nid, value) in extra:
        nodes.append(Node(nid, CONSTANT, value=value))
        edges.append((nid, node.id, slot))
    return _doc(nodes, edges, "sq", "x")


CASES = {
    "xent": (lambda: _chain(Node("loss", OP, op="nn.softmax_cross_entropy_with_logits"),
                            [(0, ("labels", Y))], first_slot=1),
             "grad_x = grad · (p − labels), p = softmax(x)"),      # in the document's names
    "sparse_xent": (lambda: _chain(Node("loss", OP, op="nn.sparse_softmax_cross_entropy_with_logits"),
                                   [(0, ("classes", np.array([2, 0], np.int64)))], first_slot=1),
                    "grad_x = grad · (p − one_hot(classes)), p = softmax(x)"),
    "dropout": (lambda: _chain(Node("drop", OP, op="nn.dropout", attrs={"rate": 0.5, "seed": 1})),
                "grad_x = grad · mask / (1 − rate)"),
    "layer_norm": (lambda: _chain(Node("ln", LAYER, op="LayerNormalization", weights={
        "gamma": np.array([1.0, 2.0, 0.5], np.float32), "beta": np.zeros(3, np.float32)})),
        "grad_x = (ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂)) / σ, ĝ = grad · γ"),
}


@pytest.mark.parametrize("name", CASES)
def test_the_ops_rule_is_told_and_an_element_adds_up_to_its_gradient(name):
    make, formula = CASES[name]
    doc = make()
    s = story.build(doc)
    assert formula in [step.formula for step in s.steps if step.kind == "contribution"]
    gradient = evaluate(doc).gradients[Port("x")]
    for flat in range(X.size):
        p = s.provenance(Port("x"), flat)
        np.testing.assert_allclose(p.value, gradient.flat[flat], rtol=1e-5, atol=1e-6)


def test_the_sparse_rule_names_the_users_labels():
    s = story.build(CASES["sparse_xent"][0]())
    (step,) = [st for st in s.steps if st.kind == "contribution" and st.node == "loss"]
    assert "one_hot(classes)" in step.caption and step.operand_nodes.get("classes") == "classes"


def test_an_embedding_layers_story_reaches_its_table():
    table = RNG.standard_normal((4, 3)).astype(np.float32)
    doc = _doc([Node("ids", CONSTANT, value=np.array([[1, 3], [3, 0]], np.int64)),
                Node("emb", LAYER, op="Embedding", attrs={"input_dim": 4, "output_dim": 3},
                     weights={"embeddings": table}),
                Node("sq", OP, op="square")],
               [("ids", "emb", 0), ("emb", "sq", 0)], "sq", "emb")
    doc.sources = [Port("emb", 1)]
    s = story.build(doc)
    assert "grad_params = scatter-add of grad at the indices" in \
        [step.formula for step in s.steps if step.kind == "contribution"]
    gradient = evaluate(doc).gradients[Port("emb", 1)]
    p = s.provenance(Port("emb", 1), 9)  # row 3 of the table, looked up twice
    np.testing.assert_allclose(p.value, gradient.flat[9], rtol=1e-6)
    np.testing.assert_allclose(gradient.flat[9], 2 * table[3, 0] * 2, rtol=1e-6)


def test_a_float32_provenance_writes_the_cards_decimals_not_a_float64_widening():
    """0.05 in float32 is 0.0500000007 as a float64: eight digits of that printed
    '0.050000001' in the provenance dock. The sum is written as the cards write it, the
    same for a float32 and a float64 cotangent. (Issue 20: a tensor whose largest entry is
    0.05 is written beside its power of ten, 5.000×10⁻², so that it keeps three significant
    digits, no longer 0.050.)"""
    def doc_of(dtype):
        doc = Document(title="t")
        doc.add(Node("x", CONSTANT, value=np.array([0.05, 0.03], dtype), watched=True))
        doc.add(Node("w", CONSTANT, value=np.array([1.0, 1.0], dtype), watched=True))
        doc.add(Node("y", OP, op="multiply"))
        doc.connect("x", "y", 0, 0)
        doc.connect("w", "y", 0, 1)
        doc.targets, doc.sources = [Port("y")], [Port("w")]
        return doc
    single = story.build(doc_of(np.float32)).provenance(Port("w"), 0)
    assert single.text().endswith("= 5.000×10⁻²"), single.text()
    double = story.build(doc_of(np.float64)).provenance(Port("w"), 0)
    assert double.text() == single.text() and double.numbers() == single.numbers()
