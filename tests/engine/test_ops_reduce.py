"""Reductions, norm and clip_by_norm: VJPs of every axis form against finite differences."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads


def sample(shape=(2, 3, 2), seed=0):
    """Values away from zero (prod divides by them) with distinct magnitudes (no max ties)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    magnitudes = 0.5 + rng.permutation(n) / n
    return (rng.choice([-1.0, 1.0], n) * magnitudes).reshape(shape)


REDUCERS = {"sum": tf.reduce_sum, "mean": tf.reduce_mean, "max": tf.reduce_max,
            "min": tf.reduce_min, "prod": tf.reduce_prod}
AXES = [None, 0, 1, -1, [0, 2], (-1, -3), [0, 1, 2]]
AXIS_IDS = ["all", "0", "1", "-1", "list-0-2", "tuple-neg", "every-axis"]


@pytest.mark.parametrize("keepdims", [False, True], ids=["dropdims", "keepdims"])
@pytest.mark.parametrize("axis", AXES, ids=AXIS_IDS)
@pytest.mark.parametrize("name", list(REDUCERS))
def test_reduce(name, axis, keepdims):
    reduce = REDUCERS[name]
    check_grads(lambda x: reduce(x, axis=axis, keepdims=keepdims), [sample()], order=2)


@pytest.mark.parametrize("name", list(REDUCERS))
def test_reduce_inside_a_smooth_function(name):
    reduce = REDUCERS[name]
    check_grads(lambda x: reduce(tf.sin(x) * x, axis=1) ** 2, [sample((3, 4))], order=2)


@pytest.mark.parametrize("zeros", [[(0, 1)], [(0, 1), (1, 2)], [(0, 1), (0, 2)]],
                         ids=["one-zero", "zeros-in-two-rows", "two-zeros-in-one-row"])
@pytest.mark.parametrize("axis", [None, 1, 0], ids=["all", "rows", "columns"])
def test_prod_with_zero_entries(zeros, axis):
    """First order only: TF's second derivative at a zero is NaN (see
    test_prod_hessian_at_a_zero_is_tfs), and finite differences cannot check that."""
    x = sample((2, 3))
    for i in zeros:
        x[i] = 0.0
    check_grads(lambda x: tf.reduce_prod(x, axis=axis), [x], order=1)


def test_prod_gradient_with_one_zero_is_the_product_of_the_others():
    x = tf.constant([2.0, 0.0, 3.0, 5.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 30.0, 0.0, 0.0])


def _prod_grad(x, axis=None):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x, axis=axis)
    return tape.gradient(y, x).numpy()


def test_prod_gradient_with_an_infinity_is_tfs():
    """TF's _ProdGrad (math_grad.py) multiplies the exclusive cumulative products from
    the left and from the right, [1, inf] · [2, 1] = [2, inf]; dividing the product by
    each entry gave inf / inf = NaN for the infinity."""
    np.testing.assert_array_equal(_prod_grad([np.inf, 2.0]), [2.0, np.inf])
    np.testing.assert_array_equal(_prod_grad([0.0, np.inf, 3.0]), [np.inf, 0.0, np.nan])


def test_prod_gradient_flattens_the_axes_in_the_order_named():
    """TF's _ProdGrad moves the reduced axes to the front in the order the call names
    them (perm = concat([reduced, other])) and multiplies along that flat order, so
    axis=[1, 0] and axis=[0, 1] can differ where a partial product overflows: for x[1, 1]
    the order x00, x01, x10 passes 1e300 · 1e300 = inf, the order x00, x10, x01 does not."""
    x = np.array([[1e300, 1e300], [1e-300, 2.0]])
    for axis, order in (([0, 1], [0, 1, 2, 3]), ([1, 0], [0, 2, 1, 3])):
        flat = x.reshape(-1)[order]
        left = np.concatenate([[1.0], np.cumprod(flat[:-1])])
        right = np.concatenate([np.cumprod(flat[::-1][:-1])[::-1], [1.0]])
        expected = np.empty(4)
        expected[order] = left * right
        np.testing.assert_array_equal(_prod_grad(x, axis), expected.reshape(2, 2))
    assert _prod_grad(x, [0, 1])[1, 1] == np.inf and _prod_grad(x, [1, 0])[1, 1] < np.inf


