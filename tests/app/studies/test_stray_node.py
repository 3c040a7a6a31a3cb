"""A stray node never hides the target's gradient (README), in any study (issue 20 §1): on
the attention sample an unconnected multiply (the editor's Tab add) stopped the Gradient
check ('node multiply: input 1 (x) is not connected') while the canvas showed the gradient,
and named the input 'x' where the canvas labels it 'a'."""
from pathlib import Path

import pytest

from gradviz.app import studies as views
from gradviz.app.controller import DocumentController
from gradviz.app.studies import _base
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


def _break_the_path(controller):
    """A multiply between the target and its input, its second input unconnected: the
    graph stops before the target (its id)."""
    doc = controller.doc
    target = doc.targets[0]
    node = controller.add_node(OP, "multiply")
    edge = next(e for e in controller.doc.edges if e.dst.node == target.node)
    upstream = edge.src

    def rewire(d):
        d.connect(upstream.node, node, upstream.index, 0)
        d.connect(node, edge.dst.node, 0, edge.dst.index)
    controller.edit("Rewire", rewire)
    return node


def test_the_error_a_study_names_is_the_one_that_stops_its_target(qtbot, controller):
    """Issue 20 §2: graph_error named the document's first error, a stray node's (added
    first), where the study's target stops at another node."""
    from gradviz.app.studies.applies import graph_error
    controller.open(SAMPLES / "nets_6_attention.json")
    stray = controller.add_node(OP, "multiply")
    assert graph_error(controller) == ""              # the stray node stops nothing studied
    broken = _break_the_path(controller)
    errors = [p for p in controller.result.problems if not p.warning]
    assert errors[0].node == stray                   # the first error is the stray one's
    name = controller.name(broken)
    assert name != controller.name(stray)
    assert graph_error(controller) == f"the graph does not run ({name}: input 2 (b) is not connected)"


def test_the_player_says_why_there_is_no_backward_pass_as_the_studies_do(qtbot, open_window):
    """Issue 20 §2: the player's caption had words of its own (and named the first error,
    a stray node's); it and the studies now say it with story.build.no_backward_pass."""
    w = open_window(SAMPLES / "nets_6_attention.json", shown=False)
    controller = w.controller
    view = views.GradientNormView(controller)
    qtbot.addWidget(view)
    stray = controller.add_node(OP, "multiply")
    controller.edit("No target", lambda d: setattr(d, "targets", []))
    view.refresh()
    assert not w.player.steps and view.not_applicable
    assert w.player.caption.plain == f"No backward pass to show: {view.not_applicable}"
    controller.undo_stack.undo()
    broken = _break_the_path(controller)
    view.refresh()
    assert not w.player.steps and view.error
    said = f"the graph does not run ({controller.name(broken)}: input 2 (b) is not connected)"
    assert w.player.caption.plain == f"No backward pass to show: {said}."
    assert view.error == f"{said}, so it has no cotangent to measure"
    assert f"({controller.name(stray)}:" not in said


def test_a_broken_input_is_named_as_the_canvas_labels_it(qtbot, controller):
    """A multiply the target depends on, its second input unconnected: the study cannot be
    made, and says so naming the input 'b' (its port label), as the node's problem does."""
    controller.open(SAMPLES / "nets_6_attention.json")
    # the target's node now reads the multiply's output in place of its first input
    stray = _break_the_path(controller)
    own = [p.message for p in controller.result.problems if p.node == stray]
    assert own == ["input 2 (b) is not connected"], own
    view = views.GradientCheckView(controller)
    qtbot.addWidget(view)
    view.refresh()
    assert "input 2 (b) is not connected" in view.error, view.error
    assert "(y)" not in view.error


@pytest.mark.parametrize("title, cls", [v for v in views.VIEWS if v[0] in ("Jacobian", "Hessian", "Gradient check")])
def test_a_study_on_the_worker_names_the_input_as_the_canvas_does(qtbot, controller, monkeypatch,
                                                                   title, cls):
    """Issue 20 §2: a study of more than WORKER_ELEMENTS entries runs on the worker, which
    showed the engine's raw words ('DocumentError: node multiply: input 2 (y) is not
    connected', the catalog's port name) where the in-process path names the input b, as the
    canvas labels it. Here every study goes to the worker."""
    monkeypatch.setattr(_base, "WORKER_ELEMENTS", -1)
    controller.open(SAMPLES / "nets_6_attention.json")
    _break_the_path(controller)
    view = cls(controller)
    qtbot.addWidget(view)
    view.refresh()
    qtbot.waitUntil(lambda: bool(view.error), timeout=20_000)
    assert "input 2 (b) is not connected" in view.error, view.error
    assert "(y)" not in view.error and "Error:" not in view.error, view.error


def test_work_off_the_ui_thread_is_worded_as_in_process(controller):
    """The wording the studies, the Train dock's run and its loss landscape share for an
    error their worker raised (evaluation.worded): the input as the canvas labels it now,
    after a rename since the work began (Problem.words: a node named a moves the ports'
    letters on). (Issue 20: another error is said by its message in words, without its
    class name.)"""
    from gradviz.app.evaluation import worded
    from gradviz.graph.document import Port
    from gradviz.graph.errors import DocumentError
    controller.open(SAMPLES / "nets_6_attention.json")
    stray = controller.add_node(OP, "multiply")
    controller.connect(Port("tokens_x"), Port(stray, 0))
    (problem,) = [p for p in controller.result.problems if p.node == stray]
    e = DocumentError.from_problem(problem)      # as the worker raises it
    assert worded(e, controller.doc) == "node 'multiply': input 2 (b) is not connected"
    controller.set_field("out", "label", "a")
    assert worded(e, controller.doc) == "node 'multiply': input 2 (c) is not connected"
    assert worded(ValueError("a\n  b"), controller.doc) == "a b"
