"""The desktop app (QtWidgets): editor, canvas, palette, inspector, player and views.

Everything it shows is computed below (graph, story, render); this package only
arranges it and turns user actions into undoable document edits.

`main(argv)` is what `gradviz` and `gradviz FILE` run.
"""
import gc
import os
import sys

from .. import bundled
from ..engine import kernels

ICON = bundled.resource("gradviz.svg")


def create_window(path=None, offer_recovery=True, settings=None):
    """The main window on `path` (or the seed 004 sample), recovery offered; not shown yet."""
    # Qt and the window load when a window opens, not when the CLI imports `main`.
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from .controller import DocumentController
    from .window.main_window import SAMPLES_DIR, SEED_SAMPLE, MainWindow

    kernels.never_wait_here()   # exports take their Python twins while numba loads on a worker
    app = QApplication.instance()
    if ICON.exists():
        app.setWindowIcon(QIcon(str(ICON)))
    controller = DocumentController()
    window = MainWindow(controller, settings=settings)
    opened = False
    if path:
        opened = window.load_path(os.path.abspath(path))
    if not opened and (SAMPLES_DIR / SEED_SAMPLE).exists():
        window.open_sample(SAMPLES_DIR / SEED_SAMPLE, ask=False)
    if offer_recovery:
        window.offer_recovery()
    return window


def collect_less(app):
    """Tune the garbage collector for an interactive app, once the window is built.

    What start-up made (modules, Qt wrappers, compiled kernels) lives as long as the app,
    so it is frozen out of every collection; and a collection waits for 10,000 new objects
    rather than 700, so the many short-lived ones an edit makes mostly die before one runs.
    A value edit of bench_editor's 100-node grid then spends 0.4-0.5 ms in collections
    instead of 3.4-4.2 (mean over 20 edits, two runs each). Every collection runs on the
    GUI thread (collector.py): on a worker it finalized Qt objects and crashed.
    """
    from .collector import collect_on_gui_thread   # QtCore: loaded with the window
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)
    collect_on_gui_thread(app)


def _no_display():
    """On Linux without X or Wayland Qt would abort; say so in words instead."""
    from PySide6.QtWidgets import QApplication  # Qt loads when a window opens
    return (sys.platform.startswith("linux") and QApplication.instance() is None
            and not any(os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")))


def main(argv=None):
    """Open the window on FILE (argv[0]) or the seed sample; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if _no_display():
        print("gradviz: error: there is no display to open the window on (DISPLAY is not set). "
              "Run it on a desktop, under `xvfb-run`, or use the commands that need no window: "
              "`gradviz export FILE -o picture.png`, `gradviz explain FILE`, `gradviz run FILE`.",
              file=sys.stderr)
        return 2
    # Qt loads when a window opens, not when the CLI imports `main`.
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    QCoreApplication.setOrganizationName("gradviz")
    QCoreApplication.setOrganizationDomain("gradviz.org")
    QCoreApplication.setApplicationName("gradviz")
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "gradviz"])
    app.setApplicationDisplayName("gradviz")
    from . import theme  # Qt widgets: loaded with the window
    from PySide6.QtCore import QSettings
    theme.apply(str(QSettings().value("view/theme", "light")), app)
    from . import faults  # Qt widgets: loaded with the window
    faults.install()      # a fault in a slot becomes a dialog in words, not only stderr
    window = create_window(argv[0] if argv else None)
    window.show()
    collect_less(app)
    return app.exec()
