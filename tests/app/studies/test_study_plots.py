"""Study plots in the window read at a glance (issue 20 §5): File ▸ New or another lesson
leaves no stale plot, tick or label of the document before; axis titles render as text and
fit; square heatmaps fill their box with square cells; every gradient norm's dot is labelled.
The docks they stand in: test_study_layout."""
import re

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from gradviz.app.player import lessons
from gradviz.app.window.main_window import STUDY_TITLES
from test_study_docks import _open, window

_ = window   # the fixture, shared with test_study_docks


def view_texts(view, labels=True):
    """Every text a view shows: labels, axis titles, ticks set by hand, plot titles, texts."""
    texts = [label.text() for label in view.findChildren(QLabel)
             if labels and label.isVisibleTo(view)]
    for item in _scene_items(view):
        if isinstance(item, pg.AxisItem):
            texts.append(item.labelText)
            for level in item._tickLevels or []:
                texts += [str(t) for _, t in level]
        elif isinstance(item, pg.LabelItem):
            texts.append(item.text)
        elif isinstance(item, pg.TextItem):
            texts.append(item.toPlainText())
    return texts


def _scene_items(view):
    seen = set()
    for graphics in view.findChildren(pg.GraphicsView):
        scene = graphics.scene()
        if id(scene) not in seen:
            seen.add(id(scene))
            yield from scene.items()


def drawn_items(view):
    """The plot items that still draw data: images, curves, scatters, bars."""
    out = []
    for item in _scene_items(view):
        if isinstance(item, pg.ImageItem) and item.image is not None and item.image.size:
            out.append(item)
        elif isinstance(item, (pg.PlotCurveItem, pg.ScatterPlotItem)) and item.isVisible():
            data = item.getData() if isinstance(item, pg.PlotCurveItem) else item.data
            if data is not None and len(data[0] if isinstance(item, pg.PlotCurveItem) else data):
                out.append(item)
        elif isinstance(item, pg.BarGraphItem) and np.size(item.opts.get("height")):
            out.append(item)
    return out


def _names_of(doc):
    return {n.label for n in doc.nodes.values() if n.label and len(n.label) >= 3} \
        | {n.id for n in doc.nodes.values() if len(n.id) >= 3}


@pytest.mark.parametrize("how", ["file new", "another lesson"])
@pytest.mark.parametrize("title", STUDY_TITLES)
def test_file_new_and_a_new_lesson_leave_no_stale_plot(qtbot, window, title, how):
    sample = "001_batchnorm_pitfall" if title == "Batch Jacobian" else "001_hessian_newton"
    w = window(sample)
    dock = _open(qtbot, w, title)
    view = dock.view
    names = _names_of(w.controller.doc) - {"loss", "two"}   # words the views also use
    assert drawn_items(view) and any(n in t for t in view_texts(view) for n in names)
    if how == "file new":
        assert w.new_document()
        qtbot.waitUntil(lambda: not view._stale and not view._timer.isActive(), timeout=3000)
        qtbot.wait(50)
        assert drawn_items(view) == []
        assert "✓" not in w.problems_label.text() and "⚠" not in w.problems_label.text()
    else:
        entry = next(e for e in lessons.lesson_entries() if e.path.name == "004_matmul_sum.json")
        assert lessons.open_lesson(w, entry, ask=False)
        qtbot.waitUntil(lambda: not view._stale and not view._timer.isActive(), timeout=3000)
        qtbot.wait(50)
    stale = [t for t in view_texts(view) for n in names if n in t]
    assert stale == [], stale


MATH_UNDERSCORE = re.compile(r"(?<![\w])[A-Za-zλ]_[A-Za-z0-9]\b")   # J_L, x_i, λ_k


def plain(html):
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


@pytest.mark.parametrize("title, sample", [("Jacobian", "001_dense_jacobian"),
                                           ("Batch Jacobian", "001_batchnorm_pitfall"),
                                           ("Hessian", "001_hessian_newton"),
                                           ("Forward vs reverse", "001_hessian_newton"),
                                           ("Gradient norms", "nets_2_sigmoid_chain")])
def test_axis_titles_and_captions_render_as_text(qtbot, window, title, sample):
    """No `λ_k`, `x_i` or `J_k`: a subscript is a subscript (the axis titles have no `_` but
    in the user's names); markup never shows as text."""
    w = window(sample)
    view = _open(qtbot, w, title).view
    names = sorted(_names_of(w.controller.doc) | {n.label for n in w.controller.doc.nodes.values()
                                                   if n.label}, key=len, reverse=True)
    plots = view_texts(view, labels=False)
    assert plots
    for text in view_texts(view):
        shown = plain(text) if "<" in text else text
        assert "<" not in shown and "&amp;" not in shown and "&lt;" not in shown, text
        for name in names:
            shown = shown.replace(name, "")
        assert not MATH_UNDERSCORE.search(shown), text
        if text in plots:
            assert "_" not in shown, text


# (Lesson 15's Hessian, of the scalar delta, is one number said in words, no heatmap:
# test_degenerate_words.)
SQUARE_STUDIES = {"004_matmul_sum": ("Jacobian", "Batch Jacobian"),
                  "001_batchnorm_pitfall": ("Batch Jacobian", "Hessian")}


