"""The main window's file workflow, undo, recovery, import, code view and themes."""
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QMessageBox, QTableWidget

from gradviz.app.window.recovery import RecentFiles
from gradviz.app.window.main_window import SAMPLES_DIR, SEED_SAMPLE
from gradviz.bundled import lesson_entries
from gradviz.graph import Port, fileformat
from gradviz.graph.document import OP

SEED = SAMPLES_DIR / SEED_SAMPLE
Button = QMessageBox.StandardButton


@pytest.fixture(autouse=True)
def temp_settings(app_env):
    """QSettings, recovery files and message boxes in tmp_path (conftest's app_env)."""
    return app_env.tmp


def _edit_a_lot(window):
    c = window.controller
    nid = c.add_node(OP, "reduce_sum", (600, 100))
    c.connect(Port("y_tf"), Port(nid))
    c.set_attr(nid, "keepdims", True)
    c.set_value("tf_b", np.ones((3, 3), np.float32))
    c.move_nodes({"tf_t": (10.0, 20.0)})
    c.end_move()
    c.move_nodes({"tf_t": (30.0, 40.0)})
    c.set_meta(title="Changed")
    c.set_ports("targets", [Port(nid)])
    window.canvas.select_all()
    window.canvas.duplicate()
    window.canvas.delete_selected()
    return nid


def test_default_window_opens_the_seed_sample(make_window):
    w = make_window()
    assert w.controller.doc.title == fileformat.load(str(SEED)).title
    assert w.controller.path is None  # a sample opens unsaved, so Save never overwrites it
    assert w.windowTitle() == f"{w.controller.doc.title} (lesson)[*]"  # no unsaved work
    assert w.controller.result.ok
    assert w.width() <= 1280 and w.height() <= 800
    assert "no problems" in w.problems_label.text()


def test_undo_everything_then_save_is_byte_identical(make_window, seed_copy):
    original = seed_copy.read_bytes()
    w = make_window(seed_copy)
    assert w.controller.path == str(seed_copy)
    _edit_a_lot(w)
    assert w.controller.dirty and w.isWindowModified()
    stack = w.controller.undo_stack
    assert stack.count() >= 8
    while stack.canUndo():
        w.actions_by_name["undo"].trigger()
    assert not w.controller.dirty
    assert w.save()
    assert seed_copy.read_bytes() == original


def test_redo_everything_gives_the_edited_document(make_window, seed_copy):
    w = make_window(seed_copy)
    _edit_a_lot(w)
    edited = w.controller.text()
    stack = w.controller.undo_stack
    while stack.canUndo():
        stack.undo()
    while stack.canRedo():
        stack.redo()
    assert w.controller.text() == edited


def test_unsaved_changes_prompt_on_new_and_close(make_window, monkeypatch, seed_copy):
    w = make_window(seed_copy)
    w.show()
    w.controller.set_meta(title="edited")
    asked = []

    def answer(button):
        def question(*args, **kwargs):
            asked.append(args[2])
            return button
        return question
    monkeypatch.setattr(QMessageBox, "question", answer(Button.Cancel))
    assert not w.new_document()
    assert w.controller.doc.title == "edited" and "unsaved changes" in asked[-1]
    assert not w.close()
    assert w.isVisible()
    monkeypatch.setattr(QMessageBox, "question", answer(Button.Discard))
    assert w.new_document()
    assert not w.controller.doc.nodes and not w.controller.dirty
    w.controller.set_meta(title="edited again")
    monkeypatch.setattr(QMessageBox, "question", answer(Button.Save))
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(seed_copy.parent / "kept"), ""))
    assert w.close()
    assert (seed_copy.parent / "kept.gradviz.json").exists()
    assert len(asked) == 4


