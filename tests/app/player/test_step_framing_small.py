"""A small graph fills the projector (issue 20 §4): in presentation mode at 1920 x 1080, each
step of lesson 5 and of the seeds' samples of at most 4 nodes shows the whole graph with the
step's rule card as large as the screen allows (up to presentation's zoom cap), the rule
card docked below, right or left of the graph where its own place (beside its node) made the
picture a card taller or wider than it had to be. Every item of the step stays in view, and
every card of a graph that fits the view at the zoom shown.

The bound: below the cap, the picture (every card, the rule card, the step's arrows and
labels) covers at least half the view's area, or at least WIDE of its width (a chain of
cards as wide as the screen, lesson 13: no dock side makes it taller). On main, lesson 1's
steps 1-2 covered 49 % of the view and 52 % of its width (the seed's card under y_tf made the
column of tf_t and tf_b one card taller), lesson 3's step 4 45 %, its step 2 47 % with a and b
panned out of view, and lesson 15's step 3 left x and delta out of a view that holds them."""
import json

import pytest
from PySide6.QtCore import QCoreApplication, QRectF, Qt

from gradviz.app.player import lessons, presentation, step_view
from gradviz.render.legible import READABLE_PX

SIZE = (1920, 1080)
AREA = 0.5          # of the view's area the picture covers at least ...
WIDE = 0.85         # ... or of its width
EPS = 1e-6


def _small_samples():
    """Lesson 5 and the seeds' samples (their names start with their seed's number) of at
    most 4 nodes."""
    out = []
    for entry in lessons.lesson_entries():
        nodes = json.loads(entry.path.read_text(encoding="utf-8"))["nodes"]
        if entry.number == 5 or (entry.path.name[:3].isdigit() and len(nodes) <= 4):
            out.append(entry.path)
    return out


def _settle(w):
    for _ in range(3):
        QCoreApplication.processEvents()
        while w.presentation._fit_pending:
            QCoreApplication.processEvents()


def _misses(w, path):
    c, p = w.canvas, w.player
    out = []
    for step in p.steps:
        w.presentation.go(step.index)
        p.finish_animation()
        _settle(w)
        r = c.renderer
        where = (path.stem, step.index + 1, step.title)
        port = c.viewport().rect()
        seen = c.visible_rect().adjusted(-0.5, -0.5, 0.5, 0.5)     # the scroll bars' whole pixels
        items = step_view.involved_cards(r, step) + step_view.arrow_rects(r, step)
        formula = step_view.render_painter.formula_rect(r, step)
        if formula is not None:
            items.append(formula)
        if getattr(step, "kind", "") == "seed":
            items.append(r.moving_rect(step))
        if not all(seen.contains(item) for item in items):
            out.append(where + ("an item of the step is out of view",))
        cards = [r.footprint(n) for n in r.doc.nodes]     # with the badge line and ports' names
        zoom = c.transform().m11()
        picture = QRectF()
        for rect in cards + items + [r.moving_rect(step)]:
            picture = picture.united(rect)
        if picture.width() * zoom > port.width() or picture.height() * zoom > port.height():
            continue            # a graph larger than the screen at this zoom
        if not all(seen.contains(card) for card in cards):
            out.append(where + ("a card of a graph that fits the view is out of view",))
        if zoom >= presentation.MAX_ZOOM - EPS:
            continue            # as large as presentation shows a step
        shown = c.mapFromScene(picture).boundingRect().intersected(port)
        area = shown.width() * shown.height() / (port.width() * port.height())
        wide = shown.width() / port.width()
        if area < AREA and wide < WIDE:
            out.append(where + ("the picture covers little of the view", round(area, 2), round(wide, 2),
                                round(zoom, 2)))
    return out


@pytest.mark.parametrize("path", _small_samples(), ids=lambda p: p.stem)
def test_a_small_graph_fills_the_screen_in_presentation(open_window, monkeypatch, path):
    w = open_window(None, size=SIZE)
    monkeypatch.setattr(presentation.PresentationMode, "screen_height", lambda self: SIZE[1])
    assert w.open_sample(path, ask=False)
    QCoreApplication.processEvents()
    w.canvas.relayout_unplaced(READABLE_PX)   # as Fit to Window lays it out in the window
    w.presentation.enter()
    w.setWindowState(Qt.WindowState.WindowNoState)    # the test screen may be smaller
    w.setGeometry(0, 0, *SIZE)
    _settle(w)
    misses = _misses(w, path)
    w.presentation.exit()
    assert misses == [], "\n".join(map(str, misses))
