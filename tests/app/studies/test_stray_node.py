"""A stray node never hides the target's gradient (README), in any study (issue 20 §1): on
the attention sample an unconnected multiply (the editor's Tab add) stopped the Gradient
check ('node multiply: input 1 (x) is not connected') while the canvas showed the gradient,
and named the input 'x' where the canvas labels it 'a'."""
from pathlib import Path

import pytest

from gradviz.app import studies as views
from gradviz.app.controller import DocumentController
from gradviz.graph.document import OP

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@pytest.fixture
def controller():
    made = DocumentController()
    yield made
    made.undo_stack.blockSignals(True)   # it outlives the controller during teardown


def _multiply_edges(doc, nid):
    return [e for e in doc.edges if nid in (e.src.node, e.dst.node)]


@pytest.mark.parametrize("title, cls", views.VIEWS)
def test_a_stray_node_stops_no_study(qtbot, controller, title, cls):
    controller.open(SAMPLES / "nets_6_attention.json")
    view = cls(controller)
    qtbot.addWidget(view)
    view.refresh()
    assert not view.error, view.error
    before = (view.not_applicable, type(view.result))   # the batch Jacobian does not apply
    stray = controller.add_node(OP, "multiply")
    assert not _multiply_edges(controller.doc, stray)
    assert controller.result.problems       # the stray node's own problem is still shown
    view.refresh()
    assert not view.error and not view.problem, view.error
    assert (view.not_applicable, type(view.result)) == before


def test_a_broken_input_is_named_as_the_canvas_labels_it(qtbot, controller):
    """A multiply the target depends on, its second input unconnected: the study cannot be
    made, and says so naming the input 'b' (its port label), as the node's problem does."""
    controller.open(SAMPLES / "nets_6_attention.json")
    doc = controller.doc
    target = doc.targets[0]
    stray = controller.add_node(OP, "multiply")
    # the target's node now reads the multiply's output in place of its first input
    edge = next(e for e in controller.doc.edges if e.dst.node == target.node)
    upstream = edge.src

    def rewire(d):
        d.connect(upstream.node, stray, upstream.index, 0)
        d.connect(stray, edge.dst.node, 0, edge.dst.index)
    controller.edit("Rewire", rewire)
    own = [p.message for p in controller.result.problems if p.node == stray]
    assert own == ["input 2 (b) is not connected"], own
    view = views.GradientCheckView(controller)
    qtbot.addWidget(view)
    view.refresh()
    assert "input 2 (b) is not connected" in view.error, view.error
    assert "(y)" not in view.error
