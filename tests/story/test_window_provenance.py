"""Provenance through conv2d, max_pool and avg_pool (issue 21 §1): one entry of an input's
(or a filter's) gradient is the sum of upstream window entries times filter taps (times 1
at a window's maximum, times 1/count in an average), for any shape, stride, dilation and
SAME / VALID padding; each product's factors are named as the user writes them."""
import numpy as np
import pytest

import gradviz as tf
from gradviz import story
from gradviz.graph import evaluate
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port
from gradviz.story import local

RNG = np.random.default_rng(21)


def rand(*shape):
    return RNG.normal(size=shape).astype(np.float32)


CONV = [  # (x shape, w shape, strides, padding, dilations)
    ((1, 5, 5, 1), (3, 3, 1, 1), 1, "VALID", 1),
    ((2, 5, 6, 3), (3, 2, 3, 2), 1, "SAME", 1),
    ((1, 7, 6, 2), (3, 3, 2, 2), 2, "SAME", 1),
    ((2, 7, 7, 1), (2, 3, 1, 3), (2, 3), "VALID", 1),
    ((1, 7, 8, 2), (2, 2, 2, 1), 1, "SAME", 2),
]
POOL = [  # (x shape, ksize, strides, padding)
    ((1, 4, 4, 1), 2, 2, "VALID"),
    ((2, 5, 7, 3), 3, 2, "SAME"),
    ((1, 6, 5, 2), (2, 3), 1, "VALID"),
    ((1, 5, 5, 1), 3, (1, 2), "SAME"),
]


def _op(fn, values):
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = fn(*xs)
    return y._op, xs, y, tape.jacobian(y, xs)


def _check_columns(op, xs, y, J, kinds):
    for k in kinds:
        full = np.asarray(J[k]).reshape(int(np.prod(y.shape)), -1)
        for flat in range(xs[k].numpy().size):
            (col,) = local.columns(op, k, flat, [np.zeros(y.shape, np.float32)])
            js, factors, _, _ = col.entries(col.count)
            dense = np.zeros(full.shape[0])
            np.add.at(dense, js, factors)
            np.testing.assert_allclose(dense, full[:, flat], rtol=1e-5, atol=1e-6,
                                       err_msg=f"input {k}, entry {flat}")


@pytest.mark.parametrize("case", CONV)
def test_conv2d_columns_are_the_jacobians_and_need_no_backward_pass(case, monkeypatch):
    x_shape, w_shape, strides, padding, dilations = case
    op, xs, y, J = _op(lambda x, w: tf.nn.conv2d(x, w, strides, padding, dilations=dilations),
                       [rand(*x_shape), rand(*w_shape)])
    monkeypatch.setattr(local, "_generic_columns", None)   # the closed form alone
    _check_columns(op, xs, y, J, (0, 1))


@pytest.mark.parametrize("case", POOL)
@pytest.mark.parametrize("pool", ["max", "avg"])
def test_pool_columns_are_the_jacobians(case, pool, monkeypatch):
    x_shape, ksize, strides, padding = case
    fn = tf.nn.max_pool2d if pool == "max" else tf.nn.avg_pool2d
    x = rand(*x_shape)
    x.reshape(-1)[:4] = 0.5          # ties: the first of the window takes the gradient, as in TF
    op, xs, y, J = _op(lambda x: fn(x, ksize, strides, padding), [x])
    monkeypatch.setattr(local, "_generic_columns", None)
    _check_columns(op, xs, y, J, (0,))


def _conv_doc(x_shape, w_shape, strides, padding, dilations, pool=None):
    doc = Document(title="conv")
    doc.add(Node("x", CONSTANT, value=rand(*x_shape), watched=True))
    doc.add(Node("w", VARIABLE, value=rand(*w_shape), label="filter w"))
    s = [strides] * 2 if np.isscalar(strides) else list(strides)
    d = [dilations] * 2 if np.isscalar(dilations) else list(dilations)
    doc.add(Node("y", OP, op="nn.conv2d", attrs={"strides": s, "padding": padding, "dilations": d}))
    doc.connect("x", "y", 0, 0)
    doc.connect("w", "y", 0, 1)
    last = "y"
    if pool is not None:
        doc.add(Node("p", OP, op=f"nn.{pool}_pool2d", attrs={"ksize": [2, 2], "strides": [1, 2],
                                                              "padding": "SAME"}))
        doc.connect("y", "p", 0, 0)
        last = "p"
    doc.targets, doc.sources = [Port(last)], [Port("x"), Port("w")]
    shape = evaluate(doc).values[Port(last)].shape
    doc.output_gradients = {Port(last): rand(*shape)}
    return doc


