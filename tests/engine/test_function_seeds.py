"""The seeds' examples (test_seeds.py) as functions of their inputs: decorated with
tf.function they give the numbers the undecorated functions give, at the tracing call
and at the compiled replays after it (float32 to 1e-5)."""
import warnings

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.function import FunctionFallbackWarning


def seed004_matmul(t, b):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(t)
        y = tf.matmul(t, b)
        y0 = y[0, 0]
    return tape.gradient(y, t), tape.gradient(y0, t)


def seed002_output_gradients(x, w):
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = tf.matmul(x, w)
    return tape.gradient(y, w, output_gradients=tf.ones_like(y) * 0.5)


def seed001_stop_recording(x, y):
    with tf.GradientTape() as t:
        t.watch([x, y])
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    return t.gradient(z, {"x": x, "y": y})


def seed001_stop_gradient_and_reset(x, y):
    with tf.GradientTape() as t:
        t.watch([x, y])
        y_sq = y * y
        t.reset()
        t.watch(x)
        z = x ** 2 + tf.stop_gradient(y_sq)
    return t.gradient(z, [x, y])


@tf.custom_gradient
def _clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward


def seed001_custom_gradient(v):
    with tf.GradientTape() as t:
        t.watch(v)
        output = _clip_gradients(v * v)
    return output, t.gradient(output, v)


def seed001_multiple_tapes(x0, x1):
    with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        ys = tf.reduce_sum(tf.math.sin(x0) + tf.nn.sigmoid(x1))
    return tape0.gradient(ys, x0), tape1.gradient(ys, x1)


def seed001_higher_order(x):
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    return dy_dx, t2.gradient(dy_dx, x)


LAYER = tf.keras.layers.Dense(10, activation=tf.nn.relu)
LAYER(tf.zeros([7, 5]))
LAYER1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
LAYER2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)
LAYER2(LAYER1(tf.zeros([7, 5])))
TANH_LAYER = tf.keras.layers.Dense(4, activation=tf.nn.tanh)
TANH_LAYER(tf.zeros([7, 5]))


def seed001_input_gradient_regularization(x):
    with tf.GradientTape() as t2:
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            out = tf.reduce_sum(LAYER(x) ** 2)
        g1_mag = tf.norm(t1.gradient(out, x))
    return g1_mag, t2.gradient(g1_mag, LAYER.trainable_variables)


def seed001_jacobians(x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = LAYER(x)
    return tape.jacobian(y, LAYER.kernel), tape.gradient(y, LAYER.kernel), tape.jacobian(y, x)


def seed001_hessian(x):
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            loss = tf.reduce_mean(LAYER2(LAYER1(x)) ** 2)
        g = t1.gradient(loss, LAYER1.kernel)
    h = t2.jacobian(g, LAYER1.kernel)
    n = 40
    return tf.linalg.solve(tf.reshape(h, [n, n]) + tf.eye(n) * 1e-3, tf.reshape(g, [n, 1]))


def seed001_batch_jacobian(x):
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = LAYER2(LAYER1(x))
    return tape.batch_jacobian(y, x), tape.jacobian(y, x)


def seed000_hessian_over_weights(x):
    with tf.GradientTape() as tape1:
        with tf.GradientTape() as tape2:
            loss = tf.reduce_mean(TANH_LAYER(x) ** 2)
        first = tape2.gradient(loss, TANH_LAYER.trainable_weights)
    return tape1.jacobian(first, TANH_LAYER.trainable_weights)


def _inputs(example, rng):
    normal = lambda *shape: tf.constant(rng.normal(size=shape).astype(np.float32))  # noqa: E731
    return {
        seed004_matmul: lambda: (normal(5, 3), normal(3, 3)),
        seed002_output_gradients: lambda: (normal(4, 3), normal(3, 2)),
        seed001_stop_recording: lambda: (normal(), normal()),
        seed001_stop_gradient_and_reset: lambda: (normal(), normal()),
        seed001_custom_gradient: lambda: (normal(),),
        seed001_multiple_tapes: lambda: (normal(), normal()),
        seed001_higher_order: lambda: (normal(),),
    }.get(example, lambda: (normal(7, 5),))()


EXAMPLES = [seed004_matmul, seed002_output_gradients, seed001_stop_recording,
            seed001_stop_gradient_and_reset, seed001_custom_gradient, seed001_multiple_tapes,
            seed001_higher_order, seed001_input_gradient_regularization, seed001_jacobians,
            seed001_hessian, seed001_batch_jacobian, seed000_hessian_over_weights]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda f: f.__name__)
def test_seed_examples_compile_to_the_same_numbers(example):
    rng = np.random.default_rng(4)
    compiled = tf.function(example)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionFallbackWarning)  # each one compiles
        for _ in range(3):
            args = _inputs(example, rng)
            expected, got = example(*args), compiled(*args)
            flat_expected, flat_got = tf.nest.flatten(expected), tf.nest.flatten(got)
            assert len(flat_got) == len(flat_expected)
            for e, g in zip(flat_expected, flat_got):
                if e is None:
                    assert g is None
                    continue
                assert g.shape == e.shape and g.dtype == e.dtype
                np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    assert compiled.experimental_get_tracing_count() == 1
