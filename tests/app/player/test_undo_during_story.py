"""Undo and Redo of an edit made while a story step is shown (issue 20 §3, §4): they put back
exactly what the teacher saw before and after the edit (every card where it stood, the zoom
and the scroll, the step shown) and lay nothing out. An auditor opened the BatchNorm lesson at
1280x800, played to step 9, added a card with Tab and pressed Ctrl+Z: the whole graph was laid
out afresh (layer1 left the view), as the canvas lays out a document that places no node,
because the undo gave the placing back to the canvas and the canvas had forgotten where its
cards stood. The same for every kind of edit, and for an edit made in the editing view."""
import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QPoint, Qt
from PySide6.QtGui import QCursor

from gradviz.app.canvas import editing, moving
from gradviz.app.player.lessons import lesson_entries, open_lesson
from gradviz.graph.document import CONSTANT, VARIABLE, Port
from gradviz.render import painter as render_painter

from app_ui import add_by_palette, click_card, drag_card, settle

CTRL = Qt.KeyboardModifier.ControlModifier
# "fitted move": a drag after Fit to Window, which may have laid the cards out as tall as
# drawn compact: the drag places every card and pushes apart those that would overlap drawn
# in full (lesson 14 at step 14).
EDITS = ["tab", "palette", "connect", "delete", "value", "move", "fitted move"]
STEPS = [("001_batchnorm_pitfall", 9), ("001_input_gradient_regularization", 14), ("004_matmul_sum", 3)]


def _settle(qtbot, w):
    for _ in range(3):
        QCoreApplication.processEvents()
        qtbot.wait(30)                # the player's frame timer, make_room's, the canvas's repaint
        w.player.finish_animation()
    settle(w.canvas)
    QCoreApplication.processEvents()


def _seen(w):
    """What the teacher sees: every card's place, the zoom, the scroll, the step and where
    its rule card stands."""
    c, step = w.canvas, w.player.step
    return {"cards": {nid: (round(item.pos().x(), 1), round(item.pos().y(), 1))
                      for nid, item in c.node_items.items()},
            "zoom": c.transform().m11(),
            "scroll": (c.horizontalScrollBar().value(), c.verticalScrollBar().value()),
            "step": w.player.index,
            "rule card": None if step is None else render_painter.formula_rect(c.renderer, step)}


@pytest.fixture
def layouts(monkeypatch):
    """Counts the canvas's layout runs (the render layer's layout, wherever the canvas calls it)."""
    runs = []
    for module in (editing, moving):
        real = module.layout_positions

        def counted(*args, real=real, **kwargs):
            runs.append(1)
            return real(*args, **kwargs)
        monkeypatch.setattr(module, "layout_positions", counted)
    return runs


def _connectable(controller):
    """(output, input) of two nodes the document does not join yet that may be joined: the
    first found in the document's order."""
    doc = controller.doc
    joined = {(e.src.node, e.dst) for e in doc.edges}
    inputs = [e.dst for e in doc.edges]
    for dst in inputs:
        for nid in doc.nodes:
            src = Port(nid, 0)
            if (nid, dst) not in joined and controller.connection_problem(src, dst) is None:
                return src, dst
    raise AssertionError("no two nodes to connect")


def _edit(kind, qtbot, w):
    c, controller = w.canvas, w.controller
    port = c.viewport().rect()
    if kind == "tab":
        QCursor.setPos(c.viewport().mapToGlobal(QPoint(int(port.width() * 0.9), int(port.height() * 0.5))))
        qtbot.keyClick(c, Qt.Key.Key_Tab)
        qtbot.keyClicks(c._quick.edit, "relu")
        qtbot.keyClick(c._quick.edit, Qt.Key.Key_Return)
    elif kind == "palette":
        add_by_palette(controller, w.palette, "exp")
    elif kind == "connect":
        src, dst = _connectable(controller)
        assert c.try_connect(src, dst) is None
    elif kind == "delete":
        target = controller.doc.targets[0].node
        click_card(qtbot, c, target)
        qtbot.keyClick(c, Qt.Key.Key_Delete)
        assert target not in controller.doc.nodes
    elif kind == "value":   # larger numbers: the card grows and pushes its neighbours
        nid = next(n for n, node in controller.doc.nodes.items() if node.kind in (CONSTANT, VARIABLE))
        controller.set_value(nid, np.asarray(controller.doc.nodes[nid].value) * 1000 - 12345.5)
    elif kind in ("move", "fitted move"):
        nid = (w.player.step.node if w.player.step is not None and w.player.step.node in c.node_items
               else next(iter(c.node_items)))
        drag_card(qtbot, c, nid, QPoint(40, 60))


