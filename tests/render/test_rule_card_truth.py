"""A rule card is true as written (issue 20 §1), over every sample and every step.

- A broadcasting op's rule said 'grad_delta = grad' beside a 201-entry upstream and the
  contribution 9.999 (lesson 15, step 5): where the engine sums the rule's output over the
  axes an input was broadcast along, the rule, the caption and `gradviz explain` say that
  sum, over what, and name the input.
- Softmax's 'Σ grad·A' did not say the Σ is taken in each row (lesson 34, step 8).
- The cross-entropy card listed 'labels = [1 0 0]' twice (lesson 31, step 3): in the
  where line and in the rule's own rows.
- conv2d's card drew the padded upstream and the flipped filter with numbers and the
  contribution, the answer, as a 5x5 colour thumbnail (lesson 25, step 3): one card, one form.
- A lesson quoted softmax's rule as 'A · (grad − Σ grad·A)' beside the card's per-row rule
  (lesson 34): a rule a lesson quotes is its card's.
"""
import re

import numpy as np
import pytest

from gradviz.render import legible, tiles
from gradviz.story.formula_parts import formula_parts
from gradviz.graph.operands import brief
from gradviz.story.text import explain

from samples_util import NAMES, renderer, sample

# Ops whose rule gives a contribution of the output's (broadcast) shape, which the engine
# sums to the input's shape: TF's BroadcastGradientArgs + reduce_sum.
BROADCASTING = frozenset(("AddV2", "Sub", "Mul", "MulNoNan", "RealDiv", "Pow", "Maximum",
                          "Minimum", "SelectV2", "ClipByValue", "Masked", "SquaredDifference",
                          "BiasAdd", "TanhGrad", "ReluGrad", "SigmoidGrad", "EluGrad",
                          "SqrtGrad", "ReciprocalGrad"))


def _lhs_name(formula):
    return formula.split("=", 1)[0].strip().removeprefix("grad_")


def broadcast_steps(story):
    """(step, how many upstream entries each entry of its contribution sums) of every
    contribution of a broadcasting op whose input is smaller than the upstream."""
    for step in story.steps:
        op = step._op
        if step.kind != "contribution" or op is None or op.type not in BROADCASTING:
            continue
        upstream = step.operands.get("grad")
        if upstream is None or isinstance(upstream, list):
            continue
        if np.size(upstream) != np.size(step.cotangent):
            yield step, np.size(upstream) // max(1, np.size(step.cotangent))


def assert_says_the_sum(step, count):
    formula = step.formula
    name = _lhs_name(formula)
    where = (step.index + 1, step.title, formula)
    assert re.match(r"^grad_\S+ = Σ ", formula), where
    said = re.search(r", summed over (.+)$", formula)
    assert said, where
    assert re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", said.group(1)), where
    summed = [int(n) for n in re.findall(r"\d+", said.group(1))]
    assert count in summed or int(np.prod([n for n in summed if n > 1] or [1])) == count, where
    assert formula in step.caption, (where, step.caption)
    # the words name the input; its value is no term of the rule: the where line leaves it out
    # (lesson 15's card said 'where delta = 0.000' beside 'Σ grad')
    math = formula.split("=", 1)[1].split(", summed over")[0]
    if not re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", math):
        listed = [p[2] for p in formula_parts(step) if p[0] == "array" and len(p) > 3]
        assert name not in listed, (where, listed)


@pytest.mark.parametrize("name", NAMES)
def test_a_broadcast_input_s_rule_says_its_sum(name):
    """Every contribution to an input that was broadcast says Σ and what it sums over,
    naming the input; `gradviz explain` prints that rule; equal shapes keep the plain rule."""
    _, story = sample(name)
    told = explain(story, provenance_entries=False, studies=False)
    for step, count in broadcast_steps(story):
        assert_says_the_sum(step, count)
        assert f"rule: {step.formula}\n" in told, step.formula
    for step in story.steps:
        if step.kind == "contribution" and step._op is not None and step._op.type in BROADCASTING \
                and np.shape(step.cotangent) == np.shape(step._op._out_values[0]):
            assert "summed over" not in (step.formula or ""), (step.index + 1, step.formula)


