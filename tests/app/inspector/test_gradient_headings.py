"""Every heading that names what was differentiated says what tape.gradient took: a scalar
target itself, the sum Σy of a tensor target, ❬v, y❭ = Σ v·y for a target seeded with
output_gradients v (issue 20: 'd(y) / d(input image)' was false for a seeded y). The
inspector's headings, the cards' gradient labels and the code view's print agree."""
from pathlib import Path

import numpy as np
import pytest

from gradviz.app.controller import DocumentController
from gradviz.app.inspector.panel import InspectorWidget
from gradviz.graph import fileformat
from gradviz.graph.codegen import to_python
from gradviz.graph.document import Port
from gradviz.render import Renderer
from gradviz.story.build import build

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _seeded_004():
    """Seed 004 with y_tf seeded by v: ❬v, y_tf❭."""
    doc = fileformat.load(SAMPLES / "004_matmul_sum.json")
    doc.output_gradients = {doc.targets[0]: np.full((5, 3), 2.0, np.float32)}
    return doc


def _two_targets():
    """Seed 004 with a second target, tf_b: (Σy_tf + Σtf_b)."""
    doc = fileformat.load(SAMPLES / "004_matmul_sum.json")
    doc.targets = [*doc.targets, Port("tf_b")]
    return doc


CASES = [
    # (document, source node, what is differentiated, words the note must say)
    (lambda: fileformat.load(SAMPLES / "nets_1_conv_transpose.json"), "input_image", "❬v, y❭",
     "❬v, y❭ = Σ v·y, where v is the output_gradients given for y"),
    (_seeded_004, "tf_t", "❬v, y_tf❭", "❬v, y_tf❭ = Σ v·y_tf"),
    (lambda: fileformat.load(SAMPLES / "004_matmul_sum.json"), "tf_t", "Σy_tf",
     "Σy_tf: the sum of y_tf's elements"),
    (lambda: fileformat.load(SAMPLES / "001_stop_gradient.json"), "x", "z", ""),
    (_two_targets, "tf_t", "(Σy_tf + Σtf_b)", "Σtf_b: the sum of tf_b's elements"),
]


@pytest.fixture
def inspector(qtbot):
    made = []

    def make(doc):
        c = DocumentController()
        made.append(c)
        c.set_document(doc)
        w = InspectorWidget(c)
        qtbot.addWidget(w)
        return c, w
    yield make
    for c in made:
        c.undo_stack.blockSignals(True)


def _card_objective(doc, node):
    """What the node's card says its gradient is the derivative of ('❬v, y❭')."""
    story = build(doc)
    r = Renderer(doc, evaluation=story.evaluation, story=story)
    label = next(s.label for s in r.cards[node].sections if s.colour == "gradient")
    assert label.startswith("gradient  ∂"), label
    return label[len("gradient  ∂"):].rsplit("/∂", 1)[0]


@pytest.mark.parametrize("make_doc, source, objective, note", CASES,
                         ids=["seeded conv", "seeded matmul", "tensor target", "scalar target",
                              "two targets"])
def test_every_gradient_heading_says_what_was_differentiated(inspector, make_doc, source,
                                                             objective, note):
    doc = make_doc()
    name = doc.nodes[source].label or source
    c, w = inspector(doc)
    page = w.page
    assert page.grad_headings[Port(source)].text() == f"∂{objective} / ∂{name}"
    assert note in page.objective_note.text() and page.objective_note.isVisibleTo(page) == bool(note)
    c.set_selection([source])
    w.page._refresh_result(story_now=True)
    assert w.page.grad_heading.text() == f"Gradient  ∂{objective} / ∂{name}"
    assert note in w.page.grad_note.text()
    # a node on the way (not a source) shows its cotangent, of the same objective
    inner = next(e.dst.node for e in doc.edges if e.src.node == source)
    if Port(inner) not in doc.sources:
        c.set_selection([inner])
        w.page._refresh_result(story_now=True)
        inner_name = doc.nodes[inner].label or inner
        assert w.page.grad_heading.text() == f"Cotangent  ∂{objective} / ∂{inner_name}"
    # the card and the code view say the same
    assert _card_objective(doc, source) == objective
    if "," not in objective and "+" not in objective:   # the code names tensors as identifiers
        assert f'∂{objective} / ∂' in to_python(doc).rsplit("print(", 1)[1]
    assert "d(" not in page.grad_headings[Port(source)].text()


def test_a_target_whose_value_is_unknown_is_not_called_a_tensor(inspector, labelled_mlp):
    """x @ W1 -> relu -> @ W2 -> reduce_sum with W2 5 x 2: the graph stops at the second
    matmul, so reduce_sum has no value. W2's Result read '∂Σreduce_sum/∂W2 … Σreduce_sum:
    the sum of reduce_sum's elements, which tape.gradient differentiates for a target that
    is not a scalar', and reduce_sum is a scalar. A target of unknown value is named alone,
    with no claim either way; its shape error names the nodes that feed the matmul."""
    doc = labelled_mlp()
    doc.nodes["relu4"].label, doc.nodes["reduce_sum7"].label = "hidden", "reduce_sum"
    doc.nodes["w5"].value = np.ones((5, 2), np.float32)
    c, w = inspector(doc)
    c.set_selection(["w5"])
    w.page._refresh_result(story_now=True)
    assert w.page.grad_heading.text() == "Gradient  ∂reduce_sum / ∂W2"
    for text in (w.page.grad_note.text(), w.page.grad_heading.text()):
        assert "not a scalar" not in text and "Σreduce_sum" not in text, text
    (problem,) = c.result.problems
    assert problem.node == "matmul6"
    assert ("hidden (operand a) has shape 2×4, W2 (operand b) has shape 5×2; inner "
            "dimensions 4 and 5 differ") in problem.message
    assert "Σreduce_sum" not in to_python(doc)


def test_a_tensor_without_a_gradient_says_how_to_ask_for_one_in_its_name(inspector, labelled_mlp):
    """x, W1 and W2 showed 'No gradient: tick 'Source' to ask the tape for the gradient with
    respect to this output': a Variable or a constant is no output (auditor H38w). The words
    name the tensor; an unwatched constant also needs 'Watched', since the tape returns None
    for a constant it does not watch."""
    doc = labelled_mlp()
    doc.sources = []
    c, w = inspector(doc)
    for node, asked in (("x1", "tick 'Watched' and 'Source' to ask the tape for the gradient "
                                "with respect to x."),
                        ("w2", "tick 'Source' to ask the tape for the gradient with respect to W1."),
                        ("w5", "tick 'Source' to ask the tape for the gradient with respect to W2.")):
        c.set_selection([node])
        w.page._refresh_result(story_now=True)
        assert w.page.grad_none.text() == "No gradient: " + asked
        assert "output" not in w.page.role_boxes[("sources", 0)].toolTip()
