"""jacobian and batch_jacobian at their edges, in TF's words (backprop.py)."""
import numpy as np
import pytest

import gradviz as tf


def _tape_with(x, f, persistent=False):
    with tf.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = f(x)
    return t, y


def test_batch_jacobian_of_examples_with_zero_elements():
    x = tf.zeros([1, 0])
    t, y = _tape_with(x, lambda x: x * 2.0)
    j = t.batch_jacobian(y, x)
    assert j.shape == (1, 0, 0) and j.dtype == tf.float32


def test_batch_jacobian_of_an_empty_batch():
    """TF divides by the batch size here and fails; zeros of the right shape say more."""
    x = tf.zeros([0, 3])
    t, y = _tape_with(x, lambda x: x * 2.0)
    assert t.batch_jacobian(y, x).shape == (0, 3, 3)


@pytest.mark.parametrize("which", ["target", "source"])
def test_batch_jacobian_needs_rank_at_least_2(which):
    x = tf.ones([3, 4]) if which == "target" else tf.ones([3])
    f = (lambda x: tf.reduce_sum(x, axis=1)) if which == "target" else (lambda x: x[:, None] * x)
    t, y = _tape_with(x, f)
    shape = "(3,)"
    with pytest.raises(ValueError, match=rf"Shape {shape.replace('(', '[(]').replace(')', '[)]')}"
                                         " must have rank at least 2"):
        t.batch_jacobian(y, x)
    # the argument error does not use up the non-persistent tape
    assert t.jacobian(y, x).shape == tuple(y.shape) + tuple(x.shape)


def test_batch_jacobian_needs_matching_first_dimensions():
    x = tf.ones([3, 4])
    t, y = _tape_with(x, tf.transpose)
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(4, 3\)\) "
                                         r"and source shape \(\(3, 4\)\) to match\."):
        t.batch_jacobian(y, x)


@pytest.mark.parametrize("method", ["jacobian", "batch_jacobian"])
def test_loop_jacobian_needs_a_persistent_tape(method):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    t, y = _tape_with(x, lambda x: x * x)
    with pytest.raises(RuntimeError, match=f"persistent=True to compute the {method} "
                                           ".*experimental_use_pfor set to False"):
        getattr(t, method)(y, x, experimental_use_pfor=False)
    t, y = _tape_with(x, lambda x: x * x, persistent=True)
    loop = getattr(t, method)(y, x, experimental_use_pfor=False, parallel_iterations=2)
    vectorized = getattr(t, method)(y, x, parallel_iterations=3)
    np.testing.assert_array_equal(loop.numpy(), vectorized.numpy())
    assert loop.numpy()[1].ravel()[-1] == 8.0


def test_batch_jacobian_without_a_path_is_zeros_even_under_none():
    """TF returns zeros here on purpose ("to maintain compatibility with the previous
    behavior, which ignored unconnected_gradients"), in the target's dtype."""
    x = tf.constant([[1.0, 2.0]])
    other = tf.constant([[1.0, 2.0, 3.0]], tf.float64)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, other])
        y = tf.cast(other * 2.0, tf.float32)
    for mode in ('none', 'zero'):
        j = t.batch_jacobian(y, x, unconnected_gradients=mode)
        assert j.shape == (1, 3, 2) and j.dtype == tf.float32 and not j.numpy().any()
    assert t.jacobian(y, x) is None


@pytest.mark.parametrize("method", ["gradient", "jacobian", "batch_jacobian"])
def test_unknown_unconnected_gradients_value(method):
    x = tf.constant([[1.0, 2.0]])
    t, y = _tape_with(x, lambda x: x * x)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'ones'"):
        getattr(t, method)(y, x, unconnected_gradients='ones')
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [[2.0, 4.0]])  # tape not used up


@pytest.mark.parametrize("method", ["jacobian", "batch_jacobian"])
def test_parallel_iterations_follows_tf_pfor(method):
    """TF's pfor runs the loop body twice when 2 <= parallel_iterations <= iterations, so
    a non-persistent tape refuses; fewer iterations than parallel_iterations is fine."""
    x = tf.constant([[3.0]])

    def tape(persistent):
        return _tape_with(x, lambda x: tf.tile(x * x, [1, 16]), persistent)

    t, y = tape(False)
    with pytest.raises(RuntimeError, match="persistent"):
        getattr(t, method)(y, x, parallel_iterations=8)
    t, y = tape(False)
    assert getattr(t, method)(y, x, parallel_iterations=32).numpy().ravel()[0] == 6.0
    for bad, words in ((1, "parallel_iterations == 1"), (0, "positive integer")):
        t, y = tape(True)
        with pytest.raises(ValueError, match=words):
            getattr(t, method)(y, x, parallel_iterations=bad)
    t, y = tape(True)
    j = getattr(t, method)(y, x, parallel_iterations=8)
    np.testing.assert_array_equal(j.numpy().ravel(), np.full(16, 6.0))
