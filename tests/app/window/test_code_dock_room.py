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


def test_code_opened_over_a_study_gets_its_share_and_the_study_takes_the_column_back(open_window, qtbot):
    """A study in front below (it had the column, the docks above folded): the Code opened
    showed 14 lines at the inspector's half; it opens at CODE_SHARE, and the study's tab
    gives the study the column again."""
    from gradviz.app.window.main_window import SAMPLES_DIR
    w = open_window(SAMPLES_DIR / "001_batchnorm_pitfall.json", size=(1280, 800))
    dock = w.study_docks["Gradient check"]
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None and dock.view.result is not None,
                    timeout=8000)
    qtbot.waitUntil(lambda: w.inspector_dock.folded)
    canvas = w.canvas.size()
    w.actions_by_name["code"].trigger()
    qtbot.waitUntil(lambda: in_front(w.code_dock) and not w.code_dock.folded
                    and lines_shown(w) >= READABLE_LINES)
    assert in_front(dock) and w.canvas.size() == canvas
    click_tab(qtbot, w, next(t for t in ("Gradient check", "Check") if t in _tab_texts(w)))
    qtbot.waitUntil(lambda: w.code_dock.folded)


def _tab_texts(w):
    return [b.tabText(i) for b in w.findChildren(QTabBar) if b.isVisible() for i in range(b.count())]
