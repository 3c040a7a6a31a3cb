"""The controller: exact undo from structural snapshots, evaluation reuse, the lazy story,
and connection checks that run one node."""
import numpy as np
import pytest

from gradviz.app.controller import DocumentController
from gradviz.app.evaluation import shape_problem
from gradviz.app.snapshots import changed_attributes, same_for_engine, snapshot
from gradviz.graph import catalog, fileformat
from gradviz.graph.evaluate import evaluate
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port
from gradviz.story import build as build_story

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

X = np.array([[0.3, -0.2, 0.9], [-1.4, 0.1, 0.45]], np.float32)
W = np.array([[1.5, -2.0, 0.5], [0.25, 3.0, -1.0]], np.float32)


def op(nid, name, **attrs):
    return Node(nid, OP, op=name, attrs={**catalog.OPS[name].attrs, **attrs})


def clip_document():
    """loss = reduce_sum(clip_by_value(x, -0.5, 0.5) * w); sources x and w."""
    doc = Document(title="clip")
    doc.add(Node("x", CONSTANT, value=X.copy(), watched=True, position=(0.0, 0.0)))
    doc.add(Node("w", VARIABLE, value=W.copy(), position=(0.0, 200.0)))
    doc.add(op("c", "clip_by_value", clip_value_min=-0.5, clip_value_max=0.5))
    doc.add(op("m", "multiply"))
    doc.add(op("loss", "reduce_sum"))
    doc.connect("x", "c")
    doc.connect("c", "m", dst_index=0)
    doc.connect("w", "m", dst_index=1)
    doc.connect("m", "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port("x"), Port("w")]
    return doc


def closed_form(x, w, lo=-0.5, hi=0.5):
    """(loss, d loss/dx, d loss/dw) of reduce_sum(clip(x, lo, hi) * w), x inside or outside."""
    c = np.clip(x, lo, hi)
    return (c * w).sum(), np.where((x > lo) & (x < hi), w, 0.0), c


@pytest.fixture
def controller(qtbot):
    c = DocumentController()
    c.set_document(clip_document())
    return c


def test_edits_recompute_values_and_gradients_in_closed_form(controller):
    c = controller
    loss, gx, gw = closed_form(X, W)
    ev = c.result.evaluation
    np.testing.assert_allclose(ev.values[Port("loss")], loss, rtol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("x")], gx, rtol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("w")], gw, rtol=1e-6)
    x2 = X * 0.25
    c.set_value("x", x2)
    loss, gx, gw = closed_form(x2, W)
    np.testing.assert_allclose(c.result.evaluation.values[Port("loss")], loss, rtol=1e-6)
    np.testing.assert_allclose(c.result.evaluation.gradients[Port("x")], gx, rtol=1e-6)
    c.set_attr("c", "clip_value_max", 2.0)
    loss, gx, gw = closed_form(x2, W, hi=2.0)
    np.testing.assert_allclose(c.result.evaluation.values[Port("loss")], loss, rtol=1e-6)
    np.testing.assert_allclose(c.result.evaluation.gradients[Port("w")], gw, rtol=1e-6)
    c.undo_stack.undo()
    c.undo_stack.undo()
    loss, gx, _ = closed_form(X, W)
    np.testing.assert_allclose(c.result.evaluation.values[Port("loss")], loss, rtol=1e-6)
    np.testing.assert_allclose(c.result.evaluation.gradients[Port("x")], gx, rtol=1e-6)


def test_an_attribute_the_file_format_refuses_is_not_set(controller):
    """The monkey test set a pool's padding to 'relu' (a string, the right kind): the
    document no longer loaded from its own text."""
    c = controller
    pool = c.add_node("op", "nn.avg_pool2d")
    nid = c.add_node("op", "nn.dropout")
    count = c.undo_stack.count()
    assert "rate must be at least 0 and less than 1" in c.set_attr(nid, "rate", 1.5)
    assert "padding must be one of SAME, VALID" in c.set_attr(pool, "padding", "relu")
    assert c.undo_stack.count() == count and c.doc.nodes[nid].attrs["rate"] == 0.5
    assert c.set_attr(nid, "rate", 0.25) is None
    assert c.doc.nodes[nid].attrs["rate"] == 0.25
    fileformat.loads(c.text(), strict=False)


