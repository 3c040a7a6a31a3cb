"""Benchmark: edit-to-repaint time of the editor canvas at 10, 50 and 100 nodes (target < 50 ms).

For each size, a generated document (bench_story.generated_document) is opened in a
CanvasView fitted to the window. One sample is the time from the controller edit call
(a value edit, an attribute edit, a new node, a connection, a move) until the view has
processed the resulting events and repainted its viewport (`viewport().repaint()` is
synchronous). The whole chain is in the time: undo snapshot, validation, evaluation, the
backprop story, the new cards and the repaint.
Run: .venv/bin/python bench/bench_editor.py [--repeat 15]
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

import numpy as np  # noqa: E402
from PySide6.QtCore import QPointF  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench_story import generated_document  # noqa: E402
from gradviz.app.canvas import CanvasView  # noqa: E402
from gradviz.app.controller import DocumentController  # noqa: E402
from gradviz.graph.document import Port  # noqa: E402

TARGET_MS = 50.0
SIZES = (10, 50, 100)


def repaint(app, view):
    app.processEvents()
    view.viewport().repaint()


def timed(app, view, edit):
    start = time.perf_counter()
    edit()
    repaint(app, view)
    return (time.perf_counter() - start) * 1000


def bench_size(app, n, repeat):
    controller = DocumentController()
    view = CanvasView(controller)
    view.resize(1400, 900)
    view.show()
    controller.set_document(generated_document(n))
    view.fit()
    repaint(app, view)
    doc = controller.doc
    rng = np.random.default_rng(0)
    inputs = [nid for nid, node in doc.nodes.items() if node.kind in ("constant", "variable")]
    samples = {"value edit": [], "attr edit": [], "add node": [], "connect": [], "move": [], "undo": []}
    for i in range(repeat):
        nid = inputs[i % len(inputs)]
        value = rng.normal(size=doc.nodes[nid].value.shape).astype(np.float32)
        samples["value edit"].append(timed(app, view, lambda: controller.set_value(nid, value)))
        samples["attr edit"].append(timed(app, view, lambda: controller.set_field(nid, "label", f"in{i}")))
        new = []
        samples["add node"].append(timed(app, view, lambda: new.append(
            view.add_node_at("op", "tanh", QPointF(40.0 * i, -200.0)))))
        src = next(iter(doc.nodes))
        samples["connect"].append(timed(app, view, lambda: view.try_connect(Port(src), Port(new[0], 0))))
        item = view.scene_item(new[0])

        def move():
            item.setPos(item.pos() + QPointF(5, 5))
            view.commit_moves()
        samples["move"].append(timed(app, view, move))
        samples["undo"].append(timed(app, view, controller.undo_stack.undo))
    view.close()
    view.deleteLater()
    app.processEvents()
    return {k: statistics.median(v) for k, v in samples.items()}, len(doc.nodes)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(["bench_editor"])
    bench_size(app, 10, 2)  # warm up (numba, fonts)
    worst = 0.0
    print(f"edit-to-repaint, median of {args.repeat} (ms); target < {TARGET_MS:.0f} ms")
    header = None
    for n in SIZES:
        medians, nodes = bench_size(app, n, args.repeat)
        if header is None:
            header = "nodes  " + "  ".join(f"{k:>10}" for k in medians)
            print(header)
        print(f"{nodes:5d}  " + "  ".join(f"{v:10.1f}" for v in medians.values()))
        worst = max(worst, max(medians.values()))
    verdict = "ok" if worst < TARGET_MS else "over target"
    print(f"worst median: {worst:.1f} ms ({verdict})")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
