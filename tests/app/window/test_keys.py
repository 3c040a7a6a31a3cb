"""Keys go where the keyboard focus is, in the real main window, driven by key events.

Window-wide shortcuts (the player's Space / arrows / Home / End, the canvas' Delete,
Ctrl+C / V / D and Tab) must not take keys typed into the inspector's fields, the tensor
grid or the palette; on the canvas they work as before.
"""
import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox

import app_ui
from app_ui import type_keys
from gradviz.app.inspector.tensor_grid import TensorGrid
from gradviz.graph import Port

Key, Mod = Qt.Key, Qt.KeyboardModifier
B = np.array([[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
              [1.4204658, 1.2609464, -0.43640924]], np.float32)


@pytest.fixture
def window(open_window):
    return open_window()


def click_card(qtbot, w, nid):
    app_ui.click_card(qtbot, w.canvas, nid)


def grid_of(qtbot, w, nid, row=0, col=0):
    """Select `nid` on the canvas and click cell (row, col) of its value grid."""
    click_card(qtbot, w, nid)
    assert w.controller.selection == [nid]
    grid = w.inspector.page.value_editor.view
    rect = grid.visualRect(grid.model().index(row, col))
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert QApplication.focusWidget() is grid
    return grid


def cursor(grid):
    return grid.currentIndex().row(), grid.currentIndex().column()


def test_delete_in_the_grid_sets_cells_to_zero_and_keeps_the_node(qtbot, window):
    w, c = window, window.controller
    grid = grid_of(qtbot, w, "tf_b", 1, 1)
    qtbot.keyClick(grid, Key.Key_Right, Mod.ShiftModifier)
    qtbot.keyClick(grid, Key.Key_Delete)
    assert "tf_b" in c.doc.nodes and c.selection == ["tf_b"]
    expected = B.copy()
    expected[1, 1:] = 0
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, expected)
    assert c.undo_stack.undoText() == "Edit tf_b values"
    assert QApplication.focusWidget() is w.inspector.page.value_editor.view


def test_ctrl_c_copies_cells_and_ctrl_v_pastes_csv(qtbot, window):
    w, c = window, window.controller
    grid = grid_of(qtbot, w, "tf_b", 0, 0)
    qtbot.keyClick(grid, Key.Key_Right, Mod.ShiftModifier)
    qtbot.keyClick(grid, Key.Key_Down, Mod.ShiftModifier)
    qtbot.keyClick(grid, Key.Key_C, Mod.ControlModifier)
    text = QApplication.clipboard().text()
    assert text == "0.43842274\t-0.53439844\n1.5658046\t-0.1012345"  # the cells, not node JSON
    before = c.undo_stack.count()
    QApplication.clipboard().setText("7, 8\n9, 10")
    qtbot.keyClick(grid, Key.Key_Left)          # one cell, (1, 0): the block fills from here
    qtbot.keyClick(grid, Key.Key_V, Mod.ControlModifier)
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value[1:, :2], [[7, 8], [9, 10]])
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value[0], B[0])
    assert c.undo_stack.count() == before + 1
    QApplication.clipboard().setText("5")       # one value fills the selection
    qtbot.keyClick(grid, Key.Key_A, Mod.ControlModifier)
    qtbot.keyClick(grid, Key.Key_V, Mod.ControlModifier)
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, np.full((3, 3), 5))
    c.undo_stack.undo()
    c.undo_stack.undo()
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, B)


def test_pasting_another_shape_asks_first(qtbot, window, app_env):
    w, c = window, window.controller
    grid = grid_of(qtbot, w, "tf_b", 0, 0)
    w.inspector.confirm = lambda text: app_env.asked.append(text) or False
    QApplication.clipboard().setText("1, 2, 3\n4, 5, 6")
    qtbot.keyClick(grid, Key.Key_A, Mod.ControlModifier)   # a 3x3 selection, a 2x3 paste
    qtbot.keyClick(grid, Key.Key_V, Mod.ControlModifier)
    assert "2×3" in app_env.asked[-1] and "3×3" in app_env.asked[-1]
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, B)
    w.inspector.page.value_editor.paste_button.click()      # the Paste button asks too
    assert len(app_env.asked) == 2
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, B)
    assert c.result.ok
    w.inspector.confirm = lambda text: True
    w.inspector.page.value_editor.paste_button.click()
    assert c.doc.nodes["tf_b"].value.shape == (2, 3)


