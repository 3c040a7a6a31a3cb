"""A 1024 x 768 projector (issue 20 §4): the canvas, ~662 px wide beside the inspector, is
narrower than a fan-in's rule card beside the step's cards at the legible zoom. The rule card
then docks clear of the card that receives (shown whole) and of every card that sends in
view (the senders left to the pan the step starts with), never over their values. On main
lesson 14's fan-ins (steps 14-22) docked their cards over layer's values; docked off layer,
the card went over t1.gradient(out, x)'s. The framing walks run at 1280 x 800 and 1920 x
1080; one step here (~1.3 s) shows it at 1024."""
from PySide6.QtCore import QCoreApplication

from gradviz.app.player import card_rects
from gradviz.app.player.lessons import lesson_entries, open_lesson
from gradviz.render import painter as render_painter
from gradviz.render.involved import involved_nodes


def test_a_wide_rule_card_hides_neither_sender_nor_receiver_at_1024(open_window):
    w = open_window(None, size=(1024, 768))
    w.setUpdatesEnabled(False)
    lesson = next(e for e in lesson_entries() if e.path.stem == "001_input_gradient_regularization")
    assert open_lesson(w, lesson, ask=False)
    QCoreApplication.processEvents()
    c, p = w.canvas, w.player
    assert c.viewport().width() < 700        # beside the inspector, as a 1024 screen shows it
    p.set_index(13)         # step 14, the fan-in at layer
    p.finish_animation()
    QCoreApplication.processEvents()
    r, step = c.renderer, p.step
    assert step.kind == "fan_in" and step.node == "layer", step.title
    seen = c.mapToScene(c.viewport().rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    formula = render_painter.formula_rect(r, step)
    assert seen.contains(formula)
    assert seen.contains(card_rects.card_rect(r, "layer"))      # the receiver, whole
    covered = [n for n in involved_nodes(r, step)
               if seen.intersects(r.footprint(n)) and formula.intersects(r.footprint(n))]
    assert covered == []
