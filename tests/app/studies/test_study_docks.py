"""The study views are docks of the main window: created when first shown, opened at a
usable height, and exported as pictures (File ▸ Export View…)."""
import sys

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel
from PySide6.QtSvg import QSvgRenderer

from gradviz.app import export_dialog
from gradviz.app.dock_room import BOTTOM_SHARE
from gradviz.app.window import main_window
from gradviz.app.studies import VIEWS
from gradviz.app.studies.plots_and_words import PLOT_MIN_H, PLOT_USABLE_H, PlotsAndWords, WordColumn
from gradviz.app.window.main_window import STUDY_TITLES
from test_heatmap_shapes import CONTROLS, drawn_widgets


@pytest.fixture
def window(qtbot, tmp_path):
    from gradviz.app import create_window

    def make(sample, size=(1280, 800)):
        settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
        w = create_window(f"samples/{sample}.json", offer_recovery=False, settings=settings)
        qtbot.addWidget(w)
        w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
        return w
    return make


def _open(qtbot, w, title):
    """The study dock `title`, opened as View ▸ Studies does, once its view shows a study
    (or the reason it has none)."""
    dock = w.study_docks[title]
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    qtbot.waitUntil(lambda: dock.view.result is not None or bool(dock.view.error)
                    or bool(dock.view.not_applicable), timeout=8000)
    qtbot.wait(50)
    return dock


def shown_rect(widget, rect=None):
    """The part of `rect` of `widget` (all of it by default) that its parents (a scroll
    area's viewport, the dock, the window) leave in view, in `widget`'s coordinates; empty
    where it is hidden. By geometry: the visible region of a plot or a scroll area leaves
    out the viewport that covers it (a word column that shows its words whole measured 0 px)."""
    rect = widget.rect() if rect is None else QRect(rect)
    if not widget.isVisible():
        return QRect()
    shown, at = QRect(widget.mapTo(widget.window(), rect.topLeft()), rect.size()), widget
    while at.parentWidget() is not None:
        parent = at.parentWidget()
        shown = shown.intersected(QRect(parent.mapTo(widget.window(), QPoint()), parent.size()))
        at = parent
    return QRect(widget.mapFrom(widget.window(), shown.topLeft()), shown.size()) if not shown.isEmpty() else QRect()


def test_the_window_names_every_view_in_order():
    assert main_window.STUDY_TITLES == tuple(title for title, _ in VIEWS)


def test_a_study_dock_builds_its_view_when_shown(qtbot, window):
    w = window("001_hessian_newton")
    dock = w.study_docks["Hessian"]
    assert not dock.isVisible() and getattr(dock, "view", None) is None
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    assert type(dock.view).__name__ == "HessianView"
    assert "pyqtgraph" in sys.modules


@pytest.mark.parametrize("title", ["Batch Jacobian", "Hessian"])
def test_a_study_dock_opens_at_a_usable_height(qtbot, window, title):
    w = window("001_batchnorm_pitfall")
    whole = w.canvas.height()
    dock = _open(qtbot, w, title)
    view = dock.view
    # At 1280 x 800 a bottom dock left the story too little height (dock_room.STORY_HEIGHT):
    # the study is a tab beside the palette, STUDY_SHARE of that column, the canvas whole.
    assert w.dockWidgetArea(dock) == w.dockWidgetArea(w.palette_dock)
    qtbot.waitUntil(lambda: dock.height() >= main_window.STUDY_SHARE
                    * (dock.height() + w.inspector_dock.height()) - 8)
    assert w.canvas.height() == whole     # and never squeezes the canvas
    # A view taller than its part of the column scrolls down, its plots still readable.
    assert view.visibleRegion().boundingRect().height() >= min(view.MIN_SIZE[1] - 40, 260)
    for label in view.findChildren(type(view.caption)):
        if label.isVisibleTo(view) and label.wordWrap() and label.text():
            assert label.height() >= label.heightForWidth(label.width()) - 1, label.text()[:40]
    # The main plot keeps PLOT_MIN_H, the one below it PLOT_USABLE_H (shared alike, the
    # Hessian's 40 x 40 H drew 93 px wide; test_study_column checks both are in view)
    second = view.norms if title == "Batch Jacobian" else view.eigen_plot
    assert view.heatmap.height() >= PLOT_MIN_H and second.height() >= PLOT_USABLE_H


