"""tf.function's compiled replay: random programs (ops, tapes, gradients, Jacobians,
Hessians, Variable assigns) give the same numbers decorated and undecorated, call after
call; Python side effects run at trace time only; Variables are read at run time; Python
control flow on a traced value falls back to eager with a warning naming the line."""
import warnings

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.function import FunctionFallbackWarning, RetracingWarning

TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}

UNARY = [tf.sin, tf.cos, tf.tanh, tf.nn.relu, tf.nn.sigmoid, lambda a: tf.square(tf.tanh(a)),
         tf.nn.softplus,
         tf.abs, lambda a: a * 2.5, lambda a: -a, lambda a: tf.exp(tf.clip_by_value(a, -3, 3)),
         lambda a: tf.nn.elu(a), lambda a: tf.sqrt(a * a + 1.0), lambda a: a / (a * a + 2.0)]
BINARY = [tf.add, tf.multiply, tf.subtract, tf.maximum, lambda a, b: a * b + a]


def _random_program(seed):
    """A random function of (x, b) and a captured Variable w: ops drawn from the lists
    above, a matmul, a reduction; it returns the value, the gradient, a Jacobian, a
    batch Jacobian and a Hessian (nested tapes), and assigns the Variable."""
    rng = np.random.default_rng(seed)
    plan = [(rng.integers(3), rng.integers(len(UNARY)), rng.integers(len(BINARY)),
             rng.integers(100)) for _ in range(rng.integers(3, 9))]

    def body(x, b, w):
        values = [x]
        for kind, u, k, j in plan:
            a = values[-1]
            if kind == 0:
                values.append(UNARY[u](a))
            elif kind == 1:  # bounded, so that no program overflows
                values.append(tf.tanh(BINARY[k](a, values[j % len(values)])))
            else:
                values.append(tf.tanh(a @ w + b))
        return values[-1]

    def f(x, b, w):
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(b)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, b])
                y = body(x, b, w) + tf.sin(b)  # b always reaches y
                loss = tf.reduce_sum(y * y)
            g = tape.gradient(loss, [x, b, w], unconnected_gradients="zero")
            gb = tape.gradient(loss, b)
        jacobian = tape.jacobian(y, x)
        batch = tape.batch_jacobian(y, x)
        hessian = outer.jacobian(gb, b)
        w.assign_sub(0.01 * g[2])
        return {"y": y, "loss": loss, "grads": g, "jacobian": jacobian,
                "batch_jacobian": batch, "hessian": hessian, "w": w.read_value()}
    return f


def _check_equal(got, expected, dtype):
    flat_got, flat_expected = tf.nest.flatten(got), tf.nest.flatten(expected)
    assert len(flat_got) == len(flat_expected)
    for a, e in zip(flat_got, flat_expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=TOLERANCE[dtype],
                                   atol=TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(12))
def test_random_programs_give_the_same_results_compiled_and_eager(seed, dtype):
    rng = np.random.default_rng(100 + seed)
    f = _random_program(seed)
    w_eager = tf.Variable(rng.normal(size=(4, 4)).astype(dtype) * 0.5)
    w_compiled = tf.Variable(w_eager.numpy())
    compiled = tf.function(f)
    for call in range(3):  # the first call traces; the next ones replay the program
        x = tf.constant(rng.normal(size=(3, 4)).astype(dtype))
        b = tf.constant(rng.normal(size=(4,)).astype(dtype))
        expected = f(x, b, w_eager)
        got = compiled(x, b, w_compiled)
        _check_equal(got, expected, dtype)
        np.testing.assert_allclose(w_compiled.numpy(), w_eager.numpy(),
                                   rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
    assert compiled.experimental_get_tracing_count() == 1
    assert "leaves" in compiled.get_concrete_function(x, b, w_compiled).program_source[0]


def test_the_replay_is_a_numpy_program_not_a_python_rerun():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)  # a Python side effect: at trace time only, as in TF
        print("tracing")
        return tf.reduce_sum(tf.sin(x) * x)

    x = tf.constant([1.0, 2.0])
    for value in ([1.0, 2.0], [3.0, -1.0], [0.5, 0.25]):
        x = tf.constant(value)
        np.testing.assert_allclose(f(x).numpy(), np.sum(np.sin(value) * np.array(value)),
                                   rtol=1e-6)
    assert calls == [1]
    source = f.get_concrete_function(x).program_source[0]
    assert "Tensor" not in source and "tape" not in source.lower()


