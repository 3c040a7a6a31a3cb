"""Exact values from closed forms, so a broken checker cannot hide a broken rule; and
proof that check_grads fails on wrong rules (a checker that cannot fail is a defect)."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import backend
from gradviz.engine.check import check_grads
from gradviz.engine.execute import apply, tensors
from gradviz.engine.tensor import Tensor


def grad_and_hessian(f, x):
    x = tf.constant(x, dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return g.numpy(), outer.jacobian(g, x).numpy()


def test_sum_of_cubes():
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -0.25]])
    g, h = grad_and_hessian(lambda x: tf.reduce_sum(x ** 3), x)
    np.testing.assert_allclose(g, 3 * x ** 2, rtol=1e-12)
    np.testing.assert_allclose(h.reshape(6, 6), np.diag(6 * x.ravel()), rtol=1e-12, atol=1e-12)


def test_softmax_jacobian():
    x = tf.constant([0.3, -1.2, 2.0, 0.1], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = tf.nn.softmax(x)
    s_ = s.numpy()
    np.testing.assert_allclose(tape.jacobian(s, x).numpy(), np.diag(s_) - np.outer(s_, s_),
                               rtol=1e-12, atol=1e-15)


def test_log_softmax_jacobian():
    x = tf.constant([[0.3, -1.2, 2.0]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.log_softmax(x)
    s = np.exp(x.numpy() - np.log(np.sum(np.exp(x.numpy()))))[0]
    np.testing.assert_allclose(tape.jacobian(y, x).numpy()[0, :, 0, :], np.eye(3) - s[None, :],
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("fn, derivative, second", [
    (tf.sin, np.cos, lambda x: -np.sin(x)),
    (tf.exp, np.exp, np.exp),
    (tf.tanh, lambda x: 1 - np.tanh(x) ** 2, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    (tf.nn.sigmoid, lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2,
     lambda x: np.exp(-x) * (np.exp(-x) - 1) / (1 + np.exp(-x)) ** 3),
    (tf.nn.softplus, lambda x: 1 / (1 + np.exp(-x)), lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    (tf.nn.elu, lambda x: np.where(x > 0, 1.0, np.exp(x)), lambda x: np.where(x > 0, 0.0, np.exp(x))),
    (tf.nn.relu, lambda x: (x > 0).astype(float), lambda x: 0 * x),
    (tf.sqrt, lambda x: 0.5 / np.sqrt(x), lambda x: -0.25 * x ** -1.5),
    (tf.math.reciprocal, lambda x: -1 / x ** 2, lambda x: 2 / x ** 3),
], ids=["sin", "exp", "tanh", "sigmoid", "softplus", "elu", "relu", "sqrt", "reciprocal"])
def test_elementwise_first_and_second_derivatives(fn, derivative, second):
    x = np.array([0.3, 1.7, 2.5]) if fn in (tf.sqrt, tf.math.reciprocal) else np.array([-1.3, -0.2, 0.4, 2.1])
    g, h = grad_and_hessian(lambda x: tf.reduce_sum(fn(x)), x)
    np.testing.assert_allclose(g, derivative(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h, np.diag(second(x)), rtol=1e-12, atol=1e-15)


def test_matmul_gradient_is_row_sums_of_b_seed_004():
    """Seed 004: d sum(t @ b) / dt repeats the row sums of b in every row."""
    t = tf.Variable([[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
                     [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]])
    b = tf.Variable([[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
                     [1.4204658, 1.2609464, -0.43640924]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.matmul(t, b)
        y00 = y[0, 0]
    np.testing.assert_allclose(tape.gradient(y, t).numpy(),
                               np.tile([-0.17307831, 1.1900724, 2.245003], (5, 1)), rtol=1e-6)
    expected = np.zeros((5, 3), np.float32)
    expected[0] = [0.43842274, 1.5658046, 1.4204658]
    np.testing.assert_allclose(tape.gradient(y00, t).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, b).numpy(),
                               np.tile(t.numpy().sum(axis=0)[:, None], (1, 3)), rtol=1e-6)


def test_norm_gradient_is_the_unit_vector():
    g, h = grad_and_hessian(tf.norm, np.array([3.0, 4.0]))
    np.testing.assert_allclose(g, [0.6, 0.8], rtol=1e-12)
    np.testing.assert_allclose(h, (np.eye(2) - np.outer([0.6, 0.8], [0.6, 0.8])) / 5, rtol=1e-12)


def test_batch_norm_gradients():
    """With γ = 1: Σ bn(x) does not depend on x, d/dβ is the batch size, d/dγ = Σ x̂ = 0."""
    from gradviz.engine.ops.nn import batch_normalization_training
    x = tf.constant(np.random.default_rng(0).standard_normal((6, 2)))
    gamma, beta = tf.ones(2, tf.float64), tf.zeros(2, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([x, gamma, beta])
        y = tf.reduce_sum(batch_normalization_training(x, gamma, beta, 0.0))
    gx, ggamma, gbeta = tape.gradient(y, [x, gamma, beta])
    np.testing.assert_allclose(gx.numpy(), 0, atol=1e-12)
    np.testing.assert_allclose(ggamma.numpy(), 0, atol=1e-12)
    np.testing.assert_array_equal(gbeta.numpy(), [6, 6])


def test_inverse_and_solve_agree():
    a = tf.constant([[2.0, 0.5], [0.3, 1.5]], dtype=tf.float64)
    b = tf.constant([[1.0], [2.0]], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        x_solve = tf.linalg.solve(a, b)
        x_inv = tf.matmul(tf.linalg.inv(a), b)
    for source in (a, b):
        np.testing.assert_allclose(tape.gradient(x_solve, source).numpy(),
                                   tape.gradient(x_inv, source).numpy(), rtol=1e-12)


# -- the checker must be able to fail ----------------------------------------------------

def _square(x):
    return x * x


def _wrong_factor(F, g, ins, out, at, needs):
    return (g * 3 * ins[0],)  # should be 2x


def _wrong_for_a_batch(F, g, ins, out, at, needs):
    """Right for one cotangent; for a batch it reverses the order of the batch."""
    if g.ndim > out.ndim:
        g = F.strided_slice(g, (slice(None, None, -1),))
    return (g * 2 * ins[0],)


def _wrong_second_order(F, g, ins, out, at, needs):
    """Right values, but the recorded path treats x as a constant (loses d²/dx²)."""
    x = ins[0] if F is backend.numpy else Tensor._wrap(ins[0]._value)
    return (g * 2 * x,)


def _wrong_recorded_value(F, g, ins, out, at, needs):
    """Right on numpy; the recorded path is off by a constant (its derivative is right)."""
    right = g * 2 * ins[0]
    return (right if F is backend.numpy else right + 1.0,)


WRONG = {
    "wrong-factor": tf.define_op("TestWrongSquareFactor", _square, _wrong_factor),
    "wrong-for-a-batch": tf.define_op("TestWrongSquareBatched", _square, _wrong_for_a_batch),
    "wrong-second-order": tf.define_op("TestWrongSquareSecondOrder", _square, _wrong_second_order),
    "wrong-recorded-value": tf.define_op("TestWrongSquareRecorded", _square, _wrong_recorded_value),
}


def _apply(op):
    return lambda x: apply(op, tensors(x))


def test_the_deliberately_wrong_rules_are_right_where_they_claim():
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    check_grads(_apply(WRONG["wrong-for-a-batch"]), [x], order=1, jacobian=False)
    check_grads(_apply(WRONG["wrong-second-order"]), [x], order=1)
    check_grads(_apply(WRONG["wrong-recorded-value"]), [x], order=1)


@pytest.mark.parametrize("name, kwargs", [
    ("wrong-factor", {"order": 1, "jacobian": False}),
    ("wrong-for-a-batch", {"order": 1}),
    ("wrong-second-order", {"order": 2}),
    ("wrong-recorded-value", {"order": 2}),
])
def test_check_grads_fails_on_a_wrong_rule(name, kwargs):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    with pytest.raises(AssertionError):
        check_grads(_apply(WRONG[name]), [x], **kwargs)


def test_check_grads_fails_on_a_gradient_of_the_wrong_dtype():
    op = tf.define_op("TestFloat32Gradient", _square,
                      lambda F, g, ins, out, at, needs: ((g * 2 * ins[0]).astype(np.float32),))
    with pytest.raises(AssertionError, match="dtype"):
        check_grads(_apply(op), [np.array([0.5, 1.5])], order=1)


def test_check_grads_fails_on_a_wrong_registered_gradient():
    op = tf.define_op("TestWrongRegisteredGradient", np.sin)

    @tf.RegisterGradient("TestWrongRegisteredGradient")
    def _grad(operation, grad):
        return [grad * tf.sin(operation.inputs[0])]  # should be cos

    with pytest.raises(AssertionError):
        check_grads(_apply(op), [np.array([0.3, 1.2])], order=1)


def test_a_rule_returning_the_wrong_shape_is_named_in_the_error():
    op = tf.define_op("TestWrongShape", _square, lambda F, g, ins, out, at, needs: (g[:1],))
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = _apply(op)(x)
    with pytest.raises(ValueError, match="wrong shape"):
        tape.gradient(y, x)
