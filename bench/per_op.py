"""What one eager op costs: recording it on a tape and one step of the backward pass.

    .venv/bin/python bench/per_op.py [--rounds 11] [--by-function]

A chain of N multiplies of a 7x8 float32 tensor by a constant, run as written (no tape,
one tape, two nested tapes), then differentiated: by the numpy rules (nothing records the
pass) and recorded on an outer tape (a Hessian's inner gradient). Each line is a
difference of two of these, divided by N: CPU time per op (median of the rounds; the
load of other work on the machine inflates it) and Python bytecodes per op (sys.settrace
opcode events: exact, the same on any machine). The same chain in bare numpy is the
floor of one op. `--by-function` splits the bytecodes of each line by function.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import collections  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gradviz as tf  # noqa: E402

N = 200
_X = (np.random.default_rng(0).standard_normal((7, 8)) * 0.1).astype(np.float32)
_C = np.full((7, 8), 1.01, np.float32)
x = tf.Variable(_X)
c = tf.constant(_C)


def _chain(y):
    for _ in range(N):
        y = y * c
    return y


def numpy_chain():
    y = _X
    for _ in range(N):
        y = y * _C
    return y


def no_tape():
    _chain(x)


def one_tape():
    with tf.GradientTape():
        _chain(x)


def two_tapes():
    with tf.GradientTape():
        with tf.GradientTape():
            _chain(x)


def gradient():
    with tf.GradientTape() as tape:
        y = _chain(x)
    return tape.gradient(y, x)


def recorded_gradient():
    with tf.GradientTape():
        with tf.GradientTape() as inner:
            y = _chain(x)
        return inner.gradient(y, x)


# (what the line measures, the run, the run it is measured against)
LINES = [
    ("numpy multiply (the floor of one op)", numpy_chain, None),
    ("forward op with no tape (its numpy included)", no_tape, None),
    ("recording it on one tape", one_tape, no_tape),
    ("recording it on two nested tapes", two_tapes, no_tape),
    ("backward step on arrays (its numpy rule included)", gradient, one_tape),
    ("backward step recorded on an outer tape", recorded_gradient, two_tapes),
]


def _bytecodes(fn):
    """Opcodes executed by one call, by (file, function)."""
    counts = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            counts[(os.path.basename(code.co_filename), code.co_name)] += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--by-function", action="store_true")
    args = parser.parse_args()
    runs = list(dict.fromkeys(f for _, f, base in LINES for f in (f, base) if f is not None))
    for fn in runs:
        for _ in range(5):
            fn()
    codes = {fn: _bytecodes(fn) for fn in runs}
    times = {fn: [] for fn in runs}
    for _ in range(args.rounds):  # the runs alternate within each round
        for fn in runs:
            start = time.thread_time()
            for _ in range(20):
                fn()
            times[fn].append((time.thread_time() - start) / 20 / N * 1e6)
    median = {fn: statistics.median(t) for fn, t in times.items()}
    print(f"per op: a chain of {N} multiplies of 7x8 float32, CPU time median of "
          f"{args.rounds} rounds; bytecodes per op")
    for name, fn, base in LINES:
        us = median[fn] - (median[base] if base else 0)
        diff = collections.Counter(codes[fn])
        if base:
            diff.subtract(codes[base])
        print(f"  {name:52s} {us:6.2f} us  {sum(diff.values()) / N:6.1f} bytecodes")
        if args.by_function:
            for (where, function), n in diff.most_common(8):
                if n >= N / 2:
                    print(f"      {n / N:6.1f}  {where} {function}")


if __name__ == "__main__":
    main()