def test_snapshots_share_tensors_read_only_and_copy_everything_else():
    doc = clip_document()
    doc.studies = {"jacobian": {"target": "loss", "source": "x"}}
    snap = snapshot(doc)
    assert snap.nodes["x"].value is doc.nodes["x"].value
    with pytest.raises(ValueError):
        doc.nodes["x"].value[0, 0] = 5.0  # a shared tensor cannot be written into
    doc.nodes["c"].attrs["clip_value_max"] = 9.0
    doc.nodes["x"].position = (5.0, 5.0)
    doc.edges.pop()
    doc.targets.clear()
    doc.tape.stop_recording.append("m")
    doc.studies["jacobian"]["source"] = "w"
    assert snap.nodes["c"].attrs["clip_value_max"] == 0.5
    assert snap.nodes["x"].position == (0.0, 0.0)
    assert len(snap.edges) == 4 and snap.targets == [Port("loss")]
    assert snap.tape.stop_recording == [] and snap.studies["jacobian"]["source"] == "x"
    expected = clip_document()
    expected.studies = {"jacobian": {"target": "loss", "source": "x"}}
    assert fileformat.dumps(snap) == fileformat.dumps(expected)


def test_same_for_engine_sees_every_change_the_engine_reads():
    base = clip_document()
    assert same_for_engine(snapshot(base), snapshot(base))
    moved = snapshot(base)
    moved.nodes["x"].position = (40.0, 40.0)
    moved.nodes["m"].label = "product"
    moved.title = "renamed"
    assert same_for_engine(snapshot(base), moved)
    changes = [
        lambda d: setattr(d.nodes["x"], "value", X + 1),
        lambda d: d.nodes["c"].attrs.__setitem__("clip_value_min", -0.1),
        lambda d: setattr(d.nodes["w"], "trainable", False),
        lambda d: setattr(d.nodes["x"], "watched", False),
        lambda d: d.edges.pop(),
        lambda d: d.sources.pop(),
        lambda d: d.tape.stop_recording.append("m"),
        lambda d: setattr(d.tape, "persistent", True),
        lambda d: d.output_gradients.__setitem__(Port("loss"), np.ones((), np.float32)),
        lambda d: d.studies.__setitem__("jacobian", {"target": "nowhere"}),
    ]
    for change in changes:
        d = snapshot(base)
        change(d)
        assert not same_for_engine(snapshot(base), d), change


def test_changed_attributes_allows_only_new_numbers_positions_and_attributes():
    base = clip_document()
    base.output_gradients[Port("loss")] = np.ones((), np.float32)
    renumbered = snapshot(base)
    renumbered.nodes["x"].value = X + 1
    renumbered.nodes["w"].value = -W
    renumbered.nodes["x"].position = (40.0, 40.0)
    renumbered.output_gradients[Port("loss")] = np.full((), 2.0, np.float32)
    assert changed_attributes(snapshot(base), renumbered) == set()
    renumbered.nodes["c"].attrs["clip_value_min"] = -0.1
    assert changed_attributes(snapshot(base), renumbered) == {"c"}
    changes = [
        lambda d: setattr(d.nodes["x"], "value", X[:, :2].copy()),          # a shape
        lambda d: setattr(d.nodes["x"], "value", X.astype(np.float64)),     # a dtype
        lambda d: setattr(d.nodes["m"], "label", "product"),                # checked text
        lambda d: setattr(d, "title", ""),
        lambda d: setattr(d.nodes["c"], "op", "relu"),
        lambda d: setattr(d.nodes["w"], "trainable", False),
        lambda d: d.edges.pop(),
        lambda d: d.sources.pop(),
        lambda d: d.tape.stop_recording.append("m"),
        lambda d: d.output_gradients.__setitem__(Port("loss"), np.ones((1,), np.float32)),
        lambda d: d.studies.__setitem__("jacobian", {"target": "nowhere"}),
    ]
    for change in changes:
        d = snapshot(base)
        change(d)
        assert changed_attributes(snapshot(base), d) is None, change


