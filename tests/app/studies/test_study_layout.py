"""Study docks in the window read at a glance (issue 20 §5): an opened study comes to the
front, no dock squeezes the canvas (nor a remembered layout), tabs read as words, the
inspector keeps a usable height beside a study. The plots inside them: test_study_plots."""
from collections import Counter

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractButton, QDockWidget, QTabBar

from gradviz.app.dock_room import BOTTOM_SHARE, STORY_HEIGHT, in_front, studies_fit_below
from gradviz.app.studies.plots_and_words import (VIEW_FONT_PT, WORD_LINES, PlotsAndWords, WordColumn,
                                                 stacked_height)
from gradviz.app.window.main_window import CANVAS_MIN_HEIGHT, STUDY_SHARE, STUDY_TABS, STUDY_TITLES
from test_study_docks import _open, shown_rect, window
from test_study_plots import _settled


_ = window   # the fixture, shared with test_study_docks


def test_opening_a_study_brings_its_tab_to_the_front(qtbot, window):
    w = window("001_hessian_newton")
    jacobian = _open(qtbot, w, "Jacobian")
    assert in_front(jacobian)
    hessian = _open(qtbot, w, "Hessian")
    assert in_front(hessian) and not in_front(jacobian)
    chain = _open(qtbot, w, "Forward vs reverse")
    assert in_front(chain) and not in_front(hessian)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_no_bottom_dock_squeezes_the_canvas(qtbot, window, size):
    """Walk-through at 1280 x 800: the canvas was 300 px beside the Hessian, 340 beside
    Train; a step's card and rule card at the readable zoom need more (dock_room). Every
    study and Train opens at its share, the canvas keeps 360 px, the dock's title at its
    side, and the dock's content shows at least 240 px.
    Changed with the studies' placement: a study along the bottom left the story steps of
    5 samples unframed at 1280 x 800 (test_step_framing), so a study goes there only where
    the canvas keeps STORY_HEIGHT (1920 x 1080, the study at most the rest); at 1280 x 800
    it is a tab beside the palette and the canvas keeps its whole height. Train as before.
    A study that does not apply there (the Batch Jacobian of a lesson without a batch axis)
    folds to its title bar, which says so, and gives the column to the inspector."""
    assert CANVAS_MIN_HEIGHT >= 360
    w = window("001_hessian_newton", size)
    whole = w.canvas.height()
    below = studies_fit_below(whole)
    assert below == (size[1] > 1000)
    vertical = QDockWidget.DockWidgetFeature.DockWidgetVerticalTitleBar
    for title in STUDY_TITLES + ("Train",):
        if title == "Train":
            dock = w.train_dock
            dock.toggleViewAction().trigger()
            qtbot.waitUntil(lambda: dock.panel is not None)
            content = dock.panel
        else:
            dock = _open(qtbot, w, title)
            content = dock.view
        qtbot.wait(50)
        if title != "Train" and dock.folded:    # it does not apply here: its title says why
            assert "does not apply" in dock.folded_title() and not below, title
            continue
        assert content.visibleRegion().boundingRect().height() >= 240, title   # and it shows
        if title != "Train" and not below:
            assert w.dockWidgetArea(dock) == w.dockWidgetArea(w.palette_dock), title
            assert in_front(dock) and w.canvas.height() == whole, title
            continue
        room = w.canvas.height() + dock.height()
        least = CANVAS_MIN_HEIGHT if title == "Train" else STORY_HEIGHT
        assert w.canvas.height() >= least, (title, w.canvas.height())
        assert dock.height() >= min(BOTTOM_SHARE * room, room - least) - 8, title
        assert dock.features() & vertical, title
    w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    qtbot.wait(20)
    assert not dock.features() & vertical     # at a side its title is on top again


