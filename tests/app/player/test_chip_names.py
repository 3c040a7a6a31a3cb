"""A step chip never ends inside a name (issue 20 §2): cut at 26 characters, the tiny CNN's
chips read "dense's bias add → dense'…", the attention lesson's "layer2's elu → layer2's b…".
A chip shows its step's title whole, or its first whole parts (sender, receiver, 'inside
…') and '…', the whole title in its tooltip. Every step of every sample, in the window's
timeline at 1280x800."""
import re
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from gradviz.graph import load
from gradviz.story import build

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@lru_cache(maxsize=None)
def _story(path):
    doc = load(path)
    return doc, build(doc)


def _names(doc, story):
    """Every name a title may hold: the nodes' labels, and the names the steps give tensors
    and ops ('dense's bias add', '∂y/∂x via xx (input 2)')."""
    names = {node.label or nid for nid, node in doc.nodes.items()}
    for step in story.steps:
        names.add(step.tensor_name)
        names.update(re.split(r" → |, inside |^Visit |^Gradient of |^Fan-in at |^Seed ", step.title))
    return {n for n in names if n}


def test_every_chip_shows_whole_names(open_window, qtbot):
    w = open_window(None, size=(1280, 800))
    strip = w.player.timeline
    assert strip.isVisible()
    for path in sorted(SAMPLES.glob("*.json")):
        doc, story = _story(path)
        steps = story.steps
        strip.set_steps([s.title for s in steps], [s.kind for s in steps])
        qtbot.waitUntil(lambda: strip.chips[-1].isVisible())      # laid out in the row
        QCoreApplication.processEvents()
        names = _names(doc, story)
        for i, step in enumerate(steps):
            chip = strip.chips[i]
            number, text = chip.text().split("  ", 1)
            where = (path.stem, i + 1, step.title, text)
            assert number == str(i + 1) and step.title in chip.toolTip(), where
            if text == step.title:
                continue
            shown = text.removesuffix("…")
            assert text.endswith("…") and step.title.startswith(shown), where
            cut = len(shown)
            for name in names:      # no name runs across the cut
                for m in re.finditer(re.escape(name), step.title):
                    assert not m.start() < cut < m.end(), (where, name)
            assert step.title[cut - 1] == " ", where
            assert chip.width() >= chip.fontMetrics().horizontalAdvance(chip.text()), where
