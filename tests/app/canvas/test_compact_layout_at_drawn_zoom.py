"""Fit lays compact cards out for the zoom it draws them at: a compact card's plate (its
name, shape and thumbnails) has a size in pixels, so laid out for a larger zoom than drawn,
the plates took more room than the layout left them and covered each other (an 8-layer MLP
in the 1280 x 800 window: laid out for zoom 0.147, drawn at 0.1, 27 pairs of cards
overlapping)."""
import numpy as np

import app_ui
from gradviz.app.canvas.view import CanvasView
from gradviz.app.controller import DocumentController
from gradviz.graph.document import Document, Node, Port


def deep_mlp(layers=8, n=6):
    """x -> (@ W + b -> relu) x `layers` -> reduce_sum: 3 + 5 x `layers` nodes."""
    rng = np.random.default_rng(0)
    doc = Document(title="deep MLP")
    doc.add(Node("x", "constant", value=rng.normal(size=(n, n)).astype(np.float32)))
    prev = "x"
    for i in range(1, layers + 1):
        doc.add(Node(f"W{i}", "variable", value=rng.normal(size=(n, n)).astype(np.float32)))
        doc.add(Node(f"b{i}", "variable", value=rng.normal(size=(n,)).astype(np.float32)))
        for nid, op in ((f"z{i}", "matmul"), (f"y{i}", "add"), (f"h{i}", "nn.relu")):
            doc.add(Node(nid, "op", op=op))
        for src, dst, slot in ((prev, f"z{i}", 0), (f"W{i}", f"z{i}", 1), (f"z{i}", f"y{i}", 0),
                               (f"b{i}", f"y{i}", 1), (f"y{i}", f"h{i}", 0)):
            doc.connect(src, dst, 0, slot)
        doc.sources.append(Port(f"W{i}"))
        prev = f"h{i}"
    doc.add(Node("loss", "op", op="reduce_sum"))
    doc.connect(prev, "loss", 0, 0)
    doc.targets = [Port("loss")]
    return doc


def test_fit_draws_compact_cards_no_smaller_than_it_laid_them_out_for(qtbot):
    """A 3-layer MLP on a 700 x 500 canvas: laid out for zoom 0.267, drawn at 0.201, the
    weights' and biases' plates covered the cards above them."""
    controller = DocumentController()
    canvas = CanvasView(controller)
    qtbot.addWidget(canvas)
    canvas.resize(700, 500)
    canvas.show()
    qtbot.waitExposed(canvas)
    controller.set_document(deep_mlp(3))
    app_ui.settle(canvas)
    canvas.fit()
    canvas.viewport().grab()
    assert canvas.compact
    assert canvas.zoom_level() >= canvas.shortened_at[0] * (1 - 1e-9), (canvas.zoom_level(), canvas.shortened_at)
    rects = {nid: app_ui.card_as_drawn(canvas, nid) for nid in controller.doc.nodes}
    ids = sorted(rects)
    assert not [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if rects[a].intersects(rects[b])]
    seen = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert all(seen.contains(r) for r in rects.values())
