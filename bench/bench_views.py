"""Hessian heatmap update time: a new 600x600 matrix shown and painted, median vs 30 ms.

    .venv/bin/python bench/bench_views.py [--size 600] [--repeats 30]

One update = Heatmap.set_matrix (colour range, image, colour bar) plus a synchronous
repaint of the plot, so the colour lookup and the drawing are included.
Runs offscreen unless a display is set.
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gradviz.app.views.heatmap import Heatmap  # noqa: E402

BUDGET_MS = 30.0


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    heatmap = Heatmap("variable index i", "variable index j")
    heatmap.resize(900, 700)
    heatmap.show()
    app.processEvents()
    rng = np.random.default_rng(0)
    n = args.size
    matrices = []
    for _ in range(4):
        a = rng.standard_normal((n, n)).astype(np.float32)
        matrices.append(a + a.T)
    times = []
    for i in range(args.repeats + 3):
        m = matrices[i % len(matrices)] * (1 + i)
        start = time.perf_counter()
        heatmap.set_matrix(m, (n,), (n,), ("loss", "w"))
        heatmap.graphics.viewport().repaint()
        times.append((time.perf_counter() - start) * 1000)
    times = times[3:]   # the first paints warm caches
    median = statistics.median(times)
    verdict = "OK" if median <= BUDGET_MS else "OVER BUDGET"
    print(f"Hessian heatmap update {n}x{n}: median {median:.2f} ms, "
          f"min {min(times):.2f} ms, max {max(times):.2f} ms over {len(times)} "
          f"(budget {BUDGET_MS:.0f} ms): {verdict}")
    return 0 if median <= BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
