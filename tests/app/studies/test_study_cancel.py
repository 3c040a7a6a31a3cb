"""A study on the worker stops midway (at the engine's next checkpoint, within ~0.5 s) when
its dock closes, when File ▸ New replaces the document, or when the window closes: a long
Hessian left running used to keep a thread busy for minutes."""
import time

import numpy as np
from gradviz.app.studies import _base
from gradviz.graph import catalog
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port

STOPS_WITHIN_S = 0.5


def deep_document(layers=12, n=20, rows=1024):
    """tanh(… tanh(x @ W) @ W …) summed: its Hessian w.r.t. W takes many seconds of backward
    passes (each op's VJP a checkpoint), far longer than the tests wait."""
    rng = np.random.default_rng(0)
    doc = Document(title="deep")
    doc.add(Node("x", CONSTANT, value=rng.normal(size=(rows, n)).astype(np.float32)))
    doc.add(Node("w", VARIABLE, value=(rng.normal(size=(n, n)) / np.sqrt(n)).astype(np.float32)))
    previous = "x"
    for k in range(layers):
        for node_id, op in ((f"mm{k}", "matmul"), (f"t{k}", "tanh")):
            doc.add(Node(node_id, OP, op=op, attrs=dict(catalog.OPS[op].attrs)))
        doc.connect(previous, f"mm{k}", dst_index=0)
        doc.connect("w", f"mm{k}", dst_index=1)
        doc.connect(f"mm{k}", f"t{k}", dst_index=0)
        previous = f"t{k}"
    doc.add(Node("loss", OP, op="reduce_sum", attrs=dict(catalog.OPS["reduce_sum"].attrs)))
    doc.connect(previous, "loss", dst_index=0)
    doc.targets, doc.sources = [Port("loss")], [Port("w")]
    doc.studies = {"hessian": {"target": "loss", "source": "w"}}
    return doc


def start_hessian(qtbot, w):
    """Open (or reopen) the window's Hessian dock on the deep document: its study runs."""
    if w.controller.doc.title != "deep":
        w.controller.set_document(deep_document())
    dock = w.study_docks["Hessian"]
    if not dock.isVisible():
        dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    view = dock.view
    qtbot.waitUntil(lambda: view._task is not None, timeout=5000)
    task = view._task
    qtbot.wait(300)                  # into the backward passes
    assert not task.is_done()
    return dock, view, task


def stopped_in_time(task):
    start = time.perf_counter()
    assert task.wait(5), "the study did not stop"
    return time.perf_counter() - start


def test_closing_the_dock_or_file_new_or_the_window_stops_the_study(qtbot, open_window,
                                                                    monkeypatch):
    monkeypatch.setattr(_base, "WORKER_ELEMENTS", 0)
    w = open_window()
    dock, view, task = start_hessian(qtbot, w)
    dock.toggleViewAction().trigger()                 # the dock closes
    assert task.is_cancelled and stopped_in_time(task) < STOPS_WITHIN_S
    assert view.result is None and view.busy.isHidden()

    dock, view, task = start_hessian(qtbot, w)        # shown again: computed again
    w.new_document()                                  # File ▸ New
    assert task.is_cancelled and stopped_in_time(task) < STOPS_WITHIN_S

    dock, view, task = start_hessian(qtbot, w)
    w.controller.undo_stack.setClean()
    w.close()                                         # the window (and a test's teardown)
    assert task.is_cancelled and stopped_in_time(task) < STOPS_WITHIN_S
