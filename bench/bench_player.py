"""Benchmark: frame time of the backprop player's animation on a 100-node graph (target
60 fps: <= 16 ms a frame).

A generated 100-node document (bench_story.generated_document) is opened in a
CanvasView of 1400x900 fitted to the window. One frame = `canvas.set_step(step,
progress)` plus a synchronous `viewport().repaint()` of the whole viewport: grid, every
visible card (from its pixmap cache), edges and the step overlay (active ring, travelling
cotangent, formula card) painted by the render layer. While playing, the view repaints
only the cotangent's rectangle, so this is an upper bound on a real frame.
Frames are sampled at progress 0, 0.1, ..., 1 for every kind of step, at the fitted
zoom and at 100 % zoom centred on the step, timed by the wall clock and by the GUI
thread's CPU time (the steadier number on a shared machine; it decides the exit code).
Run: .venv/bin/python bench/bench_player.py [--repeat 3]
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from PySide6.QtWidgets import QApplication  # noqa: E402

from bench_story import generated_document  # noqa: E402
from gradviz.app.canvas.view import CanvasView  # noqa: E402
from gradviz.app.controller import DocumentController  # noqa: E402

TARGET_MS = 16.0
PROGRESS = [i / 10 for i in range(11)]


def frames(app, view, steps, repeat, cpu):
    """Frame times in ms (wall clock, or the GUI thread's CPU time with `cpu`)."""
    clock = time.thread_time if cpu else time.perf_counter
    times = []
    for _ in range(repeat):
        for step in steps:
            view.set_step(step, 0.0)
            app.processEvents()
            view.viewport().repaint()
            for p in PROGRESS:
                start = clock()
                view.set_step(step, p)
                view.viewport().repaint()
                times.append((clock() - start) * 1000)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=100)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    controller = DocumentController()
    view = CanvasView(controller)
    view.resize(1400, 900)
    view.show()
    view.reveal = lambda *a, **k: None  # keep the zoom under test (the player would zoom to the step)
    controller.set_document(generated_document(args.nodes))
    app.processEvents()
    view.fit()
    story = controller.result.story
    by_kind = {}
    for s in story.steps:
        by_kind.setdefault(s.kind, []).append(s)
    steps = [s for kind in sorted(by_kind) for s in by_kind[kind][:4]]
    print(f"{len(controller.doc.nodes)} nodes, {len(story.steps)} story steps; "
          f"timing {len(steps)} steps ({', '.join(sorted(by_kind))}) x {len(PROGRESS)} frames")
    results = {}
    for cpu in (False, True):
        view.fit()
        results[("fitted", cpu)] = frames(app, view, steps, args.repeat, cpu)
        view.reset_zoom()
        results[("100 %", cpu)] = []
        for step in steps:
            view.centerOn(view.renderer.rect(step.node).center())
            results[("100 %", cpu)] += frames(app, view, [step], args.repeat, cpu)
    ok = True
    for (name, cpu), times in results.items():
        median = statistics.median(times)
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        ok &= median <= TARGET_MS or not cpu
        print(f"  {name:7s} frame ({'CPU ' if cpu else 'wall'}): median {median:6.2f} ms, p95 {p95:6.2f} ms, "
              f"max {max(times):6.2f} ms (target <= {TARGET_MS:.0f} ms) {'ok' if median <= TARGET_MS else 'SLOW'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
