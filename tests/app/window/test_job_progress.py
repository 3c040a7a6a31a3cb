"""The window's progress dialog for a long job (run_job) under a busy machine: a modal
QProgressDialog's setValue processes events, so the job's next progress report and its end
(`done`) can arrive inside it. A report nested in another cleared the 'inside setValue' flag:
`done` then closed and deleted the dialog under the outer setValue still on the stack, and
that report closed it once more after `done` (a segfault, or "QProgressDialog already
deleted", seen three times in test_study_size under load)."""
import threading

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QProgressDialog

from gradviz.app.window import main_window


class _Job(QObject):
    """The worker's signals (a thread of its own emits them, so they arrive queued)."""
    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    done = Signal()

    def cancel(self):
        pass


class _Dialog(QProgressDialog):
    """Notes how many setValue calls were on the stack at each close."""
    def __init__(self, *args):
        super().__init__(*args)
        self.depth, self.closes = 0, []

    def setValue(self, value):
        self.depth += 1
        try:
            super().setValue(value)
        finally:
            self.depth -= 1

    def close(self):
        self.closes.append(self.depth)
        return super().close()


def test_a_report_nested_in_another_does_not_let_done_close_the_dialog_under_it(
        make_window, qtbot, monkeypatch):
    w = make_window()
    job = _Job()
    monkeypatch.setattr(main_window, "run_job", lambda fn, *args: job)
    monkeypatch.setattr(main_window, "QProgressDialog", _Dialog)
    w.run_job("Computing studies", None, lambda result: None)
    dialog = w.findChild(QProgressDialog)
    qtbot.waitUntil(dialog.isVisible)              # shown after its minimum duration (300 ms)
    job.progress.emit(0.1, "Hessian")              # shown once: setValue processes events now
    # Queued before the UI thread delivers any: the second report and the job's end are
    # delivered inside the first report's setValue.
    worker = threading.Thread(target=lambda: (job.progress.emit(0.5, "Hessian"),
                                              job.progress.emit(0.6, "Jacobian"), job.done.emit()))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(dialog.closes) and not dialog.depth)
    qtbot.wait(50)
    assert dialog.closes == [0]                    # once, after every setValue has returned
    assert w._job is None
