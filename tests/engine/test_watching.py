"""What a tape watches, and what gets a gradient: only what it watched or made.

TF's tape (tape.h, ComputeGradient) drops the gradient of a tensor that is on no tape
once the ops that read it are done, so a constant that was never watched gets None
(zeros with unconnected_gradients='zero') even where a recorded op read it.
"""
import numpy as np
import pytest

import gradviz as tf


def test_unwatched_constant_next_to_a_watched_one_gets_none():
    """The issue's example: TF gives [3.0, None]."""
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    dx, dc = tape.gradient(y, [x, c])
    np.testing.assert_allclose(dx.numpy(), 3.0)
    assert dc is None
    assert tape.gradient(y, c) is None  # the one-source fast path too
    dx, dc = tape.gradient(y, [x, c], unconnected_gradients='zero')
    np.testing.assert_allclose(dx.numpy(), 3.0)
    assert dc.numpy() == 0.0 and dc.dtype == tf.float32


def test_unwatched_constant_with_output_gradients_and_observer_gets_none():
    x, c = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * c * c)
    seen = []

    class Seen(tf.Observer):
        def accumulate(self, source, total):
            seen.append(total)

    dx, dc = tape.gradient(y, [x, c], output_gradients=tf.constant(2.0), observer=Seen())
    np.testing.assert_allclose(dx.numpy(), [18.0, 32.0])
    assert dc is None and seen[1] is None


def test_unwatched_variable_under_watch_accessed_variables_false_gets_none():
    v, w = tf.Variable(2.0), tf.Variable(5.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    dv, dw = tape.gradient(y, [v, w])
    assert dv is None
    np.testing.assert_allclose(dw.numpy(), 2.0)
    assert tape.watched_variables() == (w,)


def test_non_trainable_variable_read_by_a_recorded_op_gets_none():
    """It is not auto-watched (not trainable), so TF drops its gradient."""
    x = tf.Variable(2.0)
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape() as t:
        z = x * frozen
    g = t.gradient(z, [x, frozen], unconnected_gradients='zero')
    np.testing.assert_allclose([g[0].numpy(), g[1].numpy()], [5.0, 0.0])
    assert t.watched_variables() == (x,)


def test_jacobian_of_an_unwatched_source_is_none_or_zeros():
    x = tf.constant([1.0, 2.0])
    c = tf.constant([3.0, 4.0, 5.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x[:, None] * c[None, :]           # (2, 3)
    jx, jc = tape.jacobian(y, [x, c])
    assert jc is None and jx.shape == (2, 3, 2)
    np.testing.assert_allclose(jx.numpy()[1, 2], [0.0, 5.0])
    jc = tape.jacobian(y, c, unconnected_gradients='zero')
    assert jc.shape == (2, 3, 3) and not jc.numpy().any()
    assert tape.jacobian(c, c) is None     # TF: the gathered rows of c are on no tape


def test_batch_jacobian_of_an_unwatched_source_is_zeros():
    """TF's batch_jacobian answers zeros where no gradient flows (see test_jacobian_edges)."""
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    c = tf.constant([[3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    np.testing.assert_allclose(tape.batch_jacobian(y, x).numpy()[1], np.diag([5.0, 6.0]))
    j = tape.batch_jacobian(y, c)
    assert j.shape == (2, 2, 2) and not j.numpy().any()


def test_nested_tapes_watched_on_the_inner_tape_only():
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch([x, c])
            y = x * c * c
    dx, dc = inner.gradient(y, [x, c])
    np.testing.assert_allclose([dx.numpy(), dc.numpy()], [9.0, 12.0])
    dx, dc = outer.gradient(y, [x, c])
    np.testing.assert_allclose(dx.numpy(), 9.0)
    assert dc is None
    np.testing.assert_allclose(
        outer.gradient(y, c, unconnected_gradients='zero').numpy(), 0.0)


def test_second_derivative_of_a_source_watched_on_the_inner_tape_only():
    """d/dc of inner's dy/dx, on an outer tape that watches x only: None (c is not on it)."""
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch([x, c])
            y = x * x * c
        g = inner.gradient(y, x)               # 2xc, recorded on outer through x
    np.testing.assert_allclose(g.numpy(), 12.0)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), 6.0)
    assert outer.gradient(g, c) is None


def test_source_that_is_a_target_keeps_its_seed_unless_an_op_read_it():
    """tape.h: a target that is also a source starts with ones even off the tape; but a
    tensor on no tape loses its gradient (seed included) once the ops that read it are
    done, so TF answers None for [y, c] with y = x * c."""
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    np.testing.assert_allclose(tape.gradient(c, c).numpy(), 1.0)
    np.testing.assert_allclose(tape.gradient(c, c, output_gradients=4.0).numpy(), 4.0)
    assert tape.gradient([y, c], c) is None
    np.testing.assert_allclose(tape.gradient([y, x], x).numpy(), 4.0)


def test_watching_after_the_op_still_gives_the_gradient():
    """TF records an op's input ids whether watched or not; watching later puts the
    tensor on the tape, so the op's gradient for it is kept."""
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * c
        tape.watch(c)
    np.testing.assert_allclose([g.numpy() for g in tape.gradient(y, [x, c])], [3.0, 2.0])


@pytest.mark.parametrize("thing", [np.ones(3), 1.5, [tf.constant(1.0), 2.0], None],
                         ids=["ndarray", "float", "list-with-float", "None"])
def test_watch_of_a_non_tensor_is_a_value_error(thing):
    with tf.GradientTape() as t:
        with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
            t.watch(thing)


def test_watched_variables_in_order_of_construction():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as t:
        _ = b * c + b * a
    assert t.watched_variables() == (a, b, c)
    with tf.GradientTape() as t:
        t.watch([c, a])
        _ = b * 2.0
    assert t.watched_variables() == (a, b, c)


def test_stop_gradient_output_is_on_no_tape():
    """TF pauses its tapes around StopGradient: its output is neither watched nor made by
    a recorded op, so it has no gradient as a source, and an op reading only it is not
    recorded (its backward function never runs)."""
    ran = []

    @tf.custom_gradient
    def spy(x):
        def grad(dy):
            ran.append(dy)
            return dy
        return x * 1.0, grad

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = tf.stop_gradient(x)
        y = s * 3.0
        z = spy(s) + x * x
    assert tape.gradient(y, s) is None
    assert tape.gradient(y, x) is None
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 4.0)
    assert ran == []
    with pytest.raises(AttributeError):
        y.op  # not recorded
    assert s.op.type == "StopGradient"  # recorded, so a document shows where the gradient stops