def test_save_as_writes_atomically(make_window, seed_copy, monkeypatch, tmp_path):
    w = make_window(seed_copy)
    w.controller.set_meta(title="saved elsewhere")
    target = tmp_path / "out" / "copy.gradviz.json"
    target.parent.mkdir()
    target.write_text("old contents")
    renames = []
    real_replace = os.replace

    def spy(src, dst):
        renames.append((src, dst))
        assert Path(dst).read_text() == "old contents"  # untouched until the rename
        real_replace(src, dst)
    monkeypatch.setattr(fileformat.os, "replace", spy)
    assert w.save_as(str(target))
    assert [Path(d) for _, d in renames] == [target]
    assert Path(renames[0][0]).parent == target.parent
    assert target.read_text() == w.controller.text()
    assert sorted(p.name for p in target.parent.iterdir()) == ["copy.gradviz.json"]
    assert w.controller.path == str(target) and not w.controller.dirty
    assert "copy.gradviz.json" in w.windowTitle()

    def broken(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(fileformat.os, "replace", broken)
    w.controller.set_meta(title="never written")
    assert not w.save()
    assert "saved elsewhere" in target.read_text()
    assert sorted(p.name for p in target.parent.iterdir()) == ["copy.gradviz.json"]
    assert w.controller.dirty


def test_recent_files_are_remembered(make_window, seed_copy, tmp_path):
    other = tmp_path / "other.gradviz.json"
    shutil.copy(SAMPLES_DIR / "003_matmul_gradient.json", other)
    w = make_window(seed_copy)
    assert w.open_file(str(other))
    assert w.recent.paths()[:2] == [str(other), str(seed_copy)]
    labels = [a.text() for a in w.recent_menu.actions()]
    assert "other.gradviz.json" in labels[0] and "seed.gradviz.json" in labels[1]
    assert RecentFiles(QSettings()).paths()[0] == str(other)
    w.recent_menu.actions()[1].trigger()
    assert w.controller.path == str(seed_copy)
    assert w.recent.paths()[0] == str(seed_copy)


def test_open_sample_menu_lists_every_sample(make_window):
    """By number and title, as the Lessons menu; the status bar says which lesson opened
    (it said 'Sample 001_higher_order.json: …', a file name where the title is)."""
    w = make_window()
    titles = [a.text() for a in w.sample_menu.actions()]
    assert len(titles) == len(list(SAMPLES_DIR.glob("*.json"))) == len(lesson_entries())
    assert any("Higher order" in t for t in titles)
    higher = next(a for a in w.sample_menu.actions() if "Higher order" in a.text())
    higher.trigger()
    assert w.controller.doc.title.startswith("Higher order")
    assert w.controller.result.ok
    number = next(e.number for e in lesson_entries() if e.title == w.controller.doc.title)
    assert w.statusBar().currentMessage() == f"Lesson {number}: {w.controller.doc.title}"


def test_import_from_script_asks_first(make_window, monkeypatch, tmp_path):
    marker = tmp_path / "ran"
    script = tmp_path / "square.py"
    script.write_text(
        "import gradviz as tf\n"
        f"open({str(marker)!r}, 'w').close()\n"
        "x = tf.constant(3.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = x * x\n"
        "print(tape.gradient(y, x))\n")
    w = make_window()
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or Button.No)
    assert not w.import_script(str(script))
    assert asked and "Run it?" in asked[0] and not marker.exists()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: Button.Yes)
    assert w.import_script(str(script))
    assert marker.exists()
    doc = w.controller.doc
    assert [n.op for n in doc.nodes.values() if n.kind == OP] == ["multiply"]
    assert w.controller.result.ok
    (grad,) = w.controller.result.evaluation.gradients.values()
    assert float(grad) == 6.0


def test_code_view_shows_runnable_python(make_window, qtbot):
    w = make_window()
    w.actions_by_name["code"].trigger()
    code = w.code_view.code()
    assert "GradientTape" in code and "import gradviz as tf" in code
    w.code_view.copy()
    assert QGuiApplication.clipboard().text() == code
    w.controller.set_meta(title="Renamed for the code view")
    assert "Renamed for the code view" in w.code_view.code()


