"""A study beside the palette takes its column's height (issue 20 §5, 1280 x 800 and 1440 x
900): the inspector, provenance and code above it fold to their title bar and tabs while the
graph is edited, and open again where the user returns to them (their tab, their title bar,
a selected node, the story). Every study opened from every sample it applies to shows its
headline, every plot (USABLE_PLOT_H at least), each word column's first paragraph and its
table without scrolling, and no line of text cut through; a study that does not apply folds
to its title bar, which says why, and gives the column back (after File ▸ New too).

Measured on main before this (auditors, 1280 x 800): the Hessian's eigenvalues showed 73 of
235 px; the gradient check, the Jacobian, forward vs reverse and the norms cut a line of
their words through at the column's edge; after File ▸ New a new constant's grid showed its
header row, 'does not apply here' holding half the column.

Measured on main before (1280 x 800, BatchNorm's lesson with four studies open): a study had
the lower 70% of the column, 380 px of content; the Batch Jacobian's view needed 897 px (its
nine-line warning over two heatmaps), the Hessian's 690, the gradient check's 473 (its plot
below its first sentence, its table below the fold)."""
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QTabBar

from app_ui import laid_out
from gradviz.app.dock_room import INSPECTOR_SHARE, in_front
from gradviz.app.studies import _base
from gradviz.app.inspector.tensor_grid import TensorGrid
from gradviz.app.studies.plots_and_words import PlotsAndWords, WordColumn, first_sentence_bottom, line_spans
from gradviz.app.window.main_window import SAMPLES_DIR, STUDY_TITLES
from test_study_docks import _open, shown_rect, window
from test_study_stale import _settled

_ = window   # the fixture, shared with test_study_docks

# A plot of a study reads at this height or more: its title (20 px at 11 pt), its x axis'
# ticks and title (40 px) and, between them, 60 px of data, where the Hessian's eigenvalues
# show as dots apart and its heatmap's 40 rows 1.5 px each, three y ticks beside them.
# At 60 px (the Hessian's eigenvalues at 1280 x 800 before) the title and two dots showed.
USABLE_PLOT_H = 120


def _in_view(widget, rect=None):
    """Is `rect` of `widget` (all of it by default) shown, nothing of it scrolled or cut?"""
    rect = widget.rect() if rect is None else rect
    return shown_rect(widget, rect).size() == rect.size()


def _headline_shown(label):
    """Is the first sentence of `label` whole in view?"""
    bottom = min(first_sentence_bottom(label, label.width()), label.height())
    return _in_view(label, QRect(0, 0, label.width(), bottom))


def cut_lines(view):
    """The labels of `view` with a line of text cut through where their box ends (a scroll
    area's viewport, the dock): '(the plot and the table's last column … (0 where both'
    showed the top of its next line at 1280 x 800)."""
    faults = []
    for label in view.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        shown = shown_rect(label)
        if shown.isEmpty() or shown.height() == label.height():
            continue
        for top, bottom in line_spans(label):
            seen = min(bottom, shown.bottom() + 1) - max(top, shown.top())
            if 3 < seen < bottom - top - 3:
                faults.append(f"line cut: {label.text()[:40]!r} shows {seen} of {bottom - top} px")
                break
    return faults


def unread(w, title):
    """What of the study `title`, in front, cannot be read without scrolling: its message,
    its caption and each word column's first sentence (the headline, a verdict's banner)
    and first paragraph (its first label), every plot (whole, and USABLE_PLOT_H at least),
    a table of words (whole, across and down), and any line of text cut through.
    A table is whole where the plots at their least heights and the first paragraphs leave
    room for it; else at least half of it, cut between its rows: the ten-step gradient
    checks' table (206 px), plot (168) and verdict (122) are 16 px more than the column
    has at 1280 x 800, and the verdict comes first."""
    view = w.study_docks[title].view
    faults = []
    if w.study_docks[title].widget().verticalScrollBar().value():
        faults.append("the dock is scrolled")
    if view.message.isVisibleTo(view) and not _in_view(view.message):
        faults.append(f"message {view.message.visibleRegion().boundingRect().height()} of {view.message.height()} px")
    for i in range(view.layout_.count()):       # a caption above the plots
        label = view.layout_.itemAt(i).widget()
        if isinstance(label, QLabel) and label is not view.message and label.isVisibleTo(view) \
                and label.text() and label.wordWrap() and not _headline_shown(label):
            faults.append(f"caption: {label.text()[:40]!r}")
    split = view.findChild(PlotsAndWords)
    plots = [p for p in split.parts() if not isinstance(p, WordColumn) and p.isVisibleTo(view)]
    for n, plot in enumerate(plots):
        if not _in_view(plot) or plot.height() < USABLE_PLOT_H:
            faults.append(f"plot {n + 1}: {shown_rect(plot).height()} of {plot.height()} px")
    columns = [p for p in split.parts() if isinstance(p, WordColumn) and p.isVisibleTo(view)]
    leads = [c.lead()[0] for c in columns]
    firsts = sum(label.height() for label in leads if label is not None and label.wordWrap())
    for column, label in zip(columns, leads):
        if label is None:
            continue
        if not label.wordWrap():          # a table: every column and row of it, where it fits
            least = sum(p.minimumHeight() for p in plots) + firsts + label.height() \
                + split.handleWidth() * (len(plots) + len(columns) - 1)
            cut = least > split.height() and shown_rect(label).height() >= label.height() // 2
            if not (_in_view(label) or cut) or label.width() < label.sizeHint().width():
                faults.append(f"table: {label.visibleRegion().boundingRect()} of {label.sizeHint()}")
        elif not _headline_shown(label):
            faults.append(f"headline: {label.text()[:40]!r}")
        elif not _in_view(label):
            faults.append(f"first paragraph: {shown_rect(label).height()} of {label.height()} px of {label.text()[:40]!r}")
    return faults + cut_lines(view)


