"""tf.nn.conv2d / conv1d and their gradient ops (Conv2DBackpropInput, Conv2DBackpropFilter):
forward values against a naive loop and TF's own canned numbers, TF's argument forms
and SAME arithmetic, gradients against finite differences to second order in float64
and float32, batched cotangents (jacobian, batch_jacobian) and clear errors."""
import itertools

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import backend_gradviz
from gradviz.engine.check import check_grads
from gradviz.engine.ops import conv


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def arange(shape):
    """TF's test inputs: 1, 2, 3, ... in the given shape."""
    return np.arange(1, np.prod(shape) + 1, dtype=np.float32).reshape(shape)


def same_pads(size, k, stride, dilation):
    """TF's SAME rule, written out: ceil(size / stride) outputs, the odd pad after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def naive_conv2d(x, w, strides, pads, dilations):
    """A loop over every output element: the definition, with nothing shared."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    (pt, pb), (pl, pr) = pads
    sh, sw = strides
    dh, dw = dilations
    out_h = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    out_w = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    y = np.zeros((n, out_h, out_w, o))
    for b, i, j, p, q in itertools.product(range(n), range(out_h), range(out_w), range(kh),
                                           range(kw)):
        r, s = i * sh - pt + p * dh, j * sw - pl + q * dw
        if 0 <= r < h and 0 <= s < wd:
            y[b, i, j] += x[b, r, s] @ w[p, q]
    return y


# (input shape, filter shape, strides, dilations)
SHAPES = [
    ((2, 5, 5, 3), (3, 3, 3, 4), (1, 1), (1, 1)),
    ((1, 6, 7, 2), (2, 3, 2, 3), (2, 2), (1, 1)),
    ((2, 7, 6, 1), (3, 2, 1, 2), (2, 3), (1, 1)),
    ((1, 7, 8, 2), (3, 3, 2, 2), (1, 1), (2, 2)),
    ((1, 9, 8, 2), (2, 3, 2, 2), (1, 1), (3, 2)),
    ((1, 9, 9, 2), (3, 2, 2, 2), (2, 3), (2, 2)),
    ((1, 4, 4, 2), (4, 4, 2, 1), (1, 1), (1, 1)),
]
PADDINGS = ["SAME", "VALID", [[0, 0], [1, 2], [0, 3], [0, 0]]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", PADDINGS, ids=["same", "valid", "explicit"])
@pytest.mark.parametrize("x_shape, w_shape, strides, dilations", SHAPES)
def test_forward_matches_a_naive_loop(x_shape, w_shape, strides, dilations, padding, dtype):
    x, w = normal(x_shape, 1).astype(dtype), normal(w_shape, 2).astype(dtype)
    if padding == "SAME":
        pads = tuple(same_pads(x_shape[1 + a], w_shape[a], strides[a], dilations[a])
                     for a in (0, 1))
    elif padding == "VALID":
        pads = ((0, 0), (0, 0))
    else:
        pads = (tuple(padding[1]), tuple(padding[2]))
    y = tf.nn.conv2d(x, w, strides, padding, dilations=dilations)
    expected = naive_conv2d(x.astype(np.float64), w.astype(np.float64), strides, pads, dilations)
    assert y.dtype == dtype
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-12)


def test_same_padding_puts_the_odd_extra_row_after():
    # Height 5, a 2-row window, stride 2: 3 output rows, one row of padding, at the bottom.
    x = arange((1, 5, 1, 1))
    y = tf.nn.conv2d(x, np.ones((2, 1, 1, 1), np.float32), 2, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [1 + 2, 3 + 4, 5 + 0])
    # A 3-row window at stride 1 pads one row on each side; a 4-row window, 1 before, 2 after.
    y = tf.nn.conv2d(x, np.ones((4, 1, 1, 1), np.float32), 1, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [0 + 1 + 2 + 3, 1 + 2 + 3 + 4,
                                                      2 + 3 + 4 + 5, 3 + 4 + 5, 4 + 5])