def test_variables_are_read_at_run_time_and_assigned_at_every_call():
    v = tf.Variable([1.0, 2.0])
    counter = tf.Variable(0.0)

    @tf.function
    def f(x):
        counter.assign_add(1.0)
        return tf.reduce_sum(v * x)

    x = tf.constant([10.0, 100.0])
    assert f(x).numpy() == pytest.approx(210.0)
    v.assign([3.0, 4.0])             # updated between calls: the next call sees it
    assert f(x).numpy() == pytest.approx(430.0)
    assert counter.numpy() == 2.0
    assert f.experimental_get_tracing_count() == 1


def test_a_training_step_with_an_optimizer_matches_eager_step_by_step():
    rng = np.random.default_rng(3)
    x = tf.constant(rng.normal(size=(16, 5)).astype(np.float32))
    y = tf.constant(rng.normal(size=(16, 1)).astype(np.float32))

    def make():
        w = tf.Variable(np.full((5, 1), 0.1, np.float32))
        b = tf.Variable([0.0])
        opt = tf.keras.optimizers.Adam(0.05)

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.nn.relu(x @ w + b) - y) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
            return loss
        return step, w, opt

    eager, w_eager, opt_eager = make()
    compiled, w_compiled, opt_compiled = make()
    compiled = tf.function(compiled)
    for _ in range(5):
        np.testing.assert_allclose(compiled(x, y).numpy(), eager(x, y).numpy(), rtol=1e-6)
    np.testing.assert_allclose(w_compiled.numpy(), w_eager.numpy(), rtol=1e-6)
    assert int(opt_compiled.iterations.numpy()) == 5


def test_random_draws_are_fresh_at_every_call_as_in_eager():
    @tf.function
    def noisy(x):
        return x + tf.random.normal([3])

    x = tf.zeros([3])
    tf.random.set_seed(5)
    got = [noisy(x).numpy() for _ in range(3)]
    tf.random.set_seed(5)
    expected = [(x + tf.random.normal([3])).numpy() for _ in range(3)]
    np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(got[1], got[2])


def test_python_control_flow_on_a_traced_value_falls_back_to_eager_naming_the_line():
    seen = []

    @tf.function
    def f(x):
        seen.append(1)
        if tf.reduce_sum(x) > 0:  # the line the warning names
            return x * 2.0
        return -x

    with pytest.warns(FunctionFallbackWarning, match=r"test_function_compiled.py:\d+ "
                      r"\(if tf.reduce_sum\(x\) > 0:"):
        assert f(tf.constant([1.0])).numpy() == pytest.approx(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once: later calls run eagerly in silence
        assert f(tf.constant([-3.0])).numpy() == pytest.approx(3.0)
    assert seen == [1, 1]  # eager: the Python body runs at every call


def test_control_flow_on_a_constant_or_a_shape_compiles():
    @tf.function
    def f(x):
        if x.shape[0] > 1 and tf.constant(2.0) > 1.0:
            return x * 3.0
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(tf.constant([1.0, 2.0]))
        np.testing.assert_allclose(f(tf.constant([5.0, 6.0])).numpy(), [15.0, 18.0])


def test_a_new_signature_retraces_and_repeated_retracing_warns():
    @tf.function
    def f(x):
        return x * x

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(1, 5):
            np.testing.assert_allclose(f(tf.ones([n])).numpy(), np.ones(n))
    assert f.experimental_get_tracing_count() == 4
    with pytest.warns(RetracingWarning, match="traced 5 times"):
        f(tf.ones([5]))


def test_input_signature_with_a_none_dimension_serves_every_batch_size():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64)])
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.tanh(x) ** 2)
        return tape.gradient(y, x)

    for rows in (1, 3, 7, 3):
        x = np.linspace(-1, 1, 2 * rows).reshape(rows, 2)
        expected = 2 * np.tanh(x) * (1 - np.tanh(x) ** 2)
        np.testing.assert_allclose(f(x).numpy(), expected, rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1


def test_an_outer_tape_differentiates_through_a_compiled_call():
    @tf.function
    def f(x):
        return tf.reduce_sum(tf.sin(x) * x)

    x = tf.constant([0.3, 1.2])
    f(x)  # traced and compiled
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    v = x.numpy()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos(v) * v + np.sin(v),
                               rtol=1e-6)


