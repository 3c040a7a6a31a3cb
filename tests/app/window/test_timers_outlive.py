"""A call the window queues for later (QTimer.singleShot) dies with the object it belongs
to: a window deleted before the call runs never raises "Internal C++ object (MainWindow)
already deleted" (the focus given back after a dialog, the inspector's sync asked for
while it syncs)."""
import ast
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

import gradviz

PACKAGE = Path(gradviz.__file__).parent


def delete_now(window):
    """Close a window that deletes itself on close, and let Qt delete it at once (before
    the calls queued for the next turn of the event loop)."""
    window.close()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def another_window(open_window, qtbot):
    other = open_window().new_window()
    qtbot.waitExposed(other)
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other)
    return other


def test_focus_given_back_after_the_window_is_deleted(open_window, qtbot):
    other = another_window(open_window, qtbot)
    other.canvas.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is other.canvas)
    other.canvas.clearFocus()     # the focus left the window: it asks to give it back later
    destroyed = []
    other.destroyed.connect(lambda *_: destroyed.append(True))
    delete_now(other)
    assert destroyed
    qtbot.wait(150)               # the queued call's time, and its retry's


def test_inspector_sync_queued_while_syncing_after_the_window_is_deleted(open_window, qtbot):
    other = another_window(open_window, qtbot)
    inspector = other.inspector
    inspector._syncing = True     # a sync asked for while one runs waits for the next turn
    inspector.sync()
    inspector._syncing = False
    delete_now(other)
    qtbot.wait(20)


def test_every_single_shot_in_gradviz_names_the_object_it_belongs_to():
    """QTimer.singleShot(msec, callable) runs even when the object the callable uses has
    been deleted; QTimer.singleShot(msec, context, callable) is dropped with `context`."""
    without = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "singleShot" and len(node.args) < 3):
                without.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert without == []