# TF's canned results (tensorflow/compiler/tests/conv2d_test.py, run on TF's CPU device):
# inputs 1, 2, 3, ... in the given shapes.
def test_tf_conv2d_2x2_filter():  # Conv2DTest.testConv2D2x2Filter
    y = tf.nn.conv2d(arange((1, 2, 3, 3)), arange((2, 2, 3, 3)), [1, 1], "VALID")
    np.testing.assert_allclose(y.numpy().ravel(), [2271, 2367, 2463, 2901, 3033, 3165])


@pytest.mark.parametrize("input_sizes, filter_sizes, out_sizes, strides, dilations, padding, "
                         "expected", [
                             # Conv2DBackpropInputTest.testConv2D2x2Filter... (SAME)
                             ((1, 2, 3, 3), (2, 2, 3, 3), (1, 2, 3, 3), 1, 1, "SAME",
                              [14, 32, 50, 100, 163, 226, 217, 334, 451, 190, 307, 424, 929,
                               1217, 1505, 1487, 1883, 2279]),
                             # ...testConv2D2x2FilterStride2
                             ((1, 3, 5, 1), (1, 3, 1, 1), (1, 2, 2, 1), 2, 1, "VALID",
                              [1, 2, 5, 4, 6, 0, 0, 0, 0, 0, 3, 6, 13, 8, 12]),
                             # ...testConv2D2x2FilterStride2Same
                             ((1, 2, 3, 1), (2, 2, 1, 1), (1, 1, 2, 1), 2, 1, "SAME",
                              [1, 2, 2, 3, 4, 6]),
                             # ...testConv2DKernelSizeMatchesInputSizeBackpropInputDilation2x2
                             ((1, 3, 3, 1), (2, 2, 1, 2), (1, 1, 1, 2), 1, 2, "VALID",
                              [5, 0, 11, 0, 0, 0, 17, 0, 23]),
                         ], ids=["same", "stride2", "stride2-same", "dilation2"])
def test_tf_backprop_input(input_sizes, filter_sizes, out_sizes, strides, dilations, padding,
                           expected):
    g = conv.conv2d_backprop_input(input_sizes, arange(filter_sizes), arange(out_sizes),
                                   strides, padding, dilations=dilations)
    assert g.shape == input_sizes
    np.testing.assert_allclose(g.numpy().ravel(), expected)


@pytest.mark.parametrize("input_sizes, filter_sizes, out_sizes, strides, dilations, padding, "
                         "expected", [
                             # Conv2DBackpropFilterTest.testConv2D2x2Filter
                             ((1, 2, 3, 3), (2, 2, 3, 3), (1, 1, 2, 3), 1, 1, "VALID",
                              [17, 22, 27, 22, 29, 36, 27, 36, 45, 32, 43, 54, 37, 50, 63, 42,
                               57, 72, 62, 85, 108, 67, 92, 117, 72, 99, 126, 77, 106, 135, 82,
                               113, 144, 87, 120, 153]),
                             # ...testConv2D1x3FilterSameOutbackprop2
                             ((1, 1, 4, 1), (1, 3, 1, 1), (1, 1, 2, 1), 2, 1, "SAME", [7, 10, 3]),
                             # ...testConv2D2x2FilterC1Same
                             ((1, 2, 3, 1), (2, 2, 1, 1), (1, 2, 3, 1), 1, 1, "SAME",
                              [91, 58, 32, 17]),
                             # ...testConv2D2x2FilterStride2Same
                             ((1, 2, 3, 1), (2, 2, 1, 1), (1, 1, 2, 1), 2, 1, "SAME",
                              [7, 2, 16, 5]),
                             # ...testConv2D2x2Depth3ValidBackpropFilterStride1x1Dilation2x1
                             ((1, 3, 6, 1), (2, 2, 1, 1), (1, 1, 5, 1), 1, [2, 1], "VALID",
                              [55, 70, 235, 250]),
                             # ...testConv2DKernelSizeMatchesInputSizeBackpropFilterDilation2x2
                             ((1, 3, 3, 1), (2, 2, 1, 2), (1, 1, 1, 2), 1, 2, "VALID",
                              [1, 2, 3, 6, 7, 14, 9, 18]),
                         ], ids=["valid", "stride2-same-1x3", "same", "stride2-same",
                                 "dilation2x1", "dilation2"])
