"""Studies' words for degenerate cases (issue 20 §5, auditor at 1280 x 800): the Hessian of
a scalar source (lesson 15's delta) said 'flat index into delta ()' and '∂delta[]', drew
one eigenvalue on a −0.4…0.4 axis, and its readout '∂²Σy / ∂delta[] ∂delta[] = 0 (row 0,
col 0)' stood over the title 'Eigenvalues of H'; the Forward vs reverse study of a one-op
path (lesson 31) said 'Chain of 1 Jacobian … forward 0, reverse 0, both orders cost the
same' over empty 0..1 bars. A scalar's H is said as one number (∂²Σy/∂delta²), one
eigenvalue as a value, and a chain of one Jacobian does not apply, with the reason."""
import numpy as np
import pytest

from gradviz.app import studies as views
from gradviz.graph.document import Port
from test_views import opened

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute


def _words(view):
    return " ".join(label.text() for label in (view.caption, view.symmetry, view.definite,
                                                view.step_text, view.message))


def test_the_hessian_of_a_scalar_is_one_number_said_as_one(qtbot):
    controller, view = opened(qtbot, views.HessianView, "001_sigmoid_jacobian")
    assert view.source_box.currentText() == "delta" and view.result is not None
    H = view.result.hessian
    assert H.shape == (1, 1) and np.isfinite(H).all()
    words = _words(view)
    for wrong in ("()", "[]", "flat ind", "min ", "max ", "1 × 1 matrix"):
        assert wrong not in words, (wrong, words)
    assert "∂²Σy/∂delta² = " in view.caption.text()
    assert "delta is a scalar" in view.caption.text()
    assert "one eigenvalue, H itself: λ = " in view.definite.text()
    assert view.heatmap.cell_text(0, 0).startswith("∂²Σy/∂delta² = ")
    assert not view.heatmap.isVisibleTo(view) and not view.eigen_plot.isVisibleTo(view)


def test_a_hessian_over_entries_keeps_its_heatmap_and_eigenvalues(qtbot):
    controller, view = opened(qtbot, views.HessianView, "001_hessian_newton")
    assert view.result.hessian.shape[0] > 1
    assert view.heatmap.isVisibleTo(view) and view.eigen_plot.isVisibleTo(view)
    assert "min " in view.definite.text() and "as a 40 × 40 matrix" in view.caption.text()


def test_a_chain_of_one_jacobian_does_not_apply_and_says_why(qtbot):
    controller, view = opened(qtbot, views.ChainCostView, "nets_4_softmax_cross_entropy")
    assert view.result is None and view.not_applicable and not view.problem
    text = view.message.text()
    assert "does not apply" in text and "one op, cross-entropy: one Jacobian, 3 → 1" in text, text
    assert "cost the same" not in text + view.totals.text()
    controller2, longer = opened(qtbot, views.ChainCostView, "001_hessian_newton")
    assert longer.result is not None and not longer.not_applicable


def test_the_eigenvalue_index_is_ticked_at_whole_k_only(qtbot):
    """k counts eigenvalues: a tick at k = 0.2 or 0.5 (the 6 x 6 Hessian's axis at 1280 x
    800) names an eigenvalue that is not there, and k = -1 or 6 one past the ends."""
    controller, view = opened(qtbot, views.HessianView, "000_layer_hessian")
    n = view.result.hessian.shape[0]
    view.resize(900, 420)
    view.show()
    qtbot.waitExposed(view)
    axis = view.eigen_plot.getAxis("bottom")
    ticks = [v for _, values in axis.tickValues(*axis.range, axis.width()) for v in values]
    assert ticks and all(v == int(v) and 0 <= v < n for v in ticks), ticks
