"""Benchmark: training (issue 22). Targets: 100 optimizer steps per second on the 100-node
benchmark document with the UI responsive (edit → repaint under 50 ms between updates),
and a 100 x 100 landscape of a lesson's graph in under 2 s.

Each of 1 and 2 is measured both ways in one process, alternating: "eager" evaluates the
document through the tape at every step (graph.compiled.REPLAY off, the path before issue
23 §3), "compiled" replays its traced program (graph/compiled.py).

1. Trainer steps per second, Qt-free, on bench_story.generated_document(100) (its four
   4x4 weight Variables are the parameters): each optimizer, 200 steps after 5 of warm-up.
2. The same document in the real window with the Train dock: an Adam run on the worker
   for RUN_S seconds while the window's document follows it (previews). Reported: steps
   per second during the run; for each preview, the time from the edit until the canvas
   has painted it; the user's own edit between the updates (a card moved by 1 px every
   250 ms) until the canvas has painted it (the edit → repaint a user sees), and the same
   move and a value edit with no run (the machine's speed then); and the UI thread's
   gaps between two ticks of a 10 ms timer (how long it was busy).
   `--window` runs this part alone; `--compare DIR` runs it alternately on the code of
   the checkout DIR (before) and on this one's (after), `--rounds` times each, each run in
   a process of its own, and prints both: before and after measured in one run.
3. The landscape over two coordinates, 100 x 100 points, batched (graph/batched.py): the
   valley lesson's two scalar Variables, two entries of the Newton lesson's kernel, two
   entries of the inverse lesson's input; and the last once more point by point (one
   forward pass per point, as before batching) for the ratio.

Wall-clock times on a shared machine: run it when the machine is quiet, compare ratios.
Run: .venv/bin/python bench/bench_train.py [--window] [--compare DIR [--rounds N]]
"""
import argparse
import json
import subprocess
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
_CODE = os.environ.get("GRADVIZ_BENCH_CODE")   # --compare: the checkout whose code runs
sys.path.insert(0, _CODE or str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_story import generated_document  # noqa: E402
from gradviz.graph import Port, compiled, load  # noqa: E402
from gradviz.graph.landscape import Coordinate, landscape  # noqa: E402
from gradviz.graph.training import Trainer, make_optimizer  # noqa: E402

STEPS_TARGET, REPAINT_TARGET_MS, LANDSCAPE_TARGET_S = 100.0, 50.0, 2.0
RUN_S = 8.0          # how long the window's run goes on
OPTIMIZERS = (("sgd", {"learning_rate": 0.001}), ("sgd", {"learning_rate": 0.001, "momentum": 0.9}),
              ("rmsprop", {}), ("adam", {}), ("newton", {"damping": 1.0}))


def trainer_rate(doc, params, name, hyper, steps, replay):
    compiled.REPLAY = replay
    try:
        trainer = Trainer(doc, make_optimizer(name, **hyper), params)
        trainer.run(5)
        start = time.perf_counter()
        trainer.run(steps)
        return steps / (time.perf_counter() - start)
    finally:
        compiled.REPLAY = True


def trainer_rates(steps=200, rounds=3):
    """(optimizer, eager steps/s, compiled steps/s): medians of `rounds`, alternating."""
    doc = generated_document(100)
    params = [p for p in doc.sources if doc.nodes[p.node].kind == "variable"]
    rows = []
    for name, hyper in OPTIMIZERS:
        n = steps if name != "newton" else 20
        rates = {False: [], True: []}
        for _ in range(rounds):
            for replay in (False, True):
                rates[replay].append(trainer_rate(doc, params, name, hyper, n, replay))
        rows.append((name + (" + momentum" if hyper.get("momentum") else ""),
                     statistics.median(rates[False]), statistics.median(rates[True])))
    return rows


def app_run(seconds=RUN_S, replay=True):
    """(steps/s, preview → repaint ms, 10 ms timer gaps ms, value edit with no run ms,
    moves during the run ms, moves with no run ms)."""
    compiled.REPLAY = replay
    from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    QCoreApplication.setOrganizationName("gradviz-bench")
    QCoreApplication.setApplicationName("bench_train")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, _SCRATCH)
    app = QApplication.instance() or QApplication(["bench_train"])
    from gradviz.app import collect_less, create_window
    from gradviz.graph.fileformat import MAX_TRAINING_STEPS
    window = create_window(None, offer_recovery=False)
    window.resize(1440, 900)
    window.show()
    collect_less()   # as gradviz.app.main does (without it a move took 15 ms of CPU, with it 11)
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

    def timed(edit, into):
        """Make `edit` and run the event loop (as the app does: it sleeps when it has nothing
        to do) until the canvas has painted it."""
        start = time.perf_counter()
        loop = QEventLoop()
        canvas.after_repaint(lambda: (into.append((time.perf_counter() - start) * 1000), loop.quit()))
        edit()
        loop.exec()

    def nudge():            # the user's edit: a card moved by 1 px
        x, y = window.controller.doc.nodes["w0"].position
        window.controller.move_nodes({"w0": (x + 1.0, y)}, merge=False)

    baseline, still = [], []
    for i in range(10):     # the same kinds of edit with no run: the machine's speed now
        value = doc.nodes["w0"].value * (1.0 + 1e-3 * (i + 1))
        timed(lambda: window.controller.set_value("w0", value), baseline)
        timed(nudge, still)
    for _ in range(20):
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

    def move():     # the user's edit between the run's updates
        if session.running:
            start = time.perf_counter()
            canvas.after_repaint(lambda: moves.append((time.perf_counter() - start) * 1000))
            nudge()
    mover = QTimer()
    mover.timeout.connect(move)
    mover.start(250)
    stopper = QTimer()
    stopper.setSingleShot(True)
    stopper.timeout.connect(session.pause)
    start = time.perf_counter()
    loop = QEventLoop()
    session.stopped.connect(loop.quit)
    panel.run(MAX_TRAINING_STEPS)
    stopper.start(int(seconds * 1000))
    loop.exec()
    elapsed = time.perf_counter() - start
    mover.stop()
    for _ in range(20):
        app.processEvents()
    timer.stop()
    done = len(session.trainer.history)
    window.controller.undo_stack.setClean()
    window.close()
    compiled.REPLAY = True
    return done / elapsed, repaints, gaps, baseline, moves, still


