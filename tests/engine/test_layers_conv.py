"""keras.layers.Conv2D and Flatten: building (lazily and by build(input_shape)), Keras 3's
conventions, values against tf.nn.conv2d, glorot fans, gradients against finite
differences, and errors."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads

Conv2D = tf.keras.layers.Conv2D
Flatten = tf.keras.layers.Flatten


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_conv2d_builds_lazily_from_the_channels():
    layer = Conv2D(4, 3)
    assert not layer.built and layer.weights == [] and layer.kernel is None
    y = layer(tf.ones((2, 6, 6, 3)))
    assert layer.built and y.shape == (2, 4, 4, 4) and y.dtype == tf.float32
    assert layer.kernel.shape == (3, 3, 3, 4) and layer.bias.shape == (4,)
    assert layer.weights == [layer.kernel, layer.bias]
    assert not layer.bias.numpy().any()


def test_build_marks_built_and_a_later_call_keeps_assigned_weights():
    layer = Conv2D(2, (2, 3), padding="same", activation="relu", dtype="float64")
    layer.build((None, 5, 5, 3))
    assert layer.built and layer.kernel.shape == (2, 3, 3, 2) and layer.kernel.dtype == tf.float64
    kernel, bias = normal((2, 3, 3, 2), 1), normal((2,), 2)
    layer.kernel.assign(kernel)
    layer.set_weights([kernel, bias])
    x = normal((1, 5, 5, 3), 3)
    y = layer(x)
    expected = np.maximum(tf.nn.conv2d(x, kernel, 1, "SAME").numpy() + bias, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    assert [w.shape for w in layer.get_weights()] == [(2, 3, 3, 2), (2,)]
    np.testing.assert_array_equal(layer.get_weights()[1], bias)


def test_strides_dilation_and_no_bias():
    layer = Conv2D(3, 3, strides=2, use_bias=False, dtype="float64")
    x = normal((2, 7, 7, 2))
    y = layer(x)
    assert layer.weights == [layer.kernel] and layer.bias is None
    np.testing.assert_allclose(y.numpy(), tf.nn.conv2d(x, layer.kernel, 2, "VALID").numpy())
    dilated = Conv2D(1, 2, dilation_rate=(2, 1), dtype="float64")
    y = dilated(x)
    np.testing.assert_allclose(
        y.numpy(), tf.nn.conv2d(x, dilated.kernel, 1, "VALID", dilations=[2, 1]).numpy()
        + dilated.bias.numpy())


def test_glorot_counts_the_receptive_field_as_keras():
    # fan_in = 3·3·8 = 72, fan_out = 3·3·16 = 144: limit √(6/216) ≈ 0.1667
    layer = Conv2D(16, 3)
    layer.build((1, 28, 28, 8))
    k = layer.kernel.numpy()
    limit = np.sqrt(6 / (72 + 144))
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.9 * limit


def test_gradients_with_respect_to_input_and_weights():
    layer = Conv2D(2, 2, strides=(1, 2), padding="same", activation="tanh", dtype="float64")
    layer.build((1, 4, 5, 2))

    def f(x, kernel, bias):
        saved = layer.kernel, layer.bias
        layer.kernel, layer.bias = kernel, bias
        try:
            return layer(x)
        finally:
            layer.kernel, layer.bias = saved
    check_grads(f, [normal((1, 4, 5, 2), 1), normal((2, 2, 2, 2), 2), normal((2,), 3)], order=2)


def test_the_layer_records_conv2d_then_bias():
    layer = Conv2D(2, 2, name="c")
    x = tf.constant(normal((1, 3, 3, 1)).astype(np.float32))
    with tf.GradientTape() as tape:
        y = layer(x)
    assert [op.type for op in tape._entries] == ["Conv2D", "AddV2"]
    assert layer.kernel.name.startswith("c/kernel") and layer.bias.name.startswith("c/bias")
    gk, gb = tape.gradient(y, [layer.kernel, layer.bias])
    assert gk.shape == (2, 2, 1, 2) and gb.numpy().tolist() == [4.0, 4.0]


@pytest.mark.parametrize("make, message", [
    (lambda: Conv2D(2, 3, padding="full"), 'The `padding` argument must be one of "valid"'),
    (lambda: Conv2D(0, 3), "Expected a strictly positive value"),
    (lambda: Conv2D(2, (3, 3, 3)), "The `kernel_size` argument must be a tuple of 2"),
    (lambda: Conv2D(2, 3, strides=2, dilation_rate=2), "`strides > 1` not supported"),
    (lambda: Conv2D(2, 3)(np.ones((4, 4, 1))), "expected ndim=4"),
    (lambda: Conv2D(2, 3)(np.ones((1, 2, 2, 1))), "larger than the padded input (2)"),
    (lambda: Conv2D(2, 3).set_weights([np.ones(2)]), "expecting 0 weights"),
])
def test_bad_input_gets_a_clear_message(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert message in str(info.value)


def test_set_weights_checks_shapes():
    layer = Conv2D(2, 3)
    layer.build((1, 5, 5, 1))
    with pytest.raises(ValueError, match=r"weight shape \(3, 3, 1, 2\) is not compatible"):
        layer.set_weights([np.ones((3, 3, 2, 2)), np.ones(2)])


# -- Flatten -------------------------------------------------------------------------------

def test_flatten_keeps_the_batch_axis_and_records_one_reshape():
    x = tf.constant(normal((2, 3, 4, 5)).astype(np.float32))
    layer = Flatten()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
    assert y.shape == (2, 60) and layer.built and layer.weights == [] and layer.get_weights() == []
    np.testing.assert_array_equal(y.numpy(), x.numpy().reshape(2, 60))
    assert y.op.type == "Reshape"
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.ones((2, 3, 4, 5)))
    assert Flatten()(tf.ones((3,))).shape == (3, 1)
    assert Flatten()(tf.constant(np.ones((2, 2), np.int32))).dtype == tf.int32


def test_conv_pool_flatten_dense_network_gradients():
    conv_layer = Conv2D(2, 3, padding="same", activation="relu", dtype="float64")
    dense = tf.keras.layers.Dense(3, dtype="float64")
    conv_layer.build((2, 4, 4, 1))
    dense.build((2, 8))

    def f(x):
        h = tf.nn.max_pool2d(conv_layer(x), 2, 2, "VALID")
        return dense(Flatten(dtype="float64")(h))
    check_grads(f, [normal((2, 4, 4, 1), 5)], order=2)
