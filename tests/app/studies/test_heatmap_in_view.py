"""A study's heatmap reads whole beside everything else in its dock (issue 20 §5, auditor's
walk-through at 1280 x 800 and 1440 x 900, the story stepped to its 11th step and the
provenance opened above the study): the hover readout stood on the eigenvalues' title
('∂²y/∂x[0,2]∂x[1,0] = 0 (row 2, col 3)' over 'Eigenvalues of H'), and rows 5 and 6 of a
6 x 6 Hessian with its y axis' title ('…lat index into x (2, 3)') lay below the dock's fold.

Measured on main before: the view was 676 px tall where its parts' least heights (with the
caption wrapped to four lines) needed 718, so the splitter laid the eigenvalues' plot 31 px
over the heatmap's x axis title and readout.

Each study with a heatmap (Jacobian, Batch Jacobian, Hessian), on the student's graph and on
every sample with a Hessian: scrolled to, each heatmap is whole in the dock, its matrix whole
in the plot with square cells, its axes' titles drawn whole; hovered at every cell's corners,
its readout stands clear of every other text and every other part of the view, and is whole
(issue 20 §5, measured on main before: every Hessian's, Jacobian's and Batch Jacobian's
longest readout was cut at the right at 1280 x 800 and 1920 x 1080, up to 504 px of text in
a 328 px column, the Newton lesson's '∂²loss / ∂layer1.kernel[1, 2] ∂layer1.kernel[1, 4] =
-1.382×10⁻² (row 10, col 12)' 485 px in 328, and in 275 at 1920 x 1080)."""
import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QSettings, QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QGraphicsTextItem, QGraphicsView, QLabel

import gradviz as tf
from gradviz.app.studies.heatmap import Heatmap
from gradviz.app.studies.label_lines import _laid_out
from gradviz.app.studies.plots_and_words import PlotsAndWords
from gradviz.graph.fileformat import save
from test_study_docks import _open, shown_rect
from test_study_stale import _settled

SIZES = [(1280, 800), (1440, 900), (1920, 1080)]
CORNER = 0.45          # a cell's corner, just inside it (0.5 is the next cell's edge)


