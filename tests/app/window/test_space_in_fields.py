"""Space, and every key the hints name, with press and release, wherever the focus is.

The window's hint says 'press Space to play, → to step'; presentation's 'Space / → next,
← back, Esc leave'. A text field, spin box or grid the user types into takes the key
(Space types a space, the arrows move the cursor) on its press and on its release, and the
story neither steps nor plays; on the canvas the keys do what the hints say, press and
release together doing it once. An auditor saw Space start the story from a text field
(issue 20 §3)."""
import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

import app_ui

Key = Qt.Key
HINTED = [Key.Key_Space, Key.Key_Right, Key.Key_Left, Key.Key_Home, Key.Key_End]


def press_and_release(qtbot, key):
    widget = QApplication.focusWidget()
    qtbot.keyPress(widget, key)
    qtbot.keyRelease(widget, key)
    qtbot.wait(30)


def label_field(qtbot, w):
    app_ui.click_card(qtbot, w.canvas, "tf_b")
    return w.inspector.page.label.edit


def lesson_field(qtbot, w):
    w.controller.set_selection([])
    qtbot.waitUntil(lambda: hasattr(w.inspector.page, "lesson"))
    return w.inspector.page.lesson


def palette_search(qtbot, w):
    return w.palette.search


def grid_cell(qtbot, w):
    """The line edit the value grid opens on a cell."""
    app_ui.click_card(qtbot, w.canvas, "tf_b")
    grid = w.inspector.page.value_editor.view
    grid.setCurrentIndex(grid.model().index(0, 0))
    grid.setFocus()
    grid.edit(grid.currentIndex())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not grid
                    and QApplication.focusWidget() is not None)
    return QApplication.focusWidget()


FIELDS = {"label": label_field, "lesson": lesson_field, "palette search": palette_search,
          "grid cell": grid_cell}


def text_of(field):
    return field.toPlainText() if hasattr(field, "toPlainText") else field.text()


@pytest.mark.parametrize("which", list(FIELDS))
def test_hinted_keys_in_a_text_field_type_and_never_move_the_story(open_window, qtbot, which):
    w = open_window()
    field = FIELDS[which](qtbot, w)
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    before = text_of(field)
    for key in HINTED:
        press_and_release(qtbot, key)
        assert QApplication.focusWidget() is field, (which, key)
        assert w.player.index == -1 and not w.player.is_playing, (which, key)
    assert text_of(field).count(" ") == before.count(" ") + 1, (which, text_of(field))


@pytest.mark.parametrize("which", list(FIELDS))
def test_a_field_in_view_but_not_focused_leaves_the_keys_to_the_hints(open_window, qtbot, which):
    """The field shown, the focus on the canvas: Space plays (and again pauses), → steps once."""
    w = open_window()
    field = FIELDS[which](qtbot, w)
    before = (text_of(field), w.controller.doc.nodes["tf_b"].value.copy(), w.controller.doc.lesson)
    w.canvas.setFocus()           # the grid's cell editor closes, its cell unchanged
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.canvas)
    press_and_release(qtbot, Key.Key_Space)
    assert w.player.is_playing
    press_and_release(qtbot, Key.Key_Space)
    assert not w.player.is_playing
    start = w.player.index
    press_and_release(qtbot, Key.Key_Right)
    assert w.player.index == start + 1 and not w.player.is_playing
    if shiboken6.isValid(field):
        assert text_of(field) == before[0]
    assert (w.controller.doc.nodes["tf_b"].value == before[1]).all()
    assert w.controller.doc.lesson == before[2]


@pytest.mark.parametrize("which", list(FIELDS))
def test_presentation_entered_from_a_field_steps_by_the_hint(open_window, qtbot, which):
    """F5 while typing in a field: Space / → next, ← back, each once on press and release,
    nothing typed into the field, no autoplay; Esc leaves."""
    w = open_window()
    field = FIELDS[which](qtbot, w)
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    before = text_of(field) if which != "grid cell" else None
    w.presentation.enter()
    w.presentation.go(0)
    for key, step in ((Key.Key_Space, 1), (Key.Key_Right, 1), (Key.Key_Left, -1)):
        start = w.player.index
        press_and_release(qtbot, key)
        assert w.player.index == start + step and not w.player.is_playing, (which, key)
    press_and_release(qtbot, Key.Key_Escape)
    assert not w.presentation.active and not w.player.is_playing
    if before is not None:
        assert text_of(field) == before
