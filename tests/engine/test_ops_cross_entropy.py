"""Softmax cross-entropy (dense and sparse labels) and argmax/argmin: values against
closed forms, gradients against finite differences (first and second order), TF's
errors and op type names."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads
from gradviz.engine.registry import get_op


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def distribution(shape, seed=1):
    e = np.exp(normal(shape, seed))
    return e / e.sum(axis=-1, keepdims=True)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def xent(labels, logits):
    return tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)


# -- dense labels: finite differences ----------------------------------------------------

def check_logits_and_labels(f, logits, labels, order=2):
    """f(logits, labels) to first order in both, and to `order` in the logits alone: TF's
    second derivative of grad_logits in the labels is 0, not the finite-difference −grad
    (test_softmax_xent_mixed_second_derivative_is_tfs_zero states TF's)."""
    check_grads(f, [logits, labels], order=1)
    check_grads(lambda x: f(x, tf.constant(labels)), [logits], order=order)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4)], ids=["row", "matrix", "3d"])
def test_softmax_xent_gradients_in_logits_and_labels(shape):
    check_logits_and_labels(lambda x, y: xent(y, x), normal(shape), distribution(shape))


def test_softmax_xent_along_another_axis():
    check_logits_and_labels(lambda x, y: tf.nn.softmax_cross_entropy_with_logits(y, x, axis=0),
                            normal((3, 2)), distribution((2, 3)).T.copy())


@pytest.mark.parametrize("labels_shape", [(1, 3), (3,)], ids=["row-of-1", "lower-rank"])
def test_softmax_xent_broadcasts_labels(labels_shape):
    check_logits_and_labels(lambda x, y: xent(y, x), normal((2, 3)), distribution(labels_shape))


def test_softmax_xent_third_order_through_a_nonlinearity():
    check_logits_and_labels(lambda x, y: xent(y, tf.sin(x) * x), normal((2, 3)),
                            distribution((2, 3)), order=3)


# -- dense labels: closed forms ----------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_xent_value_and_gradients_are_the_closed_forms(dtype):
    x, y = normal((4, 5)).astype(dtype), distribution((4, 5)).astype(dtype)
    logits, labels = tf.constant(x), tf.constant(y)
    with tf.GradientTape() as tape:
        tape.watch([logits, labels])
        loss = xent(labels, logits)
    g_logits, g_labels = tape.gradient(loss, [logits, labels])
    log_p = np.log(softmax(x.astype(np.float64)))
    tol = 1e-6 if dtype == np.float32 else 1e-12
    assert loss.dtype == tf.as_dtype(dtype) and g_logits.dtype == tf.as_dtype(dtype)
    np.testing.assert_allclose(loss.numpy(), -(y * log_p).sum(-1), rtol=tol, atol=tol)
    np.testing.assert_allclose(g_logits.numpy(), softmax(x.astype(np.float64)) - y,
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(g_labels.numpy(), -log_p, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_xent_is_stable_for_large_logits(dtype):
    x = np.array([[1000.0, 0.0, -1000.0], [-800.0, -801.0, -802.0]], dtype)
    y = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], dtype)
    logits = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = xent(y, logits)
    g = tape.gradient(loss, logits).numpy()
    expected = [1000.0, -np.log(softmax(np.array([0.0, -1.0, -2.0])))[0]]
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-6)
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g, softmax(x.astype(np.float64)) - y, atol=1e-6)


def test_softmax_xent_hessian_in_logits_is_diag_p_minus_ppT():
    x = normal((3,))
    logits = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(logits)
        with tf.GradientTape() as inner:
            inner.watch(logits)
            loss = xent(distribution((3,)), logits)
        g = inner.gradient(loss, logits)
    h = outer.jacobian(g, logits).numpy()
    p = softmax(x)
    np.testing.assert_allclose(h, np.diag(p) - np.outer(p, p), rtol=1e-12, atol=1e-14)


