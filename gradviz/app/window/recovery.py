"""Recent files, autosave to a recovery file, and recovery after a crash.

Each window has its own recovery file in the app data folder (or
`$GRADVIZ_RECOVERY_DIR`), named after the process that owns it: its pid and the time
the system started it (a pid alone is reused by a later process). The file is written
atomically, off the UI thread, at most AUTOSAVE_MS after the first unsaved change
however the editing goes on, and removed when the changes are saved or undone or the
window closes normally.

A recovery file whose owner is no longer running is a leftover of a crash: the next
start offers it, after claiming it (renaming it to its own name, so two starting
instances never both offer it, and a crash during the question leaves it for the next
start). A file whose owner still runs is another instance's live work: never offered,
never removed. A leftover that cannot be restored is kept under a name no start ever
offers or removes (`kept-…`), and the user is told where.
"""
import copy
import itertools
import json
import os
import re
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer, Signal

from ...graph import fileformat
from ...graph.atomic import write_bytes
from ...graph.document import Document
from ...graph.errors import DocumentError
from ..folders import file_stem
from ..snapshots import snapshot

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


# -- owners ------------------------------------------------------------------------------
def start_time(pid):
    """When process `pid` started, as the system counts it (clock ticks since boot, from
    /proc), "0" where the system does not say; None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rpartition(")")[2].split()
        return fields[19]   # field 22 of stat(5): starttime
    except FileNotFoundError:
        return None
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass
    return "0"


def owner_running(pid, start):
    """Is the process that wrote a recovery file still running? The same pid with another
    start time is a later process that was given the pid again."""
    now = start_time(pid)
    return now is not None and (now == start or "0" in (now, start))


OWNER = f"{os.getpid()}-{start_time(os.getpid())}"
_NAMES = itertools.count(1)   # this process's windows
# recovery-<pid>-<start>-<window>.gradviz.json; the names of gradviz before 0.2
# (recovery.gradviz.json, recovery-2.gradviz.json) have no owner: always leftovers.
NAME = re.compile(r"recovery(?:-(?P<pid>[0-9]+)-(?P<start>[0-9]+))?(?:-[0-9a-z]+)?\.gradviz\.json")


class Recovery:
    """One window's recovery file (and its -info.json: which file it was an edit of)."""

    SUFFIX = ".gradviz.json"

    def __init__(self, settings=None, directory=None, name=None):
        self.settings = settings or QSettings()
        self.dir = Path(directory) if directory else recovery_dir()
        self.path = self.dir / (name or f"recovery-{OWNER}-{next(_NAMES)}{self.SUFFIX}")
        self.info_path = self.dir / (self.path.name[:-len(self.SUFFIX)] + "-info.json")

    def sibling(self):
        """The recovery file of another window of this process."""
        return Recovery(self.settings, self.dir)

    def owned(self):
        """True while the process that wrote this file runs (this one included)."""
        match = NAME.fullmatch(self.path.name)
        return bool(match and match["pid"]) and owner_running(int(match["pid"]), match["start"])

    def leftovers(self):
        """The recovery files whose owner no longer runs, oldest first."""
        if not self.dir.is_dir():
            return []
        found = [Recovery(self.settings, self.dir, p.name) for p in self.dir.iterdir()
                 if NAME.fullmatch(p.name)]
        found = [r for r in found if not r.owned()]
        return sorted(found, key=lambda r: _mtime(r.path))

    def claim(self):
        """This leftover renamed to a file of this process (so no other starting instance
        offers it too); the claimed Recovery, or None when another instance was first."""
        mine = Recovery(self.settings, self.dir)
        try:
            os.rename(self.path, mine.path)
        except FileNotFoundError:
            return None
        try:
            os.rename(self.info_path, mine.info_path)
        except FileNotFoundError:
            pass
        return mine

    def keep(self):
        """Move this file where no start offers or removes it; returns the new path."""
        title = file_stem(self.info().get("title"))
        kept = self.dir / f"kept-{time.strftime('%Y%m%d-%H%M%S')}-{title}{self.SUFFIX}"
        n = 2
        while kept.exists():
            kept = kept.with_name(kept.name.replace(self.SUFFIX, f"-{n}{self.SUFFIX}"))
            n += 1
        os.rename(self.path, kept)
        try:
            os.rename(self.info_path, kept.with_name(kept.name[:-len(self.SUFFIX)] + "-info.json"))
        except FileNotFoundError:
            pass
        return kept

    def take_over(self, other):
        """Make `other`'s file this window's recovery file (a restored leftover becomes
        the recovery of the window that shows it: nothing to write, nothing lost)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        os.replace(other.path, self.path)
        try:
            os.replace(other.info_path, self.info_path)
        except FileNotFoundError:
            pass

    # -- the file ----------------------------------------------------------------------
    def write(self, doc, original_path=None, view=None):
        self.dir.mkdir(parents=True, exist_ok=True)
        fileformat.save(doc, str(self.path))
        info = {"path": str(original_path) if original_path else None, "title": doc.title,
                "owner": OWNER, "view": view}
        write_bytes(self.info_path, json.dumps(info))

    def info(self):
        try:
            info = json.loads(self.info_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"path": None, "title": None}
        return info if isinstance(info, dict) else {"path": None, "title": None}

    def load(self):
        """(recovered Document, the path of the file it was an edit of, or None)."""
        doc = fileformat.load(str(self.path), strict=False)
        path = self.info().get("path")
        return doc, path if isinstance(path, str) and os.path.exists(path) else None

    def discard(self):
        for p in (self.path, self.info_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    def restore_into(self, controller):
        """Open the original file (if any) and apply the recovered document as one undoable
        edit on top of it, so the window shows unsaved changes and Undo shows what changed.
        Raises (DocumentError, OSError) before changing the window when it cannot. Returns
        why the original file could not be opened (the recovery holds the whole document,
        so it is restored without it, as a new document), else None."""
        doc, path = self.load()
        why = None
        if path:
            try:
                controller.open(path)
            except (DocumentError, OSError) as e:
                why = f"{path} could not be opened ({e}); the changes open as a new document"
                path = None
        if not path:
            controller.set_document(Document(title=doc.title))
        recovered = copy.deepcopy(doc)
        controller.edit("Restore recovered changes",
                        lambda d: d.__dict__.update(copy.deepcopy(recovered.__dict__)))
        return why


def _mtime(path):
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class Autosaver(QObject):
    """Writes the recovery file while the document has unsaved changes, at most
    `interval_ms` after the first of them (an edit does not push the deadline back), and
    removes it when they are saved or undone.

    The document is snapshotted on the UI thread (containers copied, tensors shared,
    read-only: no values copied) and written on a thread of its own, in pieces, so a
    document of millions of values neither freezes the window nor doubles its memory."""

    written = Signal()   # from the writing thread: a write has ended

    def __init__(self, controller, recovery, interval_ms=AUTOSAVE_MS, parent=None):
        super().__init__(parent or controller)
        self.controller = controller
        self.recovery = recovery
        self.wrote = False
        self.view = None            # what the canvas shows, kept beside the document (a callable)
        self.again = False          # an autosave fell due while one was being written
        self._thread = None
        self._error = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.save_now)
        controller.changed.connect(self._changed)
        controller.dirtyChanged.connect(self._dirty_changed)
        self.written.connect(self._finish)

    def take_over(self, leftover):
        """A restored leftover's file becomes this window's recovery file."""
        self.wait()
        self.recovery.take_over(leftover)
        self.wrote = True

    def _changed(self):
        if not self.timer.isActive():
            self.timer.start()

    def _dirty_changed(self, dirty):
        if not dirty:
            self.timer.stop()
            self.clear()

    def clear(self):
        """Remove the recovery file this autosaver wrote (nothing else)."""
        self.wait()
        self.again = False
        if self.wrote:
            self.recovery.discard()
            self.wrote = False

    def save_now(self):
        """Start writing the recovery file of the document as it is now."""
        if not self.controller.dirty:
            self.clear()
            return
        if self.busy():
            self.again = True
            return
        doc, path = snapshot(self.controller.doc), self.controller.path
        view = self.view() if self.view is not None else None
        self._error = None
        self._thread = threading.Thread(target=self._write, args=(doc, path, view),
                                        name="gradviz-autosave", daemon=True)
        self._thread.start()

    def busy(self):
        return self._thread is not None and self._thread.is_alive()

    def wait(self):
        """Block until a write in progress has ended (before a save, a close, a test)."""
        if self._thread is not None:
            self._thread.join()
            self._finish()

    def _write(self, doc, path, view):   # on the writing thread
        try:
            self.recovery.write(doc, path, view)
        except OSError as e:
            self._error = e
        finally:
            self.written.emit()

    def _finish(self):
        if self._thread is None or self._thread.is_alive():
            return
        self._thread = None
        if self._error is not None:
            e, self._error = self._error, None
            self.controller.message.emit(f"Autosave failed: {e.strerror or e}")
        else:
            self.wrote = True
        if self.again:
            self.again = False
            self.save_now()
