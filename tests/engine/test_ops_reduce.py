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
    x = sample((2, 3))
    for i in zeros:
        x[i] = 0.0
    check_grads(lambda x: tf.reduce_prod(x, axis=axis), [x], order=2)


def test_prod_with_zero_entries_third_order():
    # Probes at x[1] = ±eps divide by eps; a wider step keeps the rounding error small.
    x = sample((4,))
    x[1] = 0.0
    check_grads(lambda x: tf.reduce_prod(x), [x], order=3, eps=1e-3, rtol=1e-4, atol=1e-6)


def test_prod_gradient_with_one_zero_is_the_product_of_the_others():
    x = tf.constant([2.0, 0.0, 3.0, 5.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 30.0, 0.0, 0.0])


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
