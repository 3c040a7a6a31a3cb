from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from gradviz.app.controller import DocumentController
from gradviz.app.inspector.panel import DocumentPage, InspectorWidget, NodePage, parse_attr
from gradviz.engine.layers import glorot_limit
from gradviz.graph import CONSTANT, OP, Document, Node, catalog, fileformat, save
from gradviz.graph.document import Port

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@pytest.fixture
def make(qtbot):
    made = []

    def make(sample):
        c = DocumentController()
        made.append(c)
        c.open(SAMPLES / sample)
        w = InspectorWidget(c)
        w.confirm = lambda text: True
        qtbot.addWidget(w)
        w.resize(380, 900)
        w.show()
        return c, w
    yield make
    for c in made:  # the undo stack outlives its controller during teardown
        c.undo_stack.blockSignals(True)


def grad(c, node):
    return c.result.evaluation.gradients[Port(node)]


def test_document_page_when_nothing_selected(make):
    c, w = make("004_matmul_sum.json")
    assert isinstance(w.page, DocumentPage)
    assert w.page.title.edit.text() == c.doc.title
    c.set_selection(["y_tf"])
    assert isinstance(w.page, NodePage)
    assert "matmul" in w.page.subtitle.text()
    assert "a @ b" in w.page.subtitle.toolTip()
    c.set_selection([])
    assert isinstance(w.page, DocumentPage)


