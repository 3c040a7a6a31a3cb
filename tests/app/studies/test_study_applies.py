"""A study that does not apply to a document is not a warning (issue 20 §5; walk-through on
14f79f7: with the Batch Jacobian dock open, lessons 5, 14, 15, 20, 26 and 29 showed an amber
'⚠ 1 study warning (Batch Jacobian)' because they have no batch axis). The dock says in words
why the study does not apply and shows no plot; the status bar stays as the graph leaves it.
A real failure (NaN, an error) stays a warning that names the node."""
import numpy as np

from gradviz.app.player import lessons
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
