"""The main window's file workflow: new, open, save, recent files, samples, import from a
script, export, and recovery after a crash.

Saving is atomic (graph/atomic.py) and runs off the UI thread from a snapshot. Errors are told
in words, naming the file. Import from script runs in a child
process (script_import.py).
"""
import errno
import os
import re
import time
from contextlib import nullcontext
from pathlib import Path

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ... import bundled
from ...engine.errors import counted
from ...graph import fileformat
from ...graph.document import Document
from ...graph.errors import DocumentError
from ...graph.tracing import read_script
from ..controller import DocumentController, prepare
from ..export_dialog import export_step, report_export
from ..folders import document_stem, remember_folder, start_folder
from ..literal import mnemonic_free
from ..snapshots import snapshot
from ..worker import busy, wait_painted
from .script_import import run_trace

SAMPLES_DIR = bundled.samples_dir()
SEED_SAMPLE = "004_matmul_sum.json"
FILE_FILTER = "gradviz documents (*.gradviz.json *.json);;All files (*)"
PICTURE_FILTER = "PNG picture (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"


def os_error_words(error, reading=True):
    """Why a file could not be read or written, in words (never '[Errno 2] …')."""
    if isinstance(error, FileNotFoundError):
        return ("the file does not exist (it may have been moved, renamed or deleted)"
                if reading else "its folder does not exist")
    if isinstance(error, IsADirectoryError):
        return "that is a folder, not a document"
    if isinstance(error, PermissionError):
        return f"you do not have permission to {'read' if reading else 'write'} it"
    if isinstance(error, NotADirectoryError):
        return "a part of the path is not a folder"
    if getattr(error, "errno", None) == errno.ENOSPC:
        return "the disk is full"
    return (error.strerror or str(error)).rstrip(".").lower() if isinstance(error, OSError) \
        else str(error)


# Seconds of reading and evaluating a document after which showing it (its cards, previews
# and first paint, on the UI thread) runs under a busy dialog too.
BUSY_AFTER = 0.3


class Opened:
    """A document file read and evaluated (controller.prepare) off the UI thread, and the
    seconds it took."""

    def __init__(self, path):
        start = time.perf_counter()
        self.doc = fileformat.load(path, strict=False)
        self.prepared = prepare(self.doc)
        self.seconds = time.perf_counter() - start


