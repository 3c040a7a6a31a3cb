"""Element provenance from clicks on the canvas (the formula card, a card's gradient) and
in the dock's grid, against the numbers of the story and the engine."""
import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.app.player.canvas_entries import entry_at, gradient_boxes
from gradviz.app.player.provenance import path_label, shown_array
from gradviz.app.player.tensor_grid import TensorGrid
from gradviz.graph.document import Port
from gradviz.render import painter as render_painter
from gradviz.render import preview
from app_ui import cut_columns
from lesson_variants import sibling_doc

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

SEED_004 = SAMPLES_DIR / "004_matmul_sum.json"
CLIP = SAMPLES_DIR / "001_clip_gradient.json"
SIGMOID = SAMPLES_DIR / "001_sigmoid_jacobian.json"


@pytest.fixture
def window(open_window):
    """window(path): the main window on `path`, shown (conftest's open_window)."""
    return open_window


def _card_cell(w, label, flat):
    """The cell of entry `flat` of the card's `label` array, in the picture the card draws (a
    conv card's contribution has grown cells that write its numbers)."""
    step = w.player.step
    box, shown = next((b, p) for lab, _, b, p in render_painter.formula_pictures(w.canvas.renderer, step)
                      if lab == label)
    return shown.cell_rect(box.left(), box.top(), flat)


def _click_scene(qtbot, w, point):
    c = w.canvas
    c.centerOn(point)
    qtbot.mouseClick(c.viewport(), Qt.MouseButton.LeftButton, pos=c.mapFromScene(point))


def test_clicking_an_entry_of_the_formula_card_explains_it(window, qtbot):
    w = window(SEED_004)
    p, panel = w.player, w.provenance
    p.set_index(2)
    step = p.step
    assert step.kind == "contribution"
    _click_scene(qtbot, w, _card_cell(w, "contribution", 4).center())
    prov = panel.provenance
    assert prov is not None and panel.entry == 4
    assert prov.value == pytest.approx(float(step.cotangent.flat[4]), rel=1e-6)
    b = step.operands["tf_b"]          # the rule in the lesson's names: grad @ tf_bᵀ
    assert [t.local for t in prov.terms] == pytest.approx(list(b[1]), rel=1e-6)  # row j = 1
    # A sum of 3 float32s whose last digit depends on the BLAS kernel's order of adding
    # (1.1900724 or 1.1900725): checked to 2 ulps, and the label shows the value computed.
    np.testing.assert_array_max_ulp(np.float32(prov.value), np.float32(1.1900724), maxulp=2)
    assert panel.numbers_label.text().endswith(f"= {prov.value:.3f}")     # as the cards write it
    assert panel.grid.highlighted == [4]
    assert w.canvas.step_overlay.highlight == {"contribution": [4], "upstream": [3, 4, 5],
                                               "tf_b": [3, 4, 5]}
    assert p.index == 2 and not w.controller.selection   # the click selected no node


def test_clicking_the_upstream_explains_where_the_cotangent_came_from(window, qtbot):
    w = window(SEED_004)
    w.player.set_index(2)
    _click_scene(qtbot, w, _card_cell(w, "upstream", 0).center())
    panel = w.provenance
    assert panel.subject.card_label == "upstream"
    assert panel.provenance.kind == "seed" and panel.provenance.value == 1
    np.testing.assert_array_equal(panel.grid.array, w.player.step.operands["grad"])
    assert w.canvas.step_overlay.highlight == {"upstream": [0]}


def test_clicking_a_cards_gradient_explains_the_final_gradient(window, qtbot):
    w = window(SEED_004)
    # A source's gradient is on its card from its accumulation step on (before, pending).
    w.player.set_index(next(s.index for s in w.player.steps
                            if s.kind == "accumulate" and s.node == "tf_t"))
    (box,) = gradient_boxes(w.canvas.renderer, "tf_t")
    assert box.port == Port("tf_t", 0)
    cell = box.cell(7)
    assert entry_at(w.canvas.renderer, w.player.step, cell.center()) == ("node", box.port, 7)
    _click_scene(qtbot, w, cell.center())
    panel = w.provenance
    gradient = w.controller.result.evaluation.gradients[Port("tf_t", 0)]
    assert panel.subject.node == Port("tf_t", 0)
    assert panel.provenance.value == pytest.approx(float(gradient.flat[7]), rel=1e-6)
    assert panel.provenance.total == pytest.approx(panel.provenance.value, rel=1e-6)
    assert panel.rings is not None and panel.rings.rects == [cell]


