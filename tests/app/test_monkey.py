"""A monkey at the editor: 1200 random UI actions with a fixed seed raise nothing and
leave a document that saves and loads back to the same text."""
import os
import random
import time

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication, QMainWindow

from gradviz.app.canvas import CanvasView, EdgeItem
from gradviz.app.controller import DocumentController
from gradviz.app.palette import palette_entries
from gradviz.graph import catalog, fileformat

ACTIONS = 1200
MAX_NODES = 24
SHAPES = [(2, 2), (3, 3), (5, 3), (3,), (), (2, 3), (3, 2)]
ATTR_CHOICES = {"bool": [True, False], "int": [0, 1, 2, -1], "float": [0.5, 1.0, -2.0],
                "axis": [None, 0, 1, -1, [0, 1]], "ints": [[-1], [3, 3], [1, 2], [0]],
                "str": ["linear", "relu", "ij,jk->ik", "bad"], "index": [[0], ["...", 0], [[0, 2, 1]]],
                "paddings": [[[0, 0]], [[1, 1], [0, 1]]], "dtype": ["float32", "float64", "int32"]}


def check_scene(canvas, controller):
    doc = controller.doc
    assert set(canvas.node_items) == set(doc.nodes)
    assert set(canvas.edge_items) == set(doc.edges)
    for nid, item in canvas.node_items.items():
        assert item.scene() is canvas.scene()
        assert item.problems == controller.result.node_problems.get(nid, [])


def test_monkey(qtbot):
    seed = int(os.environ.get("GRADVIZ_MONKEY_SEED", "20261122"))
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    controller = DocumentController()
    window = QMainWindow()
    canvas = CanvasView(controller)
    window.setCentralWidget(canvas)
    window.resize(1000, 700)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    # Layers are left out: a layer added before its input is connected has no weights yet,
    # and fileformat.loads refuses such a file (see test_layer_without_weights_round_trips).
    entries = [e for e in palette_entries() if e[1] != "layer"]
    counts = {}

    def nodes():
        return list(controller.doc.nodes)

    def pick_nodes(k):
        ids = nodes()
        return rng.sample(ids, min(k, len(ids))) if ids else []

    def add():
        if len(controller.doc.nodes) >= MAX_NODES:
            return clear()
        _, kind, op, _, _ = rng.choice(entries)
        pos = QPointF(rng.uniform(-600, 600), rng.uniform(-400, 400))
        canvas.add_node_at(kind, op, pos)

    def add_input():
        canvas.add_node_at(rng.choice(["constant", "variable"]), rng.choice(["", "watched", "frozen"]),
                           QPointF(rng.uniform(-600, 0), rng.uniform(-400, 400)))

    def connect():
        outs = [p for item in canvas.node_items.values() for p in item.ports_out]
        ins = [p for item in canvas.node_items.values() for p in item.ports_in]
        if outs and ins:
            src, dst = rng.choice(outs), rng.choice(ins)
            canvas.try_connect(src.port, dst.port, dst.scenePos())

    def edit_value():
        inputs = [n for n, node in controller.doc.nodes.items() if node.kind in ("constant", "variable")]
        if inputs:
            shape = rng.choice(SHAPES)
            controller.set_value(rng.choice(inputs), np_rng.normal(size=shape).astype(np.float32))

    def edit_attr():
        ops = [n for n, node in controller.doc.nodes.items() if catalog.defaults_and_kinds(node)[1]]
        if ops:
            nid = rng.choice(ops)
            kinds = catalog.defaults_and_kinds(controller.doc.nodes[nid])[1]
            name = rng.choice(sorted(kinds))
            controller.set_attr(nid, name, rng.choice(ATTR_CHOICES[kinds[name]]))

    def delete():
        controller.set_selection(pick_nodes(rng.randint(1, 3)))
        canvas.delete_selected()

    def delete_edge():
        items = list(canvas.edge_items.values())
        if items:
            controller.set_selection([])
            canvas.scene().clearSelection()
            rng.choice(items).setSelected(True)
            canvas.delete_selected()

    def undo():
        for _ in range(rng.randint(1, 4)):
            controller.undo_stack.undo()

    def redo():
        for _ in range(rng.randint(1, 3)):
            controller.undo_stack.redo()

    def layout():
        canvas.auto_layout()

    def copy_paste():
        controller.set_selection(pick_nodes(rng.randint(1, 4)))
        if canvas.copy():
            canvas.paste()

    def duplicate():
        controller.set_selection(pick_nodes(rng.randint(1, 3)))
        canvas.duplicate()

    def move():
        ids = pick_nodes(2)
        for nid in ids:
            item = canvas.scene_item(nid)
            item.setPos(item.pos() + QPointF(rng.uniform(-80, 80), rng.uniform(-80, 80)))
        canvas.commit_moves()

    def role():
        controller.set_selection(pick_nodes(1))
        canvas.apply_role(rng.choice(["target", "source", "source", "output_gradients"]))

    def clear():
        canvas.select_all()
        canvas.delete_selected()

    def zoom():
        rng.choice([canvas.zoom_in, canvas.zoom_out, canvas.fit, canvas.reset_zoom])()

    actions = [(add, 14), (add_input, 8), (connect, 22), (edit_value, 8), (edit_attr, 5), (delete, 5),
               (delete_edge, 3), (undo, 8), (redo, 5), (layout, 2), (copy_paste, 3), (duplicate, 2),
               (move, 4), (role, 6), (zoom, 2)]
    funcs, weights = zip(*actions)
    start = time.perf_counter()
    for i in range(ACTIONS):
        action = rng.choices(funcs, weights)[0]
        action()
        counts[action.__name__] = counts.get(action.__name__, 0) + 1
        if i % 10 == 0:
            QApplication.processEvents()
            canvas.viewport().repaint()
            check_scene(canvas, controller)
    QApplication.processEvents()
    check_scene(canvas, controller)
    elapsed = time.perf_counter() - start
    assert elapsed < 90, f"{ACTIONS} actions took {elapsed:.1f} s"
    assert counts["connect"] > 100 and counts["undo"] > 30

    text = controller.text()
    doc = fileformat.loads(text, strict=False)
    assert fileformat.dumps(doc) == text
    assert set(doc.nodes) == set(controller.doc.nodes)
    # Everything undoes back to the empty document.
    while controller.undo_stack.canUndo():
        controller.undo_stack.undo()
    assert not controller.doc.nodes and not canvas.node_items and not canvas.edge_items
    assert not [i for i in canvas.scene().items() if isinstance(i, EdgeItem)]


def test_layer_without_weights_round_trips(qtbot):
    controller = DocumentController()
    canvas = CanvasView(controller)
    qtbot.addWidget(canvas)
    canvas.add_node_at("layer", "Dense", QPointF(0, 0))
    text = controller.text()
    assert fileformat.dumps(fileformat.loads(text, strict=False)) == text
