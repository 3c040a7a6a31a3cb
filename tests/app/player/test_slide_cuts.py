"""A slide in presentation mode cuts no card with its name out of view where it can show
that card whole, smaller, down to the rule card's least size (framing_slides._uncut)."""
from framing_misses import _nameless
from PySide6.QtCore import QCoreApplication

from app_ui import settle_presentation

from gradviz.app.player import card_rects, framing
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.legible import READABLE_PX


def test_a_slide_that_would_cut_a_card_without_its_name_shows_it_whole(open_window, present):
    """nets_1_conv_transpose in presentation at 1920 x 1080: its step 2 (Visit y) showed y
    and its rule card at 21 px and cut 'input image' at the top, its name out of view (the
    pan that drops it, 0.41 of the view, is more than settle allows). Every step now shows
    every card it cuts with its name but its seed slide, and step 2 the whole graph, its cards
    not smaller than the rule card's least size (one level under the back row's)."""
    size = (1920, 1080)
    w = open_window(None, size=size)
    present(w, size)
    w.setUpdatesEnabled(False)
    assert w.open_sample(SAMPLES_DIR / "nets_1_conv_transpose.json", ask=False)
    QCoreApplication.processEvents()
    w.canvas.relayout_unplaced(READABLE_PX)
    c, p = w.canvas, w.player
    for step in p.steps:
        w.presentation.go(step.index)
        p.finish_animation()
        settle_presentation(w)
        r = c.renderer
        name = {n: node.label or n for n, node in r.doc.nodes.items()}
        seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
        if step.kind != "seed":     # (a seed slide shows its target's card alone where the graph
            # at the rule card's size does not fit: 'input image' cut, its name pinned in view)
            assert [name[n] for n in _nameless(r, seen, c.transform().m11())] == [], step.title
        assert framing.text_px(c) >= w.presentation.rule_px() - 1e-6, step.title
        if step.index == 1:
            assert step.title == "Visit y"
            assert [name[n] for n in r.doc.nodes if not seen.contains(card_rects.whole_card(r, n))] == []
    w.presentation.exit()
