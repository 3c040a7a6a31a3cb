"""The study docks show the numbers of story.studies and graph.evaluate, nothing else."""
import html
import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz.app import studies as views
from gradviz.app.controller import DocumentController
from gradviz.app.studies import _base, check_view, hessian_view
from gradviz.app.studies.batch_view import patches
from gradviz.app.studies.heatmap import Heatmap
from gradviz.graph.document import Port
from gradviz.story import studies
from lesson_variants import pow_pitfall_doc, sibling_doc

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

ev = importlib.import_module("gradviz.graph.evaluate")  # the package re-exports a function

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@pytest.fixture(autouse=True)
def _quiet_undo_stacks(monkeypatch):
    """The undo stack outlives its controller during teardown: silence it (as test_inspector)."""
    made = []
    original = DocumentController.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)
    monkeypatch.setattr(DocumentController, "__init__", init)
    yield
    for c in made:
        c.undo_stack.blockSignals(True)


def opened(qtbot, cls, sample):
    controller = DocumentController()
    view = cls(controller)
    qtbot.addWidget(view)
    controller.open(SAMPLES / f"{sample}.json")
    view.refresh()
    assert not view.error, view.error
    return controller, view


SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def number_after(text, marker):
    """The number written after `marker`, as the cards write it: 0.250, 12, 1.000×10⁻⁶."""
    m = re.search(re.escape(marker) + r"\s*(-?[0-9.]+)(?:×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?", text)
    assert m, f"{marker!r} not in {text!r}"
    power = int(m.group(2).translate(SUPERSCRIPT)) if m.group(2) else 0
    return float(m.group(1)) * 10.0 ** power


def test_views_registry():
    titles = [t for t, _ in views.VIEWS]
    assert titles == ["Jacobian", "Batch Jacobian", "Hessian", "Forward vs reverse",
                      "Gradient norms", "Gradient check"]


@pytest.mark.parametrize("name, passes", [("nets_3_gradient_check", True),
                                          ("nets_3_wrong_gradient", False)])
def test_gradient_check_view_shows_the_check_of_the_lessons_entry(qtbot, name, passes):
    from gradviz.graph.gradient_check import gradient_check
    controller, view = opened(qtbot, views.GradientCheckView, name)
    check = gradient_check(controller.doc)
    assert view.entry_box.currentText() == "w[1]" and view.result.index == (1,)
    assert view.result.passed is passes
    assert view.verdict.property("kind") == ("ok" if passes else "warning")
    assert view.problem == ("" if passes else check.summary())   # the status bar's warning
    x, y = view.line.getData()
    np.testing.assert_allclose(10 ** x, [r.h for r in check.rows])
    np.testing.assert_allclose(10 ** y, [r.relative for r in check.rows], rtol=1e-6)
    text = view.table.text()
    assert check_view.long_number(check.backward)(check.backward) in text
    assert ("◀ best" in text) is passes      # a failing check has no best step
    best = check.best
    bold = re.search(rf"<td align=right>{check_view.h_text(best.h)}</td><td align=right[^>]*><b>([^<]*)</b>", text)
    assert bold and len(bold.group(1)) >= 10 if passes else "<b>0.</b>" not in text
    # another entry: the study follows the chooser
    view.entry_box.setCurrentIndex(2)
    view.refresh()
    assert view.result.index == (2,) and view.result.entry_name == "w[2]"


@pytest.mark.parametrize("name", ["nets_2_sigmoid_chain", "nets_2_bad_init"])
def test_gradient_norm_view_draws_the_cotangent_norm_at_each_layer(qtbot, name):
    controller, view = opened(qtbot, views.GradientNormView, name)
    story = controller.result.story
    outer = [s for s in story.steps if s.kind == "visit" and not s.internal]
    expected = [float(np.linalg.norm(s.cotangent)) for s in outer]
    x, y = view.line.getData()
    np.testing.assert_array_equal(x, np.arange(len(outer)))
    np.testing.assert_allclose(10 ** y, expected, rtol=1e-6)
    (sx,), (sy,) = view.sources.getData()
    assert sx == len(outer)
    np.testing.assert_allclose(10 ** sy, np.linalg.norm(story.steps[-1].cotangent), rtol=1e-6)
    ticks = [label for _, label in view.plot.getAxis("bottom")._tickLevels[0]]
    assert ticks == ["loss"] + [f"layer{k}" for k in range(6, 0, -1)] + ["x"]
    falls = name == "nets_2_sigmoid_chain"
    assert all((b < a) == falls for a, b in zip(y[1:], y[2:]))
    # the cards' rule: three decimals, beyond the ordinary magnitudes with the power of ten
    assert number_after(view.summary.text(), "layer1 <b>") == pytest.approx(expected[-1], rel=1e-3)


