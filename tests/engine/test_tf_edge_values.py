"""Gradients at the values where a formula's exact-arithmetic twin stops agreeing with
TF's (zeros, infinities, NaN, overflow): each expected value is worked out from TF's own
gradient function, named in the test's docstring, so a student comparing with TF sees
the same numbers. (reduce_prod's and cumprod's are in test_ops_reduce.py.)"""
import warnings

import numpy as np
import pytest

import gradviz as tf


@pytest.fixture(autouse=True)
def _quiet():
    """0 / 0 and overflow are the point here: numpy's warnings about them are not."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def grad(f, x, upstream=None, dtype=np.float32):
    x = tf.constant(np.asarray(x, dtype))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    if upstream is not None:
        upstream = tf.constant(np.asarray(upstream, dtype))
    return tape.gradient(y, x, output_gradients=upstream).numpy()


def jacobian(f, x, dtype=np.float32):
    x = tf.constant(np.asarray(x, dtype))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x).numpy()


def test_sqrt_at_zero_passes_no_nan_where_nothing_flows_in():
    """TF's _SqrtGrad is SqrtGrad(y, grad) (cwise_ops_gradients.h), which is 0 where grad
    is 0: the Jacobian row of sqrt(4) has 0 at sqrt(0), not 0 · 0.5 / 0 = NaN."""
    np.testing.assert_array_equal(jacobian(tf.sqrt, [0.0, 4.0]), [[np.inf, 0.0], [0.0, 0.25]])


def test_sqrt_in_an_untaken_where_branch_gives_zero():
    """TF's _SelectGradV2 sends 0 into the untaken branch and SqrtGrad(0, 0) is 0, so
    where(x > 0, sqrt(x), 0) at x = 0 has gradient 0 in TF (log in its place would
    still give 0 · (1 / 0) = NaN, TF's well-known case)."""
    def f(x):
        return tf.where(x > 0, tf.sqrt(x), tf.zeros_like(x))
    np.testing.assert_array_equal(grad(f, [0.0, 4.0]), [0.0, 0.25])
    np.testing.assert_array_equal(
        grad(lambda x: tf.where(x > 0, tf.math.log(x), tf.zeros_like(x)), [0.0, 4.0]),
        [np.nan, 0.25])


def test_reciprocal_gives_plus_zero_where_nothing_flows_in():
    """TF's _ReciprocalGrad is ReciprocalGrad(y, grad): -y · y · grad, but 0 (not -0,
    not -inf · 0 = NaN) where grad is 0."""
    j = jacobian(tf.math.reciprocal, [0.0, 4.0])
    np.testing.assert_array_equal(j, [[-np.inf, 0.0], [0.0, -0.0625]])
    assert not np.signbit(j[0, 1]) and not np.signbit(j[1, 0])


def test_log_multiplies_by_the_reciprocal():
    """TF's _LogGrad: grad · reciprocal(x). For x = 1e-40 (a float32 subnormal) 1 / x
    overflows to inf, so a cotangent of 1e-10 gives inf, where grad / x was 1e30."""
    np.testing.assert_array_equal(grad(tf.math.log, [1e-40], [1e-10]), [np.inf])


def test_divide_follows_tfs_grouping_for_the_denominator():
    """TF's _RealDivGrad: grad_y = grad · ((-x / y) / y). For x = 1, y = 1e-20 in float32,
    -x / y / y = -1e40 overflows to -inf, so grad = 1e-30 gives -inf, where
    -grad · out / y was -1e10."""
    def f(y):
        return tf.constant(1.0) / y
    np.testing.assert_array_equal(grad(f, [1e-20], [1e-30]), [-np.inf])


def test_norm_of_a_zero_vector_in_a_jacobian():
    """TF's tf.norm is sqrt(reduce_sum(x · x)) (linalg_ops.norm), so its gradient is
    SqrtGrad(‖x‖, grad) · x from each side of the product: NaN for the zero vector's own
    row (0.5 / 0 = inf, inf · 0), but 0 in the other row, where grad is 0."""
    j = jacobian(lambda x: tf.norm(x, axis=1), [[0.0, 0.0], [3.0, 4.0]])
    s = np.float32(0.5) * np.float32(1.0) / np.float32(5.0)  # SqrtGrad(5, 1)
    x = np.float32([3.0, 4.0])
    np.testing.assert_array_equal(j, [[[np.nan, np.nan], [0.0, 0.0]],
                                      [[0.0, 0.0], s * x + x * s]])