def test_prod_gradient_keeps_the_dtype():
    for dtype in (np.float16, np.float32, np.float64):
        g = _prod_grad(np.array([[1.5, -2.0], [0.0, 4.0]], dtype), axis=1)
        assert g.dtype == dtype
        np.testing.assert_array_equal(g, np.array([[-2.0, 1.5], [4.0, 0.0]], dtype))


def test_prod_gradient_over_no_axis_and_an_empty_axis():
    np.testing.assert_array_equal(_prod_grad([[2.0, 3.0]], axis=[]), [[1.0, 1.0]])
    assert _prod_grad(np.zeros((0, 2)), axis=0).shape == (0, 2)


def test_prod_hessian_at_a_zero_is_tfs():
    """TF's _ProdGrad builds the gradient from two Cumprod ops, so the second derivative
    runs through _CumprodGrad, which divides by x (its TODO: "This fails when x contains
    0"). For x = [2, 0, 3] and a cotangent e_i, the two Cumprods give 0 / 0 = NaN in
    column 1 and 3 = 6 / 2, 2 = 6 / 3 in row 1: TF's Hessian, not the true [[0, 3, 0],
    [3, 0, 2], [0, 2, 0]]."""
    x = tf.constant([2.0, 0.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_prod(x)
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(outer.jacobian(g, x).numpy(),
                                  [[0, np.nan, 0], [3, np.nan, 2], [0, np.nan, 0]])


CUMULATIVE = {"cumsum": (tf.math.cumsum, np.cumsum), "cumprod": (tf.math.cumprod, np.cumprod)}


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("axis", [0, 1, -1], ids=["0", "1", "-1"])
@pytest.mark.parametrize("name", list(CUMULATIVE))
def test_cumulative(name, axis, exclusive, reverse):
    fn, _ = CUMULATIVE[name]
    check_grads(lambda x: fn(x, axis=axis, exclusive=exclusive, reverse=reverse),
                [sample((3, 4))], order=2)


@pytest.mark.parametrize("name", list(CUMULATIVE))
def test_cumulative_values(name):
    fn, np_fn = CUMULATIVE[name]
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    one = 1.0 if name == "cumprod" else 0.0
    np.testing.assert_array_equal(fn(x, axis=1).numpy(), np_fn(x, axis=1))
    np.testing.assert_array_equal(fn(x, axis=1, exclusive=True).numpy(),
                                  np.c_[[one, one], np_fn(x[:, :-1], axis=1)])
    np.testing.assert_array_equal(fn(x, axis=1, reverse=True).numpy(),
                                  np_fn(x[:, ::-1], axis=1)[:, ::-1])
    assert fn(tf.constant([1, 2, 3], dtype=tf.int32)).dtype == tf.int32


def test_cumprod_gradient_at_a_zero_is_tfs():
    """TF's _CumprodGrad divides cumsum(cumprod(x) · grad, reverse) by x, so a zero
    gives 0 / 0 = NaN where the true derivative of [a, a·b, a·b·c] at a = 0 is b + b·c."""
    x = tf.constant([0.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.cumprod(x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [np.nan, 0.0, 0.0])


def test_max_splits_the_gradient_among_ties():
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_max(x, axis=1)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0, 0.5, 0.5], [1, 0, 0]])


@pytest.mark.parametrize("keepdims", [False, True], ids=["dropdims", "keepdims"])
@pytest.mark.parametrize("axis", [None, 0, -1, [0, 1], [1, 2]], ids=["all", "0", "-1", "0-1", "1-2"])
def test_norm(axis, keepdims):
    check_grads(lambda x: tf.norm(x, axis=axis, keepdims=keepdims), [sample()], order=2)


def test_norm_value():
    np.testing.assert_allclose(tf.norm(tf.constant([[3.0, 4.0]]), axis=1).numpy(), [5.0])


@pytest.mark.parametrize("clip", [0.5, 50.0], ids=["clipped", "unclipped"])
@pytest.mark.parametrize("axes", [None, [1]], ids=["all", "rows"])
def test_clip_by_norm(clip, axes):
    check_grads(lambda x: tf.clip_by_norm(x, clip, axes=axes), [sample((2, 3))], order=2)


def test_clip_by_norm_of_zero_has_a_finite_gradient():
    x = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    check_grads(lambda x: tf.clip_by_norm(x, 1.0, axes=[1]), [x], order=2)
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = tf.clip_by_norm(t, 1.0, axes=[1])
    np.testing.assert_allclose(y.numpy(), [[0, 0, 0], [0.6, 0.8, 0]])
    np.testing.assert_allclose(tape.gradient(y, t).numpy()[0], [1, 1, 1])


def test_clip_by_norm_with_the_bound_as_an_argument():
    check_grads(lambda x, c: tf.clip_by_norm(x, c), [sample((2, 3)), np.array(0.7)], order=2)


def test_reduce_logsumexp():
    check_grads(lambda x: tf.reduce_logsumexp(x, axis=1), [sample((2, 3))], order=2)
    check_grads(lambda x: tf.reduce_logsumexp(x, keepdims=True), [sample((2, 3))], order=2)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
def test_integer_reductions_keep_the_dtype(name):
    x = tf.constant([[1, 2], [3, 4]])
    assert REDUCERS[name](x).dtype == tf.int32
    assert REDUCERS[name](x, axis=0).dtype == tf.int32


def test_reduce_logsumexp_values():
    x = np.array([[-np.inf, -np.inf], [1000.0, 1000.0], [0.0, np.log(3.0)]])
    y = tf.reduce_logsumexp(tf.constant(x), axis=1).numpy()
    np.testing.assert_allclose(y, [-np.inf, 1000 + np.log(2), np.log(4)])
    assert tf.reduce_logsumexp(tf.constant([np.inf, 0.0])).numpy() == np.inf


def test_the_mean_of_nothing_is_nan_and_says_nothing():
    """As TF: no 'Mean of empty slice' warning from numpy, which np.errstate cannot
    silence (the app silences numpy's floating-point warnings with np.errstate, per
    thread, and reports the NaN on its node; a warnings filter is not thread-safe)."""
    import warnings

    from gradviz.engine.ops.nn import batch_normalization_training, layer_normalization

    empty = tf.zeros((0, 3))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error")
        means = [tf.reduce_mean(empty), tf.reduce_mean(empty, axis=0),
                 tf.reduce_mean(tf.zeros((0,), tf.float16)),
                 tf.nn.moments(empty, axes=[0])[1]]
        x = tf.Variable(np.zeros((0, 3), np.float32))
        with tf.GradientTape() as tape:
            y = tf.reduce_mean(x) + tf.reduce_sum(batch_normalization_training(
                x, tf.ones(3), tf.zeros(3), 1e-3)) + tf.reduce_sum(layer_normalization(
                    tf.zeros((2, 0)), tf.ones(0), tf.zeros(0), -1, 1e-3))
        g = tape.gradient(y, x)
    assert np.isnan(means[0].numpy()) and means[0].dtype == tf.float32
    assert np.isnan(means[1].numpy()).all() and means[1].shape == (3,)
    assert np.isnan(means[2].numpy()) and means[2].dtype == tf.float16
    assert np.isnan(means[3].numpy()).all()
    assert np.isnan(y.numpy()) and g.shape == (0, 3)
