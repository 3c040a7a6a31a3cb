"""The stories of the network lessons (samples/nets_*.json), step by step."""
from pathlib import Path

import numpy as np
import pytest

from gradviz import graph, story
from gradviz.graph import Port

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def told(name):
    return story.build(graph.load(SAMPLES / f"{name}.json"))


def test_the_conv_lesson_tells_both_rules_with_the_documents_numbers():
    s = told("nets_1_conv_transpose")
    assert [x.kind for x in s.steps] == ["seed", "visit", "contribution", "contribution",
                                         "accumulate", "accumulate"]
    seed, visit, to_x, to_w, grad_x, grad_w = s.steps
    doc = s.document
    g = doc.output_gradients[Port("y")]
    assert seed.given
    np.testing.assert_array_equal(seed.cotangent, g)
    assert visit.node == "y" and visit.op_type == "Conv2D"
    assert to_x.port == Port("input_image") and to_x.formula.startswith("grad_input = transposed convolution")
    assert to_w.port == Port("filter_w") and to_w.formula.startswith("grad_filters = correlation of input")
    assert "Local rule of nn.conv2d for its input: grad_input" in to_x.caption   # not "input input"
    assert "Local rule of nn.conv2d for its input filter w (filters in the rule): grad_filters" \
        in to_w.caption
    w = doc.nodes["filter_w"].value[:, :, 0, 0]
    full = np.zeros((5, 5), np.float32)          # one filter copy per upstream entry
    for i, j in np.ndindex(3, 3):
        full[i:i + 3, j:j + 3] += g[0, i, j, 0] * w
    np.testing.assert_array_equal(to_x.cotangent[0, :, :, 0], full)
    np.testing.assert_array_equal(to_w.cotangent[:, :, 0, 0], [[2, 8, 2], [-2, 2, 3], [8, 2, 2]])
    np.testing.assert_array_equal(grad_x.cotangent, to_x.cotangent)
    np.testing.assert_array_equal(grad_w.cotangent, to_w.cotangent)
    # provenance of w[0, 0]: the upstream entries times the image entries under them, the
    # image written as the card's rule and picture write it: input, the node input image
    # (issue 20 §1: one name for one thing on the card and in the sum)
    p = s.provenance(Port("filter_w"), 0)
    assert float(p.value) == 2.0
    assert [(t.upstream, t.local) for t in p.terms] == [(1, 1), (2, 1), (-1, 1)]
    assert to_w.operand_nodes["input"] == "input image"
    assert p.text().startswith("grad filter w[0,0,0,0] = 1·input[0,0,0,0] + 2·input[0,1,1,0] + "
                               "(-1)·input[0,2,2,0] = 2")


@pytest.mark.parametrize("name", ["nets_2_sigmoid_chain", "nets_2_relu_chain", "nets_2_bad_init"])
def test_a_chain_lesson_visits_every_layer_from_the_last_to_x(name):
    s = told(name)
    kinds = [x.kind for x in s.steps]
    assert kinds[:3] == ["seed", "visit", "contribution"] and kinds[-1] == "accumulate"
    outer = [x for x in s.steps if not x.internal and x.kind == "visit"]
    assert [x.node for x in outer] == ["loss"] + [f"layer{k}" for k in range(6, 0, -1)]
    np.testing.assert_array_equal(outer[1].cotangent, np.ones((1, 6)))   # the sum's seed
    # inside each Dense node: the activation, the bias add and the matmul, in that order
    for k in range(6, 0, -1):
        inner = [x.tensor_name for x in s.steps if x.internal and x.node == f"layer{k}"
                 and x.kind == "visit"]
        assert inner == [f"layer{k}'s bias add", f"layer{k}'s matmul"], inner
    # what each layer hands down is what the layer below receives
    handed = [x for x in s.steps if x.kind == "contribution" and not x.internal
              and x.port is not None and x.port.node.startswith(("layer", "x"))]
    for give, take in zip(handed, outer[1:] + [s.steps[-1]]):
        np.testing.assert_array_equal(give.cotangent, take.cotangent)
        assert give.port == take.port
    assert s.steps[-1].port == Port("x")