def test_new_numbers_reuse_the_checks_and_plan_and_evaluate_alike(controller):
    """A value edit takes the last evaluation's checks and plan (they read only structure
    and shapes); values, gradients and problems are those of an evaluation from scratch."""
    c = controller
    c.set_document(clip_document())
    first = c.result.evaluation
    c.set_value("x", np.array([[0.3, np.nan, 0.9], [-1.4, 0.1, 9.0]], np.float32))
    ev = c.result.evaluation
    assert ev.structure is first.structure and ev.plan is first.plan
    fresh = evaluate(fileformat.loads(fileformat.dumps(c.doc), strict=False))
    assert [str(p) for p in ev.problems] == [str(p) for p in fresh.problems] and ev.problems
    for p, g in fresh.gradients.items():
        np.testing.assert_array_equal(ev.gradients[p], g)
    for p, v in fresh.values.items():
        np.testing.assert_array_equal(ev.values[p], v)
    c.set_value("x", X[:, :2].copy())
    assert c.result.evaluation.plan is not first.plan


def test_an_attribute_edit_that_keeps_every_shape_reuses_the_checks_and_plan(controller):
    """New clip bounds plan as before: the checks and plan are kept, the numbers are new.
    A bound that is not a finite number is a problem on the node: checked again, not kept."""
    c = controller
    c.set_document(clip_document())
    first = c.result.evaluation
    c.set_attr("c", "clip_value_min", -0.1)
    ev = c.result.evaluation
    assert ev.structure is first.structure and ev.plan is first.plan
    fresh = evaluate(snapshot(c.doc))
    for p, v in fresh.values.items():
        np.testing.assert_array_equal(ev.values[p], v)
    for p, g in fresh.gradients.items():
        np.testing.assert_array_equal(ev.gradients[p], g)
    assert not np.array_equal(ev.values[Port("c")], first.values[Port("c")])
    c.set_attr("c", "clip_value_min", float("nan"))
    assert c.result.evaluation.structure is not first.structure
    assert [p.node for p in c.result.problems] == ["c"]
    assert [str(p) for p in c.result.problems] == [str(p) for p in evaluate(snapshot(c.doc)).problems]


def test_text_problems_follow_every_edit_that_reuses_an_evaluation(controller):
    """A label or title edit reuses the evaluation (the engine never reads them) and a value
    edit its checks; the title's and labels' own problems still follow each edit."""
    c = controller
    c.set_document(clip_document())
    too_long = "node 'm': the label has 100 characters; at most 80 are allowed"
    # set_field refuses such a label (test_typed_limits); an edit may still bring one
    c.edit("Label", lambda d: setattr(d.nodes["m"], "label", "L" * 100))
    assert [str(p) for p in c.result.problems] == [too_long]
    c.set_value("x", -X)                               # the checks are reused: still there
    assert [str(p) for p in c.result.problems] == [too_long]
    c.set_field("m", "label", "product")
    assert c.result.problems == []
    c.set_value("x", X.copy())                         # and they do not come back
    assert c.result.problems == []
    c.edit("Title", lambda d: setattr(d, "title", "a\x01b"))
    c.set_value("x", -X)
    assert [p.where for p in c.result.problems] == ["title"]
    fresh = evaluate(snapshot(c.doc))
    assert [str(p) for p in fresh.problems] == [str(p) for p in c.result.problems]


