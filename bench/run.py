"""gradviz against a hand-written numpy floor, on the workloads of bench/reference.md.

    .venv/bin/python bench/run.py [--quick] [--only W2,W5]

Everything runs in this one process, one BLAS thread (set before numpy is imported),
float32. Each workload's gradviz result is checked against the numpy floor's result
before it is timed. Times are medians of per-call averages over repeated batches; the
floor's and gradviz's batches alternate, and the ratio is the median of the per-round
ratios.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gradviz as tf  # noqa: E402

F32 = np.float32


def warm_allocator():
    """Allocate and free one 30 MB array, before anything is timed.

    glibc's malloc serves blocks above its mmap threshold (128 KB at start) with fresh
    mmap'd pages, and every first touch of such a page faults. Freeing one mmap'd block
    raises the threshold to that block's size (up to 32 MB), after which blocks come
    from the heap. Without this, the first workloads with arrays above 128 KB pay the
    page faults (numpy floor and gradviz alike, up to 5x) and results depend on the
    order of the workloads; any long-running process reaches this state by itself.
    """
    block = np.ones(30 * 2**20, np.uint8)
    del block


def _sides(body, inputs, floor):
    """(eager, floor, compiled): `body(*inputs)` as written and under tf.function. The
    inputs are arguments, so the compiled program cannot fold them into constants."""
    compiled = tf.function(body)
    compiled(*inputs)
    for concrete in compiled._traces.values():  # fused now, not after FUSE_AFTER_CALLS calls
        for program in concrete._programs.values():
            program.fuse()
    return (lambda: body(*inputs)), floor, (lambda: compiled(*inputs))


def _rng(seed=0):
    return np.random.default_rng(seed)


def _randn(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(F32)


# ---------------------------------------------------------------------------------------
# W1: t(5x3) @ b(3x3), d sum(y) / dt
# ---------------------------------------------------------------------------------------

def w1():
    rng = _rng(1)
    t_np, b_np = _randn(rng, 5, 3), _randn(rng, 3, 3)
    t, b = tf.Variable(t_np), tf.Variable(b_np)

    def body(t, b):
        with tf.GradientTape() as tape:
            y = tf.matmul(t, b)
        return tape.gradient(y, t)

    def floor():
        y = t_np @ b_np
        return np.ones_like(y) @ b_np.T

    return _sides(body, (t, b), floor)


# ---------------------------------------------------------------------------------------
# W2 / W3: MLP 32-128-10 (relu hidden layer) on 64 rows
# ---------------------------------------------------------------------------------------

def _mlp_params(seed=2):
    rng = _rng(seed)
    return dict(x=_randn(rng, 64, 32), w1=_randn(rng, 32, 128, scale=0.2),
                b1=_randn(rng, 128, scale=0.1), w2=_randn(rng, 128, 10, scale=0.2),
                b2=_randn(rng, 10, scale=0.1), target=_randn(rng, 64, 10))


def w2():
    p = _mlp_params()
    x, target = tf.constant(p["x"]), tf.constant(p["target"])
    params = [tf.Variable(p[k]) for k in ("w1", "b1", "w2", "b2")]
    W1, B1, W2, B2 = params

    def body(x, target):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, W1) + B1)
            y = tf.matmul(h, W2) + B2
            loss = tf.reduce_mean(tf.square(y - target))
        return tape.gradient(loss, params)

    xn, tn, w1n, b1n, w2n, b2n = (p[k] for k in ("x", "target", "w1", "b1", "w2", "b2"))

    def floor():
        a = xn @ w1n + b1n
        h = np.maximum(a, 0)
        y = h @ w2n + b2n
        d = y - tn
        _loss = np.mean(d * d)
        gy = d * F32(2.0 / d.size)
        gw2 = h.T @ gy
        gb2 = gy.sum(0)
        ga = (gy @ w2n.T) * (a > 0)
        gw1 = xn.T @ ga
        gb1 = ga.sum(0)
        return [gw1, gb1, gw2, gb2]

    return _sides(body, (x, target), floor)


def _w3_setup():
    p = _mlp_params(3)
    x = tf.constant(p["x"])
    W1, B1, W2, B2 = (tf.Variable(p[k]) for k in ("w1", "b1", "w2", "b2"))

    def forward(x):
        h = tf.nn.relu(tf.matmul(x, W1) + B1)
        return tf.matmul(h, W2) + B2

    def floor_batch():
        xn, w1n, b1n, w2n = p["x"], p["w1"], p["b1"], p["w2"]
        a = xn @ w1n + b1n
        mask = (a > 0).astype(F32)                         # (64, 128)
        # dy[b, o] / dx[b, i] = sum_h w2[h, o] mask[b, h] w1[i, h]
        return (mask[:, None, :] * w2n.T[None]) @ w1n.T    # (64, 10, 32)

    return x, forward, floor_batch


def w3_full():
    x, forward, floor_batch = _w3_setup()

    def body(x):
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(x)
            y = forward(x)
        return tape.jacobian(y, x)

    def floor():
        jb = floor_batch()
        n = jb.shape[0]
        j = np.zeros((n, jb.shape[1], n, jb.shape[2]), F32)
        r = np.arange(n)
        j[r, :, r, :] = jb
        return j

    return _sides(body, (x,), floor)


def w3_dense():
    """W3 with engine/blocks.py switched off: the dense pass over all 640 basis cotangents."""
    from gradviz.engine import blocks
    gv, floor, _ = w3_full()

    def dense():
        blocks.ENABLED = False
        try:
            return gv()
        finally:
            blocks.ENABLED = True

    return dense, floor, None


def w3_batch():
    x, forward, floor_batch = _w3_setup()

    def body(x):
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(x)
            y = forward(x)
        return tape.batch_jacobian(y, x)

    return _sides(body, (x,), floor_batch)


# ---------------------------------------------------------------------------------------
# W4: Hessian w.r.t. layer1.kernel via nested tapes (TF guide: advanced autodiff)
# ---------------------------------------------------------------------------------------

def _w4(n, d_in, d1, d2, seed):
    rng = _rng(seed)
    x_np = _randn(rng, n, d_in)
    layer1 = tf.keras.layers.Dense(d1, activation=tf.nn.relu)
    layer2 = tf.keras.layers.Dense(d2, activation=tf.nn.relu)
    layer2(layer1(tf.constant(x_np)))  # build
    k1, b1 = _randn(rng, d_in, d1, scale=0.5), _randn(rng, d1, scale=0.1)
    k2, b2 = _randn(rng, d1, d2, scale=0.5), _randn(rng, d2, scale=0.1)
    for var, value in ((layer1.kernel, k1), (layer1.bias, b1), (layer2.kernel, k2), (layer2.bias, b2)):
        var.assign(value)
    x = tf.constant(x_np)

    def body(x):
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                h = layer1(x)
                h = layer2(h)
                loss = tf.reduce_mean(h ** 2)
            g = t1.gradient(loss, layer1.kernel)
        return t2.jacobian(g, layer1.kernel)

    eye = np.eye(d_in * d1, dtype=F32).reshape(d_in * d1, d_in, d1)

    def floor():
        # Hand-written reverse-over-reverse, as an AD system does it: the forward, the
        # inner backward to g = dloss/dk1, then one batched backward of g's graph over
        # all d_in*d1 basis cotangents. relu'' = 0, so the masks are constants.
        a1 = x_np @ k1 + b1
        m1 = (a1 > 0).astype(F32)
        h1 = a1 * m1
        a2 = h1 @ k2 + b2
        m2 = (a2 > 0).astype(F32)
        h2 = a2 * m2
        scale = F32(2.0 / h2.size)
        _loss = np.mean(h2 * h2)
        ga1 = (((h2 * scale) * m2) @ k2.T) * m1
        _g = x_np.T @ ga1                                   # the inner gradient (d_in, d1)
        # Outer backward of g = x.T @ ga1 w.r.t. k1, seeds: the basis of g's shape.
        d_ga1 = x_np @ eye                                  # (B, n, d1)
        d_ga2 = (d_ga1 * m1) @ k2                           # (B, n, d2)
        d_a2 = d_ga2 * (m2 * scale)                         # through h2 * scale * m2
        d_a1 = (d_a2 @ k2.T) * m1                           # back through the forward
        H = x_np.T @ d_a1                                   # (B, d_in, d1)
        return H.reshape(d_in, d1, d_in, d1)

    return _sides(body, (x,), floor)


def w4_small():
    return _w4(7, 5, 8, 6, 4)


def w4_large():
    return _w4(16, 20, 30, 10, 5)


# ---------------------------------------------------------------------------------------
# W5: 500 chained elementwise ops on 1000 floats, gradient of the sum
# ---------------------------------------------------------------------------------------

CHAIN = ("sin", "scale", "shift", "tanh", "exp") * 100  # 500 ops; values stay in [-1, e]


def w5():
    x_np = _randn(_rng(6), 1000)
    x = tf.constant(x_np)

    def body(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for op in CHAIN:
                if op == "sin":
                    y = tf.sin(y)
                elif op == "scale":
                    y = y * 0.9
                elif op == "shift":
                    y = y + 0.1
                elif op == "tanh":
                    y = tf.tanh(y)
                else:
                    y = tf.exp(y)
            s = tf.reduce_sum(y)
        return tape.gradient(s, x)

    def floor():
        saved = []
        y = x_np
        for op in CHAIN:
            if op == "sin":
                saved.append(y)
                y = np.sin(y)
            elif op == "scale":
                y = y * 0.9
            elif op == "shift":
                y = y + 0.1
            elif op == "tanh":
                y = np.tanh(y)
                saved.append(y)
            else:
                y = np.exp(y)
                saved.append(y)
        _s = y.sum()
        g = np.ones_like(y)
        for op in reversed(CHAIN):
            if op == "sin":
                g = g * np.cos(saved.pop())
            elif op == "scale":
                g = g * 0.9
            elif op == "tanh":
                y = saved.pop()
                g = g * (1 - y * y)
            elif op == "exp":
                g = g * saved.pop()
        return g

    return _sides(body, (x,), floor)


# id, title, setup, eager target, compiled target (ratios to the floor), reference.md's
# numpy floor and jax.jit's time (its ratio there is jax.jit / numpy).
WORKLOADS = [
    ("W1", "t(5x3)@b(3x3), d sum(y)/dt", w1, 5.0, 2.0, 2.8e-6, 6.6e-6),
    ("W2", "MLP 32-128-10 on 64 rows, grad of MSE (4 params)", w2, 1.8, 1.3, 42e-6, 100e-6),
    ("W3", "full Jacobian dy/dx (64,10,64,32)", w3_full, 8.0, 2.0, 392e-6, 11.5e-3),
    ("W3d", "  same, dense pass (block detection off)", w3_dense, None, None, None, None),
    ("W3b", "batch_jacobian (64,10,32)", w3_batch, 1.5, 0.6, 184e-6, 111e-6),
    ("W4", "Hessian wrt 5x8 kernel (nested tapes)", w4_small, 3.0, 1.2, 65e-6, 79e-6),
    ("W4L", "Hessian wrt 20x30 kernel (x 16x20, 30, 10)", w4_large, 3.0, 1.5, 979e-6, 2.84e-3),
    ("W5", "500 chained elementwise ops on 1000 floats", w5, 2.5, 0.4, 796e-6, 394e-6),
]


# ---------------------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------------------

def _as_arrays(result):
    if isinstance(result, (list, tuple)):
        return [np.asarray(r) for r in result]
    return [np.asarray(result)]


def check(name, gv, floor):
    got, want = _as_arrays(gv()), _as_arrays(floor())
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{name}: shape {g.shape} != {w.shape}"
        assert g.dtype == np.float32, f"{name}: dtype {g.dtype}"
        atol = 1e-5 * max(1.0, float(np.abs(w).max()))
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=atol, err_msg=name)


# What a batch is timed with: wall time by default; `--cpu` takes this process's CPU
# time, which leaves out the time other processes hold the cores (on this shared VM,
# under load, the wall time of a batch measures them as much as the workload).
_clock = time.perf_counter


def _batch_size(fn, batch_seconds):
    """Calls per timed batch so that one batch lasts about `batch_seconds`."""
    fn()
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    probe = max(1, min(20, int(batch_seconds / max(once, 1e-7))))
    start = time.perf_counter()
    for _ in range(probe):  # the first calls are often slower: calibrate on a few more
        fn()
    once = (time.perf_counter() - start) / probe
    return max(1, int(batch_seconds / max(once, 1e-7)))


def _batch(fn, number):
    clock = _clock
    start = clock()
    for _ in range(number):
        fn()
    return (clock() - start) / number


def compare(floor, sides, batch_seconds, repeats):
    """Median per-call times of `floor` and of each of `sides`, and for each side the
    median and the spread (lowest, highest) of its per-round ratio to the floor.

    Batches alternate (floor, side 1, side 2, floor, ...), so a change of machine speed
    (this is a shared VM) hits both sides of a ratio alike.
    """
    n_np = _batch_size(floor, batch_seconds)
    counts = [_batch_size(fn, batch_seconds) for fn in sides]
    t_np, times = [], [[] for _ in sides]
    for _ in range(repeats):
        t_np.append(_batch(floor, n_np))
        for fn, n, t in zip(sides, counts, times):
            t.append(_batch(fn, n))
    results = []
    for t in times:
        ratios = [g / f for f, g in zip(t_np, t)]
        results.append((statistics.median(t), statistics.median(ratios), min(ratios),
                        max(ratios)))
    return statistics.median(t_np), results


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


IMPORT_SNIPPET = r"""
import time
t0 = time.perf_counter()
import numpy
tn = time.perf_counter()
import gradviz as tf
t1 = time.perf_counter()
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
w = tf.Variable([[0.5, -1.0], [2.0, 0.25]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)) ** 2)
g = tape.gradient(loss, w)
t2 = time.perf_counter()
%s
t3 = time.perf_counter()
print(tn - t0, t1 - t0, t2 - t0, t3 - t0)
"""

# The W2 MLP: its relu runs on 64x128 elements, above kernels.MIN_SIZE: numba starts
# loading on a worker thread, and this first gradient takes the numpy twins meanwhile.
MLP_SNIPPET = r"""
import numpy as np
x = tf.constant(np.ones((64, 32), np.float32))
W1 = tf.Variable(np.full((32, 128), 0.01, np.float32)); W2 = tf.Variable(np.full((128, 10), 0.01, np.float32))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, W1)), W2)))
gs = tape.gradient(loss, [W1, W2])
"""


def measure_import(runs):
    """Fresh processes: import numpy alone, import gradviz, first gradient (small), first
    MLP gradient (numba), whole process; each as (median, lowest, highest).

    Python's modules come from a bytecode cache (a temporary PYTHONPYCACHEPREFIX, written
    by the first run), as in an installed copy: under PYTHONDONTWRITEBYTECODE=1, which
    some shells set, a source checkout compiles every module of gradviz again in every
    process (~90 ms more here)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        code = IMPORT_SNIPPET % MLP_SNIPPET
        cmd = [sys.executable, "-c", code]
        subprocess.run(cmd, env=env, check=True, capture_output=True)  # warm numba's and Python's caches
        rows = []
        for _ in range(runs):
            start = time.perf_counter()
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            wall = time.perf_counter() - start
            rows.append([float(v) for v in out.split()] + [wall])
    return [(statistics.median(col), min(col), max(col)) for col in zip(*rows)]


