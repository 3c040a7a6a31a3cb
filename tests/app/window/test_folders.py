"""Each kind of file dialog (open, save, export, import) starts in the folder that kind
last used, remembered in the settings (a temporary settings scope here: app_env)."""
import shutil

from PySide6.QtWidgets import QFileDialog

from gradviz.app import export_dialog
from gradviz.app.folders import remember_folder, start_folder

SAMPLE = "samples/004_matmul_sum.json"


def _chooser(monkeypatch, answers):
    """Replace the file dialogs: each call records (title, start) and takes the next answer."""
    asked = []

    def choose(parent, title, start, *rest, **kwargs):
        asked.append((title, str(start)))
        return answers.pop(0), ""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", choose)
    return asked


def test_each_kind_of_dialog_starts_where_that_kind_was_last_used(open_window, app_env, monkeypatch, tmp_path):
    lessons, saved, slides, scripts = (tmp_path / name for name in ("lessons", "saved", "slides", "scripts"))
    for folder in (lessons, saved, slides, scripts):
        folder.mkdir()
    shutil.copy(SAMPLE, lessons / "lesson.json")
    (scripts / "tape.py").write_text("print('never run: the test declines')\n", encoding="utf-8")
    answers = [str(lessons / "lesson.json"), str(saved / "copy.gradviz.json"), str(slides / "graph.png"),
               str(scripts / "tape.py")]
    asked = _chooser(monkeypatch, answers)
    w = open_window()
    assert w.open_file() and w.save_as() and w.export_picture()
    assert not w.import_script()                    # asked "Run this script?", declined (app_env)
    assert (slides / "graph.png").exists() and w.controller.path == str(saved / "copy.gradviz.json")
    asked.clear()
    answers += ["", "", "", ""]                     # cancelled: nothing changes
    w.open_file()
    w.new_document()
    w.save_as()
    w.export_picture()
    w.import_script()
    starts = dict(asked)
    assert starts["Open document"] == str(lessons)  # not saved/, where the document now is
    assert starts["Save document as"].startswith(str(saved / ""))
    assert starts["Export picture"].startswith(str(slides / ""))
    assert starts["Import from script"] == str(scripts)
    # The export dialogs start in the export folder too, and remember where they wrote.
    dialog = export_dialog.ExportStepDialog(w)
    assert dialog.options()["path"].startswith(str(slides / ""))
    dialog.deleteLater()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert export_dialog.export_step_dialog(w, dict(path=str(elsewhere / "step.svg"), theme="light", scale=1.0))
    assert start_folder(w, "export", None) == str(elsewhere)
    # Another window (the next session) reads the same settings.
    other = open_window()
    assert start_folder(other, "open", None) == str(lessons)
    assert start_folder(other, "import", None) == str(scripts)


def test_a_folder_that_is_gone_falls_back(open_window, tmp_path):
    w = open_window(shown=False)
    gone = tmp_path / "gone"
    gone.mkdir()
    remember_folder(w, "open", gone / "a.json")
    assert start_folder(w, "open", "fallback") == str(gone)
    assert start_folder(w, "save", "fallback") == "fallback"     # each kind on its own
    gone.rmdir()
    assert start_folder(w, "open", "fallback") == "fallback"


def test_every_export_dialog_shares_the_last_export_folder(open_window, monkeypatch, tmp_path, qtbot):
    """Walk-through: after the run's GIF went to /tmp/aud, Export View offered the home
    folder (the Train dock's dialogs neither read nor wrote the setting)."""
    from gradviz.app.folders import document_stem
    from gradviz.app.training import export as train_export
    gifs, plots, views = (tmp_path / name for name in ("gifs", "plots", "views"))
    for folder in (gifs, plots, views):
        folder.mkdir()
    answers = [str(gifs / "run.gif"), str(plots / "curves.png")]
    asked = _chooser(monkeypatch, answers)
    monkeypatch.setattr(train_export, "export_run", lambda panel, path, progress=None: 1)
    monkeypatch.setattr(train_export, "export_plots", lambda panel, path: path)
    w = open_window("samples/train_1_gd_bowl.json")
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    panel = w.train_dock.panel
    assert train_export.export_run_dialog(panel) == 1
    view = export_dialog.ExportViewDialog(w, type("View", (), {"title": "Jacobian"})())
    assert view.options()["path"].startswith(str(gifs / ""))
    view.deleteLater()
    assert train_export.export_plots_dialog(panel)
    assert asked[-1][1].startswith(str(gifs / ""))            # the GIF's folder
    assert export_dialog.ExportStepDialog(w).options()["path"].startswith(str(plots / ""))
    assert export_dialog.export_step_dialog(w, dict(path=str(views / "step.png"), theme="light",
                                                    scale=1.0))
    answers.append("")
    train_export.export_run_dialog(panel)
    assert asked[-1][1] == str(views / f"{document_stem(w.controller)}_training_run.gif")


def test_files_made_from_a_saved_document_take_its_name(open_window, monkeypatch, tmp_path, qtbot):
    """Walk-through: a graph built from scratch and saved as mlp.gradviz.json offered
    untitled.gif, untitled_step03.png, ... (the names came from the title alone)."""
    from gradviz.app.folders import document_stem
    from gradviz.app.training import export as train_export
    w = open_window(shown=False)
    w.new_document()
    assert document_stem(w.controller) == "untitled"              # unsaved: from the title
    w = open_window("samples/train_1_gd_bowl.json")
    assert w.save_as(str(tmp_path / "mlp.gradviz.json"))
    assert document_stem(w.controller) == "mlp"
    names = [export_dialog.ExportAnimationDialog(w).options()["path"],
             export_dialog.ExportStepDialog(w).options()["path"]]
    asked = _chooser(monkeypatch, ["", "", ""])
    w.export_picture()
    w.save_as()
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    panel = w.train_dock.panel
    train_export.export_run_dialog(panel)
    names += [start for _, start in asked]
    stems = [name.rsplit("/", 1)[-1] for name in names]
    assert stems[0] == "mlp.gif" and stems[1].startswith("mlp") and stems[1].endswith(".png")
    assert stems[2] == "mlp.png" and stems[3] == "mlp.gradviz.json"
    assert stems[4] == "mlp_training_run.gif"
