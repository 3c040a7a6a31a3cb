"""Elementwise math ops: every VJP (first and second order, single and batched
cotangents) against central finite differences via check_grads."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads
from gradviz.engine.ops import math as M


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def positive(shape, seed=0, lo=0.5, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def away_from_zero(shape, seed=0, lo=0.3, hi=2.0):
    rng = np.random.default_rng(seed)
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


# -- unary -------------------------------------------------------------------------------

UNARY = [
    ("square", tf.square, normal),
    ("sqrt", tf.sqrt, positive),
    ("exp", tf.exp, normal),
    ("log", tf.math.log, positive),
    ("sin", tf.sin, normal),
    ("cos", tf.cos, normal),
    ("tanh", tf.tanh, normal),
    ("abs", tf.abs, away_from_zero),
    ("negative", tf.negative, normal),
    ("reciprocal", tf.math.reciprocal, away_from_zero),
    ("neg-operator", lambda x: -x, normal),
    ("abs-operator", lambda x: abs(x), away_from_zero),
    ("identity", tf.identity, normal),
]


@pytest.mark.parametrize("fn, sample", [(f, s) for _, f, s in UNARY], ids=[n for n, _, _ in UNARY])
@pytest.mark.parametrize("shape", [(2, 3), (), (4,)], ids=["matrix", "scalar", "vector"])
def test_unary(fn, sample, shape):
    check_grads(fn, [sample(shape)], order=2)


def test_third_order_of_sin():
    check_grads(tf.sin, [normal((3,))], order=3)


# -- binary, with broadcasting -----------------------------------------------------------

SHAPES = [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((2, 3), (3,)), ((), (2, 3)), ((2, 3), ())]
SHAPE_IDS = ["same", "col-x-row", "matrix-x-vector", "scalar-x-matrix", "matrix-x-scalar"]


def _no_ties(x_shape, y_shape, seed=0):
    """Random x, y whose broadcast elements differ by at least 0.1 (max/min have no kinks)."""
    rng = np.random.default_rng(seed)
    while True:
        x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
        if np.min(np.abs(x - y)) > 0.1:
            return x, y


BINARY = [
    ("add", tf.add, lambda xs, ys: (normal(xs, 1), normal(ys, 2))),
    ("subtract", tf.subtract, lambda xs, ys: (normal(xs, 1), normal(ys, 2))),
    ("multiply", tf.multiply, lambda xs, ys: (normal(xs, 1), normal(ys, 2))),
    ("divide", tf.divide, lambda xs, ys: (normal(xs, 1), away_from_zero(ys, 2))),
    ("pow", tf.pow, lambda xs, ys: (positive(xs, 1), normal(ys, 2))),
    ("maximum", tf.maximum, _no_ties),
    ("minimum", tf.minimum, _no_ties),
    ("add-operator", lambda a, b: a + b, lambda xs, ys: (normal(xs, 1), normal(ys, 2))),
    ("rsub-operator", lambda a, b: b.__rsub__(a), lambda xs, ys: (normal(xs, 1), normal(ys, 2))),
    ("rdiv-operator", lambda a, b: b.__rtruediv__(a),
     lambda xs, ys: (normal(xs, 1), away_from_zero(ys, 2))),
]


@pytest.mark.parametrize("fn, sample", [(f, s) for _, f, s in BINARY], ids=[n for n, _, _ in BINARY])
@pytest.mark.parametrize("x_shape, y_shape", SHAPES, ids=SHAPE_IDS)
def test_binary(fn, sample, x_shape, y_shape):
    x, y = sample(x_shape, y_shape)
    check_grads(fn, [x, y], order=2)


@pytest.mark.parametrize("exponent", [3.0, 0.5, -1.5, 2.0])
def test_pow_with_a_constant_exponent(exponent):
    check_grads(lambda x: x ** exponent, [positive((2, 3))], order=2)


@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("exponent", [1.0, 2.0])
def test_pow_rule_on_arrays_is_the_formula_bit_for_bit(exponent, scalar):
    """The numpy rule's shortcuts for x ** 1 and x ** 2 give grad · y · x^(y-1) exactly,
    at 0, -0, inf and NaN too (a Hessian's backward of x ** 2 meets x ** 1), with the
    exponent a 0-d array or a numpy scalar (what numpy's 2 - 1 gives in that pass)."""
    from gradviz.engine import backend
    x = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e38], np.float32)
    g = np.array([1.0, -3.0, 0.5, np.nan, 2.0, -0.0, 1.0, 7.0], np.float32)
    y = np.float32(exponent) if scalar else np.array(exponent, np.float32)
    with np.errstate(all="ignore"):  # inf · 0 and overflow are part of the check
        (gx, _) = M.POW.rule(backend.numpy, g, (x, y), np.power(x, y), {}, (True, False))
        want = g * y * np.power(x, y - 1)
    assert gx.dtype == want.dtype and gx.shape == want.shape
    assert gx.tobytes() == want.tobytes()