def test_a_block_diagonal_jacobian_compiles_to_its_blocks():
    """jacobian's row-block path (blocks.py) is in the trace: the same numbers, and the
    placing op's gradient checked against finite differences (1st and 2nd order)."""
    from gradviz.engine.blocks import DIAGONAL_BLOCKS
    from gradviz.engine.execute import apply
    from gradviz.test_util import check_grads

    w = tf.Variable(np.linspace(-1, 1, 12).reshape(3, 4))

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(x @ w)
        return tape.jacobian(y, x)

    compiled = tf.function(f)
    for seed in range(2):
        x = tf.constant(np.random.default_rng(seed).normal(size=(5, 3)))
        np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=1e-12, atol=1e-12)
    source = compiled.get_concrete_function(x).program_source[0]
    assert "# DiagonalBlocks" in source and "# ConcatV2" not in source  # one pass of 4 seeds
    rng = np.random.default_rng(1)
    check_grads(lambda b, fill: tf.sin(apply(DIAGONAL_BLOCKS, (b, fill))),
                [rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 4))], order=2)


def test_a_block_diagonal_jacobian_has_eagers_zeros_off_its_blocks():
    """Off the blocks, the zero seed's pass gives 0 · -2 = -0 here: eager writes a fresh
    +0 there unless a NaN or ∞ came through, and so does the compiled placing, which
    copied the fill, -0 included (the copy that was slow, see _diagonal_blocks_forward),
    while a NaN fill is still placed."""
    c = tf.constant(np.array([-2.0, 3.0], np.float32))

    def f(x, p):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * c * p
        return tape.jacobian(y, x)

    compiled = tf.function(f)
    x = tf.constant(np.arange(1, 7, dtype=np.float32).reshape(3, 2))
    # p = ∞: 0 · ∞ is NaN in the 24 entries off the blocks and 6 inside them.
    for p, nans in ((1.0, 0), (np.inf, 30)):
        eager, traced = f(x, tf.constant(p)).numpy(), compiled(x, tf.constant(p)).numpy()
        assert np.isnan(eager).sum() == np.isnan(traced).sum() == nans
        np.testing.assert_array_equal(traced, eager)
        numbers = ~np.isnan(eager)
        np.testing.assert_array_equal(np.signbit(traced[numbers]), np.signbit(eager[numbers]))
    off = np.broadcast_to(~np.eye(3, dtype=bool)[:, None, :, None], traced.shape)
    assert np.isnan(traced[off]).all()
    traced = compiled(x, tf.constant(1.0)).numpy()
    assert not traced[off].any() and not np.signbit(traced[off]).any()  # +0 off the blocks


@pytest.mark.slow  # numba compiles the fused kernels into an empty cache: seconds
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_programs_give_the_same_results(dtype, tmp_path, monkeypatch):
    """Elementwise runs fused into numba kernels (fuse.py) compute as the ops: on small
    arrays (every op fuses) and through a Masked select and a ReluGrad."""
    monkeypatch.setenv("GRADVIZ_KERNEL_CACHE", str(tmp_path))
    w = tf.Variable(np.linspace(-1, 1, 12).reshape(4, 3).astype(dtype))

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = tf.nn.relu(x * 1.5 - 0.25) + tf.sin(x) * tf.exp(-x)
            y = tf.reduce_sum(tf.maximum(h @ w, 0.1) ** 2 / (1.0 + tf.abs(h @ w)))
        return y, tape.gradient(y, x)

    compiled = tf.function(f)
    x = tf.constant(np.random.default_rng(0).normal(size=(5, 4)).astype(dtype))
    compiled(x)
    program = compiled.get_concrete_function(x)._programs[next(iter(
        compiled.get_concrete_function(x)._programs))]
    program.fuse()
    assert program.fused and "# fused" in program.source
    assert list(tmp_path.glob("fused_*.py"))  # the kernels' sources, in the cache
    for seed in range(3):
        x = tf.constant(np.random.default_rng(seed).normal(size=(5, 4)).astype(dtype))
        _check_equal(compiled(x), f(x), dtype)


def test_a_program_starts_fusing_once_after_its_calls(monkeypatch):
    from gradviz.engine import trace_program
    started = []
    monkeypatch.setattr(trace_program.Program, "fuse", lambda self: started.append(self))
    f = tf.function(lambda x: x * 2.0 + 1.0)
    x = tf.constant([1.0, 2.0])
    for _ in range(3 * trace_program.FUSE_AFTER_CALLS):
        f(x)
    import time
    for _ in range(100):  # the fusing runs on a worker thread
        if started:
            break
        time.sleep(0.01)
    assert len(started) == 1


def test_a_variable_made_at_every_call_falls_back_and_a_layer_built_once_compiles():
    @tf.function
    def fresh(x):
        v = tf.Variable(0.0)
        v.assign_add(x)
        return v.read_value()

    with pytest.warns(FunctionFallbackWarning, match="makes a tf.Variable at every call"):
        results = [fresh(tf.constant(float(k))).numpy() for k in (1, 2, 3)]
    assert results == [1.0, 2.0, 3.0]  # as eager: a new Variable at every call

    layer = tf.keras.layers.Dense(2)

    def model(x):
        return tf.reduce_sum(layer(x) ** 2)  # builds the layer at the first call

    compiled = tf.function(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionFallbackWarning)
        for k in range(4):
            x = tf.constant(np.full((3, 4), k + 0.5, np.float32))
            np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert len(layer.trainable_variables) == 2