@pytest.mark.parametrize("name", NAMES)
def test_a_card_s_local_rule_is_the_equation_and_its_rule_line_all(name):
    """The words that say over what a Σ runs are the rule's own part (its scope), written on
    the card's rule line after the equation; the card's middle part, upstream ⊗ local rule,
    is the equation's right side alone: no words are appended to the rule and then cut off."""
    r = renderer(name)
    scoped = 0
    for step in r.story.steps:
        if step.kind != "contribution" or not step.formula:
            continue
        where = (name, step.index + 1, step.formula)
        assert step.formula == step.equation or step.formula.startswith(f"{step.equation}, "), where
        scoped += step.formula != step.equation
        rules = [p[1] for p in formula_parts(step) if p[0] == "text" and p[2] == "local rule"]
        assert rules in ([], [step.equation.split("=", 1)[1].strip()]), (where, rules)
        # the rule line is the formula; its own letter may say which node it is, as the
        # card heads its operands (test_rule_card_letters): 'grad_a (tokens x) = grad @ w_qᵀ'
        lhs = step.formula.split("=", 1)[0].strip()
        node = brief((step.operand_nodes or {}).get(lhs.removeprefix("grad_"), ""), step.title)
        line = " ".join(r.formula_layout(step).formula).replace("  ", " ")
        assert line in (step.formula, step.formula.replace(lhs, f"{lhs} ({node})", 1)), where
    if name in ("001_sigmoid_jacobian", "nets_6_attention"):
        assert scoped, name


def test_the_samples_broadcast_somewhere():
    """The test above has cases to check: the sigmoid lesson's scalar delta at least."""
    found = {name: [s.formula for s, _ in broadcast_steps(sample(name)[1])] for name in NAMES}
    assert found["001_sigmoid_jacobian"] == [
        "grad_delta = Σ grad, summed over the 201 entries delta was broadcast to"]
    assert sum(map(len, found.values())) >= 3, found


@pytest.mark.parametrize("name", NAMES)
def test_softmax_s_sum_is_said_per_row(name):
    """Softmax's rule takes Σ along the last axis: on a matrix, per row."""
    _, story = sample(name)
    for step in story.steps:
        if step.kind == "contribution" and step.op_type in ("Softmax", "LogSoftmax") \
                and np.ndim(step._op._out_values[0]) == 2:
            assert step.formula.endswith(", per row i"), step.formula
            assert "Σ_j grad[i,j]" in step.formula, step.formula


def test_attention_s_softmax_rule():
    _, story = sample("nets_6_attention")
    rules = [s.formula for s in story.steps if s.op_type == "Softmax" and s.kind == "contribution"]
    assert rules == ["grad_S = A · (grad - Σ_j grad[i,j]·A[i,j]), per row i"]


def listed_names(parts):
    """The names a rule card gives a value in its lines 'name = …': its where line's
    operands, its rule rows ('labels =' before a picture) and its defined symbols."""
    names = []
    for i, part in enumerate(parts):
        if part[0] == "array" and len(part) > 3:
            names.append(part[2])
        elif part[0] == "word" and part[1].endswith(" =") and i + 1 < len(parts) \
                and parts[i + 1][0] in ("picture", "array"):
            names.append(part[1].removesuffix(" =").split(" = ")[0].strip())
        elif part[0] == "word" and " = " in part[1]:
            names.append(part[1].split(" = ")[0].strip())
    return names


@pytest.mark.parametrize("name", NAMES)
def test_no_card_lists_a_name_twice(name):
    _, story = sample(name)
    for step in story.steps:
        names = listed_names(formula_parts(step))
        assert len(names) == len(set(names)), (name, step.index + 1, step.title, names)


def _numbered(shown):
    """Does this picture write its numbers at the zoom the player shows steps at?"""
    if shown.kind == "tiles":
        return shown.numbers_from <= legible.readable_zoom() * (1 + tiles.ZOOM_SLACK)
    return shown.kind in ("scalar", "grid", "ellipsis")


@pytest.mark.parametrize("name", NAMES)
def test_a_contribution_is_numbered_where_a_larger_part_is(name):
    """Within one rule card: if a part of "upstream ⊗ rule = contribution" writes its
    numbers, a contribution with no more cells writes its numbers too."""
    r = renderer(name)
    for step in r.story.steps:
        if step.kind != "contribution":
            continue
        layout = r.formula_layout(step)      # as the canvas lays it out (filters read as in → out)
        equation = [(part, shown) for part, shown, *_ in layout.placed
                    if part[0] in ("array", "picture") and not (part[0] == "array" and len(part) > 3)]
        numbered = [np.size(part[1]) for part, shown in equation if _numbered(shown)]
        for part, shown in equation:
            if part[0] == "array" and part[2] == "contribution" and numbered \
                    and np.size(part[1]) <= max(numbered):
                assert _numbered(shown), (name, step.index + 1, step.title, np.shape(part[1]))


