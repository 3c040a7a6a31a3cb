"""The wheel scrolls a dock: a value widget in it turns only once clicked or tabbed to.

An auditor scrolling the Hessian's dock over its ε spin box, never clicked, moved ε from
0.001 to 0 with one notch (and the Newton step from |step| 1.873 to 2.026)."""
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox, QDockWidget

from gradviz.app.wheel_guard import turns_with_the_wheel
from gradviz.app.window.main_window import SAMPLES_DIR, STUDY_TITLES


@pytest.fixture
def window(open_window):
    return open_window(SAMPLES_DIR / "001_hessian_newton.json", size=(1440, 900))


def _notch(widget):
    """One wheel notch down over the middle of `widget`, as the pointer sends it."""
    middle = QPointF(widget.rect().center())
    event = QWheelEvent(middle, QPointF(widget.mapToGlobal(middle.toPoint())), QPoint(0, 0),
                        QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def _value(widget):
    return widget.currentIndex() if isinstance(widget, QComboBox) else widget.value()


def _dock_widgets(qtbot, w):
    """Every study dock, the Train dock and the inspector open with their views made; the
    value widgets shown in them."""
    for title in STUDY_TITLES:
        dock = w.study_docks[title]
        dock.toggleViewAction().trigger()
        qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    train = w.findChild(QDockWidget, "trainDock")
    train.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: train.panel is not None)
    w.canvas.node_items["layer1"].setSelected(True)     # the inspector shows its fields
    qtbot.wait(100)
    found = {}
    for dock in w.findChildren(QDockWidget):
        for widget in dock.findChildren(object):
            if turns_with_the_wheel(widget) and widget.isVisibleTo(dock):
                found[widget] = dock.objectName()
    return found


def test_a_value_widget_in_a_dock_ignores_the_wheel_until_focused(qtbot, window):
    w = window
    widgets = _dock_widgets(qtbot, w)
    hessian = w.study_docks["Hessian"].view
    assert hessian.eps_box in widgets
    docks = set(widgets.values())
    assert {"trainDock", "studyHessianDock"} <= docks and len(docks) >= 4, docks
    w.canvas.setFocus()
    turned = []
    for widget, dock in widgets.items():
        assert widget.focusPolicy() == Qt.FocusPolicy.StrongFocus, (dock, widget)
        before = _value(widget)
        _notch(widget)
        if _value(widget) != before:
            turned.append((dock, type(widget).__name__, before, _value(widget)))
    assert not turned, turned
    assert hessian.eps_box.value() == pytest.approx(1e-3)


def test_a_focused_spin_box_still_turns_with_the_wheel(qtbot, window):
    w = window
    _dock_widgets(qtbot, w)
    box = w.study_docks["Hessian"].view.eps_box
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    _notch(box)
    assert box.value() == pytest.approx(0.0)     # one step of 0.001 down
