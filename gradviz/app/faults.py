"""A fault of gradviz's own, raised in a Qt slot or timer, is shown in the window in words.

PySide6 hands an exception that escapes a slot (a study refreshing after File ▸ Open, a
layout, a recompute) to `sys.excepthook` and carries on: by default only stderr hears of
it, and a user who started gradviz from a menu sees nothing, or half a window. `install`
routes the hook to a message box that says what failed in words first, keeps the
traceback behind "Show Details…" for a bug report (and still prints it on stderr), and
lets the app keep running. The same fault again only goes to the status bar, so a fault
in something that repeats (a repaint) cannot bury the window under boxes.
"""
import sys
import traceback

from PySide6.QtWidgets import QApplication, QMessageBox

TITLE = "gradviz: something went wrong"
ADVICE = ("gradviz keeps running and your document is kept: you can go on working and "
          "save it. Please report this with the details below and the file you had open.")


def fault_words(error):
    """One line a user can read: what kind of fault and its message, cut to a sane length."""
    message = " ".join(str(error).split())
    message = message if len(message) <= 300 else message[:297] + "..."
    return (f"An internal error stopped what gradviz was doing: {message or 'no message'} "
            f"({type(error).__name__}).")


class FaultReporter:
    """The excepthook: words first, the traceback behind Details, the app still running."""

    def __init__(self, previous=None):
        self.previous = previous or sys.__excepthook__
        self.reported = []      # (words, details) of each fault, in order
        self._seen = set()
        self._box = None

    def __call__(self, kind, error, tb):
        if issubclass(kind, (KeyboardInterrupt, SystemExit)):
            return self.previous(kind, error, tb)
        details = "".join(traceback.format_exception(kind, error, tb))
        sys.stderr.write(details)
        words = fault_words(error)
        self.reported.append((words, details))
        if self._box is not None:              # a fault while one is shown: add it there
            self._box.setDetailedText(self._box.detailedText() + "\n" + details)
            return None
        window = QApplication.activeWindow() or _main_window()
        key = (kind, str(error))
        if key in self._seen:                 # the same fault again: the status bar only
            _status(window, words)
            return None
        self._seen.add(key)
        _status(window, words)
        self._show(window, words, details)
        return None

    def _show(self, window, words, details):
        box = QMessageBox(QMessageBox.Icon.Critical, TITLE, words, QMessageBox.StandardButton.Ok,
                          window)
        box.setInformativeText(ADVICE)
        box.setDetailedText(details)
        self._box = box
        try:
            box.exec()
        finally:
            self._box = None
            box.deleteLater()


def _main_window():
    return next((w for w in QApplication.topLevelWidgets()
                 if hasattr(w, "show_message") and w.isVisible()), None)


def _status(window, words):
    if window is not None and hasattr(window, "show_message"):
        window.show_message(words, 15000)


def install():
    """Route sys.excepthook to a FaultReporter (chained to the hook it replaces); returns it."""
    reporter = FaultReporter(sys.excepthook)
    sys.excepthook = reporter
    return reporter