def test_theme_switch_persists(make_window):
    w = make_window()
    w.actions_by_name["theme_dark"].trigger()
    assert QSettings().value("view/theme") == "dark"
    window_colour = QApplication.instance().palette().color(QPalette.ColorRole.Window)
    assert window_colour.lightness() < 80
    w2 = make_window()
    assert w2.theme_name == "dark" and w2.actions_by_name["theme_dark"].isChecked()
    w2.set_theme("light")
    assert QSettings().value("view/theme") == "light"


def test_a_theme_applied_again_restyles_no_widget(qtbot):
    """Each new window applies the saved theme: the theme already applied changes nothing
    (restyling every widget of the application cost each new window 0.1 s); another does."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QLabel

    from gradviz.app import theme
    app, before = QApplication.instance(), theme.current()
    changes = []

    class Spy(QObject):
        def eventFilter(self, obj, event):
            if event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange):
                changes.append(event.type())
            return False
    try:
        theme.apply("dark")
        label = QLabel("x")
        qtbot.addWidget(label)
        label.show()
        spy = Spy()
        label.installEventFilter(spy)
        style = app.style()
        theme.apply("dark")
        QApplication.processEvents()
        assert changes == [] and app.style() is style
        theme.apply("light")
        QApplication.processEvents()
        assert changes and theme.current() == "light"
        assert app.palette().color(QPalette.ColorRole.Window) == theme.palette("light").color(QPalette.ColorRole.Window)
    finally:
        theme.apply(before)


def test_menus_show_shortcuts_and_undo_names_the_edit(make_window):
    w = make_window()
    rows = {(menu, cmd): keys for menu, cmd, keys in w.shortcut_rows()}
    assert rows[("File", "Save")] and rows[("File", "Open")] and rows[("View", "Fit to Window")]
    assert ("Edit", "Undo") in rows or any(c.startswith("Undo") for _, c in rows)
    w.controller.set_meta(title="x")
    assert w.actions_by_name["undo"].text().replace("&", "") == "Undo Document info"
    assert "Ctrl+Z" in w.actions_by_name["undo"].toolTip()
    for name in ("save", "open", "export", "import"):
        assert w.actions_by_name[name].toolTip() and w.actions_by_name[name].statusTip()


def test_undo_redo_texts_and_tips_name_a_merged_edit_as_it_is_now(make_window):
    """A run's previews merge into one entry renamed at each merge ('Training run (841
    steps)'): the menu, tooltip and status tip name it with its latest text, not an earlier
    one (before, they lagged one or two merges behind)."""
    w = make_window()
    undo, redo = w.actions_by_name["undo"], w.actions_by_name["redo"]

    def shown(action):
        return action.text().replace("&", ""), action.statusTip(), action.toolTip()
    for n in (1, 2, 3):
        w.controller.edit(f"Run ({n} steps)", lambda doc: None, merge_key=("run", 1))
        assert w.controller.undo_stack.count() == 1
        text = f"Undo Run ({n} steps)"
        assert shown(undo)[:2] == (text, text) and shown(undo)[2].startswith(text + " (")
    w.controller.undo_stack.undo()
    assert shown(redo)[:2] == ("Redo Run (3 steps)",) * 2
    assert not undo.isEnabled()


def test_export_picture(make_window, tmp_path):
    w = make_window()
    for ext in ("png", "svg", "pdf"):
        out = tmp_path / f"graph.{ext}"
        assert w.export_picture(str(out))
        assert out.stat().st_size > 500


def studies_computed(w, qtbot, timeout):
    """Ctrl+Shift+J's work (Compute Studies) on its worker, waited for."""
    job = w.compute_studies()
    with qtbot.waitSignal(job.done, timeout=timeout):
        pass


def test_studies_run_off_the_ui_thread(make_window, qtbot):
    w = make_window()
    w.open_sample(SAMPLES_DIR / "001_dense_jacobian.json")
    studies_computed(w, qtbot, timeout=20000)
    assert w.last_studies["jacobian"].shape == (7, 10, 5, 10)


