"""Walks over every step of every sample that more than one test checks. A walk takes a
minute or more; each is walked once per process, what every test sharing it checks at its
steps kept in the session's `walks` (conftest.py) for the others. The tests sharing a walk
are marked walk(name): tests/scheduling.py starts them one after another on one worker."""
from PySide6.QtCore import QCoreApplication

import framing_misses
import rule_card_reads
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.legible import READABLE_PX

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
