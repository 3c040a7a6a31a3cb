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

import shared_walks
from leader_lines import leader_crossings
from gradviz.app.player import lessons


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.walk("lessons 1280 x 800")
def test_no_label_of_a_step_lies_on_a_card(walks, open_window):
    """Lesson 14's step 22 wrote "from layer's matmul, inside layer (no edge)" on the ring
    round layer's card (the ring was no obstacle to a label): on main 44 labels in 20 lessons
    met the ring of their step's card. Checked at each step's first visit in the walk that
    test_stable_layout and test_player_view's step names take too (shared_walks.stepped_lessons)."""
    over, labels = [], 0
    for number, walk in enumerate(shared_walks.stepped_lessons(walks, open_window), 1):
        for index, visit in walk["visits"]:
            for label, rect in visit.get("labels", []):
                labels += 1
                over += [(number, walk["stem"], index + 1, label, walk["names"][n])
                         for n, card in visit["cards"].items() if rect.intersects(card)]
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
