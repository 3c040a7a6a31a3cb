"""Running heavy work (a big Jacobian or Hessian) off the UI thread, with progress and cancel.

    job = run_job(fn, *args)            # fn(progress, *args) runs on a thread of its own
    job.progress.connect(...); job.finished.connect(...); job.failed.connect(...)

`failed` carries the exception itself: the caller words it (evaluation.worded, with the
user's names), so no class name or engine text reaches the screen from here.
    job.cancel()

`fn` calls `progress(fraction, text)` now and then; once the job is cancelled that
call raises `Cancelled`, which ends the job quietly (`cancelled` is emitted). The
engine's checkpoints (between the backward passes of a Jacobian or Hessian) raise it
too, so a study stops midway, not after minutes.
Signals arrive on the UI thread (queued), so slots may touch widgets. The engine's
tape stack is per thread, so a job's tapes and the UI's never mix.
"""
import contextlib
import threading

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QProgressDialog

from ..engine.interrupt import checkpoints


class Cancelled(Exception):
    """Raised inside a job by `progress()` once the job has been cancelled."""


class Job(QObject):
    progress = Signal(float, str)      # fraction in [0, 1], what is being done
    finished = Signal(object)          # the function's result
    failed = Signal(object)            # the exception that ended the job (words: evaluation.worded)
    cancelled = Signal()
    done = Signal()                    # after any of finished, failed, cancelled

    def __init__(self, fn, args=(), kwargs=None, parent=None):
        super().__init__(parent)
        self._fn, self._args, self._kwargs = fn, args, kwargs or {}
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self.result = None

    # -- control (UI thread) -----------------------------------------------------------
    def cancel(self):
        self._cancel.set()

    @property
    def is_cancelled(self):
        return self._cancel.is_set()

    def is_done(self):
        return self._finished.is_set()

    def wait(self, timeout=None):
        """Block until the job has ended (tests); True if it did."""
        return self._finished.wait(timeout)

    # -- the work (its thread) ----------------------------------------------------------
    def report(self, fraction, text=""):
        self.check()
        self.progress.emit(max(0.0, min(1.0, float(fraction))), str(text))

    __call__ = report

    def check(self):
        """Raise Cancelled once the job has been cancelled (the engine's checkpoints)."""
        if self._cancel.is_set():
            raise Cancelled()

    def _release(self):
        _running.discard(self)

    def _run(self):
        try:
            self.check()
            with checkpoints(self.check):
                self.result = self._fn(self, *self._args, **self._kwargs)
        except Cancelled:
            self.cancelled.emit()
        except Exception as e:  # noqa: BLE001 (reported, never raised into Qt)
            if self._cancel.is_set():   # stopped at a checkpoint some code wrapped in words
                self.cancelled.emit()
                return
            self.failed.emit(e)
        else:
            self.finished.emit(self.result)
        finally:
            self._finished.set()
            self.done.emit()


_running = set()


def run_job(fn, *args, **kwargs):
    """Start `fn(job, *args, **kwargs)` on a thread of its own.

    The job starts once control returns to the event loop, so signals connected right
    after this call never miss an early result. Each job has its own (daemon) thread,
    not a slot in a shared pool: a training run never queues behind a study, and the
    last seconds of a cancelled study (a LAPACK call cannot stop midway) hold up
    neither other jobs nor the application's exit."""
    job = Job(fn, args, kwargs)
    _running.add(job)  # alive until its last signal has been delivered on the UI thread
    job.done.connect(job._release)
    thread = threading.Thread(target=job._run, name=f"gradviz-job-{getattr(fn, '__name__', 'fn')}",
                              daemon=True)
    QTimer.singleShot(0, job, thread.start)
    return job


def wait_painted(fn, parent=None, label="Working…", show_after_ms=300):
    """Run `fn()` on a thread and return its result (or raise its exception), keeping the
    window painted meanwhile: after `show_after_ms` a modal busy dialog says what is
    happening and takes the keyboard and mouse, so nothing is edited half-way. For work
    the user must wait for (File ▸ Save of a large document), unlike a Job."""
    outcome = {}

    def run():
        try:
            outcome["result"] = fn()
        except BaseException as e:  # noqa: BLE001 (raised again on the UI thread)
            outcome["error"] = e
    thread = threading.Thread(target=run, name="gradviz-wait", daemon=True)
    thread.start()
    thread.join(show_after_ms / 1000)
    if thread.is_alive():
        with busy(parent, label):
            loop = QEventLoop()
            while thread.is_alive():
                loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
                thread.join(0.02)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


@contextlib.contextmanager
def busy(parent, label):
    """A modal busy dialog saying `label` and the wait cursor, over the block: painted
    before it runs, so that work which must run on the UI thread (showing a document of
    large tensors: its cards and first paint) never leaves the window frozen without a
    sign. The dialog takes the keyboard and mouse, so nothing is edited half-way."""
    dialog = QProgressDialog(label, None, 0, 0, parent)
    dialog.setWindowTitle("gradviz")
    dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
    dialog.setMinimumDuration(0)
    dialog.show()
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    QEventLoop().processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    try:
        yield dialog
    finally:
        QApplication.restoreOverrideCursor()
        dialog.close()
        dialog.deleteLater()
