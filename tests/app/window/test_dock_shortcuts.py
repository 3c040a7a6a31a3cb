"""A dock's shortcut and menu entry show it and bring it to the front (issue 20 §5): a study
open behind another tab came forward on Ctrl+Alt+N in the walk-through no more; Qt's
toggleViewAction closed it instead (the Jacobian and Gradient check tabs vanished). A second
press closes the dock only when it is in front, where the user sees what the press closes
(as unticking a ticked menu entry, or the Code button, does)."""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gradviz.app.dock_room import in_front
from gradviz.app.window.main_window import STUDY_TITLES


def _press(qtbot, w, sequence):
    """The key as the user types it into the window (Qt's shortcut map)."""
    key, mods = sequence
    QTest.keyClick(w, key, mods)
    qtbot.wait(30)


def _study_key(i):
    return Qt.Key(Qt.Key.Key_0 + i), Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier


def test_a_study_shortcut_brings_its_study_forward_and_closes_only_what_is_in_front(qtbot, open_window):
    w = open_window("samples/001_hessian_newton.json")
    docks = [w.study_docks[t] for t in STUDY_TITLES]
    jacobian, check = docks[0], docks[5]
    _press(qtbot, w, _study_key(1))
    qtbot.waitUntil(lambda: in_front(jacobian))
    _press(qtbot, w, _study_key(6))
    qtbot.waitUntil(lambda: in_front(check))
    assert not in_front(jacobian)
    assert jacobian.toggleViewAction().isChecked()          # behind the Gradient check tab
    _press(qtbot, w, _study_key(1))                         # behind: it comes forward
    qtbot.waitUntil(lambda: in_front(jacobian))
    assert check.toggleViewAction().isChecked() and jacobian.toggleViewAction().isChecked()
    _press(qtbot, w, _study_key(6))
    qtbot.waitUntil(lambda: in_front(check))
    assert jacobian.toggleViewAction().isChecked()
    _press(qtbot, w, _study_key(6))                         # in front: a second press closes it
    qtbot.waitUntil(lambda: not check.toggleViewAction().isChecked())
    assert jacobian.toggleViewAction().isChecked()
    qtbot.waitUntil(lambda: in_front(jacobian))
    # The menu entries do as the keys do, and tick what is open.
    entries = {a.text(): a for a in w.studies_menu.actions()}
    assert set(entries) == set(STUDY_TITLES)
    entries["Gradient check"].trigger()
    qtbot.waitUntil(lambda: in_front(check))
    assert entries["Gradient check"].isChecked() and entries["Jacobian"].isChecked()
    entries["Jacobian"].trigger()
    qtbot.waitUntil(lambda: in_front(jacobian))
    assert entries["Jacobian"].isChecked() and check.toggleViewAction().isChecked()
    entries["Jacobian"].trigger()
    qtbot.waitUntil(lambda: not jacobian.toggleViewAction().isChecked())
    assert not entries["Jacobian"].isChecked() and entries["Gradient check"].isChecked()


def test_train_and_code_come_forward_from_behind_their_tabs(qtbot, open_window):
    """The same for the other tabbed docks: Train behind a study, Code behind the inspector.
    At 1920 x 1080, where a study opens along the bottom as a tab beside Train (at 1280 x 800
    it goes beside the palette, dock_room.STORY_HEIGHT, and Train has no tab in front of it)."""
    w = open_window("samples/train_2_valley.json", size=(1920, 1080))
    _press(qtbot, w, (Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
    qtbot.waitUntil(lambda: in_front(w.train_dock))
    _press(qtbot, w, _study_key(1))
    qtbot.waitUntil(lambda: in_front(w.study_docks["Jacobian"]))
    assert w.study_docks["Jacobian"] in w.tabifiedDockWidgets(w.train_dock)   # Train behind it
    _press(qtbot, w, (Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
    qtbot.waitUntil(lambda: in_front(w.train_dock))
    assert w.study_docks["Jacobian"].toggleViewAction().isChecked()
    w.actions_by_name["code"].trigger()
    qtbot.waitUntil(lambda: in_front(w.code_dock))
    w.inspector_dock.raise_()
    qtbot.waitUntil(lambda: not in_front(w.code_dock))
    w.actions_by_name["code"].trigger()                     # behind the inspector: forward
    qtbot.waitUntil(lambda: in_front(w.code_dock))
    assert w.actions_by_name["code"].isChecked()
    w.actions_by_name["code"].trigger()                     # in front: closed
    qtbot.waitUntil(lambda: not w.code_dock.isVisible())
    assert not w.actions_by_name["code"].isChecked()