def _samples():
    return sorted(p.stem for p in Path(SAMPLES_DIR).glob("*.json"))


_WALKED = {}   # the walk below, once per process: title -> (samples shown, {sample: faults})


def _walked(qtbot, window, monkeypatch):
    """All six studies open (their tabs beside the palette), each sample opened in turn and
    each study brought to the front of it: {title: (how many samples it applies to,
    {sample: what of it cannot be read})}. One walk for the six tests below: a sample is
    opened once, not once per study (the opening was most of each test's 25 s). The study
    is computed as soon as a sample opens, not DEBOUNCE_MS later (the wait between a
    user's edits is no part of how it reads): 216 waits of 120 ms were a third of this
    file's time."""
    if not _WALKED:
        monkeypatch.setattr(_base, "DEBOUNCE_MS", 0)
        w = window("001_hessian_newton", (1280, 800))
        for title in STUDY_TITLES:
            _open(qtbot, w, title)
        shown, found = dict.fromkeys(STUDY_TITLES, 0), {title: {} for title in STUDY_TITLES}
        for sample in _samples():
            w.controller.open(f"samples/{sample}.json")
            for title in STUDY_TITLES:
                w.show_study(title)
                view = w.study_docks[title].view
                _settled(qtbot, view)
                if view.result is None:
                    continue
                laid_out(qtbot, w)       # the view's parts refit once laid out
                shown[title] += 1
                faults = unread(w, title)
                if faults:
                    found[title][sample] = faults
        _WALKED.update({title: (shown[title], found[title]) for title in STUDY_TITLES})
    return _WALKED


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.walk("studies at 1280 x 800")
@pytest.mark.parametrize("title", STUDY_TITLES)
def test_every_study_reads_from_every_sample_without_scrolling_at_1280(qtbot, window, title, monkeypatch):
    """`title` in front of the six studies, from each sample in turn: where the study
    applies, its headline, main plot and key words are in view."""
    shown, found = _walked(qtbot, window, monkeypatch)[title]
    assert shown, title
    assert not found, found


def _tab(w, text):
    bar = next(b for b in w.findChildren(QTabBar) if b.isVisible()
               and text in [b.tabText(i) for i in range(b.count())])
    return bar, [bar.tabText(i) for i in range(bar.count())].index(text)


def _click_tab(qtbot, w, text):
    bar, index = _tab(w, text)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, bar.tabRect(index).center())
    qtbot.wait(100)


