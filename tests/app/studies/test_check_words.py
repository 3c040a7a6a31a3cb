"""The Gradient check view's words say what its plot draws (issue 20 §1): on a student's MLP
the best step had error 0, which a log axis cannot draw, yet the words spoke of 'the bottom
of the V (ringed)' beside a plot with no ring and no V."""
import numpy as np
import pytest

from gradviz.app.studies.check_view import EXACT_LABEL, explanation, h_text, shape
from gradviz.graph import Port
from gradviz.graph.gradient_check import gradient_check
from gradviz.graph.fileformat import load
from gradviz.app.window.main_window import SAMPLES_DIR

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute


def _exact_check(labelled_mlp):
    doc = labelled_mlp()
    doc.nodes["x1"].value = np.array([[1, 2, -3], [0.5, -1, 2]], np.float32)
    doc.nodes["w2"].value = np.array([[0.5, -1, 0.2, 1], [1, 0.3, -0.5, 2], [-0.4, 0.6, 1, -1]],
                                     np.float32)
    doc.nodes["w5"].value = np.array([[1, -1], [0.5, 2], [-1, 0.3], [0.2, 1]], np.float32)
    return gradient_check(doc, Port("w2"), (2, 1))


def test_a_best_step_of_error_zero_is_said_and_drawn_on_the_floor(labelled_mlp):
    """W1[2, 1] of x @ W1 -> relu -> @ W2 -> sum with the student's numbers: the loss is
    linear in that entry over ±0.1 (no relu flips), so h = 0.1 is exact.
    Changed with the drawing of error 0 (the auditor found the best step neither drawn nor
    said to be missing): it is now a triangle on the plot's floor marked '0 (exact)' and
    ringed, and the words say so (they said 'ringed' nowhere while nothing was drawn)."""
    check = _exact_check(labelled_mlp)
    assert check.passed and check.best.relative == 0
    words = explanation(check)
    assert "bottom of the V" not in words
    assert f"h = {h_text(check.best.h)}" in words and "error 0" in words
    assert EXACT_LABEL in words and "floor" in words


def test_the_plot_draws_each_step_of_error_zero_at_its_floor(qtbot, labelled_mlp):
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView

    check = _exact_check(labelled_mlp)
    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    view.show_result(check)
    exact = [r for r in check.rows if r.relative == 0]
    xs, ys = view.exact.getData()
    np.testing.assert_allclose(sorted(xs), sorted(np.log10([r.h for r in exact])))
    bottom, top = view.plot.getViewBox().viewRange()[1]
    assert all(bottom < y < bottom + 0.1 * (top - bottom) for y in ys)   # on the floor, inside
    assert [label.textItem.toPlainText() for label in view.exact_labels] == [EXACT_LABEL] * len(exact)
    (bx,), (by,) = view.best.getData()
    assert bx == np.log10(check.best.h) and by == ys[0]                  # the best is ringed
    drawn = view.line.getData()[0]
    assert len(drawn) + len(xs) == len(check.rows)                      # every step is drawn


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


def _samples():
    from gradviz.app.window.main_window import SAMPLES_DIR
    return sorted(SAMPLES_DIR.glob("*.json"))


