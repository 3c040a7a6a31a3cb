"""The Random… fill's dialog says in words whose values it fills (a heading of its own: with
no window manager, on a projector, a dialog has no title bar) and opens beside the
inspector, where it hides neither the node's card nor the canvas."""
from pathlib import Path

import numpy as np

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QApplication

import app_ui
from gradviz.app.inspector.tensor_editor import clear_spot


def opened_dialog(qtbot, editor):
    """The Random fill dialog as it opens from `editor`'s Random… button (then cancelled)."""
    seen = {}

    def look():
        dialog = QApplication.activeModalWidget()
        seen.update(title=dialog.windowTitle(), heading=dialog.heading.text(),
                    shown=dialog.heading.isVisible(), frame=dialog.frameGeometry())
        dialog.reject()
    QTimer.singleShot(50, editor, look)
    qtbot.mouseClick(editor.random_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "frame" in seen)
    return seen


def global_rect(widget, rect):
    return QRect(widget.mapToGlobal(rect.topLeft()), rect.size())


def test_random_fill_names_the_node_and_hides_no_card(open_window, qtbot):
    w = open_window(size=(1280, 800))
    app_ui.click_card(qtbot, w.canvas, "tf_b")
    seen = opened_dialog(qtbot, w.inspector.page.value_editor)
    assert seen["title"] == "Random values for tf_b"
    assert seen["heading"] == "Fill tf_b with random numbers" and seen["shown"]
    view = w.canvas.viewport()
    assert not seen["frame"].intersects(global_rect(view, view.rect()))
    card = w.canvas.mapFromScene(w.canvas.scene_item("tf_b").sceneBoundingRect()).boundingRect()
    assert not seen["frame"].intersects(global_rect(view, card))
    assert (w.screen().availableGeometry() | w.frameGeometry()).contains(seen["frame"])


def test_the_seed_fill_names_its_target(open_window, qtbot):
    w = open_window()
    w.controller.set_selection([])
    qtbot.waitUntil(lambda: bool(getattr(w.inspector.page, "seed_editors", None)))
    ones, editor = next(iter(w.inspector.page.seed_editors.values()))
    ones.setChecked(False)
    qtbot.waitUntil(editor.random_button.isVisible)
    seen = opened_dialog(qtbot, editor)
    assert seen["heading"] == "Fill the seed of y_tf with random numbers"
    view = w.canvas.viewport()
    assert not seen["frame"].intersects(global_rect(view, view.rect()))


def test_clear_spot_goes_above_the_button_where_below_covers_the_card():
    size, button, column = QSize(200, 100), QRect(900, 300, 60, 20), QRect(800, 100, 300, 400)
    room = QRect(0, 0, 1280, 800)
    assert clear_spot(size, button, column, [], room).toTuple() == (900, 324)
    card = QRect(850, 330, 100, 50)                       # under the button
    assert clear_spot(size, button, column, [card], room).toTuple() == (900, 196)


def test_a_layer_weight_fill_names_the_layer_and_its_weight(open_window, qtbot):
    """A Dense layer's weights are filled from the same dialog: it said 'Random values for'
    with nothing after it (the weight editor had no subject), and kept no card in view."""
    w = open_window(Path(__file__).resolve().parents[3] / "samples" / "000_layer_hessian.json", size=(1280, 800))
    app_ui.click_card(qtbot, w.canvas, "layer")
    page = w.inspector.page
    qtbot.waitUntil(lambda: getattr(page, "weight_editor", None) is not None)
    page.weight_choice.setCurrentText("kernel")
    seen = opened_dialog(qtbot, page.weight_editor)
    assert seen["title"] == "Random values for layer's kernel"
    assert seen["heading"] == "Fill layer's kernel with random numbers"
    view = w.canvas.viewport()
    card = w.canvas.mapFromScene(w.canvas.scene_item("layer").sceneBoundingRect()).boundingRect()
    assert not seen["frame"].intersects(global_rect(view, card))


def filled(qtbot, editor, seed=None):
    """`editor`'s values after its Random… dialog is accepted (with `seed` typed, if any),
    and the seed the dialog proposed."""
    seen = {}

    def accept():
        dialog = QApplication.activeModalWidget()
        seen["proposed"] = dialog.seed.value()
        if seed is not None:
            dialog.seed.setValue(seed)
        dialog.accept()
    QTimer.singleShot(0, editor, accept)
    editor.random_dialog()
    return editor.array(), seen["proposed"]


def test_each_fill_differs_unless_the_user_sets_the_seed(qtbot):
    """Both Variables filled with the dialog as it opened held the same numbers (seed 0 by
    default: W was x again). A fill takes a fresh seed unless the user types one, which is
    then kept (same seed, same numbers); the values are the tensor's, saved with it."""
    from gradviz.app.inspector.tensor_editor import TensorEditor, random_values
    first, second = TensorEditor(), TensorEditor()
    for editor in (first, second):
        qtbot.addWidget(editor)
        editor.set_array(np.zeros((3, 4), np.float32))
    x, _ = filled(qtbot, first)
    w, _ = filled(qtbot, second)
    again, _ = filled(qtbot, first)
    assert not np.array_equal(x, w) and not np.array_equal(x, again)
    chosen, _ = filled(qtbot, second, seed=7)
    assert np.array_equal(chosen, random_values((3, 4), "normal", 7, 0.0, 1.0).astype(np.float32))
    kept, proposed = filled(qtbot, second)
    assert proposed == 7 and np.array_equal(kept, chosen)
