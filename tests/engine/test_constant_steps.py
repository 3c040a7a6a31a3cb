"""A recorded backward pass (a gradient an outer tape records: a Hessian's inner one)
keeps its ones seed an array and runs the rules of shapes alone (sums, means,
reshapes, adds) on numpy while the cotangent stays that constant
(backward._constant_step): their ops would read no tensor a tape tracks, so no tape
would record them. The same programs give the same bits, the same ops on the outer tape
and the same Hessians as the path that runs them as gradviz ops (taken with the
constants off)."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import backward
from gradviz.engine.ops import math as math_ops
from gradviz.engine.ops import shape as shape_ops


def _chain(x, c):
    """Every rule of shapes alone between the loss and the first op that reads values."""
    y = tf.tanh(x) * x
    z = tf.squeeze(tf.expand_dims(tf.reshape(y, [3, 2]), 0), 0)
    z = -tf.identity(z) - c
    z = z + tf.broadcast_to(x[0, :2], [3, 2])
    return tf.reduce_sum(tf.reduce_mean(z, axis=0))


def _dense(x, c):
    """W4's form: two relu layers, the mean of the squares."""
    h = tf.nn.relu(x @ tf.transpose(c) + 0.25)
    return tf.reduce_mean(tf.nn.relu(h @ c) ** 2)


def _hessian(program, dtype):
    x = tf.Variable(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype))
    c = tf.constant(np.array([[0.3, -0.2, 0.1], [0.7, 0.4, -0.6], [-0.5, 0.9, 0.2]], dtype)[:, :3]
                    if program is _dense else np.full((3, 2), 0.125, dtype))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            loss = program(x, c)
        g = inner.gradient(loss, x)
    types = [e.type for e in outer._entries]
    return g.numpy(), types, outer.jacobian(g, x).numpy()


@pytest.mark.parametrize("program", [_chain, _dense])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_constant_steps_give_the_bits_and_ops_of_gradviz_ops(program, dtype, monkeypatch):
    steps = []
    step = backward._constant_step

    def counted(op, *args):
        steps.append(op.type)
        return step(op, *args)
    monkeypatch.setattr(backward, "_constant_step", counted)
    g, types, hessian = _hessian(program, dtype)
    assert "Mean" in steps  # the loss's reduction ran on numpy
    if program is _chain:
        assert steps == ["Sum", "Mean", "AddV2", "BroadcastTo", "Sub", "Neg", "Identity",
                         "Squeeze", "ExpandDims", "Reshape"]
    monkeypatch.setattr(backward, "_plain_tapes", lambda recording: False)
    g_ops, types_ops, hessian_ops = _hessian(program, dtype)
    assert g.dtype == g_ops.dtype == dtype
    np.testing.assert_array_equal(g, g_ops)
    assert types == types_ops
    np.testing.assert_array_equal(hessian, hessian_ops)


def test_a_hessians_inner_gradient_of_a_mean_divides_and_broadcasts_on_numpy(monkeypatch):
    applied = []
    for opdef in (math_ops.DIV, shape_ops.BROADCAST_TO):
        def forward(*args, _forward=opdef.forward, _type=opdef.type, **attrs):
            applied.append(_type)
            return _forward(*args, **attrs)
        monkeypatch.setattr(opdef, "forward", forward)
    x = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            loss = tf.reduce_mean(x ** 2)
        g = inner.gradient(loss, x)
    assert applied == []
    np.testing.assert_allclose(g.numpy(), [[0.5, -1.0], [0.25, 1.5]])
    np.testing.assert_allclose(outer.jacobian(g, x).numpy().reshape(4, 4), np.eye(4) * 0.5)
