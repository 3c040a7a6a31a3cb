"""TensorFlow's tensorflow/python/eager/backprop_test.py (BackpropTest), ported to
gradviz's public API: here the tests that use TF's internal helpers, in
test_tf_backprop_tape.py those of the tape itself. Each test names the TF test it
ports; values are TF's.

TF's internal helpers (backprop.gradients_function, implicit_grad, make_vjp) are
rebuilt below on the public GradientTape. Tests left out, and why:

- needs graph mode or sessions: testGradientInsideLoop, testImplicitGradOverEmbeddingLookup
  (also IndexedSlices and a v1 optimizer), testZerosCacheDoesntLeakAcrossGraphs,
  testUnknownShapes (placeholders), testNameScope (graph op names);
- strings: testTapeGradientStringTarget, testTapeNoOpGradientStringSourceAndTarget,
  testTapeNoOpGradientWithMultiTargetMultiSourceIncludeString;
- resources and composites: testResourceHandleOutputWithoutHandleData (resource
  handles), testWatchComposite (SparseTensor);
- GPU only: testGPU, testGPUImplicitGrad, testTensorCopyGPU2CPU2GPU,
  testTensorCopyCPU2GPU2CPU;
- TF internals with no public counterpart: testInvalidRecordOperationMessage
  (record.record_operation), testGetAttrType, testGetAttrList, testMakeAttr* (C API
  attributes), testDifferentiatingFunctionThatReturnsNone (val_and_grad_function's
  message);
- control flow ops gradviz does not have: testGradientTapeWithCond (tf.cond),
  testGradientTapeWithWhileLoop (tf.while_loop); both are run_v1_only in TF;
- recompute_grad (not in gradviz; TF skips both on Python 3.11+):
  testRecomputeGradWithDifferentShape, testRecomputeGradWithNestedFunctionAndWhileLoop.

testAggregateGradients(WithTensor) use gather where TF uses embedding_lookup of one
tensor (the same op); TF asserts their values only in graph mode, we assert against
the closed form. testCustomGradientForwardprop reads x.numpy() where TF reads
tensor_util.constant_value(x).
"""
import functools

import numpy as np
import pytest

import gradviz as tf


# -- TF's internal helpers on the public tape ---------------------------------------------

def gradients_function(f, params=None):
    """backprop.gradients_function: d f / d args[i] for i in params (all by default),
    seeded with `dy` when given. As in TF, an argument passed twice is two tensors."""
    def grad(*args, dy=None):
        which = range(len(args)) if params is None else params
        args = [tf.identity(tf.convert_to_tensor(a)) if i in which else a  # distinct objects
                for i, a in enumerate(args)]
        with tf.GradientTape() as tape:
            for i in which:
                tape.watch(args[i])
            y = f(*args)
        return tape.gradient(y, [args[i] for i in which], output_gradients=dy)
    return grad


def implicit_val_and_grad(f):
    """backprop.implicit_val_and_grad: f's value and [(gradient, variable)] for the
    variables it reads, in order of construction."""
    def value_and_grad(*args):
        with tf.GradientTape() as tape:
            value = f(*args)
        variables = tape.watched_variables()
        return value, list(zip(tape.gradient(value, list(variables)), variables))
    return value_and_grad


def implicit_grad(f):
    return lambda *args: implicit_val_and_grad(f)(*args)[1]


def make_vjp(f, persistent=True):
    def wrapped(x):
        with tf.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = f(x)
        return y, lambda dy: [tape.gradient(y, x, output_gradients=tf.convert_to_tensor(dy))]
    return wrapped


# -- BackpropTest --------------------------------------------------------------------------

@pytest.mark.parametrize("with_dense", [False, True], ids=["", "WithTensor"])
def test_aggregate_gradients(with_dense):
    """testAggregateGradients, testAggregateGradientsWithTensor."""
    def fn(x):
        g1 = tf.gather(x, tf.constant(np.array([0, 1])))
        if with_dense:
            return g1 * tf.reduce_sum(x * tf.constant(2.0))
        return g1 * tf.gather(x, tf.constant([2, 3])) * tf.gather(x, tf.constant([1, 3]))

    var = np.random.default_rng(0).random((4, 2)).astype(np.float32)
    grad = gradients_function(fn, [0])(tf.constant(var))[0].numpy()
    v = var.astype(np.float64)
    expected = np.zeros_like(v)
    if with_dense:
        expected[[0, 1]] += 2 * v.sum()
        expected += 2 * v[[0, 1]].sum()
    else:
        for rows, others in (([0, 1], ([2, 3], [1, 3])), ([2, 3], ([0, 1], [1, 3])),
                             ([1, 3], ([0, 1], [2, 3]))):
            np.add.at(expected, rows, v[others[0]] * v[others[1]])
    np.testing.assert_allclose(grad, expected, rtol=1e-5)


