"""Study pictures that read at a glance (issue 20 §5): square cells for a square matrix, a
vector or a diagonal as a line, bars of 0 that still show, exports without their controls,
an entry that is NaN or infinite black and named in the colour key."""
import dataclasses
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QScrollBar, QWidget

from gradviz.app import export_dialog
from gradviz.app.controller import DocumentController
from gradviz.app.studies import ChainCostView, GradientNormView, HessianView, JacobianView
from gradviz.app.studies.batch_view import BatchJacobianView
from gradviz.app.studies.heatmap import PATCH_GAP, Heatmap

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def shown(qtbot, widget, size=(900, 420)):
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(30)
    return widget


def opened(qtbot, cls, sample, size=(1100, 560)):
    controller = DocumentController()
    view = shown(qtbot, cls(controller), size)
    controller.open(SAMPLES / f"{sample}.json")
    view.refresh()
    qtbot.wait(30)
    assert not view.error, view.error
    return view


CONTROLS = (QAbstractButton, QAbstractSpinBox, QComboBox, QScrollBar)


def drawn_widgets(slide):
    """Every widget a slide draws: its pieces and what they show inside them."""
    drawn = []
    for piece, _ in slide.pieces:
        drawn += [piece] + [w for w in piece.findChildren(QWidget) if w.isVisibleTo(piece)]
    return drawn


def cell_pixels(heatmap):
    """(width, height) on screen of one cell of the heatmap."""
    w, h = heatmap.plot.getViewBox().viewPixelSize()
    return 1 / w, 1 / h


@pytest.mark.parametrize("n", [5, 40])
def test_a_square_matrix_has_square_cells(qtbot, n):
    heatmap = shown(qtbot, Heatmap())
    heatmap.set_matrix(np.arange(n * n, dtype=np.float32).reshape(n, n) - n)
    qtbot.wait(30)
    w, h = cell_pixels(heatmap)
    assert heatmap.mode == "heatmap"
    assert w == pytest.approx(h, rel=0.02)


def _pixel(heatmap, row, col):
    """The colour drawn at the centre of the cell (row, col)."""
    scene = heatmap.plot.getViewBox().mapViewToScene(QPointF(col, row))
    at = heatmap.graphics.mapTo(heatmap, heatmap.graphics.mapFromScene(scene))
    return heatmap.grab().toImage().pixelColor(at)


def test_an_entry_that_is_nan_or_infinite_is_black_and_named(qtbot):
    """A Hessian holding NaN was an all-grey square, the grey of a patch image's gutters,
    its finite entries uncoloured and nothing saying what grey meant (issue 20 §1)."""
    m = np.array([[1, np.nan, 0], [np.inf, -1, 0.5], [0, 0, -np.inf]], np.float32)
    heatmap = shown(qtbot, Heatmap(), (420, 420))
    heatmap.set_matrix(m)
    qtbot.wait(30)
    for cell in ((0, 1), (1, 0), (2, 2)):
        assert _pixel(heatmap, *cell).name() == "#000000", cell
    red, blue = _pixel(heatmap, 0, 0), _pixel(heatmap, 1, 1)
    assert red.red() > 150 > red.blue() and blue.blue() > 150 > blue.red()   # ±1: the bar's ends
    assert heatmap.levels == (-1.0, 1.0)
    assert heatmap.colour_key() == (" Blue is negative, white zero, red positive; black is NaN "
                                    "or infinity (3 of 9 entries).")


