"""File ▸ Open over the hostile corpus (tests/hostile_corpus.py): each document opens
(its problems shown on the nodes) or is refused in a dialog, at once, never a traceback,
and a refused one leaves the window's document as it was."""
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import hostile_corpus  # noqa: E402


@pytest.mark.parametrize("name", hostile_corpus.NAMES)
def test_open_shows_or_refuses_every_hostile_document(name, open_window, tmp_path, app_env,
                                                      capfd):
    path = hostile_corpus.make(name, tmp_path)
    w = open_window(shown=False)
    before = w.controller.text()
    start = time.perf_counter()
    opened = w.load_path(path)
    took = time.perf_counter() - start
    assert "Traceback" not in capfd.readouterr().err
    if opened:
        assert not app_env.warnings
        assert len(w.canvas.scene().items()) < 20 * (len(w.controller.doc.nodes) + 10)
    else:
        assert len(app_env.warnings) == 1 and "Cannot open" in app_env.warnings[0]
        assert w.controller.text() == before
    if name in hostile_corpus.ABSURD:   # the place and the dimension, in the dialog or on the node
        words = hostile_corpus.ABSURD[name][1]
        shown = app_env.warnings or [str(p) for p in w.controller.result.problems]
        assert any(words in text for text in shown), shown
    assert took < 30, f"{name}: {took:.1f} s"


def test_every_zero_size_document_opens_with_its_studies_and_story(qtbot, open_window, app_env,
                                                                   capfd):
    """Each op with an empty input (issue 25 §4), opened one after the other in one window
    with the Jacobian, batch Jacobian and Hessian docks open and the story at its last
    step: every card shows 'empty, shape …' or its numbers, every study shows its result
    or says in words why not, and nothing reaches stderr as a traceback."""
    w = open_window(shown=True)
    docks = [w.study_docks[t] for t in ("Jacobian", "Batch Jacobian", "Hessian")]
    for dock in docks:   # tabbed: each is raised in turn, which builds its view
        dock.toggleViewAction().trigger()
        dock.raise_()
        qtbot.waitUntil(lambda d=dock: getattr(d, "view", None) is not None)
    for name in sorted(hostile_corpus.ZERO_SIZE):
        assert w.load_path(hostile_corpus.make(name, app_env.tmp)), app_env.warnings
        for dock in docks:
            dock.view.refresh()
        w.player.last()
        qtbot.wait(10)
        for dock in docks:
            view = dock.view
            assert view.result is not None or view.problem or view.not_applicable, \
                (name, dock.windowTitle())      # a result, or why not in words
        jacobian = docks[0].view
        if name not in hostile_corpus.REFUSED and hostile_corpus.ZERO_SIZE[name]["sources"]:
            assert jacobian.result is not None and not jacobian.problem, (name, jacobian.problem)
        w.controller.undo_stack.setClean()
    assert not app_env.warnings
    assert "Traceback" not in capfd.readouterr().err
