"""GradientTape semantics as TensorFlow defines them, and errors that name the problem."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import tape as tape_module


def _watched(value, dtype=None):
    return tf.constant(value, dtype=dtype)


# -- structure of sources, targets and results --------------------------------------------

def test_nested_sources_keep_their_structure():
    x = tf.Variable(2.0)
    y = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        z = x * tf.reduce_sum(y)
    g = t.gradient(z, {'b': y, 'a': [x, (y, x)]})
    assert list(g) == ['b', 'a']  # the caller's key order
    assert isinstance(g['a'], list) and isinstance(g['a'][1], tuple)
    np.testing.assert_allclose(g['a'][0].numpy(), 3.0)
    np.testing.assert_allclose(g['a'][1][0].numpy(), [2.0, 2.0])
    np.testing.assert_allclose(g['a'][1][1].numpy(), 3.0)
    np.testing.assert_allclose(g['b'].numpy(), [2.0, 2.0])
    assert isinstance(t.gradient(z, (x,)), tuple)
    assert isinstance(t.gradient(z, [x]), list)
    assert isinstance(t.gradient(z, x), tf.Tensor)


def test_non_scalar_and_nested_target_is_the_gradient_of_the_sum():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as t:
        a = x * x
        b = tf.sin(x)
        total = tf.reduce_sum(a) + tf.reduce_sum(b) * 2.0
    g_nested = t.gradient([a, {'k': (b, b)}], x)
    np.testing.assert_allclose(g_nested.numpy(), t.gradient(total, x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(t.gradient(a, x).numpy(), [2.0, 4.0, 6.0])


def test_unconnected_sources():
    x = tf.Variable(2.0)
    other = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        z = x * 3.0
    assert t.gradient(z, [x, other])[1] is None
    for zero in ('zero', tf.UnconnectedGradients.ZERO):
        g = t.gradient(z, [x, other], unconnected_gradients=zero)
        np.testing.assert_array_equal(g[1].numpy(), [0.0, 0.0])
        assert g[1].dtype == tf.float32
    j = t.jacobian(z, other, unconnected_gradients='zero')
    np.testing.assert_array_equal(j.numpy(), [0.0, 0.0])
    assert t.jacobian(z, other) is None
    with pytest.raises(ValueError, match="unconnected_gradients"):
        t.gradient(z, x, unconnected_gradients='ones')


def test_integer_tensors_are_not_differentiable():
    i = tf.Variable(3)
    c = tf.constant([1, 2])
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(c)
        z = tf.cast(i, tf.float32) * x + tf.cast(tf.reduce_sum(c), tf.float32)
        k = tf.cast(x, tf.int32)        # the cast to int cuts the gradient
        w = tf.cast(k, tf.float32) * 2.0
    assert t.gradient(z, i) is None
    assert t.gradient(z, c) is None
    assert t.gradient(w, x) is None
    assert t.gradient(k, x) is None
    np.testing.assert_allclose(t.gradient(z, x).numpy(), 3.0)


def test_float_cast_keeps_the_gradient():
    x = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = tf.cast(x, tf.float64) ** 3
    g = t.gradient(y, x)
    assert g.dtype == tf.float32
    np.testing.assert_allclose(g.numpy(), 12.0)


def test_trainable_variables_are_watched_automatically():
    """The example from TF's gradients guide: only x0 is watched."""
    x0 = tf.Variable(3.0, name='x0')
    x1 = tf.Variable(3.0, name='x1', trainable=False)
    x2 = tf.Variable(2.0, name='x2') + 1.0
    x3 = tf.constant(3.0, name='x3')
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    np.testing.assert_allclose(grad[0].numpy(), 6.0)
    assert grad[1:] == [None, None, None]
    assert tape.watched_variables() == (x0,)


def test_non_trainable_variable_can_be_watched_explicitly():
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape() as t:
        t.watch(frozen)
        z = frozen * frozen
    np.testing.assert_allclose(t.gradient(z, frozen).numpy(), 10.0)