def test_a_remembered_layout_that_squeezes_the_canvas_is_not_restored(qtbot, window):
    """A layout saved with a study along the bottom is not restored where it leaves the
    canvas less than STORY_HEIGHT, the height a study opened there keeps it (walk-through:
    only the 360 px minimum held, so a Hessian dragged to the bottom came back there at
    1280 x 800, the canvas 274 px). The window opens as a first run would, the Hessian open
    again where it fits (beside the palette), and the status bar says why."""
    # Wide enough for a dock on each side: in a narrower window the palette stacks under
    # the inspector, and that column's least height already keeps the canvas above 200.
    w = window("001_hessian_newton", (1700, 1000))
    dock = _open(qtbot, w, "Hessian")
    w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)   # dragged there (1700 x 1000
    w.canvas.setMinimumHeight(0)            # opens it beside the palette); saved by a version without the rule
    w.resizeDocks([dock], [900], Qt.Orientation.Vertical)
    qtbot.wait(50)
    assert w.canvas.height() < 200
    w.controller.undo_stack.setClean()
    w.close()
    again = window("001_hessian_newton", (1280, 800))
    hessian = again.study_docks["Hessian"]
    qtbot.waitUntil(lambda: again.dockWidgetArea(hessian) == again.dockWidgetArea(again.palette_dock))
    qtbot.wait(100)
    assert hessian.isVisible() and in_front(hessian)     # the study the user had open
    assert again.canvas.height() >= STORY_HEIGHT, again.canvas.height()
    said = again.statusBar().currentMessage()
    assert "not restored" in said and "Hessian" in said and str(STORY_HEIGHT) in said, said


def test_a_layout_not_restored_says_the_height_it_would_have_left(qtbot, window):
    """Walk-through at 1280 x 800: a Hessian saved along the bottom, 268 px over a 360 px
    canvas, came back with 'left the canvas 392 px tall': the layout measured while the
    window was still coming back (the Hessian 236 px). The status line says the height the
    remembered layout gives the graph at the window's size, in one line of the status bar."""
    first = window("001_hessian_newton", (1280, 800))
    hessian = _open(qtbot, first, "Hessian")
    first.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, hessian)     # dragged there
    qtbot.wait(50)
    first.resizeDocks([hessian], [300], Qt.Orientation.Vertical)
    qtbot.wait(50)
    saved = first.canvas.height()
    assert saved < STORY_HEIGHT
    first.controller.undo_stack.setClean()
    first.close()
    again = window("001_hessian_newton", (1280, 800))
    qtbot.waitUntil(lambda: "not restored" in again.statusBar().currentMessage())
    said = again.statusBar().currentMessage()
    assert f"graph {saved} px tall" in said and "Hessian" in said and f"{STORY_HEIGHT} px" in said, (saved, said)
    status = again.statusBar()
    room = status.width() - sum(w.width() for w in (again.problems_label, again.time_label)) - 24
    assert status.fontMetrics().horizontalAdvance(said) <= room, (said, room)


def test_studies_open_in_a_layout_not_restored_go_where_the_rule_puts_them(qtbot, window, qtlog):
    """Walk-through at 1280 x 800 (the real app, a fresh HOME): the Hessian dragged to the
    bottom, the other five studies opened after it (they open beside the palette, where
    their tabs were), quit, restart. The status bar said the layout was not restored, yet
    all six came back as tabs along the bottom, 68 px tall, the canvas 508 px, and Qt
    warned 'resizeDocks: all sizes need to be larger than 0'. The fallback reopened them
    one after another before any was placed, and a study joins the others where they are
    (_place_studies), here the bottom of the first run's layout. The test above opened one
    study only, which was placed. Every study that was open opens again beside the
    palette, none other, the canvas keeps a first run's height, and Qt warns of nothing."""
    first = window("001_hessian_newton", (1280, 800))
    whole = first.canvas.height()
    hessian = _open(qtbot, first, "Hessian")
    first.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, hessian)     # dragged there
    for title in STUDY_TITLES:
        if title != "Hessian":
            _open(qtbot, first, title)
    qtbot.wait(50)
    assert first.dockWidgetArea(hessian) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert first.canvas.height() < STORY_HEIGHT
    first.controller.undo_stack.setClean()
    first.close()
    again = window("001_hessian_newton", (1280, 800))
    side = again.dockWidgetArea(again.palette_dock)
    qtbot.waitUntil(lambda: "not restored" in again.statusBar().currentMessage())
    qtbot.wait(200)
    for title, dock in again.study_docks.items():
        assert again.dockWidgetArea(dock) == side and dock.isVisible() and not dock.isFloating(), title
    assert sum(in_front(d) for d in again.study_docks.values()) == 1
    assert again.canvas.height() == whole, (again.canvas.height(), whole)
    warned = [r.message for r in qtlog.records if "resizeDocks" in r.message]
    assert not warned, warned


