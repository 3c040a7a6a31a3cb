"""Where a file dialog starts and the name it offers. The folder each kind of dialog last
used (open, save, export, import) is kept in the settings, so the next dialog of that kind
starts there: a teacher exporting slides goes back to the slides' folder, not to where the
lesson files are. The name is the saved document's own (mlp.gradviz.json exports as
mlp.png), else one made from its title."""
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


def file_stem(title):
    """A file name from a document's title."""
    stem = "".join(ch if ch.isalnum() or ch in "-_ " else "" for ch in title or "untitled")
    return "_".join(stem.split())[:60].lower() or "untitled"


def document_stem(controller):
    """The name files made from the document start with: its file's name without the
    extension once saved (what the teacher chose), else one from its title."""
    if controller.path:
        name = os.path.basename(str(controller.path))
        for suffix in (".gradviz.json", ".json"):
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                return name[:-len(suffix)]
        return os.path.splitext(name)[0] or file_stem(controller.doc.title)
    return file_stem(controller.doc.title)
