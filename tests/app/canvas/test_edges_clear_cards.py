"""No edge on the canvas passes over a card it does not join (issue 20 §5): an edge from A
to C drawn across card B reads as B's input. tests/render/test_routing checks the router on
each sample's one layout; here the canvas's own edge items are checked against its cards as
the window shows them: a lesson as it opens (Fit to Window's layout, cards compact where
they would not read), after Fit to Window, and at the steps of its story (the player's
layout, framed), at 1280 x 800 and 1440 x 900; and a student's seven-node MLP as placed and
after Auto Layout. Measured on main at c85b8a2 over every step of every lesson: none at
either size, nor in presentation mode at 1280 x 800 and 1920 x 1080; with the router
replaced by plain curves the samples' one-row layouts have ten (tests/render/test_routing)."""
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from gradviz.app.player import lessons

STUDENT_MLP = Path(__file__).resolve().parents[2] / "render" / "data" / "student_mlp.gradviz.json"


def edges_over_cards(canvas):
    """[(from, to, input, card)]: every edge item whose route crosses a card other than its
    own two, by the nodes' names."""
    r = canvas.renderer
    nodes = r.doc.nodes
    name = lambda nid: nodes[nid].label or nid   # noqa: E731
    out = []
    for e, item in canvas.edge_items.items():
        for nid in nodes:
            if nid not in (e.src.node, e.dst.node) and nid in r.cards and item.path_crosses(r.rect(nid)):
                out.append((name(e.src.node), name(e.dst.node), e.dst.index + 1, name(nid)))
    return out


def _settle():
    for _ in range(4):
        QCoreApplication.processEvents()


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)])
def test_no_edge_of_a_lesson_passes_over_a_card(open_window, size):
    """Every lesson from the Lessons menu as it opens, after Fit to Window, and at the first
    two and the last steps of its story: the player's layout and its cards' sizes hold from
    step 2 to the end (tests/app/player/test_stable_layout; every step at 1280 x 800 took 45
    s, and found none either)."""
    w = open_window(None, size=size)
    w.setUpdatesEnabled(False)
    c, p = w.canvas, w.player
    over = []
    for lesson in lessons.lesson_entries():
        assert lessons.open_lesson(w, lesson, ask=False)
        _settle()
        over += [(lesson.path.stem, "opened", *e) for e in edges_over_cards(c)]
        c.fit()
        _settle()
        over += [(lesson.path.stem, "fit", *e) for e in edges_over_cards(c)]
        for step in p.steps[:2] + p.steps[2:][-1:]:
            p.set_index(step.index)
            p.finish_animation()
            QCoreApplication.processEvents()
            over += [(lesson.path.stem, step.index + 1, *e) for e in edges_over_cards(c)]
    assert list(dict.fromkeys(over)) == []


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)])
def test_no_edge_of_a_students_mlp_passes_over_a_card(open_window, size):
    """x @ W1 -> relu -> @ W2 -> reduce_sum built by hand: as placed, after Fit to Window,
    after Auto Layout and Fit again."""
    w = open_window(None, size=size)
    assert w.open_sample(STUDENT_MLP, ask=False)
    c = w.canvas
    over = []
    for when, act in (("placed", lambda: None), ("fit", c.fit), ("auto layout", c.auto_layout), ("fit", c.fit)):
        act()
        _settle()
        assert len(c.edge_items) == 6
        over += [(when, *e) for e in edges_over_cards(c)]
    assert over == []
