"""The Code dock opens tall enough to read the script, and the canvas keeps its size.

At 1280 x 800 the Code is a tab above the palette in the right-hand column; at the
inspector's half of that column it showed 13 lines of the script. In front it takes
dock_room.CODE_SHARE of the column (the palette below keeps its search line and a few
rows); the inspector brought in front again gets its half back."""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTabBar

from gradviz.app.dock_room import CANVAS_MIN_HEIGHT, INSPECTOR_SHARE, in_front

READABLE_LINES = 22


def lines_shown(w):
    text = w.code_view.text
    return text.viewport().height() // text.fontMetrics().lineSpacing()


def click_tab(qtbot, w, title):
    bar = next(b for b in w.findChildren(QTabBar) if b.isVisible()
               and title in [b.tabText(i) for i in range(b.count())])
    index = [bar.tabText(i) for i in range(bar.count())].index(title)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     bar.tabRect(index).center())


def test_code_opens_readable_beside_an_unchanged_canvas(open_window, qtbot):
    w = open_window(size=(1280, 800))
    canvas = w.canvas.size()
    assert canvas.height() >= CANVAS_MIN_HEIGHT
    column = w.inspector_dock.height() + w.palette_dock.height()
    w.actions_by_name["code"].trigger()
    qtbot.waitUntil(lambda: in_front(w.code_dock) and lines_shown(w) >= READABLE_LINES)
    assert w.canvas.size() == canvas
    assert w.palette_dock.height() >= 120        # its search line and a few entries
    click_tab(qtbot, w, "Inspector")
    qtbot.waitUntil(lambda: abs(w.inspector_dock.height() - INSPECTOR_SHARE * column) <= 2)
    click_tab(qtbot, w, "Code")
    qtbot.waitUntil(lambda: lines_shown(w) >= READABLE_LINES)
    assert w.canvas.size() == canvas
