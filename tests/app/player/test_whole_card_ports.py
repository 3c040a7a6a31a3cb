"""A card shown whole shows its ports whole (issue 20 §4): in presentation mode at 1920 x
1080, in every step of the tiny CNN opened from the Lessons menu, a card whose body lies in
view has its ports' circles (PORT_R out of its sides) in view too. The framing counted a card
whole without them: at the last step the loss card ended 0.07 scene units inside the right
edge of the view, its output port cut in half, the card looking clipped."""
from PySide6.QtCore import QRectF

from app_ui import settle_presentation

from gradviz.app.player import lessons
from gradviz.render.cards import PORT_R

SIZE = (1920, 1080)


def _ports(r, nid):
    points = [r.input_pos(nid, i) for i in range(r.cards[nid].n_inputs)]
    points += [r.output_pos(nid, i) for i in range(r.cards[nid].n_outputs)]
    return [QRectF(p.x() - PORT_R, p.y() - PORT_R, 2 * PORT_R, 2 * PORT_R) for p in points]


def test_a_card_in_view_shows_its_ports(open_window, present):
    w = open_window(None, size=SIZE)
    lesson = next(e for e in lessons.lesson_entries() if e.path.stem == "nets_5_tiny_cnn")
    assert lessons.open_lesson(w, lesson, ask=False)
    settle_presentation(w)
    present(w, SIZE)
    misses = []
    for step in w.player.steps:
        w.presentation.go(step.index)
        w.player.finish_animation()
        settle_presentation(w)
        c, r = w.canvas, w.canvas.renderer
        seen = c.visible_rect().adjusted(-0.5, -0.5, 0.5, 0.5)     # the view's whole pixels
        for nid in r.doc.nodes:
            if seen.contains(r.rect(nid)):
                cut = [port for port in _ports(r, nid) if not seen.contains(port)]
                if cut:
                    misses.append((step.index + 1, r.doc.nodes[nid].label or nid, len(cut)))
    w.presentation.exit()
    assert misses == []
