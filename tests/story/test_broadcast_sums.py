"""A broadcast input's rule says the sum the engine took for that input, not another's.

The engine reports a sum with the op and the input it belongs to (Observer.summed), before
that input's contribution; the recorder gives each contribution the sum reported for its own
(op, input), whatever was reported in between. Ops whose inputs are broadcast differently
(along rows, along columns, a scalar to all) show a sum given to the wrong input at once.
"""
import numpy as np

import gradviz as tf
from gradviz.story import from_tape
from gradviz.story.recorder import Recorder
from gradviz.story.rule_sums import Rule, broadcast_sum, per_row


def test_each_contribution_takes_the_sum_reported_for_its_own_input():
    """Guards the contract, not a failure seen from the engine: backward reports each sum
    just before that input's contribution, and a contribution takes only the sum reported
    for its own (op, input). Reported out of that order here (both inputs of one op before
    either contribution, another op's sum in between), each still takes its own shape and
    the op met again none."""
    x, w = tf.constant([[1.0, 2.0, 3.0]]), tf.constant([[1.0], [2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = x + w
    add, other = z.op, object()
    r = Recorder()
    r.summed(add, 1, (2, 3))
    r.summed(add, 0, (2, 3))
    r.summed(other, 0, (4,))
    r.contribution(add, 0, np.ones((1, 3)))
    r.contribution(add, 1, np.ones((2, 1)))
    r.contribution(add, 1, np.ones((2, 1)))      # the op met again: its sum was taken already
    r.contribution(other, 0, np.ones(1))
    assert [e.summed_from for e in r.events] == [(2, 3), (2, 3), None, (4,)]


def test_inputs_broadcast_differently_each_say_their_own_sum():
    """s = where(cond, x, y) with y a scalar; t = clip_by_value(s, lo, hi) with lo a row and
    hi a column; u = b + t * w with b a column (add's first input) and w a row (multiply's
    second); d = u - c with c a row (sub's second): every rule sums over its own input's
    axes, and the inputs of the op's shape keep the plain rule."""
    x = tf.Variable([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]])
    y = tf.Variable(0.5)
    lo, hi = tf.Variable([-1.0, 0.0, -1.0]), tf.Variable([[2.0], [3.0]])
    w, b, c = tf.Variable([[2.0, 3.0, 4.0]]), tf.Variable([[0.5], [-0.5]]), tf.Variable([1.0, -1.0, 2.0])
    cond = tf.constant([[True, False, True], [False, True, True]])
    with tf.GradientTape() as tape:
        s = tf.where(cond, x, y)
        t = tf.clip_by_value(s, lo, hi)
        tw = t * w
        u = b + tw
        d = u - c
        z = tf.reduce_sum(d)
    names = dict(x=x, y=y, lo=lo, hi=hi, w=w, b=b, c=c, s=s, t=t, tw=tw, u=u, d=d, z=z)
    story = from_tape(tape, z, [x, y, lo, hi, w, b, c], names=names)
    rules = {s.tensor_name: s.formula for s in story.steps if s.kind == "contribution"}
    assert rules == {
        "d": "grad_d = broadcast(grad)",
        "u": "grad_u = grad",
        "c": "grad_c = Σ (-grad), summed over the 2 rows c was broadcast along",
        "b": "grad_b = Σ grad, summed over the 3 columns b was broadcast along",
        "tw": "grad_tw = grad",
        "t": "grad_t = grad · w",
        "w": "grad_w = Σ grad · t, summed over the 2 rows w was broadcast along",
        "s": "grad_s = grad where lo ≤ s ≤ hi",
        "lo": "grad_lo = Σ (grad where s < lo), summed over the 2 rows lo was broadcast along",
        "hi": "grad_hi = Σ (grad where s > hi), summed over the 3 columns hi was broadcast along",
        "x": "grad_x = grad where condition",
        "y": "grad_y = Σ (grad where not condition), summed over the 6 entries y was broadcast to",
    }
    # and each contribution has its input's shape: the sums the rules say are the ones taken
    shapes = {s.tensor_name: np.shape(s.cotangent) for s in story.steps if s.kind == "contribution"}
    assert shapes == {"d": (2, 3), "u": (2, 3), "c": (3,), "b": (2, 1), "tw": (2, 3), "t": (2, 3),
                      "w": (1, 3), "s": (2, 3), "lo": (3,), "hi": (2, 1), "x": (2, 3), "y": ()}
    gradients = {s.tensor_name: s.cotangent for s in story.steps if s.kind == "accumulate"}
    np.testing.assert_allclose(gradients["hi"], [[4.0], [7.0]])
    np.testing.assert_allclose(gradients["w"], [[1.5, 3.5, 5.0]])
    np.testing.assert_allclose(gradients["y"], 5.0)


def test_a_rule_keeps_its_scope_apart_from_its_equation():
    """The words that say over what a Σ runs are the rule's scope, not part of its equation
    (whose names are values the card lists): a broadcast sum's and softmax's per row. The
    rule carries its two sides apart: the card's local rule is its right side, a lesson
    quotes that with its scope (formula.py and build_nets split the text before)."""
    summed = broadcast_sum(Rule.parse("grad_delta = grad"), (201,), (), summed_from=(201,))
    assert summed == Rule("grad_delta", "Σ grad", "summed over the 201 entries delta was broadcast to")
    assert summed.equation == "grad_delta = Σ grad"
    assert summed.text == "grad_delta = Σ grad, summed over the 201 entries delta was broadcast to"
    rows = per_row("grad_x = y · (grad - Σ grad·y)", "Softmax", (4, 4)).renamed({"x": "S", "y": "A"})
    assert rows == Rule("grad_S", "A · (grad - Σ_j grad[i,j]·A[i,j])", "per row i")
    assert rows.right == "A · (grad - Σ_j grad[i,j]·A[i,j]), per row i"
    assert broadcast_sum(rows, (4, 4), (4, 4)) is rows
    plain = broadcast_sum(Rule.parse("grad_x = grad"), (2, 3), (2, 3))
    assert plain == Rule("grad_x", "grad") and plain.text == "grad_x = grad"
    said = Rule.parse("indices: no gradient")      # a rule text with no equation is all said
    assert said == Rule("", "indices: no gradient") and said.text == said.equation == said.right
    many = Rule.parse("grad_a = grad · a / ‖a‖, 0 where grad = 0 even at ‖a‖ = 0")
    assert many.rhs == "grad · a / ‖a‖, 0 where grad = 0 even at ‖a‖ = 0"
