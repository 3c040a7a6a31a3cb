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
    assert took < 30, f"{name}: {took:.1f} s"
