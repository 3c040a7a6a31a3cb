"""In the main window, every kind of edit (and its undo and redo) shows the engine's new
values and gradients on the canvas, and only the cards whose content changed repaint."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF
from PySide6.QtGui import QRegion

from gradviz.app.canvas import items as canvas_items
from gradviz.graph import evaluate, fileformat
from gradviz.graph.document import CONSTANT, Document, Node, Port
from gradviz.graph.names import file_ids
from gradviz.render import legible

from test_controller import W, X, clip_document, closed_form, op

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute


@pytest.fixture
def window(open_window, qtbot):
    """The clip document in the main window, shown at 1440x900 (conftest's open_window)."""
    w = open_window(size=(1440, 900))
    w.controller.set_document(clip_document())
    w.canvas.fit()
    qtbot.wait(20)
    return w


def engine_result(doc):
    """Values and gradients of an independent copy of `doc` (through the file format),
    keyed by `doc`'s ids: the file names each node by its label (names.file_ids), so the
    copy's ids are those names.

    The graph layer evaluates what can run: a stray node (the freshly added tanh before
    it is connected) stops only itself, so the target's gradients stay on the canvas."""
    memory_id = {written: nid for nid, written in file_ids(doc).items()}
    ev = evaluate(fileformat.loads(fileformat.dumps(doc), strict=False))

    def by_memory_id(tensors):
        return {Port(memory_id[p.node], p.index): v for p, v in tensors.items()}
    return by_memory_id(ev.values), by_memory_id(ev.gradients)


def assert_canvas_shows_the_engine(w):
    values, gradients = engine_result(w.controller.doc)
    canvas = w.canvas
    assert set(canvas.node_items) == set(w.controller.doc.nodes)
    for nid, item in canvas.node_items.items():
        assert item.card is canvas.renderer.cards[nid]  # what the item paints
        if Port(nid) in values:
            np.testing.assert_allclose(item.value, values[Port(nid)], rtol=1e-6)
        else:
            assert item.value is None
        if Port(nid) in gradients:
            assert item.card.has_gradient
            np.testing.assert_allclose(item.gradient, gradients[Port(nid)], rtol=1e-6)
        else:
            assert not item.card.has_gradient and item.gradient is None


def test_each_edit_and_its_undo_and_redo_show_the_engine_values(window, qtbot):
    w, c = window, window.controller
    assert_canvas_shows_the_engine(w)
    edits = [
        ("value edit", lambda: c.set_value("x", X * 0.25)),
        ("attr edit", lambda: c.set_attr("c", "clip_value_max", 2.0)),
        ("add node", lambda: w.canvas.add_node_at("op", "tanh", QPointF(600, 40))),
        ("connect", lambda: w.canvas.try_connect(Port("m"), Port(w.canvas.controller.selection[0]))),
        ("move", lambda: c.move_nodes({"w": (20.0, 260.0)})),
        ("label", lambda: c.set_field("m", "label", "product")),
    ]
    shown = []
    for name, edit in edits:
        assert edit() is None or name == "add node", name
        qtbot.wait(5)
        assert_canvas_shows_the_engine(w)
        assert w.canvas.scene_item("x").card.has_gradient, name  # a stray node hides nothing
        shown.append({nid: (None if i.value is None else i.value.copy(),
                            None if i.gradient is None else i.gradient.copy())
                      for nid, i in w.canvas.node_items.items()})
    # The values the closed form predicts, after the value and attribute edits
    _, gx, gw = closed_form(X * 0.25, clip_document().nodes["w"].value, hi=2.0)
    np.testing.assert_allclose(w.canvas.scene_item("x").gradient, gx, rtol=1e-6)
    np.testing.assert_allclose(w.canvas.scene_item("w").gradient, gw, rtol=1e-6)
    for k in reversed(range(len(edits))):
        c.undo_stack.undo()
        qtbot.wait(5)
        assert_canvas_shows_the_engine(w)
        if k:
            for nid, (value, gradient) in shown[k - 1].items():
                item = w.canvas.scene_item(nid)
                np.testing.assert_array_equal(item.value, value)
                np.testing.assert_array_equal(item.gradient, gradient)
    _, gx, gw = closed_form(X, clip_document().nodes["w"].value)
    np.testing.assert_allclose(w.canvas.scene_item("x").gradient, gx, rtol=1e-6)
    for k in range(len(edits)):
        c.undo_stack.redo()
        qtbot.wait(5)
        assert_canvas_shows_the_engine(w)
        for nid, (value, gradient) in shown[k].items():
            np.testing.assert_array_equal(w.canvas.scene_item(nid).value, value)
            np.testing.assert_array_equal(w.canvas.scene_item(nid).gradient, gradient)


def record_card_paints(w, monkeypatch, frames=None):
    """The node ids whose card is painted (its numbers typeset, the card drawn compact or
    its compact thumbnails) from now on; `frames`, a list, also gets the ids whose card
    frame is typeset."""
    painted = []
    cls = w.canvas.renderer.__class__
    numbers, frame = cls._paint_card_numbers, cls._paint_card_frame
    compact = canvas_items.NodeItem._paint_compact
    thumbnails = canvas_items.compact.paint_thumbnails
    monkeypatch.setattr(canvas_items.compact, "paint_thumbnails",
                        lambda painter, r, nid, *a: (painted.append(nid), thumbnails(painter, r, nid, *a)))
    monkeypatch.setattr(cls, "_paint_card_numbers",
                        lambda r, painter, nid, *a, **k: (painted.append(nid), numbers(r, painter, nid, *a, **k)))
    monkeypatch.setattr(cls, "_paint_card_frame",
                        lambda r, painter, nid: ((frames if frames is not None else []).append(nid),
                                                 frame(r, painter, nid)))
    monkeypatch.setattr(canvas_items.NodeItem, "_paint_compact",
                        lambda item, painter, r: (painted.append(item.nid), compact(item, painter, r)))
    return painted


def test_only_cards_whose_content_changed_repaint(window, qtbot, monkeypatch):
    w, c = window, window.controller
    frames = []
    painted = record_card_paints(w, monkeypatch, frames)
    for item in w.canvas.node_items.values():
        item.repaint_card()
    qtbot.waitUntil(lambda: set(painted) == set(c.doc.nodes) == set(frames))

    def repainted_by(edit):
        painted.clear()
        frames.clear()
        edit()
        qtbot.wait(30)
        return set(painted)

    assert repainted_by(lambda: c.set_field("m", "label", "product")) == {"m"} == set(frames)
    # New w: m, the loss and the gradient of x change; x's value and c do not. Only the
    # numbers are typeset again: every card keeps its frame.
    assert repainted_by(lambda: c.set_value("w", X)) == {"w", "m", "loss", "x"} and not frames
    x, y = w.canvas.positions["loss"]
    assert repainted_by(lambda: c.move_nodes({"loss": (x + 20.0, y + 10.0)})) == set() == set(frames)
    assert repainted_by(c.undo_stack.undo) == set() == set(frames)
    assert repainted_by(c.undo_stack.undo) == {"w", "m", "loss", "x"} and not frames


def test_a_move_keeps_every_card_and_asks_no_card_for_its_content(window, qtbot, monkeypatch):
    """A card moved (dragged, or nudged while a run updates the numbers) changes no card:
    the canvas keeps each one without working out its content again (1 ms of each move
    of the 100-node grid); a new label after it is measured again, and so is the move
    that comes after that."""
    from gradviz.app.canvas.renderer import CanvasRenderer
    w, c, canvas = window, window.controller, window.canvas
    asked = []
    content_key = CanvasRenderer._content_key
    monkeypatch.setattr(CanvasRenderer, "_content_key", lambda r, node: asked.append(node.id) or content_key(r, node))
    cards = dict(canvas.renderer.cards)
    for dx in (1.0, 2.0):
        x, y = c.doc.nodes["m"].position or canvas.positions["m"]
        c.move_nodes({"m": (x + dx, y)}, merge=False)
        qtbot.waitUntil(lambda: not canvas.waiting_for_paint)
        assert asked == [] and canvas.positions["m"] == (x + dx, y)
        assert all(canvas.renderer.cards[nid] is card for nid, card in cards.items())
    c.set_field("m", "label", "product")
    qtbot.waitUntil(lambda: not canvas.waiting_for_paint)
    assert set(asked) == set(c.doc.nodes) and canvas.renderer.cards["m"].title == "product"
    asked.clear()
    x, y = c.doc.nodes["m"].position
    c.move_nodes({"m": (x + 1.0, y)}, merge=False)
    qtbot.waitUntil(lambda: not canvas.waiting_for_paint)
    assert asked == [] and canvas.renderer.cards["m"].title == "product"


def viewport_pixels(canvas):
    image = canvas.viewport().grab().toImage()
    bits = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return bits[:, :image.width() * 4].copy()


def test_a_card_draws_its_numbers_again_only_when_they_look_otherwise(window, qtbot, monkeypatch):
    """A training run's previews change numbers many times a second, mostly in digits no
    card prints. A card whose numbers print (or, drawn compact, colour their thumbnails)
    as before keeps its picture; one whose numbers look otherwise draws them again, never
    its frame. Each time the canvas is what a fresh paint of every card gives (drawn
    compact, a value edit used to leave every card's thumbnails as they were)."""
    w, c, canvas = window, window.controller, window.canvas
    frames = []
    painted = record_card_paints(w, monkeypatch, frames)

    def repainted_by(value):
        c.set_value("w", value)
        qtbot.waitUntil(lambda: not canvas.waiting_for_paint)
        shown = viewport_pixels(canvas)
        drawn = set(painted)
        assert not frames
        for item in canvas.node_items.values():
            item.repaint_card()
        assert (viewport_pixels(canvas) == shown).all(), "the canvas is not what a fresh paint gives"
        painted.clear()
        frames.clear()
        return drawn

    viewport_pixels(canvas)
    painted.clear()
    frames.clear()
    assert not canvas.compact
    # 1.5 -> 1.500015: every number printed as before (loss 0.825 -> 0.82500825 prints 0.8250)
    assert repainted_by(W * np.float32(1 + 1e-5)) == set()
    assert repainted_by(-W) == {"w", "m", "loss", "x"}     # loss = Σ clip(x)·w, ∂loss/∂x = w inside
    # zoomed about the view's centre: about the pointer (Qt's anchor), where earlier tests
    # left it, the loss card went out of view and was not asked to paint
    scale = legible.readable_zoom(canvas.logicalDpiY()) * 0.9
    canvas.zoom_by(scale / canvas.transform().m11(), anchor_under_mouse=False)
    viewport_pixels(canvas)
    painted.clear()
    frames.clear()
    assert canvas.compact
    # Drawn compact: w twice as large colours w, m and ∂loss/∂x as before (a thumbnail
    # spans its own largest magnitude); the loss is written as a number, a new one.
    assert repainted_by(-2 * W) == {"loss"}
    assert repainted_by(W) == {"w", "m", "loss", "x"}


def test_a_short_compact_card_shows_its_thumbnail_on_the_plate_below_it(open_window, qtbot):
    """Drawn compact, a card shorter on screen than its name, shape and thumbnail band (a
    1x36 vector) draws them on a plate that stands out below it: the thumbnail, drawn in
    the numbers' own picture, is drawn there too, not cut off at the card's edge."""
    from gradviz.render import compact
    w = open_window(size=(1440, 900))
    doc = Document(title="flat")
    doc.add(Node("flat", CONSTANT, value=np.linspace(-1, 1, 36, dtype=np.float32).reshape(1, 36),
                 position=(0.0, 0.0)))
    w.controller.set_document(doc)
    canvas = w.canvas
    qtbot.waitUntil(lambda: not canvas.waiting_for_paint)
    canvas._set_scale(0.15)   # far out: the card is a few pixels tall
    canvas.centerOn(canvas.scene_item("flat"))
    viewport_pixels(canvas)
    item = canvas.scene_item("flat")
    assert canvas.compact
    _, down = compact.overhang(item.card, doc.nodes["flat"], canvas.zoom_level(), scale=canvas.compact_scale())
    assert down > 0   # the plate stands out below the card
    below = canvas.mapFromScene(QRectF(0, item.card.height, item.card.width, down)).boundingRect()
    below = below.intersected(canvas.viewport().rect())
    shown = viewport_pixels(canvas)
    item.numbers.setVisible(False)
    hidden = viewport_pixels(canvas)
    band = (slice(below.top(), below.bottom()), slice(4 * below.left(), 4 * (below.right() + 1)))
    assert (shown[band] != hidden[band]).any(), "the thumbnail is cut off at the card's edge"


def test_cards_too_small_to_read_are_drawn_compact(window, qtbot, monkeypatch):
    w = window
    typeset = []
    for part in ("_paint_card_frame", "_paint_card_numbers"):
        monkeypatch.setattr(w.canvas.renderer.__class__, part,
                            lambda r, painter, nid, *a, part=part, **k: typeset.append((part, nid)))
    sketched = []
    compact = canvas_items.NodeItem._paint_compact
    monkeypatch.setattr(canvas_items.NodeItem, "_paint_compact",
                        lambda item, painter, r: (sketched.append(item.nid), compact(item, painter, r)))
    w.canvas._set_scale(legible.readable_zoom(w.canvas.logicalDpiY()) * 0.95)   # numbers under 9 px
    w.canvas.viewport().repaint()
    assert sketched and not typeset and w.canvas.compact
    sketched.clear()
    w.canvas._set_scale(1.0)                           # zoomed back in: full cards again
    w.canvas.centerOn(w.canvas.scene_item("x"))
    w.canvas.viewport().repaint()
    assert {part for part, _ in typeset} == {"_paint_card_frame", "_paint_card_numbers"} and not sketched
    assert not w.canvas.compact


def chain_document(n):
    """x -> n tanh cards in a grid -> reduce_sum: a value edit of x changes every card."""
    doc = Document(title="chain")
    doc.add(Node("x", CONSTANT, value=X.copy(), watched=True, position=(0.0, 0.0)))
    previous = "x"
    for i in range(n):
        doc.add(op(f"t{i}", "tanh"))
        doc.nodes[f"t{i}"].position = (260.0 * ((i + 1) % 4), 220.0 * ((i + 1) // 4))
        doc.connect(previous, f"t{i}")
        previous = f"t{i}"
    doc.add(op("loss", "reduce_sum"))
    doc.nodes["loss"].position = (260.0 * ((n + 1) % 4), 220.0 * ((n + 1) // 4))
    doc.connect(previous, "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port("x")]
    return doc


def test_many_cards_repainting_repaint_the_viewport_as_one_rectangle(window, qtbot):
    """Dozens of small dirty rectangles cost the view more than one big one."""
    c, canvas = window.controller, window.canvas
    c.set_document(chain_document(10))
    canvas.fit()
    qtbot.wait(30)
    view = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert all(view.contains(i.sceneBoundingRect()) for i in canvas.node_items.values())
    regions = []

    class Regions(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                regions.append(QRegion(event.region()))
            return False

    spy = Regions()
    canvas.viewport().installEventFilter(spy)

    def painted_by(edit):
        qtbot.wait(30)
        regions.clear()
        edit()
        qtbot.waitUntil(lambda: bool(regions))
        return regions[0]

    region = painted_by(lambda: c.set_value("x", -X))   # 12 cards' numbers change
    assert region.rectCount() == 1 and region.boundingRect() == canvas.viewport().rect()
    region = painted_by(lambda: c.set_field("t4", "label", "middle"))   # one card
    assert region.boundingRect().width() < canvas.viewport().width() / 2
    canvas.viewport().removeEventFilter(spy)


def test_the_scene_rect_is_measured_again_only_when_an_item_may_have_grown(window, qtbot, monkeypatch):
    """Measuring every item's bounds (itemsBoundingRect) costs 1-2 ms at 100 nodes: new
    numbers keep every card's size, so a value edit skips it; a move or a new card does not."""
    c, canvas = window.controller, window.canvas
    measured = []
    monkeypatch.setattr(type(canvas), "_update_scene_rect", lambda view: measured.append(True))
    c.set_value("x", -X)
    assert not measured
    x, y = canvas.positions["loss"]
    c.move_nodes({"loss": (x + 3000.0, y)})
    assert measured
    measured.clear()
    c.set_value("x", np.full_like(X, np.nan))   # a warning: a problem line under the cards
    assert measured


def test_edge_items_are_reconciled_only_when_the_edges_or_nodes_change(window, monkeypatch):
    """A value edit keeps the document's edges: the canvas does not hash every edge again.
    A disconnect, its undo, a new node and a removed node do reconcile, and the items
    then match the edges."""
    c, canvas = window.controller, window.canvas
    calls = []
    sync_edges = type(canvas)._sync_edges
    monkeypatch.setattr(type(canvas), "_sync_edges", lambda view, doc: calls.append(1) or sync_edges(view, doc))

    def assert_items_match():
        assert set(canvas.edge_items) == set(c.doc.edges)
        assert all(canvas.scene_item(e.src.node) and item.scene() is canvas.scene()
                   for e, item in canvas.edge_items.items())
    c.set_value("x", -X)
    c.set_attr("c", "clip_value_max", 0.25)
    assert not calls
    edge = next(e for e in c.doc.edges if e.dst.node == "loss")
    for edit in (lambda: c.disconnect(edge), c.undo_stack.undo,
                 lambda: c.add_node("op", "tanh"), lambda: c.remove_nodes(["loss"])):
        calls.clear()
        edit()
        assert calls
        assert_items_match()
    assert not any(e.dst.node == "loss" for e in canvas.edge_items)


def test_a_card_shows_its_roles_as_they_change(window):
    """The badges a card keeps (what its sketch draws from afar) follow the document's
    sources, targets, seeded targets and unrecorded nodes."""
    c, canvas = window.controller, window.canvas

    def badges(nid):   # (source, target, seeded, not recorded)
        return canvas.scene_item(nid)._shown_badges
    assert badges("x") == (True, False, False, False) and badges("loss") == (False, True, False, False)
    assert badges("m") == (False, False, False, False)
    c.toggle_port("sources", Port("m"))
    c.set_tape(stop_recording=["c"])
    c.set_output_gradient(Port("loss"), np.float32(2.0))
    assert badges("m") == (True, False, False, False) and badges("c") == (False, False, False, True)
    assert badges("loss") == (False, True, True, False)
    c.toggle_port("sources", Port("x"))
    assert badges("x") == (False, False, False, False)