def test_the_words_say_where_the_best_step_lies_in_every_sample():
    """Lesson 1's check (float32, a matmul summed: no truncation) said 'the bottom of the V
    (ringed)' and 'in float32 no h gets the error much below 10⁻⁴' beside a table whose error
    was 6.6×10⁻⁷ at h = 0.1 and only grew as h shrank. The words now follow the rows: the V
    only where the best step has larger and smaller steps around it, and no claim about a
    float32 floor the numbers can contradict. Checked on every sample's check."""
    seen = set()
    for path in _samples():
        try:
            check = gradient_check(load(path))
        except Exception:          # a sample without a source or a loss has no check
            continue
        words = explanation(check)
        assert "much below" not in words, path.name
        rows = [r for r in check.rows if np.isfinite(r.relative)]
        if not check.passed or check.best.relative == 0:
            continue
        at = rows.index(check.best)
        inside = 0 < at < len(rows) - 1
        # A V where truncation shows, the largest step's error above what rounding alone
        # gives (the least of errors of rounding's size is chance: no V, test_check_shape).
        truncation = rows[0].error > check.rounding(rows[0])
        assert ("bottom of the V (ringed)" in words) == (inside and truncation), path.name
        if at == 0 or not truncation:
            assert "no V" in words, path.name
            assert "dashed line" not in words, path.name
        if at == 0:
            assert "largest step tried (ringed)" in words, path.name
            assert min(r.relative for r in rows[1:]) >= check.best.relative
        if at == len(rows) - 1 and truncation:
            assert "still falls at the smallest h" in words, path.name
        seen.add("largest" if at == 0 else "inside" if inside and truncation else "other")
    assert {"largest", "inside"} <= seen     # both kinds occur in samples/


def test_lesson_1s_check_draws_no_h2_line_where_no_truncation_shows(qtbot, tmp_path):
    """004_matmul_sum: the dashed 'h² (truncation alone)' line fell through the largest step
    while every point rose to its right; it and its legend entry are gone there, and come
    back on a check with a V (nets_3_gradient_check)."""
    from PySide6.QtCore import QSettings
    from gradviz.app import create_window
    from test_study_docks import _open

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = create_window("samples/004_matmul_sum.json", offer_recovery=False, settings=settings)
    qtbot.addWidget(w)
    w.resize(1920, 1080)
    w.show()
    qtbot.waitExposed(w)
    view = _open(qtbot, w, "Gradient check").view
    qtbot.waitUntil(lambda: view.result is not None, timeout=8000)

    def guide_shown():
        listed = any(sample.item is view.guide for sample, _ in view.legend.items)
        drawn = view.guide.getData()[0] is not None and len(view.guide.getData()[0]) > 0
        assert listed == drawn
        return drawn
    largest = view.result.rows[0]    # rounding from the largest h on: no truncation shows
    assert view.result.passed and largest.error <= view.result.rounding(largest)
    assert shape(view.result) == "rounding" and not guide_shown()
    assert "bottom of the V" not in view.explanation.text()
    first = view.result
    assert w.load_path("samples/nets_3_gradient_check.json", remember=False)
    qtbot.waitUntil(lambda: view.result is not None and view.result is not first, timeout=8000)
    assert 0 < view.result.rows.index(view.result.best) < len(view.result.rows) - 1
    assert shape(view.result) == "v" and guide_shown()
    assert "bottom of the V (ringed)" in view.explanation.text()


