"""Benchmark: training (issue 22). Targets: 100 optimizer steps per second on the 100-node
benchmark document with the UI responsive (edit → repaint under 50 ms between updates),
and a 100 x 100 landscape of a lesson's graph in under 2 s.

1. Trainer steps per second, Qt-free, on bench_story.generated_document(100) (its four
   4x4 weight Variables are the parameters): each optimizer, 200 steps after 5 of warm-up.
2. The same document in the real window with the Train dock: an Adam run of 300 steps on
   the worker while the window's document follows it (a preview edit at most every
   100 ms). Reported: steps per second during the run; for each preview, the time from
   the edit until the canvas has painted it; the user's own edit between the updates
   (a card moved by 1 px every 250 ms) until the canvas has painted it (the edit → repaint
   a user sees); and the UI thread's largest gap between two ticks of a 10 ms timer (how
   long it was busy).
3. The landscape over two coordinates, 100 x 100 points, batched (graph/batched.py): the
   valley lesson's two scalar Variables, two entries of the Newton lesson's kernel, two
   entries of the inverse lesson's input; and the last once more point by point (one
   forward pass per point, as before batching) for the ratio.

Wall-clock times on a shared machine: run it when the machine is quiet, compare ratios.
Run: .venv/bin/python bench/bench_train.py
"""
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_SCRATCH = tempfile.mkdtemp(prefix="gradviz-bench-")
os.environ["GRADVIZ_RECOVERY_DIR"] = os.path.join(_SCRATCH, "recovery")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_story import generated_document  # noqa: E402
from gradviz.graph import Port, load  # noqa: E402
from gradviz.graph.landscape import Coordinate, landscape  # noqa: E402
from gradviz.graph.training import Trainer, make_optimizer  # noqa: E402

STEPS_TARGET, REPAINT_TARGET_MS, LANDSCAPE_TARGET_S = 100.0, 50.0, 2.0
OPTIMIZERS = (("sgd", {"learning_rate": 0.001}), ("sgd", {"learning_rate": 0.001, "momentum": 0.9}),
              ("rmsprop", {}), ("adam", {}), ("newton", {"damping": 1.0}))


def trainer_rates(steps=200):
    doc = generated_document(100)
    params = [p for p in doc.sources if doc.nodes[p.node].kind == "variable"]
    rows = []
    for name, hyper in OPTIMIZERS:
        trainer = Trainer(doc, make_optimizer(name, **hyper), params)
        trainer.run(5)
        n = steps if name != "newton" else 20
        start = time.perf_counter()
        trainer.run(n)
        rows.append((name + (" + momentum" if hyper.get("momentum") else ""),
                     n / (time.perf_counter() - start)))
    return rows


