"""The main window: canvas in the middle, palette left, inspector right, menus and files.

Every edit goes through the DocumentController; the window only adds the file
workflow (new, open, save, recent, samples, import, export, recovery), the
menus and shortcuts, themes and settings, and the status bar.
"""
import json
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QApplication, QDialog, QDialogButtonBox, QDockWidget, QFileDialog,
                               QLabel, QMainWindow, QMessageBox, QProgressDialog, QStyle,
                               QTableWidget, QTableWidgetItem, QToolBar, QVBoxLayout, QWidget)

from ..graph import fileformat
from ..graph.document import Document
from ..graph.errors import DocumentError
from . import theme as app_theme
from .canvas import CanvasView
from .codeview import CodeView
from .files import Autosaver, RecentFiles, Recovery
from .export_dialog import (export_animation_dialog, export_step, export_step_dialog,
                            export_view_dialog, report_export)
from .inspector import InspectorWidget
from .lessons import build_lessons_menu
from .palette import PaletteWidget
from .presentation import PresentationMode
from .player import PlayerBar
from .provenance import ProvenancePanel
from .worker import run_job

# The study docks (app/views, in VIEWS order), named here so pyqtgraph loads only when one opens.
STUDY_TITLES = ("Jacobian", "Batch Jacobian", "Hessian", "Forward vs reverse")

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "samples"
SEED_SAMPLE = "004_matmul_sum.json"
FILE_FILTER = "gradviz documents (*.gradviz.json *.json);;All files (*)"
PICTURE_FILTER = "PNG picture (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"
FIRST_SIZE = QSize(1280, 800)
PALETTE_WIDTH, INSPECTOR_WIDTH = 220, 320


def samples():
    """[(title, path)] of the bundled sample documents, in file-name order."""
    out = []
    for path in sorted(SAMPLES_DIR.glob("*.json")):
        try:
            title = json.loads(path.read_text(encoding="utf-8")).get("title") or path.stem
        except (OSError, ValueError):
            continue
        out.append((title, path))
    return out