def test_softmax_xent_mixed_second_derivative_is_tfs_zero():
    """TF's _SoftmaxCrossEntropyWithLogitsGrad multiplies the upstream by the op's stored
    backprop output p − labels, whose gradient (grad_grad) it sends to the logits only:
    the derivative of grad_logits in the labels is 0 in TF, where the true one (finite
    differences) is −I per row. This test asserted −I until the rule followed TF."""
    logits, labels = tf.constant(normal((2, 3))), tf.constant(distribution((2, 3)))
    with tf.GradientTape() as outer:
        outer.watch(labels)
        with tf.GradientTape() as inner:
            inner.watch(logits)
            loss = tf.reduce_sum(xent(labels, logits))
        g_logits = inner.gradient(loss, logits)
    mixed = outer.jacobian(g_logits, labels).numpy()
    np.testing.assert_array_equal(mixed, np.zeros((2, 3, 2, 3)))


def test_softmax_xent_batch_jacobian_is_p_minus_labels_per_row():
    x, y = normal((4, 3)), distribution((4, 3))
    logits = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.reshape(xent(y, logits), (4, 1))
    bj = tape.batch_jacobian(loss, logits).numpy()
    np.testing.assert_allclose(bj[:, 0, :], softmax(x) - y, rtol=1e-12, atol=1e-14)


def test_softmax_xent_casts_labels_to_the_logits_dtype():
    loss = xent(tf.constant(distribution((2, 3))), tf.constant(normal((2, 3)).astype(np.float32)))
    assert loss.dtype == tf.float32


@pytest.mark.parametrize("labels_shape", [(2, 4), (3, 3)])
def test_softmax_xent_shape_mismatch_is_refused_in_tfs_words(labels_shape):
    with pytest.raises(ValueError, match=r"logits and labels must be broadcastable: "
                                         r"logits_size=\[2, 3\] labels_size="):
        xent(distribution(labels_shape), normal((2, 3)))


def test_softmax_xent_refuses_integer_logits_and_scalars():
    with pytest.raises(TypeError, match="floating logits"):
        xent([[0.0, 1.0]], tf.constant([[1, 2]]))
    with pytest.raises(ValueError, match="cannot be scalars"):
        xent(1.0, tf.constant(1.0))


# -- sparse labels -----------------------------------------------------------------------

def sparse(labels, logits):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


@pytest.mark.parametrize("shape, labels", [((3,), 2), ((4, 3), [0, 2, 1, 2]),
                                           ((2, 2, 3), [[0, 1], [2, 2]])],
                         ids=["row", "matrix", "3d"])