def test_a_window_that_filled_the_screen_comes_back_as_large(qtbot, tmp_path):
    """Walk-through at 1280 x 800 without a window manager: the first run's window fills the
    screen, and restoreGeometry brought it back 1278 x 774 at (1, 25) (Qt keeps a restored
    window off the screen's edges and a title bar lower). It comes back as it was."""
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QGuiApplication
    from gradviz.app import create_window
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    area = QGuiApplication.primaryScreen().availableGeometry()
    first = create_window("samples/001_hessian_newton.json", offer_recovery=False, settings=settings)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitExposed(first)
    first.setGeometry(area)
    qtbot.waitUntil(lambda: first.geometry() == area)
    first.controller.undo_stack.setClean()
    first.close()
    again = create_window("samples/001_hessian_newton.json", offer_recovery=False, settings=settings)
    qtbot.addWidget(again)
    assert again.geometry() == area, (again.geometry(), area)


def test_studies_a_document_computes_open_where_the_rule_puts_them(qtbot, window, qtlog):
    """Tools ▸ Compute Studies opens each study the document asks for, one after another,
    as the fallback above did: at 1280 x 800 the batch-Jacobian sample's two came up along
    the bottom (where the first run's layout keeps the study tabs) with the canvas squeezed,
    because neither was placed before the other was open."""
    w = window("001_batch_jacobian", (1280, 800))
    whole = w.canvas.height()
    side = w.dockWidgetArea(w.palette_dock)
    job = w.compute_studies()
    qtbot.waitUntil(lambda: "Studies:" in w.statusBar().currentMessage(), timeout=20000)
    qtbot.wait(200)
    assert job is not None
    shown = [title for title, dock in w.study_docks.items() if dock.isVisible()]
    assert sorted(shown) == ["Batch Jacobian", "Jacobian"], shown
    for title in shown:
        assert w.dockWidgetArea(w.study_docks[title]) == side, title
    assert in_front(w.study_docks["Batch Jacobian"])      # the document's first study
    assert w.canvas.height() == whole, (w.canvas.height(), whole)
    warned = [r.message for r in qtlog.records if "resizeDocks" in r.message]
    assert not warned, warned


def test_a_remembered_layout_that_leaves_the_story_its_height_is_restored(qtbot, window):
    """At 1920 x 1080 a study along the bottom leaves the canvas STORY_HEIGHT: that layout,
    and the inspector made wider, come back as they were, and nothing is said."""
    w = window("001_hessian_newton", (1920, 1080))
    dock = _open(qtbot, w, "Hessian")
    assert w.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    w.resizeDocks([w.inspector_dock], [480], Qt.Orientation.Horizontal)
    qtbot.wait(50)
    wide, canvas = w.inspector_dock.width(), w.canvas.height()
    assert canvas >= STORY_HEIGHT
    w.controller.undo_stack.setClean()
    w.close()
    again = window("001_hessian_newton", (1920, 1080))
    qtbot.wait(150)
    hessian = again.study_docks["Hessian"]
    assert again.dockWidgetArea(hessian) == Qt.DockWidgetArea.BottomDockWidgetArea and hessian.isVisible()
    assert abs(again.inspector_dock.width() - wide) <= 2 and abs(again.canvas.height() - canvas) <= 2
    assert "not restored" not in again.statusBar().currentMessage()


def title_ink(dock):
    """Pixels of the dock's title bar, its buttons left out, that differ from the bar's
    own colour: the title's letters (0 when it writes none)."""
    image = dock.grab().toImage()
    inner = dock.widget().geometry()
    bar = (QRect(0, 0, inner.left(), dock.height()) if inner.left() > 4
           else QRect(0, 0, dock.width(), inner.top()))
    buttons = [b.geometry() for b in dock.findChildren(QAbstractButton, options=Qt.FindDirectChildrenOnly)
               if b.isVisible()]
    colours = Counter(image.pixel(x, y) for x in range(bar.left() + 2, bar.right() - 1)
                      for y in range(bar.top() + 2, bar.bottom() - 1)
                      if not any(b.adjusted(-2, -2, 2, 2).contains(x, y) for b in buttons))
    return sum(colours.values()) - max(colours.values(), default=0)


