"""The numba kernels agree with their numpy twins (on arrays large enough that numba
runs), and a whole gradient computation gives the same numbers with GRADVIZ_NUMBA=0 and 1."""
import json
import os
from functools import partial
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gradviz.engine import kernels

pytest.importorskip("numba")

ROWS, COLS = 80, 64  # 5120 elements, above kernels.MIN_SIZE
assert ROWS * COLS >= kernels.MIN_SIZE

DTYPES = [np.float32, np.float64]
TOLERANCE = {np.float32: dict(rtol=2e-6, atol=1e-7), np.float64: dict(rtol=1e-13, atol=1e-15)}


@pytest.fixture(autouse=True)
def loaded(monkeypatch):
    """Every kernel loaded (from numba's cache), so that large arrays take them."""
    monkeypatch.setattr(kernels, "ENABLED", True)
    kernels.warm_up()


@pytest.fixture
def used(monkeypatch):
    """The names of the numba kernels called while a test runs."""
    names = []
    original = kernels._kernel

    def spy(name):
        names.append(name)
        return original(name)
    monkeypatch.setattr(kernels, "_kernel", spy)
    return names


def both_paths(monkeypatch, fn, *args):
    """fn(*args) with numba, then with the numpy twins."""
    monkeypatch.setattr(kernels, "ENABLED", True)
    fast = fn(*args)
    monkeypatch.setattr(kernels, "ENABLED", False)
    slow = fn(*args)
    return fast, slow


def sample(dtype, seed=0, scale=3.0):
    x = (scale * np.random.default_rng(seed).standard_normal((ROWS, COLS))).astype(dtype)
    x[0, :4] = [0.0, -0.0, 60.0, -60.0]  # the kinks and the saturated ends
    return x


def assert_same(fast, slow, dtype):
    assert fast.dtype == slow.dtype == np.dtype(dtype)
    assert fast.shape == slow.shape
    np.testing.assert_allclose(fast, slow, **TOLERANCE[dtype])


UNARY = {"relu": kernels.relu, "sigmoid": kernels.sigmoid, "elu": kernels.elu,
         "softmax": kernels.softmax}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_relu_kernel(monkeypatch, used, dtype):
    x = sample(dtype)
    fast, slow = both_paths(monkeypatch, kernels.relu, x)
    assert used == ["relu"]
    assert_same(fast, slow, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["sigmoid", "elu", "softmax"])