def test_a_vector_leaves_out_its_nan_and_says_so_and_none_finite_hides(qtbot):
    heatmap = shown(qtbot, Heatmap("i", "j"))
    heatmap.set_matrix(np.array([[1, 2, np.nan, 4, 5, np.inf, 3]], np.float32))
    x, y = heatmap.curve.getData()
    assert heatmap.mode == "vector" and list(x) == [0, 1, 3, 4, 6] and list(y) == [1, 2, 4, 5, 3]
    assert heatmap.colour_key() == " 2 of 7 entries are NaN or infinity, not drawn."
    heatmap.set_matrix(np.array([[1, 2, np.nan, 4, 5, 6, 3]], np.float32))
    assert heatmap.colour_key() == " 1 of 7 entries is NaN or infinity, not drawn."
    heatmap.set_matrix(np.full((3, 3), np.nan, np.float32))
    assert heatmap.isHidden()
    assert heatmap.colour_key() == " Every entry is NaN or infinity: there is nothing to draw."
    heatmap.set_matrix(np.eye(3, dtype=np.float32) - 0.5)
    assert not heatmap.isHidden() and heatmap.colour_key() == " Blue is negative, white zero, red positive."


def test_a_patch_images_gutters_stay_grey_and_unnamed(qtbot):
    m = np.full((4, 4), np.nan, np.float32)
    m[1:3, 1:3] = [[1, -1], [0.5, 0]]
    heatmap = shown(qtbot, Heatmap(), (420, 420))
    heatmap.set_matrix(m, gaps=np.isnan(m))
    qtbot.wait(30)
    assert _pixel(heatmap, 0, 0).name() == PATCH_GAP
    assert not heatmap.not_finite.any() and "black" not in heatmap.colour_key()


def test_a_wide_matrix_fills_the_plot(qtbot):
    heatmap = shown(qtbot, Heatmap())
    heatmap.set_matrix(np.arange(16, dtype=np.float32).reshape(2, 8) - 8)
    qtbot.wait(30)
    w, h = cell_pixels(heatmap)
    assert heatmap.mode == "heatmap" and h > 1.5 * w     # not locked: the plot is filled


def test_a_vector_and_a_diagonal_are_line_plots(qtbot):
    heatmap = shown(qtbot, Heatmap("i", "j"))
    column = np.linspace(-1, 1, 9, dtype=np.float32).reshape(9, 1)
    heatmap.set_matrix(column)
    assert heatmap.mode == "vector" and heatmap.stack.currentWidget() is heatmap.line_plot
    assert np.array_equal(heatmap.curve.getData()[1], column.ravel())
    assert heatmap.line_plot.getAxis("bottom").labelText == "i"       # one entry per row
    heatmap.set_matrix(np.diag([3.0, -1.0, 2.0, 0.5]))
    assert heatmap.mode == "diagonal"
    assert np.array_equal(heatmap.curve.getData()[1], [3.0, -1.0, 2.0, 0.5])
    assert "diagonal" in heatmap.line_plot.getPlotItem().titleLabel.text
    heatmap.set_matrix(np.diag([3.0, -1.0]) + 0.1)                  # not diagonal: a heatmap
    assert heatmap.mode == "heatmap" and heatmap.stack.currentWidget() is heatmap.graphics
    assert heatmap.curve.getData()[0] is None or len(heatmap.curve.getData()[0]) == 0
    keep = shown(qtbot, Heatmap(lines=False))
    keep.set_matrix(np.diag([1.0, 2.0, 3.0]))
    assert keep.mode == "heatmap"                                    # the pattern is the point


def test_the_sigmoid_lessons_bell_curve_is_a_curve(qtbot):
    view = opened(qtbot, JacobianView, "001_sigmoid_jacobian")
    heatmap = view.heatmap
    assert heatmap.mode == "vector"
    x, y = heatmap.curve.getData()
    J = view.result.jacobian.reshape(-1)
    assert len(x) == J.size == 201 and np.allclose(y, J)
    peak = int(np.argmax(y))
    assert y[peak] == pytest.approx(0.25, abs=1e-3)
    assert np.all(np.diff(y[:peak + 1]) >= 0) and np.all(np.diff(y[peak:]) <= 0)
    assert 0.25 * len(y) < peak < 0.75 * len(y)
    assert heatmap.line_plot.height() >= 150
    assert "Blue" not in view.caption.text()       # a line has no colours to explain


