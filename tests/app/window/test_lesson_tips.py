"""The lessons' tips in Lessons ▸ … and File ▸ Open Sample (auditor, issue 20 §2): they began
with the sample's file name ('nets_2_relu_chain.json: The same six layers …') and ran to
five lines, 88 px under the cursor, over four entries below the one hovered. A teacher reads
titles: each tip is now at most two short lines of the lesson's own text, shown beside the
menu, level with its entry."""
import re

from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication

from gradviz.app.player.lessons import (TIP_LINES, TIP_WIDTH, beside, lesson_actions,
                                        lesson_entries)


def test_each_lesson_tip_is_two_short_lines_of_its_own_text_and_no_file(make_window):
    w = make_window()
    entries = lesson_entries()
    stems = [e.path.stem for e in entries]
    in_lessons, in_file = lesson_actions(w.lessons_menu), w.sample_menu.actions()
    assert len(in_lessons) == len(in_file) == len(entries)
    for entry, lesson_action, sample_action in zip(entries, in_lessons, in_file):
        for action in (lesson_action, sample_action):
            tip = action.toolTip()
            lines = tip.split("\n")
            assert 1 <= len(lines) <= TIP_LINES and all(len(line) <= TIP_WIDTH for line in lines), tip
            assert ".json" not in tip and not [s for s in stems if s in tip], tip
            said = " ".join(lines).removesuffix(" …")
            own = re.sub(r"(esson \d+), “[^”]+”", r"\1", " ".join(entry.lesson.split()))
            assert own.startswith(said), (entry.number, tip)    # another lesson by number
        assert lesson_action.statusTip() == " ".join(lesson_action.toolTip().split())
        # File ▸ Open Sample names each sample as the Lessons menu does: number and title.
        assert sample_action.text() == f"{entry.number}  {entry.title}"
        assert sample_action.statusTip() == (f"Open lesson {entry.number}, “{entry.title}”, as a "
                                             "new, unsaved document")


def _tip_label():
    return next((t for t in QApplication.topLevelWidgets()
                 if t.metaObject().className() == "QTipLabel" and t.isVisible()), None)


def test_a_lesson_tip_shows_beside_its_menu_level_with_its_entry(make_window, qtbot):
    """Hovering each lesson of each part of the Lessons menu: the tip lies outside the part's
    submenu (covering none of its entries) and outside the Lessons menu, level with the
    entry when there is room beside the submenu, else under it; at most two lines high."""
    w = make_window()
    w.resize(800, 700)
    w.move(0, 0)
    w.show()
    qtbot.waitExposed(w)
    menu = w.lessons_menu
    menu.popup(w.mapToGlobal(QPoint(0, 25)))
    qtbot.waitUntil(menu.isVisible)
    placed, heights = set(), set()
    try:
        for part in [a for a in menu.actions() if a.menu() and a.menu() is not menu.steps_menu]:
            menu.setActiveAction(part)
            sub = part.menu()
            qtbot.waitUntil(sub.isVisible)
            for action in [a for a in sub.actions() if a in lesson_actions(menu)]:
                rect = sub.actionGeometry(action)
                QApplication.sendEvent(sub, QHelpEvent(QEvent.Type.ToolTip, rect.center(),
                                                       sub.mapToGlobal(rect.center())))
                qtbot.waitUntil(lambda: _tip_label() is not None)
                tip = _tip_label().frameGeometry()
                assert not tip.intersects(sub.geometry()), (action.text(), tip, sub.geometry())
                assert not tip.intersects(menu.geometry()), (action.text(), tip, menu.geometry())
                if tip.left() > sub.geometry().right() or tip.right() < sub.geometry().left():
                    top = sub.mapToGlobal(rect.topLeft()).y()      # beside: level with the entry
                    assert tip.top() in (top, menu.geometry().bottom() + 2), (tip, top)
                    placed.add("beside")
                else:                      # a screen too narrow for it beside: under the menu
                    assert tip.top() == sub.geometry().bottom() + 2
                    placed.add("under")
                heights.add((action.toolTip().count("\n") + 1, tip.height()))
                assert tip.height() <= TIP_LINES * rect.height() + 8     # two entries' height
            sub.hide()
    finally:
        menu.hide()
    assert "beside" in placed, heights


def test_beside_goes_right_then_left_then_below_the_menu_it_opened_from():
    from PySide6.QtCore import QSize
    screen = QRect(0, 0, 1440, 900)
    size = QSize(350, 46)
    sub = QRect(661, 69, 598, 264)
    assert beside(QRect(300, 69, 400, 264), 100, size, screen) == QPoint(701, 100)     # right
    assert beside(sub, 112, size, screen) == QPoint(661 - 352, 112)                    # left
    parent = QRect(300, 25, 363, 90)
    assert beside(sub, 69, size, screen, [parent]) == QPoint(661 - 352, parent.bottom() + 2)
    assert beside(sub, 880, size, screen).y() == 900 - 46 - 1                          # on screen
    narrow = QRect(0, 0, 800, 800)
    assert beside(QRect(202, 71, 598, 264), 120, size, narrow) == QPoint(202, 71 + 264 + 1)  # under


def test_an_entry_without_a_tip_of_its_own_gets_none_beside(qtbot):
    """Qt shows no tip for an entry whose tooltip is only its text ('No backward pass to
    show' in an empty Steps menu); beside the menu there is none either."""
    from PySide6.QtWidgets import QMenu
    from gradviz.app.player.lessons import show_tips_beside
    menu = QMenu()
    qtbot.addWidget(menu)
    show_tips_beside(menu)
    plain, own = menu.addAction("&Networks: CNN, …  (25–36)"), menu.addAction("&1  Seed")
    own.setToolTip("its own tip")
    menu.popup(QPoint(0, 0))
    qtbot.waitUntil(menu.isVisible)
    shown = {}
    for action in (plain, own):
        centre = menu.actionGeometry(action).center()
        event = QHelpEvent(QEvent.Type.ToolTip, centre, menu.mapToGlobal(centre))
        shown[action.text()] = menu.beside_tips.eventFilter(menu, event)
    menu.hide()
    assert shown == {plain.text(): False, own.text(): True}