def test_tabbed_docks_name_themselves_once_on_whole_tabs(qtbot, window):
    """Walk-through at 1280 x 800: 'Jacobian' on the dock's tab and again down its side, and
    with the six studies tabbed their tabs cut to 'Gradi…' (44 px a tab down the side). A
    dock alone writes its title in its title bar; tabbed, on its tab only, every tab whole.
    Along the bottom (1920 x 1080) the six tabs stand whole in one row with their titles.
    Changed (issue 20 §5, walk-through): beside the palette (1280 x 800) the eight tabs'
    titles need 765 px of a 340 px row, which scrolled and hid Palette and Lesson until
    scrolled back; there every tab is now in view at once, without scrolling, a study's
    tab with its short title (STUDY_TABS), its tooltip the title, and the study in front
    named whole in its title bar.
    Changed (walk-through, 84_l19_gcheck.png): the short titles were signs for every tab
    ('J', 'H', '≈'); a tab now takes the longest of its title, its word and its sign that
    the row holds, the tab in front first: with six studies beside the palette the one in
    front reads as a word at least (test_study_tabs_read_as_words).
    Changed when a study in front took its column (test_study_column): the inspector above
    it, folded to its title bar and tabs, writes in its title bar how it opens."""
    for size in ((1920, 1080), (1280, 800)):
        w = window("nets_2_sigmoid_chain", size)
        alone = _open(qtbot, w, "Gradient norms")
        assert title_ink(alone) > 30 if size[1] > 1000 else title_ink(alone) == 0   # tabbed there
        for title in STUDY_TITLES:
            if title != "Gradient norms":
                _open(qtbot, w, title)
        qtbot.wait(100)
        bars = [bar for bar in w.findChildren(QTabBar) if bar.isVisible()
                and set(STUDY_TITLES) <= {bar.tabToolTip(i) for i in range(bar.count())}]
        assert len(bars) == 1
        bar = bars[0]
        short = size[1] < 1000
        for i in range(bar.count()):      # as the row is now: nothing scrolled into view
            rect, need = bar.tabRect(i), bar.tabSizeHint(i)
            assert bar.rect().contains(rect), (size, bar.tabText(i), rect, bar.rect())
            assert rect.width() >= need.width() and rect.height() >= need.height(), bar.tabText(i)
            title = bar.tabToolTip(i)
            forms = (title, *STUDY_TABS[title]) if short and title in STUDY_TABS else (title,)
            assert bar.tabText(i) in forms, (size, bar.tabText(i), title)
        if short:
            assert {"Palette", "Lesson"} <= {bar.tabText(i) for i in range(bar.count())}
        front = w.study_docks[STUDY_TITLES[-1]]
        assert in_front(front)
        assert bar.tabText(bar.currentIndex()) in (front.title, STUDY_TABS[front.title][0])
        for dock in w.findChildren(QDockWidget):
            if dock.isVisible() and not dock.visibleRegion().isEmpty() and not dock.isFloating():
                tabbed = any(not other.isHidden() for other in w.tabifiedDockWidgets(dock))
                named = tabbed and short and dock.windowTitle() != getattr(dock, "title", "")
                folded = getattr(dock, "folded", False)     # it writes how it opens
                assert (title_ink(dock) == 0) == (tabbed and not named and not folded), (dock.windowTitle(), tabbed)


# One sample for each square heatmap: lesson 1's 15 x 15 Jacobian and 21 x 21 patch image with
# its 5 x 5 norms; BatchNorm's 7 x 7 norms and 35 x 35 Hessian; the sigmoid lesson's 1 x 1 Hessian.


