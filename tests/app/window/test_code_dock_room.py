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


def test_code_over_a_study_with_a_story_step_gets_its_share(open_window, qtbot):
    """The same with a story step selected, as in a lesson (the Hessian's, 1280 x 800): the
    Code opened over the study kept the study's share (STUDY_SHARE) or the provenance's
    height, 6 lines of the script; it gets CODE_SHARE, the canvas keeps its size, and the
    story's step stays."""
    from gradviz.app.window.main_window import SAMPLES_DIR
    w = open_window(SAMPLES_DIR / "001_hessian_newton.json", size=(1280, 800))
    dock = w.study_docks["Hessian"]
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None and dock.view.result is not None,
                    timeout=8000)
    w.player.set_index(w.player.steps[2].index)
    w.player.finish_animation()
    qtbot.wait(300)
    canvas, step = w.canvas.size(), w.player.index
    w.actions_by_name["code"].trigger()
    qtbot.waitUntil(lambda: in_front(w.code_dock) and not w.code_dock.folded)
    qtbot.wait(300)
    assert lines_shown(w) >= READABLE_LINES, lines_shown(w)
    assert in_front(dock) and w.canvas.size() == canvas and w.player.index == step


def test_long_lines_wrap_with_a_hanging_indent(open_window, qtbot):
    """At 1280 x 800 the Code's 340 px column cut the script at about 40 characters (a
    lesson's docstring, a tensor's numbers), each line read by scrolling sideways. A long line
    wraps within the view, its rest indented 4 characters past the line's own indentation;
    nothing scrolls sideways, and Copy gives the script as written."""
    from gradviz.app.window.codeview import CONTINUATION
    from gradviz.app.window.main_window import SAMPLES_DIR
    from gradviz.graph.codegen import to_python
    w = open_window(SAMPLES_DIR / "001_hessian_newton.json", size=(1280, 800))
    w.actions_by_name["code"].trigger()
    qtbot.waitUntil(lambda: in_front(w.code_dock) and lines_shown(w) >= READABLE_LINES)
    text = w.code_view.text
    assert text.horizontalScrollBar().maximum() == 0
    space = text.fontMetrics().horizontalAdvance(" ")
    width = text.viewport().width()
    wrapped, block = 0, text.document().begin()
    while block.isValid():
        layout, line = block.layout(), block.text()
        indent = (len(line) - len(line.lstrip(" "))) * space
        first = layout.lineAt(0)
        assert first.x() + first.naturalTextWidth() <= width, line
        for i in range(1, layout.lineCount()):
            rest = layout.lineAt(i)
            assert abs(rest.x() - first.x() - indent - CONTINUATION * space) <= 1, (line, i)
            assert rest.x() + rest.naturalTextWidth() <= width, (line, i)
        wrapped += layout.lineCount() > 1
        block = block.next()
    assert wrapped >= 3            # the docstring's long lines, at least
    assert w.code_view.code() == to_python(w.controller.doc)
