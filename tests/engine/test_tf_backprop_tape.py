"""TensorFlow's tensorflow/python/eager/backprop_test.py (BackpropTest): the tests of the
tape itself, ported to gradviz's public API. Each test names the TF test it ports;
values are TF's. test_tf_backprop.py has the tests that use TF's internal helpers and
the list of the tests left out, with the reasons.
"""
import functools

import numpy as np
import pytest

import gradviz as tf


@pytest.mark.parametrize("decorator", [tf.function, lambda f: f], ids=["Function", "NoFunction"])
def test_no_op_behavior_consistent(decorator):
    """testNoOpBehaviorConsistent."""
    @decorator
    def f(x):
        x1 = tf.identity(x)
        x2 = tf.add(x, 0)
        x3 = tf.subtract(x, 0)
        x4 = tf.multiply(x, 1)
        with tf.GradientTape() as t:
            t.watch([x, x1, x2, x3, x4])
            loss = x * 2. + x1 * 3. + x2 * 3. + x3 * 3. + x4 * 3.
        return t.gradient(loss, [x, x1, x2, x3, x4])

    np.testing.assert_allclose([g.numpy() for g in f(tf.constant(10.))], [2., 3., 3., 3., 3.])


def test_two_targets():
    """testTwoTargets."""
    with tf.GradientTape() as t:
        x, y = tf.constant(3.0), tf.constant(2.0)
        t.watch([x, y])
        xx, yy = 2 * x, 3 * y
    dx, dy = t.gradient([xx, yy], [x, y])
    assert (dx.numpy(), dy.numpy()) == (2.0, 3.0)


def test_custom_gradient_empty_error():
    """testCustomGradientEmptyError."""
    @tf.custom_gradient
    def identity(x):
        return x, lambda _: []  # this return value is wrong

    x = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = identity(x)
    with pytest.raises(ValueError):
        t.gradient(y, [x])


def test_stop_gradient_hides_downstream_ops():
    """test_stop_gradient_hides_downstream_ops."""
    @tf.custom_gradient
    def _backward_pass_error(x):
        def _grad(_):
            raise AssertionError("Unexpectedly ran the backward function.")
        return x, _grad

    f = tf.function(_backward_pass_error)
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(tf.stop_gradient(x))
    assert tape.gradient(y, x) is None


def test_output_grad_used_in_computation():
    """testOutputGradUsedInComputation."""
    with tf.GradientTape() as t:
        x, y = tf.constant(3.0), tf.constant(2.0)
        t.watch([x, y])
        loss = x * y
    dx, = t.gradient([loss, x], [x], output_gradients=[1.0, 2.0])
    assert dx.numpy() == 4.0


def test_tape_no_op_gradient():
    """testTapeNoOpGradient, testTapeIdentityGradientIsIdentity."""
    for op in (lambda x: x, tf.identity):
        x = tf.constant(3.0)
        with tf.GradientTape() as t:
            t.watch(x)
            y = op(x)
        assert t.gradient(y, x).numpy() == 1.0


def test_function_indexed_slices_gradient():
    """testFunctionIndexedSlicesGradient."""
    f = tf.function(lambda x: x + 1)
    with tf.GradientTape() as t:
        x = tf.constant([1.0])
        t.watch(x)
        y = tf.gather(f(x), [0])
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [1.0])


def test_tape_gradient_multi_target_one_is_source():
    """testTapeGradientMultiTargetOneIsSource."""
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    assert t.gradient([x, y], x).numpy() == 5.0


def test_tape_no_op_gradient_with_multi_target_all_source():
    """testTapeNoOpGradientWithMultiTargetAllSource."""
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x
    assert t.gradient([y, y], x).numpy() == 2.0


def test_tape_no_op_gradient_with_multi_target_multi_source():
    """testTapeNoOpGradientWithMultiTargetMultiSource."""
    x, y = tf.constant(3.0), tf.constant(5.0)
    with tf.GradientTape() as t:
        t.watch(x)
        t.watch(y)
        z = y * y
    assert [g.numpy() for g in t.gradient([x, y, z], [x, y])] == [1.0, 11.0]


def test_tape_no_op_on_variable_is_identity():
    """testTapeNoOpOnVariableIsIdentity."""
    v0 = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = v0.read_value()
    assert t.gradient(y, v0).numpy() == 1.0


@pytest.mark.parametrize("targets, expected", [(1, 1.0), (2, 2.0)])
def test_tape_no_op_gradient_2_by_2(targets, expected):
    """testTapeNoOpGradient2By2, testTapeNoOpGradientMultiTarget2By2."""
    a_2_by_2 = tf.constant(2.0, shape=[2, 2])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a_2_by_2)
    dy_dy = tape.gradient([a_2_by_2] * targets, [a_2_by_2])[0]
    np.testing.assert_array_equal(dy_dy.numpy(), np.full((2, 2), expected))


