"""A rule card keeps clear of the problems' lines under a card (auditor, issue 20): lesson
32's step 9 docked grad_p's card right under log_p, over its '⚠ produced NaN or infinity'
(the card's footprint, what a rule card may not cover, left its problems' lines out)."""
from PySide6.QtCore import QCoreApplication

from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render import painter as render_painter

GAP = 4.0      # scene units at least between a problem's words and a rule card's border


def test_a_rule_card_keeps_clear_of_the_warning_lines_under_a_card(open_window):
    w = open_window(None, size=(1920, 1080))
    assert w.open_sample(SAMPLES_DIR / "nets_4_softmax_then_log.json", ask=False)
    QCoreApplication.processEvents()
    p, c = w.player, w.canvas
    warned = set(w.controller.result.node_problems)
    assert "log_p" in warned
    touched = []
    for step in [s for s in p.steps if s.node in warned]:     # the cards docked beside their words
        p.set_index(step.index)
        p.finish_animation()
        QCoreApplication.processEvents()
        r = c.renderer
        words = r.problem_rects()
        assert words, "the lesson's NaN warnings are written under their cards"
        card = render_painter.formula_rect(r, step)
        if card is not None:
            touched += [(step.index + 1, step.title) for rect in words
                        if rect.adjusted(-GAP, -GAP, GAP, GAP).intersects(card)]
    assert touched == []
