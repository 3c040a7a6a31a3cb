"""A study that cannot be computed, or of a document gone, leaves nothing of the study before
on screen (issue 20 §5; walk-through on 6072f2e: Batch Jacobian, then the attention lesson,
kept batchnorm's axes, ±1 and 0–3 colour bars and 'example b' beside "Cannot compute"; File ▸
New after lesson 14's Hessian kept its 0–49 axes and ±5 colour bar). The message says why,
and a study's warning in the status bar names the study: no card on the canvas is amber."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QMessageBox

from app_ui import laid_out, tick_labels
from gradviz.app.player import lessons
from gradviz.app.window.main_window import SAMPLES_DIR, STUDY_TITLES
from test_study_docks import _open, window

_ = window   # the fixture, shared with test_study_docks


def plot_ink(view):
    """What the view's plots show: ['axis title', 'tick 0.5', 'image', …] of every plot,
    colour bar and axis the user can see."""
    ink = []
    for graphics in view.findChildren(pg.GraphicsView):
        if not graphics.isVisibleTo(view):
            continue
        for item in graphics.scene().items():
            if not item.isVisible():
                continue
            if isinstance(item, pg.AxisItem):
                if item.label.isVisible() and item.labelText:
                    ink.append(f"axis title {item.labelText}")
                ink += [f"tick {text}" for _, text in tick_labels(item)]
            elif isinstance(item, pg.ImageItem) and item.image is not None and item.image.size:
                ink.append("image")
            elif isinstance(item, pg.ColorBarItem):
                ink.append("colour bar")
    return ink


def _settled(qtbot, view):
    qtbot.waitUntil(lambda: not view._stale and not view._timer.isActive()
                    and view._task is None, timeout=8000)
    laid_out(qtbot, view.window())


def test_no_study_view_keeps_a_plot_it_cannot_show(qtbot, window, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    w = window("001_hessian_newton")
    for title in STUDY_TITLES:
        good = SAMPLES_DIR / ("001_batchnorm_pitfall.json" if title == "Batch Jacobian"
                              else "001_hessian_newton.json")
        w.open_sample(good, ask=False)
        dock = _open(qtbot, w, title)
        view = dock.view
        _settled(qtbot, view)
        assert view.result is not None and plot_ink(view), title
        if title == "Batch Jacobian":     # the walk-through's case: attention has no batch axis
            entry = next(e for e in lessons.lesson_entries() if e.path.name == "nets_6_attention.json")
            assert lessons.open_lesson(w, entry, ask=False)
            why = "batch"
        else:                             # a shape error: the graph no longer runs
            w.controller.set_value("x", np.ones((3, 3), np.float32))
            why = ""
        _settled(qtbot, view)
        assert plot_ink(view) == [], (title, plot_ink(view))
        status = w.problems_label.text()
        if title == "Batch Jacobian":     # it does not apply: said in the dock, no warning
            assert view.not_applicable and not view.error and "study warning" not in status
            assert view.message.isVisibleTo(view) and "does not apply" in view.message.text() \
                and why in view.message.text(), view.message.text()
        else:
            assert view.error and view.message.isVisibleTo(view) and \
                f"Cannot compute the {title} study" in view.message.text() and \
                why in view.message.text(), (title, view.message.text())
            assert f"study warning ({title})" in status, (title, status)
        assert w.new_document()
        _settled(qtbot, view)
        assert plot_ink(view) == [], (title, plot_ink(view))
        assert "document is empty" in view.message.text() and view.message.isVisibleTo(view)
        w.open_sample(good, ask=False)
        _settled(qtbot, view)
        assert view.result is not None and plot_ink(view), title      # and back again
        dock.toggleViewAction().trigger()
