"""A step names an input of an op as the canvas labels its port (issue 20 §2): lesson 11's
fan-in said "from vv, input 1 / input 2" beside ports labelled a and b, and lesson 4's cut
"input 1 (c)" of stop_gradient, which has one input and no label. Checked over every
sample: each "input <word>" a title, caption or path of a step writes about an op node
of several inputs is that port's label; an op of one input is never numbered."""
import re

import pytest

from gradviz import story
from gradviz.bundled import sample, sample_paths
from gradviz.graph import load
from gradviz.graph.slots import input_names

# where a step says which input: 'vv → v (input a)', 'from vv, input a', 'stops gradients:
# input a (c)' ("for its input layer" names the node feeding it, not the port)
INPUT = re.compile(r"\(input (\w+)\)|, input (\w+)\b|gradients: input (\w+) \(")
VIA = re.compile(r" via ([\w.]+) \(input (\w+)\)")


def _texts(step):
    return [step.title, step.caption, getattr(step, "_path", "") or ""] + list(step.paths or [])


def _op_node_steps(doc, s):
    naming = s.naming
    for step in s.steps:
        op = getattr(step, "_op", None)
        if step.kind not in ("contribution", "cut") or op is None:
            continue
        node = naming._op_nodes.get(id(op))
        if node is not None:
            yield step, op, node


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.stem)
def test_inputs_are_named_as_the_canvas_labels_their_ports(path):
    doc = load(path)
    s = story.build(doc)
    for step, op, node in _op_node_steps(doc, s):
        count = len(op.inputs)
        said = {next(g for g in m.groups() if g) for t in _texts(step) for m in INPUT.finditer(t)}
        if count == 1:
            assert not said and not any(re.search(r"input \d", t) for t in _texts(step)), \
                (step.title, _texts(step))
            continue
        ports = input_names(node, count, doc)
        assert said <= set(ports), (step.title, ports, _texts(step))
    # an op inside a 'gradient' node named by the op node whose rule made it: '∂y/∂x via xx
    # (input b)' (lesson 13 wrote 'input 2' beside xx's ports a and b)
    by_name = {n.label or n.id: n for n in doc.nodes.values()}
    for step in s.steps:
        for t in _texts(step):
            for name, word in VIA.findall(t or ""):
                node = by_name.get(name)
                if node is not None and node.kind == "op":
                    count = len([e for e in doc.edges if e.dst.node == node.id])
                    assert word in input_names(node, count, doc), (step.index + 1, t)


def test_an_inner_cotangent_names_the_port_it_goes_through():
    """Lesson 13 (nested tapes): xx = x * x shows ports a and b; its steps 8 to 13 spoke of
    '∂y/∂x via xx (input 2)' and '(input 1)'."""
    s = story.build(load(sample("001_higher_order")))
    titles = [st.title for st in s.steps]
    assert "∂y/∂x via xx (input b) → x, inside t1.gradient(y, x)" in titles
    assert "∂y/∂x via xx (input a) → x, inside t1.gradient(y, x)" in titles
    assert not any("(input 1)" in t or "(input 2)" in t for st in s.steps for t in _texts(st))


def test_the_two_paths_of_lesson_11_are_its_ports_a_and_b():
    s = story.build(load(sample("001_clip_gradient")))
    (fan,) = s.of_kind("fan_in")
    assert [label for label, _ in fan.terms] == ["from vv, input a", "from vv, input b"] \
        or fan.paths == ["from vv, input a", "from vv, input b"], (fan.terms, fan.paths)
    assert [st.title for st in s.of_kind("contribution") if st.tensor_name == "v"] == \
        ["vv → v (input a)", "vv → v (input b)"]


def test_a_cut_of_one_input_says_its_input():
    s = story.build(load(sample("003_stop_gradient_product")))
    (cut,) = [st for st in s.of_kind("cut") if st._op is not None]
    assert "stops gradients: its input (c) gets no contribution" in cut.caption, cut.caption
