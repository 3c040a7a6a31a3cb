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


def test_elu_at_nan_and_just_below_zero():
    """TF's Elu kernel (relu_op_functor.h) is exp(x) - 1 where x < 0, so in float32
    elu(-1e-8) = 1 - 1 = 0 (expm1 gave -1e-8); its EluGrad selects (y + 1) · grad where
    y < 0 and grad elsewhere, so at x = NaN (y = NaN) the gradient is grad, not NaN."""
    np.testing.assert_array_equal(tf.nn.elu(tf.constant([-1e-8, -1.0, 2.0])).numpy(),
                                  np.float32([0.0, np.exp(np.float32(-1.0)) - 1, 2.0]))
    y = np.exp(np.float32(-1.0)) - np.float32(1.0)
    np.testing.assert_array_equal(grad(tf.nn.elu, [np.nan, 0.0, -1.0]), [1.0, 1.0, y + 1])


def test_second_derivatives_of_sigmoid_and_tanh_in_tfs_order():
    """TF's _SigmoidGradGrad gives y the gradient gb - 2 · gb · y (gb = grad · dy): at
    y = 0, gb = inf that is inf - NaN = NaN (gb · (1 - 2y) was inf). TF's _TanhGradGrad
    multiplies grad · -2 first: grad = 2e38 overflows there to -inf in float32, where
    grad · dy · (-2y) was -8e36."""
    from gradviz.engine.ops import math as M, nn

    def grad_of_y(op, y, dy, upstream):
        y, dy = tf.constant(np.float32(y)), tf.constant(np.float32(dy))
        with tf.GradientTape() as tape:
            tape.watch(y)
            out = op(y, dy)
        return tape.gradient(out, y, output_gradients=tf.constant(np.float32(upstream))).numpy()

    assert np.isnan(grad_of_y(nn.sigmoid_grad, 0.0, np.inf, 1.0))
    assert grad_of_y(M.tanh_grad, 0.1, 0.2, 2e38) == -np.inf


def test_clip_by_value_is_tfs_minimum_then_maximum():
    """TF's clip_by_value is maximum(minimum(x, hi), lo) (clip_ops.py), so the gradients
    are _MaximumGrad's then _MinimumGrad's: at x = NaN, minimum(NaN, hi) ≥ lo is False
    and lo takes the gradient; with lo = 2 > hi = 1 the value is lo and lo alone takes
    the gradient (x and hi get 0, where both bounds took it before)."""
    x, lo, hi = tf.constant([np.nan, 1.5]), tf.constant(2.0), tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch([x, lo, hi])
        y = tf.clip_by_value(x, lo, hi)
    gx, glo, ghi = tape.gradient(y, [x, lo, hi])
    np.testing.assert_array_equal(y.numpy(), [np.nan, 2.0])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0])
    assert glo.numpy() == 2.0 and ghi.numpy() == 0.0


def test_max_pool_sends_an_infinite_cotangent_to_the_maximum_only():
    """TF's MaxPoolGrad kernel adds each window's cotangent at its argmax; the window's
    other inputs stay 0 (a 0/1 mask times inf gave NaN there). MaxPoolGradGrad reads the
    argmax's entry alone, so an inf elsewhere in the window does not reach it."""
    x = tf.constant(np.float32([1.0, 5.0, 3.0, 2.0]).reshape(1, 2, 2, 1))
    inf = tf.constant(np.full((1, 1, 1, 1), np.inf, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=inf).numpy().ravel(),
                                  [0.0, np.inf, 0.0, 0.0])
    from gradviz.engine.ops import windows
    u = np.float32([np.inf, 7.0, np.nan, 1.0]).reshape(1, 2, 2, 1)
    read = windows.max_pool_grad_grad(x.numpy(), y.numpy(), u, (1, 2, 2, 1), (1, 2, 2, 1),
                                      "VALID", ())
    np.testing.assert_array_equal(read.ravel(), [7.0])


def test_dropout_gives_a_dropped_element_plus_zero():
    """TF's dropout is where(keep, x · scale, 0) (nn_ops._dropout), so its gradient is
    _SelectGradV2's where(keep, grad, 0) times scale: +0 at a dropped element for any
    grad, where grad · mask gave -0 for a negative grad and NaN for an infinite one."""
    x = tf.constant(np.ones(64, np.float32))
    upstream = np.where(np.arange(64) % 2, -1.0, np.inf).astype(np.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5, seed=3)
    g = tape.gradient(y, x, output_gradients=tf.constant(upstream)).numpy()
    dropped = y.numpy() == 0
    assert dropped.any() and (~dropped).any()
    np.testing.assert_array_equal(g[dropped], 0.0)
    assert not np.signbit(g[dropped]).any()
    np.testing.assert_array_equal(g[~dropped], upstream[~dropped] * np.float32(2.0))


