"""A value widget in a dock turns with the wheel only once it has focus.

A dock scrolls with the wheel; a spin box, a combo box or a slider under the pointer took
the notch instead (one notch over the Hessian's ε, never clicked, set it from 0.001 to 0,
and the Newton step with it). Qt's own advice: such a widget takes focus by a click or Tab
only (Qt.StrongFocus, not WheelFocus), and while it has no focus it passes the wheel to its
parent, the dock's scroll area. `guard(dock)` watches the dock's whole tree, widgets added
later too (a study's view is made when its dock first shows; the inspector's fields change
with the selection).
"""
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QComboBox, QScrollBar, QWidget

VALUE_WIDGETS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def turns_with_the_wheel(widget):
    """A widget whose value the wheel changes (a scroll bar scrolls: it keeps the wheel)."""
    return isinstance(widget, VALUE_WIDGETS) and not isinstance(widget, QScrollBar)


class WheelGuard(QObject):
    """Watches one widget tree: sets StrongFocus on its value widgets and passes the wheel
    on past those without focus."""

    def watch(self, widget):
        for w in (widget, *widget.findChildren(QWidget)):
            w.removeEventFilter(self)          # once, however often a tree is met again
            w.installEventFilter(self)
            if turns_with_the_wheel(w):
                w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def eventFilter(self, obj, event):
        kind = event.type()
        if kind == QEvent.Type.ChildPolished:        # made whole, its own focus policy set
            child = event.child()
            if isinstance(child, QWidget):
                self.watch(child)
        elif kind == QEvent.Type.Wheel and turns_with_the_wheel(obj) and not obj.hasFocus():
            event.ignore()                           # Qt hands an ignored wheel to the parent
            return True
        return False


def guard(widget):
    """Value widgets anywhere in `widget` (a dock) take the wheel only once focused."""
    keeper = WheelGuard(widget)
    keeper.watch(widget)
    return keeper
