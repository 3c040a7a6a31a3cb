"""The folder each kind of file dialog last used (open, save, export, import), kept in
the settings, so the next dialog of that kind starts there: a teacher exporting slides
goes back to the slides' folder, not to where the lesson files are."""
import os

from PySide6.QtCore import QSettings

KINDS = ("open", "save", "export", "import")


def _settings(owner):
    """The window's settings (tests give it a temporary one), else the application's."""
    settings = getattr(owner, "settings", None)
    return settings if isinstance(settings, QSettings) else QSettings()


def start_folder(owner, kind, fallback):
    """Where a `kind` dialog of `owner` (a window) starts: the folder that kind last used,
    while it still exists, else `fallback`."""
    folder = _settings(owner).value(f"folders/{kind}", "")
    return folder if isinstance(folder, str) and folder and os.path.isdir(folder) else fallback


def remember_folder(owner, kind, path):
    """Note the folder of `path` (a file, or a folder the dialog writes into: its parent)
    as where the next `kind` dialog starts."""
    assert kind in KINDS, kind
    if path:
        _settings(owner).setValue(f"folders/{kind}", os.path.dirname(os.path.abspath(str(path))))