def test_the_hessian_of_an_elementwise_loss_is_drawn_as_its_diagonal(qtbot):
    controller = DocumentController()
    view = shown(qtbot, HessianView(controller), (1100, 560))
    controller.open(SAMPLES / "001_hessian_newton.json")
    view.refresh()
    H = view.result.hessian
    assert view.heatmap.mode == "heatmap"           # a full 40 × 40 Hessian stays a heatmap
    assert "Blue is negative, white zero, red positive." in view.caption.text()
    diagonal = np.diag(np.arange(1.0, 6.0))
    view.show_result(dataclasses.replace(view.result, hessian=diagonal))
    assert view.heatmap.mode == "diagonal"
    assert "Blue" not in view.caption.text()
    assert np.array_equal(view.heatmap.curve.getData()[1], np.arange(1.0, 6.0))
    assert H.shape == (40, 40)


def test_bars_of_zero_still_show(qtbot):
    view = opened(qtbot, ChainCostView, "001_hessian_newton")
    heights = {c: np.asarray(b.opts["height"]) for c, b in
               ((0, view.forward_bars), (1, view.reverse_bars))}
    xs = {0: np.asarray(view.forward_bars.opts["x"]), 1: np.asarray(view.reverse_bars.opts["x"])}
    zeros = sorted(xs[c][heights[c] == 0].tolist() for c in (0, 1))
    assert sum(map(len, zeros)) == 2                    # forward's J1 and reverse's last product
    marked = sorted(((m.getData()[0][0::2] + m.getData()[0][1::2]) / 2).tolist()
                    for m in view.zero_marks.values())
    assert np.allclose(sum(marked, []), sum(zeros, []))
    assert all(m.opts["pen"].width() >= 3 for m in view.zero_marks.values())
    labels = [t for t in view.zero_labels if t.toPlainText() == "0"]
    assert sorted(t.pos().x() for t in labels) == pytest.approx(sorted(sum(zeros, [])))


@pytest.mark.parametrize("cls, sample", [(JacobianView, "001_dense_jacobian"),
                                         (BatchJacobianView, "001_batchnorm_pitfall"),
                                         (HessianView, "001_hessian_newton"),
                                         (ChainCostView, "001_hessian_newton")])
def test_export_view_leaves_its_own_button_out(qtbot, tmp_path, cls, sample):
    """Side by side (a wide view), Export View draws no control of the view. Changed with
    Export View's slide (StudyView.slide, test_study_docks): the picture leaves out every
    control, the choosers too, and places the plots where the row of choosers stood; so the
    pieces drawn are checked, no longer the pixels where the button stood."""
    view = opened(qtbot, cls, sample)
    path = export_dialog.export_widget(view, tmp_path / "v.png", scale=1.0)
    slide = view.slide()
    assert QImage(path).size() == slide.size
    drawn = drawn_widgets(slide)
    assert view.export_button not in drawn
    assert not [w for w in drawn if isinstance(w, CONTROLS)], [type(w).__name__ for w in drawn]
    assert view.export_button.isVisible()               # and it is on screen as before


@pytest.mark.parametrize("cls, sample", [(JacobianView, "001_dense_jacobian"),
                                         (BatchJacobianView, "nets_7_layernorm_independent"),
                                         (HessianView, "001_hessian_newton"),
                                         (ChainCostView, "001_hessian_newton"),
                                         (GradientNormView, "nets_2_sigmoid_chain")])
