"""jacobian with NaN and ∞ in it gives what TF's does: row i of the per-row loop
`tape.gradient(y, x, output_gradients=e_i)` (e_i one-hot), NaN and ∞ included.

Where a rule multiplies its cotangent by ∞ (Pow, Log, RealDiv at 0), a row whose
one-hot misses that entry carries 0 · ∞ = NaN there (Sqrt and Reciprocal give 0 where
their cotangent is 0, as TF's SqrtGrad and ReciprocalGrad do); TF's pfor vectorises
that same loop and keeps the NaN. Row-aligned targets take jacobian's block path
(engine/blocks.py), which once put zeros off its diagonal blocks instead: the Hessian
of Σ x^1.5 at x = [[1, 0, 4], [0.25, 9, 0]] had 6 non-finite entries, not TF's 12.
"""
import warnings

import numpy as np
import pytest

import gradviz as tf
from jacobian_util import per_row

X = np.array([[1.0, 0.0, 4.0], [0.25, 9.0, 0.0]], np.float32)


def _assert_same(j, expected):
    j = np.asarray(j)
    assert j.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(j), np.isnan(expected))
    np.testing.assert_array_equal(np.isposinf(j), np.isposinf(expected))
    np.testing.assert_array_equal(np.isneginf(j), np.isneginf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(j[finite], expected[finite], rtol=1e-6, atol=0)


# name -> f(x), each ∞ or a division by 0 at x's zeros
OPS = {
    "pow_1.5": lambda x: x ** 1.5,
    "sqrt": tf.sqrt,
    "log": tf.math.log,
    "pow_-1": lambda x: x ** -1.0,
    "reciprocal": tf.math.reciprocal,
    "divide_by_x": lambda x: 1.0 / x,
    "x_over_x": lambda x: x / x,
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@pytest.mark.parametrize("name", OPS)
def test_first_order_jacobian_is_the_per_row_loop(name):
    x = tf.Variable(X)
    with tf.GradientTape(persistent=True) as tape:
        y = OPS[name](x)
    expected = per_row(tape, y, x)
    assert np.isfinite(expected).all() == (name == "pow_1.5")  # 1.5 x^0.5 is finite at 0
    _assert_same(tape.jacobian(y, x), expected)
    _assert_same(tape.jacobian(y, x, experimental_use_pfor=False), expected)


@pytest.mark.parametrize("chunk_bytes", [None, 1])
@pytest.mark.parametrize("name", OPS)
def test_hessian_is_the_per_row_loop(name, chunk_bytes, monkeypatch):
    """Nested tapes, H = t2.jacobian(t1.gradient(Σ f(x), x), x), as the auditor ran it;
    also one seed per backward pass (a memory budget of 1 byte)."""
    if chunk_bytes is not None:
        from gradviz.engine import tape as tape_module
        monkeypatch.setattr(tape_module, "JACOBIAN_CHUNK_BYTES", chunk_bytes)
    x = tf.Variable(X)
    with tf.GradientTape(persistent=True) as t2:
        with tf.GradientTape() as t1:
            loss = tf.reduce_sum(OPS[name](x))
        g = t1.gradient(loss, x)
    expected = per_row(t2, g, x)
    assert not np.isfinite(expected).all()
    _assert_same(t2.jacobian(g, x), expected)
    _assert_same(t2.jacobian(g, x, experimental_use_pfor=False), expected)
    _assert_same(tf.hessian(lambda v: tf.reduce_sum(OPS[name](v)), x), expected)


def test_the_partly_nan_document_has_tf_s_twelve():
    """Σ x^1.5: H = diag(0.75 / √x); at x's two zeros the diagonal is ∞ and, as 0 · ∞,
    both columns of the zeros are NaN in every other row."""
    x = tf.Variable(X)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            loss = tf.reduce_sum(x ** 1.5)
        g = t1.gradient(loss, x)
    H = t2.jacobian(g, x).numpy().reshape(6, 6)
    nan = np.zeros((6, 6), bool)
    nan[:, [1, 5]] = True
    nan[1, 1] = nan[5, 5] = False
    np.testing.assert_array_equal(np.isnan(H), nan)
    np.testing.assert_array_equal(np.isposinf(H), np.eye(6, dtype=bool) & ~np.isfinite(H))
    assert np.isposinf(H[1, 1]) and np.isposinf(H[5, 5]) and (~np.isfinite(H)).sum() == 12
    finite = np.isfinite(H)
    np.testing.assert_allclose(H[finite], np.diag(0.75 / np.sqrt(X.reshape(-1)))[finite],
                               rtol=1e-6)


def test_a_compiled_jacobian_keeps_the_nan_off_its_blocks():
    """tf.function traces the block path as ops; the NaN off the blocks is in the trace."""
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.sqrt(x) * 2.0
        return tape.jacobian(y, x)

    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.sqrt(x) * 2.0
    expected = per_row(tape, y, x)
    _assert_same(tf.function(f)(x), expected)
    other = tf.constant(X + 1.0)  # the same trace, no zeros: every entry finite
    j = tf.function(f)(other).numpy()
    assert np.isfinite(j).all()


def test_batch_jacobian_is_tf_s_loop_over_the_row_elements():
    """TF's batch_jacobian is a loop over j of gradient(y[:, j], x): every row's element
    j seeded at once, so the NaN of 0 · ∞ meets only the elements of x's row."""
    x = tf.Variable(X)
    with tf.GradientTape(persistent=True) as tape:
        y = tf.math.log(x)
        columns = [y[:, j] for j in range(3)]
    expected = np.stack([tape.gradient(c, x).numpy() for c in columns], axis=1)
    assert np.isnan(expected).any()
    _assert_same(tape.batch_jacobian(y, x), expected)
    _assert_same(tape.batch_jacobian(y, x, experimental_use_pfor=False), expected)
