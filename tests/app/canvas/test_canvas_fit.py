"""Fit to Window fits every card (issue 20 §4): where that zoom would draw the numbers
under legible.READABLE_PX, the cards are drawn compact (name, exact shape, heat
thumbnail); a 7-node MLP reads in full on a 1280x800 canvas and in the 1280x800 window
(its docks stacked on one side, the chain folded into rows)."""
import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication

import app_ui
from gradviz.app.canvas import items as canvas_items
from gradviz.app.canvas.view import CanvasView
from gradviz.app.controller import DocumentController
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.graph.document import Document, Node, Port
from gradviz.render import legible


def mlp7():
    """x @ W1 -> relu -> @ W2 -> reduce_sum: seven nodes, laid out by the canvas. Its relu
    keeps every unit alive: a dead-unit line would widen the relu card by 36 px, and the
    MLP would then need zoom 0.78 on a 1280x800 canvas (numbers 8.8 px: compact)."""
    doc = Document(title="7-node MLP")
    rng = np.random.default_rng(3)
    doc.add(Node("x", "constant", value=rng.normal(size=(2, 3)).astype(np.float32)))
    doc.add(Node("W1", "variable", value=rng.normal(size=(3, 4)).astype(np.float32)))
    doc.add(Node("matmul", "op", op="matmul"))
    doc.add(Node("relu", "op", op="nn.relu"))
    doc.add(Node("W2", "variable", value=rng.normal(size=(4, 2)).astype(np.float32)))
    doc.add(Node("matmul_1", "op", op="matmul"))
    doc.add(Node("reduce_sum", "op", op="reduce_sum"))
    for src, dst, slot in [("x", "matmul", 0), ("W1", "matmul", 1), ("matmul", "relu", 0),
                           ("relu", "matmul_1", 0), ("W2", "matmul_1", 1), ("matmul_1", "reduce_sum", 0)]:
        doc.connect(src, dst, 0, slot)
    doc.targets = [Port("reduce_sum")]
    doc.sources = [Port("W1"), Port("W2")]
    return doc


def mlp11():
    """mlp7 with a bias added after each matmul: eleven nodes."""
    doc = mlp7()
    rng = np.random.default_rng(4)
    doc.edges = [e for e in doc.edges if e.dst.node not in ("relu", "reduce_sum")]
    for bias, size, after, add, then in (("b1", 4, "matmul", "add", "relu"),
                                         ("b2", 2, "matmul_1", "add_1", "reduce_sum")):
        doc.add(Node(bias, "variable", value=rng.normal(size=(size,)).astype(np.float32)))
        doc.add(Node(add, "op", op="add"))
        doc.connect(after, add, 0, 0)
        doc.connect(bias, add, 0, 1)
        doc.connect(add, then, 0, 0)
    doc.sources += [Port("b1"), Port("b2")]
    return doc


def record_paints(canvas, monkeypatch):
    """{'compact': ids drawn compact, 'numbers': ids whose numbers were typeset}."""
    drawn = {"compact": [], "numbers": []}
    compact, numbers = canvas_items.NodeItem._paint_compact, type(canvas.renderer)._paint_card_numbers
    monkeypatch.setattr(canvas_items.NodeItem, "_paint_compact",
                        lambda item, painter, r: (drawn["compact"].append(item.nid), compact(item, painter, r)))
    monkeypatch.setattr(type(canvas.renderer), "_paint_card_numbers",
                        lambda r, painter, nid, *a, **k: (drawn["numbers"].append(nid),
                                                          numbers(r, painter, nid, *a, **k)))
    return drawn


def fitted(canvas, drawn):
    canvas.fit()
    for ids in drawn.values():
        ids.clear()
    for item in canvas.node_items.values():   # painted afresh, not from the cards' caches
        item.repaint_card()
    canvas.viewport().grab()                  # (a paint even where the view is not on screen)
    return canvas.mapToScene(canvas.viewport().rect()).boundingRect()