def test_tf_backprop_filter(input_sizes, filter_sizes, out_sizes, strides, dilations, padding,
                            expected):
    g = conv.conv2d_backprop_filter(arange(input_sizes), filter_sizes, arange(out_sizes),
                                    strides, padding, dilations=dilations)
    assert g.shape == filter_sizes
    np.testing.assert_allclose(g.numpy().ravel(), expected)


# -- TF's argument forms -------------------------------------------------------------------

@pytest.mark.parametrize("form", [2, [2], [2, 2], [1, 2, 2, 1], (1, 2, 2, 1)])
def test_strides_and_dilations_take_tf_forms(form):
    x, w = normal((1, 8, 8, 2)), normal((2, 2, 2, 1), 1)
    reference = naive_conv2d(x, w, (2, 2), ((0, 0), (0, 0)), (1, 1))
    np.testing.assert_allclose(tf.nn.conv2d(x, w, form, "VALID").numpy(), reference, rtol=1e-12)
    reference = naive_conv2d(x, w, (1, 1), ((0, 0), (0, 0)), (2, 2))
    np.testing.assert_allclose(tf.nn.conv2d(x, w, 1, "VALID", dilations=form).numpy(), reference,
                               rtol=1e-12)


def test_op_type_and_attributes_are_tfs():
    x, w = tf.constant(normal((1, 4, 4, 2))), tf.constant(normal((2, 2, 2, 3)))
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.conv2d(x, w, 2, [[0, 0], [1, 0], [0, 1], [0, 0]], dilations=[1, 1])
    assert y.op.type == "Conv2D"
    assert y.op.get_attr("strides") == (1, 2, 2, 1)
    assert y.op.get_attr("padding") == "EXPLICIT"
    assert y.op.get_attr("explicit_paddings") == (0, 0, 1, 0, 0, 1, 0, 0)
    assert y.op.get_attr("dilations") == (1, 1, 1, 1)
    assert y.op.get_attr("data_format") == "NHWC"
    grad_fn = tf.gradient_registry.lookup("Conv2D")
    gx, gw = grad_fn(y.op, tf.ones_like(y))
    tx, tw = tape.gradient(y, [x, w])
    np.testing.assert_allclose(gx.numpy(), tx.numpy())
    np.testing.assert_allclose(gw.numpy(), tw.numpy())
    for name in ("Conv2DBackpropInput", "Conv2DBackpropFilter"):
        assert callable(tf.gradient_registry.lookup(name))


def test_the_recorded_gradient_is_made_of_tfs_backprop_ops():
    x, w = tf.constant(normal((1, 4, 4, 2))), tf.Variable(normal((3, 3, 2, 2)))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.nn.conv2d(x, w, 1, "SAME")
        gx, gw = inner.gradient(y, [x, w])
        gx_norm = tf.reduce_sum(gx * gx)
    assert gx.op.type == "Conv2DBackpropInput"
    assert gw.op.type == "Conv2DBackpropFilter"
    # TF's input order, without its shape tensors: (filter, out_backprop), (input, out_backprop)
    assert gx.op.inputs[0] is w and gw.op.inputs[0] is x
    assert gx.op.get_attr("input_sizes") == (1, 4, 4, 2)
    assert gw.op.get_attr("filter_sizes") == (3, 3, 2, 2)
    # gx = Jᵀ·1 is linear in w, so d Σ gx² / dw is the correlation of 2·gx with the ones.
    expected = conv.conv2d_backprop_filter(2 * gx, (3, 3, 2, 2), tf.ones_like(y), 1, "SAME")
    np.testing.assert_allclose(outer.gradient(gx_norm, w).numpy(), expected.numpy(), rtol=1e-12)


def test_formula_texts_name_the_rules():
    assert conv.CONV2D.formula({}, 0) == "grad_input = transposed convolution of grad with filters"
    assert conv.CONV2D.formula({}, 1).startswith("grad_filters = correlation of input with grad")