def test_heatmap_is_zero_centred(qtbot):
    h = Heatmap()
    qtbot.addWidget(h)
    m = np.array([[0.5, -2.0], [1.0, 0.0]])
    h.set_matrix(m, (2,), (2,), ("y", "x"))
    assert h.levels == (-2.0, 2.0)
    assert h.colorbar.levels() == (-2.0, 2.0)
    np.testing.assert_array_equal(h.matrix, m.astype(np.float32))
    assert h.cell_text(0, 1) == "d y[0] / d x[1] = -2    (row 0, col 1)"


def test_jacobian_view_shows_the_engine_jacobian(qtbot):
    controller, view = opened(qtbot, views.JacobianView, "001_dense_jacobian")
    assert view.target_box.currentText() == "layer"
    assert view.source_box.currentText() == "layer.kernel"
    J = ev.jacobian(controller.doc, Port("layer", 0), Port("layer", 1))
    assert J.shape == (7, 10, 5, 10)
    assert "has shape 7×10×5×10;" in view.caption.text()    # as the cards write shapes
    np.testing.assert_allclose(view.heatmap.matrix, J.reshape(70, 50), rtol=1e-6)
    assert view.heatmap.levels == (-np.abs(J).max(), np.abs(J).max())
    text = view.sum_check.text()
    assert "Σ over target axes = gradient" in text
    assert number_after(text, "max |difference| =") < 1e-5
    assert number_after(text, "max |difference| =") == pytest.approx(view.result.max_difference,
                                                                      abs=1e-7)
    # No output_gradients in the document: v is ones, and Jᵀv is the gradient itself.
    study = studies.jacobian_study(controller.doc, target=Port("layer", 0),
                                   source=Port("layer", 1), v=np.ones((7, 10), np.float32))
    np.testing.assert_allclose(view.result.jtv, study.jtv, rtol=1e-6)
    np.testing.assert_allclose(view.result.vjp, controller.result.evaluation.gradients[
        Port("layer", 1)], rtol=1e-5, atol=1e-6)
    assert "ones" in view.vjp_check.text()
    assert number_after(view.vjp_check.text(), "max |difference| =") < 1e-5


def test_jacobian_view_uses_output_gradients(qtbot):
    controller, view = opened(qtbot, views.JacobianView, "001_dense_jacobian")
    v = np.linspace(-1, 1, 70, dtype=np.float32).reshape(7, 10)
    controller.set_output_gradient(Port("layer", 0), v)
    view.refresh()
    np.testing.assert_allclose(view.result.v, v)
    J = view.result.jacobian
    np.testing.assert_allclose(view.result.jtv, np.tensordot(v, J, axes=2), rtol=1e-5, atol=1e-6)
    assert "output_gradients" in view.vjp_check.text()
    assert number_after(view.vjp_check.text(), "max |difference| =") < 1e-5


def test_views_recompute_lazily_and_debounced(qtbot):
    controller = DocumentController()
    view = views.JacobianView(controller)
    qtbot.addWidget(view)
    calls = []
    original = view.refresh
    view.refresh = lambda: (calls.append(1), original())
    view._timer.timeout.disconnect()
    view._timer.timeout.connect(view.refresh)
    controller.open(SAMPLES / "001_dense_jacobian.json")
    qtbot.wait(2 * _base.DEBOUNCE_MS)
    assert calls == []                      # hidden: nothing computed
    view.show()
    qtbot.waitUntil(lambda: len(calls) == 1)
    for _ in range(3):                      # a burst of edits: one recomputation
        controller.recompute()
    qtbot.wait(3 * _base.DEBOUNCE_MS)
    assert len(calls) == 2
    assert view.heatmap.matrix.shape == (70, 50)


def test_heavy_study_runs_in_the_worker_and_can_be_cancelled(qtbot, monkeypatch):
    monkeypatch.setattr(_base, "WORKER_ELEMENTS", 0)
    controller = DocumentController()
    view = views.JacobianView(controller)
    qtbot.addWidget(view)
    controller.open(SAMPLES / "001_dense_jacobian.json")
    view.refresh()
    assert view._task is not None
    qtbot.waitUntil(lambda: view.result is not None, timeout=5000)
    assert view.busy.isHidden()
    np.testing.assert_allclose(view.heatmap.matrix, ev.jacobian(controller.doc).reshape(70, 50),
                               rtol=1e-6)
    view.result = None
    view.refresh()
    view.cancel()
    qtbot.wait(300)
    assert view.result is None and view.busy.isHidden()


