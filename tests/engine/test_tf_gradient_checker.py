"""TensorFlow's tensorflow/python/ops/gradient_checker_v2_test.py, ported to
gradviz.test.compute_gradient (TF's tf.test.compute_gradient) and max_error.

Left out, and why: testSparseTensorReshape (SparseTensor), testBfloat16 (gradviz has
no bfloat16), testComplexMul and testComplexConj (no complex dtypes). MiniMNISTTest
writes softmax_cross_entropy_with_logits as -Σ labels · log_softmax(logits) (the same
cost, written before the op reached gradviz) and xw_plus_b as x @ w + b.

testEmptyFails: TF's tape passes a custom gradient of the wrong shape on and the
checker reports "Empty gradient has wrong shape"; gradviz's tape already refuses it
("a gradient rule returned the wrong shape"), so the test checks for that ValueError.
"""
import numpy as np
import pytest

import gradviz as tf

compute_gradient, max_error = tf.test.compute_gradient, tf.test.max_error


def test_with_static_shape():
    """testWithStaticShape."""
    constant = tf.constant(2.0, shape=(2, 3), name="const")

    def add_constant_with_static_shape_check(x):
        assert x.shape.as_list() == constant.shape.as_list()
        return x + constant

    x = tf.constant(3.0, shape=(2, 3), name="x")
    assert max_error(*compute_gradient(add_constant_with_static_shape_check, [x])) < 1e-4


@pytest.mark.parametrize("pack", [tuple, list], ids=["WithArgumentsAsTuple", "AddSimple"])
def test_add_simple(pack):
    """testWithArgumentsAsTuple, testAddSimple."""
    x1 = tf.constant(2.0, shape=(2, 3), name="x1")
    x2 = tf.constant(3.0, shape=(2, 3), name="x2")
    theoretical, numerical = compute_gradient(lambda x1: tf.add(x1, x2), pack([x1]))
    assert max_error(theoretical, numerical) < 1e-4
    np.testing.assert_array_equal(theoretical[0], np.eye(6))


def test_add_customized():
    """testAddCustomized."""
    x1 = tf.constant(2.0, shape=(2, 3), dtype=tf.float64, name="x1")
    x2 = np.asarray(np.arange(6, dtype=np.float64).reshape(2, 3))
    error = max_error(*compute_gradient(lambda x2: tf.add(x1, x2), [x2], delta=1e-2))
    assert error < 1e-10


@pytest.mark.parametrize("nested", [False, True], ids=["Gather", "NestedGather"])
def test_gather(nested):
    """testGather, testNestedGather."""
    def f(params):
        if not nested:
            return tf.gather(params, tf.constant([1, 3], name="i"), name="y")
        y = tf.gather(params, tf.constant([1, 3, 5, 6], name="i"), name="y")
        return tf.gather(y, tf.constant([0, 2], name="i2"), name="y2")

    shape = (8, 2) if nested else (4, 2)
    params = tf.constant(np.arange(16 if nested else 8).astype(np.float64), shape=shape)
    theoretical, numerical = compute_gradient(f, [params])
    assert max_error(theoretical, numerical) < 1e-4
    rows = [1, 5] if nested else [1, 3]  # y2 = params[[1, 3, 5, 6]][[0, 2]]
    expected = np.zeros((4, params.size))
    for i, r in enumerate(rows):
        expected[2 * i:2 * i + 2, 2 * r:2 * r + 2] = np.eye(2)
    np.testing.assert_array_equal(theoretical[0], expected)


def test_empty_succeeds():
    """testEmptySucceeds."""
    x = tf.constant(np.random.random_sample((0, 3)), dtype=tf.float32)
    for grad in compute_gradient(tf.identity, [x]):
        assert grad[0].shape == (0, 0)
    assert max_error(*compute_gradient(tf.identity, [x])) == 0


def test_empty_matmul():
    """testEmptyMatMul."""
    x = tf.constant(np.random.random_sample((0, 3)), dtype=tf.float32)
    y = tf.constant(np.random.random_sample((3, 4)), dtype=tf.float32)
    for grad in compute_gradient(tf.matmul, [x, y]):
        assert grad[0].shape == (0, 0)
        assert grad[1].shape == (0, 12)
    assert max_error(*compute_gradient(tf.matmul, [x, y])) == 0


def test_empty_fails():
    """testEmptyFails (see the module docstring for the message)."""
    @tf.custom_gradient
    def id_bad_grad(x):
        return tf.identity(x), lambda dy: tf.transpose(dy)

    x = tf.constant(np.random.random_sample((0, 3)), dtype=tf.float32)
    with pytest.raises(ValueError, match=r"wrong shape"):
        compute_gradient(id_bad_grad, [x])


def test_nan_grad_fails():
    """testNaNGradFails."""
    @tf.custom_gradient
    def id_nan_grad(x):
        return tf.identity(x), lambda dy: np.nan * dy

    x = tf.constant(np.random.random_sample((1, 1)), dtype=tf.float32)
    assert np.isnan(max_error(*compute_gradient(id_nan_grad, [x])))


def test_grad_grad():
    """testGradGrad."""
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.square(x)
            z = tf.square(y)
        return tape.gradient(z, x)

    analytical, numerical = compute_gradient(f, [2.0])
    np.testing.assert_array_equal(analytical, [[[48.0]]])
    np.testing.assert_allclose(numerical, [[[48.0]]], rtol=1e-4)


def test_x_must_be_a_list_or_tuple():
    """compute_gradient's own argument check, in TF's words."""
    with pytest.raises(ValueError, match="`x` must be a list or tuple"):
        compute_gradient(tf.identity, tf.constant(1.0))


# -- MiniMNISTTest --------------------------------------------------------------------------

def _mini_mnist_error(param_index):
    rng = np.random.RandomState(6)
    batch, inputs, features, classes = 3, 16, 32, 10
    inp_data = rng.random_sample(inputs * batch)
    hidden_weight_data = rng.randn(inputs * features) / np.sqrt(inputs)
    hidden_bias_data = rng.random_sample(features)
    sm_weight_data = rng.randn(features * classes) / np.sqrt(features)
    sm_bias_data = rng.random_sample(classes)
    label_data = rng.random(batch * classes).reshape((batch, classes))
    label_data /= label_data.sum(axis=1)[:, None]

    def const(data, shape):
        return tf.constant(data.tolist(), shape=shape, dtype=tf.float64)

    all_params = [const(inp_data, [batch, inputs]), const(hidden_weight_data, [inputs, features]),
                  const(hidden_bias_data, [features]), const(sm_weight_data, [features, classes]),
                  const(sm_bias_data, [classes])]

    def f(inp, hidden_weight, hidden_bias, softmax_weight, softmax_bias):
        features = tf.nn.relu(inp @ hidden_weight + hidden_bias)
        logits = features @ softmax_weight + softmax_bias
        labels = const(label_data, [batch, classes])
        return -tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=1)

    def f_restricted(x):
        xs = all_params[:param_index] + [x] + all_params[param_index + 1:]
        return f(*xs)

    return max_error(*compute_gradient(f_restricted, [all_params[param_index]], delta=1e-5))


@pytest.mark.parametrize("index", range(5), ids=["InputGradient", "HiddenWeightGradient",
                                                 "HiddenBiasGradient", "SoftmaxWeightGradient",
                                                 "SoftmaxBiasGradient"])
def test_mini_mnist(index):
    """MiniMNISTTest.testInputGradient, testHiddenWeightGradient, testHiddenBiasGradient,
    testSoftmaxWeightGradient, testSoftmaxBiasGradient."""
    assert _mini_mnist_error(index) < 1e-8
