"""No caption of a rule card, nor a heading of `gradviz explain`, is a name the canvas shows
(issue 20 §1): a node called upstream beside a card whose 'upstream' shows other numbers
misleads. Over every op of the catalog and the normalisation layers, with nodes named after
every caption word."""
import re

import numpy as np
import pytest
from op_cases import KINDS, NO_RULE, inputs, op_doc

from gradviz import story
from gradviz.story.formula_parts import formula_parts, shown_caption
from gradviz.graph.operands import CAPTIONS, caption
from gradviz.story.text import explain

WORDS = sorted(CAPTIONS)
HEADING = re.compile(r"^ {5}(?:= )?([^:(]+?)(?: \([^)]*\))?:$")   # '     = sum:', '     cotangent (2×2):'


def captions(step):
    """Every word the card writes under its arrays and rule, and 'gradient' of 'gradient = None'."""
    out = []
    for part in formula_parts(step):
        if part[0] in ("array", "text") and len(part) <= 3:
            out.append(shown_caption(step, part[2]))
        elif part[0] == "word" and part[1].endswith(" = None"):
            out.append(part[1].removesuffix(" = None"))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_no_caption_is_a_name_on_the_canvas(kind):
    n = len(inputs(kind)[0])
    seen = set()
    for shift in (0, len(WORDS) // 2):
        names = [WORDS[(shift + i) % len(WORDS)] for i in range(n + 1)]
        doc = op_doc(kind, names[:n], names[n], [w for w in WORDS if w not in names])
        s = story.build(doc)
        shown = {node.label or node.id for node in doc.nodes.values()}
        assert set(WORDS) <= shown
        for step in s.steps:
            assert step.shown_names == shown, step.title
            for word in captions(step):
                assert word not in shown, (kind, step.title, word)
                seen.add(word)
        for line in explain(s, studies=False).splitlines():
            m = HEADING.match(line)
            assert not (m and m.group(1) in shown), (kind, line)
            assert "every product upstream ·" not in line, (kind, line)
    assert seen or kind in NO_RULE, kind


def test_a_longer_word_that_is_a_name_too_moves_on():
    assert caption("sum", {"x"}) == "sum"
    assert caption("sum", {"sum"}) == "sum of the paths"
    assert caption("sum", {"sum", "sum of the paths"}) == "sum of the paths (2)"
    assert caption("rule", {"rule"}) == "rule (2)"
    np.testing.assert_equal(sorted(CAPTIONS), WORDS)