# -- gradients -----------------------------------------------------------------------------

GRADIENT_CASES = [
    ((2, 4, 4, 2), (3, 3, 2, 2), 1, "SAME", 1),
    ((1, 5, 6, 2), (2, 3, 2, 3), [2, 2], "SAME", 1),
    ((1, 5, 5, 1), (2, 2, 1, 2), [1, 2, 1, 1], "VALID", 1),
    ((1, 6, 5, 2), (2, 2, 2, 1), 1, "VALID", [2, 2]),
    ((1, 5, 4, 1), (3, 2, 1, 2), 2, [[0, 0], [2, 1], [0, 1], [0, 0]], [1, 2]),
]
GRADIENT_IDS = ["same", "same-stride2", "valid-stride-1x2", "valid-dilation2", "explicit"]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", GRADIENT_CASES,
                         ids=GRADIENT_IDS)
def test_conv2d_gradients(x_shape, w_shape, strides, padding, dilations):
    check_grads(lambda x, w: tf.nn.conv2d(x, w, strides, padding, dilations=dilations),
                [normal(x_shape, 1), normal(w_shape, 2)], order=2)


def test_conv2d_after_a_nonlinearity_third_order():
    # The second derivative of conv2d(x³, w) is not zero, so every rule's rule runs.
    check_grads(lambda x, w: tf.nn.conv2d(x * x * x, w * w, 2, "SAME"),
                [normal((1, 3, 4, 1), 1), normal((2, 2, 1, 2), 2)], order=3, jacobian=False)


@pytest.mark.parametrize("op", ["input", "filter"])
@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", GRADIENT_CASES,
                         ids=GRADIENT_IDS)
def test_backprop_op_gradients(x_shape, w_shape, strides, padding, dilations, op):
    y = tf.nn.conv2d(normal(x_shape), normal(w_shape), strides, padding, dilations=dilations)
    geometry = {"strides": strides, "padding": padding, "dilations": dilations}
    if op == "input":
        check_grads(lambda w, g: conv.conv2d_backprop_input(x_shape, w, g, **geometry),
                    [normal(w_shape, 2), normal(y.shape, 3)], order=2)
    else:
        check_grads(lambda x, g: conv.conv2d_backprop_filter(x, w_shape, g, **geometry),
                    [normal(x_shape, 1), normal(y.shape, 3)], order=2)


GEOMETRY = {"strides": (1, 2, 1, 1), "padding": "SAME", "explicit_paddings": (),
            "dilations": (1, 1, 1, 1), "data_format": "NHWC"}


@pytest.mark.parametrize("which", ["input", "filter", "both"])
def test_operands_with_leading_batch_axes_broadcast(which):
    """At second order an operand may carry a batch of cotangents before N (or KH)."""
    F = backend_gradviz.gradviz
    x = normal((3, 1, 4, 3, 2) if which != "filter" else (1, 4, 3, 2), 1)
    w = normal((3, 2, 2, 2, 2) if which != "input" else (2, 2, 2, 2), 2)
    y = F.conv2d(tf.constant(x), tf.constant(w), **GEOMETRY).numpy()
    for k in range(3):
        xk = x[k] if x.ndim == 5 else x
        wk = w[k] if w.ndim == 5 else w
        np.testing.assert_allclose(y[k], naive_conv2d(xk, wk, (2, 1), ((0, 1), (0, 1)), (1, 1)),
                                   rtol=1e-12, atol=1e-12)
    check_grads(lambda x, w: F.conv2d(x, w, **GEOMETRY), [x, w], order=2)
    g = normal(y.shape, 3)
    check_grads(lambda g, w: F.conv2d_backprop_input(g, w, (1, 4, 3, 2), **GEOMETRY),
                [g, w], order=2)
    check_grads(lambda x, g: F.conv2d_backprop_filter(x, g, (2, 2, 2, 2), **GEOMETRY),
                [x, g], order=2)


