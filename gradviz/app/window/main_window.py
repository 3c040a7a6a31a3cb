"""The main window: canvas in the middle, palette left, inspector right.

Every edit goes through the DocumentController. The window arranges the docks, the
status bar, themes and settings, and heavy work behind a progress dialog; its menus and
shortcuts are in window_menus, its file workflow (new, open, save, recent, samples,
import, export, recovery) in window_files.
"""
import copy
import os

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (QApplication, QDockWidget, QFrame, QLabel, QMainWindow, QMessageBox,
                               QProgressDialog, QScrollArea, QToolBar, QWidget)

from ...engine.errors import counted
from ...graph.document import Port
from ...graph.errors import Problem
from ...story import dead_units
from . import focus_keys
from .inactive_keys import InactiveKeys
from .. import theme as app_theme
from .. import wheel_guard
from ..studies import plot_colours
from ..dock_room import (CANVAS_MIN_HEIGHT, INSPECTOR_SHARE, STUDY_SHARE, StudyPlacement, drop_retired_tab_bars,
                         in_front, restore_docks, tabs_above)
from ..dock_widget import Dock, title_bar_follows_area
from ..canvas.view import CanvasView
from .codeview import CodeView
from .recovery import Autosaver, RecentFiles, Recovery
from ..inspector.panel import InspectorWidget
from ..canvas.palette import PaletteWidget
from ..player.bar import PlayerBar
from ..player.lesson_panel import LessonPanel
from ..player.presentation import PresentationMode
from ..player.provenance import ProvenancePanel
from ..theme import ERROR_STYLE, WARN_STYLE
from .files import SAMPLES_DIR, SEED_SAMPLE, WindowFiles
from .menus import WindowMenus
from ..training import add_train_dock
from ..evaluation import worded
from ..worker import Cancelled, run_job
from ...graph import batch_jacobian, hessian, higher_order, jacobian
from ...graph.nan_origin import study_problems
from ...graph.gradient_check import GradientCheck, gradient_check

__all__ = ["CANVAS_MIN_HEIGHT", "MainWindow", "STUDY_SHARE", "SAMPLES_DIR", "SEED_SAMPLE", "STUDY_TITLES"]

# The study docks (app/studies, in VIEWS order), named here so pyqtgraph loads only when one opens.
STUDY_TITLES = ("Jacobian", "Batch Jacobian", "Hessian", "Forward vs reverse", "Gradient norms",
                "Gradient check")
# Their tabs' shorter titles, where a row has no room for the titles (dock_widget.fit_tab_titles):
# a word, then the sign their views write (J, Jᵢⱼ of example b, H, ‖g‖ the gradient's norm;
# ⇄ the two modes compared, ≈ central differences beside the backward pass).
STUDY_TABS = dict(zip(STUDY_TITLES, (("Jacobian", "J"), ("Batch", "J[b]"), ("Hessian", "H"),
                                     ("Fwd/rev", "⇄"), ("Norms", "‖g‖"), ("Check", "≈"))))
# The document's studies (graph.fileformat) with a dock that shows them.
STUDY_VIEWS = {"jacobian": "Jacobian", "batch_jacobian": "Batch Jacobian", "hessian": "Hessian",
               "gradient_check": "Gradient check"}
FIRST_SIZE = QSize(1280, 800)
FIRST_SHARE = 0.85        # a first window on a larger screen takes this share of it
PALETTE_WIDTH, INSPECTOR_WIDTH = 230, 340
WIDE_CANVAS = 1000        # below this, with a dock on each side, the docks share the right side


def _time_text(ms):
    """The status bar's time label (the widest time sizes it: _fit_time_label)."""
    return f"recomputed in {ms:.1f} ms"