def student_graph(path):
    """x 2x3 watched, W 3x2, b (2,), y = reduce_sum(sigmoid(x @ W + b)), as the auditor's
    student built it (their numbers)."""
    x = tf.constant(np.array([[0.126, -0.132, 0.640], [0.105, -0.536, 0.362]], np.float32))
    W = tf.Variable(np.array([[0.346, 0.822], [0.330, -1.303], [0.905, 0.446]], np.float32))
    b = tf.Variable(np.array([0.189, -0.523], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.sigmoid(x @ W + b))
    save(tf.capture(tape, y, [x, W, b], title="student").document, path)
    return path


@pytest.fixture
def opened(qtbot, tmp_path):
    from gradviz.app import create_window

    def make(sample, size, title):
        path = student_graph(tmp_path / "student.json") if sample == "student" else f"samples/{sample}.json"
        settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
        w = create_window(str(path), offer_recovery=False, settings=settings)
        qtbot.addWidget(w)
        w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
        dock = _open(qtbot, w, title)
        _settled(qtbot, dock.view)
        for _ in range(11):             # the auditor's step 11, the provenance opened above
            QTest.keyClick(w.canvas, Qt.Key.Key_Right)
            qtbot.wait(20)
        if w.provenance_dock.folded:
            QTest.mouseClick(w.provenance_dock, Qt.MouseButton.LeftButton,
                             Qt.KeyboardModifier.NoModifier, QPoint(40, 10))
        qtbot.wait(300)
        return w, dock.view
    return make


def _window_rect(widget, rect=None):
    rect = widget.rect() if rect is None else rect
    return QRect(widget.mapTo(widget.window(), rect.topLeft()), rect.size())


def _ink(item):
    """A text item's text in scene coordinates, without its document's margin."""
    m = item.document().documentMargin()
    return item.mapRectToScene(item.boundingRect().adjusted(m, m, -m, -m))


def _item_rect(item):
    """A text item's text in its window's coordinates."""
    view = item.scene().views()[0]
    return _window_rect(view.viewport(), view.mapFromScene(_ink(item)).boundingRect())


def _texts(view):
    """(what, window rect) of every text the view shows: its labels and its plots' titles
    and axis titles."""
    texts = [(label.text()[:30], _window_rect(label)) for label in view.findChildren(QLabel)
             if label.isVisible() and label.text().strip()]
    scenes = {g.scene() for g in view.findChildren(QGraphicsView) if g.isVisible()}
    for scene in scenes:
        for item in scene.items():
            if isinstance(item, QGraphicsTextItem) and item.isVisible() and item.toPlainText().strip():
                texts.append((item.toPlainText()[:30], _item_rect(item)))
    return texts


def _readout_text_rect(heat):
    """The readout's text as its label lays it out (wrapped where it wraps), in window
    coordinates: wider or taller than the label where it is cut."""
    readout = heat.readout
    doc, inside = _laid_out(readout, readout.width(), readout.wordWrap())
    size = doc.documentLayout().documentSize()
    return _window_rect(readout, QRect(inside.topLeft(), QSize(math.ceil(size.width()), math.ceil(size.height()))))


def _whole(heat, mine):
    """Is the readout's text `mine` whole: inside its label, the label inside the heatmap?"""
    label = _window_rect(heat.readout, heat.readout.contentsRect()).adjusted(-1, -1, 1, 1)
    return label.contains(mine) and _window_rect(heat).contains(_window_rect(heat.readout))


# The auditor's student graph at the three sizes of the walk-through; the Newton lesson (the
# longest readout), the Jacobian and the Batch Jacobian at 1280 x 800 (a column) and 1920 x 1080
# (along the bottom). 1440 x 900 lays the others out as 1280 x 800 does (a column), and the
# other Hessians (000_layer_hessian, train_3_newton) repeated the Newton lesson's: 9 cases of
# 18, at 5 s a case (CI time).
CASES = [("student", "Hessian", size) for size in SIZES] + [
    (sample, title, size) for sample, title in (("001_hessian_newton", "Hessian"), ("001_dense_jacobian", "Jacobian"),
                                                ("001_batchnorm_pitfall", "Batch Jacobian"))
    for size in (SIZES[0], SIZES[-1])]


@pytest.mark.parametrize("sample, title, size", CASES, ids=lambda v: f"{v[0]}x{v[1]}" if isinstance(v, tuple) else None)
def test_a_heatmap_and_its_readout_read_whole(qtbot, opened, sample, title, size):
    w, view = opened(sample, size, title)
    heats = [h for h in view.findChildren(Heatmap) if h.isVisible() and h.mode == "heatmap"]
    assert heats, f"{title} shows no heatmap"
    split = view.findChild(PlotsAndWords)
    area = split._area()
    for heat in heats:
        area.ensureWidgetVisible(heat, 0, 0)
        qtbot.wait(50)
        shown = shown_rect(heat)
        assert shown.size() == heat.size(), (title, sample, heat.size(), shown)
        # the matrix whole in its plot, its cells square
        rows, cols = heat.matrix.shape
        image = heat.graphics.mapFromScene(heat.image.sceneBoundingRect()).boundingRect()
        assert heat.graphics.viewport().rect().adjusted(-1, -1, 1, 1).contains(image), (image, heat.graphics.size())
        if rows == cols:
            assert abs(image.width() - image.height()) <= 2, image
        # the axes' titles drawn whole, inside the plot
        for name in ("left", "bottom"):
            label = heat.plot.getAxis(name).label
            text = heat.graphics.mapFromScene(_ink(label)).boundingRect()
            assert heat.graphics.viewport().rect().adjusted(-1, -1, 1, 1).contains(text), \
                (name, label.toPlainText(), text, heat.graphics.viewport().rect())
        # every other part of the view stands clear of the heatmap (the eigenvalues' plot lay over it)
        others = [p for p in split.parts() if p is not heat and p.isVisible() and not p.isAncestorOf(heat)]
        for part in others:
            assert not _window_rect(part).intersects(_window_rect(heat)), (type(part).__name__, part.geometry(), heat.geometry())
        texts = [(what, rect) for what, rect in _texts(view) if what != heat.readout.text()[:30]]
        box = heat.plot.getViewBox()
        laid = {}        # the readout's text rect by its text, wrapping and place (a cell's 4 corners say one)
        for r in range(rows):
            for c in range(cols):
                if not (np.isfinite(heat.matrix[r, c]) or heat.not_finite[r, c]):
                    continue        # a gutter between a patch image's patches: no entry to name
                for dr in (-CORNER, CORNER):
                    for dc in (-CORNER, CORNER):
                        heat._on_mouse(box.mapViewToScene(QPointF(c + dc, r + dr)))
                        said = heat.readout.text()
                        assert said.strip(), (r, c)
                        key = (said, heat.readout.wordWrap(), _window_rect(heat.readout).getRect())
                        if key not in laid:
                            laid[key] = _readout_text_rect(heat)
                        mine = laid[key]
                        assert _whole(heat, mine), (said, mine, _window_rect(heat.readout))
                        hits = [what for what, rect in texts if what != said[:30] and rect.intersects(mine)]
                        assert not hits, (said, hits)
        heat.readout.setText(" ")


@pytest.mark.parametrize("size", (SIZES[0], SIZES[-1]), ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("sample, title", [("student", "Jacobian"), ("001_sigmoid_jacobian", "Jacobian")])
def test_a_line_plots_readout_stands_clear(qtbot, opened, sample, title, size):
    """A Jacobian drawn as a line (the student's ∂y/∂x, 1 x 6; the sigmoid's diagonal): its
    readout, hovered at every point, stands clear of every other text and part of the view
    (in a column and along the bottom; 1440 x 900 is a column as 1280 x 800 is)."""
    w, view = opened(sample, size, title)
    heat = next(h for h in view.findChildren(Heatmap) if h.isVisible())
    assert heat.mode in ("vector", "diagonal"), heat.mode
    split = view.findChild(PlotsAndWords)
    split._area().ensureWidgetVisible(heat, 0, 0)
    qtbot.wait(50)
    for part in split.parts():
        if part is not heat and part.isVisible():
            assert not _window_rect(part).intersects(_window_rect(heat)), (type(part).__name__, part.geometry())
    texts = _texts(view)
    box = heat.line_plot.getViewBox()
    y = sum(box.viewRange()[1]) / 2
    for k in range(heat.line_data.size):
        for dk in (-CORNER, CORNER):
            heat._on_line_mouse(box.mapViewToScene(QPointF(k + dk, y)))
            said = heat.readout.text()
            assert said.strip(), k
            mine = _readout_text_rect(heat)
            assert _whole(heat, mine), (said, mine, _window_rect(heat.readout))
            hits = [what for what, rect in texts if what != said[:30] and rect.intersects(mine)]
            assert not hits, (said, hits)
    heat.readout.setText(" ")
