"""A fault raised in a Qt slot while a document opens (here: the Jacobian dock refreshing
after File ▸ Open) becomes a message box in words, with the traceback behind Details,
and the app keeps running (issue 25 §2). Without the guard PySide6 only prints the
traceback on stderr and the dock stays blank."""
import sys

import pytest
from PySide6.QtWidgets import QMessageBox

from gradviz.app import faults
from gradviz.app.studies.jacobian_view import JacobianView
from gradviz.app.window.main_window import SAMPLES_DIR


@pytest.fixture
def reporter(monkeypatch):
    """The guard `gradviz` installs at start-up, for this test only; the boxes it would show
    are recorded as (words, advice, details) instead of waiting for a click."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)   # put back after the test
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(
        (box.text(), box.informativeText(), box.detailedText())) or 0)
    guard = faults.install()
    guard.shown = shown
    return guard


def _failing_refresh(monkeypatch):
    def show_result(self, study):
        raise ZeroDivisionError("float division by zero")
    monkeypatch.setattr(JacobianView, "show_result", show_result)


def test_a_fault_in_a_slot_during_open_is_a_dialog_in_words(qtbot, open_window, reporter,
                                                           monkeypatch, capfd):
    w = open_window()
    dock = w.study_docks["Jacobian"]
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    _failing_refresh(monkeypatch)
    assert w.load_path(str(SAMPLES_DIR / "001_dense_jacobian.json"))
    qtbot.waitUntil(lambda: bool(reporter.shown), timeout=5000)
    words, advice, details = reporter.shown[0]
    assert words == ("An internal error stopped what gradviz was doing: float division by zero "
                     "(ZeroDivisionError).")
    assert "keeps running" in advice and "your document is kept" in advice
    assert details.startswith("Traceback") and "in show_result" in details
    assert "ZeroDivisionError" in capfd.readouterr().err      # still there for a bug report
    assert w.statusBar().currentMessage() == words
    # The app keeps running: the window is there and opens the next document.
    monkeypatch.undo()
    monkeypatch.setattr(QMessageBox, "exec", lambda box: 0)
    assert w.isVisible() and w.load_path(str(SAMPLES_DIR / "004_matmul_sum.json"))
    assert w.controller.doc.title and len(reporter.shown) == 1


def test_the_same_fault_again_goes_to_the_status_bar_only(qtbot, open_window, reporter):
    w = open_window()
    for _ in range(3):   # as a fault in something that repeats would
        try:
            raise RuntimeError("the layout lost a card")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    assert len(reporter.shown) == 1 and len(reporter.reported) == 3
    assert "the layout lost a card" in w.statusBar().currentMessage()


def test_interrupting_is_not_a_fault(reporter):
    calls = []
    reporter.previous = lambda *args: calls.append(args[0])
    reporter(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert calls == [KeyboardInterrupt] and not reporter.shown