def test_a_study_in_front_takes_the_column_and_the_inspector_opens_where_the_user_returns(qtbot, window):
    """At 1280 x 800 the study takes the column but the inspector's title bar and tabs; a
    click on the Inspector tab (in front of its row, so Qt says nothing) opens it at its
    share; the study's tab gives the study the column again; a click on the folded title
    bar opens it; a selected node opens it and clearing the selection folds it; while the
    story plays the provenance shows its step whole.
    Changed when stepping the story stopped squeezing the study in front (test_stepping_the_
    story_leaves_the_study_in_front_as_it_read): the gradient check under the provenance's
    295 px would scroll, so the provenance stays folded as the story starts, and shows its
    step whole once its title bar is clicked."""
    w = window("001_batchnorm_pitfall", (1280, 800))
    width = w.canvas.width()
    dock = _open(qtbot, w, "Gradient check")
    inspector = w.inspector_dock
    qtbot.waitUntil(lambda: inspector.folded)
    column = inspector.height() + dock.height()
    assert inspector.height() <= 30 and dock.height() >= column - 30, (inspector.height(), dock.height())
    assert w.provenance_dock.folded and w.code_dock.folded
    assert w.canvas.width() == width          # the column as wide as it was
    _click_tab(qtbot, w, "Inspector")
    qtbot.waitUntil(lambda: not inspector.folded and inspector.height() >= INSPECTOR_SHARE * column - 30)
    assert w.inspector.isVisible() and in_front(dock)
    _click_tab(qtbot, w, next(t for t in ("Gradient check", "Check") if t in _tab_texts(w)))
    qtbot.waitUntil(lambda: inspector.folded and inspector.height() <= 30)
    QTest.mouseClick(inspector, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(40, 10))
    qtbot.waitUntil(lambda: not inspector.folded and inspector.height() >= INSPECTOR_SHARE * column - 30)
    _click_tab(qtbot, w, next(t for t in ("Gradient check", "Check") if t in _tab_texts(w)))
    qtbot.waitUntil(lambda: inspector.folded)
    w.controller.set_selection(["x"])
    qtbot.waitUntil(lambda: not inspector.folded and inspector.height() >= INSPECTOR_SHARE * column - 30)
    w.controller.set_selection([])
    qtbot.waitUntil(lambda: inspector.folded and dock.height() >= column - 30)
    w.player.set_index(2)
    panel = w.provenance
    qtbot.wait(100)
    assert w.provenance_dock.folded and in_front(w.provenance_dock)     # the check would scroll under it
    QTest.mouseClick(w.provenance_dock, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(40, 10))
    qtbot.waitUntil(lambda: not w.provenance_dock.folded and panel.height() >= panel.least_height() - 1)
    w.player.set_index(-1)
    qtbot.waitUntil(lambda: inspector.folded and dock.height() >= column - 30)
    dock.close()
    qtbot.waitUntil(lambda: not inspector.folded and w.inspector.isVisible())


def test_a_study_opened_with_a_node_selected_leaves_the_inspector_open(qtbot, window, monkeypatch):
    """At 1280 x 800, a node selected while the graph is edited, then View ▸ Studies ▸ a study:
    the inspector folded and the user lost the node they were editing (H44 audit: layer1 and
    the Hessian). A study opened so shares the column as a node selected beside a study does
    (the inspector at its share, the study in front below it), whichever came first
    (clearing the selection gives the study the column: test_a_study_in_front_takes_...)."""
    monkeypatch.setattr(_base, "DEBOUNCE_MS", 0)
    w = window("001_dense_jacobian", (1280, 800))
    w.controller.set_selection(["layer"])
    inspector = w.inspector_dock
    dock = _open(qtbot, w, "Jacobian")
    qtbot.wait(100)
    column = inspector.height() + dock.height()
    assert not inspector.folded and in_front(inspector) and in_front(dock)
    assert inspector.height() >= INSPECTOR_SHARE * column - 30, (inspector.height(), column)


def _tab_texts(w):
    return [b.tabText(i) for b in w.findChildren(QTabBar) if b.isVisible() for i in range(b.count())]


def test_a_remembered_layout_gives_the_study_in_front_its_column_again(qtbot, window):
    """Quit with a study in front beside the palette; the next launch restores the layout and
    the study takes the column again, the inspector folded."""
    first = window("001_batchnorm_pitfall", (1280, 800))
    _open(qtbot, first, "Jacobian")
    qtbot.waitUntil(lambda: first.inspector_dock.folded)
    column = first.inspector_dock.height() + first.study_docks["Jacobian"].height()
    first.controller.undo_stack.setClean()
    first.close()
    again = window("001_batchnorm_pitfall", (1280, 800))
    jacobian = again.study_docks["Jacobian"]
    qtbot.waitUntil(lambda: in_front(jacobian) and again.inspector_dock.folded)
    qtbot.waitUntil(lambda: jacobian.height() >= column - 30)
    assert "not restored" not in again.statusBar().currentMessage()


