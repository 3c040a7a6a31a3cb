"""gradviz.capture: a script's own tape as a document that explains, saves, exports, draws
itself in Jupyter (through export's renderer) and opens in the desktop app."""
import html
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradviz as tf
from gradviz import tape_document
from gradviz.graph import Port, evaluate, load
from gradviz.story.text import explain

ROOT = Path(__file__).resolve().parents[1]


def two_layer():
    x = tf.Variable([[1.0, 2.0], [3.0, -4.0]])
    w = tf.Variable([[0.5], [1.0]])
    with tf.GradientTape() as tape:
        hidden = tf.nn.relu(x @ w)
        loss = tf.reduce_sum(hidden * hidden)
    return tape, loss, x, w


def test_capture_names_nodes_by_the_callers_variables_and_keeps_the_gradients():
    tape, loss, x, w = two_layer()
    hidden = tape._entries[1].outputs[0]   # relu(x @ w), a name in this (the caller's) frame
    gx, gw = tape.gradient(loss, [x, w])        # a used tape still holds its record
    doc = tf.capture(tape, loss, [x, w])
    assert isinstance(doc, tf.TapeDocument)
    assert set(doc.document.nodes) == {"x", "w", "matmul", "hidden", "mul", "loss"}
    assert doc.document.targets == [Port("loss")]
    assert doc.document.sources == [Port("x"), Port("w")]
    ev = evaluate(doc.document)
    np.testing.assert_allclose(ev.gradients[Port("x")], gx.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("w")], gw.numpy(), rtol=1e-6)
    # relu(x @ w) = [2.5, 0]: only row 0 passes, d loss/d w = 2·2.5·x[0]
    np.testing.assert_allclose(ev.gradients[Port("w")], [[5.0], [10.0]], rtol=1e-6)
    assert repr(doc) == (f"<gradviz document 'Captured tape': {len(doc.document.nodes)} nodes, "
                         f"{len(doc.story.steps)} story steps>")


def test_output_gradients_become_the_documents_seed():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = x * x
    doc = tf.capture(tape, y, x, output_gradients=tf.constant([2.0, 3.0]))
    np.testing.assert_array_equal(doc.document.output_gradients[Port("y")], [2.0, 3.0])
    np.testing.assert_allclose(evaluate(doc.document).gradients[Port("x")], [4.0, 12.0])


def test_explain_save_and_export_are_what_the_command_line_gives(tmp_path):
    tape, loss, x, w = two_layer()
    doc = tf.capture(tape, loss, [x, w], title="two layers")
    saved = doc.save(tmp_path / "two.gradviz.json")
    assert load(str(saved)).nodes.keys() == doc.document.nodes.keys()
    text = doc.explain()
    assert text.startswith("two layers\n==========\n")
    assert text == explain(__import__("gradviz.story", fromlist=["build"]).build(load(str(saved))))
    cli = subprocess.run([sys.executable, "-m", "gradviz", "explain", str(saved)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert cli.stdout == text

    png = doc.export(tmp_path / "step.png", step=3)
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    svg = doc.export(tmp_path / "step.svg", step=3).read_text(encoding="utf-8")
    assert html.escape(doc.story.steps[2].formula, quote=False) in svg   # the player's 3/n
    n = len(doc.story.steps)
    with pytest.raises(IndexError, match=rf"step {n + 1}: the story has {n} steps \(1\.\.{n}"):
        doc.export(tmp_path / "late.png", step=n + 1)


def test_jupyter_pictures_come_from_the_export_renderer(tmp_path):
    tape, loss, x, w = two_layer()
    doc = tf.capture(tape, loss, [x, w])
    svg = doc._repr_svg_()
    assert svg == doc.export(tmp_path / "g.svg").read_text(encoding="utf-8")
    png, size = doc._repr_png_()
    assert png == doc.export(tmp_path / "g.png", scale=tape_document.NOTEBOOK_SCALE).read_bytes()
    from PySide6.QtGui import QImage
    image = QImage.fromData(png)
    assert (image.width(), image.height()) == (round(size["width"] * 2), round(size["height"] * 2))


def test_capturing_and_explaining_import_no_qt():
    code = ("import sys, gradviz as tf\n"
            "x = tf.Variable(3.0)\n"
            "with tf.GradientTape() as tape:\n"
            "    y = x * x\n"
            "doc = tf.capture(tape, y, x)\n"
            "doc.explain(); doc.save('captured.gradviz.json')\n"
            "print(sorted(m for m in ('PySide6', 'pyqtgraph') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    (ROOT / "captured.gradviz.json").unlink(missing_ok=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_show_opens_a_new_app_process_on_the_saved_document(monkeypatch):
    tape, loss, x, w = two_layer()
    doc = tf.capture(tape, loss, [x, w], title="two layers")
    started = []
    monkeypatch.setattr(tape_document, "_running_app", lambda: None)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(tape_document.subprocess, "Popen",
                        lambda args, **kw: started.append((args, kw)) or "process")
    assert doc.show() == "process"
    ((args, kw),) = started
    assert args[:3] == [sys.executable, "-m", "gradviz"] and kw["start_new_session"]
    assert Path(args[3]).name == "two_layers.gradviz.json"
    assert json.loads(Path(args[3]).read_text(encoding="utf-8"))["title"] == "two layers"


def test_show_without_a_display_says_where_the_document_is(monkeypatch):
    tape, loss, x, w = two_layer()
    doc = tf.capture(tape, loss, [x, w])
    monkeypatch.setattr(tape_document, "_running_app", lambda: None)
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(RuntimeError, match=r"no display .* saved as .*Captured_tape\.gradviz\.json"):
        doc.show()
