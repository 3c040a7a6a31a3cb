"""keras.layers.Dense and BatchNormalization: building, variables, values, and gradients
with respect to inputs and weights against finite differences."""
import contextlib

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads

Dense = tf.keras.layers.Dense
BatchNormalization = tf.keras.layers.BatchNormalization


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@contextlib.contextmanager
def swapped(layer, **weights):
    """The layer with some variables replaced by given tensors, restored afterwards."""
    saved = {name: getattr(layer, name) for name in weights}
    for name, value in weights.items():
        setattr(layer, name, value)
    try:
        yield layer
    finally:
        for name, value in saved.items():
            setattr(layer, name, value)


def as_function_of(layer, names, **call_kwargs):
    """f(x, *weights) = layer(x) with the named variables replaced by the arguments."""
    def f(x, *values):
        with swapped(layer, **dict(zip(names, values))):
            return layer(x, **call_kwargs)
    return f


# -- Dense -------------------------------------------------------------------------------

def test_dense_builds_lazily_from_the_last_input_dimension():
    layer = Dense(4)
    assert not layer.built and layer.weights == [] and layer.kernel is None
    y = layer(tf.ones((3, 5)))
    assert layer.built and y.shape == (3, 4) and y.dtype == tf.float32
    assert layer.kernel.shape == (5, 4) and layer.bias.shape == (4,)
    assert layer.weights == layer.variables == [layer.kernel, layer.bias]
    assert layer.trainable_variables == layer.trainable_weights == [layer.kernel, layer.bias]
    assert layer.non_trainable_variables == []
    layer(tf.ones((2, 5)))
    assert len(layer.weights) == 2  # built once


def test_dense_glorot_uniform_kernel_and_zero_bias():
    fan_in, fan_out = 30, 50
    layer = Dense(fan_out)
    layer(tf.ones((1, fan_in)))
    w = layer.kernel.numpy()
    limit = np.sqrt(6 / (fan_in + fan_out))
    assert np.abs(w).max() <= limit
    assert np.abs(w).max() > 0.9 * limit          # spread over the whole range ...
    assert abs(w.mean()) < 0.05 and 0.5 < w.std() / limit < 0.66  # ... uniformly (std = limit/√3)
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(fan_out))
    assert layer.kernel.dtype == layer.bias.dtype == tf.float32