def test_hessian_of_a_square_through_nested_tapes():
    x = tf.Variable(np.array([[0.5, -1.0], [2.0, 0.0]], np.float32))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            loss = tf.reduce_sum(x ** 2.0 * 3.0)
        g = inner.gradient(loss, x)
    h = outer.jacobian(g, x).numpy().reshape(4, 4)
    np.testing.assert_array_equal(g.numpy(), 6.0 * x.numpy())
    np.testing.assert_array_equal(h, 6.0 * np.eye(4, dtype=np.float32))


def test_pow_of_a_negative_base_with_an_integer_exponent():
    check_grads(lambda x: tf.pow(x, 3.0), [normal((2, 3))], order=2)


def test_constant_to_the_power_x():
    check_grads(lambda x: 2.0 ** x, [normal((2, 3))], order=2)


def test_chain_of_binary_ops_with_fan_in():
    check_grads(lambda x, y: (x * y + x / (y * y + 1)) * x - tf.maximum(x, 0.05), [
        positive((2, 3), 3), normal((3,), 4)], order=2)


# -- select, clip, cast ------------------------------------------------------------------

WHERE_SHAPES = [((2, 3), (2, 3), (2, 3)), ((3, 1), (3, 1), (1, 4)), ((2, 3), (3,), ()),
                ((3,), (2, 3), (2, 1))]


@pytest.mark.parametrize("c_shape, x_shape, y_shape", WHERE_SHAPES,
                         ids=["same", "broadcast-y", "scalar-y", "broadcast-condition"])
def test_where(c_shape, x_shape, y_shape):
    condition = tf.constant(normal(c_shape, 5) > 0)
    check_grads(lambda x, y: tf.where(condition, x, y), [normal(x_shape, 1), normal(y_shape, 2)],
                order=2)


def test_where_inside_a_smooth_function():
    condition = tf.constant([[True, False, True], [False, True, True]])
    check_grads(lambda x: tf.where(condition, x * x, tf.sin(x)), [normal((2, 3))], order=2)


def _clip_sample():
    # Elements at least 0.1 away from the bounds -0.5 and 0.7.
    x = np.array([[-1.2, -0.3, 0.1], [0.9, 0.55, -0.65]])
    return x, np.array(-0.5), np.array(0.7)


def test_clip_by_value_all_arguments():
    check_grads(tf.clip_by_value, list(_clip_sample()), order=2)


def test_clip_by_value_inside_a_smooth_function():
    x, lo, hi = _clip_sample()
    check_grads(lambda x: tf.clip_by_value(x * x, 0.1, 0.5) * x, [x], order=2)


def test_clip_by_value_with_tensor_bounds():
    x = normal((2, 3))
    lo = x - np.where(normal((2, 3), 1) > 0, 0.3, -0.3)
    check_grads(lambda x, lo: tf.clip_by_value(x, lo, 10.0), [x, lo], order=2)


def test_cast_float32_to_float64_gives_the_gradient_in_float32():
    x = tf.constant([[0.5, -1.0, 2.0]])
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.cast(x, tf.float64) ** 3)
        g = tape.gradient(y, x)
    assert g.dtype == tf.float32
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2, rtol=1e-6)
    h = outer.jacobian(g, x)
    expected = np.zeros((1, 3, 1, 3))
    expected[0, [0, 1, 2], 0, [0, 1, 2]] = 6 * x.numpy()[0]
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-6)


def test_cast_round_trip_by_finite_differences():
    # float64 -> float32 -> float64 rounds at 1e-7, so differences need a wider step.
    def f(x):
        return tf.cast(tf.cast(x, tf.float32), tf.float64) * tf.sin(x)
    check_grads(f, [normal((2, 3))], order=2, eps=1e-3, rtol=1e-3, atol=1e-5)


# -- the internal ops that appear in second-order graphs ---------------------------------

@pytest.mark.parametrize("mask_shape", [(2, 3), (3,), (2, 1)], ids=["same", "row", "column"])
def test_masked(mask_shape):
    mask = tf.constant(normal(mask_shape, 7) > 0)
    check_grads(lambda g: M.masked(g * g, mask), [normal((2, 3))], order=2)