def test_typing_one_cell_after_another(qtbot, window):
    w, c = window, window.controller
    grid = grid_of(qtbot, w, "tf_b", 0, 0)
    before = c.undo_stack.count()
    type_keys(qtbot, ["1", Key.Key_Tab, "2", Key.Key_Tab, "3", Key.Key_Return,
                      "4", Key.Key_Tab, "-5.5", Key.Key_Return])
    value = c.doc.nodes["tf_b"].value
    np.testing.assert_array_equal(value[0], [1, 2, 3])
    np.testing.assert_array_equal(value[1, :2], [4, -5.5])
    assert value[1, 2] == B[1, 2]
    assert cursor(grid) == (2, 0)     # Enter goes down to the column the Tabs started in
    assert QApplication.focusWidget() is grid
    assert c.undo_stack.count() == before + 5
    np.testing.assert_allclose(c.result.evaluation.gradients[Port("tf_t")],
                               np.tile(value.sum(axis=1), (5, 1)), rtol=1e-6)


def test_tab_moves_focus_in_fields_and_opens_quick_add_only_on_the_canvas(qtbot, window):
    w = window
    click_card(qtbot, w, "tf_b")
    label = w.inspector.page.label.edit
    label.setFocus()
    qtbot.keyClick(label, Key.Key_Tab)
    assert not (w.canvas._quick and w.canvas._quick.isVisible())
    assert QApplication.focusWidget() is not label and isinstance(QApplication.focusWidget(),
                                                                     QCheckBox)
    w.palette.search.setFocus()
    qtbot.keyClicks(w.palette.search, "relu")
    qtbot.keyClick(w.palette.search, Key.Key_Tab)
    assert not (w.canvas._quick and w.canvas._quick.isVisible())
    assert w.palette.search.text() == "relu"
    grid = grid_of(qtbot, w, "tf_b", 0, 0)
    qtbot.keyClick(grid, Key.Key_Tab)
    assert cursor(grid) == (0, 1) and not (w.canvas._quick and w.canvas._quick.isVisible())
    w.canvas.setFocus()
    qtbot.keyClick(w.canvas, Key.Key_Tab)
    assert w.canvas._quick.isVisible()
    qtbot.keyClicks(w.canvas._quick.edit, "reduce_sum")
    qtbot.keyClick(w.canvas._quick.edit, Key.Key_Return)
    assert any(n.op == "reduce_sum" for n in w.controller.doc.nodes.values())


def test_player_keys_do_not_fire_while_typing(qtbot, window):
    w, p = window, window.player
    grid = grid_of(qtbot, w, "tf_b", 0, 0)
    qtbot.keyClick(grid, Key.Key_Right)
    qtbot.keyClick(grid, Key.Key_End)
    assert cursor(grid) == (0, 2) and p.index == -1
    qtbot.keyClick(grid, Key.Key_Home)
    assert cursor(grid) == (0, 0) and p.index == -1
    qtbot.keyClick(grid, Key.Key_Down)
    assert cursor(grid) == (1, 0) and p.index == -1
    label = w.inspector.page.label.edit
    label.setFocus()
    label.clear()     # it holds the node's name, tf_b (issue 20 §4): the keys type into an empty line
    type_keys(qtbot, ["ab", Key.Key_Home, Key.Key_Space, Key.Key_Right, Key.Key_End, Key.Key_Left])
    assert label.text() == " ab" and label.cursorPosition() == 2
    assert p.index == -1 and not p.is_playing
    box = w.inspector.page.trainable
    box.setFocus()
    checked = box.isChecked()
    qtbot.keyClick(box, Key.Key_Space)
    assert box.isChecked() != checked and not p.is_playing
    w.canvas.setFocus()                        # on the canvas the player keys still work
    qtbot.keyClick(w.canvas, Key.Key_Right)
    assert p.index == 0
    qtbot.keyClick(w.canvas, Key.Key_End)
    assert p.index == len(w.controller.result.story.steps) - 1


def test_canvas_edit_shortcuts_need_the_canvas(qtbot, window):
    w, c = window, window.controller
    click_card(qtbot, w, "y_tf")
    box = w.inspector.page.role_boxes[("targets", 0)]
    box.setFocus()
    for key, mods in ((Key.Key_Delete, Mod.NoModifier), (Key.Key_D, Mod.ControlModifier),
                      (Key.Key_X, Mod.ControlModifier)):
        qtbot.keyClick(box, key, mods)
    assert set(c.doc.nodes) == {"tf_t", "tf_b", "y_tf"}
    w.canvas.setFocus()
    qtbot.keyClick(w.canvas, Key.Key_D, Mod.ControlModifier)
    assert len(c.doc.nodes) == 4
    copy = c.selection[0]
    qtbot.keyClick(w.canvas, Key.Key_Delete)
    assert copy not in c.doc.nodes and len(c.doc.nodes) == 3
    click_card(qtbot, w, "y_tf")
    qtbot.keyClick(w.canvas, Key.Key_C, Mod.ControlModifier)
    assert json.loads(QApplication.clipboard().text())["nodes"][0]["id"] == "y_tf"