def test_the_gradient_norms_caption_follows_the_backward_pass_not_the_list(qtbot):
    """Issue 20 §1: y = upstream * grad read 'y → upstream → grad' (two inputs of y written as
    a chain); each run of the pass is its own line. The attention lesson's visits of A and V
    are siblings too: the line joins no dots the pass does not go between."""
    controller = DocumentController()
    view = views.GradientNormView(controller)
    qtbot.addWidget(view)
    controller.set_document(sibling_doc())
    view.refresh()
    runs = [re.sub(r"<[^>]+>", "", line) for line in
            re.sub(r"^<span[^>]*>|</span>$", "", view.summary.text()).split("<br>")]
    y, up, grad = studies.gradient_norms(controller.result.story).norms
    assert [[part.rsplit(" ", 1)[0] for part in run.split(" → ")] for run in runs] == \
        [["y", "upstream"], ["y", "grad"]]
    assert [float(part.rsplit(" ", 1)[1]) for run in runs for part in run.split(" → ")] == \
        pytest.approx([y, up, y, grad], rel=1e-3)
    controller, view = opened(qtbot, views.GradientNormView, "nets_6_attention")
    norms = studies.gradient_norms(controller.result.story)
    visits = [k for k, kind in enumerate(norms.kinds) if kind == "visit"]
    joined = [(a, b) for (a, b), c in zip(zip(visits, visits[1:]), view.line.opts["connect"]) if c]
    assert joined and set(joined) <= set(norms.edges)
    assert (norms.names.index("QKᵀ"), norms.names.index("V")) not in joined
    xs, _ = view.branches.getData()
    drawn = {(int(a), int(b)) for a, b in zip(xs[::2], xs[1::2])}
    assert drawn | set(joined) == {(k, j) for k, j in norms.edges if k in visits and j in visits}


def test_batch_view_warns_for_batchnorm(qtbot):
    controller, view = opened(qtbot, views.BatchJacobianView, "001_batchnorm_pitfall")
    study = studies.batch_jacobian_study(controller.doc, target=Port("layer2", 0),
                                         source=Port("x", 0))
    assert study.warning and view.warning
    assert "not independent" in view.warning
    r, c = study.location
    assert f"∂layer2[{r}] / ∂x[{c}]" in view.warning
    # the banner's one format (here 1.14e+00, three digits, as the cards write): half a unit
    assert number_after(view.warning, f"∂x[{c}]‖ =") == pytest.approx(study.largest, rel=5e-3)
    assert view.check.isVisibleTo(view)
    np.testing.assert_allclose(view.heatmap.matrix, patches(study.jacobian, 2), equal_nan=True)
    assert not view._marker.isVisible() or view._marker.rect().center().x() == c


def test_the_words_name_the_block_the_black_box_marks(qtbot):
    """The black box on the block sizes is explained: the caption and the check name the
    block it outlines (its indices and norm, as the check writes them), and hovering it
    reads the same words (the auditor saw an unexplained box beside another block's hover)."""
    controller, view = opened(qtbot, views.BatchJacobianView, "001_batchnorm_pitfall")
    study = view.result
    box = view._marker
    assert box.isVisible()
    drawn = box.rect().center()
    r, c = int(round(drawn.y())), int(round(drawn.x()))   # row b down, column c across
    assert (r, c) == study.location and r != c
    caption = html.unescape(view.caption.text())
    m = re.search(r"black box marks the largest block off the diagonal, "
                  r"‖∂layer2\[(\d+)\] / ∂x\[(\d+)\]‖ = ([^:]+):", caption)
    assert m, caption
    assert (int(m.group(1)), int(m.group(2))) == (r, c)
    named = f"‖∂layer2[{r}] / ∂x[{c}]‖ = {m.group(3)}"
    assert number_after(named, "‖ =") == pytest.approx(study.off_diagonal[r, c], rel=5e-3)
    assert named in html.unescape(view.warning) and "black box" in view.warning
    assert view.norms.cell_text(r, c).startswith(named) and "black box" in view.norms.cell_text(r, c)
    other = next((b, a) for b in range(3) for a in range(3) if b != a and (b, a) != (r, c))
    assert "black box" not in view.norms.describe(*other)


def test_batch_view_ok_for_independent_examples(qtbot):
    controller, view = opened(qtbot, views.BatchJacobianView, "001_batch_jacobian")
    assert view.warning == ""
    assert "independent" in view.check.whole_text() and view.check.property("kind") == "ok"
    J = ev.jacobian(controller.doc, Port("layer2", 0), Port("x", 0))
    np.testing.assert_allclose(view.result.jacobian, J, rtol=1e-6)
    image = view.heatmap.matrix
    assert image.shape == (6 * 9, 5 * 9)   # (T·(B+2), S·(B+2)) as plot_as_patches
    # Patch (i=0, j=0) holds J[:, 0, :, 0], which is diagonal.
    np.testing.assert_allclose(image[1:8, 1:8], J[:, 0, :, 0], rtol=1e-6)
    assert np.isnan(image[0]).all()
    np.testing.assert_allclose(view.result.batch_jacobian,
                               ev.batch_jacobian(controller.doc), rtol=1e-6)


def test_batch_view_explains_a_missing_batch_axis(qtbot):
    controller = DocumentController()
    view = views.BatchJacobianView(controller)
    qtbot.addWidget(view)
    controller.open(SAMPLES / "001_hessian_newton.json")
    view.refresh()
    assert "batch" in view.not_applicable and not view.error and not view.problem   # no warning


