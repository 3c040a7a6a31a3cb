"""The docks come back from a remembered layout without stray tab bars (issue 20 §5): a
layout saved by the window at another size, with studies open, with a dock the build no
longer has or without one it has, and a first run.

Seen before this (the lead's script, 1280 x 800, a state saved by an earlier build): 'Palette |
Lesson' twice and 'Inspector | Provenance' drawn over the lesson's text, 'Train' at (0, 0).
They were the tab bars Qt lets go of while the window is built (restoreState, tabify): it
deletes them later (deleteLater), once an event loop runs, and until then they stay visible
where they were laid out for the window before it was shown. A script that shows the window
and runs processEvents (never the loop) painted them; the app, which runs the loop, did not.
The tests below show the window as such a script does."""
import time

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QTabBar

from gradviz.app.dock_widget import Dock


@pytest.fixture(autouse=True)
def temp_settings(app_env):
    """QSettings, recovery files and message boxes in tmp_path (conftest's app_env)."""
    return app_env.tmp


def _events_without_the_loop(rounds=20):
    """What a script that screenshots the window does: processEvents, never exec, so no
    deleteLater posted while the window was built runs."""
    for _ in range(rounds):
        QApplication.processEvents()
        time.sleep(0.02)


def painted_tab_bars(w):
    """(rect in the window, tab texts) of the tab bars shown inside the window (Qt parks a
    retired bar far off-window in a later layout pass)."""
    inside = w.rect()
    bars = []
    for bar in w.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        rect = QRect(bar.mapTo(w, QPoint(0, 0)), bar.size())
        if bar.isVisible() and inside.intersects(rect):
            bars.append((rect, [bar.tabText(i) for i in range(bar.count())]))
    return bars


def stray_tab_bars(w):
    """The shown tab bars that are not the one row of tabs of shown docks: empty ones, ones
    naming a dock that is not shown, and a second bar naming a dock another already names."""
    shown = {form: dock for dock in w.findChildren(Dock, options=Qt.FindChildOption.FindDirectChildrenOnly)
             if dock.isVisible() and not dock.isFloating() for form in dock.forms}
    named, stray = set(), []
    for rect, tabs in painted_tab_bars(w):
        docks = [shown.get(text) for text in tabs]
        if not tabs or None in docks or named & set(docks):
            stray.append((rect.getRect(), tabs))
        named |= set(docks)
    return stray


def _shown(make_window, size):
    w = make_window(offer_recovery=False)
    w.resize(*size)
    w.show()
    _events_without_the_loop()
    return w


def _closed(w):
    w.controller.undo_stack.setClean()
    w.close()


def test_a_first_run_shows_no_stray_tab_bars(make_window):
    w = _shown(make_window, (1280, 800))
    assert not stray_tab_bars(w), stray_tab_bars(w)
    assert sorted(tabs for _, tabs in painted_tab_bars(w)) == [["Inspector", "Provenance"], ["Palette", "Lesson"]]


@pytest.mark.parametrize("saved, restored", [((1920, 1080), (1280, 800)), ((1280, 800), (1920, 1080)),
                                             ((1280, 800), (1280, 800))])
def test_a_layout_with_studies_open_comes_back_without_stray_tab_bars(make_window, qtbot, saved, restored):
    """Saved with the Hessian and the Jacobian open (along the bottom at 1920 x 1080, beside
    the palette at 1280 x 800), restored at another size or the same."""
    first = make_window(offer_recovery=False)
    first.resize(*saved)
    first.show()
    qtbot.waitExposed(first)
    for title in ("Hessian", "Jacobian"):
        first.show_study(title)
    qtbot.waitUntil(lambda: all(first.study_docks[t].isVisible() for t in ("Hessian", "Jacobian")))
    qtbot.wait(50)
    _closed(first)
    again = _shown(make_window, restored)
    assert again.study_docks["Jacobian"].isVisible()
    assert not stray_tab_bars(again), stray_tab_bars(again)


@pytest.mark.parametrize("change", ["extra dock", "missing dock", "palette closed"])
def test_a_layout_of_another_build_comes_back_without_stray_tab_bars(make_window, qtbot, change):
    """A layout saved by a build with a dock this one lacks (a dock named 'retiredDock'
    tabbed with the inspector), without a dock this one has (the lesson's, under another
    name then), or with the palette closed."""
    first = make_window(offer_recovery=False)
    first.resize(1280, 800)
    first.show()
    qtbot.waitExposed(first)
    if change == "extra dock":
        old = Dock("Retired", first)
        old.setObjectName("retiredDock")
        first.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, old)
        first.tabifyDockWidget(first.inspector_dock, old)
    elif change == "missing dock":
        first.lesson_dock.setObjectName("lessonPanelDock")
    else:
        first.palette_dock.hide()
    qtbot.wait(50)
    _closed(first)
    again = _shown(make_window, (1280, 800))
    assert again.palette_dock.isVisible() == (change != "palette closed")
    assert not stray_tab_bars(again), stray_tab_bars(again)
    assert any(tabs[:2] == ["Inspector", "Provenance"] for _, tabs in painted_tab_bars(again))


def test_the_next_launch_restores_the_docks_without_stray_tab_bars(make_window, qtbot):
    """With the event loop run (qtbot's waits delete what Qt let go of), as the app does."""
    first = make_window(offer_recovery=False)
    first.resize(1280, 800)
    first.show()
    qtbot.waitExposed(first)
    first.palette_dock.hide()
    first.close()
    again = make_window(offer_recovery=False)
    again.resize(1280, 800)
    again.show()
    qtbot.waitExposed(again)
    assert not again.palette_dock.isVisible() and again.inspector_dock.isVisible()
    # One tab bar: inspector and provenance tabbed at the bottom of the right dock. Qt parks
    # a retired bar off-window in a later layout pass (50 ms were not always enough on a
    # loaded machine); a bar that stays fails after the timeout.
    try:
        qtbot.waitUntil(lambda: len(painted_tab_bars(again)) == 1, timeout=3000)
    except qtbot.TimeoutError:
        pass
    bars = painted_tab_bars(again)
    assert len(bars) == 1, bars
    rect, tabs = bars[0]
    assert tabs == ["Inspector", "Provenance"]
    assert rect.left() >= again.canvas.geometry().right()


def test_a_window_saved_larger_than_the_screen_comes_back_as_a_first_run_sizes_it(make_window, qtbot):
    """A layout saved on a larger display (1920 x 1080) opened on a smaller one: restoreGeometry
    gave the window two thirds of the screen (960 x 600 on a 1440 x 900 display under Xvfb;
    798 x 774 of the offscreen platform's 800 x 800), smaller than a first run's window. It
    comes back as a first run sizes it for the screen."""
    first = make_window(offer_recovery=False)
    first_size = first.size()
    first.show()
    qtbot.waitExposed(first)
    screen = first.screen().availableGeometry()
    first.setGeometry(0, 0, screen.width() + 640, screen.height() + 280)
    qtbot.wait(50)
    _closed(first)
    again = make_window(offer_recovery=False)
    assert again.size() == first_size, (again.size(), first_size, screen)
