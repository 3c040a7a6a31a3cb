"""Instructions per call of run.py's workloads, counted by callgrind: deterministic where
time on this shared VM is not (the load of other sessions moves a ratio by 20 % from run
to run, an instruction count by well under 1 %).

    .venv/bin/python bench/instructions.py W4 eager        # one side of one workload
    .venv/bin/python bench/instructions.py W2,W4 eager,floor --calls 20

Each count runs valgrind once: numba off (its kernels are not what this measures, and
valgrind runs them slowly), PYTHONHASHSEED=0, three calls before counting; callgrind
counts only inside functools.reduce, which makes the calls, so the imports and the
workload's set-up are left out. Needs valgrind (apt-get install valgrind).
"""
import argparse
import functools
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _child(workload, side, calls):
    sys.path.insert(0, HERE)
    import run
    make = {"W1": run.w1, "W2": run.w2, "W3": run.w3_full, "W3b": run.w3_batch,
            "W4": run.w4_small, "W4L": run.w4_large, "W5": run.w5}[workload]
    eager, floor, compiled = make()
    fn = {"eager": eager, "floor": floor, "compiled": compiled}[side]
    for _ in range(3):
        fn()
    functools.reduce(lambda carried, _: (fn(), carried)[1], range(calls), 0)


def count(workload, side, calls):
    """Instructions per call of `side` ('eager', 'floor', 'compiled') of `workload`."""
    env = dict(os.environ, GRADVIZ_NUMBA="0", PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                        "--toggle-collect=functools_reduce", f"--callgrind-out-file={out}",
                        sys.executable, os.path.abspath(__file__), "--child", workload, side,
                        str(calls)],
                       env=env, check=True, capture_output=True)
        with open(out) as f:
            for line in f:
                if line.startswith("totals:") or line.startswith("summary:"):
                    return int(line.split()[1]) // calls
    raise RuntimeError("callgrind wrote no totals")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        _child(argv[1], argv[2], int(argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workloads", help="comma-separated: W1,W2,W3,W3b,W4,W4L,W5")
    parser.add_argument("sides", nargs="?", default="eager,floor",
                        help="comma-separated: eager,floor,compiled")
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)
    for workload in args.workloads.split(","):
        for side in args.sides.split(","):
            print(f"{workload:4s} {side:9s} {count(workload, side, args.calls):>12,d}")


if __name__ == "__main__":
    main()