def test_hessian_view_numbers_and_newton_step(qtbot):
    controller, view = opened(qtbot, views.HessianView, "001_hessian_newton")
    src, tgt = Port("layer1", 1), Port("loss", 0)
    assert view.source_box.currentText() == "layer1.kernel"
    assert view.eps_box.value() == pytest.approx(1e-3)
    H = ev.hessian(controller.doc, src, tgt).reshape(40, 40)
    np.testing.assert_allclose(view.heatmap.matrix, H, rtol=1e-6)
    sym = number_after(view.symmetry.text(), "max |H − Hᵀ| =")
    assert sym < 1e-6 and sym == pytest.approx(np.abs(H - H.T).max(), abs=1e-9)
    eig = np.linalg.eigvalsh(0.5 * (H + H.T))
    np.testing.assert_allclose(view.result.eigenvalues, eig, rtol=1e-5, atol=1e-6)
    xs, ys = view.eigen_curve.getData()
    np.testing.assert_allclose(ys, eig, rtol=1e-5, atol=1e-6)
    assert number_after(view.definite.text(), "max") == pytest.approx(eig[-1], rel=1e-3)

    old = controller.doc.nodes["layer1"].weights["kernel"].copy()
    g = controller.result.evaluation.gradients[src]
    step = np.linalg.solve(H + 1e-3 * np.eye(40), g.reshape(40)).reshape(old.shape)
    np.testing.assert_allclose(step, ev.newton_step(controller.doc), rtol=1e-4, atol=1e-5)
    loss_before = float(controller.result.evaluation.values[tgt])
    view.apply_newton_step()
    new = controller.doc.nodes["layer1"].weights["kernel"]
    assert new.dtype == old.dtype
    np.testing.assert_allclose(old - new, step, rtol=1e-4, atol=1e-5)
    assert float(controller.result.evaluation.values[tgt]) < loss_before
    assert "Last step" in view.step_text.text()
    # the view followed the edit: its Hessian is that of the new kernel
    np.testing.assert_allclose(view.heatmap.matrix,
                               ev.hessian(controller.doc, src, tgt).reshape(40, 40), rtol=1e-6)
    assert controller.undo_stack.count() == 1
    controller.undo_stack.undo()
    np.testing.assert_array_equal(controller.doc.nodes["layer1"].weights["kernel"], old)


def test_hessian_view_closed_form_layer(qtbot):
    controller, view = opened(qtbot, views.HessianView, "000_layer_hessian")
    x = controller.doc.nodes["x"].value
    n = x.shape[0] * 3
    H = view.heatmap.matrix.reshape(x.shape[1], 3, x.shape[1], 3)
    closed = 2 / n * np.einsum("bi,bk,jl->ijkl", x, x, np.eye(3))
    np.testing.assert_allclose(H, closed, rtol=1e-4, atol=1e-6)
    assert "positive definite" in view.definite.text()


def test_chain_view_matches_chain_cost(qtbot):
    controller, view = opened(qtbot, views.ChainCostView, "001_hessian_newton")
    cost = studies.chain_cost(controller.result.story)
    assert view.result == cost
    text = view.totals.text()
    assert f"forward</b> {cost.forward:,} multiply-adds" in text
    assert f"reverse</b> {cost.reverse:,} multiply-adds" in text
    assert f"{cost.ratio:,.1f}× cheaper" in text
    assert sum(view.forward_bars.opts["height"]) == cost.forward
    assert sum(view.reverse_bars.opts["height"]) == cost.reverse
    assert "J1</b> layer1's matmul" in view.ops.text()


@pytest.mark.parametrize("sample", ["001_batchnorm_pitfall", "001_hessian_newton"])
def test_chain_view_legend_says_what_each_product_is(qtbot, sample):
    """The BatchNorm lesson's target has 42 elements: reverse mode carries 42 rows, so its
    650,328 multiply-adds are matrix · matrix products (the legend said 'vector · matrix'
    for any target); only a scalar target makes them vector · matrix."""
    controller, view = opened(qtbot, views.ChainCostView, sample)
    cost = view.result
    n0, nl = cost.sizes[0], cost.sizes[-1]
    labels = [label.text for _, label in view.legend.items]
    assert labels[0] == "forward: Jₖ · " + ("vector" if n0 == 1 else f"{n0:,} columns")
    assert labels[1] == "reverse: " + ("vector" if nl == 1 else f"{nl:,} rows") + " · Jₖ"
    assert cost.reverse == sum(nl * a * b for a, b in zip(cost.sizes[1:-1], cost.sizes[:-2]))
    if sample == "001_batchnorm_pitfall":
        assert nl == 42 and labels[1] == "reverse: 42 rows · Jₖ"


