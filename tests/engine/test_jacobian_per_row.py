"""A Jacobian is one backward pass over a batch of basis cotangents (TF's pfor); TF defines
it as the per-row loop `tape.gradient(y, x, output_gradients=e_i)`. On random programs of
the engine's ops (a matmul, reductions, relu, the elementwise ops), their Jacobians,
batch Jacobians and Hessians (nested tapes) are that loop's rows, float64 to 1e-12 and
float32 to 1e-5, in one chunk and one basis vector per chunk. An op whose gradient is a
TF-style function (custom_gradient) has no batch rule: the pass runs it once per row
(backward._call_grad_fn), and gives the loop's rows too."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import tape as tape_module
from jacobian_util import per_row

TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}


@tf.custom_gradient
def _cube(x):
    """x³ with its gradient as a TF-style function: no batch rule."""
    def grad(upstream):
        return upstream * 3.0 * x * x
    return x * x * x, grad


UNARY = [tf.sin, tf.tanh, tf.nn.relu, tf.nn.sigmoid, tf.nn.softplus, lambda a: a * 2.5,
         lambda a: tf.square(a), lambda a: a ** 2, lambda a: tf.nn.elu(a),
         lambda a: tf.sqrt(a * a + 1.0), lambda a: a / (a * a + 2.0),
         lambda a: tf.tanh(_cube(a))]
BINARY = [tf.add, tf.multiply, tf.subtract, tf.maximum, lambda a, b: a * b + a]


def _random_body(seed, fallback):
    """A random function of x (3, 4) and a Variable w (4, 4): elementwise ops, products
    with w, a row reduction broadcast back; `fallback` puts custom_gradient's op in."""
    rng = np.random.default_rng(seed)
    unary = UNARY if fallback else UNARY[:-1]
    plan = [(rng.integers(4), rng.integers(len(unary)), rng.integers(len(BINARY)),
             rng.integers(100)) for _ in range(rng.integers(3, 8))]
    if fallback:
        plan.append((0, len(unary) - 1, 0, 0))

    def body(x, w):
        values = [x]
        for kind, u, k, j in plan:
            a = values[-1]
            if kind == 0:
                values.append(unary[u](a))
            elif kind == 1:
                values.append(tf.tanh(BINARY[k](a, values[j % len(values)])))
            elif kind == 2:
                values.append(tf.nn.relu(a @ w) + tf.tanh(a))
            else:
                values.append(a - tf.reduce_mean(a, axis=1, keepdims=True))
        return values[-1]
    return body


def _close(got, expected, dtype):
    got = got.numpy()
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


@pytest.fixture(params=[None, 1], ids=["one-chunk", "row-per-chunk"])
def chunk_bytes(request, monkeypatch):
    if request.param is not None:
        monkeypatch.setattr(tape_module, "JACOBIAN_CHUNK_BYTES", request.param)
    return request.param


@pytest.mark.parametrize("fallback", [False, True], ids=["batch-rules", "custom-gradient"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_jacobians_and_hessians_are_the_per_row_loop(seed, dtype, fallback, chunk_bytes):
    rng = np.random.default_rng(200 + seed)
    body = _random_body(seed, fallback)
    w = tf.Variable((rng.normal(size=(4, 4)) * 0.5).astype(dtype))
    x = tf.constant(rng.normal(size=(3, 4)).astype(dtype))

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = body(x, w)
    _close(tape.jacobian(y, x, unconnected_gradients="zero"), per_row(tape, y, x), dtype)
    _close(tape.jacobian(y, w, unconnected_gradients="zero"), per_row(tape, y, w), dtype)
    rows = per_row(tape, y, x)  # (3, 4, 3, 4): the batch Jacobian is its diagonal blocks
    _close(tape.batch_jacobian(y, x), np.stack([rows[b, :, b] for b in range(3)]), dtype)

    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(body(x, w) ** 2)
        g = inner.gradient(loss, w, unconnected_gradients="zero")
    hessian = outer.jacobian(g, w, unconnected_gradients="zero")
    _close(hessian, per_row(outer, g, w), dtype)
    _close(outer.jacobian(g, x, unconnected_gradients="zero"), per_row(outer, g, x), dtype)


def test_the_fallback_runs_the_gradient_function_once_per_row():
    """custom_gradient's function is called once per basis row of the batched pass."""
    calls = []

    @tf.custom_gradient
    def double(x):
        def grad(upstream):
            calls.append(tuple(upstream.shape))
            return upstream * 2.0
        return x * 2.0, grad

    x = tf.constant(np.arange(6.0).reshape(2, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sin(double(x))
    j = tape.jacobian(y, x).numpy()
    assert calls == [(2, 3)] * 6
    expected = np.diag((2 * np.cos(2 * np.arange(6.0)))).reshape(2, 3, 2, 3)
    np.testing.assert_allclose(j, expected, rtol=1e-12, atol=1e-12)
