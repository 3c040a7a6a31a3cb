"""A study that does not apply to a document is not a warning (issue 20 §5; walk-through on
14f79f7: with the Batch Jacobian dock open, lessons 5, 14, 15, 20, 26 and 29 showed an amber
'⚠ 1 study warning (Batch Jacobian)' because they have no batch axis). The dock says in words
why the study does not apply and shows no plot; the status bar stays as the graph leaves it.
A real failure (NaN, an error) stays a warning that names the node."""
import numpy as np

from gradviz.app.player import lessons
from gradviz.app.window.main_window import SAMPLES_DIR, STUDY_TITLES
from gradviz.graph.document import Port
from test_study_docks import _open, window
from test_study_stale import _settled, plot_ink

_ = window   # the fixture, shared with test_study_docks


def test_a_lesson_without_a_batch_axis_is_no_study_warning(qtbot, window):
    w = window("001_batchnorm_pitfall")
    dock = _open(qtbot, w, "Batch Jacobian")
    view = dock.view
    _settled(qtbot, view)
    assert view.result is not None and plot_ink(view) and not view.not_applicable
    entries = lessons.lesson_entries()
    for number in (5, 14, 15, 20, 26, 29):          # the walk-through's lessons: no batch axis
        entry = entries[number - 1]
        assert lessons.open_lesson(w, entry, ask=False)
        _settled(qtbot, view)
        where = (number, entry.path.name, w.problems_label.text())
        assert "study warning" not in w.problems_label.text(), where
        assert view.not_applicable and not view.error and not view.problem, where
        assert view.result is None and plot_ink(view) == [], where
        text = view.message.text()
        assert view.message.isVisibleTo(view) and view.message.property("kind") == "info", where
        assert "does not apply" in text and "batch" in text and "Cannot compute" not in text, text
    # A real failure stays a warning naming the node: x of a shape layer1 cannot take.
    assert lessons.open_lesson(w, next(e for e in lessons.lesson_entries()
                                       if e.path.name == "001_batchnorm_pitfall.json"), ask=False)
    _settled(qtbot, view)
    assert view.result is not None and not view.not_applicable
    w.controller.set_value("x", np.ones((4, 3, 2), np.float32))
    _settled(qtbot, view)
    assert view.error and not view.not_applicable and "Cannot compute" in view.message.text()
    assert "layer1" in view.message.text()
    assert "study warning (Batch Jacobian)" in w.problems_label.text()
    w.controller.undo_stack.setClean()       # the window closes without asking


def _fresh_node(w):
    w.new_document()
    w.controller.add_node("variable")


def _unreached_source(w):
    w.controller.set_ports("sources", [Port(w.controller.add_node("variable"), 0)])


STATES = [   # (what the user did, how, the roles the document lacks)
    ("File ▸ New", lambda w: w.new_document(), None),
    ("File ▸ New, then a node", _fresh_node, ("target", "source")),
    ("a target, no source", lambda w: w.controller.set_ports("sources", []), ("source",)),
    ("a source, no target", lambda w: w.controller.set_ports("targets", []), ("target",)),
    ("a target that no source reaches", _unreached_source, None),
    ("the sample", lambda w: None, None),
]


def test_a_study_lacking_a_target_or_a_source_does_not_apply_and_is_no_warning(qtbot, window):
    """Issue 20 §5 (walk-through on d15e384: a node on File ▸ New showed 'Cannot compute … choose a
    target and a source' in five views and '⚠ 5 study warnings'). Every view of the six, on a
    fresh graph, one with a target and no source, one with a source and no target, and a sample:
    a study that lacks a choice says what to choose and is not counted; a broken document still
    is, in every view."""
    w = window("004_matmul_sum")
    try:
        views = [_open(qtbot, w, title).view for title in STUDY_TITLES]
        for what, act, lacks in STATES:
            assert w.open_sample(SAMPLES_DIR / "004_matmul_sum.json", ask=False), what
            act(w)
            for view in views:
                view.refresh()
                _settled(qtbot, view)
                where = (what, view.title, view.error, view.message.text())
                assert not view.error and not view.problem, where
                if lacks is not None:
                    assert view.not_applicable and view.result is None and plot_ink(view) == [], where
                    text = view.message.text()
                    assert view.message.property("kind") == "info" and "does not apply" in text, where
                    assert "Cannot compute" not in text and all(role in text for role in lacks), where
                    assert all(f"Mark as {role}" in text for role in lacks), where
            assert "warning" not in w.problems_label.text(), (what, w.problems_label.text())
        # A real failure is an error in every view, with words, and counted in the status bar.
        w.controller.remove_nodes(["tf_b"])
        for view in views:
            view.refresh()
            _settled(qtbot, view)
            assert view.error and view.problem and not view.not_applicable, view.title
            assert "y_tf" in view.message.text() and "Cannot compute" in view.message.text()
        assert f"{len(views)} study warnings" in w.problems_label.text()
    finally:
        w.controller.undo_stack.setClean()       # the window closes without asking