def test_dense_initializers_by_name_and_by_function():
    layer = Dense(2, kernel_initializer="ones", bias_initializer=lambda shape, dtype: np.full(shape, 0.5, dtype))
    y = layer(tf.constant([[1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(y.numpy(), [[6.5, 6.5]])


def test_dense_rejects_unknown_arguments():
    with pytest.raises(TypeError, match="not understood"):
        Dense(3, kernel_regulariser="l2")
    with pytest.raises(ValueError, match="activation"):
        Dense(3, activation="swishy")
    with pytest.raises(ValueError, match="initializer"):
        Dense(3, kernel_initializer="lecun_sideways")


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


ACTIVATIONS = {
    None: lambda z: z, "linear": lambda z: z, "relu": lambda z: np.maximum(z, 0),
    "elu": lambda z: np.where(z > 0, z, np.expm1(z)), "sigmoid": _sigmoid, "tanh": np.tanh,
    "softmax": _softmax, "softplus": lambda z: np.log1p(np.exp(z)),
}


@pytest.mark.parametrize("activation", list(ACTIVATIONS), ids=[str(a) for a in ACTIVATIONS])
def test_dense_activation_strings(activation):
    layer = Dense(3, activation=activation, bias_initializer=lambda s, d: np.linspace(-1, 1, 3).astype(d))
    x = normal((4, 2)).astype(np.float32)
    y = layer(x).numpy()
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(y, ACTIVATIONS[activation](z), rtol=1e-5, atol=1e-6)


def test_dense_activation_as_a_function():
    layer = Dense(3, activation=tf.nn.relu)
    x = normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(layer(x).numpy(), np.maximum(x @ layer.kernel.numpy(), 0), rtol=1e-6)


def test_dense_without_bias():
    layer = Dense(3, use_bias=False)
    layer(tf.ones((1, 2)))
    assert layer.bias is None and layer.weights == [layer.kernel]


def test_dense_on_a_3d_input():
    layer = Dense(3)
    x = normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(layer(x).numpy(), x @ layer.kernel.numpy(), rtol=1e-5, atol=1e-6)


def test_float64_inputs_are_cast_to_the_layer_dtype_and_back_in_the_gradient():
    layer = Dense(3)
    x = tf.constant(normal((4, 2)), dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
    assert y.dtype == tf.float32
    g = tape.gradient(y, x)
    assert g.dtype == tf.float64
    np.testing.assert_allclose(g.numpy(), np.tile(layer.kernel.numpy().sum(axis=1), (4, 1)), rtol=1e-6)


def test_integer_inputs_are_cast_too():
    layer = Dense(2, kernel_initializer="ones")
    np.testing.assert_array_equal(layer(tf.constant([[1, 2]])).numpy(), [[3.0, 3.0]])


def test_dense_weight_gradients_on_the_tape():
    """For y = x W + b: d Σy / dW = (Σ_rows x) 1ᵀ and d Σy / db = number of rows."""
    layer = Dense(3)
    x = tf.constant(normal((4, 2)), dtype=tf.float32)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    gw, gb = tape.gradient(y, layer.trainable_variables)
    np.testing.assert_allclose(gw.numpy(), np.tile(x.numpy().sum(axis=0)[:, None], (1, 3)), rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), [4, 4, 4])


def test_a_frozen_layer_is_not_watched():
    layer = Dense(3, trainable=False)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(tf.ones((1, 2))))
    assert layer.trainable_variables == [] and len(layer.non_trainable_variables) == 2
    assert tape.watched_variables() == ()


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "elu", "softplus", "softmax", "relu", None])
def test_dense_gradients_by_finite_differences(activation):
    layer = Dense(3, activation=activation, dtype="float64",
                  kernel_initializer=lambda s, d: normal(s, 6).astype(d),
                  bias_initializer=lambda s, d: np.array([0.3, -0.2, 0.1], d))
    x = normal((4, 2), 1)
    layer(x)
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    assert np.abs(z).min() > 0.1  # no relu kink within reach of the differences
    check_grads(layer, [x], order=2)
    f = as_function_of(layer, ["kernel", "bias"])
    check_grads(f, [x, layer.kernel.numpy(), layer.bias.numpy()], order=2)


def test_dense_variable_gradients_match_the_swapped_function():
    layer = Dense(3, activation="tanh", dtype="float64")
    x = tf.constant(normal((4, 2), 2))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x) ** 2)
    gw, gb = tape.gradient(y, [layer.kernel, layer.bias])
    f = as_function_of(layer, ["kernel", "bias"])
    kernel, bias = tf.constant(layer.kernel.numpy()), tf.constant(layer.bias.numpy())
    with tf.GradientTape() as tape:
        tape.watch([kernel, bias])
        y2 = tf.reduce_sum(f(x, kernel, bias) ** 2)
    ew, eb = tape.gradient(y2, [kernel, bias])
    np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), eb.numpy(), rtol=1e-12)


# -- BatchNormalization ------------------------------------------------------------------

def test_batch_norm_variables():
    bn = BatchNormalization()
    bn(tf.ones((2, 3)))
    assert [v.shape for v in bn.weights] == [(3,)] * 4
    assert bn.trainable_variables == [bn.gamma, bn.beta]
    assert bn.non_trainable_variables == [bn.moving_mean, bn.moving_variance]
    np.testing.assert_array_equal(bn.gamma.numpy(), 1)
    np.testing.assert_array_equal(bn.beta.numpy(), 0)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), 0)
    np.testing.assert_array_equal(bn.moving_variance.numpy(), 1)


def test_batch_norm_training_normalises_and_updates_the_moving_statistics():
    bn = BatchNormalization(momentum=0.9, epsilon=1e-3)
    x = (5 + 3 * normal((256, 4))).astype(np.float32)
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-5)
    var = x.astype(np.float64).var(axis=0)
    np.testing.assert_allclose(y.var(axis=0), var / (var + 1e-3), rtol=1e-4)
    np.testing.assert_allclose(y.var(axis=0), 1, rtol=1e-3)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * x.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    bn(x, training=True)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.19 * x.mean(axis=0), rtol=1e-5)