def test_edit_menu_acts_on_the_focused_field(qtbot, window):
    w, c = window, window.controller
    a = w.actions_by_name
    grid = grid_of(qtbot, w, "tf_b", 2, 2)
    a["copy"].trigger()
    assert QApplication.clipboard().text() == "-0.43640924"
    QApplication.clipboard().setText("3")
    a["paste"].trigger()
    assert c.doc.nodes["tf_b"].value[2, 2] == 3
    a["delete"].trigger()
    assert c.doc.nodes["tf_b"].value[2, 2] == 0 and "tf_b" in c.doc.nodes
    assert not a["cut"].isEnabled() and a["copy"].isEnabled() and a["paste"].isEnabled()
    w.canvas.setFocus()
    a["copy"].trigger()
    assert "tf_b" in QApplication.clipboard().text() and "nodes" in QApplication.clipboard().text()
    assert QApplication.focusWidget() is not grid


def test_delete_is_disabled_without_a_selection(qtbot, window):
    w, c = window, window.controller
    w.canvas.setFocus()
    c.set_selection([])
    a = w.actions_by_name
    assert not a["delete"].isEnabled() and not a["copy"].isEnabled()
    assert not a["cut"].isEnabled() and not a["duplicate"].isEnabled()
    click_card(qtbot, w, "tf_t")
    assert a["delete"].isEnabled() and a["copy"].isEnabled() and a["duplicate"].isEnabled()


def test_blank_cell_editor_changes_nothing(qtbot, window):
    w, c = window, window.controller
    grid = grid_of(qtbot, w, "tf_b", 0, 0)
    before = c.undo_stack.count()
    type_keys(qtbot, [" ", Key.Key_Backspace, Key.Key_Return])
    assert c.undo_stack.count() == before
    assert w.inspector.page.value_editor.message_text() == ""
    assert isinstance(QApplication.focusWidget(), TensorGrid) and cursor(grid) == (1, 0)


def close_the_dialog():
    """As a user does: only a dialog that is shown and active can be closed. Closed before
    its activation arrives (a loaded machine runs this timer first), the activation lands
    on a hidden window and no window has the focus at all, which no person can bring about
    (they close what they see, once it has the keys)."""
    from PySide6.QtCore import QTimer
    dialog = QApplication.activeModalWidget()
    if dialog is None or not dialog.isVisible() or QApplication.activeWindow() is not dialog:
        QTimer.singleShot(50, close_the_dialog)
    else:
        dialog.reject()


@pytest.mark.parametrize("which", ["export_step", "message"])
def test_arrow_keys_step_after_a_dialog_closes(open_window, qtbot, which):
    """No click on the canvas needed after a dialog (issue 20 §3)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox
    from gradviz.app import export_dialog
    from gradviz.app.window.main_window import SAMPLES_DIR
    w = open_window(SAMPLES_DIR / "004_matmul_sum.json")
    w.player.set_index(0)
    w.canvas.setFocus()
    QTimer.singleShot(100, close_the_dialog)
    if which == "export_step":
        export_dialog.export_step_dialog(w)
    else:
        QMessageBox(QMessageBox.Icon.Information, "gradviz", "note", parent=w).exec()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert QApplication.focusWidget().window() is w
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert w.player.index == 1


def test_arrow_keys_step_after_a_floating_docks_dialog_closes(open_window, qtbot):
    """The Random fill of a floating inspector closed: the focus came back nowhere (the
    dialog's parent is the dock's window, not the main window), so → did not step until a
    click."""
    from PySide6.QtCore import QTimer
    w = open_window()
    w.inspector_dock.setFloating(True)
    click_card(qtbot, w, "tf_b")
    w.player.set_index(0)
    qtbot.waitUntil(lambda: w.inspector.page.value_editor.random_button.isVisible())
    QTimer.singleShot(100, close_the_dialog)
    w.inspector.page.value_editor.random_button.click()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert w.player.index == 1


@pytest.mark.parametrize("active", ["none", "a dialog"])
def test_a_window_shown_while_none_is_active_asks_for_the_keys(open_window, qtbot, monkeypatch, active):
    """Nothing activates a new window on a display without a window manager (Xvfb, a
    kiosk): its shortcuts slept until a click, so → scrolled the canvas, F5 did nothing
    and Space started autoplay (three presses meant for the presentation showed 2/4, issue
    20 §3). Shown while no window of the app is active, the main window asks to be; it
    takes nothing from a window of the app that is (a dialog)."""
    from gradviz.app.window.main_window import MainWindow
    other = None if active == "none" else QCheckBox()
    monkeypatch.setattr(QApplication, "activeWindow", staticmethod(lambda: other))
    asked = []
    monkeypatch.setattr(MainWindow, "activateWindow", lambda self: asked.append(self))
    w = open_window(shown=False)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(20)
    assert asked == ([w] if other is None else [])