def _settled(qtbot, heatmap):
    """(box, image, gaps) of `heatmap` once its refit has run: it is queued after each layout
    pass, and a view that scrolls (its words' least height, WORD_LINES) takes a pass more
    than the 60 ms this test once waited (the norms' gaps were 20 px then, 1 px after)."""
    def measure():
        box = heatmap.plot.getViewBox().sceneBoundingRect()
        image = heatmap.image.sceneBoundingRect()
        return box, image, (box.width() - image.width(), box.height() - image.height())
    try:
        qtbot.waitUntil(lambda: max(measure()[2]) <= 3, timeout=3000)
    except qtbot.TimeoutError:
        pass
    return measure()


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)])
def test_a_square_heatmap_fills_its_plot_box(qtbot, window, size):
    """Walk-through: at its share of the dock the 15 x 15 Jacobian left a 430 px empty band
    beside it in its box, the patch image a 342 px grey one, the norms 133 px; stacked the
    Hessian a 10 px band. The image fills its box (no band on screen or in Export View),
    side by side (1920 x 1080) and stacked beside the palette (1280 x 800)."""
    w = None
    for sample, titles in SQUARE_STUDIES.items():
        if w is None:
            w = window(sample, size)
        else:
            w.controller.open(f"samples/{sample}.json")
        for title in titles:
            dock = w.study_docks[title]
            if not dock.isVisible():
                dock = _open(qtbot, w, title)
            view = dock.view
            view.refresh()
            qtbot.wait(60)
            assert view.stacked() == (size == (1280, 800))
            for heatmap in (getattr(view, "heatmap", None), getattr(view, "norms", None)):
                if heatmap is None:
                    continue
                rows, cols = heatmap.matrix.shape
                assert heatmap.mode == "heatmap", (sample, title)
                box, image, gaps = _settled(qtbot, heatmap)
                assert max(gaps) <= 3, (sample, title, rows, gaps)
                if rows == cols:                                        # square cells
                    assert abs(image.width() - image.height()) <= 2, (sample, title, image)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_gradient_norm_dot_is_labelled(qtbot, window, size):
    """Lesson 14 at 1280 x 800: the axis wrote 1 of its 5 names (the others touched and were
    left out). Every dot has a label: its name where the names fit, else its number, the
    words then saying which number is which node."""
    from app_ui import tick_labels

    w = window("001_input_gradient_regularization", size)
    view = _open(qtbot, w, "Gradient norms").view
    qtbot.wait(100)
    names = view.result.names
    shown = sorted(tick_labels(view.plot.getAxis("bottom")), key=lambda spec: spec[0].left())
    texts = [text for _, text in shown]
    assert texts in (names, [str(k + 1) for k in range(len(names))]), texts
    if texts != names:
        key = ", ".join(f"{k + 1} {name}" for k, name in enumerate(names))
        assert key in view.explanation.text()


def _axis_title_faults(view):
    """[(axis, what is wrong)] of every shown axis title of the view's plots: longer than its
    axis (cut at both ends, or reaching into what lies beyond) or over a tick label."""
    from app_ui import tick_labels

    faults = []
    for plot in view.findChildren(pg.PlotWidget) + view.findChildren(pg.GraphicsLayoutWidget):
        if not plot.isVisible():
            continue
        for item in plot.scene().items():
            if not isinstance(item, pg.AxisItem) or not item.isVisible() or not item.label.isVisible():
                continue
            title = item.label.toPlainText().strip()
            if not title:
                continue
            vertical = item.orientation in ("left", "right")
            rect = item.label.mapRectToParent(item.label.boundingRect())
            margin = item.label.document().documentMargin()
            length = (rect.height() if vertical else rect.width()) - 2 * margin
            along = item.size().height() if vertical else item.size().width()
            if length > along + 1:
                faults.append((title, f"{length:.0f} px on an axis of {along:.0f}"))
            inner = rect.adjusted(margin, margin, -margin, -margin)
            for tick, text in tick_labels(item):
                if inner.intersects(tick):
                    faults.append((title, f"over the tick label {text!r}"))
    return faults


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900), (1920, 1080)])
@pytest.mark.parametrize("sample", ["001_batchnorm_pitfall", "001_input_gradient_regularization"])
def test_every_study_axis_title_fits(qtbot, window, size, sample):
    """Walk-through: the y titles of the Batch Jacobian and Forward vs reverse were cut at
    1280 x 800, and the Gradient check's overlapped its tick labels at 1440 x 900. Every
    study's axis titles are whole along their axes and clear of the tick labels."""
    w = window(sample, size)
    faults = {}
    for title in STUDY_TITLES:
        view = _open(qtbot, w, title).view
        qtbot.wait(100)
        if view.result is None:
            continue
        if found := _axis_title_faults(view):
            faults[title] = found
    assert not faults, faults


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_patch_image_draws_square_patches(qtbot, window, size):
    """Walk-through (82_l19_bjac_float.png): the caption says each patch is a '(batch, batch)
    square', but BatchNorm's 54 x 45 patch image filled its box and drew each 7 x 7 patch a
    tall rectangle. Its cells are square whatever its shape, and it fills its box along one
    side (no band inside the box), docked and floated 900 px wide."""
    w = window("001_batchnorm_pitfall", size)
    dock = _open(qtbot, w, "Batch Jacobian")
    heatmap = dock.view.heatmap
    rows, cols = heatmap.matrix.shape
    assert rows != cols
    for floating in (False, True):
        if floating:
            dock.setFloating(True)
            dock.resize(900, 620)
            qtbot.wait(100)
        box, image, gaps = _settled(qtbot, heatmap)
        cell_w, cell_h = image.width() / cols, image.height() / rows
        assert abs(cell_w - cell_h) <= 0.02 * cell_h, (floating, cell_w, cell_h)
        assert min(gaps) <= 3 and max(gaps) <= 3, (floating, gaps)
        assert "square" in dock.view.caption.text()
        _box, norms, _gaps = _settled(qtbot, dock.view.norms)     # not squeezed out beside it
        assert norms.width() >= 0.3 * image.width(), (floating, norms, image)
