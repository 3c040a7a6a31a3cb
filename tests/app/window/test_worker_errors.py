"""Work the window runs off the UI thread that fails says so in words (issue 20 §1: nothing
on screen may be false, and a teacher reads it in front of a class): what went wrong, with
the user's node names, never the worker's class name and raw text ("LinAlgError:
Eigenvalues did not converge", "MemoryError: "); and the user's work is kept: the document
is unchanged and the studies that did compute are shown."""
import numpy as np
import pytest

from gradviz.app.evaluation import worded
from gradviz.app.window import main_window
from gradviz.app.window.main_window import SAMPLES_DIR

CLASS_NAMES = ("LinAlgError", "MemoryError", "ValueError", "KeyError", "Error:", "Traceback")


def _done(qtbot, job, timeout=60000):
    qtbot.waitUntil(lambda: job._finished.is_set(), timeout=timeout)
    qtbot.wait(50)          # the job's queued signals (failed, finished, done) delivered


def _no_class_name(text):
    return not any(name in text for name in CLASS_NAMES)


def test_a_study_that_fails_says_why_in_words_and_the_other_studies_are_kept(make_window, qtbot,
                                                                              app_env, monkeypatch):
    """Ctrl+Shift+J with a Hessian that raises as numpy does on NaN (lesson 14's pitfall):
    the box said "LinAlgError: Eigenvalues did not converge" and the Jacobian computed
    before it was lost. Now the status bar says which study could not be computed and why,
    in words, and the Jacobian is shown."""
    w = make_window()
    w.open_sample(SAMPLES_DIR / "001_hessian_newton.json")
    w.controller.edit("Studies", lambda doc: doc.studies.update(jacobian={}))
    count = w.controller.undo_stack.count()

    def failing(doc):
        raise np.linalg.LinAlgError("Eigenvalues did not converge")
    monkeypatch.setattr(main_window, "hessian", failing)
    _done(qtbot, w.compute_studies())
    assert app_env.warnings == []                          # no box with a class name in it
    message = w.statusBar().currentMessage()
    assert "Hessian could not be computed: a matrix computation failed (Eigenvalues did not " \
           "converge): its numbers may hold NaN or infinity, or the matrix is singular" in message, message
    assert _no_class_name(message), message
    assert np.asarray(w.last_studies["jacobian"]).size         # the study that worked is kept
    assert w.controller.undo_stack.count() == count           # the document is as it was


def test_a_failing_study_names_nodes_by_their_names_not_their_ids(make_window, qtbot, app_env,
                                                                   monkeypatch):
    """An engine message quoting a node's internal id ('layer1') says the name the canvas
    shows (the user renamed it 'hidden')."""
    w = make_window()
    w.open_sample(SAMPLES_DIR / "001_hessian_newton.json")
    w.controller.edit("Rename", lambda doc: setattr(doc.nodes["layer1"], "label", "hidden"))

    def failing(doc):
        raise ValueError("operands of layer1 could not be broadcast together with shapes (5,8) (8,)")
    monkeypatch.setattr(main_window, "hessian", failing)
    _done(qtbot, w.compute_studies())
    message = w.statusBar().currentMessage()
    assert "Hessian could not be computed: operands of hidden could not be broadcast together" \
           in message, message
    assert "layer1" not in message and _no_class_name(message)


@pytest.mark.parametrize("error, words", [
    (MemoryError(), "there is not enough memory for it"),
    (ZeroDivisionError("float division by zero"), "a division by zero (float division by zero)"),
    (KeyError("layer2"), "'layer2' was never computed (the graph stops before it)"),
    (RuntimeError("the tape was already used"), "the tape was already used"),
])
def test_a_job_that_fails_says_why_in_words_and_keeps_the_document(make_window, qtbot, app_env,
                                                                   error, words):
    """The window's worker (run_job: Compute Studies and any other long job): the box said
    "MemoryError: " or "KeyError: 'layer2'". It says what stopped, in words, and that the
    document is kept (the job worked on a copy of it)."""
    w = make_window()
    w.open_sample(SAMPLES_DIR / "001_hessian_newton.json")
    count = w.controller.undo_stack.count()

    def fail(job):
        raise error
    _done(qtbot, w.run_job("Computing the landscape", fail, lambda result: None))
    assert app_env.warnings == [f"Computing the landscape stopped: {words}.\n\n"
                                "Your document is kept as it was; nothing in it was changed."]
    assert _no_class_name(app_env.warnings[0])
    assert w.controller.undo_stack.count() == count and not w.isWindowModified()


def test_worded_names_the_kind_of_failure_and_the_users_nodes():
    from gradviz.graph import load
    doc = load(SAMPLES_DIR / "001_hessian_newton.json")
    doc.nodes["x"].label = "inputs"
    assert worded(np.linalg.LinAlgError("Singular matrix"), doc) == (
        "a matrix computation failed (Singular matrix): its numbers may hold NaN or infinity, "
        "or the matrix is singular")
    assert worded(ValueError("x and layer1 differ; x.shape is (5, 3)"), doc) == \
        "inputs and layer1 differ; inputs.shape is (5, 3)"
    assert worded(OverflowError(), doc) == "a number grew beyond what a float can hold"
    assert worded(ValueError(""), doc) == "it stopped without saying why"
