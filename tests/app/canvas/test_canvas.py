"""The canvas and palette, driven like a user: seed 004 built by palette and port drags.

Seed 004: t (5x3) @ b (3x3), tape.gradient(y, t) = every row [-0.17307831, 1.1900724, 2.245003].
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QDropEvent, QImage, QPainter
from PySide6.QtWidgets import QApplication

import app_ui
import gradviz as tf
from gradviz.app.canvas.view import PALETTE_MIME, CanvasView, EdgeItem
from gradviz.app.controller import DocumentController
from gradviz.graph import fileformat
from gradviz.graph.document import CONSTANT, VARIABLE, Document, Node, Port

T = np.array([[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
              [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]], np.float32)
B = np.array([[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
              [1.4204658, 1.2609464, -0.43640924]], np.float32)
ROW = np.array([-0.17307831, 1.1900724, 2.245003], np.float32)


def test_seed_004_built_by_palette_ports_and_typing(qtbot, open_window):
    """In the real window: palette double-clicks and a drop, shapes and matrices typed
    into the inspector, ports dragged, roles from the palette; the gradient the inspector
    shows is the engine's."""
    w = open_window()
    controller, canvas, palette = w.controller, w.canvas, w.palette
    messages = []
    controller.message.connect(messages.append)
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # File > New
    assert not controller.doc.nodes
    t = app_ui.add_by_palette(controller, palette, "Watched tensor")
    assert controller.selection == [t] and w.inspector.page.node_id == t
    app_ui.type_field(qtbot, w.inspector.page.shape.edit, "5, 3")
    app_ui.type_matrix(qtbot, w.inspector.page.value_editor.view, T.tolist())
    b = app_ui.add_by_palette(controller, palette, "Constant")
    app_ui.type_field(qtbot, w.inspector.page.shape.edit, "3, 3")
    app_ui.type_matrix(qtbot, w.inspector.page.value_editor.view, B.tolist())
    np.testing.assert_array_equal(controller.doc.nodes[t].value, T)
    np.testing.assert_array_equal(controller.doc.nodes[b].value, B)
    assert controller.doc.nodes[t].watched and controller.doc.nodes[t].value.dtype == np.float32

    # The matmul comes from a drag-and-drop of its palette entry onto free canvas.
    mime = palette.tree.mimeData([palette.entry_item("matmul")])
    assert json.loads(bytes(mime.data(PALETTE_MIME)).decode()) == {"kind": "op", "op": "matmul"}
    right = max(item.sceneBoundingRect().right() for item in canvas.node_items.values())
    drop_at = QPointF(right + 200, canvas.scene_item(t).scenePos().y() + 60)
    canvas.centerOn(drop_at)
    before = set(controller.doc.nodes)
    drop = QDropEvent(QPointF(canvas.mapFromScene(drop_at)), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    canvas.dropEvent(drop)
    (m,) = [n for n in controller.doc.nodes if n not in before]
    pos = controller.doc.nodes[m].position
    assert abs(pos[0] + 60 - drop_at.x()) < 1.5 and abs(pos[1] + 20 - drop_at.y()) < 1.5

    qtbot.keyClick(canvas, Qt.Key.Key_F)        # fit, so every port is on screen
    app_ui.drag_port(qtbot, canvas, canvas.scene_item(t).ports_out[0],
                     canvas.scene_item(m).ports_in[0])
    app_ui.drag_port(qtbot, canvas, canvas.scene_item(m).ports_in[1],
                     canvas.scene_item(b).ports_out[0])
    assert {(e.src, e.dst) for e in controller.doc.edges} == {(Port(t), Port(m, 0)),
                                                              (Port(b), Port(m, 1))}
    assert len(canvas.edge_items) == 2

    # Target = matmul output, source = t, through the gradient tools acting on the selection.
    app_ui.click_card(qtbot, canvas, m)
    assert controller.selection == [m]
    app_ui.double_click_entry(palette, "Mark as target")
    app_ui.click_card(qtbot, canvas, t)
    assert controller.selection == [t]
    app_ui.double_click_entry(palette, "Mark as source")
    assert controller.doc.targets == [Port(m)] and controller.doc.sources == [Port(t)]
    assert controller.result.ok, controller.result.problems

    # The engine's own answer, written as in the seed.
    tt, bb = tf.constant(T), tf.constant(B)
    with tf.GradientTape() as tape:
        tape.watch(tt)
        y = tf.matmul(tt, bb)
    expected = tape.gradient(y, tt).numpy()
    np.testing.assert_allclose(expected, np.tile(ROW, (5, 1)), rtol=1e-6)
    # The inspector follows once the canvas has painted the new result.
    qtbot.waitUntil(lambda: w.inspector.page.node_id == t and w.inspector.page.grad_view.isVisibleTo(w.inspector.page))
    page = w.inspector.page
    np.testing.assert_array_equal(page.grad_view.array(), expected)   # what the inspector shows
    np.testing.assert_array_equal(canvas.scene_item(t).gradient, expected)  # and the card
    assert canvas.scene_item(t).card.has_gradient

    # A cycle is refused, with the reason at the cursor and in the status bar.
    tanh = canvas.add_node_at("op", "tanh", canvas.scene_item(m).sceneBoundingRect().topRight()
                              + QPointF(80, 40))
    qtbot.keyClick(canvas, Qt.Key.Key_F)
    app_ui.drag_port(qtbot, canvas, canvas.scene_item(m).ports_out[0],
                     canvas.scene_item(tanh).ports_in[0])
    assert Port(tanh, 0) in [e.dst for e in controller.doc.edges]
    n_edges = len(controller.doc.edges)
    app_ui.drag_port(qtbot, canvas, canvas.scene_item(tanh).ports_out[0],
                     canvas.scene_item(m).ports_in[0])
    assert len(controller.doc.edges) == n_edges
    assert "cycle" in canvas.last_refusal and "cycle" in canvas.refusal_note()
    assert messages and "cycle" in messages[-1]
    assert "cycle" in w.statusBar().currentMessage()

    # A shape that cannot work is refused, naming both shapes.
    wrong = canvas.add_node_at("constant", "", canvas.scene_item(b).sceneBoundingRect().bottomLeft()
                               + QPointF(0, 60))
    qtbot.keyClick(canvas, Qt.Key.Key_F)
    app_ui.drag_port(qtbot, canvas, canvas.scene_item(wrong).ports_out[0],
                     canvas.scene_item(m).ports_in[1])
    assert "5×3" in canvas.last_refusal and "2×2" in canvas.last_refusal   # as the cards write shapes
    assert "2×2" in canvas.refusal_note()
    assert Port(b) in [e.src for e in controller.doc.edges]   # the good edge stays
    np.testing.assert_allclose(controller.result.evaluation.gradients[Port(t)], expected, rtol=1e-6)

    # Every step undoes, back to the empty document.
    while controller.undo_stack.canUndo():
        w.actions_by_name["undo"].trigger()
    assert not controller.doc.nodes and not controller.dirty


def test_errors_show_on_the_node_that_caused_them(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    controller.set_value("tf_b", np.ones((2, 2), np.float32))  # an edit that breaks the matmul
    item = canvas.scene_item("y_tf")
    assert item.problems and "2×2" in item.problems[0].message
    assert "2×2" in item.toolTip()
    assert not canvas.scene_item("tf_t").problems
    controller.undo_stack.undo()
    assert not canvas.scene_item("y_tf").problems
    np.testing.assert_allclose(canvas.scene_item("tf_t").gradient, np.tile(ROW, (5, 1)), rtol=1e-6)


def test_undo_redo_copy_paste_duplicate_delete(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    original = controller.text()
    canvas.select_all()
    assert controller.selection == ["tf_t", "tf_b", "y_tf"]
    canvas.copy()
    ids = canvas.paste()
    assert len(ids) == 3 and len(controller.doc.edges) == 4
    np.testing.assert_array_equal(controller.doc.nodes[ids[0]].value, controller.doc.nodes["tf_t"].value)
    controller.set_selection([ids[2]])
    dup = canvas.duplicate()
    assert len(dup) == 1 and controller.doc.nodes[dup[0]].op == "matmul"
    canvas.delete_selected()
    assert dup[0] not in controller.doc.nodes
    # Select an edge by clicking it and delete it with the Delete key.
    edge_item = canvas.edge_items[next(e for e in controller.doc.edges if e.dst.node == "y_tf")]
    mid = edge_item._path.pointAtPercent(0.5)
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=canvas.mapFromScene(mid))
    assert edge_item.isSelected()
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Delete)
    assert edge_item.edge not in controller.doc.edges
    assert not any(isinstance(i, EdgeItem) and i.edge == edge_item.edge for i in canvas.scene().items())
    canvas.auto_layout()
    while controller.undo_stack.canUndo():
        controller.undo_stack.undo()
    assert controller.text() == original
    assert set(canvas.node_items) == {"tf_t", "tf_b", "y_tf"} and len(canvas.edge_items) == 2
    while controller.undo_stack.canRedo():
        controller.undo_stack.redo()
    assert len(controller.doc.nodes) == 6
    fileformat.loads(controller.text(), strict=False)


def test_incremental_updates_keep_unchanged_items(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    items = dict(canvas.node_items)
    edge_items = dict(canvas.edge_items)
    controller.set_value("tf_b", np.eye(3, dtype=np.float32))
    assert canvas.node_items == items and canvas.edge_items == edge_items
    np.testing.assert_allclose(canvas.scene_item("tf_t").gradient, np.ones((5, 3)), rtol=1e-6)
    np.testing.assert_allclose(canvas.scene_item("y_tf").value, T, rtol=1e-6)


def _cards_overlap(canvas):
    rects = {nid: item.sceneBoundingRect() for nid, item in canvas.node_items.items()}
    return [(a, b) for a in rects for b in rects if a < b and rects[a].intersects(rects[b])]


def test_new_pasted_and_duplicated_nodes_land_in_free_space(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    canvas.fit()
    assert not _cards_overlap(canvas)
    centre = canvas.view_centre()
    added = [app_ui.add_by_palette(controller, palette, "matmul") for _ in range(3)]
    assert not _cards_overlap(canvas)
    for nid in added:   # near the centre of the view, not somewhere far off
        x, y = controller.doc.nodes[nid].position
        assert abs(x - centre.x()) < 700 and abs(y - centre.y()) < 700
    controller.set_selection(["tf_b"])
    canvas.copy()
    dup = canvas.duplicate()
    pasted = canvas.paste()
    pasted_again = canvas.paste()
    assert len(dup) == len(pasted) == len(pasted_again) == 1
    assert not _cards_overlap(canvas)
    positions = {controller.doc.nodes[n].position for n in dup + pasted + pasted_again}
    assert len(positions) == 3
    controller.set_selection(["tf_t", "tf_b", "y_tf"])
    canvas.copy()
    group = canvas.paste()
    assert len(group) == 3 and not _cards_overlap(canvas)
    old, new = canvas.positions["tf_t"], controller.doc.nodes[group[0]].position
    old_b, new_b = canvas.positions["tf_b"], controller.doc.nodes[group[1]].position
    assert (new[0] - old[0], new[1] - old[1]) == pytest.approx((new_b[0] - old_b[0], new_b[1] - old_b[1]))


def _nearest_free_by_lattice(rect, occupied, within, step=2.0):
    """free_spot checked by brute force: every corner on a `step` lattice around `rect`'s,
    as far as the farthest card reaches; the least shift of those that keep SPACING / 2
    from every card (beyond the cards every place is free). Only the corners of the square
    of half side `within` are tested (a lattice corner outside it is farther than `within`,
    so it cannot be nearer than the shift checked): inf when none of those is free. The
    whole lattice, 2.25 million corners tested against 120 cards, took 11 s of the suite."""
    from gradviz.app.canvas.editing import SPACING
    gap, (w, h) = SPACING / 2, (rect.width(), rect.height())
    reach = max(max(abs(o.left() - rect.left()), abs(o.right() - rect.left()),
                    abs(o.top() - rect.top()), abs(o.bottom() - rect.top())) for o in occupied) + w + h
    span = np.arange(-reach, reach + step, step)
    span = span[np.abs(span) <= within]
    x, y = (g.ravel() + c for g, c in zip(np.meshgrid(span, span), (rect.left(), rect.top())))
    free = np.ones(x.shape, bool)
    for o in occupied:
        free &= ~((x - gap < o.right()) & (o.left() < x + w + gap)
                  & (y - gap < o.bottom()) & (o.top() < y + h + gap))
    return np.hypot(x[free] - rect.left(), y[free] - rect.top()).min(initial=np.inf)


def test_free_spot_finds_the_nearest_free_place(editor):
    """The canvas computes the nearest free place from the cards' sides, not by sampling:
    it keeps SPACING / 2 from every card and no place on a 2-unit lattice is nearer (the
    rings of 40-unit steps it searched before missed the gaps between them), near and far,
    and past a card that covers everything."""
    from gradviz.app.canvas.editing import SPACING
    canvas = editor[1]
    rng = np.random.default_rng(5)
    shifts = []
    for n in [1, 5, 20, 60, 120] * 2:
        occupied = [QRectF(*rng.integers(-900, 900, 2), *rng.integers(60, 300, 2)) for _ in range(n)]
        rect = QRectF(*rng.integers(-300, 300, 2), 282.0, 165.0)
        got = canvas.free_spot(rect, occupied)
        placed = QRectF(got, rect.size()).adjusted(*(d * SPACING / 2 for d in (-1, -1, 1, 1)))
        assert not any(placed.intersects(o) for o in occupied), n   # touching is free
        shift = np.hypot(got.x() - rect.left(), got.y() - rect.top())
        assert shift <= _nearest_free_by_lattice(rect, occupied, within=shift) + 1e-6, n
        shifts.append(shift)
    assert min(shifts) == 0 and max(shifts) >= 300   # free where it stands, and far from it
    everything = [QRectF(-5000, -5000, 10000, 10000)]
    assert canvas.free_spot(QRectF(0, 0, 282, 165), everything) in (QPointF(0, 5012), QPointF(5012, 0))


def test_a_port_with_nothing_to_paint_costs_no_paint(qtbot, editor):
    """A port is painted only for its name (a side with several ports), a hover ring or the
    dragged wire's target ring; otherwise it is marked as having no contents."""
    from PySide6.QtWidgets import QGraphicsItem
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    no_contents = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
    matmul = canvas.scene_item("y_tf")
    out = matmul.ports_out[0]
    assert all(not p.flags() & no_contents for p in matmul.ports_in)   # "a" and "b" are named
    assert out.flags() & no_contents
    out.hoverEnterEvent(None)
    assert not out.flags() & no_contents and app_ui.item_image(out) != _blank(app_ui.item_image(out))
    out.hoverLeaveEvent(None)
    assert out.flags() & no_contents
    source = canvas.scene_item("tf_t").ports_out[0]
    canvas.start_wire(source, source.scenePos())
    canvas.update_wire(matmul.ports_in[0].scenePos())
    assert canvas._wire_target is matmul.ports_in[0]
    canvas._cancel_wire()
    assert canvas.scene_item("tf_t").ports_out[0].flags() & no_contents


def test_a_renamed_port_shows_its_new_name(qtbot):
    """Named ports paint from a cached picture: a new op's input names replace the old, and a
    port moved by a fraction of a pixel is drawn there, on screen as on a canvas made afresh
    (found in review: "a" stayed where "x" belongs)."""
    controller = DocumentController()
    controller.open("samples/004_matmul_sum.json")
    canvas = CanvasView(controller)
    qtbot.addWidget(canvas)
    canvas.resize(1200, 800)
    canvas.show()
    qtbot.waitExposed(canvas)
    app = QApplication.instance()

    def shown():
        for _ in range(10):
            app.processEvents()
        return canvas.viewport().grab().toImage()
    shown()
    canvas.fit()
    ops = {"multiply": ["a", "b"],    # the same names; its ports move with the card's new size
           "nn.softmax_cross_entropy_with_logits": ["labels", "logits"]}
    for op, names in ops.items():
        for edit, expected in ((lambda: controller.set_field("y_tf", "op", op), names),
                               (controller.undo_stack.undo, ["a", "b"])):
            edit()
            before = shown()
            canvas.sync(full=True, new_document=False)      # every item made afresh, nothing cached
            assert shown() == before, op
            assert [p.name for p in canvas.scene_item("y_tf").ports_in] == expected


def test_a_ports_bounds_follow_its_name_and_label(qtbot, editor):
    """A port keeps its bounds (Qt asks for them hundreds of times a repaint): a longer
    name, or its name shown or hidden, gives new ones."""
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    port = canvas.scene_item("y_tf").ports_in[0]
    ring = QRectF(port.boundingRect())
    assert port.show_label() and ring.contains(port.label_rect())
    port.name = "a much longer name"
    assert port.boundingRect().contains(port.label_rect()) and port.boundingRect().width() > ring.width()
    port.set_label_shown(False)
    assert not port.boundingRect().contains(port.label_rect())
    assert port.boundingRect().width() < ring.width()
    port.set_label_shown(True)
    assert port.boundingRect().contains(port.label_rect())


def test_renaming_the_target_renames_every_gradient_label(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    controller.set_field("y_tf", "label", "out")
    labels = [s.text for s in canvas.scene_item("tf_t").card.sections if s.colour == "gradient"]
    assert labels and all("∂Σout/" in t for t in labels), labels   # y_tf is 5×3: Σ


def _blank(image):
    blank = image.copy()
    blank.fill(QColor("white"))
    return blank


def test_rubber_band_selects_and_the_selection_follows_on_release(qtbot, editor):
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    canvas.fit()
    seen = []
    controller.selectionChanged.connect(seen.append)
    rect = QRectF()
    for nid in ("tf_t", "tf_b"):
        rect = rect.united(canvas.scene_item(nid).sceneBoundingRect())
    vp = canvas.viewport()
    a = canvas.mapFromScene(rect.topLeft() - QPointF(12, 12))
    b = canvas.mapFromScene(rect.bottomRight() + QPointF(6, 6))
    assert canvas.itemAt(a) is None
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    for k in range(1, 6):
        qtbot.mouseMove(vp, a + (b - a) * k / 5)
    assert not seen   # the inspector is not rebuilt on every move of the band
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)
    assert seen == [["tf_t", "tf_b"]] and controller.selection == ["tf_t", "tf_b"]


def test_a_wire_dropped_on_its_own_node_says_why(qtbot, editor):
    controller, canvas, palette, messages = editor
    controller.open("samples/004_matmul_sum.json")
    canvas.fit()
    item = canvas.scene_item("y_tf")
    app_ui.drag_port(qtbot, canvas, item.ports_out[0], item.ports_in[1])
    assert "cannot feed itself" in canvas.refusal_note()
    assert messages and "cannot feed itself" in messages[-1]
    assert len(controller.doc.edges) == 2


def _long_edge(controller, canvas):
    """Seed 004 with y_tf moved far right: the edge tf_b -> y_tf.b and its middle point."""
    controller.open("samples/004_matmul_sum.json")
    far = canvas.node_items["y_tf"]
    far.setPos(far.pos() + QPointF(900, 0))
    canvas.commit_moves()
    edge = next(e for e in canvas.edge_items if e.src.node == "tf_b")
    return edge, canvas.edge_items[edge]._path.pointAtPercent(0.5)


def test_a_card_dropped_on_an_edge_sends_the_edge_around_it(qtbot, editor):
    controller, canvas, palette, _ = editor
    edge, middle = _long_edge(controller, canvas)
    item = canvas.edge_items[edge]
    card = canvas.node_items["tf_t"]
    rect = card.sceneBoundingRect()
    card.setPos(card.pos() + (middle - rect.center()))   # drop tf_t's card onto the edge
    assert item.path_crosses(canvas.renderer.rect("tf_t"))
    canvas.commit_moves()
    item = canvas.edge_items[edge]
    assert not item.path_crosses(canvas.renderer.rect("tf_t"))


def test_a_card_that_grows_onto_an_edge_sends_the_edge_around_it(qtbot, editor):
    """An edit that makes a card taller (a value of more rows) re-routes the other edges
    it now covers, not only its own. (Its numbers differ: a compact card writes a tensor of
    one number repeated as 'all 1', a line however many rows it has.)"""
    controller, canvas, palette, _ = editor
    edge, middle = _long_edge(controller, canvas)
    nid = controller.add_node("constant")              # a card of its own, on no edge
    controller.set_value(nid, np.arange(6, dtype=np.float32).reshape(2, 3))
    qtbot.wait(5)
    card = canvas.node_items[nid]
    rect = card.sceneBoundingRect()
    card.setPos(card.pos() + QPointF(middle.x() - rect.center().x(), middle.y() - 12 - rect.bottom()))
    canvas.commit_moves()                              # just above the edge
    assert not canvas.edge_items[edge].path_crosses(canvas.renderer.rect(nid))
    controller.set_value(nid, np.arange(36, dtype=np.float32).reshape(12, 3))
    qtbot.wait(5)
    grown = canvas.renderer.rect(nid)
    assert grown.bottom() > middle.y() + 5             # the card now reaches over the old route
    assert not canvas.edge_items[edge].path_crosses(grown)

def test_copied_nodes_stay_on_the_clipboard_as_text_after_the_exit_hook(qtbot, editor):
    from gradviz.app.canvas import editing as canvas_edit
    controller, canvas, palette, _ = editor
    controller.open("samples/004_matmul_sum.json")
    controller.set_selection(["tf_t"])
    assert canvas.copy()
    copied = QApplication.clipboard().text()
    canvas_edit._take_back_clipboard()       # what runs at exit
    assert QApplication.clipboard().text() == copied and '"tf_t"' in copied
    pasted = canvas.paste()                  # and gradviz still pastes it as nodes
    assert len(pasted) == 1

QUIT_WITH_COPIED_NODES = """
from PySide6.QtWidgets import QApplication
from gradviz.app import create_window
app = QApplication([])
w = create_window(None, offer_recovery=False)
w.controller.set_selection(["tf_t"])
assert w.canvas.copy()
w.controller.undo_stack.setClean()
"""


def test_quitting_with_copied_nodes_on_the_clipboard_exits_cleanly(tmp_path):
    """Qt deleted the Python-made QMimeData after the interpreter was gone: a crash on
    quit (exit status -11) whenever nodes had been copied."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GRADVIZ_RECOVERY_DIR=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", QUIT_WITH_COPIED_NODES], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_an_edge_a_hair_over_one_pixel_is_drawn_one_pixel_wide(qtbot, editor):
    """Qt draws lines up to one device pixel on a fast path: at 60 % an edge's 1.8-unit line
    (1.08 px) is drawn 1 px wide; at 100 % and at 50 % (0.9 px) it keeps its own pen."""
    controller, canvas, _, _ = editor
    controller.open("samples/004_matmul_sum.json")
    edge = next(iter(canvas.edge_items.values()))
    image = QImage(200, 200, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    edge.paint_line(painter, 0.6)   # painted once: the item keeps its look
    painter.end()
    look = edge._look[2]
    assert look[0].widthF() == pytest.approx(1.8)
    thin = edge._on_screen(look, 0.6)
    assert thin[0].widthF() * 0.6 == pytest.approx(1.0) and thin[0].color() == look[0].color()
    assert thin[1:] == look[1:] and edge._on_screen(look, 0.6) is thin   # kept while the zoom is
    assert edge._on_screen(look, 1.0) is look and edge._on_screen(look, 0.5) is look


@pytest.mark.parametrize("sample", ["004_matmul_sum.json", "001_hessian_newton.json"])
def test_clicking_a_node_without_moving_it_changes_nothing(qtbot, open_window, app_env, sample):
    """No undo entry, no unsaved mark, no 'save changes?' on the next lesson (issue 20 §3);
    the samples' cards have no stored positions, which made a click an edit."""
    from gradviz.app.window.main_window import SAMPLES_DIR
    w = open_window(SAMPLES_DIR / sample)
    c = w.canvas
    for nid, item in list(c.node_items.items())[:3]:
        point = c.mapFromScene(item.sceneBoundingRect().center())
        qtbot.mousePress(c.viewport(), Qt.MouseButton.LeftButton, pos=point)
        qtbot.mouseRelease(c.viewport(), Qt.MouseButton.LeftButton, pos=point)
        assert w.controller.selection == [nid]
    assert w.controller.undo_stack.count() == 0 and not w.controller.dirty
    assert not w.isWindowModified()
    asked = len(app_env.asked)
    assert w.open_sample(SAMPLES_DIR / "004_single_element.json")
    assert len(app_env.asked) == asked


def test_dragging_a_node_is_one_undo_step(qtbot, open_window):
    from gradviz.app.window.main_window import SAMPLES_DIR
    w = open_window(SAMPLES_DIR / "004_matmul_sum.json")
    c = w.canvas
    item = c.node_items["tf_b"]
    start = c.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mousePress(c.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for dx in (10, 30, 60):
        QApplication.sendEvent(c.viewport(), app_ui.mouse_move_event(start + QPoint(dx, 0),
                                                         Qt.MouseButton.LeftButton))
    qtbot.mouseRelease(c.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(60, 0))
    assert w.controller.undo_stack.count() == 1 and w.controller.dirty


def test_port_names_follow_the_names_of_the_nodes(editor):
    """multiply's ports read a, b (in operand order, as its rule card names them); naming
    the product b moves the letters on to c, d (a port b would give the node b a second
    value), and naming it back frees them."""
    from pathlib import Path
    controller, canvas, _, _ = editor
    controller.open(Path(__file__).resolve().parents[3] / "samples" / "002_vjp_output_gradients.json")
    canvas.sync()

    def names():
        return [p.name for p in canvas.scene_item("y").ports_in]
    assert names() == ["a", "b"]
    controller.set_field("y", "label", "b")
    canvas.sync()
    assert names() == ["c", "d"]
    controller.set_field("y", "label", "product")
    canvas.sync()
    assert names() == ["a", "b"]


def test_pasted_copies_of_a_renamed_node_make_room_for_its_card(qtbot, editor):
    """The copied text names a node as a file does (W1 for the editor's w labelled W1); a
    paste makes room for the card it copied, not for the card of another node whose id is
    W1 (a scalar's, far smaller), so no copy hides a card."""
    controller, canvas, _, _ = editor
    doc = Document()
    doc.add(Node("W1", CONSTANT, value=np.float32(1), position=(0.0, 0.0)))
    doc.add(Node("w", VARIABLE, label="W1", value=np.arange(48, dtype=np.float32).reshape(6, 8),
                 position=(0.0, 300.0)))
    controller.set_document(doc)
    canvas.fit()
    assert not _cards_overlap(canvas)
    controller.set_selection(["w"])
    canvas.copy()
    assert '"id": "W1"' in QApplication.clipboard().text()
    wanted, free_spot = [], canvas.free_spot
    canvas.free_spot = lambda rect: (wanted.append(rect), free_spot(rect))[1]
    pasted = [canvas.paste() for _ in range(3)]
    assert all(len(p) == 1 for p in pasted) and not _cards_overlap(canvas)
    card = canvas.node_items["w"].boundingRect()
    assert [r.size() for r in wanted] == [card.size()] * 3


def test_a_cards_bounds_reach_as_far_as_its_badges_and_no_further(qtbot, editor):
    """A card's item is bounded by the card (its ports' reach, 8 units) and its badges' row as
    drawn: a narrow card without badges is not bounded 200 units wide (lesson 14's title
    slide at 1920 x 1080 measured g1_mag's bounds past the view's right edge, the card
    whole in it), and a source badge wider than its card stays inside its card's bounds."""
    controller, canvas, palette, _ = editor
    controller.open("samples/001_input_gradient_regularization.json")   # its x is a source
    r = canvas.renderer
    narrow = 0
    for nid, item in canvas.node_items.items():
        bounds, card = item.sceneBoundingRect(), r.rect(nid)
        badges = [rect for _, _, rect in r.badges(nid)]
        reach = max([card.right() + 8] + [rect.right() + 4 for rect in badges])
        assert bounds.right() == pytest.approx(reach), nid
        assert all(bounds.contains(rect) for rect in badges), nid
        narrow += not badges and card.width() < 180
    assert narrow, "a narrow card without badges"