def test_after_fit_every_sample_shows_every_card_readable_or_compact(open_window, monkeypatch):
    w = open_window(None, size=(1280, 800))
    c = w.canvas
    drawn = record_paints(c, monkeypatch)
    zooms = {}
    for path in sorted(SAMPLES_DIR.glob("*.json")):
        assert w.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        seen = fitted(c, drawn)
        zooms[path.stem] = c.zoom_level()
        for nid in c.controller.doc.nodes:
            assert seen.contains(app_ui.card_as_drawn(c, nid)), (path.stem, nid)
        if legible.number_px(c.zoom_level(), c.logicalDpiY()) >= legible.READABLE_PX:
            assert not c.compact and not drawn["compact"], path.stem
            assert set(drawn["numbers"]) >= {nid for nid, card in c.renderer.cards.items() if card.sections}
        else:
            assert c.compact and set(drawn["compact"]) == set(c.controller.doc.nodes), path.stem
            assert not drawn["numbers"], path.stem
    assert min(zooms.values()) < legible.readable_zoom(c.logicalDpiY()) < max(zooms.values())


def test_the_7_node_mlp_reads_in_full_on_a_1280x800_canvas(qtbot, monkeypatch):
    controller = DocumentController()
    canvas = CanvasView(controller)
    qtbot.addWidget(canvas)
    canvas.resize(1280, 800)
    canvas.show()
    qtbot.waitExposed(canvas)
    controller.set_document(mlp7())
    app_ui.settle(canvas)
    drawn = record_paints(canvas, monkeypatch)
    seen = fitted(canvas, drawn)
    assert canvas.viewport().width() >= 1260
    assert legible.number_px(canvas.zoom_level(), canvas.logicalDpiY()) >= legible.READABLE_PX
    assert not canvas.compact and not drawn["compact"]
    assert set(drawn["numbers"]) == set(controller.doc.nodes)
    assert all(seen.contains(canvas.renderer.rect(nid).adjusted(0, -22, 0, 0)) for nid in controller.doc.nodes)


def _reachable(w, dock):
    """In view, or a tab beside a dock in view (one click brings it forward)."""
    group = [dock, *w.tabifiedDockWidgets(dock)]
    return any(d.isVisible() and not d.visibleRegion().isEmpty() for d in group)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_in_the_window_as_it_first_opens_the_mlp_reads_and_every_dock_is_at_hand(open_window, monkeypatch, size):
    """Palette and inspector on both sides left a 1280x800 window's canvas 646 px: the MLP
    (1522 scene px wide, numbers at 9 px need zoom 0.79) fitted only compact. Now a narrow
    window stacks the palette under the inspector, and Fit to Window lays the unplaced
    chain out in rows that fit: every card with its numbers at least 9 px, no card over
    another, every edge in view, and the palette, lesson, inspector and provenance docks
    still one click away."""
    w = open_window(None, size=size)
    w.controller.set_document(mlp7())
    app_ui.settle(w.canvas)
    drawn = record_paints(w.canvas, monkeypatch)
    seen = fitted(w.canvas, drawn)
    c = w.canvas
    assert legible.number_px(c.zoom_level(), c.logicalDpiY()) >= legible.READABLE_PX
    assert not c.compact and not drawn["compact"]
    assert set(drawn["numbers"]) == set(w.controller.doc.nodes)
    rects = {nid: c.renderer.rect(nid).adjusted(0, -22, 0, 0) for nid in w.controller.doc.nodes}
    assert all(seen.contains(r) for r in rects.values())
    ids = sorted(rects)
    assert not [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if rects[a].intersects(rects[b])]
    assert all(seen.contains(item.route_rect().adjusted(-1, -1, 1, 1)) for item in c.edge_items.values())
    for dock in (w.palette_dock, w.lesson_dock, w.inspector_dock, w.provenance_dock):
        assert _reachable(w, dock), dock.windowTitle()
    assert w.palette_dock.isVisible() and w.inspector_dock.isVisible()   # both in view at once
    assert all(n.position is None for n in w.controller.doc.nodes.values())   # nothing was the user's
    assert w.controller.undo_stack.count() == 0


