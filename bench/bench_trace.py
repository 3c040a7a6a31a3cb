"""`gradviz trace` at scale (issue 25 §3): converting a tape of 10,000 and 100,000 ops to a
document, and the peak memory of tracing a training loop of 1,500 steps on 1000x1000 weights.

    .venv/bin/python bench/bench_trace.py            # conversion only (~30 s)
    .venv/bin/python bench/bench_trace.py --loop     # also the training loop (~1 min)

Conversion is timed in this process, once per size (a tape of a chain of sin ops on one
scalar: the names of 100,000 ops all share one stem, the naming's worst case). Before the
fix, names were probed from 1 each time: 10,000 ops took 18.6 s and 100,000 did not end
in 300 s. The loop runs `gradviz trace` in a child and reads its peak RSS (before, trace
kept every step's tape: past 6 GB).
"""
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gradviz as tf  # noqa: E402
from gradviz.graph.capture import from_tape  # noqa: E402


def convert(n):
    x = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        y = x
        for _ in range(n):
            y = tf.sin(y)
    start = time.perf_counter()
    doc = from_tape(tape, y, x)
    seconds = time.perf_counter() - start
    assert len(doc.nodes) == n + 1
    return seconds


LOOP = """
    import numpy as np
    import gradviz as tf
    W = tf.Variable(np.full((1000, 1000), 0.01, "float32"))
    for step in range(1500):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(W * W)
        W.assign_sub(1e-6 * tape.gradient(loss, W))
"""


def training_loop():
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "loop.py"
        script.write_text(textwrap.dedent(LOOP), encoding="utf-8")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "gradviz", "trace", str(script), "-o",
                               str(Path(folder) / "doc.json")], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        seconds = time.perf_counter() - start
        assert done.returncode == 0, done.stderr
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak


def main():
    for n in (10_000, 100_000):
        print(f"convert a tape of {n:,} ops: {convert(n):.2f} s")
    if "--loop" in sys.argv:
        seconds, peak = training_loop()
        print(f"trace a 1,500-step loop on 1000x1000 weights: {seconds:.1f} s, "
              f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