def test_the_h2_guide_crosses_the_whole_plot_where_it_stays_inside(qtbot):
    """nets_3_gradient_check: the dashed 'h² (truncation alone)' line was drawn over the
    steps only, under the errors' line where they fall as h² (hidden there), so it showed as
    a stub where they part near the V's bottom, and ran on below the plot's floor (issue 20
    §5). Now it is one straight line through the largest step across the whole h range the
    plot shows, cut only where it reaches the plot's edges, drawn over the errors' line."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView

    check = gradient_check(load(SAMPLES_DIR / "nets_3_gradient_check.json"))
    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    view.show_result(check)
    xs, ys = (np.asarray(a, float) for a in view.guide.getData())
    (left, right), (bottom, top) = view.plot.getViewBox().viewRange()
    first = check.rows[0]
    np.testing.assert_allclose(ys, np.log10(first.relative) + 2 * (xs - np.log10(first.h)))
    assert np.all((left - 1e-9 <= xs) & (xs <= right + 1e-9) & (bottom - 1e-9 <= ys) & (ys <= top + 1e-9))
    # Its ends lie on the plot's edges: nothing of it inside the plot is left out.
    ends = sorted(zip(xs, ys))
    for x, y in (ends[0], ends[-1]):
        assert min(abs(x - left), abs(x - right), abs(y - bottom), abs(y - top)) < 1e-6, (x, y)
    assert xs.max() - xs.min() >= 0.4 * (right - left)          # here from the floor at h ≈ 10⁻⁶ to the right edge
    items = view.plot.getPlotItem().items
    assert items.index(view.guide) > items.index(view.line)     # over the errors' line, not hidden under it


def test_the_words_speak_of_the_dashed_line_only_where_the_plot_draws_it(qtbot):
    """The export's words said '(the dashed line of slope 2)' wherever the check had no
    best step in rounding, also where every error is 0 or not finite and the plot draws no
    guide. Over every sample's check, and checks whose every error is 0 or NaN, the words
    name the line exactly when the view draws it, with slope 2."""
    import dataclasses

    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GUIDE_SLOPE, GradientCheckView

    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    checks = []
    for path in sorted(SAMPLES_DIR.glob("*.json")):
        doc = load(path)
        if "gradient_check" in doc.studies:
            checks.append(gradient_check(doc))
    first = checks[0]
    for error in (0.0, np.nan):    # every error 0 (exact), every difference NaN
        checks.append(dataclasses.replace(
            first, rows=[dataclasses.replace(r, relative=error, error=error) for r in first.rows]))
    assert len(checks) >= 3
    for check in checks:
        view.show_result(check)
        xs, ys = view.guide.getData()
        drawn = xs is not None and len(xs) > 0
        said = "(the dashed line of slope 2)" in explanation(check)
        assert drawn == said, (check.entry_name, drawn, said)
        if drawn:
            assert GUIDE_SLOPE == 2 and np.isclose((ys[-1] - ys[0]) / (xs[-1] - xs[0]), 2)


def test_the_words_over_steps_of_error_zero_never_overlap(qtbot, labelled_mlp):
    """Walk-through at 1280 x 800: on a graph whose gradient is zero (x all zeros) every
    step's error is 0, and the five '0 (exact)' labels stood on top of each other over the
    triangles, unreadable. A run of neighbouring steps of error 0 carries one label, and no
    two labels overlap, in a view as narrow as the docked column."""
    from PySide6.QtWidgets import QApplication

    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView

    doc = labelled_mlp()
    doc.nodes["x1"].value = np.zeros((2, 3), np.float32)
    check = gradient_check(doc, Port("w2"), (0, 0))
    exact = [r for r in check.rows if r.relative == 0]
    assert len(exact) == len(check.rows) > 2
    for width in (320, 900):
        view = GradientCheckView(DocumentController())
        qtbot.addWidget(view)
        view.resize(width, 500)
        view.show()
        qtbot.waitExposed(view)
        qtbot.waitUntil(lambda: not view._timer.isActive())    # its refresh of no document
        view._generation += 1
        view._done(view._generation, check)          # as a computed check is shown
        for _ in range(3):
            QApplication.processEvents()
        rects = [label.sceneBoundingRect() for label in view.exact_labels]
        assert len(rects) == 1, width             # one run of neighbouring steps: one label
        assert all(label.textItem.toPlainText() == EXACT_LABEL for label in view.exact_labels)
        for i, a in enumerate(rects):
            for b in rects[i + 1:]:
                assert not a.intersects(b), (width, a, b)


def _cells(html):
    """The table's rows as lists of plain-text cells."""
    import html as markup
    import re
    rows = re.findall(r"<tr>(.*?)</tr>", html)
    return [[markup.unescape(re.sub(r"<[^>]+>", "", c.replace("<br>", " "))).replace(" ◀ best", "")
             for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)] for row in rows]


