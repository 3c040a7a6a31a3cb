"""Autosave and crash recovery inside one test process: a crashed instance is played by
renaming a window's recovery file to the name of a process that no longer runs (the
real kill -9 runs are in test_crash_processes.py)."""
import json
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from gradviz.app.window import recovery as recovery_module
from gradviz.app.window.main_window import SAMPLES_DIR, SEED_SAMPLE
from gradviz.graph import fileformat

SEED = SAMPLES_DIR / SEED_SAMPLE
Button = QMessageBox.StandardButton


@pytest.fixture(autouse=True)
def temp_settings(app_env):
    return app_env.tmp


def autosave(window):
    window.autosaver.timer.stop()
    window.autosaver.save_now()
    window.autosaver.wait()


def dead_pid():
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def crash(window):
    """`window`'s process 'dies': its recovery files get the name of a process that no
    longer runs, and the window is forgotten without closing (no closeEvent)."""
    autosave(window)
    rec = window.recovery
    name = f"recovery-{dead_pid()}-1-1.gradviz.json"
    rec.path.rename(rec.dir / name)
    rec.info_path.rename(rec.dir / name.replace(".gradviz.json", "-info.json"))
    window.autosaver.wrote = False
    return rec.dir / name


def recovery_files(tmp_path):
    return sorted(p.name for p in (tmp_path / "recovery").glob("*.gradviz.json"))


def test_crash_recovery_is_offered_and_restores(make_window, seed_copy, app_env, tmp_path):
    w = make_window(seed_copy)
    w.controller.set_meta(title="work in progress")
    w.controller.set_value("tf_b", np.full((3, 3), 2.0, np.float32))
    edited = w.controller.text()
    left = crash(w)
    app_env.answers[:] = [Button.Yes]
    w2 = make_window()
    assert app_env.asked and "did not close normally" in app_env.asked[0]
    assert w2.controller.text() == edited
    assert w2.controller.path == str(seed_copy) and w2.controller.dirty
    assert not left.exists()
    assert w2.recovery.path.exists()   # the leftover became the new window's recovery
    w2.controller.undo_stack.undo()  # back to the file as last saved
    assert w2.controller.text() == seed_copy.read_text()
    assert not w2.recovery.path.exists()   # nothing unsaved: nothing to recover
    w2.close()
    app_env.asked.clear()
    make_window()
    assert not app_env.asked  # a clean exit: nothing to offer
    assert recovery_files(tmp_path) == []


def test_autosave_runs_on_a_timer_and_clears_when_saved(make_window, seed_copy, qtbot):
    w = make_window(seed_copy)
    w.autosaver.timer.setInterval(20)
    w.controller.set_meta(title="autosaved")
    qtbot.waitUntil(w.recovery.path.exists, timeout=3000)
    assert "autosaved" in w.recovery.path.read_text()
    w.save()
    assert not w.recovery.path.exists()


def test_autosave_comes_at_most_the_interval_after_the_first_change(make_window, seed_copy,
                                                                      qtbot):
    """Edits every 50 ms for 1.2 s with a 300 ms autosave: it must not wait for a pause."""
    w = make_window(seed_copy)
    w.autosaver.timer.setInterval(300)
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < 1.2 and not w.recovery.path.exists():
        k += 1
        w.controller.set_meta(title=f"edit {k}")
        qtbot.wait(50)
    assert w.recovery.path.exists(), "no autosave while the user kept editing"
    w.autosaver.wait()
    assert time.monotonic() - start < 1.2


def test_an_autosave_writes_off_the_ui_thread_from_a_snapshot(make_window, seed_copy,
                                                              monkeypatch):
    """The UI thread only snapshots; the file is written on another thread, and an edit
    made meanwhile is not in it (the snapshot was taken first)."""
    import threading
    w = make_window(seed_copy)
    w.controller.set_meta(title="snapshotted")
    threads, go = [], threading.Event()
    real_write = w.recovery.write

    def slow_write(doc, path, *view):
        threads.append(threading.current_thread())
        go.wait(10)
        real_write(doc, path, *view)
    monkeypatch.setattr(w.recovery, "write", slow_write)
    w.autosaver.save_now()
    w.controller.set_meta(title="after the snapshot")
    go.set()
    w.autosaver.wait()
    assert threads and threads[0] is not threading.main_thread()
    assert fileformat.load(str(w.recovery.path), strict=False).title == "snapshotted"


