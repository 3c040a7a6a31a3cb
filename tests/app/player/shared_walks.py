"""Walks over every step of every sample that more than one test checks. A walk takes a
minute or more; each is walked once per process, what every test sharing it checks at its
steps kept in the session's `walks` (conftest.py) for the others. The tests sharing a walk
are marked walk(name): tests/scheduling.py starts them one after another on one worker."""
from PySide6.QtCore import QCoreApplication, QRectF
from PySide6.QtGui import QTextDocument

import app_ui
import framing_misses
import opened_misses
import rule_card_reads
from gradviz.app.literal import WORD_JOINER
from gradviz.app.player import lessons
from gradviz.app.player.bar_widgets import wrapped_height
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.cards import BADGE_H
from gradviz.render.involved import step_groups
from gradviz.render.layout import frames_as_well
from gradviz.render.legible import READABLE_PX
from gradviz.render.story_overlay import GLOW, RING

SAMPLE_FILES = sorted(SAMPLES_DIR.glob("*.json"))


def presented(walks, open_window, present, size, monkeypatch):
    """{"framing": misses, "rule cards": misses}: what test_step_framing's framing checks and
    test_rule_card_digits' checks find at each step of every sample in presentation mode on
    a screen of `size`, each sample laid out first as Fit to Window lays it out in the window
    (folded where that shows it larger), as a teacher opens a lesson and then presents it."""
    key = ("presented", size)
    if key not in walks:
        w = open_window(None, size=size)
        present(w, size)       # (the platform's full-screen state shrank it to 961 x 832)
        w.setUpdatesEnabled(False)     # nothing painted: the checks read the geometry, 3x faster
        framing, rule_cards = [], []
        for path in SAMPLE_FILES:
            assert w.open_sample(path, ask=False)
            QCoreApplication.processEvents()
            w.canvas.relayout_unplaced(READABLE_PX)   # as Fit to Window lays it out in the window

            def check_rule_card(step, path=path):
                rule_cards.extend(rule_card_reads.misses(w, path, step, size, monkeypatch))
            framing += framing_misses.misses(w, path, True, size, each_step=check_rule_card)
        w.presentation.exit()
        walks[key] = {"framing": framing, "rule cards": rule_cards}
    return walks[key]


def caption_height(p):
    """The height of the player bar `p`'s caption text laid out at its label's width."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(p.caption.font())
    doc.setHtml(p.caption.text())
    doc.setTextWidth(p.caption.width())
    return doc.size().height()


def full_sizes(renderer):
    """{node: (width, height)} of every card measured in full (not its compact form)."""
    return {n: (c.width, (c.full or c).height) for n, c in renderer.cards.items()}


def cards_as_drawn(c, step):
    """{node: scene rect} of every card as the canvas draws it during `step`: its body (with
    the name plate of a card drawn compact), the badges' row above it, and for the step's own
    card the ring and glow round it."""
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


def _bar(p):
    """What test_player_view's step-name test reads of the player bar `p` at its step."""
    out = {"height": p.height(), "caption": (caption_height(p), p.caption.height())}
    if p.step is not None:
        label = p.step_label
        out["label"] = {"text": label.text().replace(WORD_JOINER, ""), "name": p.step_name(p.step),
                        "wrapped": wrapped_height(label), "line": label.fontMetrics().lineSpacing(),
                        "height": label.height(), "width": label.width(),
                        "inside": QRectF(p.rect()).contains(QRectF(label.geometry()))}
    return out


def stepped_lessons(walks, open_window):
    """[lesson's walk] of every lesson opened from the Lessons menu in the window at 1280 x 800
    (painted: the labels' scale and the compact cards follow the zoom as the canvas paints),
    played step by step from step 1 as it opened to the end and back to step 1, then the
    editing view: what test_labels_off_cards (each step's labels and cards as drawn, at its
    first visit), test_stable_layout (the cards' places and full sizes at each visit) and
    test_player_view's step names (the bar at each step's first visit and before the first)
    check. A lesson's walk: {"stem", "names" (node: its name), "opened" (positions), "sizes" (full, as opened),
    "compact" (laid out compact), "serves" (the opened layout frames the story as well as the
    player's), "visits": [(step index, {"title", "positions", "sizes", "labels", "cards", "bar"})]}."""
    key = "lessons 1280 x 800"
    if key not in walks:
        w = open_window(None, size=(1280, 800))
        c, p = w.canvas, w.player
        out = []
        for lesson in lessons.lesson_entries():
            assert lessons.open_lesson(w, lesson, ask=False)
            for _ in range(4):
                QCoreApplication.processEvents()
            doc = c.controller.doc
            opened, compact = dict(c.positions), c.compact_layout
            serves = None
            if len(p.steps) >= 2:
                groups = step_groups(c.renderer, p.steps)
                laid = c._view_layout(doc, READABLE_PX, overview=False, steps=groups)
                serves = not compact and frames_as_well(doc, c.renderer.sizes(), opened, laid,
                                                        (groups[0], c.layout_room(READABLE_PX), *groups[1:]))
            walk = {"stem": lesson.path.stem, "names": {n: node.label or n for n, node in doc.nodes.items()},
                    "opened": opened, "sizes": full_sizes(c.renderer),
                    "compact": compact, "serves": serves, "visits": []}
            seen = set()
            for step in (p.steps[1:] + p.steps[::-1] if len(p.steps) >= 2 else p.steps) + [None]:
                p.set_index(-1 if step is None else step.index)
                p.finish_animation()
                QCoreApplication.processEvents()
                visit = {"title": None if step is None else step.title, "positions": dict(c.positions),
                         "sizes": full_sizes(c.renderer)}
                if p.index not in seen:
                    seen.add(p.index)
                    visit["bar"] = _bar(p)
                    if step is not None:
                        visit["labels"] = [(label, QRectF(rect)) for label, rect in c.renderer.label_rects(step)]
                        visit["cards"] = cards_as_drawn(c, step)
                walk["visits"].append((p.index, visit))
            out.append(walk)
        walks[key] = out
    return walks[key]


def opened_lessons(walks, open_window, qtbot, size):
    """{"seed": misses, "view": misses}: what test_fit_during_story's seed-card test and
    test_step_framing's just-opened test find (opened_misses.py) of every lesson opened from
    the Lessons menu in a window of `size`, once the player has framed its step 1 and the
    canvas painted (in the just-opened test's own walk, unpainted after four turns of the
    event loop, every card's footprint, every edge's route and the view were the same)."""
    key = ("opened", size)
    if key not in walks:
        w = open_window(None, size=size)
        seed, view = [], []
        for lesson in lessons.lesson_entries():
            assert lessons.open_lesson(w, lesson, ask=False)
            app_ui.wait_idle(qtbot, w)        # the player's framing after the canvas's fit
            QCoreApplication.processEvents()
            seed += opened_misses.seed_misses(w, lesson.path.stem)
            view += opened_misses.view_misses(w, lesson.path.stem)
        walks[key] = {"seed": seed, "view": view}
    return walks[key]
