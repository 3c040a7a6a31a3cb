"""The rule pictures of conv2d, max_pool, avg_pool and softmax cross-entropy (issue 21 §1)
hold the real numbers: what each picture's last panel shows is the engine's VJP, for
random shapes, strides, dilations and SAME / VALID padding."""
import numpy as np
import pytest

from gradviz import story
from gradviz.graph import evaluate
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port
from gradviz.story.rule_pictures import (CONTRIBUTION, UPSTREAM, avg_pool_sharing, filter_correlation,
                                        max_pool_routing, pictures, transposed_convolution)

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
    """The pictures of the card's equation, and what the rule's own computation gives."""
    pictured = pictures(step)
    assert pictured.rows == []
    return [part for part in pictured.equation if part[0] == "picture"], pictured


def _marks(pictured):
    """The equation with its pictures as ('picture', label) and the card's arrays as markers."""
    return [part if part in (UPSTREAM, CONTRIBUTION) or part[0] == "op" else (part[0], part[2])
            for part in pictured.equation]


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
    w, x, at = doc.nodes["w"].value, doc.nodes["x"].value, steps["x"]._op.attrs
    g = doc.output_gradients[Port("y")]
    (spread, flipped), pictured = _panels(steps["x"])      # upstream, padded ⋆ filters flipped = contribution
    assert _marks(pictured) == [("picture", spread[2]), ("op", "⋆"), ("picture", flipped[2]), ("op", "="),
                                CONTRIBUTION]
    assert pictured.shows == {"filters"}
    np.testing.assert_array_equal(flipped[1], w[::-1, ::-1].transpose(0, 1, 3, 2))
    assert flipped[3] == "filter"
    assert np.abs(spread[1]).sum() == pytest.approx(np.abs(g).sum(), rel=1e-5)   # every upstream entry, once
    np.testing.assert_allclose(transposed_convolution(g, w, x.shape, at)[2], steps["x"].cotangent,
                               rtol=1e-5, atol=1e-5)
    (padded,), pictured = _panels(steps["w"])              # input, padded ⋆ upstream = contribution
    assert _marks(pictured) == [("picture", padded[2]), ("op", "⋆"), UPSTREAM, ("op", "="), CONTRIBUTION]
    assert pictured.shows == {"input"}
    _, upstream, result = filter_correlation(x, g, w.shape, at)
    np.testing.assert_array_equal(upstream, g)
    np.testing.assert_allclose(result, steps["w"].cotangent, rtol=1e-5, atol=1e-5)
    assert ("zero-padded" in padded[2]) == (padding == "SAME")
    assert np.abs(padded[1]).sum() == pytest.approx(np.abs(x).sum(), rel=1e-5)     # the input, zeros around


POOL = [((1, 4, 4, 1), [2, 2], [2, 2], "VALID"), ((2, 5, 7, 3), [3, 3], [2, 2], "SAME"),
        ((1, 6, 5, 2), [2, 3], [1, 1], "VALID"), ((1, 5, 5, 1), [3, 3], [1, 2], "SAME")]


@pytest.mark.parametrize("x_shape, ksize, strides, padding", POOL)
def test_max_pool_routes_each_upstream_entry_to_the_ringed_maximum(x_shape, ksize, strides, padding):
    x = rand(*x_shape)
    x.reshape(-1)[:3] = 1.0          # a tie: the first maximum takes it, as in TF
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    doc = _doc(x, Node("p", OP, op="nn.max_pool2d", attrs=attrs))
    step = _contributions(doc)["x"]
    (source,), pictured = _panels(step)                    # input ringed ← upstream = contribution
    assert _marks(pictured) == [("picture", "input (x): each window's max ringed"), ("op", "←"), UPSTREAM,
                                ("op", "="), CONTRIBUTION]
    np.testing.assert_array_equal(source[1], x)
    winners, routed = max_pool_routing(x, doc.output_gradients[Port("p")], step._op.attrs)
    np.testing.assert_allclose(routed, step.cotangent, rtol=1e-6, atol=1e-6)
    assert list(source[4]) == winners and winners
    nonzero = set(np.flatnonzero(step.cotangent).tolist())
    assert nonzero <= set(source[4])               # only ringed cells receive anything


@pytest.mark.parametrize("x_shape, ksize, strides, padding", POOL)
def test_avg_pool_shares_each_upstream_entry_over_its_window(x_shape, ksize, strides, padding):
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    doc = _doc(rand(*x_shape), Node("p", OP, op="nn.avg_pool2d", attrs=attrs))
    step = _contributions(doc)["x"]
    (counts,), pictured = _panels(step)                    # upstream ÷ counts = contribution
    assert _marks(pictured) == [UPSTREAM, ("op", "÷"), ("picture", counts[2]), ("op", "="), CONTRIBUTION]
    counted, shared = avg_pool_sharing(step._op._in_values[0].shape, doc.output_gradients[Port("p")],
                                       step._op.attrs)
    np.testing.assert_array_equal(counts[1], counted)
    np.testing.assert_allclose(shared, step.cotangent, rtol=1e-5, atol=1e-6)
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
    pictured = pictures(step)
    assert pictured.equation is None
    rows = pictured.rows
    y_rows = "one_hot(y)" if sparse else "y"       # the document's names, as the rule writes them
    assert [row[0][1] for row in rows] == ["p = softmax(z) =", f"{y_rows} =", f"p − {y_rows} ="]
    p, y, diff = (row[1][1] for row in rows)
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=1e-6)
    np.testing.assert_allclose(diff, p - y)
    g = doc.output_gradients[Port("loss")]
    np.testing.assert_allclose(g[:, None] * diff, step.cotangent, rtol=1e-5, atol=1e-6)


def test_other_ops_have_no_pictures():
    doc = _doc(rand(2, 3), Node("t", OP, op="tanh"))
    assert pictures(_contributions(doc)["x"]) is None
