"""Dialogs, undo texts, tooltips and status texts name a node by its label (what the canvas
writes on it), never by its internal id (walk-through: 'Resize x1 from …' for the node W1)."""
import numpy as np
from PySide6.QtWidgets import QApplication

from gradviz.app.canvas.view import CanvasView
from gradviz.app.controller import DocumentController
from gradviz.app.inspector.panel import InspectorWidget
from gradviz.graph.document import Document, Node, Port


def _doc():
    doc = Document(title="ids and labels")
    doc.add(Node("x1", "variable", value=np.array([[0.5, 1.5], [2.5, 3.0]], np.float32), label="W1"))
    doc.add(Node("n2", "custom_gradient", op="identity", label="clip"))
    doc.add(Node("n3", "layer", op="Dense", label="hidden"))
    doc.add(Node("n4", "op", op="reduce_sum", label="loss"))
    doc.connect("x1", "n2", 0, 0)
    doc.connect("n2", "n3", 0, 0)
    doc.connect("n3", "n4", 0, 0)
    doc.targets, doc.sources = [Port("n4")], [Port("x1")]
    return doc


def test_every_message_about_a_node_uses_its_label(qtbot):
    c = DocumentController()
    c.set_document(_doc())
    inspector = InspectorWidget(c)
    canvas = CanvasView(c)
    for widget in (inspector, canvas):
        qtbot.addWidget(widget)
    asked = []
    inspector.confirm = lambda text: asked.append(text) or True
    inspector.show()
    undo = []

    def last_undo():
        undo.append(c.undo_stack.undoText())
        return undo[-1]

    c.set_selection(["x1"])
    inspector.page.shape.edit.setText("2, 3")
    inspector.page.shape.commit()                         # resize
    inspector.page.shape.edit.setText("3, 2")
    inspector.page.shape.commit()                         # reshape
    inspector.page._set_dtype("int32")                    # 0.5 -> 0: asks first
    assert len(asked) == 3 and all("W1" in text for text in asked), asked
    assert asked[0].startswith("Resize W1 from") and asked[1].startswith("Reshape W1 from")
    c.set_selection(["n2"])
    inspector.page._set_rule("scale")
    assert last_undo() == "Set clip rule"
    c.set_selection(["n3"])
    inspector.page._set_attr("units", 3)
    assert last_undo() == "Set hidden.units"
    ports = [p for item in canvas.node_items.values() for p in item.ports_in + item.ports_out]
    assert ports and all(c.name(p.node_item.nid) in p.tip() for p in ports)
    tips = [p.tip() for p in ports]
    canvas.scene().clearSelection()
    canvas.node_items["n4"].setSelected(True)
    canvas.delete_selected()
    assert last_undo() == "Delete loss"
    texts = asked + undo + tips
    assert not [t for t in texts if any(nid in t for nid in ("x1", "n2", "n3", "n4"))], texts
    QApplication.processEvents()


def _widget_texts(window):
    """Every text a window's (or a dock's) widgets hold: labels, fields, buttons, lists,
    tooltips."""
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QLabel, QLineEdit, QListWidget,
                                   QPlainTextEdit, QTextEdit, QWidget)
    out = []
    for w in window.findChildren(QWidget):
        out.append(w.toolTip())
        if isinstance(w, QLabel):
            out.append(w.text())
        elif isinstance(w, QLineEdit):   # (the Label field's placeholder is the name an
            out.append(w.text())          # unlabelled node shows: its id, as the canvas does)
        elif isinstance(w, QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QListWidget):
            out += [w.item(i).text() for i in range(w.count())]
        elif isinstance(w, (QPlainTextEdit, QTextEdit)):
            out.append(w.toPlainText())
    return out


def test_the_window_shows_names_never_ids(open_window, tmp_path):
    """Inspector header (was 'label (id)'), its lists, the document page, the code view,
    the player's steps and the study docks' choosers, with every id made visible."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from hidden_ids import SAMPLES, hide_ids, leaks
    from gradviz.graph import fileformat

    for name in ("000_layer_hessian", "001_clip_gradient"):
        path = tmp_path / f"{name}.json"
        fileformat.save(hide_ids(fileformat.load(next(s for s in SAMPLES if s.stem == name))), path)
        w = open_window(path, shown=False)
        texts = [w.code_view.code()] + [w.player.step_name(s) for s in w.player.steps]
        w.controller.set_selection([])
        texts += _widget_texts(w)
        for nid in w.controller.doc.nodes:
            w.controller.set_selection([nid])
            QApplication.processEvents()
            texts += _widget_texts(w.inspector.page)
        assert not [hit for t in texts for hit in leaks(t)], name


def test_an_unconnected_input_is_named_as_its_port_label_names_it():
    """An unconnected input's problem names it as its port label does, for every op with one
    or two inputs, none connected, and a matmul with one of two. An unconnected port keeps
    the catalog's name even beside a node of that name (it holds no value, so nothing reads
    as node x having two values; a fresh matmul's ports read a, b, not c, d that turned into
    a, b once wired): reduce_sum's unconnected input x beside the node x says 'input 1 (x)'.
    (This test said '(a)' while unconnected ports were renamed away from node names.)"""
    from gradviz.graph import catalog
    from gradviz.render.port_labels import input_names
    doc = Document()
    doc.add(Node("x", "constant", value=np.zeros((2, 2), np.float32)))
    doc.add(Node("b", "constant", value=np.zeros((2, 2), np.float32)))
    for op in ("reduce_sum", "relu", "matmul", "multiply"):
        doc.add(Node(op, "op", op=op if op in catalog.OPS else "nn.relu"))
    doc.add(Node("mm", "op", op="matmul"))
    doc.connect("b", "mm", 0, 1)
    c = DocumentController()
    c.set_document(doc)
    missing = [p for p in c.result.problems if "is not connected" in p.message]
    assert {p.node for p in missing} == {"reduce_sum", "relu", "matmul", "multiply", "mm"}
    for p in missing:
        node = c.doc.nodes[p.node]
        names = input_names(node, len(catalog.OPS[node.op].inputs), c.doc)
        assert p.message == f"input 1 ({names[0]}) is not connected", (p.node, p.message, names)
    assert next(p for p in missing if p.node == "reduce_sum").message == "input 1 (x) is not connected"
