"""Stepping through a story moves no card without a need (issue 20 §4: the camera shows
what the step is about; the cards stay where the teacher saw them). Measured on c41acfa at
1280 x 800: 18 of the 36 lessons rearranged their cards between step 1, shown as the lesson
opened (Fit to Window's layout), and step 2 (the player's layout for the story), no card
having grown (003_stop_gradient_product's two rows became one); no lesson moved a card
between any later steps."""
from PySide6.QtCore import QCoreApplication

from gradviz.app.player import lessons
from gradviz.render.involved import step_groups
from gradviz.render.layout import frames_as_well
from gradviz.render.legible import READABLE_PX


def _full_sizes(renderer):
    return {n: (c.width, (c.full or c).height) for n, c in renderer.cards.items()}


def test_the_cards_stay_where_they_are_from_step_to_step(open_window):
    """Every lesson opened from the Lessons menu in the window at 1280 x 800, played step by
    step to its end and back to step 1: between two steps no card moves unless a card grew
    (measured in full), or the layout shown as the lesson opened was drawn compact (its
    cards as tall as their compact form), or it serves the story worse than the player's
    layout for it (a step's cards too far apart to frame together, an edge across the
    canvas, a rule card with no free place: render.layout.frames_as_well)."""
    w = open_window(None, size=(1280, 800))
    w.setUpdatesEnabled(False)
    c, p = w.canvas, w.player
    moves, kept = [], 0
    for lesson in lessons.lesson_entries():
        assert lessons.open_lesson(w, lesson, ask=False)
        for _ in range(4):
            QCoreApplication.processEvents()
        if len(p.steps) < 2:
            continue
        doc = c.controller.doc
        opened, compact = dict(c.positions), c.compact_layout
        sizes = _full_sizes(c.renderer)
        groups = step_groups(c.renderer, p.steps)
        laid = c._view_layout(doc, READABLE_PX, overview=False, steps=groups)
        serves = not compact and frames_as_well(doc, c.renderer.sizes(), opened, laid,
                                                (groups[0], c.layout_room(READABLE_PX), *groups[1:]))
        before = opened
        for step in p.steps[1:] + p.steps[::-1]:
            p.set_index(step.index)
            p.finish_animation()
            QCoreApplication.processEvents()
            now, grown = dict(c.positions), _full_sizes(c.renderer)
            first = before is opened
            if now != before and grown == sizes and not (first and not serves):
                moves.append((lesson.path.stem, step.index + 1, step.title))
            kept += first and now == before
            before, sizes = now, grown
    assert moves == [], "\n".join(map(str, moves))
    assert kept >= 24       # (on c41acfa, 18 of 36: the opened layout served 6 more as well)
