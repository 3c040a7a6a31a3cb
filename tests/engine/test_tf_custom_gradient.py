"""TensorFlow's tensorflow/python/ops/gradients_test.py, its custom_gradient parts
(CustomGradientTest, GradPassThroughTest), ported to gradviz's public API. Each test
names the TF test it ports; values are TF's.

TF runs most of these in graph mode with tf.gradients; here the same functions are
differentiated with GradientTape, and tf.compat.v1 dense layers are keras Dense layers.
Left out, and why:

- ragged and quantized tensors: testCustomGradientRaggedTensor,
  testCustomGradientMultipleRaggedTensors, testCustomGradientQuantizedDtypeTraining;
- graph mode only: testCustomGradientWithCapture (framework_function.Defun),
  testCustomGradientErrorsWithNonResourceVariables and testRVGradientsDynamicCond
  (v1 only: reference variables, placeholder_with_default and cond),
  GradPassThroughTest.test_gradients_v1 (test_gradients_v2 is ported);
- recompute_grad, which gradviz does not have: VariablesGradientTest.
"""
import numpy as np
import pytest

import gradviz as tf
from gradviz import nest


def _grads(f, *xs):
    with tf.GradientTape() as tape:
        tape.watch(list(xs))
        y = f(*xs)
    return tape.gradient(y, list(xs))


def test_custom_gradient_trivial():
    """testCustomGradientTrivial."""
    @tf.custom_gradient
    def MyIdentity(x):
        return x, lambda dy: [3 * dy]

    (dy,) = _grads(lambda x: MyIdentity(MyIdentity(x)), tf.constant(3.))
    assert dy.numpy() == 9.


def test_custom_gradient():
    """testCustomGradient: the rule's order (switched on purpose) is what counts."""
    @tf.custom_gradient
    def MyMultiply(x1, x2):
        return x1 * x2, lambda dy: [dy * x1, dy * x2]

    dy = _grads(MyMultiply, tf.constant(3.), tf.constant(5.))
    assert [d.numpy() for d in dy] == [3., 5.]


def test_custom_gradient_class():
    """testCustomGradientClass: a decorated method (self is bound, not an input)."""
    class Model:
        @tf.custom_gradient
        def Multiply(self, x1, x2):
            return x1 * x2, lambda dy: (dy * x1, dy * x2)

    m = Model()
    dy = _grads(m.Multiply, tf.constant(3.), tf.constant(5.))
    assert [d.numpy() for d in dy] == [3., 5.]


def test_custom_gradient_errors():
    """testCustomGradientErrors."""
    @tf.custom_gradient
    def F(x):
        def Grad(_):
            raise RuntimeError("x")
        return x, Grad

    with pytest.raises(RuntimeError):
        _grads(F, tf.constant(1.0))


def _dense_no_bias(units):
    return tf.keras.layers.Dense(units, use_bias=False)


def test_custom_gradient_with_variables():
    """testCustomGradientWithVariables, testRecursiveCustomGradient."""
    layer = _dense_no_bias(3)

    @tf.custom_gradient
    def F(x):
        out = layer(x)

        def Grad(out_grad, variables=None):
            assert len(variables) == 1
            return tf.matmul(out_grad, variables[0], transpose_b=True), [tf.ones((4, 3))]
        return out, Grad

    @tf.custom_gradient
    def DoubleF(x):
        out = F(x)

        def Grad(out_grad, variables=None):
            assert len(variables) == 1
            return tf.matmul(out_grad, variables[0], transpose_b=True), [tf.ones((4, 3))]
        return out, Grad

    for f in (F, DoubleF):
        x = tf.ones((2, 4))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grads = tape.gradient(y, [x, layer.kernel])
        assert all(g is not None for g in grads)
        assert tf.reduce_sum(grads[1]).numpy() == 12.
        np.testing.assert_allclose(grads[0].numpy(),
                                   np.ones((2, 3)) @ layer.kernel.numpy().T, rtol=1e-6)