def test_computed_studies_holding_nan_are_a_warning_at_once(make_window, qtbot):
    """Ctrl+Shift+J on lesson 14 with pow: the status bar warns of the Hessian's NaN (naming
    pow's rule) without the Hessian view being opened; an edit drops the stale warning."""
    from lesson_variants import pow_pitfall_doc
    w = make_window()
    w.controller.set_document(pow_pitfall_doc())
    assert w.problems_label.text() == "✓ no problems"
    studies_computed(w, qtbot, timeout=60000)
    assert w.problems_label.text() == "⚠ 1 study warning (Hessian)"   # no card is amber
    assert "the rule of y_sq (pow) is differentiated again" in w.problems_label.toolTip()
    assert "Hessian: holds NaN or infinity" in w.statusBar().currentMessage()
    w.controller.set_value("two", np.float32(3.0))   # the studies are of the document before
    assert w.problems_label.text() == "✓ no problems"


def test_a_failing_gradient_check_computed_by_ctrl_shift_j_is_a_warning(make_window, qtbot):
    """Every check a study makes counts when the studies are computed, as its view counts it."""
    w = make_window()
    w.open_sample(SAMPLES_DIR / "nets_3_wrong_gradient.json")
    studies_computed(w, qtbot, timeout=60000)
    check = w.last_studies["gradient_check"]
    assert not check.passed
    assert w.problems_label.text().startswith("⚠") and check.summary() in w.problems_label.toolTip()


def test_cli_without_arguments_opens_the_app(monkeypatch):
    import gradviz.app
    from gradviz import cli
    calls = []
    monkeypatch.setattr(gradviz.app, "main", lambda argv: calls.append(argv) or 0)
    assert cli.main([]) == 0
    assert cli.main([str(SEED)]) == 0
    assert calls == [[], [str(SEED)]]
    assert cli.main(["/no/such/file.json"]) == 2


def test_import_runs_in_a_child_process_and_cancel_stops_it(make_window, tmp_path, monkeypatch):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QProgressDialog
    import time
    script = tmp_path / "endless.py"
    script.write_text("import gradviz as tf\nwhile True:\n    pass\n")
    w = make_window()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: Button.Yes)
    seen = []

    def cancel():
        dialogs = w.findChildren(QProgressDialog)
        seen.append([d.labelText() for d in dialogs if d.isVisible()])
        process = w._import_process
        seen.append(process is not None and process.processId() > 0)
        for d in dialogs:
            d.cancel()
    QTimer.singleShot(1500, cancel)
    title = w.controller.doc.title
    start = time.perf_counter()
    assert not w.import_script(str(script))
    assert time.perf_counter() - start < 20
    assert seen[0] and "endless.py" in seen[0][0] and seen[1]  # a dialog over a live child
    assert w.controller.doc.title == title
    assert "cancelled" in w.statusBar().currentMessage()


def test_import_failure_is_told_in_words(make_window, tmp_path, monkeypatch):
    script = tmp_path / "broken.py"
    script.write_text("raise ValueError('no tape here')\n")
    w = make_window()
    warned = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: Button.Yes)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or Button.Ok)
    assert not w.import_script(str(script))
    assert "broken.py" in warned[0] and "no tape here" in warned[0]
    assert "Traceback" not in warned[0]


def test_missing_file_is_told_in_words(make_window, tmp_path, monkeypatch):
    w = make_window()
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or Button.Ok)
    assert not w.load_path(str(tmp_path / "gone.gradviz.json"))
    assert "gone.gradviz.json" in warned[0] and "does not exist" in warned[0]
    assert "Errno" not in warned[0]


