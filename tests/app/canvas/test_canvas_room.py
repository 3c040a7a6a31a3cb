"""Cards that grow (a gradient appears, a value gets larger) never end up over other
cards: the cards they would cover move aside, within the edit that made them grow, so
one undo restores every position (issue 20 §4)."""
import numpy as np
import pytest

import app_ui
from gradviz.app.canvas.moving import ROOM, make_room
from gradviz.graph.document import Document, Node, Port


def overlaps(canvas):
    rects = {nid: canvas.renderer.rect(nid) for nid in canvas.controller.doc.nodes}
    return [(a, b) for a in rects for b in rects if a < b and rects[a].intersects(rects[b])]


def stacked():
    """x (3x3) with y = x * 2 under it, close: x's gradient, once asked for, would cover y."""
    doc = Document(title="stacked")
    doc.add(Node("x", "variable", value=np.arange(9, dtype=np.float32).reshape(3, 3), position=(0.0, 0.0)))
    doc.add(Node("two", "constant", value=np.float32(2.0), position=(0.0, 150.0)))
    doc.add(Node("y", "op", op="multiply", position=(300.0, 40.0)))
    doc.add(Node("s", "op", op="reduce_sum", position=(560.0, 40.0)))
    doc.connect("x", "y", 0, 0)
    doc.connect("two", "y", 0, 1)
    doc.connect("y", "s")
    doc.targets = [Port("s")]
    return doc


def test_a_card_that_grows_pushes_the_cards_it_would_cover_and_undo_puts_them_back(qtbot, editor):
    controller, canvas, _, _ = editor
    controller.set_document(stacked())
    app_ui.settle(canvas)
    assert not overlaps(canvas)
    before = {nid: n.position for nid, n in controller.doc.nodes.items()}
    x_height = canvas.renderer.cards["x"].height
    controller.set_ports("sources", [Port("x")])          # x's gradient appears: x grows
    qtbot.waitUntil(lambda: canvas.positions["two"] != before["two"])   # the canvas follows the edit
    app_ui.settle(canvas)
    assert canvas.renderer.cards["x"].height > x_height + 60
    assert not overlaps(canvas)
    x = canvas.renderer.rect("x")
    assert canvas.renderer.rect("two").top() >= x.bottom() + ROOM - 1e-6   # below x, room to spare
    assert controller.undo_stack.count() == 1 and controller.undo_stack.undoText() == "Set sources"
    controller.undo_stack.undo()                          # one undo: the gradient and the move
    app_ui.settle(canvas)
    assert {nid: n.position for nid, n in controller.doc.nodes.items()} == before
    assert controller.doc.sources == [] and canvas.positions["two"] == before["two"]
    controller.undo_stack.redo()                          # and redo brings both back, moving nothing more
    app_ui.settle(canvas)
    assert not overlaps(canvas) and controller.undo_stack.count() == 1


def test_a_value_made_larger_pushes_its_neighbours_right_and_down(qtbot, editor):
    controller, canvas, _, _ = editor
    controller.set_document(stacked())
    app_ui.settle(canvas)
    controller.set_value("x", np.ones((6, 5), np.float32))   # wider and taller
    qtbot.waitUntil(lambda: not overlaps(canvas))
    assert controller.undo_stack.count() == 1
    controller.undo_stack.undo()
    app_ui.settle(canvas)
    assert controller.doc.nodes["two"].position == (0.0, 150.0)


def test_make_room_moves_the_shorter_way_and_pushes_in_turn():
    boxes = {"g": (0, 0, 100, 200), "below": (0, 150, 100, 250), "right": (80, 0, 180, 60),
             "next": (0, 260, 100, 300), "above_left": (-50, -50, 10, 10)}
    shift = make_room(boxes, ["g"], room=10)
    assert shift["below"] == (0, 60)        # down 60 (right would be 110)
    assert shift["right"] == (30, 0)        # right 30 (down would be 210)
    assert shift["next"] == (0, 60)         # pushed in turn by "below", now at 210..310
    assert "above_left" not in shift        # overlapped before, up and to the left: left alone
    moved = {n: (l + shift.get(n, (0, 0))[0], t + shift.get(n, (0, 0))[1], r + shift.get(n, (0, 0))[0],
                 b + shift.get(n, (0, 0))[1]) for n, (l, t, r, b) in boxes.items()}
    for a in ("g", "below", "right", "next"):
        for b in ("g", "below", "right", "next"):
            if a < b:
                la, ta, ra, ba = moved[a]
                lb, tb, rb, bb = moved[b]
                assert not (la < rb and lb < ra and ta < bb and tb < ba), (a, b)