class WindowFiles:
    """MainWindow's file commands (a mixin: `self` is the MainWindow)."""

    def maybe_save(self):
        """Ask about unsaved changes; True when it is fine to go on (saved or discarded)."""
        if not self.controller.dirty:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes",
            f"“{self.controller.doc.title or 'Untitled'}” has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_document(self):
        if not self.maybe_save():
            return False
        self.controller.set_document(Document())
        self.show_message("New document: drag ops from the palette, or press Tab on the canvas "
                          "to add one")
        return True

    def _start_dir(self):
        path = self.controller.path or (self.recent.paths() or [None])[0]
        return os.path.dirname(path) if path else str(Path.home())

    def open_file(self, path=None):
        """Open a document the user picks (or `path`, a recent file). The file is read before
        "save changes?" is asked, as an import is: one that cannot be opened (gone, not a
        document) costs no prompt, and the window keeps its document."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Open document",
                                                  start_folder(self, "open", self._start_dir()), FILE_FILTER)
            if not path:
                return False
            remember_folder(self, "open", path)
        opened = self._read(path)
        if opened is None or not self.maybe_save():
            return False
        return self.load_path(path, opened=opened)

    def _read(self, path, remember=True):
        """The document in the file `path` and its evaluation (an Opened), or None after a
        dialog in words saying why not (a recent file that is gone leaves the list)."""
        try:   # off the UI thread: a file of large tensors takes seconds to read and evaluate
            return wait_painted(lambda: Opened(path), self, f"Opening {os.path.basename(path)}…")
        except OSError as e:
            self._cannot("open", path, os_error_words(e))
            if remember and not os.path.exists(path):
                self.recent.remove(path)
                self._update_recent_menu()
        except DocumentError as e:
            self._cannot("open", path, str(e))
        return None

    def load_path(self, path, remember=True, opened=None):
        """Open `path` (`opened`, its Opened when the caller read it) without asking about
        the current document (the caller did). Every failure is a dialog in words; the
        window keeps the document it had."""
        before, before_path = self.controller.doc, self.controller.path
        opened = self._read(path, remember) if opened is None else opened
        if opened is None:
            return False
        slow = opened.seconds >= BUSY_AFTER   # then showing it takes seconds too: busy
        try:
            with busy(self, f"Opening {os.path.basename(path)}…") if slow else nullcontext():
                self.controller.set_document(opened.doc, path, prepared=opened.prepared)
                if slow:
                    self._settle_canvas()
        except DocumentError as e:
            if self.controller.doc is not before:
                self.controller.set_document(before, before_path)
            self._cannot("open", path, str(e))
            return False
        except Exception as e:  # noqa: BLE001 (a fault of gradviz's, never only on stderr)
            if self.controller.doc is not before:
                self.controller.set_document(before, before_path)
            self._cannot("open", path, "gradviz failed while showing it "
                         f"({type(e).__name__}: {str(e)[:200]}); please report this with "
                         "the file")
            return False
        if remember:
            self.recent.add(path)
            self._update_recent_menu()
        self.show_message(f"Opened {path}")
        return True

    def _settle_canvas(self):
        """Let the canvas paint the new document and do the work that waits for its paint
        (fitting it, the player's story), so that the window is usable when the busy
        dialog closes, not frozen after it."""
        if not self.canvas.isVisible():
            return
        loop, give_up = QEventLoop(), time.monotonic() + 60
        while self.canvas.waiting_for_paint and time.monotonic() < give_up:
            loop.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents, 50)

    def _cannot(self, verb, path, why, more=""):
        QMessageBox.warning(self, f"Cannot {verb}",
                            f"Cannot {verb} {os.path.basename(path) or path}: {why}.\n\n{path}"
                            + (f"\n\n{more}" if more else ""))

    def open_sample(self, path, ask=True):
        """A sample opens as a new unsaved document, so Save never overwrites the sample."""
        if ask and not self.maybe_save():
            return False
        try:
            doc = fileformat.load(str(path), strict=False)
        except OSError as e:
            self._cannot("open the sample", path, os_error_words(e))
            return False
        except DocumentError as e:
            self._cannot("open the sample", path, str(e))
            return False
        self.controller.set_document(doc, lesson=Path(path).name)
        lesson = bundled.lesson_at(path)    # the course's number, as the Lessons menu shows it
        self.show_message(f"Lesson {lesson.number}: {doc.title}" if lesson else doc.title)
        return True

    def save(self):
        if not self.controller.path:
            return self.save_as()
        return self._write(self.controller.path)

    def save_as(self, path=None):
        if not path:
            start = self.controller.path or os.path.join(start_folder(self, "save", self._start_dir()),
                                                         document_stem(self.controller) + ".gradviz.json")
            path, _ = QFileDialog.getSaveFileName(self, "Save document as", start, FILE_FILTER)
            if not path:
                return False
            remember_folder(self, "save", path)
            if not path.endswith(".json"):
                path += ".gradviz.json"
        return self._write(path)

    def _write(self, path):
        doc = snapshot(self.controller.doc)   # tensors shared: no values copied
        try:   # written atomically, in pieces, off the UI thread (a large document takes s)
            wait_painted(lambda: fileformat.save(doc, path), self,
                         f"Saving {os.path.basename(path)}…")
        except OSError as e:
            self._cannot("save", path, os_error_words(e, reading=False))
            return False
        self.controller.saved(path)
        self.recent.add(path)
        self._update_recent_menu()
        self.autosaver.clear()
        return True

    def _update_recent_menu(self):
        menu = self.recent_menu
        menu.clear()
        paths = self.recent.paths()
        for i, path in enumerate(paths):
            name = mnemonic_free(os.path.basename(path))
            act = menu.addAction(f"&{i + 1}  {name}" if i < 9 else name)
            act.setStatusTip(path)
            act.setToolTip(path)
            act.setEnabled(os.path.exists(path))
            act.triggered.connect(lambda *_, p=path: self.open_file(p))
        if paths:
            menu.addSeparator()
            menu.addAction("Clear List", lambda: (self.recent.clear(), self._update_recent_menu()))
        else:
            menu.addAction("No recent files").setEnabled(False)

    # -- import ------------------------------------------------------------------------
    def import_script(self, path=None, ask=True):
        """Run a Python script the user picks and capture its GradientTape as a document."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Import from script",
                                                  start_folder(self, "import", self._start_dir()),
                                                  "Python scripts (*.py);;All files (*)")
            if not path:
                return False
            remember_folder(self, "import", path)
        try:   # a file that is not a Python script is told before anything is asked or run
            read_script(path)
        except DocumentError as e:
            self._cannot("import", path, e.message)
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
        name = os.path.basename(path)
        imported = run_trace(self, os.path.abspath(path))
        if imported.cancelled:
            self.show_message(f"Import cancelled: {name} was stopped")
            return False
        if imported.doc is None:
            said = imported.last_lines()
            self._cannot("import", path, imported.error,
                         "The script's last output:\n" + "\n".join(said) if said else "")
            return False
        # Asked only now, when the import will replace the document: a failed import
        # costs no prompt, and the document stays as it was.
        if not self.maybe_save():
            self.show_message(f"Import of {name} not applied: the document is unchanged")
            return False
        doc = imported.doc
        self.controller.set_document(doc)
        which = re.search(r"\((gradient call \d+ of \d+)\)$", doc.title)
        self.show_message(f"Imported {name}: {counted(len(doc.nodes), 'node')}"
                          + (f", {which[1]}" if which else ""))
        if imported.warnings:
            QMessageBox.warning(self, "Import from script", f"Imported {name}, but:\n\n"
                                + "\n".join(f"• {w}" for w in imported.warnings))
        return True

    def export_picture(self, path=None):
        if not path:
            start = os.path.join(start_folder(self, "export", self._start_dir()),
                                 document_stem(self.controller) + ".png")
            path, chosen = QFileDialog.getSaveFileName(self, "Export picture", start,
                                                       PICTURE_FILTER)
            if not path:
                return False
            remember_folder(self, "export", path)
            if Path(path).suffix.lower() not in (".png", ".svg", ".pdf"):
                path += "." + chosen.split("(*.")[-1].rstrip(")")
        notes = []
        try:
            export_step(self, path, theme=self.theme_name, step=None, warn=notes.append)
        except OSError as e:
            self._cannot("export", path, os_error_words(e, reading=False))
            return False
        except ValueError as e:
            self._cannot("export", path, str(e))
            return False
        report_export(self, path, notes)
        return True

    # -- recovery ----------------------------------------------------------------------
    def offer_recovery(self):
        """At start-up: offer the autosaved changes left by instances that crashed (their
        process is gone; the live work of a running instance is never offered).

        Changes to the document this window shows (or any, when it shows only the start-up
        sample) are restored here; changes to another document open in a new window, so
        `gradviz FILE` always shows FILE. Each leftover is claimed first (renamed to this
        instance), so two instances starting together never both offer it; one that cannot
        be restored is kept, and the message says where."""
        restored = []
        for leftover in self.recovery.leftovers():
            recovery = leftover.claim()
            if recovery is None:
                continue   # another instance claimed it first
            info = recovery.info()
            original = info.get("path") if isinstance(info.get("path"), str) else None
            what = f"“{info.get('title') or 'Untitled'}”"
            if original:
                what += f" ({os.path.basename(original)})"
            here = not restored and not self.controller.dirty and (
                self.controller.path is None or original == self.controller.path)
            answer = QMessageBox.question(
                self, "Recover unsaved changes?",
                f"gradviz did not close normally last time. Restore the unsaved changes to "
                f"{what}{'' if here else ' in a new window'}?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.Yes)
            if answer != QMessageBox.StandardButton.Yes:
                recovery.discard()
                continue
            window = self if here else self.new_window()
            try:
                note = recovery.restore_into(window.controller)
            except (DocumentError, OSError) as e:
                why = os_error_words(e) if isinstance(e, OSError) else str(e)
                self._keep_unrestored(recovery, what, why)
                if window is not self:
                    window.controller.undo_stack.setClean()
                    window.close()
                continue
            window.canvas.open_at(recovery.info().get("view"))   # as the user last saw it
            window.autosaver.take_over(recovery)
            restored.append(window)
            window.show_message("Restored the unsaved changes; save them to keep them")
            if note:
                QMessageBox.warning(window, "Recovered as a new document", note[0].upper()
                                    + note[1:] + ".")
        return bool(restored)

    def _keep_unrestored(self, recovery, what, why):
        """A recovery that cannot be restored is never deleted: it is moved aside, and the
        message says where (it is a gradviz document; a newer gradviz may open it)."""
        try:
            kept = recovery.keep()
            where = f"It is kept, unchanged, in\n{kept}"
        except OSError as e:
            where = f"It stays in\n{recovery.path}\n(it could not be moved: {os_error_words(e)})"
        QMessageBox.warning(self, "Cannot recover",
                            f"The unsaved changes to {what} cannot be restored: {why}.\n\n"
                            f"{where}")

    def new_window(self):
        """Another main window (its own document, undo history and recovery file)."""
        recovery = self.recovery.sibling()
        window = type(self)(DocumentController(), settings=self.settings, recovery=recovery)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.other_windows.append(window)
        window.destroyed.connect(lambda *_: self._forget(window))
        window.move(self.x() + 40, self.y() + 40)
        window.show()
        return window

    def _forget(self, window):
        if window in self.other_windows:
            self.other_windows.remove(window)