def test_views_survive_a_broken_document(qtbot):
    controller = DocumentController()
    shown = [cls(controller) for _, cls in views.VIEWS]
    for v in shown:
        qtbot.addWidget(v)
    controller.open(SAMPLES / "004_matmul_sum.json")
    controller.remove_nodes(["tf_b"])
    for v in shown:
        v.refresh()
        assert v.error
        assert v.message.isVisibleTo(v)


def test_a_zero_hessian_has_no_newton_step(qtbot):
    controller, view = opened(qtbot, views.HessianView, "001_dense_jacobian")
    assert not np.any(view.result.hessian)             # the loss is linear in the kernel
    assert not view.newton_button.isEnabled() and not view.newton_ok
    text = view.definite.text()
    assert "H is zero" in text and "g/ε" in text and "well-posed" not in text
    g = np.linalg.norm(view.result.gradient)
    # written in the view's one format (1.84e+04 beside ε = 1.00e-03): half a unit of its last digit
    assert number_after(text, "|g|/ε =") == pytest.approx(g / view.eps_box.value(), rel=5e-3)
    assert view.definite.property("kind") == "warning"
    old = controller.doc.nodes["layer"].weights["kernel"].copy()
    view.apply_newton_step()
    np.testing.assert_array_equal(controller.doc.nodes["layer"].weights["kernel"], old)
    assert controller.undo_stack.count() == 0


def test_round_off_eigenvalues_count_as_zero(qtbot):
    controller, view = opened(qtbot, views.HessianView, "001_hessian_newton")
    eig = view.result.eigenvalues
    tol = hessian_view.zero_tolerance(eig)
    assert tol == pytest.approx(1e-6 * np.abs(eig).max())
    assert eig.min() < 0 and abs(eig.min()) <= tol     # float32 round-off, not curvature
    text = view.definite.text()
    assert "not positive definite" not in text and "negative" not in text
    n_zero = int((np.abs(eig) <= tol).sum())
    assert f"{n_zero} eigenvalue{'s' if n_zero != 1 else ''} ≈ 0" in text
    assert view.newton_button.isEnabled()


def test_a_singular_hessian_along_the_gradient_warns():
    def study(h, g, eps=1e-3):
        h, g = np.asarray(h, float), np.asarray(g, float)
        step = np.linalg.solve(h + eps * np.eye(len(g)), g)
        return studies.HessianStudy(h, 0.0, np.linalg.eigvalsh(h), g, eps, step, -step)
    along = study(np.diag([2.0, 0.0]), [1.0, 1.0])        # g has a part where H is zero
    kind, words, ok = hessian_view.newton_verdict(along, hessian_view.zero_tolerance(
        along.eigenvalues))
    assert kind == "warning" and "singular" in words and ok
    across = study(np.diag([2.0, 0.0]), [1.0, 0.0])       # it has none
    kind, words, ok = hessian_view.newton_verdict(across, hessian_view.zero_tolerance(
        across.eigenvalues))
    assert kind == "info" and "1 eigenvalue ≈ 0" in words and ok
    zero = study(np.zeros((2, 2)), [1.0, 0.0])
    kind, words, ok = hessian_view.newton_verdict(zero, 0.0)
    assert ok is False and "linear in this variable" not in words   # relu nets: piecewise
    assert "no curvature at this point" in words
    # H = 0 at one point says nothing about the loss around it (the sigmoid lesson's sum of
    # sigmoid'' is 0 at delta = 0 by symmetry and curves elsewhere): no claim that it is
    # linear there, no comparison with relu nets in a banner any lesson shows
    assert "linear around" not in words and "relu" not in words and "kink" not in words


def test_lesson_14_has_a_finite_hessian():
    from gradviz.graph import load
    doc = load(SAMPLES / "001_input_gradient_regularization.json")
    for source in doc.sources:
        study = studies.hessian_study(doc, target=doc.targets[0], source=source)
        assert study.finite and np.isfinite(study.eigenvalues).all() and study.eigenvalues.size


def test_a_nan_hessian_names_the_node_and_rule_where_it_starts():
    doc = pow_pitfall_doc()
    layer = ev.evaluate(doc).values[Port("layer")]
    zeros = int((layer == 0).sum())
    assert zeros > 0                                  # relu's zeros: where 0 · ∞ happens
    study = studies.hessian_study(doc, target=Port("g1_mag"), source=Port("layer", 2))
    assert not study.finite and study.eigenvalues.size == 0
    assert f"{int((~np.isfinite(study.hessian)).sum())} of its entries" in study.warning
    assert "the rule of y_sq (pow) is differentiated again" in study.warning
    # the rule's letters said by the user's names: x is the node layer, y no node's value
    assert ("pow's rule grad_x = grad · y · x^(y-1), where x is layer and y is a value a rule "
            "computed: at layer[") in study.warning
    # the operation at that entry, with its numbers: 0 · y · 0^(y-1) at y = 0 is 0 · ∞
    assert "it computes 0 · 0 · 0^(0−1) = NaN from finite numbers" in study.warning
    assert f"(layer is 0 in {zeros} of {layer.size} entries)" in study.warning