def test_a_long_warning_reads_as_its_headline_and_opens_on_a_click(qtbot, window):
    """BatchNorm's lesson at 1280 x 800: the Batch Jacobian's warning took nine lines of the
    column over both heatmaps. It reads as its headline (which examples depend on which)
    and 'Details ▸', both plots and the headline in view; a click on the link shows the
    whole warning and 'Less ◂'; Export View writes the whole warning whatever the dock shows."""
    w = window("001_batchnorm_pitfall", (1280, 800))
    dock = _open(qtbot, w, "Batch Jacobian")
    view = dock.view
    check = view.check
    qtbot.waitUntil(lambda: check.folded())
    assert "Details ▸" in check.text() and "Use jacobian instead" not in check.text()
    assert "example 3 of layer2 depends on example 6 of x" in check.text()
    assert "Use jacobian instead" in view.warning
    qtbot.waitUntil(lambda: not unread(w, "Batch Jacobian"))
    assert _in_view(view.heatmap) and _in_view(view.norms) and _in_view(check)
    slide = view.slide()
    written = " ".join(p.text() for p, _at in slide.pieces if isinstance(p, QLabel))
    assert "Use jacobian instead" in written and "Details" not in written
    QTest.mouseClick(check, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _link_point(check, "Details"))
    qtbot.waitUntil(lambda: "Use jacobian instead" in check.text() and "Less ◂" in check.text())
    QTest.mouseClick(check, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _link_point(check, "Less"))
    qtbot.waitUntil(lambda: check.folded() and "Details ▸" in check.text())


def test_the_block_norms_colour_bar_keeps_its_norm_bars_when_details_squeeze_it(qtbot, window, monkeypatch):
    """BatchNorm's lesson at 1280 x 800, the Batch Jacobian's warning opened with 'Details ▸':
    the block norms' plot keeps 120 px and its colour bar, 46 px long, was titled 'norm'
    (H44 audit), which said no more than a norm. Its title is a form of '‖ block ‖' that the
    bar holds whole, its norm bars upright where it is '‖·‖' (turned, '‖J‖' read as '≡')."""
    monkeypatch.setattr(_base, "DEBOUNCE_MS", 0)
    w = window("001_batchnorm_pitfall", (1280, 800))
    view = _open(qtbot, w, "Batch Jacobian").view
    check = view.check
    qtbot.waitUntil(lambda: check.folded())
    QTest.mouseClick(check, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _link_point(check, "Details"))
    qtbot.waitUntil(lambda: "Less ◂" in check.text())
    qtbot.wait(100)
    axis = view.norms.colorbar.axis
    shown = axis.title_shown
    assert shown.startswith("‖") and shown.endswith("‖") and "norm" not in shown, shown
    along = axis.label.mapRectToParent(axis.label.boundingRect())     # the title in its axis' frame
    assert 0 <= along.top() and along.bottom() <= axis.size().height(), (shown, along, axis.size())
    assert axis.label.rotation() == (0 if shown == "‖·‖" else -90), (shown, axis.label.rotation())