def test_custom_gradient_with_variables_no_false_positives():
    """testCustomGradientWithVariablesNoFalsePositives: variables read before the call
    are not the function's."""
    inner = _dense_no_bias(3)

    @tf.custom_gradient
    def F(x):
        out = inner(x)

        def Grad(out_grad, variables=None):
            assert len(variables) == 1
            return tf.matmul(out_grad, variables[0], transpose_b=True), [tf.ones((3, 3))]
        return out, Grad

    b_layer, c_layer, x_layer = _dense_no_bias(3), _dense_no_bias(3), _dense_no_bias(3)
    with tf.GradientTape() as tape:
        a = tf.ones((2, 4))
        b = b_layer(a)
        x = x_layer(b) + c_layer(b)
        y = F(x)
    all_vars = [b_layer.kernel, c_layer.kernel, x_layer.kernel, inner.kernel]
    grads = tape.gradient(y, [x] + all_vars)
    assert all(g is not None for g in grads)
    assert tf.reduce_sum(grads[-1]).numpy() == 9.


def test_custom_gradient_with_variables_eager():
    """testCustomGradientWithVariablesEager."""
    layer = _dense_no_bias(4)

    @tf.custom_gradient
    def F(x):
        out = layer(x)

        def Grad(out_grad, variables=None):
            del out_grad
            assert len(variables) == 1
            return tf.ones((3, 2)), [tf.ones((2, 4))]
        return out, Grad

    x = tf.ones((3, 2)) + 2.
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = F(x)
    w, = layer.variables
    dx, dw = tape.gradient(y, [x, w])
    assert tf.reduce_sum(dx).numpy() == 6.
    assert tf.reduce_sum(dw).numpy() == 8.


@pytest.mark.parametrize("anonymous_varargs", [True, False])
def test_custom_gradient_variables_kwonly_args(anonymous_varargs):
    """testCustomGradientVariablesKwonlyArgs."""
    x_captured = tf.Variable(3.)

    @tf.custom_gradient
    def FuncMult(x):
        def ActualGrad(dy, variables):
            assert len(variables) == 1 and variables[0] is x_captured
            return 4. * x_captured * dy, [5. * x * dy]

        if anonymous_varargs:
            def GradMult(dy, *, variables=None):
                return ActualGrad(dy, variables)
        else:
            def GradMult(*dys, variables=None):
                return ActualGrad(dys[0], variables)
        return x * x_captured, GradMult

    x = tf.Variable(6.)
    with tf.GradientTape(persistent=True) as g:
        y = FuncMult(x)
    assert g.gradient(y, x).numpy() == 4. * 3.
    assert g.gradient(y, x_captured).numpy() == 5. * 6.


def test_with_numpy_inputs():
    """testWithNumpyInputs."""
    @tf.custom_gradient
    def F(x):
        return x, lambda _: (None, None)

    out = F(np.ones((3, 2), dtype=np.float32))
    np.testing.assert_array_equal(out.numpy(), np.ones((3, 2)))


_X_STRUCTS = [(None, ()), (((), ()), [None, None], [], (None, ()))]
_Y_STRUCTS = [[None, ()], (None, (), [], (None, ((), None)))]


@pytest.mark.parametrize("x_struct", _X_STRUCTS, ids=["x_flat", "x_nested"])
@pytest.mark.parametrize("y_struct", _Y_STRUCTS, ids=["y_flat", "y_nested"])
def test_custom_gradient_structural_input_output(x_struct, y_struct):
    """testCustomGradientStructuralInputOutput: custom_gradient handles structured
    inputs and outputs, empty containers included."""
    def Zeros(x):
        return nest.map_structure(lambda _: tf.zeros([], "float32"), x)

    def GetStruct(x):
        return nest.map_structure(lambda _: None, x)

    def MakeVjp(f, *x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(nest.flatten(x))
            y = f(*x)
        return y, lambda dy: tape.gradient(y, x, output_gradients=dy)

    @tf.custom_gradient
    def F(*x):
        assert GetStruct(x) == x_struct

        def Vjp(*dy):
            assert len(nest.flatten(dy)) == len(nest.flatten(y_struct))
            return nest.flatten(Zeros(x_struct))
        return Zeros(y_struct), Vjp

    x, dy = Zeros([x_struct, y_struct])
    y, vjp = MakeVjp(F, *x)
    dx = vjp(dy)
    assert GetStruct(dx) == x_struct
    assert GetStruct(y) == y_struct


def test_grad_pass_through_v2():
    """GradPassThroughTest.test_gradients_v2."""
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    # the assignment is not differentiable
    with tf.GradientTape() as tape:
        y = x.assign(z ** 2)
    assert tape.gradient(y, z) is None
    # wrapped with grad_pass_through, the upstream reaches z ** 2
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z ** 2)
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), 6.0)
    # variables inside the wrapped function get no gradient
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(lambda v: x * v)(z)
    assert tape.gradient(y, x) is None
