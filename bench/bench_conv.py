"""Benchmark: conv2d forward + backward (input and filter gradients) against a numpy floor.

    .venv/bin/python bench/bench_conv.py [--rounds 15]

Workload (issue 19): input 32x28x28x8, filters 3x3x8x16, stride 1, SAME, float32; one
tape, tape.gradient of sum(conv2d(x, w) * seed) with respect to x and w. The floor is
hand-written numpy in this process: im2col once, one matmul forward, one for the filter
gradient, one for the input gradient and a col2im (numpy only; gradviz moves windows
with numba kernels on arrays this large, so it may beat the floor). One BLAS thread. The floor's and
gradviz's batches alternate; the ratio is the median of the per-round ratios
(target: <= 3x).
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import as_strided  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gradviz as tf  # noqa: E402

TARGET = 3.0
N, H, W, C, K, O = 32, 28, 28, 8, 3, 16


def numpy_floor(x, w, seed):
    """Forward and both gradients by hand: the fastest plain numpy we know to write."""
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    s = xp.strides
    cols = as_strided(xp, (N, H, W, K, K, C), (s[0], s[1], s[2], s[1], s[2], s[3]))
    cols = cols.reshape(N * H * W, K * K * C)
    y = (cols @ w.reshape(K * K * C, O)).reshape(N, H, W, O)
    g = seed.reshape(N * H * W, O)
    gw = (cols.T @ g).reshape(K, K, C, O)
    gcols = (g @ w.reshape(K * K * C, O).T).reshape(N, H, W, K, K, C)
    gxp = np.zeros_like(xp)
    for i in range(K):
        for j in range(K):
            gxp[:, i:i + H, j:j + W, :] += gcols[:, :, :, i, j, :]
    return y, gxp[:, 1:1 + H, 1:1 + W, :], gw


def gradviz_version(x, w, seed):
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.conv2d(x, w, 1, "SAME")
    gx, gw = tape.gradient(y, [x, w], output_gradients=seed)
    return y, gx, gw


def per_call(fn, args, seconds):
    """Average seconds per call over a batch lasting about `seconds`."""
    calls, start = 0, time.perf_counter()
    while True:
        fn(*args)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.2, help="length of one batch")
    args = parser.parse_args()
    np.ones(30 * 2**20, np.uint8)  # glibc then serves big arrays from its heap (see run.py)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, H, W, C)).astype(np.float32)
    w = rng.standard_normal((K, K, C, O)).astype(np.float32)
    seed = rng.standard_normal((N, H, W, O)).astype(np.float32)
    tx, tw, tseed = tf.constant(x), tf.constant(w), tf.constant(seed)
    for ours, floor in zip(gradviz_version(tx, tw, tseed), numpy_floor(x, w, seed)):
        assert ours.dtype == tf.float32
        np.testing.assert_allclose(ours.numpy(), floor, rtol=1e-4, atol=1e-3)
    floors, mine, ratios = [], [], []
    for _ in range(args.rounds):
        f = per_call(numpy_floor, (x, w, seed), args.seconds)
        g = per_call(gradviz_version, (tx, tw, tseed), args.seconds)
        floors.append(f)
        mine.append(g)
        ratios.append(g / f)
    q = statistics.quantiles
    print(f"conv2d {N}x{H}x{W}x{C} * {K}x{K}x{C}x{O}, forward + input and filter gradients, "
          f"float32, 1 thread, {args.rounds} alternating rounds")
    for name, times in (("numpy floor", floors), ("gradviz", mine)):
        lo, _, hi = q(times, n=4)
        print(f"  {name:12s} median {statistics.median(times) * 1e3:7.2f} ms "
              f"(quartiles {lo * 1e3:.2f}-{hi * 1e3:.2f})")
    lo, _, hi = q(ratios, n=4)
    ratio = statistics.median(ratios)
    print(f"  ratio        median {ratio:.2f}x (quartiles {lo:.2f}-{hi:.2f}); target <= {TARGET}x:"
          f" {'met' if ratio <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