def test_clicks_outside_an_entry_and_in_the_editing_view_are_the_canvas_own(window, qtbot):
    w = window(SEED_004)
    (box,) = gradient_boxes(w.canvas.renderer, "tf_t")
    _click_scene(qtbot, w, box.cell(7).center())     # editing view: no story step
    assert w.provenance.provenance is None
    assert w.controller.selection == ["tf_t"]        # the card was selected, as always
    w.player.set_index(2)
    r = w.canvas.renderer
    assert entry_at(r, w.player.step, r.rect("tf_t").topLeft()) is None
    formula = render_painter.formula_rect(r, w.player.step)
    assert entry_at(r, w.player.step, formula.topLeft()) is None


def test_fan_in_paths_are_named_by_their_input_slot(window):
    w = window(CLIP)
    story = w.controller.result.story
    p = w.player
    fan = next(s for s in p.steps if s.kind == "fan_in")
    p.set_index(fan.index)
    labels = [path_label(story, i) for i in fan._sources]
    assert len(set(labels)) == len(labels) == 2
    # the ports as the canvas labels them (was 'input 1', 'input 2' beside ports a and b)
    assert labels == ["vv → v (input a)", "vv → v (input b)"]
    prov = w.provenance.select_entry(0)
    text = w.provenance.sum_label.text()
    assert text.startswith(f"grad {prov.where} = ")   # a fan-in sums cotangents
    assert all(f"[{label}]" in text for label in labels)
    assert prov.value == pytest.approx(sum(t.product for t in prov.terms))
    assert set(w.provenance.sources) == {"from vv, input a", "from vv, input b"}   # the card's names


def test_numbers_never_show_minus_zero_and_a_table_has_one_format(qtbot):
    """Walk-through: a provenance table mixed 0 and 3.000; every cell now has the table's format.
    (Issue 20: a nonzero entry too small for the table's digits reads ≈0, not 0.000, which
    is kept for a zero.)"""
    fmt = preview.number_format(np.array([-1e-5, 0.5]))
    assert fmt(-1e-5) == "≈0" and fmt(-0.0) == "0.000"   # number_format itself: no -0.000
    grid = TensorGrid("g")
    qtbot.addWidget(grid)
    grid.set_array(np.array([[0.0, 3.0], [-0.0, -0.25]], np.float32))
    cells = [grid.item(r, c).text() for r in range(2) for c in range(2)]
    decimals = {len(t.partition(".")[2]) for t in cells}
    assert len(decimals) == 1 and decimals != {0}, cells
    assert cells[0] == cells[2] == "0." + "0" * decimals.pop() and cells[1].startswith("3."), cells
    grid.set_array(np.array([0.0, 3.0, 1.0], np.float32))    # whole numbers stay whole
    assert [grid.item(0, c).text() for c in range(3)] == ["0", "3", "1"]


def test_grid_prints_zeros_in_the_tables_format(qtbot):
    """An exact 0 reads 0.000 beside 0.500, as every other cell of its table (walk-through);
    -1e-5 is no zero: ≈0 (issue 20), as the cards write it."""
    grid = TensorGrid("g")
    qtbot.addWidget(grid)
    grid.set_array(np.array([[-1e-5, 0.5], [0.0, -0.25]], np.float32))
    assert [grid.text_at(i) for i in range(4)] == ["≈0", "0.500", "0.000", "-0.250"]