def _undo_redo(qtbot, w, layouts, before, after, where):
    c, stack = w.canvas, w.controller.undo_stack
    layouts.clear()
    index = stack.index()
    c.setFocus()
    qtbot.keyClick(c, Qt.Key.Key_Z, CTRL)
    _settle(qtbot, w)
    assert stack.index() == index - 1, where
    assert _seen(w) == before, where
    qtbot.keyClick(c, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    _settle(qtbot, w)
    assert stack.index() == index, where
    assert _seen(w) == after, where
    assert not layouts, where


def _open_at(open_window, qtbot, stem, step, kind):
    """The lesson `stem` at 1280x800 at `step` (0: the editing view), fitted to the window for
    a fitted move; the canvas has the keyboard."""
    w = open_window(None, size=(1280, 800))
    assert open_lesson(w, next(entry for entry in lesson_entries() if entry.path.stem == stem), ask=False)
    _settle(qtbot, w)
    w.player.set_index(step - 1)
    _settle(qtbot, w)
    if kind == "fitted move":
        w.canvas.fit()
        _settle(qtbot, w)
    w.canvas.setFocus()
    return w


@pytest.mark.parametrize("kind", EDITS)
@pytest.mark.parametrize("stem, step", STEPS)
def test_undo_and_redo_of_an_edit_during_a_step_put_back_what_was_seen(open_window, qtbot, layouts,
                                                                          stem, step, kind):
    w = _open_at(open_window, qtbot, stem, step, kind)
    before = _seen(w)
    count = w.controller.undo_stack.count()
    _edit(kind, qtbot, w)
    _settle(qtbot, w)
    assert w.controller.undo_stack.count() == count + 1, (stem, kind)
    after = _seen(w)
    if kind not in ("connect", "value"):     # (those may leave every card where it was)
        assert after["cards"] != before["cards"], (stem, kind)
    _undo_redo(qtbot, w, layouts, before, after, (stem, step, kind))


@pytest.mark.parametrize("kind", EDITS)
def test_undo_and_redo_of_an_edit_in_the_editing_view_put_back_what_was_seen(open_window, qtbot, layouts,
                                                                               kind):
    """No step shown: undo and redo leave the player in the editing view and put the cards
    and the view back as well."""
    w = _open_at(open_window, qtbot, "001_batchnorm_pitfall", 0, kind)
    before = _seen(w)
    _edit(kind, qtbot, w)
    _settle(qtbot, w)
    after = _seen(w)
    assert after["step"] == -1, kind
    _undo_redo(qtbot, w, layouts, before, after, kind)


def _selected(w):
    """The nodes selected, in the controller and as the canvas draws them."""
    c = w.canvas
    return (sorted(w.controller.selection),
            sorted(nid for nid, item in c.node_items.items() if item.isSelected()))


@pytest.mark.parametrize("kind", EDITS)
def test_undo_and_redo_select_what_was_selected_before_and_after_the_edit(open_window, qtbot, kind):
    """Undo selects what was selected as the edit began, Redo what the edit had selected (a
    card added with Tab, then Ctrl+Z and Ctrl+Shift+Z, was no longer selected: the redo kept
    the undo's empty selection)."""
    w = _open_at(open_window, qtbot, "001_batchnorm_pitfall", 0, kind)
    c = w.canvas
    # something selected before the edit (what a delete deletes, as _edit clicks it)
    first = w.controller.doc.targets[0].node if kind == "delete" else next(iter(c.node_items))
    click_card(qtbot, c, first)
    _settle(qtbot, w)
    before = _selected(w)
    assert before[0] == [first], kind
    nodes = set(w.controller.doc.nodes)
    _edit(kind, qtbot, w)
    _settle(qtbot, w)
    after = _selected(w)
    if kind in ("tab", "palette"):      # the edit selects the node it adds
        assert after[0] == sorted(set(w.controller.doc.nodes) - nodes), kind
    c.setFocus()
    qtbot.keyClick(c, Qt.Key.Key_Z, CTRL)
    _settle(qtbot, w)
    assert _selected(w) == (before[0], before[0]), kind
    qtbot.keyClick(c, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    _settle(qtbot, w)
    assert _selected(w) == (after[0], after[0]), kind