def test_toggle_transpose_is_one_undo_step(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    c.set_selection(["y_tf"])
    before = c.text()
    box = w.page.attr_widgets["transpose_b"]
    box.click()
    assert c.doc.nodes["y_tf"].attrs["transpose_b"] is True
    b = c.doc.nodes["tf_b"].value
    np.testing.assert_allclose(grad(c, "tf_t"), np.tile(b.sum(axis=0), (5, 1)), rtol=1e-6)
    c.undo_stack.undo()
    assert c.text() == before
    assert isinstance(w.page, NodePage) and not w.page.attr_widgets["transpose_b"].isChecked()
    c.undo_stack.redo()
    assert w.page.attr_widgets["transpose_b"].isChecked()


def test_typing_into_the_grid_recomputes_gradient(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    page = w.page
    model = page.value_editor.model
    assert model.setData(model.index(0, 0), "10")
    assert c.doc.nodes["tf_b"].value[0, 0] == 10
    b = c.doc.nodes["tf_b"].value
    expected = np.tile(b.sum(axis=1), (5, 1))
    np.testing.assert_allclose(grad(c, "tf_t"), expected, rtol=1e-6)
    assert w.page is page  # updated in place, not rebuilt
    c.set_selection(["tf_t"])
    np.testing.assert_array_equal(w.page.grad_view.array(), grad(c, "tf_t"))
    assert w.page.grad_view.isVisibleTo(w.page)
    c.undo_stack.undo()
    assert c.doc.nodes["tf_b"].value[0, 0] == np.float32(0.43842274)


def test_paste_and_malformed_paste_on_a_node(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    editor = w.page.value_editor
    depth = c.undo_stack.count()
    assert editor.set_text("[[1, 0, 0], [0, 1, 0], [0, 0, 1]]")
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, np.eye(3))
    np.testing.assert_allclose(grad(c, "tf_t"), np.ones((5, 3)))
    assert c.undo_stack.count() == depth + 1
    text = c.text()
    assert not editor.set_text("1,2,3\n4,5")
    assert "row 2 has 2 values, expected 3" in editor.message_text()
    assert c.text() == text and c.undo_stack.count() == depth + 1
    assert editor.set_text("1\t2\t3\n4\t5\t6\n7\t8\t9")
    assert c.doc.nodes["tf_b"].value[2, 2] == 9


def test_random_fill_with_seed_is_reproducible(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    w.page.value_editor.random_fill("normal", seed=42)
    first = c.doc.nodes["tf_b"].value.copy()
    w.page.value_editor.random_fill("normal", seed=1)
    w.page.value_editor.random_fill("normal", seed=42)
    np.testing.assert_array_equal(c.doc.nodes["tf_b"].value, first)
    assert first.dtype == np.float32


def test_shape_change_resizes_with_confirmation(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    asked = []
    w.confirm = lambda text: asked.append(text) or False
    w.page.shape.edit.setText("3, 4")
    w.page.shape.commit()
    assert "3 new entries are set to 0" in asked[0]
    assert c.doc.nodes["tf_b"].value.shape == (3, 3)  # declined: nothing changed
    w.confirm = lambda text: True
    w.page.shape.edit.setText("3, 4")
    w.page.shape.commit()
    v = c.doc.nodes["tf_b"].value
    assert v.shape == (3, 4) and np.all(v[:, 3] == 0)
    np.testing.assert_array_equal(w.page.value_editor.array(), v)
    w.page.shape.edit.setText("3, x")
    w.page.shape.commit()
    assert "'x' is not a whole number" in w.page.shape.error.text()


def test_bad_attribute_text_is_refused_in_words(make):
    c, w = make("001_dense_jacobian.json")
    c.add_node("op", "reduce_sum")
    nid = c.selection[0]
    field = w.page.attr_widgets["axis"]
    field.edit.setText("1, two")
    field.commit()
    assert "'two' is not a whole number" in field.error.text()
    assert c.doc.nodes[nid].attrs["axis"] is None
    field.edit.setText("0, 1")
    field.commit()
    assert c.doc.nodes[nid].attrs["axis"] == [0, 1]
    assert not field.error.isVisibleTo(field)
    keep = w.page.attr_widgets["keepdims"]
    keep.click()
    assert c.doc.nodes[nid].attrs["keepdims"] is True


def test_attribute_values_the_file_format_refuses_are_refused_in_the_editor(make):
    """clip_norm -1 fits the kind (a number) but not the range: accepted, the document's
    text no longer loaded (found by the monkey test)."""
    c, w = make("001_dense_jacobian.json")
    c.add_node("custom_gradient", "clip_by_norm")
    nid = c.selection[0]
    field = w.page.attr_widgets["clip_norm"]
    field.edit.setText("-1")
    field.commit()
    assert "clip_norm must be more than 0.0, got -1.0" in field.error.text()
    assert catalog.full_attrs(c.doc.nodes[nid])["clip_norm"] == 1.0
    fileformat.loads(c.text(), strict=False)
    c.add_node("op", "math.argmax")
    combo = w.page.attr_widgets["output_type"]
    assert [combo.itemText(i) for i in range(combo.count())] == ["int32", "int64"]
    c.add_node("op", "nn.dropout")
    rate = w.page.attr_widgets["rate"]
    rate.edit.setText("1")
    rate.commit()
    assert "rate must be at least 0 and less than 1" in rate.error.text()
    c.add_node("layer", "Embedding")
    assert w.page.attr_widgets["input_dim"].minimum() == 1


def test_layer_activation_and_weights(make):
    c, w = make("001_dense_jacobian.json")
    c.set_selection(["layer"])
    combo = w.page.attr_widgets["activation"]
    i = combo.findText("tanh")
    combo.activated.emit(i)
    assert c.doc.nodes["layer"].attrs["activation"] == "tanh"
    units = w.page.attr_widgets["units"]
    units.setValue(4)
    assert c.doc.nodes["layer"].weights["kernel"].shape[1] == 4  # resized in the same edit
    assert c.doc.nodes["layer"].weights["bias"].shape == (4,)
    assert c.result.ok
    c.undo_stack.undo()
    assert c.doc.nodes["layer"].attrs["units"] == 10
    w.page.weight_choice.setCurrentText("bias")
    assert w.page.weight_editor.array().shape == (10,)
    assert w.page.weight_editor.set_text(",".join(["0.5"] * 10))
    assert np.all(c.doc.nodes["layer"].weights["bias"] == 0.5)
    assert not w.page.weight_editor.set_text("[1, 2]")
    assert "needs shape [10]" in w.page.weight_editor.message_text()


def test_target_and_source_toggles(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    w.page.role_boxes[("sources", 0)].click()
    assert c.doc.sources == [Port("tf_t"), Port("tf_b")]
    t = c.doc.nodes["tf_t"].value
    np.testing.assert_allclose(grad(c, "tf_b"), np.tile(t.sum(axis=0)[:, None], (1, 3)),
                               rtol=1e-6)
    np.testing.assert_allclose(w.page.grad_view.array(), grad(c, "tf_b"))
    c.undo_stack.undo()
    assert c.doc.sources == [Port("tf_t")]
    assert not w.page.role_boxes[("sources", 0)].isChecked()
    c.set_selection(["y_tf"])
    w.page.role_boxes[("targets", 0)].click()
    assert c.doc.targets == []
    c.set_selection([])
    page = w.page
    item = page.target_list.findItems("y_tf", Qt.MatchExactly)[0]
    item.setCheckState(Qt.Checked)
    assert c.doc.targets == [Port("y_tf")]
    item = w.page.source_list.findItems("tf_t", Qt.MatchExactly)[0]
    item.setCheckState(Qt.Unchecked)
    assert c.doc.sources == []


def test_output_gradients_vjp_seed_002(make):
    c, w = make("002_vjp_output_gradients.json")
    np.testing.assert_allclose(grad(c, "x"), [4, 12])
    ones, editor = w.page.seed_editors[Port("y")]
    assert not ones.isChecked()
    np.testing.assert_array_equal(editor.array(), [2, 3])
    ones.click()  # back to the default seed: ones · dy/dx = 2x
    assert Port("y") not in c.doc.output_gradients
    np.testing.assert_allclose(grad(c, "x"), [2, 4])
    ones.click()
    w.page.seed_editors[Port("y")][1].set_text("[2, 3]")
    np.testing.assert_array_equal(c.doc.output_gradients[Port("y")], [2, 3])
    np.testing.assert_allclose(grad(c, "x"), [4, 12])
    np.testing.assert_allclose(w.page.grad_views[Port("x")][0].array(), [4, 12])
    assert not w.page.seed_editors[Port("y")][1].set_text("[1, 2, 3]")  # shape mismatch
    np.testing.assert_array_equal(c.doc.output_gradients[Port("y")], [2, 3])


def test_tape_settings(make):
    c, w = make("004_matmul_sum.json")
    page = w.page
    page.persistent.click()
    assert c.doc.tape.persistent is True
    page.watch_accessed.click()
    assert c.doc.tape.watch_accessed_variables is False
    # tf_b is not watched any more; tf_t is (watched=True) so the gradient stays
    assert grad(c, "tf_t") is not None
    item = page.stop_list.findItems("y_tf", Qt.MatchExactly)[0]
    item.setCheckState(Qt.Checked)
    assert c.doc.tape.stop_recording == ["y_tf"]
    assert grad(c, "tf_t") is None  # nothing recorded: the gradient is None, as in TF
    c.undo_stack.undo()
    assert c.doc.tape.stop_recording == []
    assert w.page.stop_list.findItems("y_tf", Qt.MatchExactly)[0].checkState() == Qt.Unchecked
    c.undo_stack.undo()
    c.undo_stack.undo()
    assert not w.page.persistent.isChecked() and w.page.watch_accessed.isChecked()


def test_title_and_lesson(make):
    c, w = make("004_matmul_sum.json")
    w.page.title.edit.setText("New title")
    w.page.title.commit()
    assert c.doc.title == "New title"
    w.page.lesson.setPlainText("line one\nline two")
    w.page.lesson.committed.emit(w.page.lesson.toPlainText())
    assert c.doc.lesson == "line one\nline two"
    c.undo_stack.undo()
    c.undo_stack.undo()
    assert w.page.title.edit.text() == c.doc.title != "New title"


def test_typing_survives_evaluation(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_t"])
    page = w.page
    page.label.edit.setFocus()
    page.label.edit.setText("half typed")
    page.label.edit.setModified(True)
    c.recompute()  # e.g. another widget's edit
    assert w.page is page and page.label.edit.text() == "half typed"


def test_a_new_page_starts_at_its_title(make, qtbot):
    c, w = make("004_matmul_sum.json")
    w.resize(380, 300)
    c.set_selection(["y_tf"])
    qtbot.wait(10)
    bar = w.scroll.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    old = w.page
    c.set_selection(["tf_t"])
    qtbot.wait(10)
    assert w.page is not old and bar.value() == 0
    assert w.page.isVisible() and w.scroll.widget().findChildren(type(old)) == [w.page]

def test_node_problems_in_red(make):
    c, w = make("004_matmul_sum.json")
    c.set_selection(["tf_b"])
    w.page.value_editor.set_text("[[1, 2], [3, 4]]")  # 5x3 @ 2x2: a shape mismatch
    c.set_selection(["y_tf"])
    assert w.page.problems.isVisibleTo(w.page)
    assert "shape" in w.page.problems.text().lower()
    c.undo_stack.undo()
    assert not w.page.problems.isVisibleTo(w.page)


@pytest.mark.parametrize("kind, text, value", [
    ("axis", "", None), ("axis", "-1", -1), ("axis", "[0, 1]", [0, 1]),
    ("ints", "2, 3", [2, 3]), ("ints", "", []),
    ("index", "0, 1:3, ...", [0, [1, 3, None], "..."]), ("index", "::2", [[None, None, 2]]),
    ("paddings", "1, 1; 0, 2", [[1, 1], [0, 2]]), ("paddings", "[[1, 1]]", [[1, 1]]),
    ("float", "1e-3", 0.001),
])
def test_parse_attr(kind, text, value):
    assert parse_attr(kind, text) == value
    assert catalog.check_attr(kind, value) is None


def test_new_layer_gets_weights_then_connects(make):
    c, w = make("004_matmul_sum.json")
    nid = c.add_node("layer", "Dense")
    assert w.page.build_row.isVisibleTo(w.page)
    w.page.input_width.setValue(3)
    w.page.build_weights.click()
    assert c.doc.nodes[nid].weights["kernel"].shape == (3, 1)
    assert not w.page.build_row.isVisibleTo(w.page)
    assert c.connect(Port("tf_t"), Port(nid)) is None
    assert c.result.evaluation.values[Port(nid)].shape == (5, 1)


def test_lists_and_headers_use_the_users_names(qtbot, labelled_mlp):
    """x1/w2/w5 are ids; the student named the nodes x, W1, W2 (issue 20 §2)."""
    c = DocumentController()
    c.set_document(labelled_mlp())
    w = InspectorWidget(c)
    qtbot.addWidget(w)
    page = w.page
    texts = [page.source_list.item(i).text() for i in range(page.source_list.count())]
    assert {"x", "W1", "W2", "reduce_sum7"} <= set(texts) and "w2" not in texts
    stops = [page.stop_list.item(i).text() for i in range(page.stop_list.count())]
    assert "W1" in stops and "w2" not in stops
    headings = [lab.text() for lab in page.findChildren(type(page.problems)) if "∂" in lab.text()]
    assert "∂reduce_sum7 / ∂W1" in headings and "∂reduce_sum7 / ∂W2" in headings
    page.source_list.findItems("W2", Qt.MatchExactly)[0].setCheckState(Qt.Unchecked)
    assert c.doc.sources == [Port("w2")]                 # the file still keys by id
    c.set_selection(["w2"])
    assert w.page.grad_heading.text() == "Gradient  ∂reduce_sum7 / ∂W1"
    c.undo_stack.blockSignals(True)


def test_fresh_nodes_are_named_like_tensorflow(qtbot):
    c = DocumentController()
    ids = [c.add_node("op", "matmul") for _ in range(2)] + [c.add_node("variable")]
    assert ids == ["matmul", "matmul_1", "w"]
    c.undo_stack.blockSignals(True)


# -- convolution nodes ---------------------------------------------------------------------

def _conv_document(path):
    """x (1, 5, 5, 2) -> nn.conv2d(w, SAME) -> reduce_sum, saved at `path`."""
    doc = Document(title="conv")
    rng = np.random.default_rng(0)
    doc.add(Node("x", CONSTANT, value=rng.standard_normal((1, 5, 5, 2)).astype(np.float32),
                 watched=True))
    doc.add(Node("w", CONSTANT, value=rng.standard_normal((3, 3, 2, 1)).astype(np.float32)))
    doc.add(Node("conv", OP, op="nn.conv2d", attrs={"padding": "SAME"}))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "conv", dst_index=0)
    doc.connect("w", "conv", dst_index=1)
    doc.connect("conv", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("x")]
    save(doc, path)
    return str(path)


def test_padding_is_a_menu_of_tfs_values(make, tmp_path):
    c, w = make(_conv_document(tmp_path / "conv.json"))
    c.set_selection(["conv"])
    combo = w.page.attr_widgets["padding"]
    assert isinstance(combo, QComboBox) and combo.currentText() == "SAME"
    assert [combo.itemText(i) for i in range(combo.count())] == ["SAME", "VALID", "EXPLICIT"]
    combo.activated.emit(combo.findText("VALID"))
    assert c.doc.nodes["conv"].attrs["padding"] == "VALID"
    assert c.result.evaluation.values[Port("conv")].shape == (1, 3, 3, 1)


def test_a_new_conv2d_layer_gets_keras_weights_and_resizes_them(make, tmp_path):
    c, w = make(_conv_document(tmp_path / "conv.json"))
    nid = c.add_node("layer", "Conv2D")
    assert [w.page.attr_widgets["padding"].itemText(i) for i in range(2)] == ["valid", "same"]
    assert c.connect(Port("x"), Port(nid)) is not None  # no weights yet: refused
    w.page.input_width.setValue(2)
    w.page.build_weights.click()
    kernel = c.doc.nodes[nid].weights["kernel"]
    assert kernel.shape == (3, 3, 2, 1) and c.doc.nodes[nid].weights["bias"].shape == (1,)
    assert 0 < np.abs(kernel).max() <= glorot_limit((3, 3, 2, 1))
    assert c.connect(Port("x"), Port(nid)) is None
    assert c.result.evaluation.values[Port(nid)].shape == (1, 3, 3, 1)
    w.page.attr_widgets["filters"].setValue(4)
    assert c.doc.nodes[nid].weights["kernel"].shape == (3, 3, 2, 4)
    assert c.doc.nodes[nid].weights["bias"].shape == (4,)
    assert c.result.evaluation.values[Port(nid)].shape == (1, 3, 3, 4)


def test_the_op_s_signature_names_its_operands_as_its_ports(make):
    """For the node y = x * x, 'multiply(x, y): x * y' would give y, the product, a second
    meaning: the page writes the operands as the ports read (a, b; c, d once the product is
    named b)."""
    c, w = make("002_vjp_output_gradients.json")
    c.set_selection(["y"])
    assert w.page.doc_label.text() == "multiply(a, b): a * b"
    c.set_field("y", "label", "b")
    assert w.page.doc_label.text() == "multiply(c, d): c * d"


def test_the_op_line_says_what_the_op_computes_not_its_name_again():
    """Walk-through: the inspector wrote "nn.relu(a): nn.relu(a)". For every catalog op the
    line is "call: what it computes", the two sides differ and the right one does not
    start with the op's name; the operands are named as the node's ports are."""
    from gradviz.app.canvas.palette import palette_entries
    from gradviz.app.inspector.node_page import _doc_of

    def check(name, line):
        call, _, said = line.partition("): ") if "): " in line else line.partition(": ")
        short = name.rpartition(".")[2]
        first = said.split()[0].strip("`(") if said else ""
        assert said and said != call + ")", line
        assert first not in (name, short, short.split("_")[0]), line

    for name in catalog.OPS:
        doc = Document()
        check(name, _doc_of(doc.add(Node("n", OP, op=name)), doc))
    tips = {op: tip for _, kind, op, _, tip in palette_entries() if kind == OP}
    assert set(tips) == set(catalog.OPS)
    for name, tip in tips.items():
        check(name, tip)
    doc = Document()
    relu = doc.add(Node("relu", OP, op="nn.relu"))
    assert _doc_of(relu, doc) == "nn.relu(x): max(x, 0)"
    # A node x that does not feed relu leaves its port x (a port keeps the catalog's letter
    # until a clash is real, 075b01c: a fresh add beside nodes a and b read add(c, d)); wired
    # from a node y, the line names y.
    doc.add(Node("x", CONSTANT, value=np.zeros(2, np.float32)))
    assert _doc_of(relu, doc) == "nn.relu(x): max(x, 0)"
    doc.add(Node("y", CONSTANT, value=np.zeros(2, np.float32)))
    doc.connect("y", "relu")
    assert _doc_of(relu, doc) == "nn.relu(y): max(y, 0)"


def test_a_nodes_label_field_shows_its_name_as_text(make):
    """The student's x (named by its id, no label) showed as a grey placeholder beside W1
    and W2 written as text (issue 20 §4). The field holds the name the canvas writes;
    leaving it, or emptying it, changes nothing; typing renames."""
    c, w = make("004_matmul_sum.json")
    assert c.doc.nodes["tf_t"].label == ""
    c.set_selection(["tf_t"])
    page = w.page
    assert page.label.edit.text() == "tf_t" and page.label.edit.placeholderText() == ""
    count = c.undo_stack.count()
    page.label.edit.setText("tf_t")
    page.label.edit.setModified(True)
    page.label.commit()
    page.label.edit.setText("")
    page.label.edit.setModified(True)
    page.label.commit()
    assert c.undo_stack.count() == count and c.doc.nodes["tf_t"].label == ""
    assert page.label.edit.text() == "tf_t"
    page.label.edit.setText("t")
    page.label.edit.setModified(True)
    page.label.commit()
    assert c.doc.nodes["tf_t"].label == "t" and w.page.label.edit.text() == "t"


def test_lists_of_ticks_give_each_row_its_height(make):
    """stop_recording's rows were 14 px, less than their tick boxes: each row's box covered
    the row above, and 'tf_t' read 'tf t' (issue 20 §4). Each row is as tall as its box and
    its font's line, and the list shows its rows (up to 6) whole."""
    from PySide6.QtWidgets import QStyle
    c, w = make("004_matmul_sum.json")
    page = w.page
    for lst in (page.stop_list, page.target_list, page.source_list):
        box = lst.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorHeight, None, lst)
        rects = [lst.visualItemRect(lst.item(i)) for i in range(lst.count())]
        assert len(rects) == 3
        for a, b in zip(rects, rects[1:]):
            assert a.bottom() < b.top()
        for r in rects:
            assert r.height() >= max(box, lst.fontMetrics().height()) + 2
            assert lst.viewport().rect().contains(r)


# -- a relu's dead units ----------------------------------------------------------------------

def _relu_document(path):
    """x (3 examples, 4 units) -> nn.relu labelled 'hidden' -> reduce_sum; units 0 and 2 of
    hidden are 0 for every example (x's columns 0 and 2 are negative)."""
    doc = Document(title="dead units")
    doc.add(Node("x", CONSTANT, value=np.array([[-1, 2, -3, 4], [-2, 1, -1, .5], [-5, 3, -2, 1]],
                                                 np.float32), watched=True))
    doc.add(Node("relu", OP, op="nn.relu", label="hidden"))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "relu")
    doc.connect("relu", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("x")]
    save(doc, path)
    return str(path)


def test_the_inspector_says_which_relu_units_are_dead(make, tmp_path):
    """The card of a relu whose units are dead over the batch says '⚠ dead relu: units 0, 2
    (of 4; 3 examples)'; the inspector on that node said nothing of it (issue 20 walk-through).
    It says it in words, naming the node by its label: how many, which, and why no gradient
    passes. The units are read from the computed value, as the card reads them."""
    from gradviz.render import Renderer
    from gradviz.story.dead_units import dead_units
    c, w = make(_relu_document(tmp_path / "dead.json"))
    c.set_selection(["hidden"])      # (the file format names a node by its label)
    value = c.result.evaluation.values[Port("hidden")]
    dead = dead_units(value)
    assert dead == [int(u) for u in np.flatnonzero((c.doc.nodes["x"].value <= 0).all(axis=0))]
    note = w.page.relu_units
    assert note.isVisibleTo(w.page)
    text = note.text()
    units = " and ".join([", ".join(map(str, dead[:-1])), str(dead[-1])])
    assert text.startswith(f"⚠ hidden: {len(dead)} of its {value.shape[-1]} relu units are dead "
                           f"for this batch ({value.shape[0]} examples), units {units}: ")
    assert "relu" not in w.page.title.text() and "hidden" in w.page.title.text()
    card = Renderer(c.doc, evaluation=c.result.evaluation).cards["hidden"]
    assert card.mark.startswith(f"⚠ dead relu: units {', '.join(map(str, dead))} ")   # as the card says
    c.set_selection(["loss"])
    assert not w.page.relu_units.isVisibleTo(w.page)


def test_the_inspector_says_which_units_are_off_for_the_one_example(make):
    """The relu chain (one example): layer5's card says '✕ relu off for this example: units
    3, 4, 5 (of 6)'; its inspector says so, as relu at work, not as a warning."""
    from gradviz.story.dead_units import dead_units
    c, w = make("nets_2_relu_chain.json")
    for nid, node in c.doc.nodes.items():
        if node.kind != "layer":
            continue
        c.set_selection([nid])
        off = dead_units(c.result.evaluation.values[Port(nid)])
        text = w.page.relu_units.text()
        assert text.startswith(f"{node.label or nid}: {len(off)} of its 6 relu units ")
        assert "off for this example" in text and not text.startswith("⚠")
        assert f"units {', '.join(map(str, off[:-1]))} and {off[-1]}:" in text


def test_a_refused_shape_says_why_in_every_line(qtbot):
    """At 1280 x 800, '5000, 5000' typed in a Variable's shape: the refusal '25000000 values
    is too many for the editor (at most 1000000)' wraps to three lines in the narrow field,
    and the inspector's short column gave it two lines' height, its first and last lines
    cut. A field squeezed below its words' height keeps them whole."""
    from gradviz.app.inspector.fields import LineField
    words = "25000000 values is too many for the editor (at most 1000000)"
    field = LineField(int, lambda value: words)
    qtbot.addWidget(field)
    field.show()
    field.edit.setText("5000")
    field.edit.setModified(True)
    field.commit()
    field.resize(150, 30)                      # narrower and shorter than the words need
    qtbot.wait(20)
    error = field.error
    assert error.text() == words and error.isVisible()
    assert error.heightForWidth(error.width()) > error.fontMetrics().height() * 2   # it wraps
    assert error.height() >= error.heightForWidth(error.width()), error.size()
