"""GradientTape._relevant: the (op, needs) a gradient call takes from what apply noted at
recording time must be what _relevant_entries finds by its scan, and the tape must fall
back to the scan where the two could differ."""
import numpy as np

import gradviz as tf
from gradviz.engine.backward import _relevant_entries, backward


def _scan(tape, sources):
    ids = {s._id for s in sources if s._value.dtype.kind == "f" and s._id in tape._tracked}
    return _relevant_entries(tape._entries, ids)[0]


def _agrees(tape, sources):
    known = tape._relevant(sources)
    assert known is not None, "the recorded needs should serve this tape"
    assert [(op, needs) for op, needs in known] == _scan(tape, sources)
    return known


def test_recorded_needs_equal_the_scan_on_programs_of_every_arity():
    x = tf.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    w = tf.Variable(np.full((3, 2), 0.5, np.float32))
    k = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x + 1.0                                    # the same input twice, a constant
        z = tf.matmul(y, w)                                # an accessed Variable, watched
        c = tf.where(x > 0, y, k)                          # three inputs, a bool, untrainable
        i = tf.cast(y, tf.int32)                           # a floating input, an int output
        u = tf.cast(i, tf.float32) * x                     # an int input
        m = tf.clip_by_value(c, x, 2.0)                    # three inputs
        loss = tf.reduce_sum(z) + tf.reduce_sum(u) + tf.reduce_sum(m)
    known = _agrees(tape, [x, w])
    assert len(known) == len(tape._entries)
    # the gradients themselves, through the recorded needs, against the scan's
    for sources in ([x, w], [w, x], [x, w, y]):
        fast = tape.gradient(loss, sources)
        slow = backward(tape._entries, [loss], [None], sources, 0, None, _scan(tape, sources),
                        on_tape=tape._tracked)
        for a, b in zip(fast, slow):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_the_scan_serves_where_recorded_needs_could_differ():
    x = tf.constant([1.0, 2.0])
    v = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * v
        tape.watch(v)                  # watched after an op that read it was recorded
        z = y * v
    assert tape._relevant([x, v]) is None
    np.testing.assert_allclose(tape.gradient(z, v).numpy(), 2 * x.numpy() * v.numpy())

    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, v])
        y = x * v
    assert tape._relevant([x]) is None  # a watched tensor that is not a source
    assert tape._relevant([x, v]) is not None

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x * 2.0)  # an op whose outputs stay off the tape
    assert tape._relevant([x]) is None
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * x.numpy())

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x                  # recorded on two tapes: no one op._needs
        g = inner.gradient(y, x)
    assert inner._relevant([x]) is None and outer._relevant([x]) is None
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), 6 * x.numpy())
