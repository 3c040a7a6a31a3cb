"""Small hostile documents opened in the app: nothing in a file decides how much the
window builds, nothing hangs, and every failure to open is a dialog in words."""
import json
import os
import time

import numpy as np
import pytest

from gradviz.graph import fileformat

VALUE = {"dtype": "float32", "shape": [], "data": [1.0]}


def _doc(nodes, edges, **rest):
    return {"format": "gradviz", "version": 1, "title": "hostile", "nodes": nodes,
            "edges": edges, **rest}


@pytest.fixture
def write(tmp_path):
    def write(obj, name="hostile.gradviz.json"):
        path = tmp_path / name
        path.write_text(json.dumps(obj))
        return path
    return write


@pytest.mark.parametrize("edges", [1, 4])
def test_an_edge_from_output_999999_makes_no_million_ports(open_window, write, app_env, edges):
    """223 bytes: before, a million port items (44 s, 4 GB); four such edges aborted."""
    nodes = [{"id": "x", "kind": "constant", "value": VALUE}]
    nodes += [{"id": f"y{i}", "kind": "op", "op": "sin"} for i in range(edges)]
    path = write(_doc(nodes, [{"from": f"x:{999999 - i}", "to": f"y{i}"} for i in range(edges)]))
    w = open_window()
    start = time.perf_counter()
    assert w.load_path(str(path))
    assert time.perf_counter() - start < 20
    assert len(w.canvas.scene().items()) < 500
    problems = " ".join(str(p) for p in w.controller.result.problems)
    assert "has no output 999999" in problems


def test_a_1000_op_chain_with_ids_sorted_backwards_opens(open_window, write, app_env, capfd):
    n = 1000
    nodes = [{"id": "x0000", "kind": "constant", "value": VALUE}]
    nodes += [{"id": f"x{i:04d}", "kind": "op", "op": "sin"} for i in range(1, n + 1)]
    edges = [{"from": f"x{i - 1:04d}", "to": f"x{i:04d}"} for i in range(1, n + 1)]
    path = write(_doc(nodes[::-1], edges, targets=[f"x{n:04d}"], sources=["x0000"]))
    w = open_window()
    assert w.load_path(str(path)), app_env.warnings
    assert len(w.controller.doc.nodes) == n + 1
    assert "Traceback" not in capfd.readouterr().err


def test_a_pipe_is_refused_in_a_dialog_at_once(open_window, tmp_path, app_env):
    fifo = tmp_path / "pipe.gradviz.json"
    os.mkfifo(fifo)
    w = open_window()
    title = w.controller.doc.title
    start = time.perf_counter()
    assert not w.load_path(str(fifo))
    assert time.perf_counter() - start < 5
    assert "not a document file" in app_env.warnings[0]
    assert w.controller.doc.title == title


def test_any_failure_while_opening_is_a_dialog_and_keeps_the_document(open_window, write,
                                                                      app_env, monkeypatch):
    """A fault of gradviz's own while showing a file (the layout's RecursionError of
    1,000-op chains was one) is told in a dialog, never only on stderr, and the window
    keeps the document it had."""
    w = open_window()
    before = w.controller.text()
    path = write(json.loads(fileformat.dumps(w.controller.doc)))
    real_set = type(w.controller).set_document

    def failing_set(self, doc, path=None, **given):
        real_set(self, doc, path, **given)
        if path is not None and "hostile" in str(path):
            raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(type(w.controller), "set_document", failing_set)
    assert not w.load_path(str(path))
    assert "RecursionError" in app_env.warnings[0] and "hostile.gradviz.json" in app_env.warnings[0]
    assert w.controller.text() == before and w.controller.path is None


def test_a_broadcast_over_the_limits_runs_nothing_the_targets_do_not_need(open_window, write,
                                                                          app_env):
    """3.7 KB that `gradviz run` refuses at once: before, the app evaluated the nodes
    up to the one over the limit and previewed 49M values (19 s, 4.3 GB)."""
    nodes = [{"id": "s", "kind": "constant", "value": VALUE}]
    nodes += [{"id": f"b{i}", "kind": "op", "op": "broadcast_to",
               "attrs": {"shape": [7000, 7000]}} for i in range(3)]
    path = write(_doc(nodes, [{"from": "s", "to": f"b{i}"} for i in range(3)]))
    w = open_window()
    assert w.load_path(str(path))
    problems = [str(p) for p in w.controller.result.problems]
    assert any("the limit is 1e8" in p for p in problems), problems
    ev = w.controller.result.evaluation
    held = sum(int(np.asarray(v).size) for v in ev.values.values()) if ev else 0
    assert held < 1000