def test_a_long_vector_wraps_and_every_entry_can_be_clicked(window, qtbot):
    w = window(SIGMOID)
    p = w.player
    step = next(s for s in p.steps if s.kind == "contribution")
    p.set_index(step.index)
    grid = w.provenance.grid
    array = shown_array(step)
    assert array.shape == (201,)
    assert grid.wrapped and grid.columnCount() >= 4
    assert grid.rowCount() * grid.columnCount() >= 201
    assert grid.text_at(200) is not None
    row, col = grid.cell_of(150)
    rect = grid.visualItemRect(grid.item(row, col))
    grid.scrollToItem(grid.item(row, col))
    rect = grid.visualItemRect(grid.item(row, col))
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    prov = w.provenance.provenance
    assert w.provenance.entry == 150
    assert prov.value == pytest.approx(float(array[150]), rel=1e-6)
    assert prov.where.endswith("[150]")


def test_an_entry_of_a_long_vector_on_the_card_is_clickable(window):
    """render wraps a 201-vector's heatmap into rows of 20: entry 150 is a real cell."""
    w = window(SIGMOID)
    p = w.player
    step = next(s for s in p.steps if s.kind == "contribution")
    p.set_index(step.index)
    r = w.canvas.renderer
    array, box = next((a, b) for lab, a, b in render_painter.formula_arrays(r, step)
                      if lab == "contribution")
    cell = render_painter.entry_rect(array, box.left(), box.top(), 150,
                                     render_painter.formula_spec(r, step, array))
    assert cell.height() >= 4 and cell.width() >= 4    # big enough to see and to hit
    hit = entry_at(r, step, cell.center())
    assert hit is not None and hit[:2] == ("card", "contribution") and hit[2] == 150


def test_provenance_headers_use_the_users_names(window, tmp_path, labelled_mlp):
    """The dock names a tensor as its card does (W1), not by its id (w2): issue 20 §2. The
    graph is the editor's, in memory (a saved file would carry the labels as ids)."""
    w = window()
    w.controller.set_document(labelled_mlp())
    steps = w.player.steps
    k = next(s.index for s in steps if s.kind == "contribution" and s.port == Port("w2"))
    w.player.set_index(k)
    heading = w.provenance.heading.text()
    assert "<b>W1</b>" in heading and "w2" not in heading
    prov = w.provenance.select_entry(0)
    assert w.provenance.sum_label.text().startswith("grad W1[0,0] = ")
    assert prov.where == "W1[0,0]"


@pytest.mark.parametrize("width", [300, 420, 900])
def test_grid_numbers_of_a_tiny_tensor_read_as_on_its_card_and_are_never_clipped(qtbot, width):
    """A 1×6 row of 1e-05s in a narrow dock: written as the card writes it (-1.880 beside
    ×10⁻⁵, not -1.88e-05), every number whole in its column and its row above the scroll bar
    (the scroll bar used to cover the only row)."""
    from gradviz.render.preview import Preview
    grid = TensorGrid("g")
    qtbot.addWidget(grid)
    grid.resize(width, 100)
    grid.show()
    qtbot.waitExposed(grid)
    values = np.array([[-1.88e-05, -2.52e-05, 7.17e-05, 4.63e-05, -3.05e-05, 1.2e-06]], np.float32)
    grid.set_array(values)
    qtbot.wait(20)
    viewport = grid.viewport().rect()
    metrics = grid.fontMetrics()
    card = Preview(values)
    assert grid.factor == card.factor == "×10⁻⁵"
    for c in range(grid.columnCount()):
        item = grid.item(0, c)
        assert item.text() == card.table[0][c].strip()
        assert metrics.horizontalAdvance(item.text()) <= grid.columnWidth(c), item.text()
        rect = grid.visualItemRect(item)
        assert rect.top() >= 0 and rect.bottom() <= viewport.bottom(), (c, rect, viewport)