def test_the_hessian_view_shows_a_nan_hessian_as_a_warning(qtbot):
    """The warning stands above the plots, the view's message (it was the symmetry banner's,
    in a column that scrolled); no entry is finite, so no heatmap and no eigenvalue plot."""
    controller = DocumentController()
    view = views.HessianView(controller)
    qtbot.addWidget(view)
    view.show()
    controller.set_document(pow_pitfall_doc())
    view.refresh()
    assert not view.error, view.error                 # no "LinAlgError: … did not converge"
    assert view.message.property("kind") == "warning"
    assert "y_sq (pow)" in view.message.text() and "x^(y-1)" in view.message.text()
    assert view.message.text().startswith("<b>⚠ No eigenvalues, no Newton step.</b> H holds NaN")
    assert not view.newton_button.isEnabled() and not view.result.finite
    assert not view.heatmap.isVisible() and not view.eigen_plot.isVisible()
    assert not view.symmetry.isVisible() and not view.definite.isVisible()   # no pair of numbers
    assert view.caption.text().endswith("Every entry is NaN or infinity: there is nothing to draw.")


def test_a_hessian_partly_nan_draws_its_numbers_and_marks_the_rest(qtbot):
    """x^1.5 at zeros: 24 of H's 36 entries are numbers, coloured as any H; the 12 others
    (∞ on the diagonal at the zeros, NaN in their columns) are black and the caption says
    so; symmetry is checked where H and Hᵀ are both numbers."""
    from lesson_variants import partly_nan_hessian_doc
    controller = DocumentController()
    view = views.HessianView(controller)
    qtbot.addWidget(view)
    view.resize(1100, 560)
    view.show()
    controller.set_document(partly_nan_hessian_doc())
    view.refresh()
    H = view.result.hessian
    bad = ~np.isfinite(H)
    pairs = ~bad & ~bad.T
    assert view.heatmap.isVisible() and view.heatmap.mode == "heatmap"
    assert (view.heatmap.not_finite == bad).all() and view.heatmap.levels == (-1.5, 1.5)
    assert view.caption.text().endswith(f"black is NaN or infinity ({int(bad.sum())} of 36 entries).")
    assert view.message.property("kind") == "warning" and "the rule of y (pow)" in view.message.text()
    assert view.symmetry.isVisible() and view.symmetry.property("kind") == "ok"
    assert f"over the {int(pairs.sum())} entries where H and Hᵀ are both numbers" in view.symmetry.text()
    assert not view.eigen_plot.isVisible() and not view.definite.isVisible()
    assert not view.newton_button.isEnabled()
    controller.open(SAMPLES / "001_hessian_newton.json")   # a finite H: every part back
    view.refresh()
    assert view.result.finite and view.message.text() == ""
    assert view.eigen_plot.isVisible() and view.definite.isVisible() and view.newton_button.isEnabled()
    assert "black" not in view.caption.text()


@pytest.mark.parametrize("cls, study", [(views.JacobianView, "jacobian"),
                                        (views.BatchJacobianView, "batch_jacobian")])
def test_a_jacobian_holding_infinity_is_a_warning_naming_the_rule(qtbot, cls, study):
    """√ at 0: the view says where the ∞ starts, and the status bar hears of it."""
    from gradviz.graph.document import OP, VARIABLE, Document, Node
    doc = Document()
    doc.add(Node("a", VARIABLE, value=np.array([[4.0, 0.0]], np.float32)))
    doc.add(Node("s", OP, op="sqrt", label="root"))
    doc.connect("a", "s")
    doc.targets, doc.sources = [Port("s")], [Port("a")]
    doc.studies = {study: {}}
    controller = DocumentController()
    view = cls(controller)
    qtbot.addWidget(view)
    heard = []
    view.problemChanged.connect(heard.append)
    controller.set_document(doc)
    view.refresh()
    assert view.message.property("kind") == "warning"
    assert "in the cotangent of a, from the rule of root (sqrt)" in view.message.text()
    assert heard and "sqrt's rule" in heard[-1] and view.problem == heard[-1]


STUDY_VIEWS = {"jacobian": views.JacobianView, "batch_jacobian": views.BatchJacobianView,
               "hessian": views.HessianView}


def _variables(text):
    """What follows each ∂ in `text` (its ² and spaces skipped): the names written as the
    variables of a derivative."""
    return [re.sub(r"^[²\s]*", "", part) for part in text.split("∂")[1:]]


@pytest.mark.parametrize("sample, study", [
    (path.stem, name) for path in sorted(SAMPLES.glob("*.json"))
    for name in json.loads(path.read_text("utf-8")).get("studies", {}) if name in STUDY_VIEWS])
