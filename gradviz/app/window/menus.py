"""The main window's actions, menus, toolbar and the Help dialogs.

Shortcuts have scopes, as in any Qt editor: the canvas' editing commands (Cut, Copy,
Paste, Duplicate, Delete, Select All, Add Node on Tab) fire only while the canvas has
keyboard focus, so a key typed into the inspector or the palette goes to that field.
Chosen from the Edit menu, Cut / Copy / Paste / Delete / Select All act on whatever has
focus: the text field or tensor grid the user is in, else the canvas.
"""
from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QDialog, QDialogButtonBox,
                               QDockWidget, QMenu, QMenuBar, QMessageBox, QStyle, QTableWidget,
                               QTableWidgetItem, QToolBar, QVBoxLayout)

from .. import theme as app_theme
from ..dock_room import front_action
from ..export_dialog import export_animation_dialog, export_step_dialog, export_view_dialog
from .focus_keys import is_text_field
from ..literal import mnemonic_free
from ..player.lessons import (build_lessons_menu, lesson_entries, lesson_tip, painted_first,
                             show_tips_beside)
from ..inspector.tensor_grid import TensorGrid

# The key each field command sends to a focused text field or tensor grid.
FIELD_KEYS = {"cut": QKeySequence.StandardKey.Cut, "copy": QKeySequence.StandardKey.Copy,
              "paste": QKeySequence.StandardKey.Paste, "delete": QKeySequence.StandardKey.Delete,
              "select_all": QKeySequence.StandardKey.SelectAll}
UNDO_KEYS, REDO_KEYS = ["Ctrl+Z"], ["Ctrl+Shift+Z", "Ctrl+Y"]


def _label(text):
    return text.replace("&", "").rstrip(".…")


