"""A tensor reads one way on the canvas's node card and on its rule cards (issue 20 §5: one
format per tensor, node cards too), although the canvas measures its cards before the story
is told (it is told only when the player asks for it): where the story writes its tensors
with decimals and the evaluation alone would not (lesson 001_clip_gradient: every value and
gradient is whole, the clip rule's 0.5 is not), the cards are measured again once it is told."""
import numpy as np

import app_ui
from gradviz.app.canvas.renderer import CanvasRenderer
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.graph.document import Document, Node, Port
from gradviz.render import tiles


def card_text(renderer, nid):
    return renderer.cards[nid].sections[0].preview.text


def test_a_node_card_takes_the_story_s_format_once_the_story_is_told(open_window, qtbot, monkeypatch):
    painted = _record_painted_numbers(monkeypatch)
    w = open_window(SAMPLES_DIR / "001_clip_gradient.json")
    qtbot.waitUntil(lambda: w.controller.result.story_ready and w.player._story is not None, timeout=10000)
    story = w.controller.result.story
    assert story.number_spec() == "%.3f"
    step = next(s for s in story.steps if "v" in (s.operands or {}))
    written = tiles.picture(np.asarray(step.operands["v"]), spec=w.canvas.renderer.formula_layout(step)
                            .spec_of(step.operands["v"])).text
    qtbot.waitUntil(lambda: card_text(w.canvas.renderer, "v") == written, timeout=5000)
    assert written == "2.000"           # as the rule card writes v, not '2'
    assert _painted_as_measured(w.canvas, painted)   # and the canvas paints it so, every card


def _painted_as_measured(canvas, painted):
    """Is every card's numbers item painted with the numbers the renderer measured?"""
    for nid in canvas.controller.doc.nodes:
        canvas.centerOn(canvas.node_items[nid])
        canvas.viewport().grab()
    return painted == _measured(canvas.renderer)


def _measured(renderer):
    return {nid: [None if s.preview is None else s.preview.look(renderer.theme) for s in card.sections]
            for nid, card in renderer.cards.items()}


def _record_painted_numbers(monkeypatch):
    """{node id: what its numbers item last painted} (each section's picture's look): what
    the canvas shows, not what the renderer measured."""
    painted = {}
    paint = CanvasRenderer._paint_card_numbers

    def record(r, painter, nid, *args, **kwargs):
        painted[nid] = [None if s.preview is None else s.preview.look(r.theme) for s in r.cards[nid].sections]
        return paint(r, painter, nid, *args, **kwargs)
    monkeypatch.setattr(CanvasRenderer, "_paint_card_numbers", record)
    return painted


def _zero_matmul():
    """x @ W with W all zeros: the matmul's value and y are exactly zero, whatever x is."""
    doc = Document(title="zero matmul")
    doc.add(Node("x", "constant", value=np.array([[1.0, 2.0]], np.float32), watched=True))
    doc.add(Node("W", "variable", value=np.zeros((2, 2), np.float32)))
    doc.add(Node("matmul", "op", op="matmul"))
    doc.add(Node("y", "op", op="reduce_sum"))
    for src, dst, slot in [("x", "matmul", 0), ("W", "matmul", 1), ("matmul", "y", 0)]:
        doc.connect(src, dst, 0, slot)
    doc.targets = [Port("y")]
    doc.sources = [Port("x"), Port("W")]
    return doc


def test_a_card_whose_numbers_stay_is_painted_again_when_the_shared_format_changes(editor, monkeypatch):
    """Every number whole, the cards write '1 2', '0 0'; x edited to [0.5 2] gives the
    graph decimals, so every card writes 0.000 (one format for the graph). The zero
    matmul's and y's numbers did not change, and the canvas, which skipped a card whose
    arrays were the same, kept painting '0 0' and '0' beside x's 0.500 and W's 0.000."""
    controller, canvas, _, _ = editor
    painted = _record_painted_numbers(monkeypatch)
    controller.set_document(_zero_matmul())
    app_ui.settle(canvas)
    for nid in controller.doc.nodes:
        canvas.centerOn(canvas.node_items[nid])
        canvas.viewport().grab()
    assert painted["matmul"] == [("", "  0  0")] and painted["y"] == ["0"]
    controller.set_value("x", np.array([[0.5, 2.0]], np.float32))
    app_ui.settle(canvas)
    measured = _measured(canvas.renderer)
    assert measured["matmul"] == [("", "  0.000  0.000")] and measured["y"] == ["0.000"]
    assert _painted_as_measured(canvas, painted)