def test_batch_norm_inference_uses_the_moving_statistics():
    bn = BatchNormalization(epsilon=1e-3)
    x = normal((5, 3)).astype(np.float32)
    bn(x)  # build
    bn.moving_mean.assign([1.0, -2.0, 0.5])
    bn.moving_variance.assign([4.0, 0.25, 1.0])
    bn.gamma.assign([2.0, 1.0, 0.5])
    bn.beta.assign([0.0, 1.0, -1.0])
    expected = (x - [1.0, -2.0, 0.5]) / np.sqrt(np.array([4.0, 0.25, 1.0]) + 1e-3) * [2.0, 1.0, 0.5] \
        + [0.0, 1.0, -1.0]
    for training in (False, None):
        np.testing.assert_allclose(bn(x, training=training).numpy(), expected, rtol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [1.0, -2.0, 0.5])  # untouched


def test_batch_norm_without_scale_and_center():
    bn = BatchNormalization(scale=False, center=False)
    y = bn(normal((6, 2)), training=True).numpy()
    assert bn.trainable_variables == []
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-6)


def test_batch_norm_rejects_another_axis():
    with pytest.raises(ValueError):
        BatchNormalization(axis=0)(tf.ones((2, 3)))


@pytest.mark.parametrize("shape", [(6, 3), (2, 3, 2)], ids=["rows", "3d"])
def test_batch_norm_training_gradients_by_finite_differences(shape):
    bn = BatchNormalization(dtype="float64")
    x = 2 + normal(shape, 1)
    bn(x)
    f = as_function_of(bn, ["gamma", "beta"], training=True)
    c = shape[-1]
    check_grads(f, [x, 1 + 0.3 * normal((c,), 2), normal((c,), 3)], order=2)


def test_batch_norm_inference_gradients_by_finite_differences():
    bn = BatchNormalization(dtype="float64")
    x = normal((4, 3), 1)
    bn(x)
    f = as_function_of(bn, ["gamma", "beta", "moving_mean", "moving_variance"], training=False)
    check_grads(f, [x, 1 + 0.3 * normal((3,), 2), normal((3,), 3), normal((3,), 4),
                    0.5 + np.abs(normal((3,), 5))], order=2)


def test_dense_then_batch_norm_weight_gradients():
    dense = Dense(3, activation="elu", dtype="float64",
                  kernel_initializer=lambda s, d: normal(s, 6).astype(d))
    bn = BatchNormalization(dtype="float64")
    x = normal((5, 2), 1)
    bn(dense(x))

    def f(kernel, gamma):
        with swapped(dense, kernel=kernel), swapped(bn, gamma=gamma):
            return bn(dense(x), training=True)
    check_grads(f, [dense.kernel.numpy(), 1 + 0.3 * normal((3,), 2)], order=2)


def test_batch_norm_variable_gradients_on_the_tape_match_the_swapped_function():
    bn = BatchNormalization(dtype="float64")
    x = tf.constant(2 + normal((6, 3), 1))
    bn(x)
    bn.gamma.assign([1.5, 0.5, 1.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(bn(x, training=True)))
    assert tape.watched_variables() == (bn.gamma, bn.beta)  # not the moving statistics
    g_gamma, g_beta = tape.gradient(y, bn.trainable_variables)
    f = as_function_of(bn, ["gamma", "beta"], training=True)
    gamma, beta = tf.constant(bn.gamma.numpy()), tf.constant(bn.beta.numpy())
    with tf.GradientTape() as tape:
        tape.watch([gamma, beta])
        y2 = tf.reduce_sum(tf.sin(f(x, gamma, beta)))
    e_gamma, e_beta = tape.gradient(y2, [gamma, beta])
    np.testing.assert_allclose(g_gamma.numpy(), e_gamma.numpy(), rtol=1e-12)
    np.testing.assert_allclose(g_beta.numpy(), e_beta.numpy(), rtol=1e-12)


def test_an_explicit_build_is_not_repeated_by_the_first_call():
    import gradviz as tf
    layer = tf.keras.layers.Dense(3)
    layer.build((2, 4))
    kernel = layer.kernel
    kernel.assign(np.ones((4, 3), np.float32))
    y = layer(tf.ones((2, 4)))
    assert layer.kernel is kernel
    np.testing.assert_allclose(y.numpy(), np.full((2, 3), 4.0))
