"""A node's problem in words on its card (issue 20, H41d finding 1): a shape mismatch
under a card drawn compact was the full card's 8.5 pt lines scaled with the zoom (8.2 px at
Fit to Window), ran under the next card and was cut mid-word ('4 a…'). Its words are now
at least legible.READABLE_PX wherever they are drawn: under a full card in the numbers'
type, on a compact card in screen pixels; cut only after a whole word, with "…" on a compact card (the card's
tooltip and the status bar say them whole), never under a full card (it read 'inner
dimensions 4 and …': its message, else its brief, whole), and no other card covers them."""
import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

import app_ui
from recording import Recording
from test_canvas_fit import mlp7, mlp11
from gradviz.app.canvas.renderer import ERROR_LINES
from gradviz.render import legible


def _mismatched(doc):
    """`doc` with W2 of the wrong shape: matmul_1 cannot multiply relu (2x4) by it."""
    doc.nodes["W2"].value = np.ones((3, 2), np.float32)
    return doc


def _problem_texts(canvas, nid):
    """[(px, rect in the scene, text)] of the problem's words card `nid` draws, at the zoom shown."""
    item, zoom = canvas.node_items[nid], canvas.zoom_level()
    image = QImage(8, 8, QImage.Format.Format_ARGB32_Premultiplied)
    painter = Recording(image)
    painter.scale(zoom, zoom)
    item.paint(painter, None)
    painter.end()
    x, y = canvas.renderer.positions[nid]
    start = next((k for k, (_, _, t) in enumerate(painter.texts) if t.startswith("⚠")), len(painter.texts))
    return [(px, rect.translated(x * zoom, y * zoom), t) for px, rect, t in painter.texts[start:]]


@pytest.mark.parametrize("build, size, compact", [(mlp7, (1280, 800), False), (mlp11, (1280, 800), True),
                                                  (mlp11, (1440, 900), False)])
def test_a_problem_s_words_read_at_fit_to_window_whole_or_cut_at_a_word(open_window, build, size, compact):
    """In full at 1440 x 900 the layout laid b2 over matmul_1's problem lines: it kept the
    cards apart, not what stands under them. Drawn compact, the card writes the problem's
    essentials first (Problem.brief: its inputs and their shapes, then what is wrong), so
    the words checked there are the brief's; the tooltip still says the message whole."""
    w = open_window(None, size=size)
    w.controller.set_document(_mismatched(build()))
    app_ui.settle(w.canvas)
    c = w.canvas
    c.fit()
    c.viewport().grab()                         # (a paint decides compact or not)
    assert c.compact == compact
    message = w.controller.result.node_problems["matmul_1"][0].message
    assert "shapes do not match" in message
    drawn = _problem_texts(c, "matmul_1")
    assert drawn, "no problem words on the card"
    assert all(px >= legible.READABLE_PX for px, _, _ in drawn), [(round(px, 1), t) for px, _, t in drawn]
    words = " ".join(t for _, _, t in drawn).replace("\u00a0", " ")
    assert words.startswith("⚠ ")
    said = words[2:]
    brief = w.controller.result.node_problems["matmul_1"][0].brief
    if compact:
        if said.endswith(" …"):                 # cut: after a whole word of what it writes
            said = said[:-2]
            assert brief.startswith(said) and brief[len(said)] == " ", said
        else:
            assert said == brief
    else:       # in full: never cut ('inner dimensions 4 and …'): whole, or its brief whole
        assert said in (message, brief), said
        assert len(drawn) <= ERROR_LINES or said == brief, "the message drawn in more lines than its room"
    assert message in c.node_items["matmul_1"].toolTip()      # the whole, where the "…" leads
    zoom = c.zoom_level()
    for _, rect, text in drawn:                 # no other card covers them
        scene = QRectF(rect.left() / zoom, rect.top() / zoom, rect.width() / zoom, rect.height() / zoom)
        covering = [nid for nid in c.controller.doc.nodes if nid != "matmul_1"
                    and app_ui.card_as_drawn(c, nid).intersects(scene)]
        assert not covering, (text, covering)


def test_a_compact_card_says_which_inputs_and_shapes_inside_its_frame_at_every_zoom(open_window):
    """Drawn compact, matmul_1's mismatch read '⚠ matmul shapes do not match: relu
    (operand a) has …': its three lines were cut before the shapes, which are what the
    reader must mend; and 5 zoom notches out of Fit to Window its words ran below the red
    frame, which went round the card, not the plate standing out of it. Now the compact
    words lead with each input by its node, its port's letter (as the card's ports read)
    and its shape, and every word lies inside the frame at every zoom out to 8 notches."""
    from gradviz.render import port_labels

    w = open_window(None, size=(1280, 800))
    w.controller.set_document(_mismatched(mlp11()))
    app_ui.settle(w.canvas)
    c = w.canvas
    c.fit()
    doc = w.controller.doc
    a, b = port_labels.input_names(doc.nodes["matmul_1"], 2, doc)
    item = c.node_items["matmul_1"]
    for notch in range(9):
        c.viewport().grab()                     # (a paint decides compact or not)
        assert c.compact, notch
        drawn = _problem_texts(c, "matmul_1")
        words = " ".join(t for _, _, t in drawn).replace("\u00a0", " ")
        assert f"relu ({a}) 2×4" in words and f"W2 ({b}) 3×2" in words, (notch, words)
        zoom = c.zoom_level()
        frame = item.frame_rect().translated(*c.renderer.positions["matmul_1"])
        for _, rect, text in drawn:
            scene = QRectF(rect.left() / zoom, rect.top() / zoom, rect.width() / zoom, rect.height() / zoom)
            assert frame.adjusted(-1, -1, 1, 1).contains(scene), (notch, text, scene, frame)
        c.zoom_out()
