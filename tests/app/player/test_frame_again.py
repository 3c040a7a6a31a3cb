"""Framing a step again (the player frames each step 3 or 4 times as it is shown: on the step,
after the canvas's fit, on presentation mode's fit) places its arrows' labels and routes its
rule card's leader line no more: the renderer keeps each placement per card geometry, label
size and view (`_geometry_memo`), where a single last one was placed afresh at every
framing (labels placed 12,046 times in the walks of every sample's steps in the window and
in presentation mode at two sizes, 6,648 with it). What is kept is what a fresh placement
gives."""
from PySide6.QtCore import QCoreApplication

from gradviz.app.player import step_view
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render import leaders, story_overlay


def test_a_step_framed_again_places_its_labels_no_more(open_window, present, monkeypatch):
    """In presentation mode, whose framing weighs the step's labels where they would lie
    anywhere (`shown_whole`) before it keeps them in the view it chose."""
    w = open_window(SAMPLES_DIR / "001_hessian_newton.json", size=(1280, 800))
    p, c = w.player, w.canvas
    QCoreApplication.processEvents()
    present(w, (1280, 800))
    step = next(s for s in p.steps if s.kind == "contribution")
    w.presentation.go(step.index)
    p.finish_animation()
    for _ in range(3):
        QCoreApplication.processEvents()
        while w.presentation._fit_pending:
            QCoreApplication.processEvents()
    r = c.renderer
    labels, leader = r.label_rects(step), r.leader_path(step)
    assert labels and leader      # the step writes a label and its rule card has a leader
    view = (c.transform(), c.mapToScene(c.viewport().rect().center()))
    placed = []
    spot, route = story_overlay._best_spot, leaders.route
    monkeypatch.setattr(story_overlay, "_best_spot", lambda *a, **k: placed.append("label") or spot(*a, **k))
    monkeypatch.setattr(leaders, "route", lambda *a, **k: placed.append("leader") or route(*a, **k))
    w.presentation.fit()
    assert placed == []
    assert (c.transform(), c.mapToScene(c.viewport().rect().center())) == view
    assert r.label_rects(step) == labels and r.leader_path(step) == leader
    r._pill_cache = r._leader_cache = None        # placed afresh: the same
    assert r.label_rects(step) == labels and r.leader_path(step) == leader
    assert placed.count("label") == len(labels) and placed.count("leader") == 1


def test_a_step_framed_again_as_it_is_is_not_framed_anew(open_window, monkeypatch):
    """A frame that finds the view, the layout and the step as the last frame left them (one
    that changed nothing it weighs) frames, lays out and places nothing: the player's frame on
    the step, after a fit and on its timer found them so at 930 of 2,185 frames walking
    every sample in presentation mode. A new size of the view frames the step anew; what is
    kept is what framing afresh gives."""
    w = open_window(SAMPLES_DIR / "001_hessian_newton.json", size=(1280, 800))
    p, c = w.player, w.canvas
    QCoreApplication.processEvents()
    p.set_index(len(p.steps) - 2)
    p.finish_animation()
    for _ in range(3):
        QCoreApplication.processEvents()
    p.frame()          # (the frame the timer makes: from the view the step was framed in)

    def view():
        r = c.renderer
        return (c.transform(), c.horizontalScrollBar().value(), c.verticalScrollBar().value(),
                dict(r.positions), r.docked_formula(), p.zoom_cap, r.label_rects(p.step))
    shown = view()
    work = []
    frame_step, relayout = step_view.frame_step, type(c).relayout_unplaced
    monkeypatch.setattr(step_view, "frame_step", lambda *a, **k: work.append("frame") or frame_step(*a, **k))
    monkeypatch.setattr(type(c), "relayout_unplaced", lambda *a, **k: work.append("layout") or relayout(*a, **k))
    for _ in range(3):
        p.frame()
    assert work == [] and view() == shown
    p._framed_as = p._laid_out_as = None      # framed afresh: the same
    p.frame()
    assert work == ["layout", "frame"] and view() == shown
    w.resize(1200, 760)
    QCoreApplication.processEvents()
    assert work.count("frame") == 2