def _formula(words):
    """The relative error's formula as the words write it, as a function of c and b: each
    |…| is abs(…), − is minus (the auditor found the view plotting 'relative error' without
    saying relative to what)."""
    import re
    m = re.search(r"relative error (\S.*?) \(0 where both are 0\), where b = ", words)
    assert m, words
    text = m.group(1)
    python = re.sub(r"\|([^|]+)\|", r"abs(\1)", text).replace("−", "-")
    assert set(re.findall(r"[a-z]+", python)) <= {"abs", "max", "c", "b"}, text
    return lambda c, b: eval(python, {"abs": abs, "max": max}, {"c": c, "b": b})


@pytest.mark.parametrize("name, loss_said", [("nets_3_gradient_check", "(loss(w[1] + h) − loss(w[1] − h)) / 2h"),
                                             ("nets_3_wrong_gradient", "(loss(w[1] + h) − loss(w[1] − h)) / 2h"),
                                             ("004_matmul_sum", "L = Σy_tf")])
def test_the_words_state_the_relative_error_the_plot_and_table_show(qtbot, name, loss_said):
    """The words say which relative error is plotted, in the user's names: b is the backward
    pass's number (as the table prints it), c the central difference of the lesson's loss
    moving the checked entry, and the formula they write recomputes every row's error from
    the check's c and b, and the table's printed error from its printed c and b."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView, long_number
    from test_views import number_after

    check = gradient_check(load(SAMPLES_DIR / f"{name}.json"))
    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    view.show_result(check)
    words = view.explanation.text()
    formula = _formula(words)
    backward = long_number(check.backward)(check.backward)
    assert f"where b = {backward} is the backward pass's ∂{check.loss_name} / ∂{check.entry_name}" in words
    assert loss_said in words and f"({check.entry_name} + h)" in words
    for r in check.rows:                                       # the formula is the computation
        assert formula(r.difference, check.backward) == pytest.approx(r.relative, rel=1e-12, abs=0)
    head, backward_row, *rows = _cells(view.table.text())
    assert head == ["h", "central difference c", "relative error"]
    assert backward_row[:2] == ["backward b", backward]
    b = number_after(backward_row[1], "")
    recomputed = 0
    for (h, c, error), r in zip(rows, check.rows):
        if r.relative < 1e-5:      # the printed c's ten digits no longer carry the error
            continue
        assert formula(number_after(c, ""), b) == pytest.approx(number_after(error, ""), rel=2e-3)
        recomputed += 1
    assert recomputed >= 2


def test_a_gradient_below_rounding_is_no_verdict_and_no_warning(qtbot):
    """Lesson 21 at η 0.35, 20 steps: ∂loss/∂x = 2x = 1.39×10⁻¹⁰ is right, but a float32
    loss of 136 cannot resolve it; the banner said '✗ … (a wrong rule)' and the status bar
    warned. It says it cannot measure it, in the cards' numbers, and warns of nothing."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView
    from gradviz.graph.training import with_values
    from gradviz.story.numbers import alone
    doc = with_values(load(SAMPLES_DIR / "train_1_gd_bowl.json"),
                      {Port("x"): np.float32(6.973573e-11), Port("y"): np.float32(6.7274985)})
    check = gradient_check(doc, Port("x"))
    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    view.show_result(check)
    text = view.verdict.text()
    assert view.verdict.property("kind") == "info" and view.problem_of(check) == ""
    assert "No verdict" in text and "wrong rule" not in text and "✗" not in text
    assert f"the gradient {alone(check.backward)} is below" in text
    assert f"float32 loss (loss ≈ {alone(check.loss)})" in text
    words = view.explanation.text()          # its flat line is no wrong rule's
    assert "the line says nothing of the rule" in words and "where h resolves the gradient" in words