def test_every_caption_and_axis_text_of_a_study_reads(qtbot, cls, sample):
    """Issue 21 §2: captions, titles, axis names and tick numbers of the study views are at
    least legible.READABLE_PX tall on screen (the views are seen at 1:1)."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QAbstractButton, QGraphicsTextItem, QGraphicsView, QLabel

    from gradviz.render.legible import READABLE_PX

    def px(font):
        return font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * view.logicalDpiY() / 72

    view = opened(qtbot, cls, sample)
    seen = []
    for widget in view.findChildren(QLabel) + view.findChildren(QAbstractButton):
        if widget.isVisible() and widget.text():
            seen.append((px(widget.font()), widget.text()))
    for graphics in view.findChildren(QGraphicsView):
        for item in graphics.scene().items() if graphics.scene() else []:
            if not item.isVisible():
                continue
            if isinstance(item, QGraphicsTextItem) and item.toPlainText().strip():
                seen.append((px(item.font()), item.toPlainText()))
            elif isinstance(item, pg.AxisItem):
                seen.append((px(item.style.get("tickFont") or item.font()), f"{item.orientation} ticks"))
    assert len(seen) > 4 and any("ticks" in t for _, t in seen)
    assert [(round(p, 1), t) for p, t in seen if p < READABLE_PX] == []


@pytest.mark.parametrize("diagonal", [False, True])
def test_the_wheel_and_a_drag_leave_a_heatmap_as_drawn(qtbot, diagonal):
    """Walk-through: the wheel over BatchNorm's 7 x 7 block-norm grid zoomed it to a dot, and
    no button or menu brought it back. A study's heatmap (or its line plot) is read, not
    explored: the wheel and a drag change nothing."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    def wheel(viewport, pos, dy):
        QApplication.sendEvent(viewport, QWheelEvent(QPointF(pos), QPointF(viewport.mapToGlobal(pos)),
                                                     QPoint(0, 0), QPoint(0, dy), Qt.MouseButton.NoButton,
                                                     Qt.KeyboardModifier.NoModifier,
                                                     Qt.ScrollPhase.NoScrollPhase, False))

    heatmap = shown(qtbot, Heatmap())
    matrix = np.diag(np.arange(1, 8, dtype=np.float32)) if diagonal else \
        np.arange(49, dtype=np.float32).reshape(7, 7) - 20
    heatmap.set_matrix(matrix)
    qtbot.wait(30)
    graphics = heatmap.line_plot if diagonal else heatmap.graphics
    assert (heatmap.mode == "heatmap") != diagonal
    box = graphics.getViewBox() if diagonal else heatmap.plot.getViewBox()
    before = box.viewRange()
    centre = graphics.mapFromScene(box.mapRectToScene(box.boundingRect()).center())
    for _ in range(5):
        wheel(graphics.viewport(), centre, -120)
    QTest.mouseMove(graphics.viewport(), centre)
    QTest.mousePress(graphics.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    QTest.mouseMove(graphics.viewport(), centre + QPoint(60, 40))
    QTest.mouseRelease(graphics.viewport(), Qt.MouseButton.LeftButton, pos=centre + QPoint(60, 40))
    qtbot.wait(30)
    # Five wheel clicks zoom by about 3x (the old code: x from [-0.6, 6.6] to [-12.5, 18.5]); a
    # line plot's own autorange may still move its y limits by a few hundredths as it settles.
    for (lo, hi), (lo0, hi0) in zip(box.viewRange(), before):
        assert hi - lo == pytest.approx(hi0 - lo0, rel=0.05)
        assert (lo + hi) / 2 == pytest.approx((lo0 + hi0) / 2, abs=0.05 * (hi0 - lo0))


@pytest.mark.parametrize("size", [(1100, 760), (1100, 560), (1900, 278)])
def test_beside_a_square_heatmap_another_keeps_its_width(qtbot, size):
    """docs/screenshots.py on 7d18e4c: Export View of BatchNorm's Batch Jacobian at 1100 x
    760 drew the 54 x 45 patch image in a 28 px box and cut its colour bar's ticks ('-0.'):
    the square 7 x 7 norms took every pixel the words did not need. Each heatmap keeps at
    least the width that makes its cells square (or its share of the width, when that is
    less), and nothing of a heatmap's colour bar lies outside the heatmap."""
    view = opened(qtbot, BatchJacobianView, "001_batchnorm_pitfall", size)
    patches, norms = view.heatmap, view.norms
    assert patches.matrix.shape == (54, 45) and norms.matrix.shape == (7, 7)
    qtbot.wait(60)
    natural = patches.natural_width()
    split = patches.parentWidget()
    share = (split.width() - 2 * split.handleWidth()) * 3 / 9   # beside_words(..., (3, 2, 4))
    assert patches.width() >= min(natural, share) - 2, (patches.width(), natural, share)
    for heatmap in (patches, norms):
        bar = heatmap.colorbar.sceneBoundingRect()
        assert bar.right() <= heatmap.graphics.width(), (heatmap.matrix.shape, bar.right(), heatmap.graphics.width())
        assert heatmap.plot.getViewBox().width() >= 100, heatmap.matrix.shape


@pytest.mark.parametrize("size", [(1100, 560), (400, 900)])
def test_the_batch_caption_names_the_plots_where_they_are(qtbot, size):
    """Walk-through at 1280 x 800: stacked, the Batch Jacobian's caption still said 'Left: the
    full Jacobian … Middle: the size of each block' of plots one above the other."""
    view = opened(qtbot, BatchJacobianView, "001_batchnorm_pitfall", size)
    text = view.caption.text()
    patches = view.heatmap.mapTo(view, view.heatmap.rect().topLeft())
    norms = view.norms.mapTo(view, view.norms.rect().topLeft())
    if size[0] < 500:
        assert view.stacked() and patches.y() < norms.y()
        assert text.startswith("Top: the full Jacobian") and "Below it: the size" in text
    else:
        assert not view.stacked() and patches.x() < norms.x()
        assert text.startswith("Left: the full Jacobian") and "Middle: the size" in text


def test_the_readout_leaves_with_the_pointer(qtbot):
    """Walk-through: Export View's picture at 1280 x 800 held 'd layer2[4, 2] / d x[3, 4] =
    -0.036 (row 26, col 19)', the readout of the cell the pointer had crossed on its way
    to the button."""
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtWidgets import QApplication
    view = opened(qtbot, BatchJacobianView, "001_batchnorm_pitfall")
    heatmap = view.heatmap
    heatmap._on_mouse(heatmap.plot.getViewBox().mapViewToScene(QPointF(3, 3)))
    assert heatmap.readout.text().strip()
    QApplication.sendEvent(heatmap, QEvent(QEvent.Type.Leave))
    assert not heatmap.readout.text().strip()


def test_the_readout_says_the_longest_form_its_width_holds_and_wraps_none_that_it_cuts(qtbot):
    """A readout is never cut (at 1280 x 800 the Hessian's ran 485 px in a 328 px column): it
    says the longest of the cell's forms that its width holds on one line, chooses again as
    the heatmap is resized, and wraps the shortest where none fits."""
    from gradviz.app.studies.heatmap import text_width
    heatmap = shown(qtbot, Heatmap(), (900, 300))
    heatmap.set_matrix(np.array([[1.0, -2.0], [3.0, 4.0]]))
    forms = ("∂²loss / ∂layer1.kernel[1, 2] ∂layer1.kernel[1, 4] = -2    (row 0, col 1)",
             "∂²loss / ∂layer1.kernel[1, 2] ∂layer1.kernel[1, 4] = -2", "H[0, 1] = -2")
    heatmap.describe = lambda r, c: forms
    heatmap._on_mouse(heatmap.plot.getViewBox().mapViewToScene(QPointF(1, 0)))
    readout = heatmap.readout
    widths = [text_width(readout.font(), f) for f in forms]
    assert readout.text() == forms[0] and not readout.wordWrap()
    for width, said in ((widths[0] - 10, forms[1]), (widths[1] - 10, forms[2])):
        heatmap.resize(width, 300)
        qtbot.waitUntil(lambda: readout.width() == width)
        assert readout.text() == said and not readout.wordWrap()
        assert text_width(readout.font(), said) <= readout.contentsRect().width()
    heatmap.resize(widths[2] - 30, 300)
    qtbot.waitUntil(lambda: readout.wordWrap())
    assert readout.text() == forms[2] and readout.heightForWidth(readout.width()) > readout.minimumHeight()


def test_a_move_within_the_cell_the_readout_names_words_it_no_more(qtbot):
    """Each mouse move over a heatmap worded and measured its cell's readout afresh (a
    40 x 40 Hessian's, 1-3 ms a move); within the cell the readout names it stays as it is,
    and is worded again for another cell, after the pointer left, or for new words."""
    heatmap = shown(qtbot, Heatmap(), (900, 300))
    heatmap.set_matrix(np.array([[1.0, -2.0], [3.0, 4.0]]))
    worded = []
    heatmap.describe = lambda r, c: worded.append((r, c)) or (f"H[{r}, {c}] = {heatmap.matrix[r, c]:g}",)
    box, readout = heatmap.plot.getViewBox(), heatmap.readout

    def hover(x, y):
        heatmap._on_mouse(box.mapViewToScene(QPointF(x, y)))
        return readout.text()
    assert [hover(x, y) for x, y in ((0.8, 0.1), (1.2, -0.3), (0.7, 0.4))] == ["H[0, 1] = -2"] * 3
    assert worded == [(0, 1)]
    assert hover(0.1, 1.2) == "H[1, 0] = 3" and hover(1.0, 0.0) == "H[0, 1] = -2"
    readout.setText(" ")                # the pointer left
    assert hover(1.1, 0.1) == "H[0, 1] = -2"
    heatmap.describe = lambda r, c: (f"entry {r}, {c}",)
    assert hover(0.9, -0.1) == "entry 0, 1"
    assert worded == [(0, 1), (1, 0), (0, 1), (0, 1)]


@pytest.mark.parametrize("cls, sample", [(BatchJacobianView, "001_batchnorm_pitfall"),
                                         (JacobianView, "001_batchnorm_pitfall"),
                                         (HessianView, "001_hessian_newton")])
def test_export_view_of_a_strip_is_a_slide(qtbot, tmp_path, cls, sample):
    """Walk-through at 1920 x 1080: Export View of a study along the bottom wrote a 3796 x 448
    strip, the Jacobian's cells squashed 5.5:1 and the batch patches flat bands. A view far
    wider than tall is drawn by a twin laid out at a slide's size, its plots as tall as a
    slide lets them be; the twin is gone once written."""
    from PySide6.QtCore import Qt
    view = opened(qtbot, cls, sample, (1898, 224))
    slide = view.slide()
    assert slide.size.width() <= 2.2 * slide.size.height(), slide.size
    plots = [w for w, _ in slide.pieces if isinstance(w, Heatmap)]
    assert plots and min(w.height() for w in plots) >= 400, [w.height() for w in plots]
    twin = slide.owner
    assert twin is not None and twin is not view and twin.testAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    export_dialog.export_slide(slide, tmp_path / "v.png", scale=1.0)
    image = QImage(str(tmp_path / "v.png"))
    assert (image.width(), image.height()) == (slide.size.width(), slide.size.height())
    path = export_dialog.export_widget(view, tmp_path / "w.png", scale=1.0)
    assert QImage(str(path)).width() <= 2.2 * QImage(str(path)).height()


def test_the_hessian_titles_both_axes_alike(qtbot):
    """Walk-through: the Hessian's row axis was titled 'i' alone, rotated it read as a dash,
    beside the columns' 'j: flat index into x (7, 5)'."""
    view = opened(qtbot, HessianView, "001_hessian_newton")
    left = view.heatmap.plot.getAxis("left").title_shown
    bottom = view.heatmap.plot.getAxis("bottom").title_shown
    assert left.startswith("i") and bottom.startswith("j")
    assert left[1:] == bottom[1:], (left, bottom)
    assert len(left) > 1