def test_beside_the_palette_a_study_and_the_provenance_each_read(qtbot, window):
    """Walk-through at 1280 x 800 (a study stacked beside the palette, below the inspector):
    a study's words had 90 px (the Jacobian's caption and two lines of its first check),
    and the provenance dock above it 140 px of content, four rows of a 5 x 3
    cotangent and no room for an entry's sum. The words below a study's plot show at
    least WORD_LINES lines (or all of them) without scrolling; while the story is played
    the provenance shows its step's heading, its whole grid and three lines of a sum
    (ProvenancePanel.least_height), the study the rest; leaving the story gives the study
    its share back. The canvas keeps its size throughout.
    Changed when nothing of a stacked study may lie below the dock's fold (test_study_words):
    the chain's plot at its least height (198 px, its legend in two rows) leaves its words
    138 px of the dock, not WORD_LINES' 144; they had them only in a view 22 px taller than
    the dock, scrolled, their last lines below the fold. Where the words show fewer lines,
    they take all the dock leaves below the plots at their least heights, and it does not
    scroll.
    Changed (walk-through, 80_l19_jac.png): the words' WORD_LINES left BatchNorm's 42 x 35
    Jacobian a 75 px box, its cells 5.7 x 1.8 px. A plot now keeps the height its cells need
    (stacked_height) before the words get WORD_LINES; the words keep their first sentence
    in view (test_study_words) and the rest scrolls in their column. So where the words
    show fewer lines, the plots above them are no taller than their stacked height."""
    w = window("001_hessian_newton")
    port = w.canvas.viewport().size()
    for title in ("Jacobian", "Forward vs reverse", "Gradient norms"):     # one plot over words
        dock = _open(qtbot, w, title)
        view, area = dock.view, dock.widget()
        assert view.stacked()
        assert area.verticalScrollBar().maximum() == 0, title
        for column in view.findChildren(WordColumn):
            shown = shown_rect(column).height()
            whole = column.words_height(column.viewport().width())
            font = column.font()
            font.setPointSizeF(VIEW_FONT_PT)       # the banners'
            lines = WORD_LINES * QFontMetrics(font).lineSpacing()
            if shown < min(lines, whole) - 1:
                split = column.parentWidget()
                plots = [p for p in split.parts() if p is not column]
                assert all(p.height() <= max(p.minimumHeight(), stacked_height(p, p.width()) + 1)
                           for p in plots), (title, shown, lines)
                assert column.geometry().bottom() >= split.height() - 1, (title, shown, lines)
    assert w.canvas.viewport().size() == port
    w.player.set_index(2)
    qtbot.wait(100)
    panel = w.provenance
    assert in_front(w.provenance_dock) and panel.grid.height() > 0
    assert panel.isVisible() and panel.height() >= panel.least_height() - 1, (panel.height(), panel.least_height())
    body = panel.grid.parentWidget()
    assert panel.grid.geometry().bottom() < body.visibleRegion().boundingRect().bottom()   # the whole grid in view
    assert w.canvas.viewport().size() == port
    w.player.set_index(-1)
    qtbot.wait(100)
    study = w.study_docks["Gradient norms"]
    assert in_front(study) and in_front(w.inspector_dock)
    assert study.height() >= STUDY_SHARE * (study.height() + w.inspector_dock.height()) - 2
    assert w.canvas.viewport().size() == port


def _click_tab(qtbot, w, title):
    """Select the tab `title` as a click on it does (the tab bar's current index)."""
    for bar in w.findChildren(QTabBar):
        for i in range(bar.count()):
            if bar.isVisible() and (bar.tabText(i) == title or bar.tabToolTip(i) == title):
                bar.setCurrentIndex(i)
                qtbot.wait(50)
                return
    raise AssertionError(f"no tab {title}")


def test_the_inspector_gets_its_share_back_when_a_study_goes_behind(qtbot, window):
    """Walk-through at 1280 x 800: after a study had been opened beside the palette, the
    inspector kept 180 px of its 590 px column while the Lesson or Palette tab was in front
    below it (the study's STUDY_SHARE stayed), so a student editing a tensor saw two rows
    of it. The column is shared by what is in front: a study takes STUDY_SHARE, the
    palette or the lesson gives the inspector its first-run share back."""
    w = window("004_matmul_sum")
    dock = _open(qtbot, w, "Jacobian")
    inspector = w.inspector_dock
    assert w.dockWidgetArea(dock) == w.dockWidgetArea(inspector)       # beside the palette
    column = inspector.height() + dock.height()
    assert dock.height() >= 0.6 * column
    for title in ("Palette", "Lesson"):
        _click_tab(qtbot, w, title)
        assert inspector.height() >= 0.45 * column, (title, inspector.height(), column)
    _click_tab(qtbot, w, "Jacobian")
    assert in_front(dock) and dock.height() >= 0.6 * column, (dock.height(), column)