def test_study_labels_name_the_target_and_source_by_their_labels(qtbot, sample, study):
    """Every axis, colorbar and caption of a study writes ∂ before the user's target or
    source name, never a letter (x, y, loss) that is, or could be read as, another node."""
    controller, view = opened(qtbot, STUDY_VIEWS[study], sample)
    t_name, s_name = (html.escape(box.currentText(), quote=False)
                      for box in (view.target_box, view.source_box))
    heatmaps = [view.heatmap] + ([view.norms] if hasattr(view, "norms") else [])
    texts = [view.caption.text()] + [t for h in heatmaps for t in (*h._value_labels, *h._labels)]
    full = view.heatmap._value_labels[0]    # shorter forms stand in on a short colour bar
    assert t_name in full and s_name in full and view.heatmap._value_label in texts
    for text in texts:
        for variable in _variables(text):
            cut = variable.split("…")[0] if "…" in variable else None   # a name cut short
            assert variable.startswith((t_name, s_name)) or cut and len(cut) >= 4 and \
                (t_name.startswith(cut) or s_name.startswith(cut)), (variable, text)
    view.clear_result()   # the empty view's labels name no variable either
    assert not [t for h in heatmaps for t in (h._value_label, *h._labels) if _variables(t)]


def _number_forms(*texts):
    """The forms of the numbers in `texts` with a decimal point: (decimals, exponent?)."""
    found = re.findall(r"(?<![\w.])-?\d+\.(\d+)(e[+-]\d+)?", " ".join(texts))
    return {(len(decimals), bool(exponent)) for decimals, exponent in found}


@pytest.mark.parametrize("cls, sample, labels", [
    (views.HessianView, "001_hessian_newton", ("symmetry", "definite", "step_text")),
    (views.JacobianView, "001_dense_jacobian", ("sum_check", "vjp_check")),
    (views.BatchJacobianView, "001_batchnorm_pitfall", ("check",))])
def test_a_view_writes_its_numbers_in_one_format(qtbot, cls, sample, labels):
    """One format per view, the cards' rule: never 1.863e-08 beside 0.7813."""
    controller, view = opened(qtbot, cls, sample)
    texts = [getattr(getattr(view, name), "whole_text", getattr(view, name).text)()   # a banner's detail too
             for name in labels]
    forms = _number_forms(*texts)
    assert len(forms) == 1, (forms, texts)


@pytest.mark.parametrize("eps", [0.0, 1e-9, 1e-6, 1e-3, 0.1])
def test_the_newton_words_are_true_for_every_eps(qtbot, eps):
    """At ε = 0 the view printed |step| = 53.481 (solve() on a singular H: round-off blown
    up; the step along the directions where H curves is 2.026) beside 'the gradient has no
    part along them, so the step is a Newton step where H curves'. Where H + εI is 0 within
    rounding the study inverts it only where it is not, and the words say so; for every ε
    the |step| printed is numpy's and the share of it ε alone sets is the one printed."""
    controller, view = opened(qtbot, views.HessianView, "001_hessian_newton")
    view.eps_box.setValue(eps)
    view.refresh()
    H = ev.hessian(controller.doc, Port("layer1", 1), Port("loss", 0)).reshape(40, 40)
    H = H.astype(np.float64)
    g = controller.result.evaluation.gradients[Port("layer1", 1)].reshape(40).astype(np.float64)
    w, V = np.linalg.eigh(0.5 * (H + H.T))
    tol = 1e-6 * np.abs(w).max()
    kept = np.abs(w + eps) > tol
    expected = V[:, kept] @ ((V[:, kept].T @ g) / (w[kept] + eps))
    step_text, words = view.step_text.text(), view.definite.text()
    printed = number_after(step_text, "|step| =")
    assert printed == pytest.approx(np.linalg.norm(expected), rel=2e-3, abs=2e-3)
    flat = np.abs(w) <= tol
    assert flat.sum() == 17
    if not kept.all():          # ε = 0 and 1e-9: within rounding of H's flat eigenvalues
        assert printed == pytest.approx(2.026, abs=2e-3)
        assert "⁺" in step_text and "pseudo-inverse" in words and "17 flat ones" in words
        assert f"along the {kept.sum()} directions" in words
    else:
        assert "⁺" not in step_text and "pseudo-inverse" not in words
        share = np.linalg.norm(V[:, flat].T @ expected) / np.linalg.norm(expected)
        written = "under 1%" if share < 0.01 else f"{share:.0%}"
        assert f"{written} of |step|" in words, (share, words)
    assert "has no part along them" not in words