class MainWindow(QMainWindow):
    """One document per window."""

    themeChanged = Signal(str)

    def __init__(self, controller, settings=None, recovery=None, parent=None):
        super().__init__(parent)
        self.controller = controller
        if controller.parent() is None:
            controller.setParent(self)  # one document per window: they go together
        self.settings = settings or QSettings()
        self.recent = RecentFiles(self.settings)
        self.recovery = recovery or Recovery(self.settings)
        self.autosaver = Autosaver(controller, self.recovery, parent=self)
        self.theme_name = str(self.settings.value("view/theme", app_theme.current()))
        if self.theme_name not in app_theme.THEMES:
            self.theme_name = "light"
        self._job = None

        self.setObjectName("MainWindow")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)
        self.canvas = CanvasView(controller, theme=self.theme_name)
        self.canvas.setToolTip("")
        self.setCentralWidget(self.canvas)

        self.palette = PaletteWidget(controller, self.canvas)
        self.palette_dock = self._dock("Palette", "paletteDock", self.palette,
                                       Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector = InspectorWidget(controller)
        self.inspector_dock = self._dock("Inspector", "inspectorDock", self.inspector,
                                         Qt.DockWidgetArea.RightDockWidgetArea)
        self.code_view = CodeView(controller)
        self.code_dock = self._dock("Code", "codeDock", self.code_view,
                                    Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.code_dock)
        self.code_dock.hide()
        self.code_dock.toggleViewAction().toggled.connect(self._code_toggled)
        self.player_bar = None  # issue 5: add_player_bar()
        self.player = PlayerBar(controller, self.canvas)
        self.canvas.spaceTapped.connect(self.player.toggle_play)
        self.provenance = ProvenancePanel(controller, self.player, self.canvas)
        self.provenance_dock = self._dock("Provenance", "provenanceDock", self.provenance,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.provenance_dock)  # raised while playing

        self._build_study_docks()

        self.presentation = PresentationMode(self)

        self._build_actions()
        self._build_menus()
        self._build_player_menu()
        self._build_toolbar()
        self._build_status_bar()

        controller.pathChanged.connect(self._update_title)
        controller.dirtyChanged.connect(self._update_title)
        controller.changed.connect(self._update_title)
        controller.documentReplaced.connect(self._update_title)
        controller.message.connect(self.show_message)
        controller.evaluated.connect(self._evaluated)
        controller.selectionChanged.connect(self._update_edit_actions)

        self._restore_layout()
        self.set_theme(self.theme_name, persist=False)
        self._update_title()
        self._update_recent_menu()
        self._update_edit_actions()
        self._evaluated(controller.result)

    # -- construction ------------------------------------------------------------------
    def _dock(self, title, name, widget, area):
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text, slot=None, shortcut=None, tip="", checkable=False, icon=None):
        action = QAction(text, self)
        if shortcut is not None:
            keys = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(k) for k in keys])
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        action.setCheckable(checkable)
        label = text.replace("&", "").rstrip(".…")
        seq = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{label} ({seq})" if seq else label)
        action.setStatusTip(tip or label)
        if slot is not None:
            action.triggered.connect(lambda *_: slot())
        self.addAction(action)
        return action

    def _build_actions(self):
        c, k, sp = self.canvas, QKeySequence.StandardKey, QStyle.StandardPixmap
        a = self.actions_by_name = {}
        a["new"] = self._action("&New", self.new_document, k.New, "Start an empty document",
                                icon=sp.SP_FileIcon)
        a["open"] = self._action("&Open…", self.open_file, k.Open, "Open a gradviz document",
                                 icon=sp.SP_DialogOpenButton)
        a["save"] = self._action("&Save", self.save, k.Save, "Save the document",
                                 icon=sp.SP_DialogSaveButton)
        a["save_as"] = self._action("Save &As…", self.save_as, k.SaveAs,
                                    "Save the document under a new name")
        a["import"] = self._action("&Import from Script…", self.import_script, "Ctrl+I",
                                   "Run a Python script that uses a GradientTape and turn its "
                                   "tape into a graph")
        a["export"] = self._action("&Export Picture…", self.export_picture, "Ctrl+E",
                                   "Save the graph as a PNG, SVG or PDF picture")
        a["export_step"] = self._action("Export S&tep…", lambda: export_step_dialog(self),
                                        "Ctrl+Shift+E", "Save the step on screen as a PNG, SVG "
                                        "or PDF picture for a slide")
        a["export_view"] = self._action("Export &View…", lambda: export_view_dialog(self), None,
                                        "Save the study view on screen (Jacobian, Hessian …) as "
                                        "a PNG, SVG or PDF picture")
        a["export_animation"] = self._action("Export A&nimation…",
                                             lambda: export_animation_dialog(self), None,
                                             "Save the whole backward pass as an animated GIF, "
                                             "an APNG or numbered PNG pictures")
        a["present"] = self._action("&Presentation Mode", lambda: self.presentation.toggle(), "F5",
                                    "Full screen, large type, high contrast; Space / arrows "
                                    "step, Esc leaves", checkable=True)
        a["quit"] = self._action("&Quit", self.close, k.Quit, "Close gradviz")

        undo_stack = self.controller.undo_stack
        a["undo"] = undo_stack.createUndoAction(self, "&Undo")
        a["undo"].setShortcuts(QKeySequence.keyBindings(k.Undo))
        a["undo"].setIcon(self.style().standardIcon(sp.SP_ArrowBack))
        a["redo"] = undo_stack.createRedoAction(self, "&Redo")
        a["redo"].setShortcuts(QKeySequence.keyBindings(k.Redo) + [QKeySequence("Ctrl+Y")])
        a["redo"].setIcon(self.style().standardIcon(sp.SP_ArrowForward))
        for name in ("undo", "redo"):
            self.addAction(a[name])
        undo_stack.indexChanged.connect(self._update_undo_tips)
        undo_stack.cleanChanged.connect(self._update_undo_tips)
        self._update_undo_tips()
        a["cut"] = self._action("Cu&t", c.cut, k.Cut, "Copy the selected nodes and delete them")
        a["copy"] = self._action("&Copy", c.copy, k.Copy, "Copy the selected nodes")
        a["paste"] = self._action("&Paste", c.paste, k.Paste, "Paste nodes")
        a["duplicate"] = self._action("D&uplicate", c.duplicate, "Ctrl+D",
                                      "Duplicate the selected nodes")
        a["delete"] = self._action("&Delete", c.delete_selected, k.Delete,
                                   "Delete the selected nodes or connections")
        a["select_all"] = self._action("Select &All", c.select_all, k.SelectAll,
                                       "Select every node")
        a["quick_add"] = self._action("&Add Node…", c.quick_add, "Tab",
                                      "Type the name of an op to add it at the centre")

        a["zoom_in"] = self._action("Zoom &In", c.zoom_in, [k.ZoomIn, "Ctrl+="])
        a["zoom_out"] = self._action("Zoom &Out", c.zoom_out, k.ZoomOut)
        a["reset_zoom"] = self._action("&Actual Size", c.reset_zoom, "Ctrl+0",
                                       "Zoom to 100 %")
        a["fit"] = self._action("&Fit to Window", c.fit, "F", "Show the whole graph")
        a["layout"] = self._action("Auto &Layout", c.auto_layout, "Ctrl+L",
                                   "Arrange the nodes left to right (undoable)")
        a["grid"] = self._action("Show &Grid", None, "Ctrl+'", "Show the dot grid behind the graph",
                                 checkable=True)
        a["grid"].setChecked(str(self.settings.value("view/grid", "true")).lower() == "true")
        a["grid"].toggled.connect(self.set_grid_visible)
        a["code"] = self.code_dock.toggleViewAction()
        a["code"].setText("&Code")
        a["code"].setShortcut(QKeySequence("Ctrl+Shift+C"))
        a["code"].setStatusTip("The document as runnable Python (import gradviz as tf)")
        a["code"].setToolTip("Show the document as Python code (Ctrl+Shift+C)")
        self.theme_group = QActionGroup(self)
        for name in app_theme.THEMES:
            act = self._action(f"{name.title()} Theme", lambda n=name: self.set_theme(n), None,
                               f"Use the {name} colours", checkable=True)
            self.theme_group.addAction(act)
            a[f"theme_{name}"] = act
        a["studies"] = self._action("Compute &Studies…", self.compute_studies, "Ctrl+Shift+J",
                                    "Compute the document's Jacobian / Hessian studies in the "
                                    "background")
        a["about"] = self._action("&About gradviz", self.about)
        a["shortcuts"] = self._action("&Keyboard Shortcuts", self.show_shortcuts,
                                      k.HelpContents, "Every shortcut of the menus")

    def _update_undo_tips(self, *_):
        """Undo/Redo tooltips name the edit and the shortcut: 'Undo Move (Ctrl+Z)'."""
        for name in ("undo", "redo"):
            action = self.actions_by_name[name]
            seq = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            text = action.text().replace("&", "")
            action.setToolTip(f"{text} ({seq})" if seq else text)
            action.setStatusTip(text)

    def _build_menus(self):
        a, bar = self.actions_by_name, self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([a["new"], a["open"]])
        self.sample_menu = file_menu.addMenu("Open &Sample")
        self.sample_menu.setToolTipsVisible(True)
        for title, path in samples():
            act = self.sample_menu.addAction(f"{path.stem[:3]}  {title}")
            act.setStatusTip(f"Open the sample {path.name} as a new, unsaved document")
            act.setToolTip(path.name)
            act.triggered.connect(lambda *_, p=path: self.open_sample(p))
        self.recent_menu = file_menu.addMenu("Open &Recent")
        file_menu.addSeparator()
        file_menu.addActions([a["save"], a["save_as"]])
        file_menu.addSeparator()
        file_menu.addActions([a["import"], a["export"], a["export_step"], a["export_view"],
                              a["export_animation"]])
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])

        edit = bar.addMenu("&Edit")
        edit.addActions([a["undo"], a["redo"]])
        edit.addSeparator()
        edit.addActions([a["cut"], a["copy"], a["paste"], a["duplicate"], a["delete"]])
        edit.addSeparator()
        edit.addActions([a["select_all"], a["quick_add"]])

        view = bar.addMenu("&View")
        view.addActions([a["zoom_in"], a["zoom_out"], a["reset_zoom"], a["fit"]])
        view.addSeparator()
        view.addActions([a["layout"], a["grid"]])
        view.addSeparator()
        view.addActions([a["code"], self.palette_dock.toggleViewAction(),
                         self.inspector_dock.toggleViewAction()])
        self.palette_dock.toggleViewAction().setShortcut(QKeySequence("Ctrl+Shift+P"))
        self.inspector_dock.toggleViewAction().setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.view_menu = view
        view.addSeparator()
        view.addActions([a[f"theme_{n}"] for n in app_theme.THEMES])
        view.addSeparator()
        view.addAction(a["present"])

        tools = bar.addMenu("&Tools")
        tools.addAction(a["studies"])
        self.tools_menu = tools

        self.lessons_menu = bar.addMenu("&Lessons")
        build_lessons_menu(self, self.lessons_menu)

        help_menu = bar.addMenu("&Help")
        help_menu.addActions([a["shortcuts"], a["about"]])

    def _build_toolbar(self):
        a = self.actions_by_name
        bar = QToolBar("Main toolbar", self)
        bar.setObjectName("mainToolbar")
        bar.setMovable(False)
        bar.setIconSize(QSize(18, 18))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for name in ("new", "open", "save"):
            bar.addAction(a[name])
        bar.addSeparator()
        bar.addActions([a["undo"], a["redo"]])
        bar.addSeparator()
        for name in ("fit", "layout", "code"):
            bar.addAction(a[name])
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def _build_player_menu(self):
        """View ▸ Backprop: the player's actions (their shortcuts live on these actions)."""
        self.add_player_bar(self.player)
        a = self.player.actions_by_name
        menu = self.view_menu.addMenu("&Backprop")
        self.backprop_menu = menu
        menu.addActions([a["play"], a["step"], a["back"], a["first"], a["last"]])
        menu.addSeparator()
        menu.addAction(a["edit"])
        menu.addAction(self.provenance_dock.toggleViewAction())
        studies = self.view_menu.addMenu("&Studies")
        for i, title in enumerate(STUDY_TITLES, start=1):
            action = self.study_docks[title].toggleViewAction()
            action.setShortcut(QKeySequence(f"Ctrl+Alt+{i}"))
            action.setToolTip(f"Show the {title} view")
            studies.addAction(action)
        for name in ("play", "step", "back", "first", "last", "edit"):
            self.actions_by_name[f"player_{name}"] = a[name]
        self._player_was = -1
        self.player.stepChanged.connect(self._player_step)

    def _build_study_docks(self):
        """Jacobian, batch Jacobian, Hessian and chain-cost docks, tabbed along the bottom.

        Hidden on first run; each view (and pyqtgraph) is created the first time its dock
        is shown, so start-up does not pay for them."""
        self.study_docks = {}
        previous = None
        for title in STUDY_TITLES:
            dock = self._dock(title, f"study{title.title().replace(' ', '')}Dock",
                              QWidget(), Qt.DockWidgetArea.BottomDockWidgetArea)
            dock.visibilityChanged.connect(
                lambda visible, t=title: visible and self._create_study_view(t))
            if previous is not None:
                self.tabifyDockWidget(previous, dock)
            dock.hide()
            previous = dock
            self.study_docks[title] = dock

    def _create_study_view(self, title):
        dock = self.study_docks[title]
        if getattr(dock, "view", None) is None:
            from .views import VIEWS
            dock.view = dict(VIEWS)[title](self.controller)
            dock.setWidget(dock.view)

    def _player_step(self, index):
        """Entering the story brings the provenance dock forward; leaving it, the inspector."""
        if (index >= 0) != (self._player_was >= 0):
            dock = self.provenance_dock if index >= 0 else self.inspector_dock
            if dock.isVisible():
                dock.raise_()
        self._player_was = index

    def add_player_bar(self, widget):
        """Issue 5: the story player goes in a toolbar along the bottom edge."""
        bar = QToolBar("Player", self)
        bar.setObjectName("playerBar")
        bar.setMovable(False)
        bar.addWidget(widget)
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, bar)
        self.player_bar = bar
        return bar

    def _build_status_bar(self):
        status = self.statusBar()
        self.problems_label = QLabel()
        self.problems_label.setToolTip("Problems found by the last recomputation")
        self.time_label = QLabel()
        self.time_label.setToolTip("Time of the last forward + backward recomputation")
        status.addPermanentWidget(self.problems_label)
        status.addPermanentWidget(self.time_label)

    def _restore_layout(self):
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(FIRST_SIZE)
            screen = QGuiApplication.primaryScreen()
            if screen is not None:
                area = screen.availableGeometry()
                self.resize(min(FIRST_SIZE.width(), area.width()),
                            min(FIRST_SIZE.height(), area.height()))
                self.move(area.center() - self.rect().center())
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
        else:
            self.resizeDocks([self.palette_dock, self.inspector_dock],
                             [PALETTE_WIDTH, INSPECTOR_WIDTH], Qt.Orientation.Horizontal)
        self.canvas.set_grid_visible(self.actions_by_name["grid"].isChecked())

    def _save_layout(self):
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())

    # -- status ------------------------------------------------------------------------
    def show_message(self, text, timeout=6000):
        self.statusBar().showMessage(text, timeout)

    def _evaluated(self, result):
        n = len(result.problems)
        if n:
            first = result.problems[0]
            self.problems_label.setText(f"⚠ {n} problem{'s' * (n != 1)}")
            self.problems_label.setToolTip("\n".join(
                (f"{p.node}: " if p.node else "") + p.message for p in result.problems[:12]))
        else:
            self.problems_label.setText("✓ no problems" if self.controller.doc.nodes else "")
            self.problems_label.setToolTip("The graph runs forward and backward")
            first = None
        self.problems_label.setStyleSheet("color: #d9534f;" if first else "")
        self.time_label.setText(f"recomputed in {result.elapsed_ms:.1f} ms")

    def _update_title(self, *_):
        doc, path = self.controller.doc, self.controller.path
        where = os.path.basename(path) if path else "unsaved"
        self.setWindowTitle(f"{doc.title or 'Untitled'} — {where}[*]")
        self.setWindowModified(self.controller.dirty)
        self.actions_by_name["save"].setEnabled(True)

    def _update_edit_actions(self, *_):
        has = bool(self.controller.selection)
        for name in ("cut", "copy", "duplicate"):
            self.actions_by_name[name].setEnabled(has)

    # -- files -------------------------------------------------------------------------
    def maybe_save(self):
        """Ask about unsaved changes; True when it is fine to go on (saved or discarded)."""
        if not self.controller.dirty:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes",
            f"“{self.controller.doc.title}” has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_document(self):
        if not self.maybe_save():
            return False
        self.controller.set_document(Document())
        self.show_message("New document: drag ops from the palette, or press Tab to add one")
        return True

    def _start_dir(self):
        path = self.controller.path or (self.recent.paths() or [None])[0]
        return os.path.dirname(path) if path else str(Path.home())

    def open_file(self, path=None):
        if not self.maybe_save():
            return False
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Open document", self._start_dir(),
                                                  FILE_FILTER)
            if not path:
                return False
        return self.load_path(path)

    def load_path(self, path, remember=True):
        """Open `path` without asking about the current document (the caller did)."""
        try:
            self.controller.open(path)
        except (DocumentError, OSError) as e:
            QMessageBox.warning(self, "Cannot open", f"{path}\n\n{e}")
            if remember and not os.path.exists(path):
                self.recent.remove(path)
                self._update_recent_menu()
            return False
        if remember:
            self.recent.add(path)
            self._update_recent_menu()
        self.show_message(f"Opened {path}")
        return True

    def open_sample(self, path, ask=True):
        """A sample opens as a new unsaved document, so Save never overwrites the sample."""
        if ask and not self.maybe_save():
            return False
        try:
            doc = fileformat.load(str(path), strict=False)
        except (DocumentError, OSError) as e:
            QMessageBox.warning(self, "Cannot open the sample", f"{path}\n\n{e}")
            return False
        self.controller.set_document(doc)
        self.show_message(f"Sample {Path(path).name}: {doc.title}")
        return True

    def save(self):
        if not self.controller.path:
            return self.save_as()
        return self._write(self.controller.path)

    def save_as(self, path=None):
        if not path:
            start = self.controller.path or os.path.join(
                self._start_dir(), _file_stem(self.controller.doc.title) + ".gradviz.json")
            path, _ = QFileDialog.getSaveFileName(self, "Save document as", start, FILE_FILTER)
            if not path:
                return False
            if not path.endswith(".json"):
                path += ".gradviz.json"
        return self._write(path)

    def _write(self, path):
        try:
            self.controller.save(path)  # fileformat.save writes a temp file, then renames
        except OSError as e:
            QMessageBox.warning(self, "Cannot save", f"{path}\n\n{e.strerror or e}")
            return False
        self.recent.add(path)
        self._update_recent_menu()
        self.recovery.discard()
        return True

    def _update_recent_menu(self):
        menu = self.recent_menu
        menu.clear()
        paths = self.recent.paths()
        for i, path in enumerate(paths):
            act = menu.addAction(f"&{i + 1}  {os.path.basename(path)}" if i < 9
                                 else os.path.basename(path))
            act.setStatusTip(path)
            act.setToolTip(path)
            act.setEnabled(os.path.exists(path))
            act.triggered.connect(lambda *_, p=path: self.open_file(p))
        if paths:
            menu.addSeparator()
            menu.addAction("Clear List", lambda: (self.recent.clear(), self._update_recent_menu()))
        else:
            menu.addAction("No recent files").setEnabled(False)

    def import_script(self, path=None, ask=True):
        """Run a Python script the user picks and capture its GradientTape as a document."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Import from script", self._start_dir(),
                                                  "Python scripts (*.py);;All files (*)")
            if not path:
                return False
        if ask:
            answer = QMessageBox.question(
                self, "Run this script?",
                f"Importing runs {os.path.basename(path)} as Python code, with your "
                "permissions, and captures the tape of its last tape.gradient(...) call.\n\n"
                "Only run scripts you trust. Run it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                return False
        if not self.maybe_save():
            return False
        from ..graph.capture import trace_script
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            doc = trace_script(path)
        except DocumentError as e:
            QApplication.restoreOverrideCursor()
            QMessageBox.warning(self, "Cannot import", str(e))
            return False
        QApplication.restoreOverrideCursor()
        self.controller.set_document(doc)
        self.show_message(f"Imported {os.path.basename(path)}: {len(doc.nodes)} nodes")
        return True

    def export_picture(self, path=None):
        if not path:
            start = os.path.join(self._start_dir(), _file_stem(self.controller.doc.title) + ".png")
            path, chosen = QFileDialog.getSaveFileName(self, "Export picture", start,
                                                       PICTURE_FILTER)
            if not path:
                return False
            if Path(path).suffix.lower() not in (".png", ".svg", ".pdf"):
                path += "." + chosen.split("(*.")[-1].rstrip(")")
        notes = []
        try:
            export_step(self, path, theme=self.theme_name, step=None, warn=notes.append)
        except (OSError, ValueError) as e:
            QMessageBox.warning(self, "Cannot export", f"{path}\n\n{e}")
            return False
        report_export(self, path, notes)
        return True

    # -- recovery ----------------------------------------------------------------------
    def offer_recovery(self):
        """At start-up: restore the autosaved changes of a session that did not exit cleanly."""
        if not self.recovery.pending():
            self.recovery.begin_session()
            return False
        info = self.recovery.info()
        what = f"“{info.get('title') or 'Untitled'}”"
        if info.get("path"):
            what += f" ({os.path.basename(info['path'])})"
        answer = QMessageBox.question(
            self, "Recover unsaved changes?",
            f"gradviz did not close normally last time. Restore the unsaved changes to {what}?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        restored = False
        if answer == QMessageBox.StandardButton.Yes:
            try:
                self.recovery.restore_into(self.controller)
                restored = True
                self.show_message("Restored the unsaved changes; save them to keep them")
            except (DocumentError, OSError) as e:
                QMessageBox.warning(self, "Cannot recover", str(e))
        self.recovery.discard()
        self.recovery.begin_session()
        return restored

    # -- view --------------------------------------------------------------------------
    def set_theme(self, name, persist=True):
        name = app_theme.apply(name)
        self.theme_name = name
        self.actions_by_name[f"theme_{name}"].setChecked(True)
        if hasattr(self.canvas, "set_theme"):
            self.canvas.set_theme(name)
        self.code_view.set_theme(name)
        for widget in (self.palette, self.inspector):
            if hasattr(widget, "set_theme"):
                widget.set_theme(name)
        if persist:
            self.settings.setValue("view/theme", name)
        self.themeChanged.emit(name)

    def _code_toggled(self, shown):
        if shown:  # tabbed with the inspector: bring its tab to the front
            QTimer.singleShot(0, self.code_dock.raise_)

    def set_grid_visible(self, visible):
        self.canvas.set_grid_visible(visible)
        self.settings.setValue("view/grid", "true" if visible else "false")

    # -- heavy work --------------------------------------------------------------------
    def run_job(self, title, fn, on_finished, *args):
        """Run `fn(job, *args)` off the UI thread behind a modal progress dialog with Cancel."""
        dialog = QProgressDialog(title, "Cancel", 0, 1000, self)
        dialog.setWindowTitle("gradviz")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setValue(0)
        job = run_job(fn, *args)
        self._job = job

        def progress(fraction, text):
            dialog.setValue(int(fraction * 1000))
            if text:
                dialog.setLabelText(f"{title}\n{text}")

        def done():
            dialog.close()
            dialog.deleteLater()
            self._job = None
        job.progress.connect(progress)
        job.finished.connect(on_finished)
        job.failed.connect(lambda reason: QMessageBox.warning(self, title, reason))
        job.cancelled.connect(lambda: self.show_message(f"{title}: cancelled"))
        job.done.connect(done)
        dialog.canceled.connect(job.cancel)
        return job

    def compute_studies(self):
        doc = self.controller.doc
        if not doc.studies:
            self.show_message("This document asks for no studies (set them in the inspector)")
            return None
        import copy
        return self.run_job("Computing studies", _compute_studies, self._studies_done,
                            copy.deepcopy(doc))

    def _studies_done(self, results):
        lines = []
        for name, value in results.items():
            if isinstance(value, str):
                lines.append(f"{name}: {value}")
            elif isinstance(value, list):
                lines.append(f"{name}: " + ", ".join(
                    "None" if v is None else f"shape {tuple(v.shape)}" for v in value))
            else:
                lines.append(f"{name}: " + ("None (not connected)" if value is None
                                            else f"shape {tuple(value.shape)}"))
        self.last_studies = results
        self.show_message("Studies: " + "; ".join(lines), 15000)

    # -- help --------------------------------------------------------------------------
    def about(self):
        QMessageBox.about(
            self, "About gradviz",
            "<h3>gradviz</h3><p>Backpropagation made visible: build a graph, watch the "
            "cotangent travel back through the tape, op by op.</p>"
            "<p>The engine speaks TensorFlow's API: <code>import gradviz as tf</code>.</p>")

    def shortcut_rows(self):
        """(menu, action, shortcut) for every menu action that has a shortcut."""
        rows = []
        for menu_action in self.menuBar().actions():
            menu = menu_action.menu()
            stack = [(menu_action.text().replace("&", ""), menu)]
            while stack:
                label, m = stack.pop(0)
                for act in m.actions():
                    if act.menu():
                        stack.append((label, act.menu()))
                        continue
                    seqs = [s.toString(QKeySequence.SequenceFormat.NativeText)
                            for s in act.shortcuts() if not s.isEmpty()]
                    if seqs and act.text():
                        rows.append((label, act.text().replace("&", "").rstrip("…"),
                                     ", ".join(seqs)))
        return rows

    def show_shortcuts(self):
        rows = self.shortcut_rows() + [
            ("Canvas", "Pan", "Space + drag, or middle button"),
            ("Canvas", "Zoom", "Ctrl + wheel"),
            ("Canvas", "Connect", "drag from an output port to an input port")]
        dialog = QDialog(self)
        dialog.setWindowTitle("Keyboard shortcuts")
        table = QTableWidget(len(rows), 3, dialog)
        table.setHorizontalHeaderLabels(["Menu", "Command", "Shortcut"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for col, text in enumerate(row):
                table.setItem(r, col, QTableWidgetItem(text))
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=dialog)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(table)
        layout.addWidget(buttons)
        dialog.resize(520, 560)
        dialog.show()
        self._shortcuts_dialog = dialog
        return dialog

    def showEvent(self, event):
        super().showEvent(event)
        if not getattr(self, "_shown_once", False):
            self._shown_once = True
            QTimer.singleShot(0, self.canvas.fit)  # once the docks have their final widths

    # -- closing -----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent):
        if self._job is not None:
            self._job.cancel()
        if not self.maybe_save():
            event.ignore()
            return
        self._save_layout()
        self.recovery.end_session()
        self.settings.sync()
        event.accept()


def _compute_studies(job, doc):
    """Each study of `doc` in turn (off the UI thread); a refusal becomes its message."""
    from ..graph import batch_jacobian, hessian, higher_order, jacobian
    names = list(doc.studies)
    out = {}
    for i, name in enumerate(names):
        job.report(i / len(names), f"{name.replace('_', ' ')} ({i + 1} of {len(names)})")
        fn = {"jacobian": jacobian, "batch_jacobian": batch_jacobian, "hessian": hessian,
              "higher_order": higher_order}.get(name)
        if fn is None:
            continue
        try:
            out[name] = fn(doc)
        except DocumentError as e:
            out[name] = str(e)
    job.report(1.0, "done")
    return out


def _file_stem(title):
    stem = "".join(ch if ch.isalnum() or ch in "-_ " else "" for ch in title or "untitled")
    return "_".join(stem.split())[:60].lower() or "untitled"