def app_run(steps=300):
    from PySide6.QtCore import QCoreApplication, QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    QCoreApplication.setOrganizationName("gradviz-bench")
    QCoreApplication.setApplicationName("bench_train")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, _SCRATCH)
    app = QApplication.instance() or QApplication(["bench_train"])
    from gradviz.app import create_window
    window = create_window(None, offer_recovery=False)
    window.resize(1440, 900)
    window.show()
    doc = generated_document(100)
    for i, node in enumerate(doc.nodes.values()):
        node.position = (150.0 * (i % 12), 150.0 * (i // 12))
    window.controller.set_document(doc)
    window.train_dock.toggleViewAction().trigger()
    for _ in range(20):
        app.processEvents()
    panel = window.train_dock.panel
    panel.optimizer_box.setCurrentIndex(panel.optimizer_box.findData("adam"))
    session, canvas = panel.session, window.canvas
    baseline = []
    for i in range(10):     # the same kind of edit with no run: the machine's speed now
        value = doc.nodes["w0"].value * (1.0 + 1e-3 * (i + 1))
        start = time.perf_counter()
        canvas.after_repaint(lambda: baseline.append((time.perf_counter() - start) * 1000))
        window.controller.set_value("w0", value)
        while len(baseline) <= i:
            app.processEvents()
    for _ in range(10):
        window.controller.undo_stack.undo()
        app.processEvents()
    repaints, gaps = [], []
    push = session._push

    def timed_push(values, text, key):
        start = time.perf_counter()
        canvas.after_repaint(lambda: repaints.append((time.perf_counter() - start) * 1000))
        push(values, text, key)
    session._push = timed_push
    last = [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append((now - last[0]) * 1000)
        last[0] = now
    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(10)
    moves = []

    def move():     # the user's edit between the run's updates: a card nudged by 1 px
        if not session.running:
            return
        node = window.controller.doc.nodes["w0"]
        x, y = node.position
        start = time.perf_counter()
        canvas.after_repaint(lambda: moves.append((time.perf_counter() - start) * 1000))
        window.controller.move_nodes({"w0": (x + 1.0, y)}, merge=False)
    mover = QTimer()
    mover.timeout.connect(move)
    mover.start(250)
    start = time.perf_counter()
    panel.run(steps)
    while session.running:
        app.processEvents()
    elapsed = time.perf_counter() - start
    mover.stop()
    for _ in range(20):
        app.processEvents()
    timer.stop()
    done = len(session.trainer.history)
    window.controller.undo_stack.setClean()
    window.close()
    return done / elapsed, repaints, gaps, baseline, moves


def landscapes(n=100):
    """Each landscape batched (one forward pass per chunk of points), then the inverse
    lesson's again point by point (one pass per point, as before batching), for the ratio.
    A batched landscape is timed the second time (the first may load numba's kernels)."""
    from gradviz.graph import landscape as landscape_module
    rows = []
    valley = load(ROOT / "samples" / "train_2_valley.json")
    newton = load(ROOT / "samples" / "train_3_newton.json")
    inverse = load(ROOT / "samples" / "train_4_inverse.json")
    cases = (("valley lesson: x, y (scalar Variables)", valley, Coordinate(Port("x")),
              Coordinate(Port("y"))),
             ("newton lesson: kernel[0,0], kernel[3,5]", newton,
              Coordinate(Port("layer1", 1), (0, 0)), Coordinate(Port("layer1", 1), (3, 5))),
             ("inverse lesson: x[0,0], x[0,1]", inverse,
              Coordinate(Port("x"), (0, 0)), Coordinate(Port("x"), (0, 1))))
    for title, doc, x, y in cases + (("inverse lesson, point by point (before batching)",) +
                                     cases[2][1:],):
        can_batch = landscape_module._can_batch
        if "point by point" in title:
            landscape_module._can_batch = lambda *a: False
        try:
            times = []
            for _ in range(1 if "point by point" in title else 2):   # the first loads numba
                start = time.perf_counter()
                land = landscape(doc, x, y, (-2, 2), (-2, 2), n=n)
                times.append(time.perf_counter() - start)
            rows.append((title, times[-1], land.batched))
        finally:
            landscape_module._can_batch = can_batch
    return rows


def main():
    print("1. Trainer steps per second on the 100-node document (4 weight Variables, 64 entries)")
    for name, rate in trainer_rates():
        print(f"   {name:<18} {rate:8.1f} steps/s   {'ok' if rate >= STEPS_TARGET else 'UNDER'}")
    rate, repaints, gaps, baseline, moves = app_run()
    print("2. In the window (100 cards in a grid, Adam, 300 steps on the worker)")
    print(f"   {rate:.1f} steps/s   {'ok' if rate >= STEPS_TARGET else 'UNDER'}")
    if repaints:
        print(f"   preview edit -> repaint: median {statistics.median(repaints):.1f} ms, "
              f"max {max(repaints):.1f} ms over {len(repaints)} previews   "
              f"{'ok' if max(repaints) < REPAINT_TARGET_MS else 'OVER'} (target < 50 ms)")
    print(f"   the same edit with no run (this machine now): median "
          f"{statistics.median(baseline):.1f} ms")
    if moves:
        print(f"   a card moved during the run (every 250 ms) -> repaint: median "
              f"{statistics.median(moves):.1f} ms, max {max(moves):.1f} ms over {len(moves)} "
              f"moves   {'ok' if statistics.median(moves) < REPAINT_TARGET_MS else 'OVER'} "
              "(target < 50 ms)")
    if gaps:
        print(f"   UI thread: 10 ms timer, median gap {statistics.median(gaps):.1f} ms, "
              f"largest {max(gaps):.1f} ms")
    print("3. Landscape, 100 x 100 points")
    for title, seconds, batched in landscapes():
        verdict = ("ok" if seconds < LANDSCAPE_TARGET_S else "OVER") if batched else "(information)"
        print(f"   {title:<48} {seconds:6.2f} s   {verdict}")
    shutil.rmtree(_SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