def test_activations_that_call_exp_take_numpys_simd_loops(monkeypatch, used, name, dtype):
    """A numba loop calls libm's exp once per element (no SVML here): these kernels ran
    1.4-2.5x slower than numpy, so large arrays take numpy too, with numpy's numbers."""
    monkeypatch.setattr(kernels, "ENABLED", True)
    x = sample(dtype).reshape(10, 8, COLS) if name == "softmax" else sample(dtype)
    out = UNARY[name](x)
    assert used == [] and out.dtype == np.dtype(dtype)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    expected = {"sigmoid": lambda: 0.5 * (1 + np.tanh(x64 / 2)),
                "elu": lambda: np.where(x64 > 0, x64, np.expm1(np.minimum(x64, 0))),
                "softmax": lambda: e / e.sum(axis=-1, keepdims=True)}[name]()
    tol = dict(rtol=2e-6, atol=1e-7) if dtype is np.float32 else dict(rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(out, expected, **tol)
    if name == "softmax":
        np.testing.assert_allclose(out.sum(axis=-1), 1, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["relu_grad", "elu_grad"])
def test_backward_kernel_of_g_and_y(monkeypatch, used, name, dtype):
    g = sample(dtype, 1)
    y = getattr(kernels, name.replace("_grad", ""))(sample(dtype, 2))
    used.clear()
    fast, slow = both_paths(monkeypatch, getattr(kernels, name), g, y)
    assert used == [name]
    assert_same(fast, slow, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_sigmoid_grad_kernel(monkeypatch, used, dtype):
    y = kernels.sigmoid(sample(dtype, 1))
    used.clear()
    fast, slow = both_paths(monkeypatch, kernels.sigmoid_grad, y, sample(dtype, 2))
    assert used == ["sigmoid_grad"]
    assert_same(fast, slow, dtype)


@pytest.mark.parametrize("name", ["sigmoid_grad", "elu_grad"])
def test_float32_gradient_kernels_compute_in_float32(monkeypatch, used, name):
    """TF's SigmoidGrad (g · y · (1 - y)) and EluGrad ((y + 1) · g) run in float32, as
    numpy does: the same bits. The kernels once added a float64 literal 1, one rounding
    fewer: 1 ulp off numpy and TF in about 5% of the elements."""
    y = kernels.sigmoid(sample(np.float32, 1))
    if name == "elu_grad":
        y = -y
    args = (y, sample(np.float32, 2)) if name == "sigmoid_grad" else (sample(np.float32, 2), y)
    used.clear()
    fast, slow = both_paths(monkeypatch, getattr(kernels, name), *args)
    assert used == [name]
    np.testing.assert_array_equal(fast, slow)


def test_relu_kernels_propagate_nan_like_numpy(monkeypatch):
    x = sample(np.float32)
    x[1, :3] = np.nan
    g = sample(np.float32, 1)
    g[2, :3] = [np.nan, np.inf, -np.inf]
    for fn, args in [(kernels.relu, (x,)), (kernels.relu_grad, (g, x))]:
        with np.errstate(invalid="ignore"):  # inf · 0
            fast, slow = both_paths(monkeypatch, fn, *args)
        np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_relu_grad_of_rows_repeated_over_the_batch(monkeypatch, used, dtype):
    """batch_jacobian's cotangent after a dense layer: (k, n) rows broadcast over the
    batch; the rows kernel gives numpy's numbers to the bit (NaN, inf, -0 too)."""
    y = kernels.relu(sample(dtype, 2))
    y[1, :4] = [np.nan, 0.0, -0.0, 1.0]
    rows = sample(dtype, 1)[:10]
    rows[0, :4] = [np.nan, np.inf, -np.inf, -2.0]
    g = np.broadcast_to(rows[:, None, :], (10,) + y.shape)
    used.clear()
    with np.errstate(invalid="ignore"):  # inf · 0
        fast, slow = both_paths(monkeypatch, kernels.relu_grad, g, y)
    assert used == ["relu_grad_rows"]
    assert fast.shape == slow.shape and fast.dtype == slow.dtype
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(np.signbit(fast), np.signbit(slow))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("shape", [(ROWS, COLS), (8, 10, COLS)], ids=["2d", "3d"])
def test_batch_moments_kernel(monkeypatch, used, shape, dtype):
    x = (5 + sample(dtype)).reshape(shape)
    (fast_mean, fast_var), (slow_mean, slow_var) = both_paths(monkeypatch, kernels.batch_moments, x)
    assert used == ["moments_cols"]
    tol = dict(rtol=1e-5, atol=1e-5) if dtype is np.float32 else TOLERANCE[dtype]
    assert fast_mean.dtype == fast_var.dtype == np.dtype(dtype)
    np.testing.assert_allclose(fast_mean, slow_mean, **tol)
    np.testing.assert_allclose(fast_var, slow_var, **tol)
    x64 = x.astype(np.float64).reshape(-1, COLS)
    np.testing.assert_allclose(fast_var, x64.var(axis=0), rtol=1e-5 if dtype is np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_scatter_add_kernel(monkeypatch, used, axis, dtype):
    shape = [6, 5, 4]
    indices = np.array([[0, 2, 2], [-1, 2, 0]])
    g_shape = shape[:axis] + list(indices.shape) + shape[axis + 1:]
    g = np.random.default_rng(axis).standard_normal([60] + g_shape).astype(dtype)  # 60: batch
    fast, slow = both_paths(monkeypatch, kernels.scatter_add, g, indices, axis + 1, [60] + shape)
    assert used == ["scatter_add_3d"]
    np.testing.assert_allclose(fast, slow, **TOLERANCE[dtype])
    expected = np.zeros([60] + shape, dtype)
    np.add.at(expected, (slice(None),) * (axis + 1) + (indices % shape[axis],), g)
    np.testing.assert_allclose(fast, expected, **TOLERANCE[dtype])


def same_sums(fast, slow, dtype):
    """Sums in another order: equal up to rounding relative to the largest value."""
    assert fast.dtype == slow.dtype == np.dtype(dtype) and fast.shape == slow.shape
    eps = 1e-5 if dtype is np.float32 else 1e-13
    np.testing.assert_allclose(fast, slow, rtol=eps, atol=eps * np.abs(slow).max())


WINDOW_GEOMETRY = [  # (strides, padding, dilations)
    ((1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    ((1, 2, 3, 1), "VALID", (1, 1, 1, 1)),
    ((1, 1, 1, 1), "EXPLICIT", (1, 2, 3, 1)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("strides, padding, dilations", WINDOW_GEOMETRY,
                         ids=["same", "strided", "dilated-explicit"])
def test_window_kernels_agree_with_numpy(monkeypatch, used, strides, padding, dilations, dtype):
    """im2col (conv2d, backprop_filter) and col2im (backprop_input, max_pool_grad), with
    a leading batch axis on the cotangent as jacobian passes it."""
    from gradviz.engine.ops import windows
    rng = np.random.default_rng(0)
    geometry = {"strides": strides, "padding": padding, "dilations": dilations,
                "explicit_paddings": (0, 0, 1, 2, 0, 1, 0, 0) if padding == "EXPLICIT" else ()}
    x = rng.standard_normal((4, 21, 20, 3)).astype(dtype)  # above kernels.MIN_SIZE
    w = rng.standard_normal((3, 2, 3, 5)).astype(dtype)
    y, slow_y = both_paths(monkeypatch, partial(windows.conv2d, **geometry), x, w)
    same_sums(y, slow_y, dtype)
    g = rng.standard_normal((3,) + y.shape).astype(dtype)
    same_sums(*both_paths(monkeypatch, partial(windows.backprop_input, **geometry), g, w,
                            x.shape), dtype)
    same_sums(*both_paths(monkeypatch, partial(windows.backprop_filter, **geometry), x, g,
                            w.shape), dtype)
    pool = {k: v for k, v in geometry.items() if k != "dilations"}
    m = windows.max_pool(x, (1, 2, 3, 1), **pool)
    gm = rng.standard_normal((3,) + m.shape).astype(dtype)
    same_sums(*both_paths(monkeypatch, partial(windows.max_pool_grad, **pool), x, m, gm,
                            (1, 2, 3, 1)), dtype)
    assert used.count("move_windows") >= 2  # im2col and col2im


@pytest.mark.parametrize("enabled", [True, False], ids=["numba", "numpy"])
def test_scatter_add_rejects_indices_out_of_range(monkeypatch, enabled):
    monkeypatch.setattr(kernels, "ENABLED", enabled)
    g = np.ones((4, 2, 1000))
    with pytest.raises(IndexError):
        kernels.scatter_add(g, np.array([0, 7]), 1, (4, 3, 1000))


@pytest.mark.parametrize("enabled", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("x_shape, shape, nbatch", [
    ((4, ROWS, COLS), (ROWS, COLS), 0), ((ROWS, COLS), (1, COLS), 0), ((ROWS, COLS), (ROWS, 1), 0),
    ((3, 5, ROWS, COLS), (3, 1, COLS), 1), ((COLS,), (ROWS, COLS), 0)],
    ids=["leading", "rows", "columns", "batched", "broadcast-up"])
def test_sum_to_shape(monkeypatch, enabled, dtype, x_shape, shape, nbatch):
    monkeypatch.setattr(kernels, "ENABLED", enabled)
    x = np.random.default_rng(0).standard_normal(x_shape).astype(dtype)
    out = kernels.sum_to_shape(x, shape, nbatch)
    assert out.shape == shape and out.dtype == np.dtype(dtype)
    x64 = x.astype(np.float64)
    expected = {
        "leading": lambda: x64.sum(axis=0), "rows": lambda: x64.sum(axis=0, keepdims=True),
        "columns": lambda: x64.sum(axis=1, keepdims=True),
        "batched": lambda: x64.sum(axis=(1, 2)).reshape(shape),
        "broadcast-up": lambda: np.broadcast_to(x64, shape)}
    key = {(4, ROWS, COLS): "leading", (3, 5, ROWS, COLS): "batched", (COLS,): "broadcast-up"}.get(
        x_shape, "rows" if shape[0] == 1 else "columns")
    tol = dict(rtol=1e-5, atol=1e-4) if dtype is np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out, expected[key](), **tol)


@pytest.mark.parametrize("name", ["relu", "sigmoid", "elu", "softmax"])
def test_float16_and_integers_take_numpy(monkeypatch, used, name):
    monkeypatch.setattr(kernels, "ENABLED", True)
    x = sample(np.float16)
    out = UNARY[name](x)
    assert used == [] and out.dtype == np.float16
    if name == "relu":
        np.testing.assert_array_equal(kernels.relu(x.astype(np.int32)), np.maximum(x.astype(np.int32), 0))
        assert used == []


def test_views_and_broadcast_arguments_take_numpy(monkeypatch, used):
    monkeypatch.setattr(kernels, "ENABLED", True)
    x = sample(np.float64)
    np.testing.assert_array_equal(kernels.relu(x.T), np.maximum(x.T, 0))
    g = np.ones((3,) + x.shape)
    np.testing.assert_array_equal(kernels.relu_grad(g, x), g * (x > 0))
    assert used == []


def test_warm_up_compiles_every_kernel(monkeypatch):
    monkeypatch.setattr(kernels, "ENABLED", True)
    kernels.warm_up()


# -- the elementwise gradients that take a kernel at any size ----------------------------

def _cos_grad_reference(x, g):
    return -g * np.sin(x)


ELEMENTWISE = [  # (kernel, numpy's formula, its dtypes, tolerance)
    ("tanh_grad", lambda y, dy: dy * (1 - y * y), DTYPES, {}),  # the same bits
    ("sin_grad", lambda x, g: g * np.cos(x), [np.float32], dict(rtol=1e-6, atol=1e-30)),
    ("cos_grad", _cos_grad_reference, [np.float32], dict(rtol=1e-6, atol=1e-30)),
]


@pytest.mark.parametrize("name, formula, dtypes, tolerance", ELEMENTWISE,
                         ids=[e[0] for e in ELEMENTWISE])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (1000,), (30, 40)], ids=str)
def test_elementwise_gradient_kernels_equal_numpy_at_any_size(monkeypatch, used, name, formula,
                                                             dtypes, tolerance, shape):
    """Small arrays too (W5's 1000 floats): one call replaces numpy's two or three."""
    rng = np.random.default_rng(len(shape))
    for dtype in DTYPES:
        a = np.asarray(np.tanh(2 * rng.standard_normal(shape)) if name == "tanh_grad"
                       else 4 * rng.standard_normal(shape), dtype)
        b = np.asarray(10 * rng.standard_normal(shape), dtype)
        used.clear()
        fast, slow = both_paths(monkeypatch, getattr(kernels, name), a, b)
        assert used == ([name + "_into"] if dtype in dtypes else [])
        assert fast.dtype == slow.dtype == np.dtype(dtype) and fast.shape == slow.shape == shape
        if tolerance and dtype in dtypes:
            np.testing.assert_allclose(fast, slow, **tolerance)
        else:
            np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("name, formula, dtypes, tolerance", ELEMENTWISE,
                         ids=[e[0] for e in ELEMENTWISE])
def test_elementwise_gradient_kernels_leave_the_rest_to_numpy(monkeypatch, used, name, formula,
                                                             dtypes, tolerance):
    """A batched or broadcast cotangent, a view, a read-only array, float16, and (sin,
    cos) an x beyond _vector_math's range or not finite: numpy's result, exactly."""
    rng = np.random.default_rng(3)
    x = np.tanh(rng.standard_normal(64)).astype(np.float32)
    g = rng.standard_normal(64).astype(np.float32)
    frozen = x.copy()
    frozen.flags.writeable = False
    far = x.copy()
    far[[3, 9, 20]] = [1e5, np.nan, -np.inf]
    cases = [(x, np.stack([g, g])), (np.float32(0.5), g), (x[::2], g[::2]), (frozen, g),
             (x.astype(np.float16), g.astype(np.float16)), (x, g.astype(np.float64))]
    if name != "tanh_grad":
        cases.append((far, g))
    kernel = getattr(kernels, name)
    with np.errstate(all="ignore"):
        for a, b in cases:
            fast = kernel(a, b)
            np.testing.assert_array_equal(fast, formula(a, b))
            assert fast.dtype == formula(a, b).dtype
    assert used == ([name + "_into"] if name != "tanh_grad" else [])  # far: tried, declined


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradients_through_the_elementwise_kernels(monkeypatch, used, dtype):
    """First and second order of a sin, cos, tanh chain: the same with the kernels as
    without (numpy's formulas), and as the closed forms."""
    import gradviz as tf

    x_np = np.linspace(-2.5, 2.5, 1000).astype(dtype)

    def grads():
        x = tf.constant(x_np)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.tanh(tf.sin(x) + tf.cos(x))
            g = inner.gradient(y, x)
        return g.numpy(), outer.gradient(g, x).numpy()

    def first_kernels(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.tanh(tf.sin(x) + tf.cos(x)))
        return tape.gradient(y, x)

    used.clear()
    x = tf.constant(x_np)
    fast_first = first_kernels(x).numpy()
    assert set(used) == ({"tanh_grad_into", "sin_grad_into", "cos_grad_into"}
                         if dtype == np.float32 else {"tanh_grad_into"})
    (fast_g, fast_h), (slow_g, slow_h) = both_paths(monkeypatch, grads)
    tolerance = dict(rtol=2e-6, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(fast_first, fast_g, **tolerance)
    np.testing.assert_allclose(fast_g, slow_g, **tolerance)
    np.testing.assert_allclose(fast_h, slow_h, **tolerance)
    x64 = x_np.astype(np.float64)
    u = np.sin(x64) + np.cos(x64)
    du, d2u = np.cos(x64) - np.sin(x64), -u
    t = np.tanh(u)
    closed_g = (1 - t * t) * du
    closed_h = -2 * t * (1 - t * t) * du * du + (1 - t * t) * d2u
    scale = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast_g, closed_g, **scale)
    np.testing.assert_allclose(fast_h, closed_h, **scale)


@pytest.mark.parametrize("fn", ["sin", "cos", "tanh"])
def test_finite_differences_with_the_elementwise_kernels(used, fn):
    """check_grads (float64, first and second order) with the kernels loaded."""
    import gradviz as tf
    from gradviz.engine.check import check_grads

    used.clear()
    check_grads(getattr(tf, fn), [np.random.default_rng(0).standard_normal((3, 4))], order=2)
    assert fn != "tanh" or "tanh_grad_into" in used


# -- a whole gradient computation with numba on and off ---------------------------------

_PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    import gradviz as tf
    from gradviz.engine import kernels
    from gradviz.engine.ops.nn import batch_normalization_training

    kernels.warm_up()
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((128, 48)), dtype=tf.float64)
    w = tf.Variable(rng.standard_normal((48, 64)) / 7, dtype=tf.float64)
    gamma = tf.Variable(np.ones(64), dtype=tf.float64)
    k = tf.Variable(rng.standard_normal((3, 3, 1, 4)) / 3, dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = batch_normalization_training(tf.matmul(x, w), gamma, tf.zeros(64, tf.float64), 1e-3)
        h = tf.nn.relu(h) + tf.nn.elu(h) * tf.nn.sigmoid(h)
        h = tf.gather(h, np.arange(128) % 100)
        image = tf.nn.conv2d(tf.reshape(h, (8, 32, 32, 1)), k, 1, "SAME")
        h = tf.reshape(tf.nn.max_pool2d(image, 2, 2, "VALID"), (128, 64))
        loss = tf.reduce_sum(tf.nn.softmax(h) * tf.range(64, dtype=tf.float64))
    grads = tape.gradient(loss, [x, w, gamma, k])
    json.dump({"loss": float(loss), "grads": [g.numpy().tolist() for g in grads],
               "kernels": sorted(kernels._compiled)}, sys.stdout)
""")


def _run(numba_flag):
    env = dict(os.environ, GRADVIZ_NUMBA=numba_flag)
    done = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_gradients_are_the_same_with_and_without_numba():
    with_numba, without = _run("1"), _run("0")
    assert set(with_numba["kernels"]) >= {"relu", "relu_grad", "elu_grad", "sigmoid_grad",
                                          "moments_cols", "scatter_add_3d", "move_windows"}
    assert without["kernels"] == []
    np.testing.assert_allclose(with_numba["loss"], without["loss"], rtol=1e-12)
    for a, b in zip(with_numba["grads"], without["grads"]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-10, atol=1e-12)


_FIRST_CALL = textwrap.dedent("""
    import threading
    import numpy as np
    from gradviz.engine import kernels

    x = np.linspace(-3, 3, 8192, dtype=np.float32)
    out = kernels.relu(x)
    assert np.array_equal(out, np.maximum(x, 0))
    # It returned before the kernels were loaded: they load on a worker thread.
    assert not kernels._ready and kernels._loader.is_alive()
    assert threading.current_thread() is threading.main_thread()
    kernels.warm_up()
    assert kernels._ready and not kernels._loader.is_alive()
    calls = []
    kernels._kernel = lambda name, load=kernels._kernel: calls.append(name) or load(name)
    assert np.array_equal(kernels.relu(x), np.maximum(x, 0)) and calls == ["relu"]
""")


@pytest.mark.cpu_independent("which modules a process loads")
def test_import_gradviz_loads_neither_numba_nor_numpy_random():
    """A fresh process's first gradient waits for `import gradviz` only (numpy.random
    comes at the first random draw, numba on a worker at the first large kernel)."""
    code = ("import sys, gradviz as tf; tf.random.normal((2,)) if sys.argv[1:] else None; "
            "print(sorted(m for m in ('numba', 'numpy.random') if m in sys.modules))")
    for args, loaded in (([], "[]"), (["draw"], "['numpy.random']")):
        done = subprocess.run([sys.executable, "-c", code] + args, capture_output=True,
                              text=True, timeout=120)
        assert done.stdout.strip() == loaded, done.stderr


@pytest.mark.cpu_independent("which thread loads the kernels; relu's output is exact on every CPU")
def test_a_first_call_takes_numpy_while_the_kernels_load_on_a_worker():
    """A fresh process never waits for numba: the first large relu is numpy's."""
    env = dict(os.environ, GRADVIZ_NUMBA="1")
    done = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


_FORK = textwrap.dedent("""
    import os
    import numpy as np
    from gradviz.engine import kernels

    x = np.linspace(-3, 3, 8192, dtype=np.float32)
    kernels.relu(x)  # starts the loader
    pid = os.fork()
    if pid == 0:  # numba may be half imported here: the child stays on numpy
        ok = np.array_equal(kernels.relu(x), np.maximum(x, 0)) and not kernels._ready
        kernels.warm_up()
        os._exit(0 if ok and not kernels._ready else 1)
    _, status = os.waitpid(pid, 0)
    kernels.warm_up()
    assert os.waitstatus_to_exitcode(status) == 0 and kernels._ready
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
@pytest.mark.cpu_independent("which code a forked child runs; relu's output is exact on every CPU")
def test_a_child_forked_while_the_kernels_load_keeps_numpy():
    env = dict(os.environ, GRADVIZ_NUMBA="1")
    done = subprocess.run([sys.executable, "-c", _FORK], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_without_numba_installed_the_twins_run(monkeypatch, used):
    monkeypatch.setattr(kernels, "ENABLED", True)
    monkeypatch.setattr(kernels, "_installed", False)
    x = sample(np.float32)
    np.testing.assert_array_equal(kernels.relu(x), np.maximum(x, 0))
    kernels.warm_up()
    assert used == []