def test_inverse_gradient_groups_its_products_as_tf():
    """TF's _MatrixInverseGrad is -matmul(A⁻¹, matmul(grad, A⁻¹, transpose_b=True),
    transpose_a=True): A⁻ᵀ @ (grad @ A⁻ᵀ). The same numbers as that grouping computed
    with numpy here (the other grouping, (A⁻ᵀ @ grad) @ A⁻ᵀ, rounds differently)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 5)).astype(np.float32) + 3 * np.eye(5, dtype=np.float32)
    upstream = rng.standard_normal((5, 5)).astype(np.float32)
    inv = np.linalg.inv(a)
    g = grad(tf.linalg.inv, a, upstream)
    np.testing.assert_array_equal(g, -np.matmul(inv.T, np.matmul(upstream, inv.T)))


def test_softplus_of_a_large_input_is_the_input():
    """TF's Softplus kernel (softplus_op.h) returns x above -t, exp(x) below t and
    log1p(exp(x)) between, t = log(ε) + 2 (-13.94 in float32): softplus(14) = 14 and
    softplus(-20) = exp(-20) exactly; the gradient is _SoftplusGrad's grad · sigmoid(x)."""
    x = np.float32([14.0, -20.0, 1.0])
    y = tf.nn.softplus(tf.constant(x)).numpy()
    np.testing.assert_array_equal(y[:2], [14.0, np.exp(np.float32(-20.0))])
    np.testing.assert_array_equal(y[2], np.log1p(np.exp(np.float32(1.0))))
    np.testing.assert_array_equal(grad(tf.nn.softplus, x), tf.sigmoid(tf.constant(x)).numpy())


def test_moments_of_float16_are_computed_in_float32():
    """TF's tf.nn.moments casts float16 to float32, reduces, and casts back: for one 1000
    among nineteen zeros the variance is 47500 (float16 47488), though the square of the
    deviation 950 alone, 902500, is beyond float16's 65504 (inf when squared in float16)."""
    x = np.zeros(20, np.float16)
    x[0] = 1000
    mean, var = tf.nn.moments(tf.constant(x), axes=[0])
    assert mean.dtype == tf.float16 and var.dtype == tf.float16
    assert mean.numpy() == np.float16(50.0) and var.numpy() == np.float16(47500.0)


GUARDED = [   # (op type, f, the point where the rule's formula is 0/0 or ∞·0, what the text says)
    ("EuclideanNorm", tf.norm, [0.0, 0.0], "0 where grad = 0 even at ‖x‖ = 0"),
    ("Sqrt", tf.sqrt, [0.0], "0 where grad = 0 even at x = 0"),
    ("Reciprocal", tf.math.reciprocal, [0.0], "0 where grad = 0 even at x = 0"),
]


@pytest.mark.parametrize("op_type,f,x,guard", GUARDED, ids=[g[0] for g in GUARDED])
def test_a_rule_says_where_its_zero_guard_matters(op_type, f, x, guard):
    """Lesson 14's norm card read 'grad_x = grad · x / ‖x‖, 0 where grad = 0' (issue 20 §1):
    where grad = 0 the formula is 0 anyway, unless ‖x‖ = 0, where it is 0·0/0. The text
    names that point, and there the rule gives 0 for grad = 0 and no number for grad ≠ 0."""
    from gradviz.engine.registry import get_op
    assert get_op(op_type).formula({}, 0).endswith(guard)
    upstream = np.zeros(np.shape(f(tf.constant(np.asarray(x, np.float32))).numpy()))
    np.testing.assert_array_equal(grad(f, x, upstream), np.zeros(len(x)))
    assert not np.isfinite(grad(f, x, upstream + 1)).all()


def test_mul_no_nan_says_what_its_guard_keeps_out():
    """multiply_no_nan's zero is one the plain product would not give: grad · y at y = 0
    is NaN when grad is ∞ (TF's MulNoNanGrad)."""
    from gradviz.engine.registry import get_op
    rule = get_op("MulNoNan")
    assert rule.formula({}, 0).endswith("0 where y = 0 even if grad is ±∞ or NaN")
    assert rule.formula({}, 1).endswith("0 where grad = 0 even if x is ±∞ or NaN")
    x, y = tf.constant([np.inf, 2.0]), tf.constant([0.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        out = tf.math.multiply_no_nan(x, y)
    gx, gy = tape.gradient(out, [x, y], output_gradients=tf.constant([np.inf, 0.0]))
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(gy.numpy(), [np.inf, 0.0])
