"""Activations, softmax and batch normalisation, and the fused gradient ops they use
(ReluGrad, SigmoidGrad, EluGrad): VJPs against finite differences."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads
from gradviz.engine.ops import nn


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def away_from_zero(shape, seed=0, lo=0.2, hi=2.0):
    rng = np.random.default_rng(seed)
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


ACTIVATIONS = [
    ("relu", tf.nn.relu, away_from_zero),
    ("elu", tf.nn.elu, away_from_zero),
    ("sigmoid", tf.nn.sigmoid, normal),
    ("tanh", tf.nn.tanh, normal),
    ("softplus", tf.nn.softplus, normal),
    ("softmax", tf.nn.softmax, normal),
    ("softmax-axis-0", lambda x: tf.nn.softmax(x, axis=0), normal),
    ("log-softmax", tf.nn.log_softmax, normal),
    ("log-softmax-axis-0", lambda x: tf.nn.log_softmax(x, axis=0), normal),
]


@pytest.mark.parametrize("fn, sample", [(f, s) for _, f, s in ACTIVATIONS],
                         ids=[n for n, _, _ in ACTIVATIONS])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 2)], ids=["matrix", "3d"])
def test_activation(fn, sample, shape):
    check_grads(fn, [sample(shape)], order=2)


@pytest.mark.parametrize("fn, sample", [(f, s) for _, f, s in ACTIVATIONS],
                         ids=[n for n, _, _ in ACTIVATIONS])
def test_activation_after_a_nonlinearity(fn, sample):
    # relu(x³): the second derivative 6x is non-zero, so ReluGrad's rule is exercised.
    check_grads(lambda x: fn(x * x * x), [sample((2, 3))], order=2)


def test_activations_third_order():
    check_grads(lambda x: tf.nn.softmax(tf.nn.sigmoid(x) * tf.nn.elu(x)), [away_from_zero((2, 3))],
                order=3)


# -- fused gradient ops ------------------------------------------------------------------

@pytest.mark.parametrize("g_shape, y_shape", [((2, 3), (2, 3)), ((4, 2, 3), (2, 3))],
                         ids=["same", "batched"])
def test_relu_grad(g_shape, y_shape):
    y = away_from_zero(y_shape, 3)
    check_grads(lambda g, y: nn.relu_grad(g * g, y), [normal(g_shape), y], order=2)


def _hessians(loss_of, x):
    """d/dx of t1.gradient(loss, x): by gradient (of its sum), by gradient with a backward
    Observer, and by jacobian; and what that Observer received for ReluGrad's y input."""
    from gradviz.engine.observer import Observer

    class Seen(Observer):
        def __init__(self):
            self.y_contributions = []

        def contribution(self, op, index, cotangent):
            if op.type == "ReluGrad" and index == 1:
                self.y_contributions.append(cotangent.numpy())

    seen = Seen()
    found = []
    for ask in ("gradient", "observed", "jacobian"):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                loss = loss_of(x)
            g = t1.gradient(loss, x)
        found.append(t2.jacobian(g, x) if ask == "jacobian" else
                     t2.gradient(g, x, observer=seen if ask == "observed" else None))
    return found, seen.y_contributions


def test_relu_grad_y_cotangent_is_zeros_alone_or_at_a_fan_in():
    """ReluGrad's y only selects: TF's _ReluGradGrad gives it zeros. Alone (y reaches x
    through nothing else) they make the Hessian zeros, not None; where they meet the
    cotangent of another path (relu(x)²) they add nothing. An observer sees the zeros."""
    x = tf.constant(away_from_zero((3, 4), 5).astype(np.float32))
    n = x.shape.num_elements()
    (grad, observed, jac), seen = _hessians(lambda x: tf.reduce_sum(tf.nn.relu(x)), x)
    for g in (grad, observed):
        np.testing.assert_array_equal(g.numpy(), np.zeros((3, 4), np.float32))
    np.testing.assert_array_equal(jac.numpy(), np.zeros((3, 4, 3, 4), np.float32))
    assert len(seen) == 1 and seen[0].shape == (3, 4) and not seen[0].any()

    (grad, observed, jac), seen = _hessians(lambda x: tf.reduce_sum(tf.nn.relu(x) ** 2), x)
    positive = (x.numpy() > 0).astype(np.float32)
    for g in (grad, observed):
        np.testing.assert_allclose(g.numpy(), 2 * positive)
    np.testing.assert_allclose(jac.numpy().reshape(n, n), np.diag(2 * positive.reshape(-1)))
    assert len(seen) == 1 and not seen[0].any()


@pytest.mark.parametrize("y_shape, dy_shape", [((2, 3), (2, 3)), ((2, 3), (4, 2, 3))],
                         ids=["same", "batched"])
def test_sigmoid_grad(y_shape, dy_shape):
    y = 1 / (1 + np.exp(-normal(y_shape, 1)))
    check_grads(nn.sigmoid_grad, [y, normal(dy_shape, 2)], order=2)


@pytest.mark.parametrize("g_shape, y_shape", [((2, 3), (2, 3)), ((4, 2, 3), (2, 3))],
                         ids=["same", "batched"])
def test_elu_grad(g_shape, y_shape):
    x = away_from_zero(y_shape, 3)
    y = np.where(x > 0, x, np.expm1(x))
    check_grads(nn.elu_grad, [normal(g_shape), y], order=2)


# -- batch normalisation -----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)], ids=["rows", "3d"])
def test_fused_batch_norm(shape):
    c = shape[-1]
    args = [normal(shape, 1), 1 + 0.5 * normal((c,), 2), normal((c,), 3)]
    check_grads(lambda x, gamma, beta: nn.batch_normalization_training(x, gamma, beta, 1e-3),
                args, order=2)


def test_fused_batch_norm_inside_a_smooth_function():
    check_grads(lambda x: tf.reduce_sum(tf.sin(nn.batch_normalization_training(x, 1.5, 0.2, 1e-3)),
                                        axis=0),
                [normal((5, 2))], order=2)


def test_fused_batch_norm_normalises_each_channel():
    x = tf.constant(3 + 2 * normal((64, 3)))
    y = nn.batch_normalization_training(x, tf.ones(3, tf.float64), tf.zeros(3, tf.float64), 0.0).numpy()
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=0), 1, rtol=1e-12)


def test_batch_normalization_all_arguments():
    c = 3
    args = [normal((4, c), 1), normal((c,), 2), 0.5 + np.abs(normal((c,), 3)),
            normal((c,), 4), normal((c,), 5)]
    check_grads(lambda x, m, v, offset, scale: tf.nn.batch_normalization(x, m, v, offset, scale, 1e-3),
                args, order=2)


def test_batch_normalization_without_offset_and_scale():
    check_grads(lambda x, v: tf.nn.batch_normalization(x, 0.5, v, None, None, 1e-3),
                [normal((4, 3)), np.array([0.5, 1.0, 2.0])], order=2)


def test_moments():
    """First order only: TF's tf.nn.moments holds the mean constant in the variance, so
    its second derivative is not the finite-difference one (test_layers_keras3's
    test_moments_variance_hessian_is_tfs states TF's)."""
    check_grads(lambda x: tf.concat(list(tf.nn.moments(x, axes=[0])), axis=0), [normal((4, 3))],
                order=1)