def test_tape_stop_recording():
    """testTapeStopRecording, testTapeStopStartRecording."""
    with tf.GradientTape() as t:
        x = tf.Variable(1.0)
        with t.stop_recording():
            y = x * x
    assert t.gradient(y, x) is None
    with tf.GradientTape(persistent=True) as t:
        x = tf.Variable(1.0)
        x2 = x * 2  # this is differentiated through
        with t.stop_recording():
            y = x2 * x2
        z = x2 * x2
    assert t.gradient(y, x2) is None
    assert t.gradient(z, x2).numpy() == 4.0


def test_tape_reset():
    """testTapeReset."""
    with tf.GradientTape() as t:
        v = tf.Variable(1.0)
        loss = v * v
        t.reset()
        loss += v * v
    assert t.gradient(loss, v).numpy() == 2.0


def test_python_max():
    """testPythonMax."""
    x = [tf.Variable(2.), tf.Variable(3.), tf.Variable(5.)]
    with tf.GradientTape() as t:
        f = max(x)
    grad = t.gradient(f, x)
    assert f.numpy() == 5.
    assert grad[:2] == [None, None] and grad[2].numpy() == 1.0


def test_automatic_and_explicit_watched_variables():
    """testAutomaticWatchedVariables, testExplicitWatchedVariables."""
    with tf.GradientTape() as t:
        assert len(t.watched_variables()) == 0
        v = tf.Variable(1.0)
        loss = v * v
        assert t.watched_variables() == (v,)
        t.reset()
        assert len(t.watched_variables()) == 0
        loss += v * v
        assert t.watched_variables() == (v,)
    with tf.GradientTape() as t:
        v = tf.Variable(1.0)
        t.watch(v)
        assert t.watched_variables() == (v,)
        t.reset()
        assert len(t.watched_variables()) == 0
        t.watch(v)
        assert t.watched_variables() == (v,)


@pytest.mark.parametrize("persistent", [False, True])
def test_gradient_within_tape_block(persistent):
    """testGradientWithinTapeBlock."""
    v1 = tf.Variable(1.)
    with tf.GradientTape(persistent=persistent) as t:
        loss = 2 * v1
        grad = t.gradient(loss, v1)
    assert grad.numpy() == 2.0


def test_nested_self_contexts():
    """testNestedSelfContexts."""
    with tf.GradientTape() as t:
        with pytest.raises(ValueError):
            with t:
                pass


def test_watching_is_tape_local():
    """testWatchingIsTapeLocal."""
    x1 = tf.Variable(2.0, trainable=False)
    x2 = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape1:
        with tf.GradientTape() as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            y = x1 ** 3
            z = x2 ** 2
            dy, dz = tape2.gradient([y, z], [x1, x2])
        d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    assert d2y.numpy() == 12.0
    assert d2z is None


def test_gradient_tape_re_enter_context():
    """testGradientTapeReEnterContext."""
    g = tf.GradientTape()
    with g:
        x = tf.constant(3.0)
        g.watch(x)
        y = 2 * x
    with g:
        z = 2 * y
    assert [d.numpy() for d in g.gradient(target=z, sources=[x])] == [4.0]


def test_gradient_tape_repeated_source():
    """testGradientTapeRepeatedSource, testPersistentGradientTapeRepeatedSource."""
    with tf.GradientTape(persistent=False) as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = 2 * x
    assert [d.numpy() for d in g.gradient(target=y, sources=[x, x])] == [2.0, 2.0]
    with tf.GradientTape(persistent=True) as g:
        x, y = tf.constant(3.0), tf.constant(5.0)
        g.watch(x)
        g.watch(y)
        z = x * x + x * y
    assert [d.numpy() for d in g.gradient(target=z, sources=[x, x])] == [11.0, 11.0]
    assert [d.numpy() for d in g.gradient(target=z, sources=[y, x])] == [3.0, 11.0]


def test_gradient_tape_structure():
    """testGradientTapeStructure."""
    with tf.GradientTape(persistent=True) as g:
        x1, x2, x3 = tf.constant(3.0), tf.constant(3.1), tf.constant(3.2)
        g.watch(x1)
        g.watch(x2)
        g.watch(x3)
        y = x1 + 2 * x2 + 3 * x3
    values = functools.partial(tf.nest.map_structure, lambda t: float(t.numpy()))
    assert values(g.gradient(y, x1)) == 1.0
    assert values(g.gradient(y, (x1,))) == (1.0,)
    assert values(g.gradient(y, (x1, x2))) == (1.0, 2.0)
    assert values(g.gradient(y, [(x1, x2), (x2, x3)])) == [(1.0, 2.0), (2.0, 3.0)]
    assert values(g.gradient(y, (x1, x2, [x1, x3]))) == (1.0, 2.0, [1.0, 3.0])
    assert values(g.gradient(y, [x1, {'x2': x2, 'x3': x3}])) == [1.0, {'x2': 2.0, 'x3': 3.0}]


