"""keras.losses: Keras's documented examples, reductions, closed-form gradients and finite
differences (first and second order)."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads

losses = tf.keras.losses
PROBS = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
ONE_HOT = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# -- the numbers of Keras's documentation ------------------------------------------------

@pytest.mark.parametrize("reduction, sample_weight, expected", [
    ("sum_over_batch_size", None, 0.5), ("sum_over_batch_size", [0.7, 0.3], 0.25),
    ("sum", None, 1.0), ("none", None, [0.5, 0.5]), (None, None, [0.5, 0.5])])
def test_mean_squared_error_as_documented(reduction, sample_weight, expected):
    mse = losses.MeanSquaredError(reduction=reduction)
    got = mse([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]], sample_weight=sample_weight)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("loss, labels", [(losses.CategoricalCrossentropy, ONE_HOT),
                                          (losses.SparseCategoricalCrossentropy, [1, 2])],
                         ids=["categorical", "sparse"])
@pytest.mark.parametrize("reduction, sample_weight, expected", [
    ("sum_over_batch_size", None, 1.177), ("sum_over_batch_size", [0.3, 0.7], 0.814),
    ("sum", None, 2.354), ("none", None, [0.0513, 2.303])])
def test_crossentropy_from_probabilities_as_documented(loss, labels, reduction, sample_weight,
                                                       expected):
    got = loss(reduction=reduction)(labels, PROBS, sample_weight=sample_weight)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-3)


def test_mean_with_sample_weight_divides_by_the_weights():
    got = losses.MeanSquaredError(reduction="mean_with_sample_weight")(
        [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]], sample_weight=[0.7, 0.3])
    np.testing.assert_allclose(got.numpy(), (0.5 * 0.7 + 0.5 * 0.3) / 1.0, rtol=1e-6)


def test_function_forms_give_one_loss_per_example():
    np.testing.assert_allclose(losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]]).numpy(),
                               [0.5])
    assert losses.MSE is losses.mean_squared_error is losses.mse
    np.testing.assert_allclose(losses.categorical_crossentropy(ONE_HOT, PROBS).numpy(),
                               [0.0513, 2.303], rtol=1e-3)
    np.testing.assert_allclose(losses.sparse_categorical_crossentropy([[1], [2]], PROBS).numpy(),
                               [0.0513, 2.303], rtol=1e-3)


# -- from logits: the fused ops and their closed forms -----------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_crossentropies_from_logits_have_gradient_p_minus_labels_over_n(dtype):
    x = normal((4, 3))
    labels = np.array([2, 0, 1, 1])
    one_hot = np.eye(3)[labels]
    for loss, y in [(losses.CategoricalCrossentropy(from_logits=True, dtype=dtype), one_hot),
                    (losses.SparseCategoricalCrossentropy(from_logits=True, dtype=dtype), labels)]:
        logits = tf.constant(x.astype(dtype))
        with tf.GradientTape() as tape:
            tape.watch(logits)
            value = loss(y, logits)
        g = tape.gradient(value, logits)
        tol = 1e-6 if dtype == "float32" else 1e-12
        assert value.dtype == tf.as_dtype(dtype) and g.dtype == tf.as_dtype(dtype)
        np.testing.assert_allclose(value.numpy(), -np.log(softmax(x)[range(4), labels]).mean(),
                                   rtol=tol)
        np.testing.assert_allclose(g.numpy(), (softmax(x) - one_hot) / 4, rtol=tol, atol=tol)


def test_categorical_crossentropy_from_logits_records_tfs_fused_op():
    logits = tf.constant(normal((2, 3)))
    with tf.GradientTape() as tape:
        tape.watch(logits)
        per_example = losses.categorical_crossentropy(ONE_HOT, logits, from_logits=True)
        sparse = losses.sparse_categorical_crossentropy([1, 2], logits, from_logits=True)
    assert per_example.op.type == "SoftmaxCrossEntropyWithLogits"
    assert sparse.op.type == "SparseSoftmaxCrossEntropyWithLogits"


def test_label_smoothing_mixes_in_the_uniform_distribution():
    x = normal((2, 3))
    got = losses.categorical_crossentropy(ONE_HOT, x, from_logits=True, label_smoothing=0.3)
    smoothed = np.array(ONE_HOT) * 0.7 + 0.1
    np.testing.assert_allclose(got.numpy(), -(smoothed * np.log(softmax(x))).sum(-1), rtol=1e-6)


# -- finite differences --------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
def test_mean_squared_error_gradients(reduction):
    mse = losses.MeanSquaredError(reduction=reduction, dtype="float64")
    check_grads(lambda t, p: mse(t, p, sample_weight=[0.5, 2.0, 1.0]),
                [normal((3, 2)), normal((3, 2), 1)], order=2)


def test_categorical_crossentropy_gradients():
    probs = softmax(normal((3, 4), 2))
    labels = softmax(normal((3, 4), 3))
    logits_loss = losses.CategoricalCrossentropy(from_logits=True, dtype="float64")
    # Second order in the logits alone: TF's softmax_cross_entropy_with_logits gives the
    # logits' gradient a zero derivative in the labels (test_ops_cross_entropy's
    # test_softmax_xent_mixed_second_derivative_is_tfs_zero), not the finite-difference one.
    check_grads(lambda t, p: logits_loss(t, p), [labels, normal((3, 4))], order=1)
    check_grads(lambda p: logits_loss(tf.constant(labels), p), [normal((3, 4))], order=2)
    probs_loss = losses.CategoricalCrossentropy(dtype="float64")
    check_grads(lambda t, p: probs_loss(t, p), [labels, probs], order=2)


def test_sparse_categorical_crossentropy_gradients():
    logits_loss = losses.SparseCategoricalCrossentropy(from_logits=True, dtype="float64")
    check_grads(lambda p: logits_loss([3, 0, 1], p), [normal((3, 4))], order=2)
    probs_loss = losses.SparseCategoricalCrossentropy(dtype="float64")
    check_grads(lambda p: probs_loss([3, 0, 1], p), [softmax(normal((3, 4), 4))], order=2)


# -- errors ------------------------------------------------------------------------------

def test_losses_refuse_bad_input_in_words():
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        losses.MeanSquaredError(reduction="average")
    with pytest.raises(ValueError, match=r"must have the same shape\. Received: "
                                         r"target\.shape=\(2, 2\), output\.shape=\(2, 3\)"):
        losses.CategoricalCrossentropy()([[0.0, 1.0], [1.0, 0.0]], PROBS)
    with pytest.raises(ValueError, match="label value of 3 which is outside the valid range"):
        losses.SparseCategoricalCrossentropy()([1, 3], PROBS)
    with pytest.raises(ValueError, match="whole numbers"):
        losses.SparseCategoricalCrossentropy()([1.5, 2.0], PROBS)
    with pytest.raises(ValueError, match="broadcastable shapes"):
        losses.MeanSquaredError()([[1.0, 2.0, 3.0]], [[1.0, 2.0]])