@pytest.mark.slow  # numba compiles the fused kernels into an empty cache: seconds
def test_a_fused_float32_chain_matches_eager(tmp_path, monkeypatch):
    """1000 floats: sin, cos, exp and tanh fuse with the arithmetic between them, in
    their float32 vector forms (_vector_math.py), forward and backward."""
    scale = 1.0
    monkeypatch.setenv("GRADVIZ_KERNEL_CACHE", str(tmp_path))

    def chain(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(3):
                y = tf.exp(tf.tanh(tf.sin(y * scale) * 0.9 + 0.1)) + tf.cos(y)
            s = tf.reduce_sum(y)
        return s, tape.gradient(s, x)

    compiled = tf.function(chain)
    x = tf.constant(np.linspace(-3, 3, 1000, dtype=np.float32))
    compiled(x)
    program = next(iter(compiled.get_concrete_function(x)._programs.values()))
    program.fuse()
    assert program.fused and "# fused" in program.source
    assert not any(f"# {op}" in program.source for op in ("Sin", "Cos", "Exp", "Tanh"))
    kernels = "".join(p.read_text() for p in tmp_path.glob("fused_*.py"))
    assert all(f"vm.{f}32" in kernels for f in ("sin", "cos", "exp", "tanh"))
    for seed in range(2):
        x = tf.constant(np.random.default_rng(seed).uniform(-3, 3, 1000).astype(np.float32))
        _check_equal(compiled(x), chain(x), np.float32)


def test_run_functions_eagerly_runs_the_python_body_at_every_call():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x * 2.0

    x = tf.constant([1.0])
    f(x)
    f(x)
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        np.testing.assert_allclose(f(x).numpy(), [2.0])
        f(x)
    finally:
        tf.config.run_functions_eagerly(False)
    assert calls == [1, 1, 1] and not tf.config.functions_run_eagerly()


@pytest.mark.parametrize("make", [
    lambda n: tf.range(n),
    lambda n: tf.fill([2], n),
    lambda n: tf.constant(n) * 1,
    lambda n: tf.constant([n, n]) * 1,
    lambda n: tf.zeros(n),
], ids=["range", "fill", "constant", "constant of a list", "zeros"])
def test_a_tensor_made_from_a_traced_value_falls_back_instead_of_freezing_it(make):
    """The value would become a constant of the trace: the next call gave the first
    call's answer. It falls back to eager (as Python control flow on a value)."""
    f = tf.function(make)
    with pytest.warns(FunctionFallbackWarning):
        first = f(tf.constant(2))
    second = f(tf.constant(3))
    np.testing.assert_array_equal(first.numpy(), make(tf.constant(2)).numpy())
    np.testing.assert_array_equal(second.numpy(), make(tf.constant(3)).numpy())


@pytest.mark.parametrize("make", [
    lambda x: tf.reshape(x, tf.cast(x[:2], tf.int32)),
    lambda x: tf.reduce_logsumexp(x),
    lambda x: tf.where(x > 0.0),
], ids=["a shape from a value", "logsumexp's shift", "where's indices"])
def test_values_read_in_numpy_by_an_op_fall_back(make):
    """These ops read a traced value in numpy (a shape, a shift, indices): compiled, the
    first call's would be frozen in; they fall back to eager instead."""
    f = tf.function(make)
    with pytest.warns(FunctionFallbackWarning):
        f(tf.constant([2.0, 2.0, -1.0, 2.0]))
    x = tf.constant([1.0, 4.0, 90.0, -5.0])  # another shape, shift and indices
    np.testing.assert_allclose(f(x).numpy(), make(x).numpy())


def test_a_method_compiles_per_instance_and_reads_its_variables():
    class Model:
        def __init__(self, scale):
            self.w = tf.Variable(np.full((2, 1), scale, np.float32))

        @tf.function
        def __call__(self, x):
            return tf.reduce_sum(x @ self.w)

    a, b = Model(1.0), Model(10.0)
    x = tf.constant([[1.0, 2.0]])
    for _ in range(3):
        assert a(x).numpy() == pytest.approx(3.0) and b(x).numpy() == pytest.approx(30.0)
    a.w.assign([[2.0], [2.0]])
    assert a(x).numpy() == pytest.approx(6.0) and b(x).numpy() == pytest.approx(30.0)