def test_gradient_tape():
    """testGradientTape."""
    with tf.GradientTape() as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        with tf.GradientTape() as gg:
            gg.watch(y)
            z = 2 * y
        inner_grad = gg.gradient(z, [y])[0]
        assert inner_grad.numpy() == 2.0
        y += inner_grad
    assert g.gradient(y, [x])[0].numpy() == 6.0


def test_gradient_tape_called_on_constant_target():
    """testGadientTapeCalledOnConstantTarget."""
    with tf.GradientTape() as g:
        x = tf.Variable([3.0])
        y = tf.Variable([2.0])
    assert g.gradient(x, y) is None


@pytest.mark.parametrize("method", ["gradient", "jacobian"])
def test_gradient_tape_called_multiple_times(method):
    """testGradientTapeGradientCalledMultipleTimes, testGradientTapeJacobianCalledMultipleTimes."""
    with tf.GradientTape() as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    getattr(g, method)(z, [x])
    with pytest.raises(RuntimeError, match='A non-persistent GradientTape can only'):
        getattr(g, method)(y, [x])


def test_persistent_tape():
    """testPersistentTape."""
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    assert g.gradient(z, [x])[0].numpy() == 4 * 3 * 3 * 3
    assert g.gradient(y, [x])[0].numpy() == 2 * 3


def test_higher_order_gradient():
    """testHigherOrderGradient."""
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x ** 3
        dy_dx = g.gradient(y, x)
        d2y_dx2 = g.gradient(dy_dx, x)
    d3y_dx3 = g.gradient(d2y_dx2, x)
    np.testing.assert_allclose(y.numpy(), 27.0)
    assert (dy_dx.numpy(), d2y_dx2.numpy(), d3y_dx3.numpy()) == (27.0, 18.0, 6.0)


def test_persistent_nested_tape():
    """testPersistentNestedTape."""
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        with tf.GradientTape(persistent=True) as gg:
            gg.watch(y)
            z = 2 * y
        for _ in range(2):
            inner_grad = gg.gradient(z, [y])[0]
            assert inner_grad.numpy() == 2.0
        y += inner_grad
    assert g.gradient(y, [x])[0].numpy() == 6.0
    assert g.gradient(z, [x])[0].numpy() == 12.0


def test_gradient_tape_variable():
    """testGradientTapeVariable."""
    v = tf.Variable(1.0, name='v')
    with tf.GradientTape() as g:
        y = v * v
    assert g.gradient(y, [v])[0].numpy() == 2.0


def test_nested_gradients():
    """testNestedGradients."""
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx, dz_dy = g.gradient(z, [x, y])
    assert (dz_dx.numpy(), dz_dy.numpy()) == (108.0, 18.0)


