"""Keys typed into a field belong to the field, not to a window-wide shortcut.

The player steps on Space, the arrows, Home and End anywhere in the window, and a few
view commands use plain keys ('F' fits the graph). Without care those shortcuts fire
while the user types into the label field, moves the cell cursor of the tensor grid or
ticks a check box. Before any shortcut, Qt sends the focus widget a ShortcutOverride
event; `FieldKeys`, an event filter that follows the focus widget around the
application, accepts it for the keys such a widget uses itself, so the key press goes
to the widget and no shortcut fires.
Widgets that are not listed here (the canvas, the player bar, buttons in a toolbar)
keep every shortcut.

A widget keeps only the keys it genuinely needs, so the story keys (the arrows, Space,
Home, End) and the view's (F) work wherever focus was left: a field being edited and a spin
box take what they type; read-only text (the lesson, the code) scrolls with Up / Down and
copies; a read-only grid one clicks (the provenance table: `keys_for_story` True) copies; a
closed combo box (the player's speed) takes Up / Down; a check box or button takes Space.
"""
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractSlider,
                               QAbstractSpinBox, QApplication, QComboBox, QLineEdit,
                               QPlainTextEdit, QTextEdit)

Key, Mod = Qt.Key, Qt.KeyboardModifier

NAVIGATION = {Key.Key_Left, Key.Key_Right, Key.Key_Up, Key.Key_Down, Key.Key_Home, Key.Key_End,
              Key.Key_PageUp, Key.Key_PageDown, Key.Key_Space, Key.Key_Tab, Key.Key_Backtab,
              Key.Key_Delete, Key.Key_Backspace, Key.Key_Return, Key.Key_Enter, Key.Key_F2}
CLIPBOARD = {Key.Key_A, Key.Key_C, Key.Key_X, Key.Key_V}
TEXT_CHORDS = CLIPBOARD | {Key.Key_Left, Key.Key_Right, Key.Key_Home, Key.Key_End,
                           Key.Key_Backspace, Key.Key_Delete}
TEXT_WIDGETS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)
SCROLL = {Key.Key_Up, Key.Key_Down, Key.Key_PageUp, Key.Key_PageDown, Key.Key_Tab, Key.Key_Backtab}


def is_text_field(widget):
    """A widget the user types text into (an editable combo box counts)."""
    return isinstance(widget, TEXT_WIDGETS) or (isinstance(widget, QComboBox)
                                                and widget.isEditable())


def owns_key(widget, key, modifiers):
    """True when `widget`, having focus, uses `key` itself (so no shortcut may take it)."""
    mods = modifiers & ~(Mod.KeypadModifier | Mod.ShiftModifier)
    plain = mods == Mod.NoModifier
    ctrl = mods == Mod.ControlModifier
    printable = plain and Key.Key_Space <= key <= Key.Key_AsciiTilde
    if is_text_field(widget):
        if _read_only(widget):     # the lesson's text, the code: they scroll and copy
            return (plain and key in SCROLL) or (ctrl and key in CLIPBOARD)
        return (plain and (printable or key in NAVIGATION)) or (ctrl and key in TEXT_CHORDS)
    if isinstance(widget, QAbstractItemView):  # the tensor grid, the palette, check lists
        if getattr(widget, "keys_for_story", False):   # read-only numbers, chosen by a click
            return ctrl and key in CLIPBOARD
        return (plain and (printable or key in NAVIGATION)) or (ctrl and key in CLIPBOARD)
    if isinstance(widget, QComboBox):          # closed: Up / Down choose; Space is the story's
        return plain and key in SCROLL
    if isinstance(widget, QAbstractSlider):
        return plain and key in NAVIGATION
    if isinstance(widget, QAbstractButton):
        return plain and key == Key.Key_Space
    return False


def _read_only(widget):
    return isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit)) and widget.isReadOnly()


class FieldKeys(QObject):
    """Watches the focus widget only (so it costs nothing for other widgets' events)."""

    def __init__(self, app):
        super().__init__(app)
        self._watched = None
        app.focusChanged.connect(self._focus_changed)

    def _focus_changed(self, old, new):
        if self._watched is not None:
            try:
                self._watched.removeEventFilter(self)
            except RuntimeError:  # already deleted
                pass
        self._watched = new
        if new is not None:
            new.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.ShortcutOverride \
                and owns_key(obj, event.key(), event.modifiers()):
            event.accept()
            return True
        return False


_installed = None


def install(app=None):
    """Start watching the application's focus widget (once); returns the watcher."""
    global _installed
    app = app or QApplication.instance()
    if _installed is None:
        _installed = FieldKeys(app)
        _installed._focus_changed(None, app.focusWidget())
    return _installed