class MainWindow(WindowFiles, WindowMenus, StudyPlacement, QMainWindow):
    """One document per window."""

    themeChanged = Signal(str)

    def __init__(self, controller, settings=None, recovery=None, parent=None):
        super().__init__(parent)
        self.controller = controller
        self._studied = (None, [])   # (the evaluation studied, its studies' warnings)
        if controller.parent() is None:
            controller.setParent(self)  # one document per window: they go together
        self.settings = settings or QSettings()
        self.recent = RecentFiles(self.settings)
        self.recovery = recovery or Recovery(self.settings)
        self.autosaver = Autosaver(controller, self.recovery, parent=self)
        self.autosaver.view = lambda: self.canvas.seen_at()
        self.theme_name = str(self.settings.value("view/theme", app_theme.current()))
        if self.theme_name not in app_theme.THEMES:
            self.theme_name = "light"
        self._job = None
        self._last_focus = None
        self.other_windows = []         # windows opened from this one (recovered documents)
        focus_keys.install()
        self.inactive_keys = InactiveKeys(self)

        self.setObjectName("MainWindow")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)
        tabs_above(self)
        self.canvas = CanvasView(controller, theme=self.theme_name)
        self.canvas.setToolTip("")
        self.canvas.setMinimumHeight(CANVAS_MIN_HEIGHT)
        self.setCentralWidget(self.canvas)

        self.palette = PaletteWidget(controller, self.canvas)
        self.palette_dock = self._dock("Palette", "paletteDock", self.palette,
                                       Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector = InspectorWidget(controller, after_repaint=self.canvas.after_repaint,
                                         keep_in_view=self._keep_in_view)
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
        self.canvas.story_keys = lambda: bool(self.player.shown_steps)
        self.provenance = ProvenancePanel(controller, self.player, self.canvas)
        self.provenance_dock = self._dock("Provenance", "provenanceDock", self.provenance,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.provenance_dock)  # raised while playing
        self.lesson_panel = LessonPanel(controller, self.player)
        self.lesson_dock = self._dock("Lesson", "lessonDock", self.lesson_panel,
                                      Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.palette_dock, self.lesson_dock)  # raised when a lesson opens

        self._build_study_docks()
        self.tabifiedDockWidgetActivated.connect(self._tab_in_front)

        self.presentation = PresentationMode(self)

        self._build_actions()
        self._build_menus()
        self._build_player_menu()
        self.train_dock = add_train_dock(self)
        self._build_toolbar()
        self._build_status_bar()

        controller.pathChanged.connect(self._update_title)
        controller.dirtyChanged.connect(self._update_title)
        controller.changed.connect(self._update_title)
        controller.documentReplaced.connect(self._update_title)
        # A message about the document before (its file, its studies) goes with it.
        controller.documentReplaced.connect(self.statusBar().clearMessage)
        # A new document (a lesson, a file, New) starts on the canvas: its keys step the
        # story at once, whatever widget of the document before had focus.
        controller.documentReplaced.connect(lambda: self.canvas.setFocus(Qt.FocusReason.OtherFocusReason))
        controller.message.connect(self.show_message)
        controller.evaluated.connect(self._evaluated)
        controller.selectionChanged.connect(self.update_edit_actions)
        controller.selectionChanged.connect(self._selection_changed)
        self.canvas.scene().selectionChanged.connect(self.update_edit_actions)
        QApplication.instance().focusChanged.connect(self._focus_changed)

        self._restore_layout()
        self.set_theme(self.theme_name, persist=False)
        self._update_title()
        self._update_recent_menu()
        self.update_edit_actions()
        self._evaluated(controller.result)
        self.canvas.setFocus()
        self.layout().activate()        # the tab bars the docks' moves left let go of,
        drop_retired_tab_bars(self)     # and dropped

    # -- construction ------------------------------------------------------------------
    def _dock(self, title, name, widget, area, shorter=()):
        dock = Dock(title, self, *shorter)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        title_bar_follows_area(self, dock)
        wheel_guard.guard(dock)       # the wheel scrolls a dock; a value turns once clicked
        return dock

    def _build_study_docks(self):
        """Jacobian, batch Jacobian, Hessian and chain-cost docks, tabbed along the bottom.

        Hidden on first run; each view (and pyqtgraph) is created the first time its dock
        is shown, so start-up does not pay for them."""
        self.study_docks = {}
        previous = None
        for title in STUDY_TITLES:
            dock = self._dock(title, f"study{title.title().replace(' ', '')}Dock",
                              QWidget(), Qt.DockWidgetArea.BottomDockWidgetArea, STUDY_TABS[title])
            dock.visibilityChanged.connect(
                lambda visible, t=title: visible and self._create_study_view(t))
            dock.visibilityChanged.connect(self._show_problems)
            dock.visibilityChanged.connect(self._study_went_behind)
            dock.toggleViewAction().triggered.connect(
                lambda shown, d=dock: shown and QTimer.singleShot(0, d, lambda: self._study_opened(d)))
            if previous is not None:
                self.tabifyDockWidget(previous, dock)
            dock.hide()
            previous = dock
            self.study_docks[title] = dock

    def _create_study_view(self, title):
        dock = self.study_docks[title]
        if getattr(dock, "view", None) is None:
            from ..studies import VIEWS  # pyqtgraph: loaded when a study dock first opens
            dock.view = dict(VIEWS)[title](self.controller)
            dock.view.problemChanged.connect(self._show_problems)
            dock.view.settled.connect(lambda d=dock: self._study_settled(d))
            dock.setWidget(_scrolled(dock.view))

    def _player_step(self, index):
        """Entering the story brings the provenance dock forward; leaving it, the inspector;
        a study below them in the column shares the height anew (_share_column), and again
        at each step (_step_in_column)."""
        if (index >= 0) != (self._player_was >= 0):
            dock = self.provenance_dock if index >= 0 else self.inspector_dock
            if dock.toggleViewAction().isChecked():
                self._raised_for_story = True       # folded above a study, it stays so (_share_column)
                dock.raise_()
                self._raised_for_story = False
            study = next((d for d in self.study_docks.values() if in_front(d) and not d.isFloating()), None)
            if study is not None:
                self._share_column(study)
        self._step_in_column(index)     # the provenance sized for what this step shows
        self._player_was = index

    def _selection_changed(self, ids):
        """Selecting a node while editing brings the inspector in front of the provenance, and
        beside a study below it (1280 x 800) its first-run share of the column, where its
        grid and 'Random…' are in view (it had 150 px, reached with the wheel); clearing the
        selection gives the study the height it lent (_share_column); a column the user
        dragged taller for the inspector is left alone."""
        if self.player.index >= 0 or not self.inspector_dock.toggleViewAction().isChecked():
            return
        if ids and in_front(self.provenance_dock):
            self.inspector_dock.raise_()
        study = next((d for d in self.study_docks.values() if in_front(d) and not d.isFloating()), None)
        if study is None:
            self._lent_to_inspector = False
            return
        column = self.inspector_dock.height() + study.height()
        if ids and self.inspector_dock.height() < INSPECTOR_SHARE * column - 1:
            self._lent_to_inspector = True
            QTimer.singleShot(0, study, lambda: self._lend_to_inspector(study))
        elif not ids and self._lent_to_inspector:
            self._lent_to_inspector = False
            QTimer.singleShot(0, study, lambda: self._share_column(study))

    _lent_to_inspector = False     # a study's height given to the inspector for a selected node

    def _lend_to_inspector(self, study):
        self._share_column(study, 1 - INSPECTOR_SHARE)
        QTimer.singleShot(0, self.inspector, self.inspector.show_values)   # once laid out anew

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
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        status.addPermanentWidget(self.problems_label)
        status.addPermanentWidget(self.time_label)

    def _fit_time_label(self):
        """The time label as large as the largest time in the theme's padding: a label
        whose size changes with its text makes Qt lay out the whole window again after an
        edit's repaint (0.8 ms of each edit of the 100-node grid)."""
        label, shown = self.time_label, self.time_label.text()
        label.setText(_time_text(99999.9))
        label.ensurePolished()
        label.setFixedSize(label.sizeHint())
        label.setText(shown)

    def _restore_layout(self):
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
            self._restore_whole_screen()
        else:
            self._first_size()
        self._first_run = not (isinstance(state, QByteArray) and not state.isEmpty())
        self._built_state = self.saveState()     # the docks as built, a first run's start
        if not self._first_run:
            self._saved_state = state
            restore_docks(self, state)
        else:
            self._first_dock_layout()
            self.inspector_dock.raise_()  # tabbed with the provenance: the inspector first
            self.palette_dock.raise_()    # tabbed with the lesson: the palette first
        self.canvas.set_grid_visible(self.actions_by_name["grid"].isChecked())

    def _restore_whole_screen(self):
        """The window as large as it was where that fits a screen's free area: restoreGeometry
        keeps a window 2 px narrower and a title bar lower than the screen it would fill
        (a 1280 x 800 window on a 1280 x 800 display without a window manager came back
        1278 x 774 at (1, 25), the canvas 26 px lower); where it fits no screen, as a first
        run sizes it (_first_size)."""
        rect = self.settings.value("window/rect")
        if not isinstance(rect, QRect) or not rect.isValid() or self.isMaximized() or self.isFullScreen():
            return
        areas = [screen.availableGeometry() for screen in QGuiApplication.screens()]
        if any(area.contains(rect) for area in areas):
            self.setGeometry(rect)
        elif areas and all(rect.width() > a.width() or rect.height() > a.height() for a in areas):
            self._first_size()

    def _first_size(self):
        """A first run's window: FIRST_SIZE, or FIRST_SHARE of a larger screen, centred. Also a
        window remembered larger than every screen (saved on a larger display): restoreGeometry
        gave it two thirds of the screen, a 1920 x 1080 window 960 x 600 on a 1440 x 900 one."""
        self.resize(FIRST_SIZE)
        screen = QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.resize(min(max(FIRST_SIZE.width(), int(area.width() * FIRST_SHARE)), area.width()),
                        min(max(FIRST_SIZE.height(), int(area.height() * FIRST_SHARE)), area.height()))
            self.move(area.center() - self.rect().center())

    def _first_dock_layout(self):
        """The palette as wide as its longest entry, the inspector wide enough for a 3-column
        grid. A window too narrow for a dock on each side and a canvas of WIDE_CANVAS (a
        1280x800 screen) puts the palette and lesson below the inspector on the right: the
        canvas gets the width a chain of cards needs, and every dock stays in view. Run
        again once shown, when the window has its real size."""
        palette = max(PALETTE_WIDTH, self.palette.sizeHint().width())
        narrow = self.width() - palette - INSPECTOR_WIDTH < WIDE_CANVAS
        side = Qt.DockWidgetArea.RightDockWidgetArea if narrow else Qt.DockWidgetArea.LeftDockWidgetArea
        if self.dockWidgetArea(self.palette_dock) != side:
            front = self.lesson_dock if in_front(self.lesson_dock) else self.palette_dock
            self.addDockWidget(side, self.palette_dock, Qt.Orientation.Vertical)
            self.addDockWidget(side, self.lesson_dock, Qt.Orientation.Vertical)
            self.tabifyDockWidget(self.palette_dock, self.lesson_dock)
            front.raise_()
        if narrow:
            self.resizeDocks([self.inspector_dock], [INSPECTOR_WIDTH], Qt.Orientation.Horizontal)
            room = self.height()
            self.resizeDocks([self.inspector_dock, self.palette_dock],
                             [int(room * INSPECTOR_SHARE), int(room * (1 - INSPECTOR_SHARE))],
                             Qt.Orientation.Vertical)
        else:
            self.resizeDocks([self.palette_dock, self.inspector_dock], [palette, INSPECTOR_WIDTH],
                             Qt.Orientation.Horizontal)

    def _save_layout(self):
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/rect", self.normalGeometry())
        self.settings.setValue("window/state", self.saveState())

    # -- status ------------------------------------------------------------------------
    def show_message(self, text, timeout=6000):
        self.statusBar().showMessage(text, timeout)

    def _evaluated(self, result):
        self._evaluation = result
        if result.evaluation is not self._studied[0]:   # the document changed: stale findings
            self._studied = (None, [])
        self._show_problems()
        self.time_label.setText(_time_text(result.elapsed_ms))

    def _show_problems(self, *_):
        """The document's problems and those of the open studies that cannot be computed."""
        result = getattr(self, "_evaluation", None)
        if result is None:
            return
        studies = [(title, dock.view.problem) for title, dock in self.study_docks.items()
                   if getattr(dock, "view", None) is not None and dock.view.problem
                   and dock.toggleViewAction().isChecked()]
        shown = {text for _, text in studies}
        studies += [(_study_title(p.where), p.message) for p in self._studied[1]
                    if p.message not in shown]
        errors = sum(not p.warning for p in result.problems)
        dead = self._dead_relus(result)
        warnings = len(result.problems) - errors + len(dead)
        if result.problems or studies or dead:
            counts = [f"{n} {word}{'s' * (n != 1)}" for n, word in
                      ((errors, "problem"), (warnings, "warning")) if n]
            if studies:      # a study's, not a node's: no card on the canvas is amber for it
                names = list(dict.fromkeys(title for title, _ in studies))
                names = ", ".join(names if len(names) <= 2 else names[:2] + ["…"])
                counts.append(f"{counted(len(studies), 'study warning')} ({names})")
            self.problems_label.setText("⚠ " + ", ".join(counts))
            self.problems_label.setToolTip("\n".join(
                [(f"{self.controller.name(p.node)}: " if p.node else "") + p.message for p in result.problems[:12]]
                + dead + [f"{title}: {text}" for title, text in studies]))
        else:
            self.problems_label.setText("✓ no problems" if self.controller.doc.nodes else "")
            self.problems_label.setToolTip("The graph runs forward and backward")
        self.problems_label.setStyleSheet(ERROR_STYLE if errors else
                                          WARN_STYLE if warnings or studies else "")

    def _dead_relus(self, result):
        """'relu: dead relu: units 0, 1 (of 3; 5 examples)' for each relu card that marks
        units dead for its whole batch (story.dead_units.warning): a warning on the card, so
        one in the status bar too."""
        values = result.evaluation.values if result.evaluation is not None else {}
        doc = self.controller.doc
        marks = ((nid, dead_units.warning(values[Port(nid)])) for nid, node in doc.nodes.items()
                 if dead_units.is_relu_node(node) and Port(nid) in values)
        return [f"{self.controller.name(nid)}: {mark}" for nid, mark in marks if mark]

    def _update_title(self, *_):
        """'Title — file.gradviz.json', 'Title (lesson)' for a bundled lesson not saved to a
        file of the user's, 'Untitled — new document'; Qt's * marks unsaved changes (the
        close prompt asks about exactly those: controller.dirty)."""
        c = self.controller
        title = c.doc.title or "Untitled"
        if c.path:
            title += f" — {os.path.basename(c.path)}"
        elif getattr(c, "lesson", None):
            title += " (lesson)"
        else:
            title += " — new document"
        self.setWindowTitle(title + "[*]")
        self.setWindowModified(self.controller.dirty)
        self.actions_by_name["save"].setEnabled(True)

    # -- view --------------------------------------------------------------------------
    def set_theme(self, name, persist=True):
        name = app_theme.apply(name)
        self.theme_name = name
        self._fit_time_label()
        self.actions_by_name[f"theme_{name}"].setChecked(True)
        if hasattr(self.canvas, "set_theme"):
            self.canvas.set_theme(name)
        self.code_view.set_theme(name)
        plot_colours.use(name)         # the studies' and Train's plots and banners
        for widget in (self.palette, self.inspector):
            if hasattr(widget, "set_theme"):
                widget.set_theme(name)
        if persist:
            self.settings.setValue("view/theme", name)
        self.themeChanged.emit(name)

    def _keep_in_view(self, node_id):
        """The part of `node_id`'s card in the canvas' view, then the view (global)."""
        view = self.canvas.viewport()
        if not view.isVisible():
            return []
        shown = [QRect(view.mapToGlobal(view.rect().topLeft()), view.size())]
        item = self.canvas.scene_item(node_id)
        if item is not None:
            box = self.canvas.mapFromScene(item.sceneBoundingRect()).boundingRect() & view.rect()
            if not box.isEmpty():
                shown.insert(0, QRect(view.mapToGlobal(box.topLeft()), box.size()))
        return shown

    def _code_toggled(self, shown):
        if shown:  # tabbed with the inspector: bring its tab to the front
            QTimer.singleShot(0, self.code_dock, self.code_dock.raise_)

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

        # A modal QProgressDialog's setValue processes events: the job's end (its result's
        # view opening, `done`) can arrive inside it, and a dialog deleted there crashed the
        # setValue still on the stack. It is closed once, when the last setValue has returned:
        # the next report arrives inside one too (nested), so a count, not a flag.
        state = {"in_value": 0, "ended": False}

        def progress(fraction, text):
            if state["ended"]:
                return
            state["in_value"] += 1
            try:
                dialog.setValue(int(fraction * 1000))
                if text:
                    dialog.setLabelText(f"{title}\n{text}")
            finally:
                state["in_value"] -= 1
            if state["ended"] and not state["in_value"]:
                close()

        def close():
            dialog.close()
            dialog.deleteLater()

        def done():
            state["ended"] = True
            self._job = None
            if not state["in_value"]:
                close()
        job.progress.connect(progress)
        job.finished.connect(on_finished)
        job.failed.connect(lambda e: QMessageBox.warning(self, title, self.failure_words(title, e)))
        job.cancelled.connect(lambda: self.show_message(f"{title}: cancelled"))
        job.done.connect(done)
        dialog.canceled.connect(job.cancel)
        return job

    def failure_words(self, title, e):
        """Why the job `title` failed, in words and the user's names (evaluation.worded), not
        the worker's class name and raw text; and that the document is kept: the job
        worked on a copy of it."""
        why = worded(e, self.controller.doc).rstrip(".")
        return (f"{title} stopped: {why}.\n\nYour document is kept as it was; "
                "nothing in it was changed.")

    def compute_studies(self):
        doc = self.controller.doc
        if not doc.studies:
            self.show_message("This document lists no studies to compute (a lesson's file lists "
                              "them); each view in View ▸ Studies computes what it shows itself")
            return None
        evaluation = self.controller.result.evaluation
        return self.run_job("Computing studies", _compute_studies,
                            lambda done: self._studies_done(*done, evaluation), copy.deepcopy(doc))

    def _studies_done(self, results, problems, evaluation=None):
        """Say each study's shape; its NaN or infinity is a warning in the status bar at once
        (not only once its view is opened), while the document stays as it was computed."""
        lines = []
        nan = {p.where.removeprefix("studies.") for p in problems}
        for name, value in results.items():
            if isinstance(value, GradientCheck):
                lines.append(value.summary())
            elif name in nan:
                lines.append(f"{_study_title(name)}: holds NaN or infinity (the ⚠ warning says where)")
            elif isinstance(value, str):     # its failure, worded by _compute_studies
                lines.append(f"{_study_title(name)} could not be computed: {value}")
            elif isinstance(value, list):
                lines.append(f"{_study_title(name)}: " + ", ".join(
                    "None" if v is None else f"shape {tuple(v.shape)}" for v in value))
            else:
                lines.append(f"{_study_title(name)}: " + ("None (not connected)" if value is None
                                            else f"shape {tuple(value.shape)}"))
        self.last_studies = results
        if evaluation is self.controller.result.evaluation:
            self._studied = (evaluation, problems)
            self._show_problems()
        shown = [STUDY_VIEWS[name] for name in results if name in STUDY_VIEWS]
        for title in reversed(shown):       # the first study's view ends in front
            self.show_study(title)
        where = f" — shown in View ▸ Studies ▸ {', '.join(shown)}" if shown else ""
        self.show_message("Studies: " + "; ".join(lines) + where, 15000)

    def showEvent(self, event):
        super().showEvent(event)
        self.inactive_keys.follow()   # the shortcuts, for keys that come before activation
        if not getattr(self, "_shown_once", False):
            self._shown_once = True
            if self._first_run:
                self._first_dock_layout()
            else:                         # the docks' restored sizes are known once shown
                QTimer.singleShot(0, self, self._hold_restored_layout)
            QTimer.singleShot(0, self.canvas, self.canvas.first_view)  # once the docks have their final widths
            QTimer.singleShot(0, self, self._take_keyboard)

    def _take_keyboard(self):
        """Shown while no window of the app is active: ask to be. A window manager activates
        a new window itself; on a display without one (Xvfb, a kiosk) the window stayed
        inactive, so its shortcuts never fired: → scrolled the canvas, F5 did nothing, and
        Space reached the canvas and started autoplay (three presses meant for the
        presentation showed 2/4), until a click somewhere."""
        if QApplication.activeWindow() is None and self.isVisible():
            self.activateWindow()

    # -- closing -----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent):
        if self._job is not None:
            self._job.cancel()
        if not self.maybe_save():
            event.ignore()
            return
        self._save_layout()
        self.autosaver.clear()
        self.recovery.discard()   # this window's own file: no other window's, no other instance's
        self.settings.sync()
        event.accept()

    def main_windows(self):
        """Every main window of the application (this one included)."""
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]


