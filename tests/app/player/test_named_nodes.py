"""The cards a slide's words name (framing_names.named_nodes), which presentation mode frames
with the step: every 'Visit' caption defines the cotangent by the target ('how much the sum
of loss's elements changes per unit change of each output element'), a name the reader
needs no card for. Counting it drew the tiny CNN's visits zoomed out to the loss card, its
step 12 at 11.8 px instead of 18 (H39a's report), or with a 'loss →' marker on every visit."""
from pathlib import Path

import pytest

from gradviz.app.player import framing_names
from gradviz.graph import load
from gradviz.render import Renderer
from gradviz.story import build

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _renderer(name):
    doc = load(SAMPLES / f"{name}.json")
    story = build(doc)
    return Renderer(doc, evaluation=story.evaluation, story=story, theme="light")


@pytest.mark.parametrize("name", ["nets_5_tiny_cnn", "nets_2_relu_chain", "001_higher_order"])
def test_a_visit_does_not_name_the_target_it_differentiates(name):
    r = _renderer(name)
    targets = {p.node for p in r.doc.targets}
    visits = [s for s in r.story.steps if s.kind == "visit" and s.node not in targets]
    assert visits
    for step in visits:
        label = r.doc.nodes[next(iter(targets))].label
        assert label in step.caption      # the words do name it ...
        assert not targets & set(framing_names.named_nodes(r, step)), (name, step.index + 1, step.title)


def test_a_rule_card_operand_is_still_named():
    """Lesson 13's steps inside t1.gradient(y, x) name x ('∂y/∂x via xx', 'grad_x = grad · a'):
    x stays a card the slide shows."""
    r = _renderer("001_higher_order")
    step = next(s for s in r.story.steps if "grad_x = " in " ".join(framing_names.card_texts(r, s)))
    x = next(n for n, node in r.doc.nodes.items() if (node.label or n) == "x")
    assert x in framing_names.named_nodes(r, step)