def test_a_running_instances_recovery_is_never_offered_nor_deleted(make_window, seed_copy,
                                                                   app_env, tmp_path):
    """Another gradviz still runs (its pid and start time match): its recovery file is
    live work, whatever this instance does. Once that process is gone, it is offered."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start = recovery_module.start_time(other.pid)
        folder = tmp_path / "recovery"
        folder.mkdir()
        live = folder / f"recovery-{other.pid}-{start}-1.gradviz.json"
        doc = fileformat.load(str(seed_copy))
        doc.title = "live work of another instance"
        fileformat.save(doc, str(live))
        w = make_window(seed_copy)
        assert not app_env.asked and live.exists()
        w.controller.set_meta(title="mine")
        autosave(w)
        w.controller.undo_stack.setClean()
        w.close()
        assert live.exists()
        # the same pid given to a later process is not the owner (another start time)
        assert not recovery_module.owner_running(other.pid, str(int(start) + 1))
    finally:
        other.kill()
        other.wait()
    app_env.answers[:] = [Button.Yes]
    w2 = make_window()
    assert app_env.asked and w2.controller.doc.title == "live work of another instance"


def test_a_recovery_that_cannot_be_restored_is_kept_and_its_place_told(make_window, seed_copy,
                                                                       app_env, tmp_path):
    """A recovery file the app cannot read (a newer format, a limit) is moved aside,
    never deleted; the message names where; later starts do not ask again."""
    w = make_window(seed_copy)
    w.controller.set_meta(title="precious")
    left = crash(w)
    text = json.loads(left.read_text())
    text["lesson"] = "x" * 6000     # over the lesson limit: open refuses it
    left.write_text(json.dumps(text))
    app_env.answers[:] = [Button.Yes]
    make_window()
    assert app_env.warnings, "the failure is told"
    kept = [p for p in (tmp_path / "recovery").glob("kept-*.gradviz.json")]
    assert len(kept) == 1 and str(kept[0]) in app_env.warnings[0]
    assert json.loads(kept[0].read_text()) == text   # unchanged
    app_env.asked.clear()
    make_window()
    assert not app_env.asked and kept[0].exists()


def test_a_damaged_original_does_not_stop_the_recovery(make_window, seed_copy, app_env):
    """The recovery holds the whole document: it is restored (as a new document) even
    when the file it was an edit of can no longer be opened."""
    w = make_window(seed_copy)
    w.controller.set_meta(title="edited before the file broke")
    edited = w.controller.doc.title
    crash(w)
    seed_copy.write_text("{ damaged")
    app_env.answers[:] = [Button.Yes]
    w2 = make_window()
    restored = [x for x in [w2, *w2.other_windows] if x.controller.doc.title == edited]
    assert restored and restored[0].controller.dirty and restored[0].controller.path is None
    assert any("seed.gradviz.json" in m for m in app_env.warnings)
    assert restored[0].recovery.path.exists()


def test_gradviz_file_after_a_crash_opens_file_and_offers_the_recovery_apart(
        make_window, seed_copy, tmp_path, app_env):
    other = tmp_path / "other.gradviz.json"
    shutil.copy(SAMPLES_DIR / "003_matmul_gradient.json", other)
    w = make_window(seed_copy)
    w.controller.set_meta(title="crashed edit of the seed")
    crashed = w.controller.text()
    crash(w)
    app_env.answers[:] = [Button.Yes]
    w2 = make_window(other)
    assert w2.controller.path == str(other)
    assert w2.controller.text() == other.read_text() and not w2.controller.dirty
    assert "in a new window" in app_env.asked[0] and "seed.gradviz.json" in app_env.asked[0]
    (recovered,) = w2.other_windows
    assert recovered.controller.text() == crashed
    assert recovered.controller.path == str(seed_copy) and recovered.controller.dirty
    assert recovered.recovery.path != w2.recovery.path   # each window autosaves to its own file
    autosave(recovered)
    assert recovered.recovery.path.exists()
    recovered.controller.undo_stack.setClean()
    recovered.close()
    assert not recovered.recovery.path.exists()


def test_declining_removes_the_leftover_and_a_second_start_does_not_see_it(
        make_window, seed_copy, app_env, tmp_path):
    w = make_window(seed_copy)
    w.controller.set_meta(title="not wanted")
    crash(w)
    app_env.answers[:] = [Button.No]
    make_window()
    assert len(app_env.asked) == 1
    app_env.asked.clear()
    make_window()
    assert not app_env.asked
    assert not [n for n in recovery_files(tmp_path) if "not wanted" in
                (tmp_path / "recovery" / n).read_text()]


def test_a_leftover_survives_autosaves_while_the_question_waits(make_window, seed_copy, tmp_path,
                                                                monkeypatch):
    from gradviz.app.window.main_window import MainWindow
    w = make_window(seed_copy)
    w.controller.set_meta(title="crashed")
    crash(w)
    other = tmp_path / "other.gradviz.json"
    shutil.copy(SAMPLES_DIR / "003_matmul_gradient.json", other)

    def slow_answer(*args, **kwargs):  # the user reads for a while: autosave timers fire
        for window in QApplication.topLevelWidgets():
            if isinstance(window, MainWindow) and window is not w:  # w's process has died
                autosave(window)
        return Button.Yes
    monkeypatch.setattr(QMessageBox, "question", slow_answer)
    w2 = make_window(other)
    (recovered,) = w2.other_windows
    assert recovered.controller.doc.title == "crashed"
    recovered.controller.undo_stack.setClean()
    recovered.close()


def _large_document(values=1_000_000):
    from gradviz.graph.document import Document, Node
    doc = Document(title="large")
    array = np.random.default_rng(0).normal(size=(values // 1000, 1000)).astype(np.float32)
    doc.nodes["w"] = Node(id="w", kind="constant", value=array, position=(0.0, 0.0))
    return doc


def _longest_pause(run):
    """(the longest time the UI thread went without handling a 20 ms timer while `run()`
    ran, the time `run()` took). On the UI thread, the write is one pause as long as
    the run; off it, the pauses are short (relative, so a loaded machine does not fail
    the test, whose runs then take long too)."""
    from PySide6.QtCore import QTimer
    ticks = [time.perf_counter()]
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    try:
        run()
    finally:
        timer.stop()
    ticks.append(time.perf_counter())
    return max(np.diff(ticks)), ticks[-1] - ticks[0]


def test_saving_a_large_document_keeps_the_window_responsive(make_window, tmp_path, qtbot):
    """1M values: Save and autosave write off the UI thread (before: the whole write,
    seconds, on it; 5M values froze the window 15.9 s and took +2 GB per autosave)."""
    w = make_window(offer_recovery=False)
    w.controller.set_document(_large_document())
    w.controller.set_meta(title="large, edited")
    w.autosaver.timer.stop()
    qtbot.wait(200)   # the window's own work on the new document (a recomputation) first
    path = tmp_path / "large.gradviz.json"

    def autosave_until_written():
        w.autosaver.save_now()
        qtbot.waitUntil(lambda: not w.autosaver.busy(), timeout=300_000)
    pause, took = _longest_pause(autosave_until_written)
    assert pause < max(0.5, 0.3 * took), (pause, took)
    assert fileformat.load(str(w.recovery.path), strict=False).title == "large, edited"
    pause, took = _longest_pause(lambda: w.save_as(str(path)))
    assert pause < max(0.5, 0.3 * took), (pause, took)
    assert not w.controller.dirty and w.controller.path == str(path)
    saved = fileformat.load(str(path))
    np.testing.assert_array_equal(saved.nodes["w"].value, w.controller.doc.nodes["w"].value)
    assert not w.recovery.path.exists()


def test_the_recovered_document_is_shown_at_the_zoom_and_place_it_had(make_window, app_env, tmp_path,
                                                                      qtbot):
    """Issue 20 §5 and the reliability rule (audit H42w, s_before_kill.png vs s_restored.png):
    a student's unsaved graph, every number readable at 1280 x 800, came back after kill -9
    fitted to the window, its cards compact heat thumbnails. The autosave keeps the view (the
    zoom and the point at the viewport's centre) beside the document, and the recovered
    document opens at it, its cards drawn as they were, in a window of the same size."""
    from gradviz.render import legible
    w = make_window(SEED)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(50)
    w.new_document()                        # built by hand, never saved
    for at in ((0, 0), (0, 300), (900, 700)):     # far apart: fitted, they would be compact
        w.controller.add_node("variable", position=at)
    qtbot.wait(100)
    w.canvas._set_scale(1.0)
    w.canvas.centerOn(100, 200)
    qtbot.wait(50)
    before = w.canvas.mapToScene(w.canvas.viewport().rect().center())
    assert not w.canvas.compact
    crash(w)
    w.hide()
    app_env.answers[:] = [Button.Yes]
    w2 = make_window()
    w2.resize(1280, 800)
    w2.show()
    qtbot.waitExposed(w2)
    qtbot.wait(100)
    assert len(w2.controller.doc.nodes) == 3 and w2.controller.dirty
    readable = legible.readable_zoom(w2.canvas.logicalDpiY(), w2.canvas.readable_px)
    assert w2.canvas.transform().m11() == pytest.approx(1.0) and 1.0 >= readable
    assert not w2.canvas.compact
    after = w2.canvas.mapToScene(w2.canvas.viewport().rect().center())
    assert abs(after.x() - before.x()) <= 2 and abs(after.y() - before.y()) <= 2, (before, after)
