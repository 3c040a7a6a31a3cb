"""A study whose numbers hold NaN or infinity is a warning that names the node and rule
where the first one appears, for every kind of study (issue 20 §1: the status bar never
says "no problems" beside such a result). The op is named as its card names it (sqrt, pow),
not by the type TF's tape records (Sqrt, Pow), which these tests read until issue 20's
sweep of op types (tests/story/test_study_op_words.py); the warning is a sentence, so it
opens with a capital ('The batch Jacobian holds …', where the view wrote '… infinity. the batch')."""
import importlib

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import CONSTANT, OP, VARIABLE, Node, Port
from gradviz.graph.nan_origin import study_problems
from lesson_variants import pow_pitfall_doc

ev = importlib.import_module("gradviz.graph.evaluate")   # the package re-exports a function


def _sqrt_doc(value, study):
    doc = graph.Document()
    doc.add(Node("a", VARIABLE, value=np.asarray(value, np.float32)))
    doc.add(Node("s", OP, op="sqrt", label="root"))
    doc.connect("a", "s")
    doc.targets, doc.sources = [Port("s")], [Port("a")]
    doc.studies = {study: {"target": "s", "source": "a"}}
    return doc


def _messages(doc):
    return [str(p) for p in study_problems(doc, ev.run_studies(doc))]


@pytest.mark.parametrize("study, value, result, words", [
    ("jacobian", [4.0, 0.0], "J", ("row", "column")),
    ("batch_jacobian", [[4.0, 1.0], [9.0, 0.0]], "The batch Jacobian",
     ("example", "row", "column"))])
def test_a_jacobian_holding_infinity_names_the_rule(study, value, result, words):
    """√ at 0: the rule divides by 0 (J's row of that element holds ∞, the other rows 0/0)."""
    doc = _sqrt_doc(value, study)
    matrix = ev.run_studies(doc)[study]
    bad = ~np.isfinite(matrix)
    if study == "jacobian":
        matrix, bad = matrix.reshape(2, 2), bad.reshape(2, 2)
    first = np.argwhere(bad)[0]
    (text,) = _messages(doc)
    assert text.startswith(f"studies.{study}: {result} holds NaN or infinity in {int(bad.sum())} "
                           f"of its entries")
    assert "(first at " + ", ".join(f"{w} {i}" for w, i in zip(words, first)) + ")" in text
    # the rule's operand by its node's name, a (it wrote grad_x: no node is called x)
    assert "in the cotangent of a, from the rule of root (sqrt)" in text
    assert "sqrt's rule grad_a = grad / (2·√a)" in text
    at = ", ".join(str(i) for i in np.argwhere(np.asarray(value) == 0)[0])
    assert f"at a[{at}] it computes 1 / (2·√0) = ∞ from finite numbers" in text


def test_a_finite_study_has_no_warning():
    assert _messages(_sqrt_doc([4.0, 1.0], "jacobian")) == []


def test_a_second_derivative_holding_infinity_names_the_rule_differentiated_again():
    """d²/dx² x^1.5 = 0.75 / √x: infinite at 0 while the first derivative is finite."""
    doc = graph.Document()
    doc.add(Node("x", VARIABLE, value=np.zeros(2, np.float32)))
    doc.add(Node("p", CONSTANT, value=np.float32(1.5)))
    doc.add(Node("y", OP, op="pow"))
    doc.connect("x", "y")
    doc.connect("p", "y", dst_index=1)
    doc.targets, doc.sources = [Port("y")], [Port("x")]
    doc.studies = {"higher_order": {"order": 2}}
    derivatives = ev.run_studies(doc)["higher_order"]
    assert np.isfinite(derivatives[0]).all() and not np.isfinite(derivatives[1]).all()
    (text,) = _messages(doc)
    assert text.startswith("studies.higher_order: The 2nd derivative holds NaN or infinity")
    assert "where the rule of y (pow) is differentiated again" in text


def test_the_hessian_of_lesson_14_with_pow_names_pow():
    (text,) = _messages(pow_pitfall_doc())
    assert text.startswith("studies.hessian: H holds NaN or infinity")
    assert "the rule of y_sq (pow) is differentiated again" in text


def test_gradviz_run_warns_of_a_study_holding_nan(tmp_path):
    from gradviz.graph.cli_commands import run_command
    from gradviz.graph.fileformat import save
    path = tmp_path / "pow.json"
    save(pow_pitfall_doc(), path)
    heard = []
    code, text = run_command(path, warn=heard.append)
    assert code == 0
    assert any("studies.hessian: H holds NaN" in line and "y_sq (pow)" in line for line in heard)
    assert '"studies.hessian: H holds NaN' in text