def test_the_wrong_gradient_story_shows_the_rule_doubling_the_cotangent():
    s = told("nets_3_wrong_gradient")
    assert [(x.kind, x.node) for x in s.steps] == [
        ("seed", "loss"), ("visit", "loss"), ("contribution", "loss"), ("visit", "t"),
        ("contribution", "t"), ("visit", "hand_written_rule"), ("contribution", "hand_written_rule"),
        ("visit", "wx"), ("contribution", "wx"), ("accumulate", "w")]
    w, x = s.document.nodes["w"].value, s.document.nodes["x"].value
    into_rule, out_of_rule = s.steps[5].cotangent, s.steps[6].cotangent
    np.testing.assert_allclose(into_rule, 1 - np.tanh(w * x) ** 2, rtol=1e-14)
    np.testing.assert_array_equal(out_of_rule, 2 * into_rule)
    assert s.steps[6].formula == "grad_wx = grad · 2"   # the rule in the document's names
    np.testing.assert_allclose(s.steps[-1].cotangent, 2 * x * (1 - np.tanh(w * x) ** 2),
                               rtol=1e-14)
    right = told("nets_3_gradient_check")
    assert [x.node for x in right.steps if x.kind == "visit"] == ["loss", "t", "wx"]
    np.testing.assert_allclose(right.steps[-1].cotangent, s.steps[-1].cotangent / 2, rtol=1e-15)


@pytest.mark.parametrize("name", ["nets_2_sigmoid_chain", "nets_2_relu_chain", "nets_2_bad_init"])
def test_each_layer_step_states_the_norm_the_lesson_tells_to_watch(name):
    """Lesson 26 says 'step through the story and watch the cotangent's norm at each layer's
    output', but no step showed a norm (only View ▸ Studies ▸ Gradient norms did). Each
    layer's visit and x's gradient step now state it, with how much it changed from the
    layer above; the numbers here are numpy's norms of the cotangents the steps carry. The
    factor is written as the norm beside it is ('3.418 is 1.395 times', not '1.4 times':
    issue 20, one format per step)."""
    from gradviz.story.numbers import alone
    s = told(name)
    points = [x for x in s.steps if x.kind == "visit" and not x.internal
              and x.node.startswith("layer")] + [s.steps[-1]]
    names = [f"layer{k}" for k in range(6, 0, -1)] + ["x"]
    assert [x.tensor_name for x in points] == names
    norms = [float(np.linalg.norm(np.asarray(x.cotangent, np.float64))) for x in points]
    for k, (step, norm) in enumerate(zip(points, norms)):
        said = f"Its norm ‖grad {names[k]}‖ = {alone(norm)}"
        if k:
            ratio = norm / norms[k - 1]
            said += (f" is {alone(ratio)} times ‖grad {names[k - 1]}‖" if ratio >= 1
                     else f" is ‖grad {names[k - 1]}‖ divided by {alone(1 / ratio)}")
        assert step.caption.endswith(f" {said}."), (step.title, step.caption)
    if name == "nets_2_sigmoid_chain":
        lesson = " ".join(s.document.lesson.split())
        assert "each layer's Visit step states the norm of the cotangent its output receives" in lesson
        assert all(f"{n:.3g}" in lesson for n in norms)   # the lesson's numbers are the steps'
        assert all(1 / ratio > 3 for ratio in np.divide(norms[1:], norms[:-1]))   # each falls


def test_only_a_deep_chain_of_layers_states_norms():
    """The norm is said along a chain of DEEP layers or more, not beside every matrix (conv,
    attention) nor in a two-layer loss (lesson 17, Newton's step), where it would only
    lengthen the cards; batch norm's lesson chains three (layer2, bn, layer1)."""
    for name in ("nets_1_conv_transpose", "nets_6_attention", "001_hessian_newton"):
        assert not [x for x in told(name).steps if "‖grad" in x.caption], name
    said = [x.tensor_name for x in told("001_batchnorm_pitfall").steps if "‖grad" in x.caption]
    assert said == ["layer2", "bn", "layer1", "x"]
