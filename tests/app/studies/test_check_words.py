"""The Gradient check view's words say what its plot draws (issue 20 §1): on a student's MLP
the best step had error 0, which a log axis cannot draw, yet the words spoke of 'the bottom
of the V (ringed)' beside a plot with no ring and no V."""
import numpy as np

from gradviz.app.studies.check_view import explanation, h_text
from gradviz.graph import Port
from gradviz.graph.gradient_check import gradient_check
from gradviz.graph.fileformat import load
from gradviz.app.window.main_window import SAMPLES_DIR


def test_a_best_step_of_error_zero_is_said_to_be_undrawn(labelled_mlp):
    """W1[2, 1] of x @ W1 -> relu -> @ W2 -> sum with the student's numbers: the loss is
    linear in that entry over ±0.1 (no relu flips), so h = 0.1 is exact."""
    doc = labelled_mlp()
    doc.nodes["x1"].value = np.array([[1, 2, -3], [0.5, -1, 2]], np.float32)
    doc.nodes["w2"].value = np.array([[0.5, -1, 0.2, 1], [1, 0.3, -0.5, 2], [-0.4, 0.6, 1, -1]],
                                     np.float32)
    doc.nodes["w5"].value = np.array([[1, -1], [0.5, 2], [-1, 0.3], [0.2, 1]], np.float32)
    check = gradient_check(doc, Port("w2"), (2, 1))
    assert check.passed and check.best.relative == 0
    words = explanation(check)
    assert "ringed" not in words and "bottom of the V" not in words
    assert f"h = {h_text(check.best.h)}" in words and "error 0" in words


def test_a_drawn_best_step_is_the_ringed_bottom_of_the_v():
    doc = load(SAMPLES_DIR / "nets_3_gradient_check.json")
    check = gradient_check(doc)
    assert check.passed and check.best.relative > 0
    assert "the bottom of the V (ringed)" in explanation(check)


def test_a_failing_check_rings_nothing():
    doc = load(SAMPLES_DIR / "nets_3_wrong_gradient.json")
    check = gradient_check(doc)
    assert not check.passed
    words = explanation(check)
    assert "(ringed)" not in words and "none is ringed" in words and "flat line" in words
    assert np.isfinite(check.best.relative)
