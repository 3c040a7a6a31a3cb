"""simplify.py's rewrites of a compiled program: the numpy program skips adding zeros,
multiplying by ones and multiplying one-hot bases, and gives eager's numbers exactly,
inf and NaN included; under an outer tape the traced ops still replay as ops."""
import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")

import gradviz as tf


def _source(compiled, *args):
    return compiled.get_concrete_function(*args).program_source[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_neutral_constants_are_skipped_with_the_same_numbers(dtype):
    def f(x):
        zeros, ones = tf.zeros((2, 3), dtype), tf.ones((2, 3), dtype)
        y = (x + zeros) * ones
        y = zeros + (y - zeros) / ones
        y = (ones * y) ** tf.constant(1.0, dtype)
        # A constant that broadcasts x up keeps its op: the result has its shape.
        return y + tf.zeros((4, 2, 3), dtype), tf.sin(y) * 1.0

    compiled = tf.function(f)
    x = tf.constant(np.array([[1.5, -0.0, np.inf], [np.nan, -2.0, 1e-30]], dtype))
    for _ in range(2):
        got, expected = compiled(x), f(x)
        for a, e in zip(got, expected):
            assert a.shape == e.shape and a.dtype == e.dtype
            np.testing.assert_array_equal(a.numpy(), e.numpy())
    source = _source(compiled, x)
    for op in ("Mul", "RealDiv", "Sub", "Pow"):
        assert f"# {op}" not in source, source
    assert source.count("# AddV2") == 1 and "# Sin" in source


def _dense_batch_jacobian(w1, w2):
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
        return tape.batch_jacobian(y, x)
    return f


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_batch_jacobian_picks_rows_for_its_basis_seeds(dtype):
    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.normal(size=(4, 6)).astype(dtype))
    w2 = tf.Variable(rng.normal(size=(6, 3)).astype(dtype))
    f = _dense_batch_jacobian(w1, w2)
    compiled = tf.function(f)
    x = tf.constant(rng.normal(size=(5, 4)).astype(dtype))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=tol, atol=tol)
    source = _source(compiled, x)
    assert source.count("# MatMul") == 2, source  # the forward's first and the last one
    # An inf in the weights: 0 · inf spreads NaN over the matmul, and so over eager's
    # Jacobian; the rewrite multiplies then, as eager does.
    w2.assign(np.where(np.arange(18).reshape(6, 3) == 4, np.inf, w2.numpy()).astype(dtype))
    np.testing.assert_array_equal(np.isnan(compiled(x).numpy()), np.isnan(f(x).numpy()))
    np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=tol, atol=tol)


def test_a_one_hot_matrix_times_a_matrix_is_its_rows():
    picks = np.eye(4)[[2, 0, 2]]

    def f(m):
        return tf.matmul(tf.constant(picks), m), tf.matmul(tf.constant(picks), m, transpose_b=True)

    compiled = tf.function(f)
    m = tf.constant(np.arange(16.0).reshape(4, 4) - 5)
    for a, e in zip(compiled(m), f(m)):
        np.testing.assert_array_equal(a.numpy(), e.numpy())
    assert "# MatMul" not in _source(compiled, m)
    # Not one-hot (a 2 in a row, or two ones): the matmul stays.
    for bad in (picks * 2, picks + np.eye(4)[[1, 1, 1]]):
        g = tf.function(_times(bad))
        np.testing.assert_array_equal(g(m).numpy(), bad @ m.numpy())
        assert "# MatMul" in _source(g, m)


def _times(constant):
    return lambda m: tf.matmul(tf.constant(constant), m)


def test_an_outer_tape_still_differentiates_the_rewritten_steps():
    """Under a recording tape the traced ops replay as ops (run_ops): the Hessian of a
    compiled gradient is eager's."""
    w = tf.Variable(np.random.default_rng(3).normal(size=(3, 2)))

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.relu(x @ w) ** 2) + tf.reduce_sum(x * 1.0 + 0.0)
        return tape.gradient(y, x)

    compiled = tf.function(grad)
    x = tf.constant(np.random.default_rng(4).normal(size=(4, 3)))
    results = []
    for fn in (compiled, grad):
        with tf.GradientTape() as outer:
            outer.watch(x)
            g = fn(x)
        results.append((g.numpy(), outer.jacobian(g, x).numpy()))
    for a, e in zip(*results):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)