@pytest.mark.parametrize("sample", ["000_layer_hessian", "001_dense_jacobian"])
def test_forward_vs_reverse_names_no_seed_number(qtbot, sample):
    """'That is why backpropagation wants a scalar loss (seed 000).': a student knows the
    lessons by their titles, not the seeds' numbers (issue 20 §2). Neither the view's words
    (a scalar loss, and a target the tape sums) nor `gradviz explain` name a seed."""
    import re
    from gradviz import story
    from gradviz.story.study_text import chain_lines
    controller, view = opened(qtbot, views.ChainCostView, sample)
    words = view.explanation.text()
    assert "backpropagation" in words or "seeding ones" in words
    lines = "\n".join(chain_lines(story.build(controller.doc)))
    assert "Forward vs reverse" in lines
    for text in (words, lines):
        assert not re.search(r"\bseed \d{3}", text), text


def test_a_batch_jacobian_holding_infinity_marks_it_and_compares_only_numbers(qtbot):
    """√ at x[1, 1] = 0: J's entry is ∞ (drawn black, as the block size it makes), the patch
    image's gutters stay grey, and the check that batch_jacobian equals the diagonal blocks
    compares their numbers (it said 'max |difference| nan' beside ✓). Off the diagonal, as
    TF's jacobian (one gradient per one-hot row), a zero cotangent reaches x[1, 1]; TF's
    SqrtGrad gives 0 where the cotangent is 0 (cwise_ops_gradients.h), so only the diagonal
    block (1, 1) is black. (Before the engine took TF's SqrtGrad it multiplied 0 · ∞ = NaN
    there and this test expected the blocks (0, 1) and (2, 1) black too.)"""
    from gradviz.graph.document import OP, VARIABLE, Document, Node
    doc = Document()
    doc.add(Node("a", VARIABLE, value=np.array([[4, 1, 2], [9, 0, 1], [1, 1, 1]], np.float32),
                 label="x"))
    doc.add(Node("s", OP, op="sqrt", label="root"))
    doc.connect("a", "s")
    doc.targets, doc.sources = [Port("s")], [Port("a")]
    doc.studies = {"batch_jacobian": {"target": "s", "source": "a"}}
    controller = DocumentController()
    view = views.BatchJacobianView(controller)
    qtbot.addWidget(view)
    view.resize(1100, 600)
    view.show()
    controller.set_document(doc)
    view.refresh()
    J = view.result.jacobian
    bad = int((~np.isfinite(J)).sum())
    assert view.heatmap.not_finite.sum() == bad and view.heatmap.entries == J.size
    assert bad == 1 and np.isinf(J[1, 1, 1, 1])
    block_11 = np.zeros((3, 3), bool)
    block_11[1, 1] = True                                        # example 1 into example 1
    np.testing.assert_array_equal(view.norms.not_finite, block_11)
    assert view.caption.text().endswith(
        f"In J, black is NaN or infinity ({bad} of {J.size} entries); in the block sizes, black "
        f"is NaN or infinity (1 of 9 entries).")
    assert view.message.text().startswith("<b>⚠ Its numbers hold NaN or infinity.</b> The batch Jacobian holds")
    assert "nan" not in view.check.whole_text()
    assert "every off-diagonal block is zero (largest norm 0)" in view.check.whole_text()
    assert ("(max |difference| = 0 over the 26 entries where both are numbers; the same entries "
            "of each hold NaN or infinity)") in view.check.whole_text()


def test_a_jacobian_check_with_nothing_to_compare_says_so(qtbot):
    """nets_4 (softmax, then log): J, Σ over its target axes and the gradient are NaN in every
    entry; the checks said '✗ … max |difference| = nan', a failure of nothing checked."""
    controller, view = opened(qtbot, views.JacobianView, "nets_4_softmax_then_log")
    for label in (view.sum_check, view.vjp_check):
        assert "– </b>" in label.text() or "–</b>" in label.text()
        assert label.text().endswith("<br>Nothing to compare: every entry of both is NaN or infinity")
        assert "nan</" not in label.text() and "= nan" not in label.text()


def test_an_empty_study_says_its_shape_as_the_cards_write_it(qtbot):
    """A study of a target or source with a 0 in its shape wrote the shape as a Python
    tuple, '(0, 3)', beside cards that write 0×3."""
    controller, view = opened(qtbot, views.JacobianView, "001_dense_jacobian")
    view._show_empty((0, 3))
    words = view.message.text()
    assert "empty, shape 0×3:" in words and "(0, 3)" not in words


def test_the_newton_warning_reads_from_its_start(qtbot):
    """The attention network's Hessian at 1440 x 900, the story playing: its words' box, a
    few lines high, showed '…need not point downhill' below the eigenvalues' numbers and hid
    where the warning starts (H44 audit). The verdict on the Newton step opens its banner,
    the numbers follow it."""
    _, view = opened(qtbot, views.HessianView, "nets_6_attention")
    assert view.result.eigenvalues.min() < -hessian_view.zero_tolerance(view.result.eigenvalues)
    text = view.definite.text()
    headline, numbers = text.split("<br>", 1)
    assert headline.startswith("<b>not positive definite (") and "need not point downhill" in headline, text
    assert numbers.startswith("min ") and ", max " in numbers, text
