"""Dead relu units: found in a relu's output, marked on its card, explained in relu's step."""
from pathlib import Path

import numpy as np
import pytest

from gradviz import graph, story
from gradviz.graph import Port
from gradviz.story import dead_units

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_a_unit_is_dead_when_its_column_is_zero_for_the_whole_batch():
    a = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    assert dead_units.dead_units(a) == [0]
    assert dead_units.dead_units(a[:1]) == [0, 2]            # one example: each off unit
    assert dead_units.dead_units(np.zeros(3)) == []           # no batch axis
    assert dead_units.dead_units(np.zeros((0, 3))) == []
    fmap = np.ones((1, 2, 2, 3))
    fmap[..., 1] = 0
    assert dead_units.dead_units(fmap) == [1]                 # a channel off at every position
    assert dead_units.dead_units(np.array([[np.nan, 0.0]])) == [1]   # NaN is not 0
    assert dead_units.card_mark(a) == "dead relu: unit 0 (of 3; 2 examples)"
    # one example shows a unit off for that input, not dead (off for every input)
    assert dead_units.card_mark(fmap) == "relu off for this example: unit 1 (of 3, all 4 positions)"
    assert dead_units.card_mark(a[:1]) == "relu off for this example: units 0, 2 (of 3)"
    fmaps = np.concatenate([fmap, fmap])
    assert dead_units.card_mark(fmaps) == "dead relu: unit 1 (of 3; 8 positions)"
    assert dead_units.card_mark(np.ones((2, 3))) == ""


def relu_chain_pre_activations(doc):
    a, out = doc.nodes["x"].value.astype(np.float64), []
    for k in range(1, 7):
        layer = doc.nodes[f"layer{k}"]
        z = a @ layer.weights["kernel"] + layer.weights["bias"]
        out.append(z)
        a = np.maximum(z, 0)
    return out


@pytest.mark.parametrize("name", ["nets_2_relu_chain", "nets_2_bad_init"])
def test_relus_step_says_which_units_are_dead_and_their_cotangent_is_zero(name):
    s = story.build(graph.load(SAMPLES / f"{name}.json"))
    zs = relu_chain_pre_activations(s.document)
    relu_steps = [x for x in s.steps if x.kind == "contribution" and x.op_type == "Relu"]
    assert [x.node for x in relu_steps] == [f"layer{k}" for k in range(6, 0, -1)]
    doc = graph.load(SAMPLES / f"{name}.json")
    doc.sources = [Port(f"layer{k}", 1) for k in range(1, 7)]     # every kernel's gradient
    kernels = graph.evaluate(doc).gradients
    for step, z in zip(relu_steps, reversed(zs)):
        dead = [int(u) for u in np.flatnonzero((z <= 0).all(axis=0))]
        assert dead, step.title                      # one example: every chain layer has some
        units = ", ".join(map(str, dead))
        assert f"Unit{'s' if len(dead) > 1 else ''} {units} " in step.caption
        assert "off for this example" in step.caption and "dead" not in step.caption
        # said of what feeds the unit, weights or not (a relu fed by a constant has none: an
        # auditor read 'the weights that feed it' on a student's graph without weights)
        assert "no gradient passes back through" in step.caption and "weights" not in step.caption
        np.testing.assert_array_equal(step.cotangent[:, dead], 0)
        kernel_grad = kernels[Port(step.node, 1)]
        assert not kernel_grad[:, dead].any() and kernel_grad.any()


def test_a_step_of_a_relu_with_every_unit_alive_says_nothing_about_dead_units():
    s = story.build(graph.load(SAMPLES / "nets_5_tiny_cnn.json"))
    (relu,) = [x for x in s.steps if x.kind == "contribution" and x.op_type == "Relu"]
    assert "dead" not in relu.caption