def test_a_rule_reading_values_already_nan_names_them_and_where_the_first_is_made():
    """Lesson nets_4 (softmax then log): the Hessian's NaN appears where softmax's rule is
    differentiated again, in a multiply that reads a value softmax's rule computed, already
    NaN. The warning said "the values multiply's rule grad_x = grad · y reads already hold
    NaN", which does not parse and names x and y, no node of the lesson.

    Where that value's infinity is made: this test expected "in the forward pass, by log_p
    (log)", the first infinity anywhere on the tape, but log_p's -inf never reaches it
    (multiply's rule sends log_p the upstream · labels, not log_p's value); the infinity it
    reads is log's rule's reciprocal of p = 0 (softmax underflows at logits 0 vs 120), made
    from finite numbers. The origin is now found by walking back from the bad input
    (test_the_first_nan_named_is_one_that_feeds_the_bad_input).

    Auditor: 'The first NaN or infinity is made by reciprocal…' contradicted the lesson,
    whose first infinity is log_p's forward -inf; and 'multiply's rule' named no node of the
    canvas (the multiply is inside softmax's rule). It says 'That NaN or infinity' (the one
    the rule reads) and 'a multiply inside that rule'."""
    from gradviz.bundled import sample
    doc = graph.load(sample("nets_4_softmax_then_log"))
    doc.studies = {"hessian": {}}
    (text,) = _messages(doc)
    assert text.endswith(
        "It first appears where the rule of p (nn.softmax) is differentiated again, in the "
        "cotangent of p: "
        "a multiply inside that rule reads a value that p's rule computed, which already holds "
        "NaN or infinity. That NaN or infinity is made by reciprocal in the rule of log_p, from "
        "finite numbers."), text
    assert "grad_x" not in text and " y " not in text


def test_the_warning_names_the_cotangent_that_first_holds_infinity_and_its_operation():
    """Lesson nets_4 (softmax, then log), J of ce w.r.t. logits: the warning said "It first
    appears in the gradient of log_p (log) … as in 0 · ∞ or 1 / 0", but the cotangent of
    log_p is finite ([-1, 0, 0]); the -∞ is p's cotangent, which log's rule computes as
    -1 / 0 where p underflowed to 0."""
    from gradviz.bundled import sample
    doc = graph.load(sample("nets_4_softmax_then_log"))
    doc.studies = {"jacobian": {"target": "ce", "source": "logits"}}
    (text,) = _messages(doc)
    assert text.endswith(
        "It first appears in the cotangent of p, from the rule of log_p (log): log's rule "
        "grad_p = grad / p: at p[0, 0] it computes −1 / 0 = −∞ from finite numbers (p is 0 "
        "in 1 of 3 entries)."), text
    assert "gradient of log_p" not in text and "0 · ∞" not in text


def test_the_first_nan_named_is_one_that_feeds_the_bad_input():
    """x = [0, 2]; e = log(x) feeds only a side node s; t = sqrt(x - 3); m = x · t. J of m
    holds NaN from t (sqrt of -3, -1): the warning said the first NaN is made 'by e (log)',
    the first op anywhere on the tape to turn finite numbers into non-finite ones, although
    e never reaches m. The origin is now found by walking back from the bad input."""
    doc = graph.Document()
    doc.add(Node("x", VARIABLE, value=np.asarray([0.0, 2.0], np.float32)))
    doc.add(Node("c", CONSTANT, value=np.float32(3.0)))
    for node, op in (("e", "log"), ("s", "negative"), ("d", "subtract"), ("t", "sqrt"),
                     ("m", "multiply")):
        doc.add(Node(node, OP, op=op))
    for src, dst, k in (("x", "e", 0), ("e", "s", 0), ("x", "d", 0), ("c", "d", 1),
                        ("d", "t", 0), ("x", "m", 0), ("t", "m", 1)):
        doc.connect(src, dst, dst_index=k)
    doc.targets, doc.sources = [Port("m"), Port("s")], [Port("x")]
    doc.studies = {"jacobian": {"target": "m", "source": "x"}}
    (text,) = _messages(doc)
    assert text.endswith(
        "It first appears in the cotangent of x, from the rule of m (multiply): multiply's "
        "rule reads t, which "
        "already holds NaN or infinity. That NaN or infinity is made in the forward "
        "pass, by t (sqrt) from finite numbers: see the node's warning."), text