def test_reset_window_layout_lays_the_docks_out_for_the_window_as_it_is(qtbot, window):
    """Walk-through: a layout remembered from a 1280 px window (palette and lesson under the
    inspector, so the canvas keeps its width) came back in a 1920 px window with the
    palette still on the right, and nothing put it back. View ▸ Reset Window Layout lays
    the docks out as a first run does for the window's size; an open study stays open and
    in front."""
    first = window("004_matmul_sum", (1280, 800))
    right, left = Qt.DockWidgetArea.RightDockWidgetArea, Qt.DockWidgetArea.LeftDockWidgetArea
    assert first.dockWidgetArea(first.palette_dock) == right
    first.close()
    again = window("004_matmul_sum", (1280, 800))
    again.resize(1920, 1080)
    qtbot.wait(100)
    jacobian = _open(qtbot, again, "Jacobian")
    assert again.dockWidgetArea(again.palette_dock) == right        # remembered as it was
    again.actions_by_name["reset_layout"].trigger()
    qtbot.wait(100)
    assert again.dockWidgetArea(again.palette_dock) == left
    assert again.dockWidgetArea(again.inspector_dock) == right
    assert jacobian.isVisible() and in_front(jacobian)
    assert again.canvas.width() >= 1000


def test_study_tabs_read_as_words(qtbot, window):
    """Walk-through at 1280 x 800 (84_l19_gcheck.png): the BatchNorm lesson with four studies
    open beside the palette showed tabs 'J', 'H', '≈', and the Gradient check split below
    the others had '≈' for its title bar. With four studies every tab reads as a word (its
    title or STUDY_TABS' word), its tooltip the title, every tab whole in view; a study
    alone in its place (not tabbed) names itself whole in its title bar."""
    w = window("001_batchnorm_pitfall")
    titles = ("Jacobian", "Batch Jacobian", "Hessian", "Gradient check")
    for title in titles:
        _open(qtbot, w, title)
    qtbot.wait(100)
    bar = next(bar for bar in w.findChildren(QTabBar) if bar.isVisible()
               and set(titles) <= {bar.tabToolTip(i) for i in range(bar.count())})
    for i in range(bar.count()):
        title = bar.tabToolTip(i)
        assert bar.rect().contains(bar.tabRect(i)), (title, bar.tabRect(i), bar.rect())
        assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width(), title
        assert bar.tabText(i) in (title, STUDY_TABS.get(title, (title,))[0]), (bar.tabText(i), title)
    check = w.study_docks["Gradient check"]
    w.addDockWidget(w.dockWidgetArea(check), check, Qt.Orientation.Vertical)   # out of the row
    qtbot.wait(100)
    assert not check.tabbed()
    qtbot.waitUntil(lambda: check.windowTitle() == "Gradient check")
    assert title_ink(check) > 30


def _title_rect(axis):
    """The colour bar's (or an axis') title as drawn, in its plot widget's coordinates."""
    view = axis.scene().views()[0]
    margin = int(axis.label.document().documentMargin())       # no ink in the text's margin
    drawn = view.mapFromScene(axis.label.sceneBoundingRect()).boundingRect()
    return drawn.adjusted(margin, margin, -margin, -margin), view.rect()


