"""jacobian's block-diagonal path (engine/blocks.py) gives exactly the dense Jacobian.

Each case builds y from x on a tape, asks whether the tape proves row b of y depends on
row b of x only, and compares tape.jacobian (which takes the block path when it can)
with the dense pass and with finite differences.
"""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import blocks
from gradviz.engine.backward import _relevant_entries


def _rng():
    return np.random.default_rng(7)


def _x(shape):
    return tf.constant(_rng().standard_normal(shape).astype(np.float64))


def _w(*shape, seed=1):
    return tf.constant(np.random.default_rng(seed).standard_normal(shape).astype(np.float64))


W = _w(3, 4)
W3 = _w(5, 3, 2, seed=2)
V = _w(5, 3, seed=3)

# name -> (function of x, x's shape, row-aligned?)
CASES = {
    "mlp": (lambda x: tf.nn.relu(tf.matmul(tf.tanh(x), W) + 0.5) ** 2, (5, 3), True),
    "softmax_rows": (lambda x: tf.nn.softmax(tf.matmul(x, W)), (5, 3), True),
    "reduce_last": (lambda x: tf.reduce_sum(tf.exp(x) * x, axis=1), (5, 3), True),
    "reshape_rows": (lambda x: tf.reshape(tf.sin(x), (5, 3, 1)) * 2.0, (5, 3), True),
    "transpose_keep0": (lambda x: tf.transpose(tf.reshape(x, (5, 3, 1)), (0, 2, 1)), (5, 3), True),
    "batched_matmul": (lambda x: tf.matmul(tf.reshape(x, (5, 1, 3)), W3), (5, 3), True),
    "broadcast_const": (lambda x: x * V + tf.reduce_max(x, axis=-1, keepdims=True), (5, 3), True),
    "where": (lambda x: tf.where(x > 0.0, x * x, -x), (5, 3), True),
    # Rows mix: the dense pass must run.
    "reduce_axis0": (lambda x: x - tf.reduce_mean(x, axis=0), (5, 3), False),
    "matmul_left": (lambda x: tf.matmul(_w(5, 5, seed=4), x), (5, 3), False),
    "transpose_rows": (lambda x: tf.transpose(x) * 1.0, (3, 3), False),
    "gram": (lambda x: tf.matmul(x, x, transpose_b=True), (5, 3), False),
    "reshape_mixes": (lambda x: tf.reshape(x, (3, 5)), (5, 3), False),
    "xwx": (lambda x: tf.matmul(x, tf.matmul(x, _w(5, 4), transpose_a=True)), (5, 3), False),
}


def _dense(monkeypatch, fn, x):
    monkeypatch.setattr(blocks, "row_aligned", lambda *a: False)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    j = tape.jacobian(y, x)
    monkeypatch.undo()
    return j


@pytest.mark.parametrize("name", sorted(CASES))
def test_block_path_equals_dense(monkeypatch, name):
    fn, shape, aligned = CASES[name]
    x = _x(shape)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
    assert blocks.row_aligned(tape._entries, y, x) is aligned
    relevant = _relevant_entries(tape._entries, {x._id})[0]
    quick = blocks.last_op_keeps_rows(relevant, y, x.shape[0])
    assert quick or not aligned  # the quick test never turns an aligned target away
    # ...and settles the cases whose last op mixes rows (transpose_rows mixes earlier)
    assert quick is (name not in ("gram", "matmul_left", "reduce_axis0", "reshape_mixes", "xwx"))
    j = tape.jacobian(y, x)
    dense = _dense(monkeypatch, fn, x)
    assert j.shape == dense.shape == tuple(y.shape) + tuple(x.shape)
    np.testing.assert_allclose(j.numpy(), dense.numpy(), rtol=1e-12, atol=1e-12)
    # and against central differences
    x0 = x.numpy()
    eps = 1e-6
    fd = np.zeros(dense.shape)
    for idx in np.ndindex(*x0.shape):
        d = np.zeros_like(x0)
        d[idx] = eps
        up = fn(tf.constant(x0 + d)).numpy()
        down = fn(tf.constant(x0 - d)).numpy()
        fd[(Ellipsis,) + idx] = (up - down) / (2 * eps)
    np.testing.assert_allclose(j.numpy(), fd, rtol=1e-5, atol=1e-6)


def test_several_sources_and_unconnected():
    x = _x((4, 3))
    z = _x((4, 2))
    c = _x((4, 3))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z, c])
        y = tf.reduce_sum(x, 1, keepdims=True) * z
    jx, jz = tape.jacobian(y, [x, z])
    assert jx.shape == (4, 2, 4, 3) and jz.shape == (4, 2, 4, 2)
    expect_z = np.zeros((4, 2, 4, 2))
    sums = x.numpy().sum(1)
    for b in range(4):
        expect_z[b, :, b, :] = np.eye(2) * sums[b]
    np.testing.assert_allclose(jz.numpy(), expect_z, rtol=1e-12)
    expect_x = np.zeros((4, 2, 4, 3))
    for b in range(4):
        expect_x[b, :, b, :] = z.numpy()[b][:, None]
    np.testing.assert_allclose(jx.numpy(), expect_x, rtol=1e-12)
    assert tape.jacobian(y, c) is None
    zero = tape.jacobian(y, c, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.shape == (4, 2, 4, 3) and not zero.numpy().any()


def test_identity_target_is_source():
    x = _x((3, 2))
    with tf.GradientTape() as tape:
        tape.watch(x)
    j = tape.jacobian(x, x)
    np.testing.assert_array_equal(j.numpy().reshape(6, 6), np.eye(6))


def test_recording_outer_tape_takes_the_dense_path():
    """Under an outer tape the Jacobian must itself be differentiable."""
    x = _x((3, 2))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        j = inner.jacobian(y, x)
        s = tf.reduce_sum(j)
    g = outer.gradient(s, x)
    np.testing.assert_allclose(g.numpy(), 6 * x.numpy(), rtol=1e-12)
