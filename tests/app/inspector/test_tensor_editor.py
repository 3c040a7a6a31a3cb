import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from app_ui import cut_columns
from gradviz.app.inspector.tensor_editor import (TensorEditor, TensorTextError, parse_tensor_text,
                                       tensor_text)


@pytest.mark.parametrize("text, expected", [
    ("array([[1., 2.], [3., 4.]], dtype=float32)", [[1, 2], [3, 4]]),
    ("array([[1., 2.],\n       [3., 4.]], dtype=float32)", [[1, 2], [3, 4]]),
    ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]),
    ("[[1. 2.]\n [3. 4.]]", [[1, 2], [3, 4]]),                       # print(array)
    ("tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)", [[1, 2], [3, 4]]),
    ("<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>",
     [1, 2]),
    ("1,2\n3,4\n", [[1, 2], [3, 4]]),
    ("1\t2\n3\t4", [[1, 2], [3, 4]]),
    ("1 2 3", [1, 2, 3]),
    ("2.5", 2.5),
    ("array(3., dtype=float32)", 3.0),
    ("[1e-3, -2E2, .5]", [1e-3, -200, 0.5]),
])
def test_parse_tensor_text(text, expected):
    np.testing.assert_array_equal(parse_tensor_text(text), np.array(expected, np.float64))


def test_parse_nan_inf():
    a = parse_tensor_text("[nan, inf, -inf]")
    assert np.isnan(a[0]) and a[1] == np.inf and a[2] == -np.inf


@pytest.mark.parametrize("text, words", [
    ("1,2,3,4\n5,6,7\n", "row 2 has 3 values, expected 4"),
    ("[[1, 2, 3, 4], [5, 6, 7]]", "row 2 has 3 values, expected 4"),
    ("[[1, 2], [3, x]]", "'x' is not a number"),
    ("1,2\n3,abc", "row 2, column 2: 'abc' is not a number"),
    ("[[1, 2], [3, 4]", "']' is missing"),
    ("[1, 2, ..., 9]", "abbreviated"),
    ("__import__('os')", "is not a number"),
    ("", "empty"),
])
def test_parse_errors_in_words(text, words):
    with pytest.raises(TensorTextError) as e:
        parse_tensor_text(text)
    assert words in str(e.value)


def test_copy_text_round_trips_float32_exactly():
    a = np.random.default_rng(3).normal(size=(3, 4)).astype(np.float32)
    text = tensor_text(a)
    assert text.startswith("array([[") and "dtype=float32" in text
    np.testing.assert_array_equal(parse_tensor_text(text).astype(np.float32), a)


@pytest.fixture
def editor(qtbot):
    w = TensorEditor()
    qtbot.addWidget(w)
    w.set_array(np.array([[1, 2], [3, 4]], np.float32))
    return w


def test_typing_a_cell_emits_once(editor, qtbot):
    seen = []
    editor.valueEdited.connect(seen.append)
    assert editor.model.setData(editor.model.index(1, 0), "7.5")
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], [[1, 2], [7.5, 4]])
    assert seen[0].dtype == np.float32


def test_typing_through_the_view(editor, qtbot):
    editor.show()
    seen = []
    editor.valueEdited.connect(seen.append)
    editor.view.setCurrentIndex(editor.model.index(0, 1))
    qtbot.keyClick(editor.view, Qt.Key_F2)
    line = editor.view.findChild(QLineEdit)
    line.selectAll()
    qtbot.keyClicks(line, "9")
    qtbot.keyClick(line, Qt.Key_Return)  # the delegate commits through a queued call
    qtbot.waitUntil(lambda: len(seen) == 1)
    assert seen[0][0, 1] == 9


def test_non_number_refused_with_message(editor):
    seen = []
    editor.valueEdited.connect(seen.append)
    assert not editor.model.setData(editor.model.index(0, 0), "abc")
    assert seen == []
    assert "'abc' is not a number" in editor.message_text()
    np.testing.assert_array_equal(editor.array(), [[1, 2], [3, 4]])


def test_nan_allowed_but_flagged(editor):
    seen = []
    editor.valueEdited.connect(seen.append)
    assert editor.model.setData(editor.model.index(0, 0), "nan")
    assert np.isnan(seen[0][0, 0])
    assert "nan or inf" in editor.message_text()
    assert editor.model.data(editor.model.index(0, 0), Qt.BackgroundRole) is not None


def test_paste_numpy_and_csv(editor):
    seen = []
    editor.valueEdited.connect(seen.append)
    assert editor.set_text("array([[5., 6.], [7., 8.]], dtype=float32)")
    np.testing.assert_array_equal(seen[-1], [[5, 6], [7, 8]])
    asked = []
    editor.confirm = lambda text: asked.append(text) or False
    assert not editor.set_text("1,2,3\n4,5,6")  # a new shape is asked about first
    assert "2×3" in asked[0] and "2×2" in asked[0] and len(seen) == 1
    np.testing.assert_array_equal(editor.array(), [[5, 6], [7, 8]])
    editor.confirm = lambda text: True
    assert editor.set_text("1,2,3\n4,5,6")  # allowed once agreed (unless fixed_shape)
    assert seen[-1].shape == (2, 3) and seen[-1].dtype == np.float32
    assert len(seen) == 2