def test_new_numbers_in_the_same_grid_keep_its_cells_and_fit_their_columns(qtbot):
    """An edit while a step is shown renumbers the dock's grid in place (rebuilding it and
    its ResizeToContents headers cost 38 ms for the tiny CNN's 12x3 filter grid, most of
    an edit's budget); wider numbers still get wider columns, and a new shape a new grid."""
    from gradviz.render.tiles import FILTER
    grid = TensorGrid("w")
    qtbot.addWidget(grid)
    grid.resize(320, 300)
    grid.show()
    qtbot.waitExposed(grid)
    w = np.linspace(-0.5, 0.5, 36, dtype=np.float32).reshape(3, 3, 1, 4)
    grid.set_array(w, FILTER)
    cells = [grid.item(r, c) for r in range(grid.rowCount()) for c in range(grid.columnCount())]
    assert grid.verticalHeaderItem(1).text() == "[1,:,0,0]" and grid.text_at(1) == "-0.471"
    grid.set_highlight([5])
    grid.set_array(w * -2000, FILTER)
    assert [grid.item(r, c) for r in range(grid.rowCount()) for c in range(grid.columnCount())] == cells
    assert grid.highlighted == [] and grid.item(*grid.cell_of(5)).background().style() == Qt.BrushStyle.NoBrush
    flat = np.ravel(w * -2000)
    assert grid.text_at(1) == grid.item(*grid.cell_of(1)).text() != "-0.471"
    assert float(grid.text_at(1)) == pytest.approx(float(flat[1]), rel=1e-3)
    tip = grid.item(*grid.cell_of(1)).toolTip()     # float32's shortest decimals: exact
    assert tip.startswith("w[0,0,0,1] = ") and np.float32(tip.split(" = ")[1]) == flat[1]
    metrics = grid.fontMetrics()
    for c in range(grid.columnCount()):
        widest = max(metrics.horizontalAdvance(grid.item(r, c).text()) for r in range(grid.rowCount()))
        assert widest <= grid.columnWidth(c)
    grid.set_array(np.ones((2, 2), np.float32))
    assert (grid.rowCount(), grid.columnCount()) == (2, 2) and grid.verticalHeaderItem(1).text() == "1"


CONV = SAMPLES_DIR / "nets_1_conv_transpose.json"


def test_a_conv_input_gradient_entry_clicked_is_upstream_window_times_filter_taps(window, qtbot):
    """Issue 21 §1: click x[0,2,3,0] of the conv lesson's contribution (a tile cell): the
    products of the upstream entries whose windows covered it and the filter taps over it."""
    w = window(CONV)
    w.player.set_index(2)
    step = w.player.step
    assert step.kind == "contribution" and step.port == Port("input_image")
    flat = int(np.ravel_multi_index((0, 2, 3, 0), (1, 5, 5, 1)))
    _click_scene(qtbot, w, _card_cell(w, "contribution", flat).center())
    panel = w.provenance
    prov = panel.provenance
    assert panel.entry == flat and prov.where == "input image[0,2,3,0]"
    assert prov.value == -4 and sum(t.product for t in prov.terms) == -4
    # g is 1, 2, -1 at y[0,0], y[1,1], y[2,2]: the windows at (1,1) and (2,2) covered x[2,3],
    # with taps w[1,2] = -2 and w[0,1] = 0 over it (a zero product is not listed)
    assert [t.label for t in prov.terms] == ["grad[0,1,1,0]·filters[1,2,0,0]"]
    # the tap as the card writes it: filters, which its where-line says is the node filter w
    assert [t.factor for t in prov.terms] == ["filters[1,2,0,0]"]
    assert panel.sum_label.text() == "grad input image[0,2,3,0] = 2·filters[1,2,0,0] = -4"
    assert w.canvas.step_overlay.highlight == {"contribution": [flat], "upstream": [4], "filters": [5]}
    # the dock's grid lays the image out as an image: row [0,2,:,0], column 3
    grid = panel.grid
    assert (grid.rowCount(), grid.columnCount()) == (5, 5)
    assert grid.verticalHeaderItem(2).text() == "[0,2,:,0]" and grid.cell_of(flat) == (2, 3)
    assert grid.item(2, 3).text() == "-4" and grid.highlighted == [flat]
    # and the filter its taps: row [1,:,0,0], column 2 is w[1,2,0,0]
    taps = panel.sources["filters"]
    assert (taps.rowCount(), taps.columnCount()) == (3, 3)
    assert taps.verticalHeaderItem(1).text() == "[1,:,0,0]" and taps.cell_of(5) == (1, 2)
    assert taps.item(1, 2).text() == "-2" and taps.highlighted == [5]


