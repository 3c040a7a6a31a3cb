"""A study beside the palette takes its column's height (issue 20 §5, 1280 x 800 and 1440 x
900): the inspector, provenance and code above it fold to their title bar and tabs while the
graph is edited, and open again where the user returns to them (their tab, their title bar,
a selected node, the story). Every study opened from every sample it applies to shows its
headline, its main plot and its key words without scrolling.

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

from gradviz.app.dock_room import INSPECTOR_SHARE, in_front
from gradviz.app.studies.plots_and_words import PlotsAndWords, WordColumn, first_sentence_bottom
from gradviz.app.window.main_window import SAMPLES_DIR, STUDY_TITLES
from test_study_docks import _open, shown_rect, window
from test_study_stale import _settled

_ = window   # the fixture, shared with test_study_docks


def _in_view(widget, rect=None):
    """Is `rect` of `widget` (all of it by default) shown, nothing of it scrolled or cut?"""
    rect = widget.rect() if rect is None else rect
    return shown_rect(widget, rect).size() == rect.size()


def _headline_shown(label):
    """Is the first sentence of `label` whole in view?"""
    bottom = min(first_sentence_bottom(label, label.width()), label.height())
    return _in_view(label, QRect(0, 0, label.width(), bottom))


def unread(w, title):
    """What of the study `title`, in front, cannot be read without scrolling: its message,
    its caption and each word column's first sentence (the headline, a verdict's banner),
    its main plot (the first shown), a table of words (whole, across and down)."""
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
    if plots and not _in_view(plots[0]):
        faults.append(f"main plot: {plots[0].visibleRegion().boundingRect().height()} of {plots[0].height()} px")
    for column in (p for p in split.parts() if isinstance(p, WordColumn) and p.isVisibleTo(view)):
        label, _above = column.lead()
        if label is None:
            continue
        if not label.wordWrap():          # a table: every column and row of it
            if not _in_view(label) or label.width() < label.sizeHint().width():
                faults.append(f"table: {label.visibleRegion().boundingRect()} of {label.sizeHint()}")
        elif not _headline_shown(label):
            faults.append(f"headline: {label.text()[:40]!r}")
    return faults


def _samples():
    return sorted(p.stem for p in Path(SAMPLES_DIR).glob("*.json"))


@pytest.mark.parametrize("title", STUDY_TITLES)
def test_every_study_reads_from_every_sample_without_scrolling_at_1280(qtbot, window, title):
    """All six studies open (their tabs beside the palette), `title` in front, each sample in
    turn: where the study applies, its headline, main plot and key words are in view."""
    w = window("001_hessian_newton", (1280, 800))
    for other in STUDY_TITLES:
        _open(qtbot, w, other)
    dock = w.study_docks[title]
    found, shown = {}, 0
    for sample in _samples():
        w.controller.open(f"samples/{sample}.json")
        w.show_study(title)
        view = dock.view
        _settled(qtbot, view)
        if view.result is None:
            continue
        qtbot.wait(150)          # the view's parts refit once laid out
        shown += 1
        faults = unread(w, title)
        if faults:
            found[sample] = faults
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
    story plays the provenance shows its step whole."""
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
    qtbot.waitUntil(lambda: not w.provenance_dock.folded and panel.height() >= panel.least_height() - 1)
    w.player.set_index(-1)
    qtbot.waitUntil(lambda: inspector.folded and dock.height() >= column - 30)
    dock.close()
    qtbot.waitUntil(lambda: not inspector.folded and w.inspector.isVisible())


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
