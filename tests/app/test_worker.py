"""Jobs run off the UI thread, report progress, and stop when cancelled."""
import threading
import time

import numpy as np

from gradviz.app.evaluation import worded
from gradviz.app.worker import run_job
from gradviz.graph.document import Document


def test_job_reports_progress_and_result_from_another_thread(qtbot):
    threads, seen = [], []

    def work(job, n):
        threads.append(threading.get_ident())
        for i in range(n):
            job.report(i / n, f"step {i}")
        return n * 2
    job = run_job(work, 4)
    job.progress.connect(lambda f, text: seen.append((f, text)))
    with qtbot.waitSignal(job.finished, timeout=5000) as blocker:
        pass
    assert blocker.args == [8]
    qtbot.waitUntil(lambda: len(seen) == 4)
    assert seen[0] == (0.0, "step 0")
    assert threads[0] != threading.get_ident()


def test_cancel_stops_the_job(qtbot):
    started = threading.Event()

    def forever(job):
        started.set()
        while True:
            job.report(0.5)
            time.sleep(0.005)
    job = run_job(forever)
    qtbot.waitUntil(started.is_set, timeout=5000)  # jobs start from the event loop
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
    assert job.wait(5) and job.result is None


def test_failure_reports_the_exception_for_its_caller_to_word(qtbot):
    """`failed` carries the exception, not text: every caller words it (evaluation.worded,
    with the user's names); the worker's own 'ValueError: ...' line, with a class name,
    was read by nobody and must not be there to reach the screen."""
    error = ValueError("shapes (2, 3) and (4,) do not match")

    def broken(job):
        raise error
    job = run_job(broken)
    with qtbot.waitSignal(job.failed, timeout=5000) as blocker:
        pass
    assert blocker.args == [error]
    assert "ValueError" not in worded(blocker.args[0], Document())


def test_a_job_never_waits_for_other_jobs(qtbot):
    """A training run must not queue behind studies that are still running: with a shared
    pool of one thread per core it did (the Train dock then showed nothing for 20 s)."""
    from PySide6.QtCore import QThread
    release = threading.Event()
    hanging = [run_job(lambda job: release.wait(30)) for _ in range(QThread.idealThreadCount() + 1)]
    try:
        job = run_job(lambda job: "ran")
        with qtbot.waitSignal(job.finished, timeout=5000) as blocker:
            pass
        assert blocker.args == ["ran"]
    finally:
        release.set()
    assert all(j.wait(5) for j in hanging)


def test_a_job_stops_at_the_engines_next_checkpoint(qtbot):
    """Cancel reaches into a long backward pass (a Jacobian's chunks, each op's VJP)."""
    import gradviz as gv
    started, passes = threading.Event(), []

    def jacobians(job):
        x = gv.Variable(np.random.default_rng(0).normal(size=(64, 64)).astype(np.float32))
        while True:                       # never ends unless a checkpoint stops it
            with gv.GradientTape() as tape:
                y = x
                for _ in range(30):
                    y = gv.tanh(gv.matmul(y, x))
            started.set()
            tape.jacobian(y, x)
            passes.append(1)
    job = run_job(jacobians)
    failures = []
    job.failed.connect(failures.append)
    qtbot.waitUntil(started.is_set, timeout=5000)
    time.sleep(0.05)
    start = time.perf_counter()
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
        assert job.wait(2)
        assert time.perf_counter() - start < 0.5
    assert job.result is None and not failures