def test_watch_accessed_variables_false_watches_none():
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False, persistent=True) as t:
        z = x * y
    assert t.gradient(z, x) is None
    assert t.watched_variables() == ()
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch(y)
        z = x * y
    assert t.watched_variables() == (y,)
    np.testing.assert_allclose(t.gradient(z, y).numpy(), 2.0)


# -- tape lifecycle errors ---------------------------------------------------------------

def test_reentering_an_active_tape_is_a_value_error():
    t = tf.GradientTape()
    with t:
        with pytest.raises(ValueError, match="already recording"):
            with t:
                pass


def test_non_persistent_tape_computes_one_set_of_gradients():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = x * x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 6.0)
    with pytest.raises(RuntimeError, match="persistent"):
        t.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent"):
        t.jacobian(y, x)


def test_argument_errors_do_not_use_up_the_tape():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = x * x
    with pytest.raises(TypeError):
        t.gradient(y, 3.0)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 6.0)


def test_persistent_tape_allows_many_gradients():
    x = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as t:
        y = x * x
        z = y * y
    for _ in range(3):
        np.testing.assert_allclose(t.gradient(y, x).numpy(), 6.0)
    np.testing.assert_allclose(t.gradient(z, x).numpy(), 4 * 27.0)
    np.testing.assert_allclose(t.jacobian(z, x).numpy(), 4 * 27.0)


def test_stop_recording_needs_a_recording_tape():
    t = tf.GradientTape()
    with pytest.raises(RuntimeError, match="not recording"):
        with t.stop_recording():
            pass
    with t:
        with t.stop_recording():
            with pytest.raises(RuntimeError, match="not recording"):
                with t.stop_recording():
                    pass


def test_stop_recording_resumes_afterwards():
    x = tf.Variable(2.0)
    with tf.GradientTape() as t:
        with t.stop_recording():
            a = x * x
        b = x * x * x
    assert t.gradient([a, b], x).numpy() == 12.0


def test_reset_outside_the_context_is_an_error():
    t = tf.GradientTape()
    with pytest.raises(ValueError, match="not recording"):
        t.reset()


def test_gradient_inside_a_non_persistent_context_stops_its_recording():
    """As in TF: asking a non-persistent tape inside its context ends the recording."""
    x = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = x * x
        g = t.gradient(y, x)
        # No tape records this, so it has no op.
        z = g * x
    np.testing.assert_allclose(g.numpy(), 4.0)
    with pytest.raises(AttributeError):
        z.op


def test_persistent_tape_records_its_own_gradient_computation():
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as t:
        y = x * x * x
        dy = t.gradient(y, x)
        d2y = t.gradient(dy, x)
        d3y = t.gradient(t.gradient(t.gradient(y, x), x), x)
    np.testing.assert_allclose([dy.numpy(), d2y.numpy(), d3y.numpy()], [12.0, 12.0, 6.0])


# -- argument errors -----------------------------------------------------------------------

def test_output_gradients_must_have_the_target_shape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        t.gradient(y, x, output_gradients=tf.constant([1.0, 2.0, 3.0]))


def test_output_gradients_must_have_the_target_dtype():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="float32.*float64"):
        t.gradient(y, x, output_gradients=tf.constant([1.0, 1.0], dtype=tf.float64))


def test_output_gradients_count_must_match_the_targets():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="2 tensors.*1"):
        t.gradient(y, x, output_gradients=[tf.ones([2]), tf.ones([2])])


def test_sources_must_be_tensors_or_variables():
    x = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = x * 2.0
    with pytest.raises(TypeError, match="str"):
        t.gradient(y, [x, "x"])


def test_binary_op_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 3\)"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))


def test_python_float_is_not_truncated_next_to_an_integer_tensor():
    with pytest.raises(TypeError, match="0.5.*int32"):
        tf.constant([1, 2]) * 0.5
    np.testing.assert_array_equal((tf.constant([1, 2]) * 2).numpy(), [2, 4])


# -- NaN is never hidden ------------------------------------------------------------------

