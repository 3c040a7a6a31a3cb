"""The rule pictures of conv2d, max_pool, avg_pool and softmax cross-entropy (issue 21 §1)
hold the real numbers: what each picture's last panel shows is the engine's VJP, for
random shapes, strides, dilations and SAME / VALID padding."""
import numpy as np
import pytest

from gradviz import story
from gradviz.graph import evaluate
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port
from gradviz.story.rule_pictures import pictures

RNG = np.random.default_rng(5)


def rand(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _doc(x, node, w=None):
    doc = Document(title="t")
    doc.add(Node("x", CONSTANT, value=x, watched=True))
    doc.add(node)
    doc.connect("x", node.id, 0, 0)
    sources = [Port("x")]
    if w is not None:
        doc.add(Node("w", VARIABLE, value=w))
        doc.connect("w", node.id, 0, 1)
        sources.append(Port("w"))
    doc.targets, doc.sources = [Port(node.id)], sources
    doc.output_gradients = {Port(node.id): rand(*evaluate(doc).values[Port(node.id)].shape)}
    return doc


def _contributions(doc):
    s = story.build(doc)
    return {step.port.node: step for step in s.steps if step.kind == "contribution"}


def _panels(step):
    (row,) = pictures(step)
    return [part for part in row if part[0] == "picture"]


CONV = [((1, 5, 5, 1), (3, 3, 1, 1), [1, 1], "VALID", [1, 1]),
        ((2, 6, 5, 3), (3, 2, 3, 2), [1, 1], "SAME", [1, 1]),
        ((1, 7, 6, 2), (3, 3, 2, 2), [2, 2], "SAME", [1, 1]),
        ((2, 7, 8, 1), (2, 3, 1, 3), [2, 3], "VALID", [1, 1]),
        ((1, 8, 7, 2), (2, 2, 2, 1), [1, 1], "SAME", [2, 2]),
        ((1, 9, 9, 1), (3, 3, 1, 1), [2, 2], "VALID", [2, 1])]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", CONV)
def test_conv2d_pictures_are_a_transposed_convolution_and_a_correlation(x_shape, w_shape, strides, padding,
                                                                       dilations):
    node = Node("y", OP, op="nn.conv2d", attrs={"strides": strides, "padding": padding, "dilations": dilations})
    doc = _doc(rand(*x_shape), node, rand(*w_shape))
    steps = _contributions(doc)
    spread, flipped, result = _panels(steps["x"])
    np.testing.assert_allclose(result[1], steps["x"].cotangent, rtol=1e-5, atol=1e-5)
    w = doc.nodes["w"].value
    np.testing.assert_array_equal(flipped[1], w[::-1, ::-1].transpose(0, 1, 3, 2))
    assert flipped[3] == "filter"
    g = doc.output_gradients[Port("y")]
    assert np.abs(spread[1]).sum() == pytest.approx(np.abs(g).sum(), rel=1e-5)   # every upstream entry, once
    padded, upstream, result = _panels(steps["w"])
    np.testing.assert_allclose(result[1], steps["w"].cotangent, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(upstream[1], g)
    assert result[3] == "filter" and ("zero-padded" in padded[2]) == (padding == "SAME")


POOL = [((1, 4, 4, 1), [2, 2], [2, 2], "VALID"), ((2, 5, 7, 3), [3, 3], [2, 2], "SAME"),
        ((1, 6, 5, 2), [2, 3], [1, 1], "VALID"), ((1, 5, 5, 1), [3, 3], [1, 2], "SAME")]


@pytest.mark.parametrize("x_shape, ksize, strides, padding", POOL)
def test_max_pool_routes_each_upstream_entry_to_the_ringed_maximum(x_shape, ksize, strides, padding):
    x = rand(*x_shape)
    x.reshape(-1)[:3] = 1.0          # a tie: the first maximum takes it, as in TF
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    doc = _doc(x, Node("p", OP, op="nn.max_pool2d", attrs=attrs))
    step = _contributions(doc)["x"]
    source, upstream, routed = _panels(step)
    np.testing.assert_allclose(routed[1], step.cotangent, rtol=1e-6, atol=1e-6)
    assert source[4] == routed[4] and source[4]
    nonzero = set(np.flatnonzero(step.cotangent).tolist())
    assert nonzero <= set(source[4])               # only ringed cells receive anything


@pytest.mark.parametrize("x_shape, ksize, strides, padding", POOL)
def test_avg_pool_shares_each_upstream_entry_over_its_window(x_shape, ksize, strides, padding):
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    doc = _doc(rand(*x_shape), Node("p", OP, op="nn.avg_pool2d", attrs=attrs))
    step = _contributions(doc)["x"]
    upstream, counts, shared = _panels(step)
    np.testing.assert_allclose(shared[1], step.cotangent, rtol=1e-5, atol=1e-6)
    if padding == "VALID":
        assert set(np.unique(counts[1])) == {ksize[0] * ksize[1]}
    else:
        assert counts[1].max() == ksize[0] * ksize[1] and counts[1].min() < ksize[0] * ksize[1]


@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_cross_entropy_shows_p_labels_and_their_difference_in_three_rows(sparse):
    logits = rand(3, 4)
    doc = Document(title="ce")
    doc.add(Node("z", CONSTANT, value=logits, watched=True))
    labels = np.array([2, 0, 3], np.int64) if sparse else np.eye(4, dtype=np.float32)[[2, 0, 3]] * 0.9 + 0.025
    doc.add(Node("y", CONSTANT, value=labels))
    op = "nn.sparse_softmax_cross_entropy_with_logits" if sparse else "nn.softmax_cross_entropy_with_logits"
    doc.add(Node("loss", OP, op=op))
    doc.connect("y", "loss", 0, 0)
    doc.connect("z", "loss", 0, 1)
    doc.targets, doc.sources = [Port("loss")], [Port("z")]
    doc.output_gradients = {Port("loss"): np.array([1.0, 2.0, -0.5], np.float32)}
    step = _contributions(doc)["z"]
    rows = pictures(step)
    y_rows = "one_hot(y)" if sparse else "y"       # the document's names, as the rule writes them
    assert [row[0][1] for row in rows] == ["p = softmax(z) =", f"{y_rows} =", f"p − {y_rows} ="]
    p, y, diff = (row[1][1] for row in rows)
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=1e-6)
    np.testing.assert_allclose(diff, p - y)
    g = doc.output_gradients[Port("loss")]
    np.testing.assert_allclose(g[:, None] * diff, step.cotangent, rtol=1e-5, atol=1e-6)


def test_other_ops_have_no_pictures():
    doc = _doc(rand(2, 3), Node("t", OP, op="tanh"))
    assert pictures(_contributions(doc)["x"]) == []
