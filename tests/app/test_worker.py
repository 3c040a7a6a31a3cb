"""Jobs run off the UI thread, report progress, and stop when cancelled."""
import threading
import time

from gradviz.app.worker import run_job


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


def test_failure_is_reported_in_one_line(qtbot):
    def broken(job):
        raise ValueError("shapes (2, 3) and (4,) do not match")
    job = run_job(broken)
    with qtbot.waitSignal(job.failed, timeout=5000) as blocker:
        pass
    assert blocker.args == ["ValueError: shapes (2, 3) and (4,) do not match"]