def test_implicit_grad_with_resource_variable():
    """testImplicitGradWithResourceVariable."""
    x = tf.Variable(tf.constant(1.0), name='x')

    def fn():
        c = tf.add(x.value(), tf.constant(2.0))
        return tf.add(c, tf.constant(3.0))

    grads_and_vars = implicit_grad(fn)()
    assert grads_and_vars[0][0].numpy() == 1.0
    assert grads_and_vars[0][1] is x


def test_where_gradient():
    """testWhereGradient."""
    g = gradients_function(lambda x: tf.where(x < 10, x, x * x))
    assert g(5.)[0].numpy() == 1.0
    assert g(50.)[0].numpy() == 100.0


def test_dy():
    """testDy."""
    assert gradients_function(lambda x: x)(1., dy=2.)[0].numpy() == 2.


def test_gradient_integer():
    """testGradientInteger."""
    assert gradients_function(lambda x: x + x)(tf.constant(1))[0] is None


def test_errors():
    """testErrors: an error in a custom gradient reaches the caller."""
    @tf.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError('x')
        return x, grad

    with pytest.raises(RuntimeError):
        gradients_function(f)(tf.constant(1.0))


def test_gradients_function_in_custom_gradient():
    """testGradientsFunctionInCustomGradient."""
    @tf.custom_gradient
    def f(x):
        (y,) = gradients_function(lambda x: x * x)(x)
        return y, lambda dy: [2 * dy]

    assert f(1.0).numpy() == 2.0


def test_implicit_grad_ordering():
    """testImplicitGradOrdering: variables in order of construction, not of use."""
    v0, v1 = tf.Variable(1.0), tf.Variable(2.0)
    grads = implicit_grad(lambda: v1 * v1 + v0 * v0)()
    assert [v for _, v in grads] == [v0, v1]
    assert grads[0][1] is v0 and grads[1][1] is v1


@pytest.mark.parametrize("persistent", [False, True])
def test_make_vjp(persistent):
    """testMakeVJP, testPersistentMakeVJP."""
    result, vjp = make_vjp(lambda x: x * x, persistent=persistent)(tf.constant(3.0))
    assert result.numpy() == 9.0
    assert vjp(2.0)[0].numpy() == 12.0
    if persistent:
        assert vjp(2.0)[0].numpy() == 12.0


def test_grad_grad():
    """testGradGrad, testGradGradExp."""
    def grad(x):
        return gradients_function(lambda x: x * x, [0])(x)[0]

    assert gradients_function(grad, [0])(tf.constant(3.0))[0].numpy() == 2.0
    grad_exp = lambda x: gradients_function(tf.exp, [0])(x)[0]  # noqa: E731
    assert gradients_function(grad_exp, [0])(tf.constant(0.0))[0].numpy() == 1.0


def test_cpu():
    """testCPU."""
    def fn(x):
        return tf.add(tf.add(x, tf.constant(2.0)), tf.constant(3.0))

    assert gradients_function(fn, [0])(tf.constant(1.0))[0].numpy() == 1.0


def test_empty_params():
    """testEmptyParams, testEmptyParamsForValueAndGradFunction,
    testNonEmptyParamsForValueAndGradFunction, testMulType."""
    x, y = tf.constant(1.0), tf.constant(2.0)
    dx, dy = gradients_function(lambda a, b: a * b)(x, y)
    assert (dx.numpy(), dy.numpy()) == (2.0, 1.0)
    dx, dy = gradients_function(lambda a, b: a * b)(2.0, 3.0)
    assert (dx.numpy(), dy.numpy()) == (3.0, 2.0)
    grads = gradients_function(lambda a, b: a * b, params=[1])(2.0, 3.0)
    assert len(grads) == 1 and grads[0].numpy() == 2.0
    assert gradients_function(lambda x: tf.multiply(x, x))(3.0)[0].numpy() == 6.0


def test_unconnected_none():
    """testUnconnectedNone."""
    v = tf.Variable(1.0, name='testUnconnectedNone')

    def f():
        v.read_value()
        return tf.constant(1.0)

    assert implicit_grad(f)()[0][0] is None


def test_args_partial_and_multiple_outputs():
    """testArgsGradientFunction, testPartial, testReturnSameThing, testOutput."""
    assert gradients_function(lambda *args: args[0] * args[0])(1.0)[0].numpy() == 2.0
    part = functools.partial(lambda x, y: x * y, tf.constant(2.0))
    assert gradients_function(part)(tf.constant(1.0))[0].numpy() == 2.0
    assert gradients_function(lambda x: (x, 2 * x))(1.0)[0].numpy() == 3.0
    grad = gradients_function(lambda x: (x + 2, x * x))(tf.constant([0.0, 1.0, 2.0]))[0]
    np.testing.assert_array_equal(grad.numpy(), [1.0, 3.0, 5.0])


