"""The story's keys (→ ← Space Home End, and the window's shortcuts) work in every state a
teacher starts from, with no click on the canvas first (issue 20 §3).

Each state is tried twice: with the window active, the key sent to the focus widget as Qt
delivers it; and with no window active, the key sent to the window as X11 sends it when
the keyboard reaches a window Qt does not count active (no window manager: at launch, and
after the File ▸ Open dialog closes). There Qt matches no shortcut: → scrolled the canvas
and Ctrl+Alt+1 did nothing until a click.
"""
import pytest
from PySide6.QtCore import QVariantAnimation, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from gradviz.app.window.main_window import SAMPLES_DIR

Key, Mod = Qt.Key, Qt.KeyboardModifier
SAMPLE = SAMPLES_DIR / "001_input_gradient_regularization.json"   # the audited one
SMALL = SAMPLES_DIR / "004_matmul_sum.json"   # three nodes: quick steps


def deactivate(qtbot):
    """No window active, as under X11 when the keys come before any focus does."""
    other = QWidget()
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other)
    other.close()
    other.deleteLater()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is None)


@pytest.fixture(params=["active", "inactive"])
def press(request, qtbot):
    """press(window, key, mods): one key click, delivered as in the window's state."""
    def press(w, key, mods=Mod.NoModifier):
        if request.param == "active":
            w.activateWindow()
            qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
            QTest.keyClick(QApplication.focusWidget(), key, mods)
        else:
            deactivate(qtbot)
            QTest.keyClick(w.windowHandle(), key, mods)   # to the focus widget, via the window
    press.state = request.param
    return press


def story_keys(w, press, qtbot):
    """→ ← Home End Space (play, pause) and → again step the story from where it is."""
    p, last = w.player, len(w.player.steps) - 1
    p.set_index(2)
    press(w, Key.Key_Right)
    assert p.index == 3
    press(w, Key.Key_Left)
    assert p.index == 2
    press(w, Key.Key_End)
    assert p.index == last
    press(w, Key.Key_Home)
    assert p.index == 0
    press(w, Key.Key_Space)
    assert p.is_playing
    press(w, Key.Key_Space)
    assert not p.is_playing
    at = p.index
    press(w, Key.Key_Right)           # after Space paused the autoplay
    assert p.index == at + 1


def test_story_keys_from_launch_with_a_file(open_window, qtbot, press):
    w = open_window(SMALL, shown=False)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)   # it asks for the keys itself
    assert QApplication.focusWidget() is w.canvas
    story_keys(w, press, qtbot)
    bars = w.canvas.horizontalScrollBar(), w.canvas.verticalScrollBar()
    w.player.set_index(len(w.player.steps) - 1)
    qtbot.waitUntil(lambda: w.player.animation.state() == QVariantAnimation.State.Stopped)
    qtbot.wait(20)                    # the frame follows the travel's end
    scrolled = [b.value() for b in bars]
    press(w, Key.Key_Right)           # the last step: → does nothing, the view stays framed
    assert [b.value() for b in bars] == scrolled and w.player.index == len(w.player.steps) - 1
    dock = w.study_docks["Jacobian"]
    assert not dock.isVisible()
    press(w, Key.Key_1, Mod.ControlModifier | Mod.AltModifier)   # a menu's shortcut too
    assert dock.isVisible()


def test_story_keys_after_file_open_presentation_and_a_dock_took_focus(open_window, qtbot,
                                                                       press, monkeypatch):
    w = open_window()                 # `gradviz` with no file, then File ▸ Open
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(SMALL), ""))
    w.actions_by_name["open"].trigger()
    assert w.controller.path == str(SMALL)
    p = w.player
    press(w, Key.Key_Right)
    assert p.index == 0
    press(w, Key.Key_Space)
    assert p.is_playing
    press(w, Key.Key_Space)           # pauses the autoplay
    assert not p.is_playing
    p.set_index(0)
    press(w, Key.Key_Right)
    assert p.index == 1
    w.actions_by_name["present"].trigger()
    assert w.presentation.active
    QTest.keyClick(QApplication.focusWidget(), Key.Key_Escape)
    assert not w.presentation.active
    press(w, Key.Key_Left)
    assert p.index == 0
    study = w.study_docks["Jacobian"]
    study.toggleViewAction().trigger()
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None
                    and study.findChild(QWidget, "studyScroll") is not None)
    panel = w.train_dock.panel
    for widget in (study.findChild(QWidget, "studyScroll"), panel.run_button):
        widget.window().activateWindow()
        widget.setFocus()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is widget)
        at = p.index
        press(w, Key.Key_Right)
        assert p.index == at + 1, widget
    box = panel.steps_box             # a spin box keeps its arrows and its typing
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box)
    value, at = box.value(), p.index
    press(w, Key.Key_Up)
    press(w, Key.Key_Right)
    assert box.value() == value + box.singleStep() and p.index == at


def test_story_keys_reach_the_story_from_a_floating_dock(open_window, qtbot):
    """A floating dock is a window of its own: keys sent to it, active or not, step the story
    as in the main window, and a field inside it keeps its own keys."""
    w = open_window(SMALL)
    p = w.player
    dock = w.study_docks["Jacobian"]
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: dock.findChild(QWidget, "studyScroll") is not None)
    dock.setFloating(True)
    dock.show()
    qtbot.waitExposed(dock)
    scroll = dock.findChild(QWidget, "studyScroll")
    for state in ("active", "inactive"):
        dock.activateWindow()
        scroll.setFocus()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is scroll)
        at = p.index
        if state == "active":
            QTest.keyClick(scroll, Key.Key_Right)
        else:
            deactivate(qtbot)
            QTest.keyClick(dock.windowHandle(), Key.Key_Right)
        assert p.index == at + 1, state
