"""No study of the document before stays on screen after File ▸ New, File ▸ Open, a lesson
or a sample (issue 20 §5; audit H42w, w28_norms.png: the Jacobian and Hessian tabs of the
student's graph were still there after lesson 28 was opened). The rule: a study dock stays
open where the user opened it, and its view is of the document shown. At the moment the
document is replaced every view, in front or behind another tab, drops its plots, axis titles
and colour bars (nothing of the old document is drawn while the new one's is computed); brought
to the front, it shows the new document's study, chosen among the new document's names, or
says why it has none."""
import pytest
from PySide6.QtWidgets import QComboBox, QMessageBox

from gradviz.app.player import lessons
from gradviz.graph.names import node_name
from gradviz.app.window.main_window import SAMPLES_DIR
from test_heatmap_in_view import student_graph
from test_study_docks import _open, window
from test_study_stale import _settled, plot_ink

_ = window   # the fixture, shared with test_study_docks

OPENED = ("Hessian", "Gradient norms")      # as the auditor had them, Gradient norms in front


def _lesson_28(w, _student=None):
    entry = next(e for e in lessons.lesson_entries() if e.number == 28)
    return lessons.open_lesson(w, entry, ask=False)


PATHS = [     # one after the other: each replaces the document the one before showed
    ("File ▸ New", lambda w, student: w.new_document()),
    ("File ▸ Open", lambda w, student: w.open_file(str(student))),
    ("a lesson (28)", _lesson_28),
    ("a sample", lambda w, student: w.open_sample(SAMPLES_DIR / "004_matmul_sum.json", ask=False)),
]


def test_no_study_of_the_document_before_stays(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    student = student_graph(tmp_path / "student.json")
    w = window("004_matmul_sum")
    w.open_file(str(student))
    views = [_open(qtbot, w, title).view for title in OPENED]
    for view in views:
        _settled(qtbot, view)
        assert view.result is not None and plot_ink(view), view.title
    for what, act in PATHS:
        assert act(w, student), what
        for view in views:      # at once: nothing of the document before drawn, in front or behind
            assert plot_ink(view) == [] and view.result is None, (what, view.title, plot_ink(view))
        names = {node_name(node) for node in w.controller.doc.nodes.values()}
        for title, view in zip(OPENED, views):
            w.show_study(title)
            _settled(qtbot, view)
            if view.result is None:     # why, in words, and no plot
                assert plot_ink(view) == [] and view.message.text(), (what, title)
                continue
            chosen = [box.currentText() for box in view.findChildren(QComboBox)
                      if box.isVisibleTo(view) and box.currentText()]
            assert all(text.split(".")[0].split(":")[0] in names for text in chosen), \
                (what, title, chosen, names)
    w.controller.undo_stack.setClean()