def test_moves_and_labels_reuse_the_evaluation_labels_retell_the_story(controller):
    c = controller
    ev = c.result.evaluation
    story = c.result.story
    c.move_nodes({"m": (300.0, 50.0)})
    assert c.result.evaluation is ev and c.result.story is story
    c.set_field("m", "label", "product")
    assert c.result.evaluation is ev
    assert not c.result.story_ready  # the words changed: told again when asked
    assert any("product" in s.caption for s in c.result.story.steps)
    c.set_value("w", W * 2)
    assert c.result.evaluation is not ev
    np.testing.assert_allclose(c.result.evaluation.gradients[Port("x")], closed_form(X, W * 2)[1])


def test_the_story_is_told_only_when_asked_and_matches_story_build(controller):
    c = controller
    c.set_value("x", X * 0.5)
    assert not c.result.story_ready
    expected = build_story(fileformat.loads(fileformat.dumps(c.doc)))
    told = c.result.story
    assert c.result.story_ready and c.result.story is told
    assert [(s.kind, s.node, s.caption) for s in told.steps] == \
        [(s.kind, s.node, s.caption) for s in expected.steps]
    np.testing.assert_allclose(told.steps[-1].total if told.steps[-1].total is not None
                               else told.steps[-1].cotangent,
                               expected.steps[-1].total if expected.steps[-1].total is not None
                               else expected.steps[-1].cotangent)


def _steps(story):
    return [(s.kind, s.node, s.caption) for s in story.steps]


def test_value_edits_replay_the_compiled_evaluation_with_the_eager_numbers_and_story(controller):
    """Once a form's third evaluation has traced it, a value edit replays the compiled
    program (graph/compiled.py): its values, gradients, problems and story are the eager ones; an
    edit of the structure is evaluated eagerly, and an undo back to it replays again."""
    c = controller    # its document evaluated once
    for k, x in enumerate([X * 0.5, -X, np.where(X > 0, np.nan, X), X * 2, X * 3]):
        c.set_value("x", x.astype(np.float32))
        c.replayer.wait()   # the third evaluation starts a trace in the background
        ev, fresh = c.result.evaluation, evaluate(snapshot(c.doc))
        assert ev.replayed == (k >= 2)
        assert [str(p) for p in ev.problems] == [str(p) for p in fresh.problems]
        for p, v in fresh.values.items():
            np.testing.assert_allclose(ev.values[p], v, rtol=1e-6)
        for p, g in fresh.gradients.items():
            np.testing.assert_allclose(ev.gradients[p], g, rtol=1e-6)
        expected = build_story(snapshot(c.doc))
        assert _steps(c.result.story) == _steps(expected)
        np.testing.assert_allclose(c.result.story.gradients[Port("w")], expected.gradients[Port("w")])
    c.set_field("m", "label", "product")           # the words change: told again, eagerly
    assert c.result.evaluation.replayed and any("product" in s.caption for s in c.result.story.steps)
    c.set_attr("c", "clip_value_min", -0.1)         # another form: eager
    assert not c.result.evaluation.replayed
    c.undo_stack.undo()                             # back to the compiled form
    assert c.result.evaluation.replayed
    np.testing.assert_allclose(c.result.evaluation.gradients[Port("x")],
                               evaluate(snapshot(c.doc)).gradients[Port("x")])


def test_undo_and_redo_restore_exact_documents_in_place(controller):
    c = controller
    original = c.text()
    doc = c.doc
    c.set_value("x", X * 3)
    c.set_attr("c", "clip_value_min", -2.0)
    nid = c.add_node(OP, "tanh", (400, 0))
    c.connect(Port("m"), Port(nid))
    c.set_ports("targets", [Port(nid)])
    c.move_nodes({"w": (12.5, 7.5)})
    edited = c.text()
    while c.undo_stack.canUndo():
        c.undo_stack.undo()
    assert c.doc is doc and c.text() == original
    assert c.doc.nodes["x"].value.tobytes() == X.tobytes()
    while c.undo_stack.canRedo():
        c.undo_stack.redo()
    assert c.doc is doc and c.text() == edited
    np.testing.assert_allclose(c.result.evaluation.values[Port(nid)],
                               np.tanh(np.clip(X * 3, -2.0, 0.5) * W), rtol=1e-6)