def _compute_studies(job, doc):
    """Each study of `doc` in turn (off the UI thread); a study that fails becomes its reason
    in words (evaluation.worded: the user's node names, no class name), and the others are
    still computed."""
    names = list(doc.studies)
    out = {}
    for i, name in enumerate(names):
        job.report(i / len(names), f"{name.replace('_', ' ')} ({i + 1} of {len(names)})")
        fn = {"jacobian": jacobian, "batch_jacobian": batch_jacobian, "hessian": hessian,
              "higher_order": higher_order, "gradient_check": gradient_check}.get(name)
        if fn is None:
            continue
        try:
            out[name] = fn(doc)
        except Cancelled:
            raise
        except Exception as e:  # noqa: BLE001 (said in words; the other studies go on)
            out[name] = worded(e, doc)
    job.report(1.0, "done")
    problems = study_problems(doc, out)
    check = out.get("gradient_check")
    if isinstance(check, GradientCheck) and check.failed:   # as its view says it
        problems.append(Problem(check.summary(), where="studies.gradient_check", warning=True))
    return out, problems


def _study_title(where):
    """'Hessian' for a problem found where 'studies.hessian' (Ctrl+Shift+J's studies), the
    view's title; 'Higher order' for a study no view shows (never the file's key)."""
    kind = where.removeprefix("studies.")
    return next((t for t in STUDY_TITLES if t.lower().replace(" ", "_") == kind),
                kind.replace("_", " ").capitalize())


def _scrolled(view):
    """`view` in a frameless scroll area: its minimum size scrolls instead of pushing the
    canvas (a study dock's content needs more height than a small window leaves)."""
    area = QScrollArea()
    area.setObjectName("studyScroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(view)
    return area