def test_the_table_bolds_the_digits_that_agree_by_the_relative_error():
    """Backward 1.000000000: c = 0.999999046 (relative error 9.5×10⁻⁷, the best) showed no
    bold digit and c = 1.001358032 (1.4×10⁻³, the worst) showed '1.00' bold, by text
    prefix. The bold digits are the significant digits that agree by the relative error."""
    import re
    from gradviz.app.studies.check_view import _table
    from gradviz.graph.gradient_check import CheckRow, GradientCheck

    def row(h, c):
        return CheckRow(h, 0.0, 0.0, c, abs(c - 1.0), abs(c - 1.0) / max(abs(c), 1.0))
    check = GradientCheck(Port("b"), (0,), "b[0]", "Σy", "float32", 0.1, 1.0,
                          [row(0.1, 0.999999046), row(1e-5, 1.001358032), row(1e-3, 1.2)],
                          tolerance=1e-2)
    bold = re.findall(r"<b>([^<]*)</b>([0-9.]*)", _table(check))
    assert bold[1:] == [("0.999999", "046"), ("1.0", "01358032"), ("", "1.200000000")]
    assert [r.agreeing_digits for r in check.rows] == [6, 2, 0]


def test_the_checks_letters_are_no_node_name_on_the_canvas(qtbot):
    """Lesson 21 has constants a and b: the panel wrote 'backward b' and |c − b| beside a
    node b holding 3. The letters are renamed as the rule cards rename theirs."""
    import re
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView, _table
    from gradviz.graph.gradient_check import relative_error
    from gradviz.graph.slots import node_names
    from gradviz.story.study_text import gradient_check_lines
    doc = load(SAMPLES_DIR / "train_1_gd_bowl.json")
    doc.nodes["y"].label = "c"      # a node c too
    taken = node_names(doc)
    assert {"b", "c"} <= taken
    check = gradient_check(doc, Port("x"))
    c, b = check.letters["c"], check.letters["b"]
    assert c not in taken and b not in taken and c != b
    assert relative_error(check) == f"|{c} − {b}| / max(|{c}|, |{b}|)"
    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    view.show_result(check)
    table, words = _table(check), view.explanation.text()
    assert f"backward {b}<" in table and f"difference {c}<" in table
    assert f"where {b} = " in words and f"and {c} is the central difference" in words
    assert not re.search(r"(?<![\w∂])[bc](?![\w\[])", words.replace("float32", ""))
    legend = [label.text for sample, label in view.legend.items if sample.item is view.line]
    assert legend == [f"relative error of {c}"]
    text = "\n".join(gradient_check_lines(doc))
    assert f"backward pass: {b} = " in text
    assert f"{c:>17}  {f'|{c} − {b}|':>13}  " in text          # the table's heads


def test_the_step_letter_is_no_node_name_on_the_canvas(qtbot):
    """Issue 20 §1: c, b and L were renamed beside a node of that name, the step h was not:
    'at h = 10⁻³' beside a node h holding 4."""
    import re
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.check_view import GradientCheckView, _table
    from gradviz.graph.gradient_check import difference_text
    from gradviz.graph.slots import node_names
    from gradviz.story.study_text import gradient_check_lines
    doc = load(SAMPLES_DIR / "train_1_gd_bowl.json")
    doc.nodes["y"].label = "h"
    check = gradient_check(doc, Port("x"))
    h = check.letters["h"]
    assert h == "δ" and h not in node_names(doc)     # 'a' read 'at a = 10⁻³' as English
    assert difference_text(check) == f"(loss(x + {h}) − loss(x − {h})) / 2{h}"
    view = GradientCheckView(DocumentController())
    qtbot.addWidget(view)
    view.show_result(check)
    legend = [label.text for _, label in view.legend.items]
    words = [view.explanation.text(), view.verdict.text(), _table(check), check.summary(),
             check.verdict(), "\n".join(gradient_check_lines(doc)), *legend,
             view.plot.getAxis("bottom").labelText]
    lone_h = re.compile(r"(?<![A-Za-z_])h(?![A-Za-z_])")
    assert [w for w in words if lone_h.search(w)] == []
    assert f"at each step {h}." in words[0] and f"<th align=right>{h}</th>" in words[2]
    assert f"step size {h} (log scale)" in words[-1]