def test_fit_never_moves_nodes_the_user_placed_and_auto_layout_folds_with_undo(open_window, monkeypatch):
    """A placed MLP (as a student builds it, card by card in a row) fits compact: Fit to
    Window moves nothing. Auto Layout gives the placing to the canvas, which lays it out for
    the window, folded into rows that read, as one undoable edit: the layout it gets when
    opened unplaced, after Undo and Redo too."""
    w = open_window(None, size=(1280, 800))
    w.controller.set_document(mlp7())
    app_ui.settle(w.canvas)
    w.canvas.fit()
    opened = dict(w.canvas.positions)
    doc = mlp7()
    for nid, (x, y) in {"x": (0, 0), "W1": (0, 160), "matmul": (364, 100), "relu": (728, 0),
                        "W2": (747, 152), "matmul_1": (1092, 200), "reduce_sum": (1377, 210)}.items():
        doc.nodes[nid].position = (x, y)
    w.controller.set_document(doc)
    app_ui.settle(w.canvas)
    drawn = record_paints(w.canvas, monkeypatch)
    before = dict(w.canvas.positions)
    said = []
    w.controller.message.connect(said.append)
    fitted(w.canvas, drawn)
    assert w.canvas.positions == before and w.canvas.compact
    assert any("Auto Layout (Ctrl+L)" in text for text in said)   # the way to read it, offered
    w.canvas.auto_layout()
    assert w.controller.undo_stack.count() == 1
    assert "Undo restores your arrangement" in said[-1]      # not the offer of Ctrl+L again
    fitted(w.canvas, drawn)
    assert not w.canvas.compact and set(drawn["numbers"]) == set(w.controller.doc.nodes)
    assert all(n.position is None for n in w.controller.doc.nodes.values())   # the canvas's to place
    rows = sorted({round(w.canvas.positions[n][1] > 400) for n in w.controller.doc.nodes})
    assert rows == [0, 1]                       # two rows: the chain wrapped
    assert w.canvas.positions == opened
    w.controller.undo_stack.undo()
    app_ui.settle(w.canvas)
    assert {n: tuple(w.controller.doc.nodes[n].position) for n in before} == before
    assert w.canvas.positions == before
    w.controller.undo_stack.redo()
    app_ui.settle(w.canvas)
    assert w.canvas.positions == opened        # laid out anew, not the arrangement undo showed


def test_in_the_window_the_mlp_with_biases_reads_compact(open_window, monkeypatch):
    """x @ W1 + b1 -> relu -> @ W2 + b2 -> reduce_sum in the window as it first opens
    (1280x800): its numbers would need a canvas about twice as wide (zoom 0.79 for 9 px),
    and folded into rows it is too tall, so it fits compact: every card in view, no
    name's plate over another card."""
    w = open_window(None, size=(1280, 800))
    w.controller.set_document(mlp11())
    app_ui.settle(w.canvas)
    drawn = record_paints(w.canvas, monkeypatch)
    seen = fitted(w.canvas, drawn)
    c = w.canvas
    assert c.compact and set(drawn["compact"]) == set(w.controller.doc.nodes)
    rects = {nid: app_ui.card_as_drawn(c, nid) for nid in w.controller.doc.nodes}
    assert all(seen.contains(r) for r in rects.values())
    ids = sorted(rects)
    assert not [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if rects[a].intersects(rects[b])]