def test_nan_propagates_through_the_backward_pass():
    x = tf.constant([-1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        with np.errstate(invalid="ignore"):
            y = tf.math.log(x) ** 2
    g = t.gradient(y, x)
    assert np.isnan(g.numpy()[0])   # 2·log(-1)/(-1) = nan
    np.testing.assert_allclose(g.numpy()[1], 2 * np.log(2.0) / 2.0, rtol=1e-6)


def test_log_of_a_negative_number_has_the_closed_form_gradient():
    """d log(x)/dx = 1/x even where log(x) is nan, exactly as TF computes it."""
    x = tf.constant([-1.0])
    with tf.GradientTape() as t:
        t.watch(x)
        with np.errstate(invalid="ignore"):
            y = tf.math.log(x)
    assert np.isnan(y.numpy()[0])
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [-1.0])


def test_nan_input_gives_nan_gradient():
    x = tf.constant([np.nan, 1.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x * x)
    g = t.gradient(y, x).numpy()
    assert np.isnan(g[0]) and g[1] == 2.0


# -- ops as TF shows them ------------------------------------------------------------------

def test_tensor_op_exposes_type_inputs_outputs_and_attrs():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tf.constant([[1.0, 0.0], [2.0, 1.0]])
    with tf.GradientTape() as t:
        t.watch(a)
        c = tf.matmul(a, b, transpose_a=True)
    op = c.op
    assert op.type == "MatMul"
    assert list(op.inputs) == [a, b]
    assert op.outputs == [c]
    assert op.get_attr("transpose_a") is True
    assert op.get_attr("transpose_b") is False
    with pytest.raises(ValueError, match="nope"):
        op.get_attr("nope")
    assert "MatMul" in op.name and "MatMul" in c.name


def test_unrecorded_tensor_has_no_op():
    with pytest.raises(AttributeError, match="not recorded"):
        (tf.constant(1.0) * 2.0).op


# -- jacobian ------------------------------------------------------------------------------

def test_jacobian_chunking_gives_identical_results(monkeypatch):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((4, 3)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((3, 5)).astype(np.float32))

    def run():
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tf.tanh(tf.matmul(x, w))
        return t.jacobian(y, [x, w]), t.batch_jacobian(y, x)

    (jx, jw), jb = run()
    monkeypatch.setattr(tape_module, "JACOBIAN_CHUNK_BYTES", 1)
    (jx_chunked, jw_chunked), jb_chunked = run()
    np.testing.assert_array_equal(jx.numpy(), jx_chunked.numpy())
    np.testing.assert_array_equal(jw.numpy(), jw_chunked.numpy())
    np.testing.assert_array_equal(jb.numpy(), jb_chunked.numpy())
    assert jx.shape == (4, 5, 4, 3) and jw.shape == (4, 5, 3, 5) and jb.shape == (4, 5, 3)


def test_jacobian_equals_rows_of_gradients():
    x = tf.constant([0.3, -1.2, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.stack([x[0] * x[1], tf.sin(x[2]), tf.reduce_sum(x * x)])
        rows = [y[i] for i in range(3)]
    j = t.jacobian(y, x).numpy()
    for i in range(3):
        np.testing.assert_allclose(j[i], t.gradient(rows[i], x).numpy(), rtol=1e-6)


def test_jacobian_of_an_empty_target():
    x = tf.constant(np.zeros((0, 3), np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * 2.0
    assert t.jacobian(y, x).shape == (0, 3, 0, 3)


def test_jacobian_of_a_dict_target():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        out = {'sq': x * x, 'sum': tf.reduce_sum(x)}
    j = t.jacobian(out, [x])
    np.testing.assert_allclose(j['sq'][0].numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(j['sum'][0].numpy(), [1.0, 1.0])


# -- special targets and sources -----------------------------------------------------------

def test_gradient_with_respect_to_an_intermediate_tensor():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = x * x
        z = tf.sin(y)
    dz_dy, dz_dx = t.gradient(z, [y, x])
    np.testing.assert_allclose(dz_dy.numpy(), np.cos(9.0), rtol=1e-6)
    np.testing.assert_allclose(dz_dx.numpy(), np.cos(9.0) * 6.0, rtol=1e-5)


def test_target_is_the_source():
    x = tf.Variable([1.0, 2.0])
    c = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(c)
    np.testing.assert_array_equal(t.gradient(x, x).numpy(), [1.0, 1.0])
    with tf.GradientTape() as t:
        t.watch(c)
    g = t.gradient(c, c, output_gradients=tf.constant([3.0, 4.0]))
    np.testing.assert_array_equal(g.numpy(), [3.0, 4.0])


def test_float64_end_to_end():
    x = tf.Variable(np.array([0.5, 1.5]))  # numpy float64 stays float64, as in TF
    assert x.dtype == tf.float64
    with tf.GradientTape(persistent=True) as t:
        y = tf.reduce_sum(tf.exp(tf.sin(x)) * x)
    g = t.gradient(y, x)
    assert g.dtype == tf.float64
    xs = x.numpy()
    np.testing.assert_allclose(g.numpy(), np.exp(np.sin(xs)) * (np.cos(xs) * xs + 1), rtol=1e-12)
    assert t.jacobian(y, x).dtype == tf.float64


def test_mixing_float32_and_float64_names_both():
    with pytest.raises(TypeError, match="float32.*float64"):
        tf.constant(1.0) + tf.constant(1.0, dtype=tf.float64)


def test_fan_out_accumulates_in_the_sum():
    x = tf.Variable(0.7)
    with tf.GradientTape() as t:
        y = x * x + tf.sin(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 2 * 0.7 + np.cos(0.7), rtol=1e-6)


def test_broadcasting_is_summed_back_to_the_input_shape():
    b = tf.Variable([1.0, 2.0, 3.0])
    s = tf.Variable(2.0)
    x = tf.ones([4, 3])
    with tf.GradientTape() as t:
        y = (x + b) * s
    gb, gs = t.gradient(y, [b, s])
    np.testing.assert_allclose(gb.numpy(), [8.0, 8.0, 8.0])
    np.testing.assert_allclose(gs.numpy(), np.sum(1 + b.numpy()) * 4)


def test_two_sources_from_one_expression_with_reuse():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)  # watching a trainable variable twice is harmless
        y = tf.reduce_sum(x * x * x)
    assert t.watched_variables() == (x,)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [3.0, 12.0])


# -- Variables assigned between the forward and the backward pass --------------------------

def test_assign_before_a_recorded_backward_uses_the_recorded_value():
    """Whether or not an outer tape records the backward pass, v is read as the op saw it."""
    v = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = v * v * v
        v.assign(3.0)
        g = inner.gradient(y, v)
    np.testing.assert_allclose(g.numpy(), 12.0)              # 3·2², not 3·3² or a mix
    np.testing.assert_allclose(outer.gradient(g, v).numpy(), 12.0)  # 6·2


def test_multi_output_ops_give_zeros_for_unused_outputs():
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        a, b = tf.split(x, 2)
        u = tf.unstack(x)
    np.testing.assert_array_equal(t.gradient(a, x).numpy(), [1, 1, 0, 0])
    np.testing.assert_array_equal(t.jacobian(b, x).numpy(), [[0, 0, 1, 0], [0, 0, 0, 1]])
    np.testing.assert_array_equal(t.gradient(u[1], x).numpy(), [0, 1, 0, 0])


def test_third_order_through_a_recorded_jacobian():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.reduce_sum(x ** 4)
            g = t1.gradient(y, x)
        h = t2.jacobian(g, x)                       # diag(12 x²)
    np.testing.assert_allclose(h.numpy(), np.diag(12 * x.numpy() ** 2))
    np.testing.assert_allclose(t3.gradient(h, x).numpy(), 24 * x.numpy())


def test_reentering_a_persistent_tape_continues_recording():
    x = tf.constant([1.0, 2.0])
    t = tf.GradientTape(persistent=True)
    with t:
        t.watch(x)
        a = x * 2.0
    b = a * a                     # not recorded: the tape is outside its context
    with t:
        c = a * a
    assert t.gradient(b, x) is None
    np.testing.assert_allclose(t.gradient(c, x).numpy(), [8.0, 16.0])
