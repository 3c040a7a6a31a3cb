"""A node has one name on a slide: its label (issue 20 §2). Lesson 13 (nested tapes) step 9
titled an op inside t1.gradient(y, x) '∂y/∂x via xx (input 2)' while its caption called the
same op 'the multiply for ∂y/∂x via xx (input 2)' and its input '∂y/∂xx' in the product,
'the multiply for ∂y/∂xx' two words later: the title shortened names to fit two lines, the
caption wrote them whole. Now an op inside a 'gradient' node has one label, its shortest
own name, and every text of every step says it."""
import re
from pathlib import Path

import pytest

from gradviz import story
from gradviz.graph import load

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))
PREFIX = re.compile(r"^(Visit |Seed |Gradient of |Fan-in at |Cut: )")


def _bare(name):
    """A name as said: without 'inside <node>' (where it is, not what it is called), and with
    its first letter as written mid-sentence."""
    name = re.sub(r",? inside .*$", "", name.strip())
    return name[:1].lower() + name[1:]


def names_by_tensor(step, steps):
    """{id of a tensor (an op stands for its first output): {the names the step's texts give
    it}} for what a step speaks of: its title's names, a contribution's caption ('here <op> =
    <factor> · <factor>', 'for its input <name>'), its rule's operands, a visit's caption
    opening, a fan-in's caption opening and paths."""
    found = {}

    def say(tensor, name):
        if tensor is not None and name:
            found.setdefault(id(tensor), set()).add(_bare(name))
    op = step._op
    title = PREFIX.sub("", step.title).rsplit(", inside ", 1)[0]
    pieces = title.split(" → ")
    if step.kind == "contribution":
        tensor = op.inputs[step.input_index]
        say(op.outputs[0], pieces[0])
        repeated = sum(t is tensor for t in op.inputs) > 1
        say(tensor, re.sub(r" \(input \w+\)$", "", pieces[1]) if repeated else pieces[1])   # its port
        m = re.search(r", here (.+?) = (.+?),", step.caption)
        if m:
            say(op.outputs[0], m.group(1))
            factors = re.split(r" [·+−/] ", m.group(2))
            if len(factors) == len(op.inputs):
                for t, factor in zip(op.inputs, factors):
                    say(t, factor)
        m = re.search(r"for its input (.+?)(?: \(\w+ in the rule\))?: ", step.caption)
        if m:
            say(tensor, m.group(1))
        for k, name in enumerate(step.operand_nodes.values()):
            if k < len(op.inputs):
                say(op.inputs[k], name)
    elif step.kind == "visit":
        say(op.outputs[0], pieces[0])
        opening = re.split(r" \([\w.]+\) receives | receives ", step.caption)[0]
        say(op.outputs[0], re.sub(r", an? [\w.]+ inside .*", "", opening))
    elif step.kind == "fan_in":
        tensor = step._tensor if getattr(step, "_tensor", None) is not None else None
        if tensor is not None:
            say(tensor, pieces[0])
            say(tensor, step.caption.split(" is used ")[0])
        for i, path in zip(step._sources, step.paths):
            sender = steps[i]._op
            if sender is not None:
                say(sender.outputs[0], path.removeprefix("from ").split(", input ")[0])
    return found


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_step_names_each_node_one_way(path):
    s = story.build(load(path))
    checked = 0
    for step in s.steps:
        for names in names_by_tensor(step, s.steps).values():
            checked += 1
            assert len(names) == 1, (step.index + 1, step.title, sorted(names))
    assert checked


def test_lesson_13_step_9_says_each_op_by_its_label():
    s = story.build(load(next(p for p in SAMPLES if p.stem == "001_higher_order")))
    step = s.steps[8]
    op = step._op
    sender = s.naming.op_label(op)
    receiver = s.naming.label(op.inputs[step.input_index])
    for name in (sender, receiver):
        assert _bare(name) in step.title
        assert _bare(name) in step.caption
    assert "the multiply for" not in step.caption
