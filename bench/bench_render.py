"""PNG export of a generated 100-node document: median wall time against the 0.5 s target,
and CPU times (steadier than wall time on a shared machine): of all threads, and of the
calling thread, which paints while a worker codes; with a free second core the wall
time is close to the latter.

The picture is 9400 x 2100 points; at the default scale 2 it would exceed the PNG size
limit (render.export.MAX_PNG_SIDE), so it is drawn at the largest scale within it, and
the line printed gives the pixel size actually written.

    .venv/bin/python bench/bench_render.py [--nodes 100] [--repeat 7] [--scale 2]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "render"))

from types import SimpleNamespace  # noqa: E402

from graphs import chain, numpy_values  # noqa: E402

from gradviz.render import ensure_app, export  # noqa: E402

TARGET = 0.5


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--scale", type=float, default=2.0)
    args = parser.parse_args()
    ensure_app()
    doc = chain(args.nodes)
    evaluation = SimpleNamespace(values=numpy_values(doc), gradients={})
    times, cpu, main_cpu = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.png"
        export(doc, out, evaluation=evaluation, scale=args.scale)   # warm fonts and caches
        for _ in range(args.repeat):
            start, start_cpu, start_main = time.perf_counter(), time.process_time(), time.thread_time()
            export(doc, out, evaluation=evaluation, scale=args.scale)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            main_cpu.append(time.thread_time() - start_main)
        size = out.stat().st_size
        head = out.read_bytes()[16:24]
        width, height = int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")
    median = statistics.median(times)
    verdict = "ok" if median <= TARGET else "SLOW"
    print(f"PNG export, {len(doc.nodes)} nodes, scale {args.scale}: median {median * 1000:.0f} ms "
          f"(min {min(times) * 1000:.0f} ms; CPU: all threads {statistics.median(cpu) * 1000:.0f} ms, "
          f"calling thread {statistics.median(main_cpu) * 1000:.0f} ms; "
          f"{width} x {height} px, {size // 1024} KiB) target {TARGET * 1000:.0f} ms: {verdict}")
    return 0 if median <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
