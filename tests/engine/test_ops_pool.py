"""tf.nn.max_pool2d / avg_pool2d and their gradient ops (MaxPoolGrad, MaxPoolGradGrad,
AvgPoolGrad): forward values against a naive loop for every padding and stride, TF's
argument forms, averages over real elements only, ties, gradients against finite
differences to second (and third) order, float32, batched cotangents, clear errors."""
import itertools

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import backend_gradviz
from gradviz.engine.check import check_grads
from gradviz.engine.ops import pool


def distinct(shape, seed=0):
    """Values at least 1 apart, shuffled: no ties, and a step of 0.01 never reorders them."""
    rng = np.random.default_rng(seed)
    return rng.permutation(np.prod(shape)).reshape(shape).astype(np.float64) - np.prod(shape) / 2


def same_pads(size, k, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return total // 2, total - total // 2


def naive_pool(x, ksize, strides, pads, reduce):
    """Each output element from its window's real elements, by a loop."""
    n, h, w, c = x.shape
    (pt, pb), (pl, pr) = pads
    out_h = (h + pt + pb - ksize[0]) // strides[0] + 1
    out_w = (w + pl + pr - ksize[1]) // strides[1] + 1
    y = np.zeros((n, out_h, out_w, c))
    for b, i, j, ch in itertools.product(range(n), range(out_h), range(out_w), range(c)):
        rows = [r for r in range(i * strides[0] - pt, i * strides[0] - pt + ksize[0]) if 0 <= r < h]
        cols = [s for s in range(j * strides[1] - pl, j * strides[1] - pl + ksize[1]) if 0 <= s < w]
        y[b, i, j, ch] = reduce([x[b, r, s, ch] for r in rows for s in cols])
    return y


CASES = [  # (input shape, ksize, strides)
    ((2, 4, 4, 2), (2, 2), (2, 2)),
    ((1, 5, 5, 1), (2, 2), (2, 2)),
    ((1, 7, 6, 2), (3, 3), (2, 2)),
    ((2, 5, 7, 1), (3, 2), (1, 2)),
    ((1, 6, 5, 3), (3, 3), (1, 1)),
    ((1, 4, 4, 1), (4, 4), (1, 1)),
]
PADDINGS = ["SAME", "VALID", [[0, 0], [1, 0], [1, 1], [0, 0]]]


def _pads(padding, shape, ksize, strides):
    if padding == "SAME":
        return tuple(same_pads(shape[1 + a], ksize[a], strides[a]) for a in (0, 1))
    if padding == "VALID":
        return ((0, 0), (0, 0))
    return tuple(padding[1]), tuple(padding[2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", PADDINGS, ids=["same", "valid", "explicit"])
@pytest.mark.parametrize("shape, ksize, strides", CASES)
def test_max_pool_matches_a_naive_loop(shape, ksize, strides, padding, dtype):
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    y = tf.nn.max_pool2d(x, ksize, strides, padding)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.numpy(), naive_pool(x, ksize, strides,
                                                        _pads(padding, shape, ksize, strides), max))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", PADDINGS[:2], ids=["same", "valid"])
@pytest.mark.parametrize("shape, ksize, strides", CASES)
def test_avg_pool_matches_a_naive_loop(shape, ksize, strides, padding, dtype):
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    y = tf.nn.avg_pool2d(x, ksize, strides, padding)
    assert y.dtype == dtype
    expected = naive_pool(x.astype(np.float64), ksize, strides,
                          _pads(padding, shape, ksize, strides), np.mean)
    tolerance = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(y.numpy(), expected, rtol=tolerance, atol=tolerance)


def test_avg_pool_under_same_counts_real_elements_only():
    # A 3x3 window at stride 1 over a 3x3 input of ones: every average is 1 (TF's answer),
    # not 4/9 at a corner as it would be if the padding's zeros were counted.
    y = tf.nn.avg_pool2d(np.ones((1, 3, 3, 1), np.float32), 3, 1, "SAME")
    np.testing.assert_array_equal(y.numpy(), np.ones((1, 3, 3, 1)))
    x = np.arange(1, 10, dtype=np.float64).reshape(1, 3, 3, 1)
    y = tf.nn.avg_pool2d(x, 2, 2, "SAME").numpy().ravel()
    np.testing.assert_allclose(y, [(1 + 2 + 4 + 5) / 4, (3 + 6) / 2, (7 + 8) / 2, 9])


def test_max_pool_padding_never_wins():
    y = tf.nn.max_pool2d(-np.ones((1, 3, 3, 1)), 2, 2, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [-1, -1, -1, -1])


@pytest.mark.parametrize("form", [2, [2], [2, 2], [1, 2, 2, 1]])
def test_ksize_and_strides_take_tf_forms(form):
    x = distinct((1, 6, 6, 2))
    expected = naive_pool(x, (2, 2), (2, 2), ((0, 0), (0, 0)), max)
    np.testing.assert_array_equal(tf.nn.max_pool2d(x, form, form, "VALID").numpy(), expected)


def test_ties_go_to_the_first_maximum_as_in_tf():
    x = tf.constant(np.ones((1, 2, 2, 1)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [1, 0, 0, 0])


def test_op_types_and_registry_names_are_tfs():
    x = tf.constant(distinct((1, 4, 4, 1)))
    seed = tf.constant(np.ones((1, 2, 2, 1)))  # AvgPoolGrad reads only its upstream
    with tf.GradientTape(persistent=True) as outer:
        outer.watch([x, seed])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            m = tf.nn.max_pool2d(x, 2, 2, "SAME")
            a = tf.nn.avg_pool2d(x, 2, 2, "SAME")
        gm = tape.gradient(m, x)
        ga = tape.gradient(a, x, output_gradients=seed)
    assert (m.op.type, a.op.type, gm.op.type, ga.op.type) == (
        "MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad")
    assert m.op.get_attr("ksize") == (1, 2, 2, 1) and m.op.get_attr("padding") == "SAME"
    for name in ("MaxPool", "MaxPoolGrad", "MaxPoolGradGrad", "AvgPool", "AvgPoolGrad"):
        assert callable(tf.gradient_registry.lookup(name))
    (gx,) = tf.gradient_registry.lookup("MaxPool")(m.op, tf.ones_like(m))
    np.testing.assert_array_equal(gx.numpy(), gm.numpy())


# -- gradients -----------------------------------------------------------------------------

GRADIENT_CASES = [((1, 4, 4, 2), 2, 2, "VALID"), ((1, 5, 5, 1), 2, 2, "SAME"),
                  ((2, 5, 4, 1), 3, [1, 2], "SAME"), ((1, 5, 5, 1), 3, 2,
                                                      [[0, 0], [1, 2], [2, 0], [0, 0]])]
GRADIENT_IDS = ["valid", "same-odd", "same-overlapping", "explicit"]


@pytest.mark.parametrize("shape, ksize, strides, padding", GRADIENT_CASES, ids=GRADIENT_IDS)
def test_max_pool_gradients(shape, ksize, strides, padding):
    check_grads(lambda x: tf.nn.max_pool2d(x, ksize, strides, padding), [distinct(shape)],
                order=2)


@pytest.mark.parametrize("shape, ksize, strides, padding", GRADIENT_CASES[:3],
                         ids=GRADIENT_IDS[:3])
def test_avg_pool_gradients(shape, ksize, strides, padding):
    check_grads(lambda x: tf.nn.avg_pool2d(x, ksize, strides, padding), [distinct(shape)],
                order=2)


def test_pools_after_a_nonlinearity_third_order():
    # (x³ pooled)² has non-zero higher derivatives, so every gradient op's rule runs.
    def f(x):
        return tf.square(tf.nn.max_pool2d(x * x * x, 2, 1, "SAME")
                         + tf.nn.avg_pool2d(x * x, 3, 1, "SAME"))
    check_grads(f, [distinct((1, 3, 3, 1)) / 4], order=3, jacobian=False)


@pytest.mark.parametrize("shape, ksize, strides, padding", GRADIENT_CASES, ids=GRADIENT_IDS)
def test_max_pool_grad_ops_gradients(shape, ksize, strides, padding):
    x = distinct(shape)
    y = tf.nn.max_pool2d(x, ksize, strides, padding).numpy()
    rng = np.random.default_rng(3)
    check_grads(lambda x, y, g: pool.max_pool_grad(x, y, g, ksize, strides, padding),
                [x, y, rng.standard_normal(y.shape)], order=2)
    check_grads(lambda x, y, u: pool.max_pool_grad_grad(x, y, u, ksize, strides, padding),
                [x, y, rng.standard_normal(shape)], order=2)


@pytest.mark.parametrize("shape, ksize, strides, padding", GRADIENT_CASES[:3],
                         ids=GRADIENT_IDS[:3])
def test_avg_pool_grad_op_gradients(shape, ksize, strides, padding):
    y = tf.nn.avg_pool2d(np.zeros(shape), ksize, strides, padding)
    check_grads(lambda g: pool.avg_pool_grad(shape, g, ksize, strides, padding),
                [np.random.default_rng(3).standard_normal(y.shape)], order=2)


GEOMETRY = {"ksize": (1, 2, 3, 1), "strides": (1, 2, 1, 1), "padding": "SAME",
            "data_format": "NHWC"}


def test_leading_batch_axes_broadcast():
    F = backend_gradviz.gradviz
    x = distinct((1, 4, 3, 2))
    y = tf.nn.max_pool2d(x, (2, 3), (2, 1), "SAME").numpy()
    g = np.random.default_rng(3).standard_normal((3,) + y.shape)
    u = np.random.default_rng(4).standard_normal((3,) + x.shape)
    geometry = dict(GEOMETRY, explicit_paddings=())
    dx = F.max_pool_grad(tf.constant(x), tf.constant(y), tf.constant(g), **geometry).numpy()
    for k in range(3):
        np.testing.assert_array_equal(
            dx[k], pool.max_pool_grad(x, y, g[k], (2, 3), (2, 1), "SAME").numpy())
    check_grads(lambda x, y, g: F.max_pool_grad(x, y, g, **geometry), [x, y, g], order=2)
    check_grads(lambda x, y, u: F.max_pool_grad_grad(x, y, u, **geometry), [x, y, u], order=2)
    check_grads(lambda u: F.avg_pool(u, **GEOMETRY), [u], order=2)
    check_grads(lambda g: F.avg_pool_grad(g, x.shape, **GEOMETRY), [g], order=2)


def test_jacobian_and_batch_jacobian_through_pools():
    x = tf.constant(distinct((3, 4, 4, 2)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "SAME") * tf.nn.avg_pool2d(x, 3, 2, "SAME")
    j = tape.jacobian(y, x).numpy()
    bj = tape.batch_jacobian(y, x).numpy()
    for b in range(3):
        np.testing.assert_allclose(bj[b], j[b, :, :, :, b], rtol=1e-12)


def test_float32_first_and_second_order_by_differences():
    """Pools are linear where no maximum changes: steps of 0.01 on values 1 apart keep
    every maximum, so differences are exact there up to float32 rounding."""
    rng = np.random.default_rng(0)
    x = tf.constant(distinct((2, 5, 5, 2)).astype(np.float32))

    def f(x):
        return tf.nn.max_pool2d(x, 3, 2, "SAME") + tf.nn.avg_pool2d(x, 3, 2, "SAME")
    v = tf.constant(rng.standard_normal(f(x).shape).astype(np.float32))
    u = rng.standard_normal(x.shape).astype(np.float32)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x, output_gradients=v)
        gu = tf.reduce_sum(g * tf.constant(u))
    assert g.dtype == tf.float32
    difference = np.sum(v.numpy() * (f(x + 0.01 * u).numpy() - f(x - 0.01 * u).numpy()) / 0.02)
    assert float(np.sum(g.numpy() * u)) == pytest.approx(float(difference), rel=1e-3)
    h = outer.gradient(gu, x)  # the second derivative of a piecewise-linear map: zero
    assert h.dtype == tf.float32 and not h.numpy().any()


# -- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: tf.nn.max_pool2d(np.ones((1, 4, 4, 1)), 2, 2, "full"),
     "Value for attr 'padding' of 'full' is not in the list of allowed values"),
    (lambda: tf.nn.avg_pool2d(np.ones((1, 4, 4, 1)), 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]),
     "avg_pool2d's padding must be 'SAME' or 'VALID'"),
    (lambda: tf.nn.max_pool2d(np.ones((1, 2, 4, 1)), 3, 1, "VALID"),
     "larger than the padded input (2) along the height"),
    (lambda: tf.nn.max_pool2d(np.ones((1, 4, 4, 1)), [1, 2, 3], 1, "VALID"),
     "ksize should be of length 1, 2 or 4 but was 3"),
    (lambda: tf.nn.max_pool2d(np.ones((1, 4, 4, 1)), 2, 1, [[0, 0], [2, 0], [0, 0], [0, 0]]),
     "must be smaller than the window (2)"),
    (lambda: tf.nn.avg_pool2d(np.ones((4, 4, 1)), 2, 1, "VALID"),
     "input must be of rank 4"),
])
def test_bad_input_gets_a_clear_message(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