def test_shortcut_list_is_clean(make_window):
    w = make_window()
    rows = {(menu, cmd): keys for menu, cmd, keys in w.shortcut_rows()}
    assert rows[("Edit", "Undo")] == "Ctrl+Z"
    assert rows[("Edit", "Redo")] == "Ctrl+Shift+Z, Ctrl+Y"
    for keys in rows.values():
        for key in keys.split(", "):
            assert key.split("+")[-1] not in ("Undo", "Redo", "Copy", "Paste", "Cut", "Open")
            assert not key.startswith("F1") or key in ("F1",)   # no F14 / F16 / F18 / F20
    w.show_shortcuts()
    table = w._shortcuts_dialog.findChild(QTableWidget)
    texts = [table.item(r, 2).text() for r in range(table.rowCount())]
    assert "Ctrl + wheel" in texts
    w._shortcuts_dialog.close()


def test_toolbar_undo_keeps_a_short_text(make_window, qtbot):
    w = make_window()
    w.show()
    qtbot.waitExposed(w)
    button = w.toolbar.widgetForAction(w.actions_by_name["toolbar_undo"])
    width = button.width()
    assert not button.isEnabled()
    w.controller.set_value("tf_b", np.ones((3, 3), np.float32))
    qtbot.wait(10)
    assert button.isEnabled() and button.text() == "Undo" and button.width() == width
    assert "Undo Edit tf_b values" in button.toolTip() and "Ctrl+Z" in button.toolTip()
    button.click()
    assert not w.controller.dirty


def test_first_run_shows_the_inspector_and_selection_brings_it_forward(make_window, qtbot):
    w = make_window()
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(20)
    assert not w.inspector_dock.visibleRegion().isEmpty()
    w.provenance_dock.raise_()
    qtbot.waitUntil(lambda: w.inspector_dock.visibleRegion().isEmpty())
    w.controller.set_selection(["tf_b"])
    qtbot.waitUntil(lambda: not w.inspector_dock.visibleRegion().isEmpty())


def test_a_nan_is_shown_as_a_warning_and_a_shape_error_as_an_error(make_window):
    """Amber where the graph still ran (a NaN), red where something cannot run."""
    from gradviz.app.theme import ERROR_STYLE, WARN_STYLE
    w = make_window(str(SEED), offer_recovery=False)
    c = w.controller
    value = c.doc.nodes["tf_t"].value.copy()
    value[0, 0] = np.nan
    c.set_value("tf_t", value)
    assert w.problems_label.text() == "⚠ 1 warning"  # where the NaN first appears, not after
    assert w.problems_label.styleSheet() == WARN_STYLE
    item = w.canvas.scene_item("tf_t")
    assert item.problems and all(p.warning for p in item.problems)
    assert "NaN" in item.problems[0].message
    c.set_selection(["tf_t"])
    page = w.inspector.page
    assert "NaN" in page.problems.text() and page.problems.styleSheet() == WARN_STYLE
    assert w.canvas.scene_item("tf_t").gradient is not None  # a warning stops nothing
    c.set_value("tf_b", np.ones((2, 2), np.float32))  # 5x3 @ 2x2
    assert w.problems_label.text() == "⚠ 1 problem, 1 warning"
    assert w.problems_label.styleSheet() == ERROR_STYLE


OPEN_AND_REPORT_GC = """
import gc, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import gradviz.app
app = QApplication([sys.argv[0]])
before = gc.get_threshold()[0], gc.get_freeze_count()
QTimer.singleShot(0, lambda: (print(*before, gc.get_threshold()[0], gc.get_freeze_count(), int(gc.isenabled())),
                               app.quit()))
sys.exit(gradviz.app.main([]))
"""


def test_the_app_freezes_startup_objects_out_of_garbage_collection(tmp_path):
    """`gradviz` tunes the collector once its window is up (gradviz.app.collect_less), and
    collects on the GUI thread only (automatic collection off: app/collector.py)."""
    import subprocess
    import sys
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GRADVIZ_RECOVERY_DIR=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", OPEN_AND_REPORT_GC], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    threshold_before, frozen_before, threshold, frozen, automatic = map(int, done.stdout.split()[-5:])
    assert (threshold_before, frozen_before) == (700, 0)
    assert threshold == 10_000 and frozen > 20_000 and automatic == 0


