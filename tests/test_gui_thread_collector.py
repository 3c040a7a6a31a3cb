"""Garbage is collected on the GUI thread only (app/collector.py): a collection on a worker
finalized Qt objects there, and docs/screenshots.py crashed in 2 of 3 runs."""
import gc
import threading

from PySide6.QtCore import QObject

from gradviz.app.collector import GuiThreadCollector

_kept = []     # what the worker allocated, alive so that the counts stay past the threshold


def test_a_cycle_of_qt_objects_is_finalized_on_the_gui_thread(qtbot):
    finalized_on = []

    class Held(QObject):
        def __del__(self):
            finalized_on.append(threading.current_thread().name)

    assert gc.isenabled()
    collector = GuiThreadCollector(interval_ms=20)
    try:
        held = Held()
        held.me = held          # a cycle: only the collector frees it
        del held
        worker = threading.Thread(target=lambda: _kept.append([[] for _ in range(5 * gc.get_threshold()[0])]),
                                  name="worker")
        worker.start()
        worker.join()
        assert finalized_on == []          # no collection ran on the worker
        qtbot.waitUntil(lambda: bool(finalized_on), timeout=3000)
        assert finalized_on == [threading.main_thread().name]
        assert not gc.isenabled()
        late = Held()
        late.me = late
        del late
    finally:
        collector.stop()
        _kept.clear()
    assert gc.isenabled()
    # stop() collected that young cycle here, on the GUI thread: left to the automatic
    # collector it was finalized inside whatever allocated next (once a Qt call holding a
    # lock its destructor waited for: a deadlock)
    assert finalized_on == [threading.main_thread().name] * 2