@pytest.mark.parametrize("y_shape, dy_shape", [((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 3), (4, 2, 3))],
                         ids=["same", "batched-dy", "batched-dy-3d"])
def test_tanh_grad(y_shape, dy_shape):
    check_grads(M.tanh_grad, [np.tanh(normal(y_shape, 1)), normal(dy_shape, 2)], order=2)


@pytest.mark.parametrize("y_shape, dy_shape", [((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 3), (4, 2, 3))],
                         ids=["same", "batched-dy", "batched-dy-3d"])
@pytest.mark.parametrize("op", [M.sqrt_grad, M.reciprocal_grad], ids=["sqrt", "reciprocal"])
def test_sqrt_and_reciprocal_grad(op, y_shape, dy_shape):
    check_grads(op, [positive(y_shape, 1), normal(dy_shape, 2)], order=2)


def test_sign_inside_a_smooth_function():
    check_grads(lambda x: tf.sign(x) * x * x, [away_from_zero((2, 3))], order=2)


@pytest.mark.parametrize("x_shape, y_shape", SHAPES, ids=SHAPE_IDS)
def test_multiply_no_nan_away_from_zero(x_shape, y_shape):
    check_grads(tf.math.multiply_no_nan, [normal(x_shape, 1), away_from_zero(y_shape, 2)],
                order=2)


def test_multiply_no_nan_is_zero_where_y_is_zero_even_for_inf_and_nan():
    x = tf.constant([np.inf, np.nan, 2.0, -3.0])
    y = tf.constant([0.0, 0.0, 3.0, 0.0])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.math.multiply_no_nan(x, y)
    np.testing.assert_array_equal(z.numpy(), [0.0, 0.0, 6.0, 0.0])
    gx, gy = tape.gradient(z, [x, y])
    # TF's MulNoNanGrad: grad_x = mul_no_nan(grad, y) = y; grad_y = mul_no_nan(x, grad) = x.
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0, 3.0, 0.0])
    np.testing.assert_array_equal(gy.numpy(), [np.inf, np.nan, 2.0, -3.0])


def test_sign_has_a_zero_gradient():
    x = tf.constant([-2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sign(x) * x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [-1.0, 1.0])


def test_where_gives_the_untaken_branch_zero_even_for_an_infinite_cotangent():
    """TF's select semantics: 0, not inf · 0 = NaN."""
    a, b = tf.constant([0.0, 4.0]), tf.constant([1.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        with np.errstate(divide="ignore"):
            y = tf.sqrt(tf.where([True, False], a, b))
            ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [np.inf, 0.0])
    np.testing.assert_array_equal(gb.numpy(), [0.0, 0.5])


def test_clip_gives_a_clipped_element_zero_even_for_an_infinite_cotangent():
    x = tf.constant([4.0, 0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.clip_by_value(x, -1.0, 1.0) * 0.0  # the cotangent below is inf at 4 ...
        with np.errstate(divide="ignore", invalid="ignore"):
            y = tf.sqrt(y + tf.constant([0.0, 1.0]))
            g = tape.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])  # ... and 4 is clipped: 0, not NaN


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_python_numbers_take_the_tensors_dtype_on_either_side_of_every_operator(dtype):
    """`x - 1`, `2 * x`, `g / n`: a Python int or float beside a floating tensor becomes
    that tensor's dtype (the gradient rules lean on it), valued as numpy computes it."""
    x_np = np.array([[0.5, 1.25], [2.0, 3.5]], dtype)
    x = tf.constant(x_np)
    cases = [(lambda a, b: a + b, np.add), (lambda a, b: a - b, np.subtract),
             (lambda a, b: a * b, np.multiply), (lambda a, b: a / b, np.divide),
             (lambda a, b: a ** b, np.power)]
    for op, ufunc in cases:
        for number in (3, 2.5):
            for got, want in ((op(x, number), ufunc(x_np, dtype(number))),
                              (op(number, x), ufunc(dtype(number), x_np))):
                assert got.dtype == tf.as_dtype(dtype)
                np.testing.assert_array_equal(got.numpy(), want)


def test_python_numbers_beside_an_integer_tensor_keep_their_rules():
    n = tf.constant([4, 6])
    assert (n - 1).dtype == tf.int32 and (n - 1).numpy().tolist() == [3, 5]
    with pytest.raises(TypeError, match="cannot convert 0.5"):
        n * 0.5