class WindowMenus:
    """MainWindow's actions, menus, toolbar and help (a mixin: `self` is the MainWindow)."""

    def _action(self, text, slot=None, shortcut=None, tip="", checkable=False, icon=None,
                scope=None):
        """A QAction with its shortcut in its tooltip. `scope`: the widget whose focus the
        shortcut needs (the window when None)."""
        action = QAction(text, self)
        if shortcut is not None:
            keys = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(k) for k in keys])
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        action.setCheckable(checkable)
        seq = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{_label(text)} ({seq})" if seq else _label(text))
        action.setStatusTip(tip or _label(text))
        if slot is not None:
            action.triggered.connect(lambda *_: slot())
        if scope is not None:
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            scope.addAction(action)
        else:
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
        a["export_animation"] = self._action("Export Ani&mation…",
                                             lambda: export_animation_dialog(self), None,
                                             "Save the whole backward pass as an animated GIF, "
                                             "an APNG or numbered PNG pictures")
        a["present"] = self._action("&Presentation Mode", lambda: self.presentation.toggle(), "F5",
                                    "Full screen, large type, high contrast; Space / arrows "
                                    "step, Esc leaves", checkable=True)
        a["quit"] = self._action("&Quit", self.close, k.Quit, "Close gradviz")
        self._build_undo_actions()

        edit = dict(scope=c)
        a["cut"] = self._action("Cu&t", lambda: self.edit_command("cut"), k.Cut,
                                "Cut the selected nodes, or the text in the field", **edit)
        a["copy"] = self._action("&Copy", lambda: self.edit_command("copy"), k.Copy,
                                 "Copy the selected nodes, or the text / cells in the field",
                                 **edit)
        a["paste"] = self._action("&Paste", lambda: self.edit_command("paste"), k.Paste,
                                  "Paste nodes, or text into the field", **edit)
        a["duplicate"] = self._action("Dup&licate", c.duplicate, "Ctrl+D",
                                      "Duplicate the selected nodes", **edit)
        a["delete"] = self._action("&Delete", lambda: self.edit_command("delete"), k.Delete,
                                   "Delete the selected nodes or connections", **edit)
        a["select_all"] = self._action("Select &All", lambda: self.edit_command("select_all"),
                                       k.SelectAll, "Select every node", **edit)
        a["quick_add"] = self._action("Add &Node…", c.quick_add, "Tab",
                                      "Type the name of an op to add it at the mouse pointer "
                                      "(Tab on the canvas)", **edit)

        a["zoom_in"] = self._action("Zoom &In", c.zoom_in, [k.ZoomIn, "Ctrl+="])
        a["zoom_out"] = self._action("Zoom &Out", c.zoom_out, k.ZoomOut)
        a["reset_zoom"] = self._action("&Actual Size", c.reset_zoom, "Ctrl+0",
                                       "Zoom to 100 %")
        a["fit"] = self._action("&Fit to Window", c.fit, "F", "Show the whole graph (zoomed no "
                                "further out than is readable)")
        a["layout"] = self._action("Auto &Layout", c.auto_layout, "Ctrl+L",
                                   "Arrange the nodes left to right (undoable)")
        a["grid"] = self._action("Show &Grid", None, "Ctrl+'", "Show the grid behind the graph",
                                 checkable=True)
        a["grid"].setChecked(str(self.settings.value("view/grid", "true")).lower() == "true")
        a["grid"].toggled.connect(self.set_grid_visible)
        a["code"] = front_action(self, self.code_dock, self._code_room)
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

    def _build_undo_actions(self):
        """Undo / Redo name the edit in the menu; the toolbar's buttons keep a short text."""
        a, sp = self.actions_by_name, QStyle.StandardPixmap
        stack = self.controller.undo_stack
        a["undo"] = stack.createUndoAction(self, "&Undo")
        a["undo"].setShortcuts([QKeySequence(s) for s in UNDO_KEYS])
        a["undo"].setIcon(self.style().standardIcon(sp.SP_ArrowBack))
        a["redo"] = stack.createRedoAction(self, "&Redo")
        a["redo"].setShortcuts([QKeySequence(s) for s in REDO_KEYS])
        a["redo"].setIcon(self.style().standardIcon(sp.SP_ArrowForward))
        for name, slot, enabled in (("undo", stack.undo, stack.canUndoChanged),
                                    ("redo", stack.redo, stack.canRedoChanged)):
            self.addAction(a[name])
            short = QAction(a[name].icon(), name.title(), self)
            short.triggered.connect(lambda *_, s=slot: s())
            enabled.connect(short.setEnabled)
            short.setEnabled(a[name].isEnabled())
            a[f"toolbar_{name}"] = short
        # (the texts change after indexChanged, and a merge renames the entry)
        for changed in (stack.undoTextChanged, stack.redoTextChanged, stack.cleanChanged):
            changed.connect(self._update_undo_tips)
        self._update_undo_tips()

    def _update_undo_tips(self, *_):
        """Undo/Redo tooltips name the edit and the shortcut: 'Undo Move (Ctrl+Z)'."""
        for name in ("undo", "redo"):
            action = self.actions_by_name[name]
            seq = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            text = action.text().replace("&", "")
            action.setToolTip(f"{text} ({seq})" if seq else text)
            action.setStatusTip(text)
            short = self.actions_by_name[f"toolbar_{name}"]
            short.setToolTip(action.toolTip())
            short.setStatusTip(text)

    def _build_menus(self):
        a, bar = self.actions_by_name, self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([a["new"], a["open"]])
        self.sample_menu = file_menu.addMenu("Open Samp&le")
        show_tips_beside(self.sample_menu)
        for lesson in lesson_entries():     # by number and title, as the Lessons menu lists them
            act = self.sample_menu.addAction(f"{lesson.number}  {mnemonic_free(lesson.title)}")
            act.setStatusTip(f"Open lesson {lesson.number}, “{lesson.title}”, as a new, unsaved "
                             "document")
            act.setToolTip(lesson_tip(lesson))
            act.triggered.connect(lambda *_, p=lesson.path: painted_first(
                self, lambda: self.open_sample(p)))
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
        edit.aboutToShow.connect(self.update_edit_actions)

        view = bar.addMenu("&View")
        view.addActions([a["zoom_in"], a["zoom_out"], a["reset_zoom"], a["fit"]])
        view.addSeparator()
        view.addActions([a["layout"], a["grid"]])
        view.addSeparator()
        a["palette"] = front_action(self, self.palette_dock)
        a["palette"].setShortcut(QKeySequence("Ctrl+Shift+P"))
        a["inspector"] = front_action(self, self.inspector_dock)
        a["inspector"].setShortcut(QKeySequence("Ctrl+Shift+I"))
        view.addActions([a["code"], a["palette"], a["inspector"]])
        a["reset_layout"] = self._action("&Reset Window Layout", self.reset_dock_layout,
                                         tip="Put the docks where a first run puts them for this window's size")
        view.addAction(a["reset_layout"])
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
        bar.addActions([a["toolbar_undo"], a["toolbar_redo"]])
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
        menu.addAction(front_action(self, self.provenance_dock))
        menu.addAction(front_action(self, self.lesson_dock))
        studies = self.view_menu.addMenu("&Studies")
        self.studies_menu = studies
        for i, title in enumerate(self.study_docks, start=1):
            action = front_action(self, self.study_docks[title], self._study_opened)
            action.setShortcut(QKeySequence(f"Ctrl+Alt+{i}"))
            action.setToolTip(f"Show the {title} view")
            studies.addAction(action)
        for name in ("play", "step", "back", "first", "last", "edit"):
            self.actions_by_name[f"player_{name}"] = a[name]
        self._player_was = -1
        self.player.stepChanged.connect(self._player_step)

    # -- edit commands -----------------------------------------------------------------
    def field_in_focus(self):
        """The text field or tensor grid the user is typing in, else None (the canvas)."""
        widget = QApplication.focusWidget()
        if isinstance(widget, (QMenu, QMenuBar)):
            widget = self._last_focus
        try:
            if widget is None or not _part_of(widget.window(), self):
                return None
        except RuntimeError:  # the field was deleted (its inspector page was rebuilt)
            return None
        if is_text_field(widget) or isinstance(widget, TensorGrid):
            return widget
        return None

    def _focus_changed(self, old, new):
        if new is not None and not isinstance(new, (QMenu, QMenuBar)):
            self._last_focus = new
        elif new is None and _closing_dialog_of(old, self):
            QTimer.singleShot(0, self, self._focus_back)
        elif new is None and _in_window(old, self):   # a dialog opening, or another app
            QTimer.singleShot(0, self, lambda: self._focus_back(only_after_dialog=True))
        self.update_edit_actions()

    def _focus_back(self, only_after_dialog=False):
        """A dialog closed and Qt left the focus nowhere (no window manager hands the
        activation back): the arrows would not step the story until a click. The widget
        that had the focus before gets it back, else the canvas. While a dialog is open
        (the focus left the window for it), this looks again until it has closed."""
        if QApplication.focusWidget() is not None or not self.isVisible():
            return
        if QApplication.activeModalWidget() not in (None, self):
            QTimer.singleShot(100, self, self._focus_back)
            return
        if only_after_dialog:   # no dialog: the user went to another application
            return
        target = self._last_focus
        try:
            if target is None or not _part_of(target.window(), self) or not target.isVisible():
                target = self.canvas
        except RuntimeError:  # deleted with its inspector page
            target = self.canvas
        target.window().activateWindow()     # the window, or the floating dock the field is in
        target.setFocus()

    def edit_command(self, name):
        """Edit ▸ Cut / Copy / Paste / Delete / Select All: for the field in focus, else for
        the canvas."""
        field = self.field_in_focus()
        if field is not None:
            seq = QKeySequence(FIELD_KEYS[name])[0]
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                QApplication.sendEvent(field, QKeyEvent(kind, seq.key(), seq.keyboardModifiers()))
            return
        {"cut": self.canvas.cut, "copy": self.canvas.copy, "paste": self.canvas.paste,
         "delete": self.canvas.delete_selected, "select_all": self.canvas.select_all}[name]()

    def update_edit_actions(self, *_):
        """Cut / Copy / Duplicate / Delete need something selected (or a field in focus)."""
        if not hasattr(self, "actions_by_name"):
            return
        a = self.actions_by_name
        field = self.field_in_focus()
        nodes = bool(self.controller.selection)
        edges = bool(self.canvas.selected_edges())
        editable = field is not None and not (
            isinstance(field, QAbstractItemView) and field.model() is not None
            and getattr(field.model(), "read_only", False))
        a["copy"].setEnabled(nodes or field is not None)
        a["cut"].setEnabled(nodes if field is None else editable and not isinstance(
            field, TensorGrid))
        a["delete"].setEnabled(nodes or edges if field is None else editable)
        a["paste"].setEnabled(field is None or editable)
        a["duplicate"].setEnabled(nodes)

    # -- help --------------------------------------------------------------------------
    def about(self):
        QMessageBox.about(
            self, "About gradviz",
            "<h3>gradviz</h3><p>Backpropagation made visible: build a graph, watch the "
            "cotangent travel back through the tape, op by op.</p>"
            "<p>The engine speaks TensorFlow's API: <code>import gradviz as tf</code>.</p>")

    def shortcut_rows(self):
        """(menu, command, shortcuts) for every menu action that has a shortcut."""
        rows = []
        for menu_action in self.menuBar().actions():
            stack = [menu_action.menu()]
            label = menu_action.text().replace("&", "")
            while stack:
                for act in stack.pop(0).actions():
                    if act.menu():
                        stack.append(act.menu())
                        continue
                    seqs = [s.toString(QKeySequence.SequenceFormat.NativeText)
                            for s in act.shortcuts() if not s.isEmpty()]
                    if seqs and act.text():
                        name = _label(act.text())
                        for verb in ("Undo", "Redo"):  # not 'Undo Move': the command, not the edit
                            name = verb if name.startswith(verb + " ") else name
                        rows.append((label, name, ", ".join(seqs)))
        return rows

    def show_shortcuts(self):
        rows = self.shortcut_rows() + [
            ("Canvas", "Scroll", "wheel (Shift + wheel: sideways)"),
            ("Canvas", "Zoom", "Ctrl + wheel"),
            ("Canvas", "Pan", "Space + drag, or middle button drag"),
            ("Canvas", "Connect", "drag from an output port to an input port"),
            ("Tensor grid", "Edit a cell", "type; Tab moves right, Enter moves down"),
            ("Tensor grid", "Copy / paste cells", "Ctrl+C / Ctrl+V (tab- or comma-separated)"),
            ("Tensor grid", "Set cells to 0", "Delete")]
        dialog = QDialog(self)
        dialog.setWindowTitle("Keyboard shortcuts")
        table = QTableWidget(len(rows), 3, dialog)
        table.setHorizontalHeaderLabels(["Menu", "Command", "Shortcut"])
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        table.setAlternatingRowColors(True)
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
        dialog.resize(620, 600)
        dialog.show()
        self._shortcuts_dialog = dialog
        return dialog


def _part_of(top, window):
    """Whether the top-level widget `top` is `window` or one of its floating docks."""
    return top is window or (isinstance(top, QDockWidget) and top.parentWidget() is window)


def _in_window(widget, window):
    try:
        return widget is not None and _part_of(widget.window(), window)
    except RuntimeError:
        return False


def _closing_dialog_of(widget, window):
    """Whether `widget` was in a dialog of `window` or of a floating dock of it (the focus
    leaves it as it closes): the Random fill of a floating inspector left the focus nowhere."""
    try:
        dialog = widget.window() if widget is not None else None
        return isinstance(dialog, QDialog) and dialog is not window \
            and dialog.parentWidget() is not None and _part_of(dialog.parentWidget().window(), window)
    except RuntimeError:
        return False