def test_fit_folds_the_tiny_cnn_to_use_the_canvas_and_every_compact_card_shows_numbers(
        open_window, monkeypatch):
    """The tiny CNN's 9-column chain fitted in one row across the middle third of a
    1280x800 window's canvas (zoom 0.26, the 1×36 'flat' card without a picture): no fold
    reads in full there, but two rows show it about twice as large, so Fit uses them."""
    w = open_window(None, size=(1280, 800))
    assert w.open_sample(SAMPLES_DIR / "nets_5_tiny_cnn.json", ask=False)
    QCoreApplication.processEvents()
    drawn = record_paints(w.canvas, monkeypatch)
    seen = fitted(w.canvas, drawn)
    c = w.canvas
    assert c.compact and set(drawn["compact"]) == set(w.controller.doc.nodes)
    rects = [app_ui.card_as_drawn(c, nid) for nid in w.controller.doc.nodes]
    assert all(seen.contains(r) for r in rects)
    used = max(r.bottom() for r in rects) - min(r.top() for r in rects)
    assert used >= 0.6 * seen.height(), (used, seen.height())
    rows = {round(c.renderer.rect(nid).top() > c.renderer.rect("pool").top() - 1)
            for nid in ("image_x", "pool")}
    assert rows == {0, 1}                              # the chain wrapped into a second row
    assert all(n.position is None for n in w.controller.doc.nodes.values())
    assert w.controller.undo_stack.count() == 0


EMPTY_PX = 4.0   # a compact card's body may end this far below its content (render.compact.PAD)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_after_fit_a_compact_card_is_as_tall_as_its_content(open_window, size):
    """Issue 20 §4: a compact card (name, shape, thumbnails) kept its full card's height
    after Fit, the tiny CNN's 'filters w' and 'dense' three quarters blank, and every other
    card drawn smaller for it. Now each is as tall as its compact content (or its ports
    need), and the layout and the fit use those heights: every sample, both window sizes."""
    from gradviz.render import compact
    from gradviz.render.cards import ports_height
    w = open_window(None, size=size)
    c = w.canvas
    blank, compacts = [], 0
    for path in sorted(SAMPLES_DIR.glob("*.json")):
        assert w.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        c.fit()
        c.viewport().grab()            # painted: the canvas draws them compact from here
        if legible.number_px(c.zoom_level(), c.logicalDpiY()) >= legible.READABLE_PX:
            continue
        assert c.compact, path.stem
        zoom, r = c.zoom_level(), c.renderer
        seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
        for nid, node in r.doc.nodes.items():
            card = r.cards[nid]
            assert seen.contains(app_ui.card_as_drawn(c, nid)), (path.stem, nid)
            compacts += 1
            content = compact.content_px(card, node, zoom, c.logicalDpiY(), c.compact_scale())
            if card.height * zoom - content > EMPTY_PX and card.height > ports_height(card.n_inputs, card.n_outputs):
                blank.append((path.stem, nid, round(card.height * zoom - content, 1)))
    assert compacts and not blank, blank


def test_cards_laid_out_compact_are_drawn_in_full_apart_after_a_drag_and_in_an_export(open_window):
    """Fit lays the tiny CNN out as tall as its compact cards; drawn in full (zoomed in after
    a first drag placed every card, or exported) no card may cover another."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QTransform

    from gradviz.app import export_dialog

    def overlaps(rects):
        ids = sorted(rects)
        return [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if rects[a].intersects(rects[b])]

    w = open_window(None, size=(1280, 800))
    assert w.open_sample(SAMPLES_DIR / "nets_5_tiny_cnn.json", ask=False)
    QCoreApplication.processEvents()
    c = w.canvas
    c.fit()
    c.viewport().grab()
    nodes = list(w.controller.doc.nodes)
    assert c.compact and c.compact_layout
    assert sum(c.renderer.cards[n].height for n in nodes) < sum(c.renderer.sizes()[n][1] for n in nodes)
    exported = export_dialog._renderer(w, "light")
    assert not overlaps({n: exported.rect(n) for n in nodes})
    c.note_drag_start()
    item = c.node_items["flat"]
    item.setPos(item.pos() + QPointF(6, 4))
    c.commit_moves()
    assert all(node.position is not None for node in w.controller.doc.nodes.values())
    c.setTransform(QTransform.fromScale(1.0, 1.0))
    c.viewport().grab()
    assert not c.compact and c.shortened_at is None
    assert not overlaps({n: c.renderer.rect(n) for n in nodes})
    assert c.renderer.rect("flat").topLeft() == QPointF(*w.controller.doc.nodes["flat"].position)
