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
window only when no shortcut wanted it.
"""
from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from .focus_keys import owns_key

CONTEXTS = (Qt.ShortcutContext.WindowShortcut, Qt.ShortcutContext.ApplicationShortcut)


class InactiveKeys(QObject):
    """Installed on the main window's QWindow (`follow` keeps it on the current one)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._handle = None

    def follow(self):
        """Watch the window's QWindow (it exists once the window is shown)."""
        handle = self.window.windowHandle()
        if handle is not None and handle is not self._handle:
            handle.installEventFilter(self)
            self._handle = handle

    def eventFilter(self, obj, event):
        if event.type() != QEvent.Type.KeyPress or QApplication.activeWindow() is self.window:
            return False
        target = obj.focusObject() or self.window
        action = self.action_for(event)
        if action is None or self._wanted_by(target, event):
            return False
        self.window.activateWindow()
        action.trigger()
        return True

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