def test_paste_from_clipboard(editor, qtbot):
    from PySide6.QtWidgets import QApplication
    QApplication.clipboard().setText("[[9, 8], [7, 6]]")
    seen = []
    editor.valueEdited.connect(seen.append)
    editor.paste_button.click()
    np.testing.assert_array_equal(seen[0], [[9, 8], [7, 6]])
    editor.copy_button.click()
    assert QApplication.clipboard().text() == "array([[9., 8.],\n       [7., 6.]], dtype=float32)"


def test_malformed_paste_changes_nothing(editor):
    seen = []
    editor.valueEdited.connect(seen.append)
    assert not editor.set_text("1,2,3,4\n5,6,7")
    assert seen == []
    assert "row 2 has 3 values, expected 4" in editor.message_text()
    assert "Nothing was changed" in editor.message_text()
    np.testing.assert_array_equal(editor.array(), [[1, 2], [3, 4]])


def test_fixed_shape_refuses_other_shapes(editor):
    editor.fixed_shape = True
    assert not editor.set_text("[1, 2, 3]")
    assert "needs shape [2, 2]" in editor.message_text()
    assert editor.set_text("1 2 3 4")  # same number of values: reshaped
    np.testing.assert_array_equal(editor.array(), [[1, 2], [3, 4]])


def test_random_fill_is_reproducible(editor):
    seen = []
    editor.valueEdited.connect(seen.append)
    editor.random_fill("normal", seed=7)
    editor.random_fill("uniform", seed=7, a=-1, b=1)
    editor.random_fill("normal", seed=7)
    np.testing.assert_array_equal(seen[0], seen[2])
    assert not np.array_equal(seen[0], seen[1])
    np.testing.assert_array_equal(
        seen[0], np.random.default_rng(7).normal(0, 1, (2, 2)).astype(np.float32))
    assert np.all(np.abs(seen[1]) <= 1)


def test_int_tensor_refuses_fractions(qtbot):
    w = TensorEditor()
    qtbot.addWidget(w)
    w.set_array(np.array([1, 2], np.int32))
    assert not w.model.setData(w.model.index(0, 0), "1.5")
    assert "whole numbers" in w.message_text()
    assert w.model.setData(w.model.index(0, 0), "5")
    assert w.array().dtype == np.int32 and w.array()[0] == 5


def test_scalar_and_large_tensors(qtbot):
    w = TensorEditor()
    qtbot.addWidget(w)
    w.set_array(np.float32(3))
    assert w.model.rowCount() == 1 and w.model.columnCount() == 1
    assert w.model.setData(w.model.index(0, 0), "4")
    assert w.array().shape == () and w.array() == 4
    big = np.arange(30 * 30, dtype=np.float32).reshape(30, 30)
    w.set_array(big)
    assert not w.view.isVisibleTo(w) and w.summary.isVisibleTo(w)
    assert "30, 30" in w.summary.text()
    w.random_fill(seed=1)
    assert w.array().shape == (30, 30)
    cube = np.zeros((2, 3, 4), np.float32)
    w.set_array(cube)
    assert not w.view.isVisibleTo(w)
    assert w.set_text(tensor_text(np.ones((2, 3, 4), np.float32)))
    assert w.array().shape == (2, 3, 4)


def test_read_only_refuses_edits(qtbot):
    w = TensorEditor(read_only=True)
    qtbot.addWidget(w)
    w.set_array(np.zeros(2, np.float32))
    assert not w.model.setData(w.model.index(0, 0), "1")
    assert not w.set_text("[1, 2]")
    assert not w.random_fill(seed=1)


def test_scalar_grid_has_exactly_one_row(qtbot):
    w = TensorEditor()
    qtbot.addWidget(w)
    w.set_array(np.float32(2.5))
    w.show()
    qtbot.waitExposed(w)
    view = w.view
    assert not view.horizontalHeader().isVisible() and not view.verticalHeader().isVisible()
    assert view.height() == view.rowHeight(0) + 2 * view.frameWidth()
    w.set_array(np.arange(3, dtype=np.float32))        # a vector: a header and one row
    assert view.height() == (view.horizontalHeader().sizeHint().height() + view.rowHeight(0)
                             + 2 * view.frameWidth())


def test_same_shape_updates_keep_the_cell_cursor(editor, qtbot):
    editor.show()
    editor.view.setCurrentIndex(editor.model.index(1, 1))
    resets = []
    editor.model.modelReset.connect(lambda: resets.append(1))
    editor.set_array(np.array([[5, 6], [7, 8]], np.float32))   # e.g. after an undo
    assert not resets
    assert (editor.view.currentIndex().row(), editor.view.currentIndex().column()) == (1, 1)
    assert editor.model.data(editor.model.index(1, 1)) == "8"
    editor.set_array(np.zeros((3, 3), np.float32))              # another shape: a reset
    assert resets