def _cell(ratio, low, high, target):
    met = "" if target is None else (" ok" if ratio <= target else " NO")
    return f"{ratio:5.2f} ({low:.2f}-{high:.2f}){met}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter batches")
    parser.add_argument("--only", default="", help="comma-separated workload ids (W1,W3b,...)")
    parser.add_argument("--no-import", action="store_true", help="skip the fresh-process test")
    parser.add_argument("--cpu", action="store_true",
                        help="time batches in this process's CPU time, not wall time")
    args = parser.parse_args(argv)
    global _clock
    _clock = time.process_time if args.cpu else time.perf_counter
    batch, repeats = (0.02, 5) if args.quick else (0.1, 15)
    only = {s.strip().upper() for s in args.only.split(",") if s.strip()}

    warm_allocator()
    # The numba kernels load on a worker thread at their first use, and calls take the
    # numpy twins until then: loaded now, every workload is timed with them, as in a
    # process that has run a while (before, `--only W3b` timed the twins).
    from gradviz.engine import kernels
    kernels.warm_up()
    import numba
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
          f"{'quick' if args.quick else 'full'} run: median of {repeats} alternating batches "
          f"of ~{batch}s{' (CPU time)' if args.cpu else ''}. Ratios to the numpy floor: median (lowest-highest round), ok/NO "
          "against the target; jax.jit: its ratio in reference.md")
    header = (f"{'id':<4} {'workload':<44} {'numpy':>9} {'eager':>9} {'eager ratio':>23} "
              f"{'compiled':>9} {'compiled ratio':>23} {'jax.jit':>7}")
    print(header)
    print("-" * len(header))
    missed = []
    for wid, title, make, target, target_compiled, ref_floor, ref_jax in WORKLOADS:
        if only and wid.upper() not in only:
            continue
        gv, floor, compiled = make()
        check(wid, gv, floor)
        sides = [gv]
        if compiled is not None:
            check(wid + " compiled", compiled, floor)
            sides.append(compiled)
        t_np, results = compare(floor, sides, batch, repeats)
        t_gv, ratio, low, high = results[0]
        line = (f"{wid:<4} {title:<44} {fmt(t_np):>9} {fmt(t_gv):>9} "
                f"{_cell(ratio, low, high, target) + (' (<=' + format(target, 'g') + ')' if target else ''):>23}")
        if target is not None and ratio > target:
            missed.append(wid)
        if compiled is not None:
            t_c, ratio_c, low_c, high_c = results[1]
            jax = ref_jax / ref_floor
            line += (f" {fmt(t_c):>9} "
                     f"{_cell(ratio_c, low_c, high_c, target_compiled) + ' (<=' + format(target_compiled, 'g') + ')':>23}"
                     f" {jax:>7.2f}")
            if ratio_c > target_compiled:
                missed.append(wid + " compiled")
        print(line, flush=True)

    if not args.no_import and not only:
        runs = 3 if args.quick else 7
        t_numpy, t_import, t_first, t_mlp, wall = measure_import(runs)
        met = t_first[0] <= 0.5
        met_mlp = t_mlp[0] <= 0.25

        def spread(t):
            return f"{fmt(t[0])} ({fmt(t[1])}-{fmt(t[2])})"

        print(f"\nfresh process (warm numba and bytecode caches), median (lowest-highest) of {runs}: "
              f"import numpy alone {spread(t_numpy)}; with gradviz {spread(t_import)}, "
              f"+ first gradient {spread(t_first)} (target <= 0.5 s: {'yes' if met else 'NO'}), "
              f"+ first MLP gradient (numba loading on a worker) {spread(t_mlp)} "
              f"(target <= 0.25 s: {'yes' if met_mlp else 'NO'}); whole process {spread(wall)}")
        if not met:
            missed.append("import")
        if not met_mlp:
            missed.append("cold MLP")
    print("\nall targets met" if not missed else f"\ntargets missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
