"""A Jacobian whose target is a product `a @ b` (a Hessian's inner gradient `xᵀ @ g`)
meets its basis cotangents in that product first: the pass puts the other operand's
rows or columns in place instead of multiplying by the one-hot stack
(backend._one_hot_matmul). The Jacobians are TF's per-row loop
`tape.gradient(y, x, output_gradients=e_i)` for every transpose of either operand, the
source on either side, float64 to 1e-12, NaN where the other operand holds ∞ or NaN
(0 · ∞ in the product: the pick is not taken there), and +0.0 where it holds -0.0 (the
product's sum 1 · -0.0 + 0 · v is +0.0: the pick writes the sign the product has)."""
import warnings

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import backend, blocks
from jacobian_util import per_row  # TF's definition: one gradient per row


@pytest.fixture
def picks(monkeypatch):
    """How many products the pass answered by picking (not None from the pick)."""
    taken = []
    pick = backend._one_hot_matmul
    monkeypatch.setattr(backend, "ONE_HOT_MIN", 1)  # the small products here pick too

    def counted(*args):
        out = pick(*args)
        if out is not None:
            taken.append(out.shape)
        return out
    monkeypatch.setattr(backend, "_one_hot_matmul", counted)
    return taken


@pytest.mark.parametrize("source_left", [True, False], ids=["source-a", "source-b"])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("other", ["finite", "signed-zero", "inf", "nan"])
def test_jacobian_of_a_product_is_the_per_row_loop(transpose_a, transpose_b, source_left,
                                                   other, picks, monkeypatch):
    monkeypatch.setattr(blocks, "ENABLED", False)  # the dense pass, not the row blocks
    rng = np.random.default_rng([transpose_a, transpose_b, source_left])
    a = rng.standard_normal((4, 3) if transpose_a else (3, 4))
    b = rng.standard_normal((5, 4) if transpose_b else (4, 5))
    fixed = b if source_left else a
    if other == "signed-zero":
        fixed[1, :] = -0.0
        fixed[:, 2] = -0.0
    elif other != "finite":
        fixed[1, 2] = np.inf if other == "inf" else np.nan
    x = tf.Variable(a if source_left else b)
    c = tf.constant(fixed)
    with tf.GradientTape(persistent=True) as tape:
        y = tf.matmul(x, c, transpose_a=transpose_a, transpose_b=transpose_b) if source_left \
            else tf.matmul(c, x, transpose_a=transpose_a, transpose_b=transpose_b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = per_row(tape, y, x)
        j = tape.jacobian(y, x).numpy()
    assert j.dtype == np.float64 and j.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(j), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(j[finite], expected[finite], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.signbit(j), np.signbit(expected))
    assert len(picks) == (1 if other in ("finite", "signed-zero") else 0)


@pytest.mark.parametrize("kernel", [(5, 8), (8, 8)], ids=["40-product", "64-pick"])
def test_hessian_of_a_relu_network_is_the_per_row_loop(kernel, picks, monkeypatch):
    """W4's form (bench/run.py): the outer Jacobian of `xᵀ @ g` picks x's columns from 64
    basis matrices up (backend.ONE_HOT_MIN), and the Hessian is the per-row loop's."""
    monkeypatch.setattr(backend, "ONE_HOT_MIN", 64)
    rng = np.random.default_rng(4)
    x = tf.constant(rng.standard_normal((7, kernel[0])))
    k1 = tf.Variable(rng.standard_normal(kernel) * 0.5)
    k2 = tf.Variable(rng.standard_normal((8, 6)) * 0.5)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            loss = tf.reduce_mean(tf.nn.relu(tf.nn.relu(x @ k1) @ k2) ** 2)
        g = inner.gradient(loss, k1)
    expected = per_row(outer, g, k1)
    h = outer.jacobian(g, k1).numpy()
    np.testing.assert_allclose(h, expected, rtol=1e-12, atol=1e-12)
    assert picks == ([] if kernel == (5, 8) else [(64, 7, 8)])
