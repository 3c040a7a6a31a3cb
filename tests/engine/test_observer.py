"""The backward pass reports each step to an optional Observer (what the story layer plays)."""
import numpy as np

import gradviz as tf
from broadcast_script import scaled_plus_bias

MAT = [[0.8363, 0.4719, 0.9783],
       [0.3379, 0.6548, 0.3835],
       [0.7846, 0.9173, 0.2393],
       [0.5418, 0.3875, 0.4276],
       [0.0948, 0.2637, 0.8039]]
ANOTHER_MAT = [[0.43842274, -0.53439844, -0.07710262],
               [1.5658046, -0.1012345, -0.2744976],
               [1.4204658, 1.2609464, -0.43640924]]


class Log(tf.Observer):
    """Writes every call down as (kind, *arguments)."""

    def __init__(self):
        self.calls = []

    def seed(self, target, cotangent, given):
        self.calls.append(("seed", target, cotangent.numpy(), given))

    def visit(self, op, upstream):
        self.calls.append(("visit", op, [None if u is None else u.numpy() for u in upstream]))

    def contribution(self, op, index, cotangent):
        self.calls.append(("contribution", op, index, cotangent.numpy()))

    def fan_in(self, tensor, contributions, total):
        self.calls.append(("fan_in", tensor, [c.numpy() for c in contributions], total.numpy()))

    def cut(self, op, index):
        self.calls.append(("cut", op, index))

    def summed(self, op, index, shape):
        self.calls.append(("summed", op, index, shape))

    def accumulate(self, source, total):
        self.calls.append(("accumulate", source, None if total is None else total.numpy()))

    def kinds(self):
        return [c[0] for c in self.calls]

    def of(self, kind):
        return [c for c in self.calls if c[0] == kind]


def test_seed004_story():
    tf_t = tf.Variable(tf.convert_to_tensor(MAT))
    tf_b = tf.Variable(tf.convert_to_tensor(ANOTHER_MAT))
    with tf.GradientTape() as tape:
        tape.watch(tf_t)
        y_tf = tf.matmul(tf_t, tf_b)
        y_t0 = y_tf[0, 0]  # recorded, but no cotangent reaches it: never visited
    log = Log()
    dy_dx = tape.gradient(y_tf, tf_t, observer=log)

    # Only the VJPs a requested source needs are computed: none for tf_b.
    assert log.kinds() == ["seed", "visit", "contribution", "accumulate"]
    _, target, cotangent, given = log.calls[0]
    assert target is y_tf and given is False
    np.testing.assert_array_equal(cotangent, np.ones((5, 3), np.float32))

    _, op, upstream = log.calls[1]
    assert op is y_tf.op and op.type == "MatMul"
    assert len(upstream) == 1
    np.testing.assert_array_equal(upstream[0], np.ones((5, 3)))

    _, op, index, cotangent = log.calls[2]
    assert index == 0
    np.testing.assert_array_equal(cotangent, dy_dx.numpy())
    np.testing.assert_allclose(cotangent, [[-0.17307831, 1.1900724, 2.245003]] * 5, rtol=1e-6)
    _, source, total = log.calls[3]
    assert source is tf_t
    np.testing.assert_array_equal(total, dy_dx.numpy())
    assert y_t0.op.type == "StridedSlice"


def test_both_matmul_inputs_when_both_are_requested():
    tf_t = tf.Variable(tf.convert_to_tensor(MAT))
    tf_b = tf.Variable(tf.convert_to_tensor(ANOTHER_MAT))
    with tf.GradientTape() as tape:
        y_tf = tf.matmul(tf_t, tf_b)
    log = Log()
    tape.gradient(y_tf, [tf_t, tf_b], observer=log)
    assert log.kinds() == ["seed", "visit", "contribution", "contribution", "accumulate",
                           "accumulate"]
    _, _, index, cotangent = log.calls[3]
    assert index == 1
    np.testing.assert_allclose(cotangent, np.array(MAT, np.float32).T @ np.ones((5, 3)),
                               rtol=1e-6)


