"""File ▸ Import from script with scripts that misbehave (issue 25 §3): real child processes; and
what a failed import or open costs (no "save changes?" prompt, never the document)."""
import textwrap
import time

import numpy as np

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox, QProgressDialog

from gradviz.app.window import script_import

Button = QMessageBox.StandardButton

SQUARE = """
    import gradviz as tf
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = x * x
    print(t.gradient(y, x))
"""


def _script(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _answer_yes(monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: Button.Yes)
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or Button.Ok)
    return warned


class _Watched(script_import.QProcess):
    """A QProcess that notes how much output it still buffered when the child finished."""

    buffered = []

    def __init__(self, *args):
        super().__init__(*args)
        self.finished.connect(self._note)

    def _note(self, *args):
        counts = []
        for channel in (self.ProcessChannel.StandardOutput, self.ProcessChannel.StandardError):
            self.setReadChannel(channel)
            counts.append(self.bytesAvailable())
        self.setReadChannel(self.ProcessChannel.StandardOutput)
        _Watched.buffered.append(counts)


def test_a_chatty_script_leaves_only_a_bounded_tail_in_memory(make_window, tmp_path,
                                                              monkeypatch):
    script = _script(tmp_path, textwrap.dedent(SQUARE) * 2 + textwrap.dedent("""
        import sys
        line = "x" * 1023 + "\\n"
        for _ in range(12 * 1024):          # 12 MB on each stream
            sys.stdout.write(line)
            sys.stderr.write(line)
        print("the last line")
    """))
    warned = _answer_yes(monkeypatch)
    monkeypatch.setattr(script_import, "QProcess", _Watched)
    kept = []
    real_run = script_import.run_trace
    monkeypatch.setattr("gradviz.app.window.files.run_trace",
                        lambda *a: kept.append(real_run(*a)) or kept[-1])
    w = make_window()
    assert w.import_script(str(script)), warned
    (stdout, stderr), = _Watched.buffered
    assert stdout + stderr < 2 << 20   # before: all 24 MB waited in QProcess's buffers
    assert len(kept[0].output) <= script_import.TAIL_BYTES
    assert "the last line\nwrote " in kept[0].output   # the script's, then trace's own line
    assert kept[0].output.endswith("it shows gradient call 2 of 2 (--call K picks another)\n")
    assert float(w.controller.result.evaluation.gradients[w.controller.doc.sources[0]]) == 6.0
    assert w.statusBar().currentMessage() == "Imported script.py: 2 nodes, gradient call 2 of 2"


def test_a_script_failing_after_its_gradient_imports_with_a_warning(make_window, tmp_path,
                                                                   monkeypatch):
    script = _script(tmp_path, textwrap.dedent(SQUARE) + "raise KeyError('late')\n",
                     name="late.py")
    warned = _answer_yes(monkeypatch)
    w = make_window()
    assert w.import_script(str(script))
    assert w.controller.doc.title == "Traced late"
    assert len(warned) == 1 and warned[0].startswith("Imported late.py, but:")
    assert "the script failed: KeyError: 'late' (line 7)" in warned[0]


def test_the_import_stops_a_script_at_its_time_limit(make_window, tmp_path, monkeypatch):
    script = _script(tmp_path, "import gradviz\nprint('epoch 1', flush=True)\nwhile True:\n"
                     "    pass\n", name="endless.py")
    warned = _answer_yes(monkeypatch)
    monkeypatch.setattr(script_import, "IMPORT_TIMEOUT", 2)
    w = make_window()
    title = w.controller.doc.title
    start = time.monotonic()
    assert not w.import_script(str(script))
    assert time.monotonic() - start < 30
    assert len(warned) == 1 and "endless.py" in warned[0]
    assert "stopped at the time limit of 2 s" in warned[0]
    assert warned[0].endswith(f"{script}\n\nThe script's last output:\nepoch 1")
    assert warned[0].count(str(script)) == 1
    assert w.controller.doc.title == title