@pytest.mark.parametrize("case", CONV[1:4])
@pytest.mark.parametrize("pool", [None, "max", "avg"])
def test_every_gradient_entry_is_the_sum_of_its_products(case, pool):
    doc = _conv_doc(*case, pool=pool)
    s = story.build(doc)
    gradients = evaluate(doc).gradients
    for port in (Port("x"), Port("w")):
        g = gradients[port]
        for flat in range(g.size):
            p = s.provenance(port, flat, max_terms=10_000)
            assert p.kind == "contribution" and not p.more
            products = sum(t.upstream * t.local for t in p.terms)
            np.testing.assert_allclose(p.value, g.flat[flat], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(products, g.flat[flat], rtol=1e-4, atol=1e-5)


def test_a_conv_input_entry_is_upstream_window_times_filter_taps_in_nhwc_names():
    doc = _conv_doc((1, 5, 5, 1), (3, 3, 1, 2), 1, "VALID", 1)
    s = story.build(doc)
    g = doc.output_gradients[Port("y")]
    w = doc.nodes["w"].value
    flat = int(np.ravel_multi_index((0, 2, 3, 0), (1, 5, 5, 1)))
    p = s.provenance(Port("x"), flat, max_terms=100)
    assert p.where == "x[0,2,3,0]" and p.text().startswith("grad x[0,2,3,0] = ")
    # x[0,2,3,0] lies under tap (a, b) of the window at (2 - a, 3 - b), for every output channel
    expected = {f"grad[0,{2 - a},{3 - b},{o}]·filters[{a},{b},0,{o}]": float(g[0, 2 - a, 3 - b, o] * w[a, b, 0, o])
                for a in range(3) for b in range(3) for o in range(2) if 2 - a <= 2 and 3 - b <= 2}
    assert {t.label: t.product for t in p.terms if t.product} == pytest.approx(
        {k: v for k, v in expected.items() if v})
    # a tap is written as the card writes the operand, filters (which the card says is the
    # node filter w), not by the node's name (issue 20 §1)
    assert all(t.factor.startswith("filters[") for t in p.terms)


def test_a_max_pool_entry_names_the_window_it_won():
    doc = Document(title="pool")
    x = np.array([[1, 5, 2, 0], [3, 4, 9, 9], [0, 0, 1, 2], [7, 0, 3, 8]], np.float32).reshape(1, 4, 4, 1)
    doc.add(Node("x", CONSTANT, value=x, watched=True))
    doc.add(Node("p", OP, op="nn.max_pool2d", attrs={"ksize": [2, 2], "strides": [1, 1]}))
    doc.connect("x", "p", 0, 0)
    doc.targets, doc.sources = [Port("p")], [Port("x")]
    doc.output_gradients = {Port("p"): np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)}
    s = story.build(doc)
    # x[0,1,2,0] = 9 is the first maximum of the windows at (0,1), (0,2), (1,1), (1,2)
    p = s.provenance(Port("x"), int(np.ravel_multi_index((0, 1, 2, 0), x.shape)))
    assert [t.upstream for t in p.terms] == [2, 3, 5, 6] and p.value == 16
    assert [t.factor for t in p.terms] == [f"1 (max of window p[0,{i},{j},0])" for i, j in ((0, 1), (0, 2), (1, 1),
                                                                                        (1, 2))]
    # x[0,1,3,0] = 9 ties with x[0,1,2,0] in its two windows: the first one won both, this one none
    p = s.provenance(Port("x"), int(np.ravel_multi_index((0, 1, 3, 0), x.shape)))
    assert p.terms == [] and p.value == 0
    # x[0,3,0,0] = 7 is the max of the window at (2, 0) alone
    p = s.provenance(Port("x"), int(np.ravel_multi_index((0, 3, 0, 0), x.shape)))
    assert [(t.upstream, t.local) for t in p.terms] == [(7, 1)] and p.value == 7


def test_explain_prints_a_conv_entry_as_upstream_times_filter_taps(capsys):
    from gradviz.story.text import explain
    text = explain(story.build(_conv_doc((1, 4, 4, 1), (2, 2, 1, 1), 1, "VALID", 1)))
    line = next(l for l in text.splitlines() if "e.g. grad x[" in l)
    # the taps as the step's rule writes them (its caption says filters is the node filter w)
    assert "·filters[" in line and "J[" not in line and "∂" not in line



def test_explain_prints_an_image_as_an_image_and_a_filter_as_its_taps():
    from pathlib import Path

    from gradviz import graph
    from gradviz.story.text import explain
    sample = Path(__file__).resolve().parents[2] / "gradviz" / "samples" / "nets_1_conv_transpose.json"
    text = explain(story.build(graph.load(sample)))
    image = "       [0,:,:,0]\n         [  1   0  -1   0   0 ]\n         [  2   2  -2  -2   0 ]\n"
    taps = "       [:,:,0,0]\n         [  2   8   2 ]\n         [ -2   2   3 ]\n         [  8   2   2 ]\n"
    assert image in text and taps in text
    big = story.formatting.grid(np.zeros((2, 3, 3, 4)))
    assert big.count("[") - big.count("[ ") == 3 and "… (5 more images)" in big