def test_fan_in_reports_every_contribution_and_their_sum():
    x = tf.Variable(0.7)
    with tf.GradientTape() as t:
        y = x * x + tf.sin(x)
    log = Log()
    g = t.gradient(y, x, observer=log)
    fan_ins = [c for c in log.of("fan_in") if c[1] is x]
    assert len(fan_ins) == 1
    _, _, contributions, total = fan_ins[0]
    assert len(contributions) in (2, 3)  # x·x gives two (one per input), sin one
    np.testing.assert_allclose(sum(contributions), total, rtol=1e-6)
    np.testing.assert_allclose(total, 2 * 0.7 + np.cos(0.7), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), total)
    assert log.calls[-1][0] == "accumulate"
    # Every contribution is reported before the sum that uses it.
    assert log.kinds().index("fan_in") > max(i for i, k in enumerate(log.kinds())
                                            if k == "contribution")


def test_single_consumer_reports_no_fan_in():
    x = tf.Variable(0.7)
    with tf.GradientTape() as t:
        y = tf.sin(x)
    log = Log()
    t.gradient(y, x, observer=log)
    assert log.of("fan_in") == []


def test_stop_gradient_reports_a_cut():
    x = tf.Variable(2.0)
    with tf.GradientTape() as t:
        s = tf.stop_gradient(x * x)
        z = s + x
    log = Log()
    g = t.gradient(z, x, observer=log)
    np.testing.assert_allclose(g.numpy(), 1.0)
    cuts = log.of("cut")
    assert len(cuts) == 1
    _, op, index = cuts[0]
    assert op is s.op and op.type == "StopGradient" and index == 0


def test_output_gradients_seed_is_given():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    log = Log()
    grad = g.gradient(y, x, output_gradients=tf.constant([2.0, 3.0]), observer=log)
    np.testing.assert_array_equal(grad.numpy(), [4.0, 12.0])
    seeds = log.of("seed")
    assert len(seeds) == 1
    _, target, cotangent, given = seeds[0]
    assert target is y and given is True
    np.testing.assert_array_equal(cotangent, [2.0, 3.0])


def test_unconnected_source_is_accumulated_as_none():
    x = tf.Variable(2.0)
    other = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = x * 3.0
    log = Log()
    t.gradient(y, [x, other], observer=log)
    accumulated = log.of("accumulate")
    assert [c[1] for c in accumulated] == [x, other]
    assert accumulated[1][2] is None


def test_observer_sees_the_same_values_when_an_outer_tape_records():
    """With an outer tape the backward pass runs gradviz ops; the story is the same."""
    x = tf.Variable(0.7)
    logs = []
    for nested in (False, True):
        log = Log()
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = x * x + tf.sin(x)
            if nested:
                inner.gradient(y, x, observer=log)
        if not nested:
            inner.gradient(y, x, observer=log)
        logs.append(log)
    assert logs[0].kinds() == logs[1].kinds()
    for a, b in zip(logs[0].calls, logs[1].calls):
        arrays = [v for v in a[2:] if isinstance(v, np.ndarray)]
        others = [v for v in b[2:] if isinstance(v, np.ndarray)]
        for u, v in zip(arrays, others):
            np.testing.assert_allclose(u, v, rtol=1e-6)


def test_a_broadcast_input_s_sum_is_reported_before_its_contribution():
    """x (2x3) * w (a scalar) + b (2x1): the rule gives w and b contributions of the output's
    shape, which the engine sums to theirs (the story writes that Σ on the rule card); x's
    has its shape already and is not reported."""
    tape, _, y, z, w, b = scaled_plus_bias()
    log = Log()
    tape.gradient(z, [w, b], observer=log)
    calls = [c[:3] + c[3:4] if c[0] == "summed" else c[:3] for c in log.calls
             if c[0] in ("summed", "contribution")]
    add, mul = z.op.inputs[0].op, y.op
    assert calls == [("contribution", z.op, 0), ("contribution", add, 0),
                     ("summed", add, 1, (2, 3)), ("contribution", add, 1),
                     ("summed", mul, 1, (2, 3)), ("contribution", mul, 1)]
