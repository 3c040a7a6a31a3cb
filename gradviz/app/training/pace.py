"""The worker's share of the interpreter lock during a run: it steps while the UI thread
keeps time, and rests while the UI thread is busy.

The worker and the UI thread share one interpreter lock. A compiled step takes 0.5-1.5 ms
and a run takes 600-700 of them a second; the UI thread, coming back from each call into
Qt, waits for the worker to hand the lock over (up to the switch interval, each time). A
preview's repaint then took 2-3 times its CPU time, the curves of thousands of points far
longer, and a 10 ms timer on the UI thread ticked every 29-62 ms (10 ms in an eager run,
whose 270-370 steps a second grew the curves half as fast).

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

    def __init__(self, late_s=LATE_S, rest_s=REST_S):
        self.late_s, self.rest_s = late_s, rest_s
        self.last = time.perf_counter()
        self._came = threading.Event()
        self.rests = 0          # how many times the worker rested (tests, the bench)

    def beat(self):
        self.last = time.perf_counter()
        self._came.set()

    @property
    def late(self):
        return time.perf_counter() - self.last > self.late_s

    def wait(self):
        """Return at once while the beats come on time; else when the next beat comes
        (or after rest_s)."""
        if not self.late:
            return
        self._came.clear()
        if self.late:       # (a beat between the first look and the clear is not lost)
            self.rests += 1
            self._came.wait(self.rest_s)