def test_the_value_grid_shows_every_number_whole_in_the_cards_format(open_window, qtbot, tmp_path):
    """Walk-through at 1280x800: W1's 3×4 grid cut its values ("-0.1321…", "-0.6232…") and
    wrote 6 digits beside the card's 3 decimals. The grid writes each value as the card
    does (render.preview's format), every column holds its widest number, and the tool
    buttons keep their text whole; the editor still holds the full value."""
    import app_ui
    from gradviz.graph import Document, Node, save
    from gradviz.render import preview
    values = np.array([[0.12573, -0.132105, 0.640423, 0.1049],
                       [-0.535669, 0.361595, 1.304, 0.947081],
                       [-0.703735, -1.26542, -0.623274, 0.041326]], np.float32)
    doc = Document()
    doc.add(Node("W1", "variable", value=values))
    path = tmp_path / "w1.gradviz.json"
    save(doc, path)
    w = open_window(path)
    app_ui.click_card(qtbot, w.canvas, "W1")
    editor = w.inspector.page.value_editor
    qtbot.waitUntil(lambda: editor.isVisible())
    grid, model = editor.view, editor.model
    fmt = preview.number_format(values)
    metrics = grid.fontMetrics()
    columns = grid.horizontalHeader()
    for r in range(3):
        for c in range(4):
            shown = model.data(model.index(r, c), Qt.DisplayRole)
            assert shown == fmt(values[r, c].item()), (r, c, shown)     # "-0.132", as the card
            assert columns.sectionSize(c) >= metrics.horizontalAdvance(shown) + 8, (c, shown)
    assert model.data(model.index(0, 1), Qt.EditRole) == str(values[0, 1])   # the full value
    for button in (editor.random_button, editor.paste_button, editor.copy_button):
        assert button.width() >= button.sizeHint().width(), button.text()


@pytest.mark.parametrize("width", [320, 420])
def test_a_grid_wider_than_the_inspector_shows_whole_columns(qtbot, width):
    """As the provenance dock's (test_provenance): a 7 x 8 value in the inspector at 1280 x
    800 showed its last column in part, a number cut to another. A grid wider than the dock
    shows whole columns wherever it is scrolled, each number whole, after an edit too."""
    w = TensorEditor()
    qtbot.addWidget(w)
    w.resize(width, 400)
    w.show()
    qtbot.waitExposed(w)
    w.set_array(np.linspace(-0.905, 0.822, 56, dtype=np.float32).reshape(7, 8))
    qtbot.wait(20)
    grid = w.view
    bar = grid.horizontalScrollBar()
    assert bar.maximum() > 0
    for edit in (False, True):
        if edit:
            assert w.model.setData(w.model.index(0, 0), "-1234.5678")
            qtbot.wait(20)
        for value in range(bar.minimum(), bar.maximum() + 1):
            bar.setValue(value)
            qtbot.wait(5)
            assert not cut_columns(grid), (edit, value, cut_columns(grid))
        metrics = grid.fontMetrics()
        for c in range(w.model.columnCount()):
            widest = max(metrics.horizontalAdvance(w.model.data(w.model.index(r, c))) for r in range(7))
            assert widest <= grid.columnWidth(c), (edit, c)


def test_a_grid_of_small_numbers_writes_them_as_the_card_does(qtbot):
    """The inspector's Result grid wrote 1.16e-08 where the card writes 0.116 beside ×10⁻⁷
    (a card's mantissas and one power of ten); its column then cut '-9.71e-'. A summary of a
    tensor too large for the grid wrote min 1.16e-08 too."""
    from gradviz.story.numbers import line_format, written
    w = TensorEditor(read_only=True)
    qtbot.addWidget(w)
    small = np.array([[1.16e-8, -1.38e-8, 1.03e-7, -9.71e-8], [0, 0, 0, 0]], np.float32)
    w.set_array(small)
    write, factor = written(small)
    assert factor == "×10⁻⁷"
    assert w.model.texts() == [write(v) for v in small.ravel().tolist()]
    assert w.model.texts()[:4] == ["0.116", "-0.138", "1.030", "-0.971"]
    assert w.shape_label.text().endswith("cells ×10⁻⁷")
    w.set_array(np.array([[0.5, 1.0]], np.float32))        # an ordinary tensor: no factor
    assert w.model.texts() == ["0.500", "1.000"] and "×10" not in w.shape_label.text()
    big = np.full((30, 30), 2.5e-8, np.float32)
    w.set_array(big)
    number = line_format(big.min(), big.max(), big.astype(np.float64).mean())
    assert f"min {number(big.min())}" in w.summary.text() and "e-" not in w.summary.text()
