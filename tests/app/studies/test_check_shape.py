"""The gradient check's shape (check_view.shape): where its best step lies, by what the errors
mean, not by which of them happens to be least. On a Sandybridge-like CPU (.ci/run's
sandybridge-baseline) lesson 1's float32 error at h = 0.01 came out exactly 0, below the
2.7×10⁻⁷ at h = 0.1, and the view said and drew a V (the h² line too) where there is only
rounding. Each check here is built from its rows, so each says the same on every CPU."""
import math

import numpy as np
import pytest

from gradviz.app.studies.check_view import explanation, guide_drawn, h_text, shape, steps_down
from gradviz.graph import Port
from gradviz.graph.gradient_check import TOLERANCE, CheckRow, GradientCheck

LOSS, BACKWARD = 10.0, 2.0
# Rounding of a float32 central difference of this loss (GradientCheck.rounding): about
# 2.4×10⁻⁶ / h, 2.4×10⁻⁵ at h = 0.1, 2.4×10⁻⁴ at h = 0.01, ...
ROUNDING_ONLY = {    # no error above that: truncation does not show
    "0 at 0.01 (lesson 1 on Sandybridge)": [1.5e-6, 0.0, 6e-6, 9e-4, 2e-3],
    "least at 0.01": [2.8e-6, 1.8e-6, 4e-4, 1e-4, 9e-3],
    "a tie below the largest": [3e-6, 1e-6, 1e-6, 5e-4, 2e-3],
    "least at the smallest": [3e-6, 5e-6, 4e-6, 3e-6, 1e-6],
    "NaN at the largest": [math.nan, 2e-5, 1e-6, 5e-4, 2e-3],
}
V = {                # above it at h = 0.1 (truncation), falling into rounding below
    "least at 0.01": [4e-4, 7e-6, 1.2e-5, 7e-4, 6e-5],
    "0 at 0.01": [4e-4, 0.0, 1.2e-5, 7e-4, 6e-5],
    "a tie at the bottom": [4e-4, 5e-6, 5e-6, 7e-4, 1e-3],
    "NaN at the smallest": [4e-4, 7e-6, 1.2e-5, 7e-4, math.nan],
}


def check_of(errors, dtype="float32", steps=None):
    """A check of d loss / d w[0] = 2 at loss 10, with these errors of its central difference
    (NaN: a difference that is not finite) at steps 0.1, 0.01, ... (or `steps`)."""
    steps = steps or [10.0 ** -k for k in range(1, len(errors) + 1)]
    rows = []
    for h, e in zip(steps, errors):
        c = BACKWARD + e
        rows.append(CheckRow(h, LOSS + BACKWARD * h, LOSS - BACKWARD * h, c, abs(e),
                             abs(e) / max(abs(c), BACKWARD) if math.isfinite(e) else math.nan))
    return GradientCheck(Port("w"), (0,), "w[0]", "loss", dtype, 0.5, BACKWARD, rows,
                         tolerance=TOLERANCE[np.dtype(dtype)], loss=LOSS,
                         eps=float(np.finfo(dtype).eps))


def _no_v(check):
    words = explanation(check)
    assert check.passed and shape(check) == "rounding"
    assert "no V" in words and "bottom of the V" not in words and "dashed line" not in words
    assert not guide_drawn(check)
    return words


@pytest.mark.parametrize("name", ROUNDING_ONLY)
def test_errors_within_rounding_are_no_v_whichever_is_least(name):
    check = check_of(ROUNDING_ONLY[name])
    first = steps_down(check)[0]
    assert first.error <= check.rounding(first)          # the case: rounding alone at the largest h
    words = _no_v(check)
    if check.best is not first:    # the words name the largest step and the ringed one
        assert f"already at the largest h, h = {h_text(first.h)}, the error is within" in words
        assert f"at h = {h_text(check.best.h)} (ringed)" in words


@pytest.mark.parametrize("name", V)
def test_truncation_falling_into_rounding_is_a_v(name):
    check = check_of(V[name])
    first = steps_down(check)[0]
    assert first.error > 10 * check.rounding(first)     # the case: truncation at the largest h
    words = explanation(check)
    assert check.passed and shape(check) == "v" and guide_drawn(check)
    assert "the bottom of the V (ringed)" in words and "no V" not in words
    assert "(the dashed line of slope 2)" in words
    if check.best.relative == 0:    # said where it is drawn, and not as the end of truncation
        assert f"The ringed h = {h_text(check.best.h)} gives error 0" in words
        assert "vanishes" not in words


def test_the_largest_step_decides_in_whatever_order_the_steps_come():
    """A document's own steps, smallest first: the least error at the last row (h = 0.1) is
    no 'error still falling at the smallest h'."""
    errors = ROUNDING_ONLY["least at 0.01"]
    check = check_of(errors[::-1], steps=[10.0 ** -k for k in range(5, 0, -1)])
    assert check.best is check.rows[-2] and steps_down(check)[0] is check.rows[-1]
    _no_v(check)


def test_truncation_down_to_the_smallest_step_still_falls():
    """float64 at 0.1 … 10⁻⁴: each error above its rounding (4.4×10⁻¹¹ at 10⁻⁴)."""
    check = check_of([3e-3, 3e-5, 3e-7, 3e-9], dtype="float64")
    assert all(r.error > check.rounding(r) for r in check.rows)
    assert check.passed and shape(check) == "truncation" and guide_drawn(check)
    assert "still falls at the smallest h = 10⁻⁴" in explanation(check)


def test_truncation_at_the_largest_step_alone_is_no_v():
    """Above its rounding at h = 0.1, but no smaller h does better: rounding is already
    larger at 0.01, and the best step is the largest."""
    check = check_of([2e-4, 5e-4, 3e-3, 2e-2, 8e-2])
    words = _no_v(check)
    assert check.best is check.rows[0] and "largest step tried (ringed)" in words


def test_the_view_draws_what_the_shape_says(qtbot):
    """The h² guide through the largest step only for a V, and the errors' line from the
    largest h down whatever order the steps come in."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView

    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    rounding = ROUNDING_ONLY["0 at 0.01 (lesson 1 on Sandybridge)"]
    for errors, steps, drawn in [(rounding, None, False), (V["0 at 0.01"], None, True),
                                 (V["least at 0.01"][::-1], [1e-5, 1e-4, 1e-3, 1e-2, 0.1], True)]:
        check = check_of(errors, steps=steps)
        view.show_result(check)
        xs, ys = view.guide.getData()
        assert (xs is not None and len(xs) > 0) == drawn
        line_h = view.line.getData()[0]
        assert list(line_h) == sorted(line_h, reverse=True)
        if drawn:       # through the largest step's error, h = 0.1
            largest = check.rows[-1 if steps else 0]
            assert np.interp(-1.0, xs, ys) == pytest.approx(math.log10(largest.relative))