def test_jacobian_and_batch_jacobian_through_conv2d():
    x = tf.constant(normal((3, 4, 4, 2), 1))
    w = tf.constant(normal((3, 3, 2, 2), 2))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = tf.nn.relu(tf.nn.conv2d(x, w, 2, "SAME"))
    jx = tape.jacobian(y, x).numpy()
    bj = tape.batch_jacobian(y, x).numpy()
    jw = tape.jacobian(y, w).numpy()
    for b in range(3):
        np.testing.assert_allclose(bj[b], jx[b, :, :, :, b], rtol=1e-12, atol=1e-12)
        others = [c for c in range(3) if c != b]
        assert not jx[b, :, :, :, others].any()  # examples do not mix
    _, per_example = _loop_jacobian(lambda: tf.nn.relu(tf.nn.conv2d(x, w, 2, "SAME")), w)
    np.testing.assert_allclose(jw, per_example, rtol=1e-12, atol=1e-12)


def _loop_jacobian(f, source):
    """The jacobian one output element at a time (the slow, obvious way)."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(source)
        y = f()
    rows = []
    for i in np.ndindex(*y.shape):
        seed = np.zeros(y.shape)
        seed[i] = 1
        rows.append(tape.gradient(y, source, output_gradients=tf.constant(seed)).numpy())
    return y, np.stack(rows).reshape(tuple(y.shape) + tuple(source.shape))


def test_hessian_through_conv2d_wrt_the_filter():
    x = tf.constant(normal((2, 4, 4, 2), 1))
    w = tf.Variable(normal((2, 2, 2, 1), 2))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            loss = tf.reduce_sum(tf.square(tf.nn.conv2d(x, w, 1, "VALID")))
        g = inner.gradient(loss, w)
    h = outer.jacobian(g, w).numpy().reshape(8, 8)
    # loss = Σ (P w)² with P the im2col matrix, so the Hessian is 2 PᵀP.
    cols = np.stack([x.numpy()[:, i:i + 2, j:j + 2, :].reshape(2, -1)
                     for i in range(3) for j in range(3)], 1).reshape(-1, 8)
    np.testing.assert_allclose(h, 2 * cols.T @ cols, rtol=1e-10)


# -- float32: gradients in float32, checked by differences that are exact for a bilinear op

def _bilinear_difference_check(f, args, seed=0):
    """For f bilinear in its arguments, the central difference with a step of 1 is exact,
    so <v, J u> by differences equals <Jᵀv, u> by the tape up to float32 rounding."""
    rng = np.random.default_rng(seed)
    args = [tf.constant(a.astype(np.float32)) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(args)
        y = f(*args)
    v = rng.standard_normal(y.shape).astype(np.float32)
    grads = tape.gradient(y, args, output_gradients=tf.constant(v))
    assert all(g.dtype == tf.float32 for g in grads)
    us = [rng.standard_normal(a.shape).astype(np.float32) for a in args]
    reverse = sum(float(np.sum(g.numpy() * u)) for g, u in zip(grads, us))
    plus = f(*[tf.constant(a.numpy() + u) for a, u in zip(args, us)]).numpy()
    minus = f(*[tf.constant(a.numpy() - u) for a, u in zip(args, us)]).numpy()
    forward = float(np.sum(v * (plus - minus) / 2))
    assert reverse == pytest.approx(forward, rel=1e-4, abs=1e-3)


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", GRADIENT_CASES,
                         ids=GRADIENT_IDS)
def test_float32_first_and_second_order(x_shape, w_shape, strides, padding, dilations):
    def f(x, w):
        return tf.nn.conv2d(x, w, strides, padding, dilations=dilations)
    x, w = normal(x_shape, 1), normal(w_shape, 2)
    _bilinear_difference_check(f, [x, w])
    v = tf.constant(normal(f(x, w).shape, 3).astype(np.float32))

    def pullback_input(w, v):  # Jᵀv for the input: bilinear in (w, v)
        with tf.GradientTape() as tape:
            xt = tf.constant(np.zeros(x_shape, np.float32))
            tape.watch(xt)
            y = f(xt, w)
        return tape.gradient(y, xt, output_gradients=v)

    def pullback_filter(x, v):
        with tf.GradientTape() as tape:
            wt = tf.constant(np.zeros(w_shape, np.float32))
            tape.watch(wt)
            y = f(x, wt)
        return tape.gradient(y, wt, output_gradients=v)

    _bilinear_difference_check(pullback_input, [w, v.numpy()], 1)
    _bilinear_difference_check(pullback_filter, [x, v.numpy()], 2)


# -- conv1d --------------------------------------------------------------------------------

@pytest.mark.parametrize("stride, padding, dilations", [(1, "SAME", 1), (2, "VALID", 1),
                                                        ([2], "SAME", None), (1, "VALID", 2)])
def test_conv1d_is_conv2d_over_a_height_of_one(stride, padding, dilations):
    x, w = normal((2, 9, 3), 1), normal((3, 3, 2), 2)
    s = stride[0] if isinstance(stride, list) else stride
    d = dilations or 1
    pads = same_pads(9, 3, s, d) if padding == "SAME" else (0, 0)
    expected = naive_conv2d(x[:, None], w[None], (1, s), ((0, 0), pads), (1, d))[:, 0]
    y = tf.nn.conv1d(x, w, stride, padding, dilations=dilations)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)
    check_grads(lambda x, w: tf.nn.conv1d(x, w, stride, padding, dilations=dilations),
                [x[:1, :6, :2], w[:, :2, :1]], order=2)


def test_conv1d_records_conv2d_as_tf_builds_it():
    x, w = tf.constant(normal((1, 5, 2))), tf.constant(normal((2, 2, 1)))
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.conv1d(x, w, 1, "SAME")
    assert y.op.type == "Squeeze"
    assert [op.type for op in tape._entries] == ["ExpandDims", "ExpandDims", "Conv2D", "Squeeze"]


def test_conv2d_transpose_is_the_input_gradient():
    x, w = tf.constant(normal((2, 5, 5, 3))), tf.constant(normal((3, 3, 3, 4)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.conv2d(x, w, 2, "SAME")
    g = tf.constant(normal(y.shape, 4))
    np.testing.assert_allclose(tf.nn.conv2d_transpose(g, w, (2, 5, 5, 3), 2, "SAME").numpy(),
                               tape.gradient(y, x, output_gradients=g).numpy(), rtol=1e-12)


# -- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 3)), np.ones((2, 2, 2, 1)), 1, "SAME"),
     "input depth must equal filter depth: 3 vs 2"),
    (lambda: tf.nn.conv2d(np.ones((1, 2, 4, 1)), np.ones((3, 2, 1, 1)), 1, "VALID"),
     "larger than the padded input (2) along the height"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 3, 1, 1)), 1, "VALID",
                          dilations=2),
     "window (5 wide with dilation) is larger than the padded input (4) along the width"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), 1, "same"),
     "Value for attr 'padding' of 'same' is not in the list of allowed values"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), 1, "EXPLICIT"),
     "To use explicit padding, padding must be a list"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), 1, [[1, 1], [0, 0]]),
     "it must be of size 4"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), 1,
                          [[1, 0], [0, 0], [0, 0], [0, 0]]),
     "Nonzero explicit padding in the batch or depth dimensions"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), [1, 2, 3], "SAME"),
     "strides should be of length 1, 2 or 4 but was 3"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), [2, 1, 1, 1], "SAME"),
     "strides must be 1 in the batch and depth dimensions"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), 0, "SAME"),
     "strides must be positive"),
    (lambda: tf.nn.conv2d(np.ones((4, 4, 1)), np.ones((2, 2, 1, 1)), 1, "SAME"),
     "input must be of rank 4 [batch, height, width, channels], got shape (4, 4, 1)"),
    (lambda: tf.nn.conv2d(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), 1, "SAME",
                          data_format="NCHW"),
     "data_format must be 'NHWC'"),
    (lambda: tf.nn.conv1d(np.ones((1, 4, 2)), np.ones((2, 1, 1)), 1, "SAME"),
     "input depth must equal filter depth: 2 vs 1"),
])
def test_bad_input_gets_a_clear_message(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
