"""The window's shortcuts for keys that reach it while Qt counts it inactive.

Qt matches a window's shortcuts (the player's → ← Space Home End, Ctrl+Alt+1 for a study)
only in the window it counts active. The keyboard can reach the window without that: on
X11 with no window manager, keys go to the window under the pointer once the focus has
gone back to the root (as it does when the File ▸ Open dialog closes), and Qt hears of no
focus change; a window manager may leave a new window unfocused too. Such a key went to
the focus widget as a plain key press: → scrolled the canvas instead of stepping the
story, until a click made the window active (asking for activation when the window is
first shown, MainWindow._take_keyboard, covers only the launch).

`InactiveKeys` watches the window's QWindow, which every key press to the window passes
through, and does for such a key what Qt's shortcut map does in an active window: it asks
the focus widget first (a field keeps its arrows, the canvas its Space), then triggers the
one enabled action of the window with that key, and activates the window so the next keys
take Qt's own path. In an active window it does nothing: there a key press reaches the
window only when no shortcut wanted it. A floating dock is a window of its own with the
main window's shortcuts (Qt matches them there when the dock is active), so its QWindow is
watched too.
"""
from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMenu, QWidget

from .focus_keys import owns_key

CONTEXTS = (Qt.ShortcutContext.WindowShortcut, Qt.ShortcutContext.ApplicationShortcut)


class InactiveKeys(QObject):
    """Installed on the QWindows of the main window and of its floating docks (`follow`
    keeps it on the current ones)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._handles = set()

    def follow(self):
        """Watch the QWindow of the window and of each floating dock (each exists once its
        widget is shown as a window), and follow docks as they float."""
        docks = self.window.findChildren(QDockWidget)
        for dock in docks:
            if not dock.property("keysFollowed"):
                dock.setProperty("keysFollowed", True)
                dock.topLevelChanged.connect(self._dock_moved)
        for widget in (self.window, *docks):
            handle = widget.windowHandle() if widget.isWindow() else None
            if handle is not None and handle not in self._handles:
                handle.installEventFilter(self)
                self._handles.add(handle)
                handle.destroyed.connect(lambda _=None, h=handle: self._handles.discard(h))

    def _dock_moved(self, _):
        """A dock floated or docked: its QWindow exists once it is shown, after this turn
        (the timer's context ends the call with the window)."""
        QTimer.singleShot(0, self, self.follow)

    def eventFilter(self, obj, event):
        if event.type() != QEvent.Type.KeyPress or self._ours(QApplication.activeWindow()):
            return False
        target = obj.focusObject() or self.window
        action = self.action_for(event)
        if action is None or self._wanted_by(target, event):
            return False
        (target.window() if isinstance(target, QWidget) else self.window).activateWindow()
        action.trigger()
        return True

    def _ours(self, active):
        """True for the window and its floating docks: Qt's shortcut map serves them."""
        return active is self.window or (isinstance(active, QDockWidget)
                                         and active.parentWidget() is self.window)

    def action_for(self, event):
        """The one enabled action of the window whose shortcut is this key, else None."""
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier   # → on the keypad is →
        pressed = QKeySequence(QKeyCombination(mods, event.keyCombination().key()))
        found = [a for a in self.window.findChildren(QAction)
                 if a.isEnabled() and a.shortcutContext() in CONTEXTS and self._shown(a)
                 and any(seq == pressed for seq in a.shortcuts())]
        return found[0] if len(found) == 1 else None   # two: ambiguous, as Qt leaves it

    def _shown(self, action):
        """As Qt asks: on a visible widget of this window, or in a menu."""
        return any(isinstance(w, QMenu) or (isinstance(w, QWidget) and w.isVisible()
                                            and w.window() is self.window)
                   for w in action.associatedObjects())

    @staticmethod
    def _wanted_by(target, event):
        """True when the focus widget takes the key itself (Qt's ShortcutOverride)."""
        if isinstance(target, QWidget) and owns_key(target, event.key(), event.modifiers()):
            return True
        ask = QKeyEvent(QEvent.Type.ShortcutOverride, event.key(), event.modifiers(), event.text())
        ask.setAccepted(False)
        QApplication.sendEvent(target, ask)
        return ask.isAccepted()
