"""Gradients the user supplies: RegisterGradient and the gradient registry, no_gradient,
and custom_gradient (first and higher order, variables, nested arguments)."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.execute import apply


# -- the gradient registry ----------------------------------------------------------------

_CUBE = tf.define_op("TestTapeCube", lambda a: a ** 3)
_SQUASH = tf.define_op("TestTapeSquash", lambda a: a / (1 + np.abs(a)))
_NOGRAD = tf.define_op("TestTapeRound", np.round)
tf.no_gradient("TestTapeRound")


@tf.RegisterGradient("TestTapeSquash")
def _squash_grad(op, grad):
    a = op.inputs[0]
    return [grad / tf.square(1 + tf.abs(a))]


def test_op_without_a_gradient_raises_lookup_error_naming_it():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = apply(_CUBE, [x])
    with pytest.raises(LookupError, match="TestTapeCube"):
        t.gradient(y, x)
    with pytest.raises(LookupError, match="TestTapeCube"):
        tf.gradient_registry.lookup("TestTapeCube")


def test_register_gradient_for_a_new_op():
    x = tf.constant([-1.0, 0.5, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = apply(_SQUASH, [x])
    expected = 1 / (1 + np.abs(x.numpy())) ** 2
    np.testing.assert_allclose(t.gradient(y, x).numpy(), expected, rtol=1e-6)
    # jacobian batches the cotangents; a TF-style function is mapped over the batch.
    np.testing.assert_allclose(t.jacobian(y, x).numpy(), np.diag(expected), rtol=1e-6)
    assert tf.gradient_registry.lookup("TestTapeSquash") is _squash_grad


def test_register_gradient_for_a_new_op_inside_nested_tapes():
    x = tf.constant(0.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = apply(_SQUASH, [x])
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    np.testing.assert_allclose(g.numpy(), 1 / 1.5 ** 2, rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), -2 / 1.5 ** 3, rtol=1e-6)


def test_registering_twice_is_a_key_error():
    with pytest.raises(KeyError, match="TestTapeSquash"):
        tf.RegisterGradient("TestTapeSquash")(lambda op, grad: [grad])
    with pytest.raises(KeyError, match="MatMul"):
        tf.RegisterGradient("MatMul")(lambda op, grad: [grad, grad])


def test_register_gradient_before_the_op_type_exists():
    """As TF's registry (a map from names): the function waits for the op's definition."""
    @tf.RegisterGradient("TestTapeLateOp")
    def _late_grad(op, grad):
        return [grad * 10.0]

    assert tf.gradient_registry.lookup("TestTapeLateOp") is _late_grad
    with pytest.raises(KeyError, match="TestTapeLateOp"):
        tf.RegisterGradient("TestTapeLateOp")(lambda op, grad: [grad])
    late = tf.define_op("TestTapeLateOp", lambda x: 2 * x)
    from gradviz.engine.execute import apply
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = apply(late, (x,))
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [10.0, 10.0])


def test_no_gradient_op_gives_none():
    x = tf.constant([1.2, 2.7])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        r = apply(_NOGRAD, [x])
        y = r * x
    assert t.gradient(r, x) is None
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [1.0, 3.0])
    np.testing.assert_array_equal(t.gradient(r, x, unconnected_gradients='zero').numpy(), [0, 0])


# -- custom_gradient -----------------------------------------------------------------------

def test_custom_gradient_with_variables():
    w = tf.Variable([[1.0, 2.0]])

    @tf.custom_gradient
    def linear(x):
        out = tf.matmul(x, w, transpose_b=True)

        def grad(dy, variables=None):
            assert variables == [w]
            return dy * 10 * w, [tf.matmul(dy, x, transpose_a=True) * 100]
        return out, grad

    x = tf.constant([[3.0, 4.0]])
    with tf.GradientTape() as t:
        t.watch(x)
        y = linear(x)
    np.testing.assert_allclose(y.numpy(), [[11.0]])
    gx, gw = t.gradient(y, [x, w])
    np.testing.assert_allclose(gx.numpy(), [[10.0, 20.0]])
    np.testing.assert_allclose(gw.numpy(), [[300.0, 400.0]])
    assert t.watched_variables() == (w,)


def test_custom_gradient_reading_variables_needs_a_variables_argument():
    w = tf.Variable([1.0, 2.0])

    @tf.custom_gradient
    def scale(x):
        def grad(dy):
            return dy * w
        return x * w, grad

    with pytest.raises(TypeError, match="variables"):
        scale(tf.constant([1.0, 1.0]))


def test_custom_gradient_returns_one_gradient_per_input():
    @tf.custom_gradient
    def f(x, y):
        return x * y, lambda dy: dy  # one gradient for two inputs
    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch([a, b])
        z = f(a, b)
    with pytest.raises(ValueError, match="1 gradient for 2 inputs"):
        t.gradient(z, [a, b])


def test_custom_gradient_second_order_through_grad_fn():
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3 * x * x
        return x * x * x, grad

    x = tf.Variable(2.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = cube(x)
        dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
    np.testing.assert_allclose([y.numpy(), dy.numpy(), d2y.numpy()], [8.0, 12.0, 12.0])


def test_custom_gradient_second_order_through_values_of_the_forward_pass():
    """TF's log1pexp: grad uses e = exp(x) from the forward, so an outer tape must have
    recorded the forward for d²y/dx² = e / (1 + e)² (0.25 at 0, not None)."""
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant([0.0, 1.0, -2.0], dtype=tf.float64)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = log1pexp(x)
        g = t1.gradient(y, x)
    h = t2.gradient(g, x)
    e = np.exp(x.numpy())
    np.testing.assert_allclose(g.numpy(), e / (1 + e), rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), e / (1 + e) ** 2, rtol=1e-12)


def test_custom_gradient_hessian_matches_the_closed_form():
    @tf.custom_gradient
    def f(x):  # (x - 1) e^x, d/dx = x e^x, d²/dx² = (1 + x) e^x
        e = tf.exp(x)
        return x * e - e, lambda dy: dy * x * e

    x = tf.constant([1.0, -0.5], dtype=tf.float64)
    h = tf.hessian(lambda x: tf.reduce_sum(f(x)), x)
    np.testing.assert_allclose(h.numpy(), np.diag((1 + x.numpy()) * np.exp(x.numpy())),
                               rtol=1e-12)


def test_custom_gradient_of_nested_arguments_takes_one_gradient_per_leaf():
    @tf.custom_gradient
    def f(xs):
        a, b = xs
        return a * 2.0 + tf.reduce_sum(b), lambda dy: [dy * 3.0, tf.reduce_sum(dy) * tf.ones_like(b)]

    a, b = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch([a, b])
        y = f([a, b])
    np.testing.assert_array_equal(y.numpy(), [8.0, 10.0])
    ga, gb = t.gradient(y, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(gb.numpy(), [2.0, 2.0, 2.0])


def test_custom_gradient_is_used_inside_jacobian():
    @tf.custom_gradient
    def doubled_grad(x):
        return tf.sin(x), lambda dy: dy * 2 * tf.cos(x)

    x = tf.constant([0.0, 1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = doubled_grad(x)
    np.testing.assert_allclose(t.jacobian(y, x).numpy(), np.diag(2 * np.cos(x.numpy())),
                               rtol=1e-6)


def test_registered_gradient_returning_the_wrong_count_names_the_op():
    op = tf.define_op("TestTapeTwoIn", lambda a, b: a + b)

    @tf.RegisterGradient("TestTapeTwoIn")
    def _grad(op, grad):
        return [grad]

    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch([a, b])
        y = apply(op, [a, b])
    with pytest.raises(ValueError, match="TestTapeTwoIn returned 1 gradient for its 2 inputs"):
        t.gradient(y, [a, b])


def test_registry_lookup_of_a_multi_output_op_accepts_none_for_an_unused_output():
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as t:
        t.watch(x)
        a, b = tf.split(x, 2)
    split_grad = tf.gradient_registry.lookup('SplitV')
    (g,) = split_grad(a.op, tf.ones_like(a), None)
    np.testing.assert_array_equal(g.numpy(), [1, 1, 0, 0])
    assert 'MatMul' in tf.gradient_registry.list()
    assert 'TestTapeCube' not in tf.gradient_registry.list()
    with pytest.raises(LookupError, match="NoSuchOp"):
        tf.gradient_registry.lookup('NoSuchOp')


# -- custom_gradient on methods, grad_pass_through -------------------------------------------

class _Scaled:
    """A layer-like object whose method has a custom gradient (`self` is bound first)."""

    def __init__(self):
        self.w = tf.Variable(2.0)
        self.backward_scale = 10.0

    @tf.custom_gradient
    def __call__(self, x):
        y = self.w * x * x

        def grad(dy, variables):
            return dy * self.backward_scale, [dy * 100.0]
        return y, grad

    @tf.custom_gradient
    def plain(self, x, k=1.0):
        return x * k, lambda dy: dy * 7.0


def test_custom_gradient_on_a_method_binds_self_first():
    layer = _Scaled()
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = layer(x)
        z = layer.plain(x, k=2.0)
    np.testing.assert_allclose(y.numpy(), 18.0)
    dx, dw = t.gradient(y, [x, layer.w])
    np.testing.assert_allclose([dx.numpy(), dw.numpy()], [10.0, 100.0])
    np.testing.assert_allclose(t.gradient(z, x).numpy(), 7.0)
    assert _Scaled.plain.__name__ == "plain" and layer.plain.__name__ == "plain"


def test_grad_pass_through_assign():
    """TF's docstring example: y = x.assign(z²) is 9, and dy/dz = 2z = 6."""
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z ** 2)
    np.testing.assert_allclose(y.numpy(), 9.0)
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), 6.0)
    np.testing.assert_allclose(x.numpy(), 9.0)


def test_grad_pass_through_of_a_function_reading_a_variable():
    """The upstream passes to the input; the variable read inside gets None, as in TF."""
    w = tf.Variable(5.0)
    x = tf.constant([1.0, 2.0])
    rounded = tf.grad_pass_through(lambda a: tf.stop_gradient(a * w))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(rounded(x) * tf.constant([3.0, 4.0]))
    dx, dw = tape.gradient(y, [x, w])
    np.testing.assert_allclose(dx.numpy(), [3.0, 4.0])
    assert dw is None