def test_cancel_stops_the_script_itself(make_window, tmp_path, monkeypatch):
    script = _script(tmp_path, """
        import os, time
        open("pid.txt", "w").write(str(os.getpid()))
        while True:
            time.sleep(0.05)
    """, name="sleeper.py")
    _answer_yes(monkeypatch)
    w = make_window()
    pid_file = tmp_path / "pid.txt"

    def cancel_once_running():
        if not pid_file.exists() or not pid_file.read_text():
            QTimer.singleShot(100, cancel_once_running)
            return
        for dialog in w.findChildren(QProgressDialog):
            dialog.cancel()
    QTimer.singleShot(100, cancel_once_running)
    assert not w.import_script(str(script))
    assert "cancelled" in w.statusBar().currentMessage()
    pid = int(pid_file.read_text())
    for _ in range(100):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the script still runs after Cancel")


def _dirty_window(make_window):
    w = make_window()
    w.controller.set_value("tf_b", np.ones((3, 3), np.float32))
    assert w.controller.dirty
    return w, w.controller.doc


def test_a_failed_import_costs_no_save_prompt_nor_the_document(make_window, tmp_path,
                                                               monkeypatch):
    """The import is run first; "save changes?" is asked only when it will replace the
    document (before, the user was asked to save, and then the import failed)."""
    asked, warned = [], []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: asked.append(a[1]) or Button.Yes)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or Button.Ok)
    monkeypatch.setattr("gradviz.app.window.files.run_trace", lambda *a: script_import.Imported(
        error="the script computed no tape.gradient(...)"))
    w, doc = _dirty_window(make_window)
    assert not w.import_script(str(_script(tmp_path, "print('no tape')\n")))
    assert asked == ["Run this script?"]
    assert len(warned) == 1 and "computed no tape.gradient" in warned[0]
    assert w.controller.doc is doc and w.controller.dirty


def test_a_file_that_is_not_a_script_is_refused_before_any_question(make_window, tmp_path,
                                                                    monkeypatch):
    asked, warned, ran = [], [], []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[1]) or Button.Yes)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or Button.Ok)
    monkeypatch.setattr("gradviz.app.window.files.run_trace", lambda *a: ran.append(a))
    w, doc = _dirty_window(make_window)
    picture = tmp_path / "picture.py"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    prose = _script(tmp_path, "Notes on backprop: it's the chain rule.\n", name="notes.py")
    for path, why in ((picture, "UnicodeDecodeError"), (prose, "SyntaxError")):
        assert not w.import_script(str(path))
        assert warned[-1].startswith(f"Cannot import {path.name}: cannot read the script: {why}")
    assert asked == [] and ran == [] and len(warned) == 2
    assert w.controller.doc is doc and w.controller.dirty


def test_declining_to_save_after_a_good_import_keeps_the_document(make_window, tmp_path,
                                                                  monkeypatch):
    imported = script_import.Imported(doc=object())
    monkeypatch.setattr("gradviz.app.window.files.run_trace", lambda *a: imported)
    answers = iter([Button.Yes, Button.Cancel])   # run it; then Cancel at "save changes?"
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: asked.append(a[1]) or next(answers, Button.No))
    w, doc = _dirty_window(make_window)
    assert not w.import_script(str(_script(tmp_path, SQUARE)))
    assert asked == ["Run this script?", "Unsaved changes"]
    assert w.controller.doc is doc and w.controller.dirty
    assert w.statusBar().currentMessage() == ("Import of script.py not applied: the document "
                                              "is unchanged")


def test_a_file_that_cannot_be_opened_costs_no_save_prompt(make_window, tmp_path, monkeypatch):
    """Open (and a recent file) read the file before "save changes?", as the import runs
    the script first: before, the user was asked to save, then told the file was gone."""
    asked, warned = [], []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[1]) or Button.Yes)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or Button.Ok)
    w, doc = _dirty_window(make_window)
    broken = tmp_path / "broken.gradviz.json"
    broken.write_text("{not json", encoding="utf-8")
    for path in (tmp_path / "gone.gradviz.json", broken):
        assert not w.open_file(str(path))
        assert warned[-1].startswith(f"Cannot open {path.name}: ")
    assert asked == [] and len(warned) == 2
    assert w.controller.doc is doc and w.controller.dirty
