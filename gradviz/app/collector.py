"""Garbage collection on the GUI thread only.

Python's collector runs in whichever thread allocates when a threshold is crossed. On a
worker (a study's job, the numba kernel loader, the recovery writer) it finalizes the Qt
objects caught in reference cycles there (a closed window, a view, a dialog), which Qt
allows only on their own thread: docs/screenshots.py printed "QBasicTimer::start: Timers
cannot be started from another thread" 26 times and crashed (segfault) in 2 of 3 runs,
the collection running on the thread that loads the GIF's numba kernel. So automatic
collection is off and a timer on the GUI thread collects as the thresholds say
(pyqtgraph's GarbageCollector does the same).
"""
import gc
import time

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 250     # how often the GUI thread looks at the collector's counts
FULL_SPACING = 50     # a full collection waits 50 times its last duration: at most 2 % of the time


class GuiThreadCollector(QObject):
    """While it runs, every collection happens on the thread it lives on, at most
    INTERVAL_MS after a generation's count passes gc.get_threshold()."""

    def __init__(self, parent=None, interval_ms=INTERVAL_MS):
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self._next_full = 0.0
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)

    def check(self):
        """Collect the oldest generation whose count passed its threshold, as the
        automatic collector would have; a full collection no sooner than FULL_SPACING times
        its own last duration after it (the automatic collector too spaces them, by the
        heap's growth; run whenever the count said, they held the GUI thread long enough in
        the test process's large heap that a training test timed out)."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if thresholds[2] and counts[2] > thresholds[2] and time.monotonic() >= self._next_full:
            start = time.monotonic()
            gc.collect(2)
            self._next_full = time.monotonic() + FULL_SPACING * (time.monotonic() - start)
            return
        for generation in (1, 0):
            if thresholds[generation] and counts[generation] > thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self):
        """Automatic collection as it was before, the young garbage collected first: here,
        where no Qt call is under way. Left to the automatic collector, that backlog was
        collected inside whatever allocated next, once inside a Qt call holding a lock that
        the finalized QObject's destructor then waited for (a deadlock in tests/app)."""
        self._timer.stop()
        gc.collect(1)
        if self._was_enabled:
            gc.enable()


_collector = None


def collect_on_gui_thread(app):
    """Install the app's one GuiThreadCollector (owned by `app`); returns it."""
    global _collector
    if _collector is None:
        _collector = GuiThreadCollector(app)
    return _collector
