"""A step chip never ends inside a name (issue 20 §2): cut at 26 characters, the tiny CNN's
chips read "dense's bias add → dense'…", the attention lesson's "layer2's elu → layer2's b…".
A chip shows its step's title whole, or its first whole parts (sender, receiver, 'inside
…') and '…', the whole title in its tooltip. Every step of every sample, in the window's
timeline at 1280x800. Two steps of one story never have chips that read the same (lesson
13's chips 3 and 4 both read 't1.gradient(y, x) → …': their receivers, 'the add' and
'∂y/∂x via xx (input b)', were cut with the 'inside …' that both share)."""
import re
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from gradviz.app.player.timeline import chip_text, chip_texts
from gradviz.graph import load
from gradviz.story import build

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@lru_cache(maxsize=None)
def _story(path):
    doc = load(path)
    return doc, build(doc)


def _names(doc, story):
    """Every name a title may hold: the nodes' labels, and the names the steps give tensors
    and ops ('dense's bias add', '∂y/∂x via xx (input b)')."""
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
        titles_of = {}      # a chip's text: the titles of the steps it stands for
        for step, chip in zip(steps, strip.chips):
            titles_of.setdefault(chip.text().split("  ", 1)[1], set()).add(step.title)
        same = {text: titles for text, titles in titles_of.items() if len(titles) > 1}
        assert not same, (path.stem, same)


def test_chips_of_one_story_read_differently_where_their_first_parts_are_the_same():
    """Two steps from one sender to receivers too long for a chip: cut after the sender both
    chips read "dense's bias add → …"; each shows its receiver instead, and a title that is
    the same in two steps gives the same chip."""
    one = "dense's bias add → the first of the dense layer's outputs"
    two = "dense's bias add → the second of the dense layer's outputs, inside g"
    three = "Visit dense's bias add, inside t1.gradient(loss, the dense layer's kernel)"
    assert chip_text(one) == chip_text(two) == "dense's bias add → …"
    assert chip_texts([one, two, three, one]) == [one, "dense's bias add → the second of the dense layer's outputs, …",
                                                  "Visit dense's bias add, inside …", one]
