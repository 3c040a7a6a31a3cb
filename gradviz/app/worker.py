"""Running heavy work (a big Jacobian or Hessian) off the UI thread, with progress and cancel.

    job = run_job(fn, *args)            # fn(progress, *args) runs on a pool thread
    job.progress.connect(...); job.finished.connect(...); job.failed.connect(...)
    job.cancel()

`fn` calls `progress(fraction, text)` now and then; once the job is cancelled that
call raises `Cancelled`, which ends the job quietly (`cancelled` is emitted).
Signals arrive on the UI thread (queued), so slots may touch widgets.

The engine's tape stack must be thread-local before a job and the UI record tapes
at the same time; the app keeps the UI modal while a job runs.
"""
import threading
import traceback

from PySide6.QtCore import QEventLoop, QObject, QRunnable, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog


class Cancelled(Exception):
    """Raised inside a job by `progress()` once the job has been cancelled."""


class Job(QObject):
    progress = Signal(float, str)      # fraction in [0, 1], what is being done
    finished = Signal(object)          # the function's result
    failed = Signal(str)               # a one-line reason
    cancelled = Signal()
    done = Signal()                    # after any of finished, failed, cancelled

    def __init__(self, fn, args=(), kwargs=None, parent=None):
        super().__init__(parent)
        self._fn, self._args, self._kwargs = fn, args, kwargs or {}
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self.result = None
        self.error = None

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

    # -- the work (pool thread) --------------------------------------------------------
    def report(self, fraction, text=""):
        if self._cancel.is_set():
            raise Cancelled()
        self.progress.emit(max(0.0, min(1.0, float(fraction))), str(text))

    __call__ = report

    def _release(self):
        _running.discard(self)

    def _run(self):
        try:
            if self._cancel.is_set():
                raise Cancelled()
            self.result = self._fn(self, *self._args, **self._kwargs)
        except Cancelled:
            self.cancelled.emit()
        except Exception as e:  # noqa: BLE001 (reported, never raised into Qt)
            self.error = traceback.format_exc()
            self.failed.emit(" ".join(f"{type(e).__name__}: {e}".split())[:300])
        else:
            self.finished.emit(self.result)
        finally:
            self._finished.set()
            self.done.emit()


_running = set()


class _Runnable(QRunnable):
    def __init__(self, job):
        super().__init__()
        self.job = job
        self.setAutoDelete(True)

    def run(self):
        self.job._run()


def run_job(fn, *args, pool=None, **kwargs):
    """Start `fn(job, *args, **kwargs)` on a thread of `pool` (the global pool by default).

    The job starts once control returns to the event loop, so signals connected right
    after this call never miss an early result."""
    job = Job(fn, args, kwargs)
    _running.add(job)  # alive until its last signal has been delivered on the UI thread
    job.done.connect(job._release)
    pool = pool or QThreadPool.globalInstance()
    QTimer.singleShot(0, job, lambda: pool.start(_Runnable(job)))
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
        dialog = QProgressDialog(label, None, 0, 0, parent)
        dialog.setWindowTitle("gradviz")
        dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
        dialog.setMinimumDuration(0)
        dialog.show()
        loop = QEventLoop()
        while thread.is_alive():
            loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            thread.join(0.02)
        dialog.close()
        dialog.deleteLater()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")