def test_a_captured_scripts_broadcasts_are_summed_in_its_rules():
    """y = x * w (w a scalar), z = reduce_sum(y + b) (b 2x1): grad_b sums the 3 columns,
    grad_w all 6 entries, in the story and in `gradviz explain`."""
    import gradviz as tf
    from broadcast_script import scaled_plus_bias
    from gradviz.story import build
    tape, x, y, z, w, b = scaled_plus_bias()
    doc = tf.capture(tape, z, [w, b])
    story = build(doc.document)
    rules = {s.tensor_name: s.formula for s in story.steps if s.kind == "contribution"}
    assert rules["b"] == "grad_b = Σ grad, summed over the 3 columns b was broadcast along"
    assert rules["w"] == "grad_w = Σ grad · x, summed over the 6 entries w was broadcast to"
    assert rules["y"] == "grad_y = grad"
    told = explain(story, studies=False)
    for name in ("b", "w"):
        assert f"rule: {rules[name]}\n" in told
    gradients = {s.tensor_name: s.cotangent for s in story.steps if s.kind == "accumulate"}
    np.testing.assert_allclose(gradients["w"], 12.0)
    np.testing.assert_allclose(gradients["b"], [[3.0], [3.0]])


def test_a_batched_matmul_s_broadcast_operand_says_its_sum():
    """a (3x2x2) @ b (2x3): b was broadcast along a's batch axis, so its contribution sums
    the 3 products aᵀ @ grad of the batch (the engine sums MatMul's rule as any other)."""
    import gradviz as tf
    from gradviz.story import build
    a = tf.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[1.0, 0.0], [0.0, 1.0]]])
    b = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape() as tape:
        z = tf.reduce_sum(a @ b)
    story = build(tf.capture(tape, z, [b]).document)
    rules = [s.formula for s in story.steps if s.kind == "contribution" and s.op_type == "MatMul"]
    assert rules == ["grad_b = Σ aᵀ @ grad, summed over axis 0 (3 long), which b was broadcast along"]


def _lesson_rule_quotes(doc, story):
    """(op word, the lesson's text after "<op>'s rule ", the rules its cards write) of every
    rule a lesson quotes by its op's name ("MatMul's rule grad @ tf_bᵀ turns ...") where the
    story has cards of that op ('the fused op's rule' and square's in a story with no square
    card quote none)."""
    text = " ".join((doc.lesson or "").split())
    for m in re.finditer(r"(\w+)'s rule ", text):
        rules = {s.formula for s in story.steps if s.kind == "contribution" and s.formula
                 and s.op_type.lower() == m.group(1).lower()}
        if rules:
            yield m.group(1), text[m.end():], rules


def test_a_lesson_quotes_a_rule_as_its_card_writes_it():
    """Lesson 34 wrote softmax's rule 'A · (grad − Σ grad·A)' beside cards that say
    'grad_S = A · (grad - Σ_j grad[i,j]·A[i,j]), per row i'; lesson 32 wrote 'y · (grad −
    Σ grad·y)' beside a card that says p, lesson 2 'grad @ bᵀ' beside 'grad_tf_t = grad @
    tf_bᵀ'. A rule a lesson quotes by its op's name is its card's, as the card writes it
    (the right side, or the whole rule), with the Σ's scope."""
    quoted = []
    for name in NAMES:
        doc, story = sample(name)
        for word, after, rules in _lesson_rule_quotes(doc, story):
            sides = {r.split("=", 1)[1].strip() for r in rules} | rules
            assert any(after.startswith(side) for side in sides), (name, word, after[:80], rules)
            quoted.append((name, word))
    assert {("nets_6_attention", "softmax"), ("nets_4_softmax_then_log", "softmax"),
            ("nets_4_softmax_then_log", "log"), ("004_single_element", "MatMul")} <= set(quoted)


@pytest.mark.parametrize("name", NAMES)
def test_no_lesson_writes_a_sum_per_row_without_its_index(name):
    """Where a card indexes softmax's Σ per row ('Σ_j grad[i,j]·A[i,j]'), the lesson's text
    never writes the old un-indexed form ('Σ grad·A'), quoted or not."""
    doc, story = sample(name)
    text = " ".join((doc.lesson or "").split()).replace("−", "-")
    for step in story.steps:
        indexed = re.search(r"Σ_\w+ (\S+?\[[^\]]*\](?:·\S+?\[[^\]]*\])?)", step.equation or "")
        if step.kind == "contribution" and indexed:
            plain = "Σ " + re.sub(r"\[[^\]]*\]", "", indexed.group(1))
            assert plain not in text, (name, plain, step.formula)
