"""The worker's share of the interpreter lock during a run: it steps while the UI thread
keeps time, and rests while the UI thread is busy.

The worker and the UI thread share one interpreter lock. A compiled step of the 100-node
benchmark document takes about 0.5 ms alone, and the worker runs them back to back; the
UI thread, coming back from each call into Qt, waits for the worker to hand the lock over
(up to the switch interval, each time). During a run a preview's edit took the UI thread
2-2.5 times its CPU time (1.4-1.6 in an eager run, whose steps release the lock less
often and come half as fast), and the lead measured a 10 ms timer on the UI thread
ticking every 29-62 ms on a quiet machine.

So the UI thread beats every BEAT_MS (a timer: one short call into Python) and the worker
takes a step only while the last beat is at most LATE_S old. A late beat means the UI
thread is busy, or waiting for the lock: the worker rests until the next beat, or REST_S
at the longest (so a run always goes on), and the UI thread has the lock to itself. When
the window has nothing to do the beats come on time and the run goes at full speed.
"""
import threading
import time

BEAT_MS = 10
LATE_S = 0.015
REST_S = 0.05


class Heartbeat:
    """`beat()` on the UI thread; `wait()` on the worker before each step."""

    def __init__(self):
        self.last = time.perf_counter()
        self._came = threading.Event()

    def beat(self):
        self.last = time.perf_counter()
        self._came.set()

    @property
    def late(self):
        return time.perf_counter() - self.last > LATE_S

    def wait(self):
        """Return at once while the beats come on time; else when the next beat comes
        (or after REST_S)."""
        if not self.late:
            return
        self._came.clear()
        if self.late:       # (a beat between the first look and the clear is not lost)
            self._came.wait(REST_S)