def test_sparse_xent_gradients(shape, labels):
    check_grads(lambda x: sparse(labels, x), [normal(shape)], order=2)
    check_grads(lambda x: sparse(labels, x * x), [normal(shape)], order=3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_xent_is_the_dense_one_with_one_hot_labels(dtype, label_dtype):
    x = normal((4, 3)).astype(dtype)
    labels = np.array([2, 0, 1, 2], label_dtype)
    one_hot = np.eye(3, dtype=dtype)[labels]
    logits = tf.constant(x)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(logits)
        loss = sparse(tf.constant(labels), logits)
    g = tape.gradient(loss, logits)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    assert loss.dtype == tf.as_dtype(dtype) and g.dtype == tf.as_dtype(dtype)
    p = softmax(x.astype(np.float64))
    np.testing.assert_allclose(loss.numpy(), -np.log(p[np.arange(4), labels]), rtol=tol)
    np.testing.assert_allclose(g.numpy(), p - one_hot, rtol=tol, atol=tol)


def test_sparse_xent_errors_in_tfs_words():
    x = normal((2, 3))
    with pytest.raises(ValueError, match=r"Shape mismatch: The shape of labels \(received "
                                         r"\(3,\)\) should equal the shape of logits except "
                                         r"for the last dimension \(received \(2, 3\)\)"):
        sparse([0, 1, 2], x)
    with pytest.raises(ValueError, match=r"Rank mismatch: Rank of labels \(received 2\) should "
                                         r"equal rank of logits minus 1 \(received 2\)"):
        sparse([[0, 1, 2], [0, 1, 2]], x)
    with pytest.raises(ValueError, match=r"Received a label value of 3 which is outside the "
                                         r"valid range of \[0, 3\)\.  Label values: 0 3"):
        sparse([0, 3], x)
    with pytest.raises(ValueError, match=r"label value of -1 "):
        sparse([-1, 0], x)
    with pytest.raises(TypeError, match="integer labels"):
        sparse([0.0, 1.0], x)


# -- op types, registry, formulas -------------------------------------------------------

def test_op_types_and_tf_style_gradient_functions():
    x, y = normal((2, 3)), distribution((2, 3))
    logits, labels = tf.constant(x), tf.constant(y)
    with tf.GradientTape() as tape:
        tape.watch([logits, labels])
        dense = xent(labels, logits)
        sparse_loss = sparse([1, 2], logits)
    assert dense.op.type == "SoftmaxCrossEntropyWithLogits"
    assert sparse_loss.op.type == "SparseSoftmaxCrossEntropyWithLogits"
    upstream = tf.constant([1.0, 2.0], tf.float64)
    g_logits, g_labels = tf.gradient_registry.lookup(dense.op.type)(dense.op, upstream)
    rows = np.array([[1.0], [2.0]])
    np.testing.assert_allclose(g_logits.numpy(), rows * (softmax(x) - y))
    np.testing.assert_allclose(g_labels.numpy(), -rows * np.log(softmax(x)))
    g_sparse, g_none = tf.gradient_registry.lookup(sparse_loss.op.type)(sparse_loss.op, upstream)
    assert g_none is None
    np.testing.assert_allclose(g_sparse.numpy(),
                               rows * (softmax(x) - np.eye(3)[[1, 2]]))


def test_formula_texts_name_the_rule():
    assert get_op("SoftmaxCrossEntropyWithLogits").formula({}, 0) == \
        "grad_logits = grad · (p − labels), p = softmax(logits)"
    assert get_op("SoftmaxCrossEntropyWithLogits").formula({}, 1) == \
        "grad_labels = −grad · log_softmax(logits)"
    assert "one_hot(labels)" in get_op("SparseSoftmaxCrossEntropyWithLogits").formula({}, 0)
    assert get_op("SparseSoftmaxCrossEntropyWithLogits").formula({}, 1).startswith(
        "grad_labels = None")


# -- argmax / argmin ---------------------------------------------------------------------

def test_argmax_argmin_values_default_axis_and_dtype():
    x = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert tf.math.argmax(x).numpy().tolist() == [1, 0, 1]      # axis 0 by default, as TF
    assert tf.math.argmax(x).dtype == tf.int64
    assert tf.argmax(x, axis=1).numpy().tolist() == [1, 2]
    assert tf.argmin(x, axis=-1).numpy().tolist() == [0, 1]
    assert tf.math.argmin(x, 0, output_type=tf.int32).dtype == tf.int32
    assert tf.math.argmin(x, 0).numpy().tolist() == [0, 1, 0]


def test_argmax_has_no_gradient_but_the_gather_it_feeds_has():
    x = tf.constant([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        i = tf.math.argmax(x, axis=1)
        picked = tf.gather(tf.reshape(x, [-1]), i + tf.constant([0, 3], tf.int64))
    assert i.op.type == "ArgMax"
    assert tape.gradient(i, x) is None
    np.testing.assert_array_equal(tape.gradient(picked, x).numpy(), [[0, 1, 0], [0, 0, 1]])
    assert tf.gradient_registry.lookup("ArgMax")(i.op, None) == [None]
    assert tf.gradient_registry.lookup("ArgMin")(i.op, None) == [None]


def test_argmax_errors():
    with pytest.raises(ValueError, match="range"):
        tf.argmax([[1.0, 2.0]], axis=2)
    with pytest.raises(ValueError, match="scalar"):
        tf.argmax(1.0)
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.argmax([1.0, 2.0], output_type=tf.float32)