def test_docked_studies_read_at_1280(qtbot, window):
    """Walk-through at 1280 x 800 (80_l19_jac.png, 81_l19_bjac.png): the BatchNorm lesson with
    the Jacobian, Batch Jacobian, Hessian and Gradient check open beside the palette. The
    Jacobian's 42 x 35 heatmap was drawn in a 200 x 75 px box (cells 5.7 x 1.8 px) above
    eight lines of words, its colour bar titled 'Jᵢⱼ'; the Batch Jacobian's warning stood in a
    two-line box of its own with a scroll bar. Docked, a study's heatmap takes the dock's
    height but its words' first sentence (its cells within 1.5 : 1, as tall as the view
    leaves it), its colour bar's title lies whole in its plot, and a banner that leads the
    words is whole, never cut in a box of its own that scrolls.
    Changed when a study in front took its column (test_study_column): the dock shows 532 px
    where it showed 380, and the Batch Jacobian's two heatmaps share it, so each image is
    measured against its share (0.4 of the height over the plots stacked)."""
    w = window("001_batchnorm_pitfall")
    titles = ("Jacobian", "Batch Jacobian", "Hessian", "Gradient check")
    for title in titles:
        _open(qtbot, w, title)
    for title in ("Jacobian", "Batch Jacobian"):
        dock = w.study_docks[title]
        _click_tab(qtbot, w, title)
        view = dock.view
        qtbot.wait(200)
        heatmap = view.heatmap
        box, image, _gaps = _settled(qtbot, heatmap)
        rows, cols = heatmap.matrix.shape
        cell_w, cell_h = image.width() / cols, image.height() / rows
        assert max(cell_w, cell_h) <= 1.5 * min(cell_w, cell_h), (title, cell_w, cell_h)
        shown = dock.widget().viewport().height()
        plots = [p for p in view.findChild(PlotsAndWords).parts() if not isinstance(p, WordColumn)]
        assert image.height() >= 0.4 * shown / len(plots), (title, image.height(), shown)
        rect, inside = _title_rect(heatmap.colorbar.axis)
        assert inside.contains(rect), (title, rect, inside)
        assert heatmap.colorbar.axis.title_shown != heatmap.colorbar.axis.title_forms[-1], title
        for column in view.findChildren(WordColumn):
            label, _above = column.lead()
            if label is not None and label.property("kind") in ("warning", "ok"):    # a banner leads
                assert label.geometry().bottom() <= column.viewport().height(), (title, label.text()[:40])
                assert label.visibleRegion().boundingRect().height() >= label.height() - 1, title


def test_the_inspector_reaches_a_usable_height_beside_a_study(qtbot, window):
    """Walk-through at 1280 x 800 (102_insp.png): with a study in front below it the inspector
    had about 150 px, its tensor grid and 'Random…' reached only with the wheel. The docks'
    splitter drags (a mouse drag on the window's separator between them, as in the real
    window); selecting a node gives the inspector its first-run share back, where its grid
    and 'Random…' are in view; clearing the selection gives the study its share again."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    w = window("001_batchnorm_pitfall")
    dock = _open(qtbot, w, "Jacobian")
    inspector = w.inspector_dock
    qtbot.wait(100)
    column = inspector.height() + dock.height()
    assert dock.height() >= 0.6 * column
    x = inspector.geometry().center().x()
    gap = range(inspector.geometry().bottom() + 1, dock.geometry().top())
    y = next(y for y in gap if w.childAt(QPoint(x, y)) is None)           # the separator
    before = inspector.height()
    QTest.mousePress(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, y))
    for step in range(1, 9):
        QTest.mouseMove(w, QPoint(x, y + 15 * step))
        qtbot.wait(20)
    QTest.mouseRelease(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, y + 120))
    qtbot.wait(100)
    assert inspector.height() >= before + 100, (before, inspector.height())
    w.resizeDocks([inspector, dock], [before, column - before], Qt.Orientation.Vertical)   # as it was
    qtbot.wait(100)
    w.controller.set_selection(["x"])
    qtbot.waitUntil(lambda: inspector.height() >= 0.45 * column, timeout=3000)
    editor = w.inspector.page.value_editor
    qtbot.waitUntil(lambda: editor.isVisible())

    def in_view(part):
        return part.visibleRegion().boundingRect().height() >= min(part.height(), 60)
    try:
        qtbot.waitUntil(lambda: in_view(editor.view) and in_view(editor.random_button), timeout=3000)
    except qtbot.TimeoutError:
        raise AssertionError([(type(p).__name__, p.visibleRegion().boundingRect(), p.height())
                              for p in (editor.view, editor.random_button)]) from None
    w.controller.set_selection([])
    qtbot.waitUntil(lambda: dock.height() >= 0.6 * column, timeout=3000)
