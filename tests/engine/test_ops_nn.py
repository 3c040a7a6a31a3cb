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
    check_grads(lambda x: tf.concat(list(tf.nn.moments(x, axes=[0])), axis=0), [normal((4, 3))],
                order=2)