def test_the_grid_of_an_nhwc_tensor_is_one_image_row_a_grid_row(qtbot):
    from gradviz.app.player.tensor_grid import grid_order
    order, rows, cols = grid_order((2, 3, 4, 2))
    assert order.shape == (2 * 2 * 3, 4) and cols == ["0", "1", "2", "3"]
    assert rows[:4] == ["[0,0,:,0]", "[0,1,:,0]", "[0,2,:,0]", "[0,0,:,1]"]
    a = np.arange(48).reshape(2, 3, 4, 2)
    np.testing.assert_array_equal(a.reshape(-1)[order[3]], a[0, 0, :, 1])
    order, rows, _ = grid_order((2, 3, 5))
    assert rows[4] == "[1,1,:]" and list(order[4]) == list(range(20, 25))
    order, rows, _ = grid_order((3, 2, 4, 5), role="filter")    # HWIO: [h,:,i,o]
    assert order.shape == (4 * 5 * 3, 2) and rows[:2] == ["[0,:,0,0]", "[1,:,0,0]"]
    np.testing.assert_array_equal(np.arange(120).reshape(3, 2, 4, 5).reshape(-1)[order[1]],
                                  np.arange(120).reshape(3, 2, 4, 5)[1, :, 0, 0])
    order, _, _ = grid_order((1000, 100, 100, 3))          # only what the grid shows is laid out
    assert order.size <= 4000


def test_the_dock_writes_each_number_as_its_card_does(window):
    """The sigmoid chain's layer1 → x (step 39): the formula card writes the contribution
    [-1.881 …] ×10⁻⁵ and the upstream [-5.096 …] ×10⁻⁵; the dock wrote -1.88e-05 in its grid
    and -1.880924e-05, -5.0958577e-05 in its sum."""
    w = window(SAMPLES_DIR / "nets_2_sigmoid_chain.json", shown=False)
    step = next(s for s in w.player.steps if s.kind == "contribution" and s.title == "layer1's matmul → x")
    w.player.set_index(step.index)
    w.player.finish_animation()
    panel = w.provenance
    prov = panel.select_entry(0)
    pictures = {label: shown for label, _, _, shown in render_painter.formula_pictures(w.canvas.renderer, step)}
    card, upstream = pictures["contribution"], pictures["upstream"]
    assert card.factor == upstream.factor == "×10⁻⁵"
    assert panel.grid.text_at(0) == card.table[0][0].strip() and panel.grid.factor == card.factor
    assert card.factor in panel.heading.text()
    value = card.table[0][0].strip() + card.factor
    assert panel.sum_label.text() == prov.text() and prov.text().endswith(f" = {value}")
    # The sum's first factor is the card's upstream, with more digits where the shown sum needs
    # them to check out (3a9149f; on haswell and sandybridge's float32 paths it reads
    # -5.0959×10⁻⁵ beside the card's -5.096): it agrees with the card within the card's rounding.
    first = re.match(r"\((-?\d+\.(\d+))(×10⁻⁵)\)·", panel.numbers_label.text())
    assert first is not None and first.group(3) == upstream.factor, panel.numbers_label.text()
    shown = upstream.table[0][0].strip()
    assert len(first.group(2)) >= len(shown.partition(".")[2])
    assert abs(float(first.group(1)) - float(shown)) <= 0.5 * 10.0 ** -len(shown.partition(".")[2]) + 1e-12
    assert panel.numbers_label.text().endswith(f" = {value}")
    assert "e-0" not in panel.sum_label.text() + panel.numbers_label.text()


