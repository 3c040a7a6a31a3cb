"""Crash recovery with real processes: gradviz instances (crash_driver.py) edited on
stdin, killed with SIGKILL, and started again over the same settings and recovery folder."""
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gradviz.graph import fileformat

ROOT = Path(__file__).resolve().parents[3]
DRIVER = Path(__file__).with_name("crash_driver.py")

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


class Instance:
    """One gradviz process; `expect(prefix)` waits for a line of its output."""

    def __init__(self, tmp_path, answer="no", path=None):
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DRIVER_ANSWER": answer,
               "GRADVIZ_RECOVERY_DIR": str(tmp_path / "recovery"),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        args = [sys.executable, str(DRIVER), str(tmp_path / "cfg")] + ([str(path)] if path else [])
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()
        self.expect("ready", timeout=120)

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, prefix, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting {prefix!r}; saw {self.seen}")

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        self.expect(f"done {command}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def close(self):
        self.process.stdin.write("close\n")
        self.process.stdin.flush()
        assert self.process.wait(60) == 0


@pytest.fixture
def instances():
    started = []

    def start(*args, **kwargs):
        started.append(Instance(*args, **kwargs))
        return started[-1]
    yield start
    for instance in started:
        if instance.process.poll() is None:
            instance.kill()


def recovered_titles(tmp_path):
    """The document titles in the recovery folder's recovery files."""
    titles = []
    for path in sorted((tmp_path / "recovery").glob("recovery*.gradviz.json")):
        titles.append(fileformat.load(str(path), strict=False).title)
    return titles


def test_editing_without_a_pause_then_kill_9_loses_at_most_the_interval(tmp_path, instances):
    """Edits every 0.25 s for 4 s, autosave interval 1 s: a kill -9 loses at most the
    last second of work (before: the timer restarted at each edit, and all was lost)."""
    gradviz = instances(tmp_path)
    gradviz.send("interval 1000")
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < 4.0:
        k += 1
        gradviz.send(f"title edit {k}")
        time.sleep(0.25)
    made = {}
    for i in range(1, k + 1):
        made[f"edit {i}"] = i
    gradviz.kill()
    titles = recovered_titles(tmp_path)
    assert titles, "kill -9 after 4 s of steady editing left no recovery file"
    assert made[titles[0]] >= k - 6   # at most ~1.5 s of edits (4 a second) lost


def test_a_second_instance_neither_offers_nor_deletes_the_first_ones_work(tmp_path, instances):
    first = instances(tmp_path)
    first.send("interval 100")
    first.send("title first instance's work")
    end = time.monotonic() + 30
    while not recovered_titles(tmp_path) and time.monotonic() < end:
        time.sleep(0.1)
    assert recovered_titles(tmp_path) == ["first instance's work"]
    second = instances(tmp_path, answer="no")   # "No" would delete what it was offered
    second.send("interval 100")
    second.send("title second instance's work")
    time.sleep(0.5)
    second.close()
    assert not [line for line in second.seen if line.startswith("asked:")]
    assert recovered_titles(tmp_path) == ["first instance's work"]
    first.kill()
    third = instances(tmp_path, answer="yes")
    third.send("titles")   # the question comes before "ready"
    assert any(line.startswith("asked:") and "did not close normally" in line
               for line in third.seen)
    assert any(line == "title: first instance's work" for line in third.seen)
