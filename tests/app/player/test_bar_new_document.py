"""The player bar when another document opens: the old document's steps go at once, the bar
says the story is being computed while it is (a chain of 2000 sigmoids took 15 s, its bar
still read '1 Seed y … 14 steps' of the document before), then the new steps fill it."""
from gradviz.app.player.bar import PlayerBar
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.app import evaluation

SEED_004 = SAMPLES_DIR / "004_matmul_sum.json"
HESSIAN = SAMPLES_DIR / "001_hessian_newton.json"


def _bar_text(bar):
    return bar.step_label.text(), bar.caption.text(), [c.text() for c in bar.timeline.chips]


def test_a_document_opened_never_shows_the_previous_documents_steps(open_window, qtbot,
                                                                     monkeypatch):
    w = open_window(SEED_004)
    bar = w.player
    old = bar.steps
    assert old and bar.timeline.chips
    old_chips = [c.text() for c in bar.timeline.chips]
    seen = []   # what the bar shows while the new story is being assembled (after a paint)
    tell = evaluation.tell_story

    def watched(*args, **kwargs):
        seen.append(_bar_text(bar))
        return tell(*args, **kwargs)
    monkeypatch.setattr(evaluation, "tell_story", watched)
    replaced = []
    w.controller.documentReplaced.connect(lambda: replaced.append(_bar_text(bar)))
    w.controller.evaluated.connect(lambda result: replaced.append(_bar_text(bar)))
    w.controller.open(str(HESSIAN))
    qtbot.waitUntil(lambda: bool(seen) and bar._waiting is None, timeout=20000)
    # the bar's own handler runs first (it connected first): the old steps are gone at once
    for label, caption, chips in replaced + seen:
        assert not set(chips) & set(old_chips)
        assert label == "Computing", (label, caption)
        assert caption == "Computing the story of this document's backward pass…"
    new = w.controller.result.story.steps
    assert bar.steps == new and len(bar.timeline.chips) == len(new)
    assert bar.step_label.text() == "Editing"
    assert bar.caption.text().startswith(f"{len(new)} steps in the story")
    assert isinstance(bar, PlayerBar)


def test_a_key_pressed_while_the_story_is_computed_takes_it_at_once(open_window):
    """→ right after opening steps into the new story (the key takes it now), though the
    bar shows no steps yet."""
    w = open_window(SEED_004)
    w.controller.open(str(HESSIAN))
    bar = w.player
    assert bar.step_label.text() == "Computing" and not bar.timeline.chips
    assert bar.actions_by_name["step"].isEnabled()
    bar.actions_by_name["step"].trigger()
    assert bar.index == 0 and bar.steps == w.controller.result.story.steps