def _link_point(label, words):
    """Where `words` of the rich text of `label` are drawn, as a click reaches them."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(label.font())
    doc.setHtml(label.text())
    inside = label.contentsRect()
    doc.setTextWidth(inside.width())
    at = doc.toPlainText().index(words) + 2
    block = doc.findBlock(at)
    top = doc.documentLayout().blockBoundingRect(block).top()
    line = block.layout().lineForTextPosition(at - block.position())
    x = line.cursorToX(at - block.position())[0]
    return QPoint(inside.left() + int(x), inside.top() + int(top + line.y() + line.height() / 2))


def rows_in_view(grid):
    """How many rows of the tensor grid `grid` are whole in view, of how many."""
    model = grid.model()
    shown = 0
    for row in range(model.rowCount()):
        cell = grid.visualRect(model.index(row, 0))
        if cell.isValid() and _in_view(grid.viewport(), cell):
            shown += 1
    return shown, model.rowCount()


def test_after_file_new_a_study_that_does_not_apply_folds_and_the_inspector_takes_the_column(qtbot, window):
    """1280 x 800, the Hessian in front beside the palette, then File ▸ New (auditors H38w,
    H38x: 'does not apply here' kept half the column and a new constant's value grid was cut
    after its header row). The study stays open (its dock, its tab) and folds to its title
    bar, which says it does not apply and why; the inspector takes the column and shows a
    new constant's grid whole, every row; a lesson where it applies again unfolds it, and it
    takes the column again."""
    w = window("001_hessian_newton", (1280, 800))
    try:
        dock = _open(qtbot, w, "Hessian")
        view = dock.view
        qtbot.waitUntil(lambda: w.inspector_dock.folded)
        column = w.inspector_dock.height() + dock.height()
        assert w.new_document()
        _settled(qtbot, view)
        qtbot.waitUntil(lambda: dock.folded and not w.inspector_dock.folded)
        assert "document is empty" in dock.folded_title()
        node = w.controller.add_node("constant")
        w.controller.set_selection([node])
        _settled(qtbot, view)
        qtbot.waitUntil(lambda: dock.folded and bool(view.not_applicable))
        title = dock.folded_title()
        assert "Hessian" in title and "does not apply" in title and "a loss (a target)" in title, title
        assert dock.isVisible() and in_front(dock) and w.inspector_dock.height() >= column - 60
        qtbot.waitUntil(lambda: any(g.isVisible() for g in w.inspector.findChildren(TensorGrid)))
        grid = next(g for g in w.inspector.findChildren(TensorGrid) if g.isVisible())
        qtbot.wait(200)
        shown, rows = rows_in_view(grid)
        assert rows and shown == rows, (shown, rows)
        w.controller.open("samples/001_hessian_newton.json")
        _settled(qtbot, view)
        qtbot.waitUntil(lambda: not dock.folded and view.result is not None)
        w.controller.set_selection([])
        qtbot.waitUntil(lambda: w.inspector_dock.folded and dock.height() >= column - 30)
        qtbot.wait(150)
        assert not unread(w, "Hessian")
    finally:
        w.controller.undo_stack.setClean()       # the window closes without asking


def _plots(w, title):
    split = w.study_docks[title].view.findChild(PlotsAndWords)
    return [p for p in split.parts() if not isinstance(p, WordColumn) and p.isVisibleTo(split)]


@pytest.mark.parametrize("sample, title", [("001_batchnorm_pitfall", "Batch Jacobian"),
                                           ("001_hessian_newton", "Hessian"),
                                           ("001_batchnorm_pitfall", "Gradient check"),
                                           ("001_hessian_newton", "Gradient norms")])
def test_stepping_the_story_leaves_the_study_in_front_as_it_read(qtbot, window, sample, title):
    """At 1280 x 800, the study in front beside the palette, → five times: the story's first
    step opened the provenance above it at the height that shows its step whole (295 px with
    BatchNorm's 7 x 6 cotangent) and left the Batch Jacobian 281 px, its warning first and
    the top 90 px of its plot in view, the rest scrolled. Each plot keeps the height it had
    in view (the least of that and USABLE_PLOT_H), nothing of the study is scrolled or cut,
    the canvas keeps its height; at the first step the provenance shows its step whole where
    the column holds both (the gradient norms of the Newton lesson), else it stays folded,
    its title bar saying how it opens, and opens at a click on it.
    Changed (issue 20 §5, the Hessian's heatmap below the fold with the provenance opened): a
    click opens it as tall as its step needs, or, beside a study whose main plot is a heatmap,
    as tall as the study's main height leaves it (StudyView.main_height: the heatmap whole
    and the words' first sentence below it), its own lower part scrolling."""
    w = window(sample, (1280, 800))
    dock = _open(qtbot, w, title)
    _settled(qtbot, dock.view)
    qtbot.wait(150)
    canvas = w.canvas.height()
    had = [shown_rect(p).height() for p in _plots(w, title)]
    assert had and not unread(w, title), unread(w, title)
    provenance, panel = w.provenance_dock, w.provenance
    QTest.keyClick(w.canvas, Qt.Key.Key_Right)
    qtbot.wait(150)
    assert in_front(provenance)
    assert provenance.folded or panel.height() >= panel.least_height() - 1, (panel.height(), panel.least_height())
    if sample == "001_hessian_newton" and title == "Gradient norms":
        assert not provenance.folded            # the column holds both
    for _ in range(4):
        QTest.keyClick(w.canvas, Qt.Key.Key_Right)
        qtbot.wait(60)
    assert w.player.index == 4
    qtbot.wait(150)
    shown = [shown_rect(p).height() for p in _plots(w, title)]
    assert all(now >= min(before, USABLE_PLOT_H) for now, before in zip(shown, had)), (had, shown)
    assert not unread(w, title), unread(w, title)
    assert w.canvas.height() == canvas
    if provenance.folded:
        assert "Provenance" in provenance.folded_title()
        QTest.mouseClick(provenance, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(40, 10))
        view, area = dock.view, dock.widget()
        main = view.main_height()       # a heatmap study keeps its heatmap and first sentence in view
        qtbot.waitUntil(lambda: not provenance.folded and (panel.height() >= panel.least_height() - 1 or (
            main is not None and area.viewport().height() <= view.main_height() + 2)))
        QTest.keyClick(w.canvas, Qt.Key.Key_Right)        # the next step leaves it open
        qtbot.wait(100)
        assert not provenance.folded and w.player.index == 5