def test_exception_safety():
    """testExceptionSafety: a failing forward leaves no tape recording."""
    def f(unused_x):
        raise ValueError()

    with pytest.raises(ValueError):
        gradients_function(f)(1.0)
    assert gradients_function(lambda x: x * x)(1.0)[0].numpy() == 2.0


def test_multi_value_convert_to_tensor():
    """testMultiValueConvertToTensor."""
    x = tf.Variable(tf.constant([1.0]), name='x')

    def fn():
        a = tf.add(x.value(), 1.0)
        return tf.reduce_mean(tf.stack([a, a], axis=0))

    np.testing.assert_array_equal(implicit_grad(fn)()[0][0].numpy(), [1.0])


def test_same_object_for_multiple_arguments():
    """testSameObjectForMultipleArguments."""
    g = gradients_function(tf.multiply)

    def np_g(x, y):
        return [d.numpy().tolist() for d in g(x, y)]

    for x, expected in ((tf.constant(1.0), [1.0, 1.0]), (1.0, [1.0, 1.0]),
                        (tf.constant([[1.0]]), [[[1.0]], [[1.0]]]), ([[1.0]], [[[1.0]], [[1.0]]]),
                        (tf.Variable(1.0), [1.0, 1.0])):
        assert np_g(x, x) == expected


def test_implicit_gradients_custom_gradient_and_cached_variable_value():
    """testImplicitGradientsCustomGradientAndCachedVariableValue."""
    @tf.custom_gradient
    def my_square(x):
        return tf.square(x), lambda dr: 2 * dr * x + 1

    x = tf.Variable(3.0, name='X')
    grads_and_vars = implicit_grad(lambda: my_square(x))()
    assert len(grads_and_vars) == 1
    grad, var = grads_and_vars[0]
    assert grad.numpy() == 7 and var is x


def test_custom_gradient():
    """testCustomGradient: gradient descent through a custom multiply."""
    @tf.custom_gradient
    def my_mul(x, y):
        return x * y, lambda dr: [dr * y, dr * x]

    x = tf.Variable(2.0, name='x')
    loss_grads_fn = implicit_val_and_grad(lambda x: my_mul(2.0, x.read_value()))
    losses = []
    for _ in range(5):
        loss, grads_and_vars = loss_grads_fn(x)
        losses.append(loss.numpy())
        for grad, var in grads_and_vars:
            var.assign_sub(0.25 * grad)
    assert losses == [4.0, 3.0, 2.0, 1.0, 0.0]


def test_custom_gradient_identity():
    """testCustomGradientIdentity, testCustomGradientInEagerAndGraph."""
    @tf.custom_gradient
    def my_identity(x):
        return x, lambda dresult: [2 * dresult]

    assert gradients_function(my_identity)(1.0)[0].numpy() == 2.0

    @tf.custom_gradient
    def f(x):
        return x * x, lambda dy: [4 * dy]

    with tf.GradientTape() as t:
        c = tf.constant(1.0)
        t.watch(c)
        g = f(c)
    assert t.gradient(g, c).numpy() == 4.0


def test_multi_value_preserves_if_not_diffed_against():
    """testMultiValuePreservesIfNotDiffedAgainst: arguments outside params (the strides
    list) reach the function as they are."""
    def tfe_conv2d(timage, tkernel, conv2dstrides):
        return tf.nn.conv2d(timage, tkernel, conv2dstrides, 'SAME')

    i = tf.constant([[[[1.0]]]])
    k = tf.constant([[[[2.0]]]])
    grad = gradients_function(tfe_conv2d, params=(0,))(i, k, [1, 1, 1, 1])[0]
    np.testing.assert_array_equal(grad.numpy(), [[[[2.0]]]])


def test_gradient_none():
    """testGradientNone: softmax_cross_entropy_with_logits has two outputs; the gradient
    of the second is None and the first carries the gradient."""
    def loss(x, l):
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=x, labels=l),
                              tf.constant([0]))

    logits = tf.constant([[0.0, 0.0]])
    labels = tf.constant([[1.0, 0.0]])
    g, = gradients_function(loss, [0])(logits, labels)
    np.testing.assert_array_equal(g.numpy(), [[-0.5, 0.5]])


def test_second_grad():
    """testSecondGrad: one class, so the cross-entropy is constant in the logits."""
    def first(x):
        l = tf.constant([[0.0]])
        x = tf.nn.softmax_cross_entropy_with_logits(labels=l, logits=x)
        return tf.reduce_sum(x, tf.constant([0]))

    def second(x):
        grad = gradients_function(first, [0])(x)[0]
        return tf.reduce_sum(grad, tf.constant([0]))

    grad = gradients_function(second, [0])(tf.constant([[0.1]]))[0]
    np.testing.assert_array_equal(grad.numpy(), [[0.0]])


def test_stop_gradient_and_argmax():
    """testStopGradient, testArgmax: argmax has an integer output, so no gradient."""
    grad = gradients_function(lambda x: tf.stop_gradient(tf.math.argmax(x)))
    assert grad([0.0])[0] is None
