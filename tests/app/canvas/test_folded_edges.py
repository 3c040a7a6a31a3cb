"""No edge crosses the canvas (issue 20 §4): where the layout folds a graph into rows, an
edge either stays in its row, or is the wrap of neighbouring columns from one row's end to
the next row's start (a chain read on like a line of text), or enters a card no further left
than the one it leaves begins. Attention's V → out ran from the end of the first row back
across the whole canvas to out at the start of the third."""
import pytest
from PySide6.QtCore import QCoreApplication

from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.layout import layers

SAMPLE_FILES = sorted(SAMPLES_DIR.glob("*.json"))


def edges_running_back(canvas):
    """The edges of the canvas's layout that run back left past the whole card they leave
    (the card they enter lies wholly left of it), other than a wrap of neighbouring columns."""
    doc, r = canvas.controller.doc, canvas.renderer
    column = layers(doc)
    out = []
    for e in doc.edges:
        src, dst = e.src.node, e.dst.node
        if column[dst] - column[src] == 1:
            continue
        if r.rect(dst).right() < r.rect(src).left():
            out.append((doc.nodes[src].label or src, doc.nodes[dst].label or dst))
    return out


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_no_edge_of_a_folded_sample_runs_back_across_the_canvas(open_window, size):
    """Every sample as it opens (Fit to Window's layout) and as its story is played (the
    player's layout, folded so that each step's cards are framed), in the window at `size`."""
    w = open_window(None, size=size)
    w.setUpdatesEnabled(False)
    back = []
    for path in SAMPLE_FILES:
        assert w.open_sample(path, ask=False)
        QCoreApplication.processEvents()
        w.canvas.fit()
        back += [(path.stem, "opened", *e) for e in edges_running_back(w.canvas)]
        if w.player.steps:
            w.player.set_index(0)
            w.player.finish_animation()
            QCoreApplication.processEvents()
            back += [(path.stem, "story", *e) for e in edges_running_back(w.canvas)]
    assert back == [], "\n".join(map(str, back))