def test_the_dock_names_the_operands_as_the_card_does(window):
    """Issue 20 §1: the card reads 'grad_upstream = g · b' with 'where b (grad) ='; the dock
    wrote 'grad upstream[0,0] = 1·grad[0,0]' (grad, the node, beside the sum's own 'grad' of
    the gradient), headed its grid 'operand b' and left out the upstream g."""
    w = window(shown=False)
    w.controller.set_document(sibling_doc())
    step = next(s for s in w.player.steps if s.kind == "contribution" and s.port == Port("n0"))
    assert step.formula == "grad_upstream = g · b" and step.operand_nodes["b"] == "grad"
    w.player.set_index(step.index)
    panel = w.provenance
    panel.select_entry(0)
    assert panel.sum_label.text() == "grad upstream[0,0] = 1.000·b[0,0] = 1.000"
    headings = [panel.sources_box.itemAt(i).widget().text()
                for i in range(0, panel.sources_box.count(), 2)]
    assert headings == ["upstream cotangent <b>g</b> 2×2 · float32: the entries this sum uses",
                        "operand <b>b (grad)</b> 2×2 · float32: the entries this sum uses"]
    np.testing.assert_array_equal(panel.sources["b"].array, [[1, 2], [0.5, 1]])
    np.testing.assert_array_equal(panel.sources["g"].array, np.ones((2, 2)))
    # the upstream's ones as the card writes them in this story of decimals (not 1 here)
    card = {label: shown for label, _, _, shown in render_painter.formula_pictures(w.canvas.renderer, step)}
    assert card["upstream"].table[0][0].strip() == panel.sources["g"].text_at(0) == "1.000"
    assert w.canvas.step_overlay.highlight == {"contribution": [0], "upstream": [0], "b": [0]}


@pytest.mark.parametrize("width", [300, 340, 420])
def test_a_grid_wider_than_its_dock_shows_whole_columns(qtbot, width):
    """Walk-through at 1280 x 800 (20_l19_s9.png): the provenance dock showed BatchNorm's
    7 x 8 contribution with its column 5 cut after '0.36' (it is 0.362), a number that reads
    as another. A grid wider than its dock shows whole columns, scrolled a column at a time,
    wherever it is scrolled; every number is whole in its column."""
    grid = TensorGrid("contribution")
    qtbot.addWidget(grid)
    grid.resize(width, 300)
    grid.show()
    qtbot.waitExposed(grid)
    values = np.linspace(-0.905, 0.822, 56, dtype=np.float32).reshape(7, 8)
    grid.set_array(values)
    qtbot.wait(20)
    bar = grid.horizontalScrollBar()
    assert bar.maximum() > 0                            # wider than the dock: it scrolls
    metrics = grid.fontMetrics()
    for value in range(bar.minimum(), bar.maximum() + 1):
        bar.setValue(value)
        qtbot.wait(5)
        assert not cut_columns(grid), (value, cut_columns(grid))
    for c in range(grid.columnCount()):
        widest = max(metrics.horizontalAdvance(grid.item(r, c).text()) for r in range(grid.rowCount()))
        assert widest <= grid.columnWidth(c)


def _headers(grid):
    rows = [grid.verticalHeaderItem(r).text() for r in range(grid.rowCount())] \
        if not grid.verticalHeader().isHidden() else None
    cols = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())] \
        if not grid.horizontalHeader().isHidden() else None
    return rows, cols


def test_a_table_heads_only_the_indices_its_tensor_has(qtbot):
    """Lesson 5's seed (a vector) and lesson 13's scalars showed a row headed '0' (issue 20
    §1): a scalar has no index, a vector's entries are [0], [1], … along its one row; a
    matrix keeps its row and column indices."""
    grid = TensorGrid("g")
    qtbot.addWidget(grid)
    grid.set_array(np.float32(1.5))
    assert _headers(grid) == (None, None) and grid.text_at(0) == "1.500"
    assert grid.item(0, 0).toolTip() == "g = 1.5"
    grid.set_array(np.array([2.0, 3.0], np.float32))
    assert _headers(grid) == (None, ["[0]", "[1]"])
    assert grid.item(0, 1).toolTip() == "g[1] = 3"
    grid.set_array(np.array([[2.0, 3.0]], np.float32))
    assert _headers(grid) == (["0"], ["0", "1"])
