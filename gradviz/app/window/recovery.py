"""Recent files, autosave to a recovery file, and recovery after a crash.

Each window has a recovery file in the app data folder (or `$GRADVIZ_RECOVERY_DIR`),
written atomically a few seconds after an edit while there are unsaved changes, and
removed when the document is saved, the changes are undone, or the window closes
normally. A session flag in QSettings tells the next start whether the last session
ended cleanly; only then are leftover recovery files offered.
"""
import copy
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer

from ...graph import fileformat
from ...graph.atomic import write_bytes

MAX_RECENT = 10
AUTOSAVE_MS = 3000


def _as_list(value):
    """QSettings (INI) gives a lone string for a one-element list, None for an empty one."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value]


class RecentFiles:
    """The most recently opened or saved documents, newest first, kept in QSettings."""

    KEY = "files/recent"

    def __init__(self, settings=None):
        self.settings = settings or QSettings()

    def paths(self):
        return _as_list(self.settings.value(self.KEY))

    def existing(self):
        return [p for p in self.paths() if os.path.exists(p)]

    def add(self, path):
        path = os.path.abspath(path)
        paths = [path] + [p for p in self.paths() if os.path.abspath(p) != path]
        self.settings.setValue(self.KEY, paths[:MAX_RECENT])
        self.settings.sync()

    def remove(self, path):
        self.settings.setValue(self.KEY, [p for p in self.paths() if p != path])

    def clear(self):
        self.settings.setValue(self.KEY, [])


def recovery_dir():
    given = os.environ.get("GRADVIZ_RECOVERY_DIR")
    if given:
        return Path(given)
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".gradviz") / "recovery"


class Recovery:
    """The recovery file of this user, and whether the last session ended cleanly."""

    KEY = "session/running"
    NAME = "recovery.gradviz.json"
    SUFFIX = ".gradviz.json"

    def __init__(self, settings=None, directory=None, name=None):
        self.settings = settings or QSettings()
        self.dir = Path(directory) if directory else recovery_dir()
        self.path = self.dir / (name or self.NAME)
        self.info_path = self.dir / (self.path.name[:-len(self.SUFFIX)] + "-info.json")

    def sibling(self, taken=()):
        """The recovery file of another window: same folder, a name not in `taken`."""
        k = 2
        while f"recovery-{k}{self.SUFFIX}" in taken:
            k += 1
        return Recovery(self.settings, self.dir, f"recovery-{k}{self.SUFFIX}")

    def leftovers(self):
        """Every window's recovery file left by a session that did not exit cleanly
        (this window's first), else []."""
        if not self.last_session_crashed() or not self.dir.is_dir():
            return []
        names = sorted(p.name for p in self.dir.glob("recovery*" + self.SUFFIX))
        names.sort(key=lambda n: n != self.path.name)
        return [Recovery(self.settings, self.dir, n) for n in names]

    # -- session -----------------------------------------------------------------------
    def last_session_crashed(self):
        return str(self.settings.value(self.KEY, "false")).lower() == "true"

    def begin_session(self):
        self.settings.setValue(self.KEY, "true")
        self.settings.sync()

    def end_session(self):
        """A clean exit (of the last window): nothing to recover next time."""
        self.discard()
        self.settings.setValue(self.KEY, "false")
        self.settings.sync()

    # -- the file ----------------------------------------------------------------------
    def pending(self):
        """True when a recovery file is waiting and the last session did not exit cleanly."""
        return self.path.exists() and self.last_session_crashed()

    def write(self, doc, original_path=None):
        self.dir.mkdir(parents=True, exist_ok=True)
        fileformat.save(doc, str(self.path))
        info = {"path": str(original_path) if original_path else None, "title": doc.title}
        write_bytes(self.info_path, json.dumps(info))

    def info(self):
        try:
            return json.loads(self.info_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"path": None, "title": None}

    def load(self):
        """(recovered Document, the path of the file it was an edit of, or None)."""
        doc = fileformat.load(str(self.path), strict=False)
        path = self.info().get("path")
        return doc, path if path and os.path.exists(path) else None

    def discard(self):
        for p in (self.path, self.info_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    def restore_into(self, controller):
        """Open the original file (if any) and apply the recovered document as one undoable
        edit on top of it, so the window shows unsaved changes and Undo shows what changed."""
        doc, path = self.load()
        if path:
            controller.open(path)
        else:
            from ...graph.document import Document
            controller.set_document(Document(title=doc.title))
        recovered = copy.deepcopy(doc)
        controller.edit("Restore recovered changes",
                        lambda d: d.__dict__.update(copy.deepcopy(recovered.__dict__)))
        self.discard()


class Autosaver(QObject):
    """Writes the recovery file shortly after edits while the document has unsaved changes,
    and removes it when they are saved or undone. It removes only a file it wrote: a
    leftover of a crashed session waits until the user has answered the recovery question."""

    def __init__(self, controller, recovery, interval_ms=AUTOSAVE_MS, parent=None):
        super().__init__(parent or controller)
        self.controller = controller
        self.recovery = recovery
        self.wrote = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.save_now)
        controller.changed.connect(self.timer.start)
        controller.dirtyChanged.connect(self._dirty_changed)

    def _dirty_changed(self, dirty):
        if not dirty:
            self.timer.stop()
            self.clear()

    def clear(self):
        """Remove the recovery file this autosaver wrote (nothing else)."""
        if self.wrote:
            self.recovery.discard()
            self.wrote = False

    def save_now(self):
        if self.controller.dirty:
            try:
                self.recovery.write(self.controller.doc, self.controller.path)
                self.wrote = True
            except OSError as e:
                self.controller.message.emit(f"Autosave failed: {e.strerror or e}")
        else:
            self.clear()