@pytest.mark.parametrize("make", [tf.constant, tf.Variable], ids=["", "Variables"])
def test_unconnected_gradients(make):
    """testUnconnectedGradientsDefault, testUnconnectedGradientsZeros,
    testUnconnectedGradientsVariablesZeros, testUnknownUnconnectedGradientsValueGiven."""
    x, y = make(tf.constant(1.0, shape=[2, 2])), make(tf.constant(3.0))
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y])
        z = y * 2
    assert g.gradient(z, x) is None
    np.testing.assert_array_equal(g.gradient(z, x, unconnected_gradients='zero').numpy(),
                                  [[0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nonsense'"):
        g.gradient(z, x, unconnected_gradients='nonsense')


def test_unconnected_gradients_nested_defun_zeros():
    """testUnconnectedGradientsNestedDefunZeros."""
    f = tf.function(lambda x: x * x)
    h = tf.function(lambda y: tf.stop_gradient(f(y)))
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = h(x + 2.0)
    assert g.gradient(y, x, unconnected_gradients='zero').numpy() == 0.0


def test_jacobian_custom_gradient():
    """testJacobianCustomGradient: x is not watched, so it gets None."""
    class MyCallable:
        def __init__(self):
            self.a, self.b, self.c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)

        def __call__(self, x):
            return self.a * x * x + self.b * x + self.c

    @tf.function
    def call(c, x):
        @tf.custom_gradient
        def _call():
            y = c(x)

            def grad(dy, variables=None):
                with tf.GradientTape(persistent=True) as g:
                    g.watch(variables)
                    y = c(x)
                return (), [2 * tf.reduce_sum(dy * g.jacobian(y, v)) for v in variables]
            return y, grad
        return _call()

    c = MyCallable()
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch([c.a, c.b, c.c])
        y = call(c, x)
    assert g.gradient(y, x) is None
    np.testing.assert_allclose([d.numpy() for d in g.gradient(y, [c.a, c.b, c.c])],
                               [28.0, 12.0, 6.0])


def test_selectively_watch_variables():
    """testSelectivelyWatchVariables."""
    x1, x2 = tf.Variable(1.0), tf.Variable(1.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x2)
        y = x1 ** 2
        z = x2 ** 3
    assert tape.watched_variables() == (x2,)
    dy, dz = tape.gradient([y, z], [x1, x2])
    assert dy is None and dz.numpy() == 3.0


def test_differentiating_scalar_cache():
    """testDifferentiatingScalarCache."""
    with tf.GradientTape(persistent=False) as g:
        x1, x2 = tf.constant(3.0), tf.constant(3.0)
        g.watch(x1)
        g.watch(x2)
        y = x1 + x2
    assert [d.numpy() for d in g.gradient(target=y, sources=[x1])] == [1.0]


def test_variables_and_constants_produce_the_same_gradients():
    """testVariablesAndConstantsProduceTheSameGradients."""
    def get_grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y, z = a ** 3, b ** 2
        return [g.numpy() for g in tape.gradient([y, z], [a, b])]

    assert get_grads(tf.constant(2.0), tf.constant(2.0)) == \
        get_grads(tf.Variable(2.0), tf.Variable(2.0)) == [12.0, 4.0]


def test_override_second_order_with_custom_gradient():
    """testOverrideSecondOrderWithCustomGradient."""
    @tf.custom_gradient
    def f(x):
        def first_order_grad(dz):
            @tf.custom_gradient
            def first_order_custom(unused_x):
                return -1.1, lambda ddz: -2.1 * ddz
            return dz * first_order_custom(x)
        return x + 10.0, first_order_grad

    c = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(c)
        with tf.GradientTape() as inner:
            inner.watch(c)
            d = f(c) ** 4.0
        dd = inner.gradient(d, c)
        fc = f(c).numpy()
        np.testing.assert_allclose(dd.numpy(), 4.0 * fc ** 3.0 * -1.1, rtol=1e-6)
    np.testing.assert_allclose(outer.gradient(dd, c).numpy(),
                               3.0 * 4.0 * fc ** 2.0 * -1.1 * -1.1 + 4.0 * fc ** 3.0 * -2.1,
                               rtol=1e-6)


def test_custom_gradient_forwardprop():
    """testCustomGradientForwardprop: a custom gradient's own custom gradient gives the
    second order (2.2) and the transpose with respect to the cotangent (3.1)."""
    @tf.custom_gradient
    def f(x):
        z = 2.0 * x.numpy()

        def g(dz):
            @tf.custom_gradient
            def first_order(unused_x, unused_dz):
                return 2.1, lambda unused_ddz: (2.2, 3.1)
            return first_order(x, dz)
        return z, g

    with tf.GradientTape(persistent=True) as t:
        with tf.GradientTape() as tt:
            c = tf.constant(1.0)
            t.watch(c)
            tt.watch(c)
            output_grad = tf.ones([])
            t.watch(output_grad)
            output = f(c)
            assert output.numpy() == 2.0
            gc = tt.gradient(output, c, output_gradients=output_grad)
            np.testing.assert_allclose(gc.numpy(), 2.1)
    np.testing.assert_allclose(t.gradient(gc, c).numpy(), 2.2)
    np.testing.assert_allclose(t.gradient(gc, output_grad).numpy(), 3.1)


def test_watch_bad_thing():
    """testWatchBadThing."""
    g = tf.GradientTape()
    with pytest.raises(ValueError, match='ndarray'):
        g.watch(np.array(1.0))


def test_watched_variables_after_non_persistent_gradient_call():
    """testWatchedVariablesAfterNonPersistentGradientCall,
    testWatchedVariablesOnlyHasVariablesFromLastTape, testWatchedVariablesRespectReset."""
    with tf.GradientTape(persistent=False) as tape:
        x = tf.Variable(1.0)
        tape.watch(x)
    tape.gradient(x, x)
    assert tape.watched_variables() == (x,)
    with tf.GradientTape(persistent=False) as tape:
        z = tf.Variable(2.0)
        tape.watch(z)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)
    with tf.GradientTape(persistent=False) as tape:
        x = tf.Variable(1.0)
        tape.watch(x)
        assert tape.watched_variables() == (x,)
        tape.reset()
        z = tf.Variable(2.0)
        tape.watch(z)
        assert tape.watched_variables() == (z,)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)