def test_export_view_writes_png_svg_and_pdf(qtbot, window, tmp_path):
    w = window("001_hessian_newton")
    dock = _open(qtbot, w, "Hessian")
    view = dock.view
    assert export_dialog.study_view_on_screen(w) is view
    png = export_dialog.export_view_dialog(w, options=dict(path=str(tmp_path / "h.png"),
                                                           scale=2.0))
    image = QImage(png)     # the view's slide (no longer the view as on screen: test below)
    slide = view.slide()
    assert image.width() == 2 * slide.size.width() and image.height() == 2 * slide.size.height()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert len(colours) > 20                       # the heatmap and the banners, not a blank
    svg = export_dialog.export_view_dialog(w, options=dict(path=str(tmp_path / "h.svg")))
    assert QSvgRenderer(svg).isValid()
    text = (tmp_path / "h.svg").read_text(encoding="utf-8")
    assert "<svg" in text and "Symmetry" in text   # labels stay text in the drawing
    pdf = export_dialog.export_view_dialog(w, options=dict(path=str(tmp_path / "h.pdf")))
    assert (tmp_path / "h.pdf").read_bytes().startswith(b"%PDF") and pdf.endswith(".pdf")
    with pytest.raises(ValueError):
        export_dialog.export_widget(view, tmp_path / "h.bmp")
    assert "Export &View…" in [a.text() for a in w.menuBar().actions()[0].menu().actions()]


@pytest.mark.parametrize("sample, titles", [("001_hessian_newton", STUDY_TITLES[:1] + STUDY_TITLES[2:]),
                                            ("001_batchnorm_pitfall", STUDY_TITLES[1:2])])
def test_export_view_of_a_stacked_study_is_a_slide(qtbot, window, tmp_path, sample, titles):
    """Walk-through at 1280 x 800: Export View of a study stacked beside the palette wrote
    the view as its dock showed it, its choosers, a scroll bar and its words cut after four
    lines. It writes a slide: every plot and every word whole (the picture at least as tall
    as they are together), and no chooser, button, spin box or scroll bar.
    Changed when a long banner folds to its headline (test_study_column): a view showing one
    is drawn by a twin whose banners say their detail too; each label's words are drawn whole."""
    w = window(sample)
    for title in titles:
        view = _open(qtbot, w, title).view
        assert view.stacked(), title
        path = export_dialog.export_view_dialog(w, options=dict(path=str(tmp_path / "v.png"), scale=1.0))
        image = QImage(path)
        words = [label for label in view.findChildren(QLabel)
                 if label.isVisibleTo(view) and label.wordWrap() and label.text()]
        plots = [part for split in view.findChildren(PlotsAndWords) for part in split.parts()
                 if part.isVisibleTo(view) and not isinstance(part, WordColumn)]
        assert words and (plots or title == "Batch Jacobian" and view.not_applicable), title
        content = sum(label.heightForWidth(label.width()) for label in words) \
            + sum(plot.height() for plot in plots)
        assert image.height() >= content, (title, image.height(), content)
        if title == "Jacobian":          # its words are more than its dock shows
            assert image.height() > view.parentWidget().height(), image.height()
        slide = view.slide()
        assert image.width() == slide.size.width() and image.height() == slide.size.height()
        drawn = drawn_widgets(slide)
        assert not [d for d in drawn if isinstance(d, CONTROLS)], (title, [type(d).__name__ for d in drawn])
        placed = [QRect(at, piece.size()) for piece, at in slide.pieces]
        assert all(QRect(QPoint(), slide.size).contains(r) for r in placed), title
        assert not any(a.intersects(b) for i, a in enumerate(placed) for b in placed[i + 1:]), title
        twin = {getattr(d, "whole_text", d.text)(): d for d in drawn if isinstance(d, QLabel)} \
            if slide.owner is not None else {}
        for label in words:              # each drawn, whole (by a twin: its words whole)
            label = twin.get(getattr(label, "whole_text", label.text)(), label)
            assert label in drawn, (title, label.text()[:40])
            assert label.height() >= label.heightForWidth(label.width()) - 1, (title, label.text()[:40])
            assert "Details ▸" not in label.text(), title


def test_export_view_without_a_study_on_screen_says_so(qtbot, window, monkeypatch):
    w = window("004_matmul_sum")
    told = []
    monkeypatch.setattr(export_dialog.QMessageBox, "information",
                        lambda *a, **k: told.append(a[2]))
    assert export_dialog.export_view_dialog(w) is None
    assert told and "Studies" in told[0]


def test_a_study_that_cannot_be_computed_is_a_warning_in_the_status_bar(qtbot, window):
    """Never '✓ no problems' beside a Hessian that holds NaN (issue 20 §1)."""
    from test_views import pow_pitfall_doc
    w = window("001_input_gradient_regularization")
    assert w.problems_label.text() == "✓ no problems"
    w.controller.set_document(pow_pitfall_doc())
    dock = w.study_docks["Hessian"]
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    qtbot.waitUntil(lambda: dock.view.problem != "", timeout=10000)
    assert w.problems_label.text() == "⚠ 1 study warning (Hessian)"   # the study's, not a node's
    assert "Hessian: H holds NaN" in w.problems_label.toolTip()
    assert "y_sq (pow)" in w.problems_label.toolTip()
    dock.toggleViewAction().trigger()               # closed: its study is not shown
    qtbot.waitUntil(lambda: w.problems_label.text() == "✓ no problems")