def test_a_new_recompute_time_leaves_the_status_bar_s_layout_alone(make_window):
    """The time label takes a new time without a new size: a label that asks for a new
    layout makes Qt lay out the whole window again after each edit's repaint."""
    from PySide6.QtCore import QEvent, QObject

    class Layouts(QObject):
        count = 0

        def eventFilter(self, obj, event):
            self.count += event.type() == QEvent.Type.LayoutRequest
            return False
    w = make_window(str(SEED), offer_recovery=False)
    c, status, label = w.controller, w.statusBar(), w.time_label
    QApplication.processEvents()   # the layout of a window just shown
    layouts = Layouts(status)
    status.installEventFilter(layouts)
    c.set_value("tf_t", (c.doc.nodes["tf_t"].value * 2).astype(np.float32))
    QApplication.processEvents()
    result = c.result
    for ms in (0.4, 12.5, 12345.6, 3.0):   # how long the edits took: the widths differ
        result.elapsed_ms = ms
        c.evaluated.emit(result)
        QApplication.processEvents()
        assert label.text() == f"recomputed in {ms:.1f} ms"
        assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
        assert "no problems" in w.problems_label.text()
    assert layouts.count == 0


def test_nothing_about_the_document_before_outlives_it(make_window):
    """The status bar, the title and the lesson panel speak of the document on screen:
    a message about the sample before is gone however the next document arrives (File ▸
    New, a lesson, an import, the Train dock's 'open in the player')."""
    from gradviz.graph.document import Document
    w = make_window()
    w.show()
    assert w.open_sample(SAMPLES_DIR / "003_stop_gradient_product.json", ask=False)
    said = f"Lesson 4: {w.controller.doc.title}"      # as the Lessons menu numbers it
    assert w.statusBar().currentMessage() == said
    w.controller.undo_stack.setClean()
    w.controller.set_document(Document())             # not through the File menu
    assert "Lesson 4" not in w.statusBar().currentMessage()
    assert w.windowTitle().startswith("Untitled")
    assert "stop_gradient" not in w.lesson_panel.toPlainText()
    assert w.open_sample(SAMPLES_DIR / "003_stop_gradient_product.json", ask=False)
    w.controller.undo_stack.setClean()
    assert w.new_document()
    assert w.statusBar().currentMessage().startswith("New document")


def test_a_dead_relu_is_a_warning_in_the_status_bar_as_on_its_card(make_window):
    """A relu whose units are 0 for every example is marked on its card ('⚠ dead relu: …',
    in the warning colour); the status bar said '✓ no problems' beside it (auditor H37w, a
    student's graph of zeros). It counts as a warning there, named in the tooltip. The card
    drew it red with '✕', the look of a cut, beside the status bar's '⚠' (auditor H38w)."""
    from gradviz.app.theme import WARN_STYLE
    from gradviz.render.cards import dead_mark, mark_color
    from gradviz.render.themes import THEMES
    w = make_window(str(SEED), offer_recovery=False)
    c = w.controller
    relu = c.add_node(OP, "nn.relu", (600, 100))
    c.connect(Port("y_tf"), Port(relu))
    c.set_value("tf_t", np.ones_like(c.doc.nodes["tf_t"].value))
    c.set_value("tf_b", np.ones_like(c.doc.nodes["tf_b"].value))
    assert c.result.evaluation.values[Port(relu)].all()
    assert w.problems_label.text() == "✓ no problems"
    c.set_value("tf_t", np.zeros_like(c.doc.nodes["tf_t"].value))
    value = c.result.evaluation.values[Port(relu)]
    assert value.shape[0] > 1 and not value.any()
    mark = dead_mark(c.doc.nodes[relu], value)
    assert mark.startswith("⚠ dead relu: units 0, 1")
    for theme in THEMES.values():
        assert mark_color(theme, mark) == theme.warning != theme.cut
    assert w.problems_label.text() == "⚠ 1 warning"
    assert w.problems_label.styleSheet() == WARN_STYLE
    assert f"{c.name(relu)}: {mark[2:]}" in w.problems_label.toolTip()
