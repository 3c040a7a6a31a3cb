"""The labels a story step writes along its arrows and links lie on no card (issue 20 §1:
a label over a card hides what the card says and reads as the card's).

Every lesson opened from the Lessons menu in the window at 1280 x 800, every step: no
label (a cotangent's shape, a fan-in's path, "(no edge)" for a link drawn only for the
step, the seed's word) meets a card as it is drawn: its body (with the name plates of a
card drawn compact), the badges' row above it, and for the step's own card the ring and
glow round it. That holds for the card a label names too: a label of a path inside a
node is written beside its card, not on it.
"""
import pytest
from PySide6.QtCore import QCoreApplication

import app_ui
from leader_lines import leader_crossings
from gradviz.app.player import lessons
from gradviz.render.cards import BADGE_H
from gradviz.render.story_overlay import GLOW, RING


def _cards_as_drawn(c, step):
    """{node: scene rect} of every card as the canvas draws it during `step`."""
    r = c.renderer
    out = {}
    for n in r.doc.nodes:
        rect = app_ui.card_as_drawn(c, n)
        if r.source_badge(n) or n in r.doc.tape.stop_recording or any(p.node == n for p in r.doc.targets):
            rect = rect.adjusted(0, -BADGE_H - 4, 0, 0)
        if n == step.node:
            rect = rect.united(r.rect(n).adjusted(-RING - GLOW, -RING - GLOW, RING + GLOW, RING + GLOW))
        out[n] = rect
    return out


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
def test_no_label_of_a_step_lies_on_a_card(open_window):
    """Lesson 14's step 22 wrote "from layer's matmul, inside layer (no edge)" on the ring
    round layer's card (the ring was no obstacle to a label): on main 44 labels in 20 lessons
    met the ring of their step's card."""
    w = open_window(None, size=(1280, 800))
    c, p = w.canvas, w.player
    over, labels = [], 0
    for number, lesson in enumerate(lessons.lesson_entries(), 1):
        assert lessons.open_lesson(w, lesson, ask=False)
        for _ in range(4):
            QCoreApplication.processEvents()
        for step in p.steps:
            p.set_index(step.index)
            p.finish_animation()
            QCoreApplication.processEvents()
            r = c.renderer
            cards = _cards_as_drawn(c, step)
            for label, rect in r.label_rects(step):
                labels += 1
                over += [(number, lesson.path.stem, step.index + 1, label, r.doc.nodes[n].label or n)
                         for n, card in cards.items() if rect.intersects(card)]
    assert over == [], "\n".join(map(str, over))
    assert labels > 200     # the lessons' steps write labels (a scan of nothing passes too)


def test_no_label_s_leader_runs_across_a_card(open_window):
    """Lesson 13's fan-in at x (step 22) in the window at 1280 x 800 (and in presentation
    mode): the leader from 'from xx, input b', placed above xx's card, ran down through xx's
    title to its arrow and read as pointing at xx. A label goes where its leader runs clear
    of every card and every text (leader_crossings counts both)."""
    w = open_window(None, size=(1280, 800))
    lesson = next(lesson for lesson in lessons.lesson_entries() if lesson.path.stem == "001_higher_order")
    assert lessons.open_lesson(w, lesson, ask=False)
    step = w.player.steps[21]
    w.player.set_index(step.index)
    w.player.finish_animation()
    QCoreApplication.processEvents()
    r = w.canvas.renderer
    assert leader_crossings(r, step) == []
    assert len(r.pill_leaders(step)) >= 3   # (labels far from their arrows: a step without leaders passes too)