def test_connection_check_runs_one_node_with_the_same_verdict_as_the_whole_document(controller):
    c = controller
    mm = c.add_node(OP, "matmul", (500, 0))
    assert c.connect(Port("x"), Port(mm, 0)) is None
    trial = snapshot(c.doc)
    trial.connect("w", mm, 0, 1)  # (2, 3) @ (2, 3): the engine refuses
    whole = shape_problem(trial, mm, None)
    assert isinstance(whole, str) and whole
    assert shape_problem(trial, mm, c.result.evaluation) == whole
    assert c.connect(Port("w"), Port(mm, 1)) == whole
    assert not any(e.dst.node == mm and e.dst.index == 1 for e in c.doc.edges)
    c.set_attr(mm, "transpose_b", True)  # (2, 3) @ (3, 2) runs
    assert c.connect(Port("w"), Port(mm, 1)) is None
    np.testing.assert_allclose(c.result.evaluation.values[Port(mm)], X @ W.T, rtol=1e-6)


def test_a_stray_node_does_not_hide_the_gradient_or_the_story(controller):
    """A problem stops only what depends on it: an unconnected matmul elsewhere is a
    problem on that node, and the target's gradient and story are still there."""
    c = controller
    _, gx, gw = closed_form(X, W)
    stray = c.add_node("op", "matmul", position=(600.0, 600.0))
    problems = c.result.problems
    assert problems and all(p.node == stray for p in problems if not p.warning)
    ev = c.result.evaluation
    np.testing.assert_allclose(ev.gradients[Port("x")], gx, rtol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("w")], gw, rtol=1e-6)
    assert [s.kind for s in c.result.story.steps][0] == "seed"


def test_a_nan_value_is_a_warning_and_the_gradient_shows_it(controller):
    c = controller
    x = X.copy()
    x[0, 0] = np.nan
    c.set_value("x", x)
    ev = c.result.evaluation
    assert [p.node for p in c.result.problems] == ["x"] and c.result.problems[0].warning
    gx = ev.gradients[Port("x")]
    gw = ev.gradients[Port("w")]
    assert np.isnan(gw[0, 0]) and np.isfinite(gw.flat[1:]).all()  # NaN propagates, not hidden
    assert np.isfinite(gx).all()
    assert c.result.story.steps


def test_problems_name_their_node_as_the_canvas_does_after_a_rename():
    """The status bar and the story bar print problems: they name a node by its label, and
    by its new label once renamed (the last evaluation is reused then), never by its id."""
    doc = clip_document()
    doc.nodes["w"].value = np.ones((3, 3), np.float32)   # x * w: shapes do not broadcast
    doc.nodes["m"].label = "product"
    c = DocumentController()
    c.set_document(doc)
    assert str(c.result.problems[0]).startswith("node 'product': ")
    c.set_field("m", "label", "scaled")
    assert [str(p).split(":")[0] for p in c.result.problems] == ["node 'scaled'"]
    assert [str(p).split(":")[0] for p in c.result.node_problems["m"]] == ["node 'scaled'"]


def test_edit_undo_names_a_new_shape_or_dtype_as_such(controller):
    """Changing x's shape from 3×4 to 3×5 in the inspector was listed in Edit ▸ Undo as 'Edit
    x values'; a new value is named by what changed, whoever sets it (the shape field, a
    paste of another shape, the dtype box)."""
    controller.set_value("w", W * 2)
    assert controller.undo_stack.undoText() == "Edit w values"
    controller.set_value("w", np.zeros((2, 4), np.float32))
    assert controller.undo_stack.undoText() == "Resize w from 2×3 to 2×4"
    controller.set_value("w", np.zeros((4, 2), np.float32))
    assert controller.undo_stack.undoText() == "Reshape w from 2×4 to 4×2"
    controller.set_value("w", np.zeros((4, 2), np.int32))
    assert controller.undo_stack.undoText() == "Convert w from float32 to int32"
    controller.undo_stack.undo()
    assert controller.doc.nodes["w"].value.dtype == np.float32