def spread(values):
    """'median (25th-75th percentile, max) over n' of a list of milliseconds."""
    if not values:
        return "none"
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return (f"median {statistics.median(values):.1f} ms ({q[0]:.1f}-{q[2]:.1f}, max "
            f"{max(values):.1f}) over {len(values)}")


def report_window(label, run):
    rate, repaints, gaps, baseline, moves, still = run
    print(f"   {label}: {rate:.1f} steps/s   {'ok' if rate >= STEPS_TARGET else 'UNDER'}")
    print(f"     a card moved during the run (every 250 ms) -> repaint: {spread(moves)}   "
          f"{'ok' if moves and statistics.median(moves) < REPAINT_TARGET_MS else 'OVER'} "
          "(target < 50 ms)")
    print(f"     the same move with no run (this machine now): {spread(still)}")
    print(f"     a value edit with no run: {spread(baseline)}")
    print(f"     a preview's edit -> repaint: {spread(repaints)}")
    print(f"     UI thread: 10 ms timer, gap {spread(gaps)}")


def compare(before_dir, rounds):
    """The window's run on `before_dir`'s code and on this checkout's, alternately, each in
    a process of its own; prints the runs as they come and both sides' pooled numbers."""
    pooled = {"before": [], "after": []}
    for _ in range(rounds):
        for side, code in (("before", before_dir), ("after", str(ROOT))):
            env = dict(os.environ, GRADVIZ_BENCH_CODE=code)
            out = subprocess.run([sys.executable, __file__, "--window-json"], env=env,
                                 capture_output=True, text=True, check=True).stdout
            run = json.loads(out.strip().splitlines()[-1])
            load = os.getloadavg()[0]
            pooled[side].append(run)
            report_window(f"{side} ({code}, load {load:.1f})", run)
    print("   pooled:")
    for side, runs in pooled.items():
        rates = [r[0] for r in runs]
        merged = [sum((r[i] for r in runs), []) for i in range(1, 6)]
        report_window(f"{side}, {len(runs)} runs, steps/s {min(rates):.0f}-{max(rates):.0f}",
                      (statistics.median(rates), *merged))


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
    parser = argparse.ArgumentParser(description="Training benchmark (issue 22)")
    parser.add_argument("--window", action="store_true", help="the window's run alone")
    parser.add_argument("--window-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--compare", metavar="DIR", help="the window's run on DIR's code too")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.window_json:
        print(json.dumps(app_run()))
        return
    if args.compare:
        print(f"2. In the window, before ({args.compare}) and after ({ROOT}), alternated")
        compare(args.compare, args.rounds)
        return
    if args.window:
        print("2. In the window (100 cards in a grid, Adam on the worker)")
        report_window("compiled", app_run())
        return
    print("1. Trainer steps per second on the 100-node document (4 weight Variables, 64 entries)")
    print(f"   {'':<18} {'eager':>8} {'compiled':>9}  ratio")
    for name, eager, replayed in trainer_rates():
        print(f"   {name:<18} {eager:8.1f} {replayed:9.1f}  {replayed / eager:5.2f}x steps/s   "
              f"{'ok' if replayed >= STEPS_TARGET else 'UNDER'}")
    print(f"2. In the window (100 cards in a grid, Adam on the worker for {RUN_S:.0f} s)")
    for replay, label in ((False, "eager"), (True, "compiled"), (False, "eager"), (True, "compiled")):
        report_window(label, app_run(replay=replay))
    print("3. Landscape, 100 x 100 points")
    for title, seconds, batched in landscapes():
        verdict = ("ok" if seconds < LANDSCAPE_TARGET_S else "OVER") if batched else "(information)"
        print(f"   {title:<48} {seconds:6.2f} s   {verdict}")
    shutil.rmtree(_SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
