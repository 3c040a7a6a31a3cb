"""embedding_lookup (GatherV2 / ResourceGather) and dropout: values against closed forms,
gradients against finite differences (first and second order), TF's errors."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads
from gradviz.engine.registry import get_op


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


IDS = [[0, 2], [2, 3], [1, 2]]


# -- embedding_lookup --------------------------------------------------------------------

@pytest.mark.parametrize("ids", [[3, 0, 3], IDS, 1], ids=["vector", "matrix", "scalar"])
def test_embedding_lookup_gradients(ids):
    check_grads(lambda p: tf.nn.embedding_lookup(p, ids) ** 2, [normal((4, 3))], order=2)


def test_embedding_lookup_of_a_list_of_tables_is_their_concatenation():
    a, b = normal((2, 3)), normal((3, 3), 1)
    np.testing.assert_array_equal(tf.nn.embedding_lookup([a, b], [4, 0, 2]).numpy(),
                                  np.concatenate([a, b])[[4, 0, 2]])
    check_grads(lambda a, b: tf.nn.embedding_lookup([a, b], [4, 0, 2]) ** 2, [a, b], order=2)


def test_embedding_lookup_max_norm_clips_each_row():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 2.0]])
    rows = tf.nn.embedding_lookup(table, [[0, 1], [2, 0]], max_norm=1.0).numpy()
    np.testing.assert_allclose(rows, [[[0.6, 0.8], [0.3, 0.4]], [[0.0, 1.0], [0.6, 0.8]]])
    check_grads(lambda p: tf.nn.embedding_lookup(p, [[0, 1], [2, 0]], max_norm=1.0),
                [table], order=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lookup_in_a_variable_records_resource_gather_and_scatter_adds(dtype):
    table = tf.Variable(normal((4, 3)).astype(dtype))
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as tape:
            rows = tf.nn.embedding_lookup(table, IDS)
            loss = tf.reduce_sum(rows * rows)
        g = tape.gradient(loss, table)
    assert rows.op.type == "ResourceGather" and g.dtype == tf.as_dtype(dtype)
    counts = np.bincount(np.ravel(IDS), minlength=4)[:, None]
    np.testing.assert_allclose(g.numpy(), 2 * counts * table.numpy(), rtol=1e-6)
    h = outer.jacobian(g, table).numpy().reshape(12, 12)  # d(2·count·w)/dw
    np.testing.assert_allclose(h, np.diag(np.repeat(2 * counts[:, 0], 3)), atol=1e-6)
    assert tf.nn.embedding_lookup(tf.constant(table.numpy()), IDS) is not None
    fn = tf.gradient_registry.lookup("ResourceGather")
    g_params, g_ids = fn(rows.op, tf.ones_like(rows))
    np.testing.assert_allclose(g_params.numpy(), np.broadcast_to(counts, (4, 3)))
    assert g_ids is None


def test_lookup_in_a_tensor_records_gather_v2():
    table = tf.constant(normal((4, 3)))
    with tf.GradientTape() as tape:
        tape.watch(table)
        rows = tf.nn.embedding_lookup(table, IDS)
    assert rows.op.type == "GatherV2" and rows.shape == (3, 2, 3)


def test_embedding_lookup_errors():
    with pytest.raises(IndexError, match=r"indices\[1,1\] = 4 is not in \[0, 4\)"):
        tf.nn.embedding_lookup(normal((4, 3)), [[0, 1], [2, 4]])
    with pytest.raises(IndexError, match=r"indices\[0\] = -1 is not in \[0, 4\)"):
        tf.nn.embedding_lookup(normal((4, 3)), [-1])
    with pytest.raises(TypeError, match="integer ids"):
        tf.nn.embedding_lookup(normal((4, 3)), [0.0, 1.0])


# -- dropout -----------------------------------------------------------------------------

def test_dropout_gradients():
    check_grads(lambda x: tf.nn.dropout(x, 0.4, seed=5), [normal((3, 4))], order=2)
    check_grads(lambda x: tf.nn.dropout(x * x, 0.5, noise_shape=[3, 1], seed=2) * x,
                [normal((3, 4))], order=3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dropout_keeps_and_scales_or_zeros_each_element(dtype):
    x = tf.constant((normal((50, 40)) + 3).astype(dtype))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, rate=0.3, seed=11)
    kept = y.numpy() != 0
    scale = np.asarray(1 / (1 - 0.3), dtype)
    assert y.dtype == tf.as_dtype(dtype) and y.op.type == "Dropout"
    np.testing.assert_array_equal(y.numpy()[kept], x.numpy()[kept] * scale)
    assert abs(1 - kept.mean() - 0.3) < 0.03
    g = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(g, np.where(kept, scale, 0).astype(dtype))


def test_dropout_is_reproducible_given_the_seed_and_differs_between_seeds():
    x = tf.ones((8, 8))
    a, b = tf.nn.dropout(x, 0.5, seed=1), tf.nn.dropout(x, 0.5, seed=1)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), tf.nn.dropout(x, 0.5, seed=2).numpy())
    tf.random.set_seed(4)
    c = tf.nn.dropout(x, 0.5).numpy()
    tf.random.set_seed(4)
    np.testing.assert_array_equal(tf.nn.dropout(x, 0.5).numpy(), c)


def test_dropout_noise_shape_shares_the_mask_along_broadcast_axes():
    y = tf.nn.dropout(tf.ones((6, 5)), 0.5, noise_shape=[6, 1], seed=3).numpy()
    assert all(len(set(row)) == 1 for row in y)
    assert {0.0, 2.0} == set(np.unique(y))
    z = tf.nn.dropout(tf.ones((6, 5)), 0.5, noise_shape=[None, 1], seed=3).numpy()
    np.testing.assert_array_equal(y, z)


def test_dropout_with_rate_zero_is_the_input():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, 0.0) is x


@pytest.mark.parametrize("rate", [1, 1.0, -0.1, 1.5, "0.5", [0.1, 0.2]])
def test_dropout_rate_outside_0_1_is_refused_in_tfs_words(rate):
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the "
                                         r"range \[0, 1\)"):
        tf.nn.dropout(tf.ones((2,)), rate)


def test_dropout_other_errors():
    with pytest.raises(ValueError, match="x has to be a floating point tensor"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)
    with pytest.raises(ValueError, match="not broadcastable"):
        tf.nn.dropout(tf.ones((2, 3)), 0.5, noise_shape=[2, 2])
    with pytest.raises(ValueError, match="one entry per axis"):
        tf.nn.dropout(tf.ones((2, 3)), 0.5, noise_shape=[3])


def test_dropout_rule_text_and_registry():
    assert get_op("Dropout").formula({}, 0) == "grad_x = grad · mask / (1 − rate)"
    x = tf.constant(normal((2, 3)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.25, seed=9)
    (g,) = tf.gradient_registry.lookup("Dropout")(y.op, tf.ones_like(y))
    np.testing.assert_array_equal(g.numpy(), (y.numpy() != 0) / 0.75)
