"""A seed slide shows the cards that feed its target (framing_names.seed_context); where the view
that shows them cuts other cards, it shows the whole graph, smaller."""
from framing_misses import _nameless_cuts, _needless_cuts
from PySide6.QtCore import QCoreApplication

from gradviz.app.player import card_rects, framing, framing_dock, framing_names, presentation
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.legible import READABLE_PX
from gradviz.render import painter as render_painter


def test_a_seed_slide_that_would_cut_a_card_shows_the_whole_graph(open_window, present):
    """nets_3_wrong_gradient in presentation at 1920 x 1080: its seed slide kept t (what feeds
    loss) and cut w at the top, its name out of view; the slide without t, panned, showed
    none of w, x and t. Now every card is whole in view, above the slides' floor, and the
    seed's card is docked by loss, over no edge and not over the seed's arrow."""
    size = (1920, 1080)
    w = open_window(None, size=size)
    present(w, size)
    w.setUpdatesEnabled(False)
    path = SAMPLES_DIR / "nets_3_wrong_gradient.json"
    assert w.open_sample(path, ask=False)
    QCoreApplication.processEvents()
    w.canvas.relayout_unplaced(READABLE_PX)
    w.presentation.go(0)
    w.player.finish_animation()
    for _ in range(3):
        QCoreApplication.processEvents()
        while w.presentation._fit_pending:
            QCoreApplication.processEvents()
    c, step = w.canvas, w.player.step
    r = c.renderer
    name = {n: node.label or n for n, node in r.doc.nodes.items()}
    assert step.kind == "seed" and name[step.node] == "loss"
    assert [name[n] for n in framing_names.seed_context(r, step)] == ["t"]
    seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    out = [name[n] for n in r.doc.nodes if not seen.contains(card_rects.whole_card(r, n))]
    assert out == []
    assert framing.text_px(c) >= presentation.SLIDE_FLOOR_PX
    drawn = card_rects.involved_cards(r, step, full=True)
    where = (path.stem, 1, step.title)
    zoom = c.transform().m11()
    assert _needless_cuts(r, step, seen, drawn, zoom, where) == []
    assert _nameless_cuts(r, step, seen, drawn, zoom, where, True) == []
    # The seed's card covers no edge's line, nor the seed's arrow and word (it lay over x → wx)
    card = render_painter.formula_rect(r, step)
    assert seen.contains(card)
    left, top, right, bottom = card.getCoords()
    assert [b for b in framing_dock.wire_trace(r) + framing_dock.arrow_trace(r, step)
            if b[0] < right and left < b[2] and b[1] < bottom and top < b[3]] == []
    w.presentation.exit()
