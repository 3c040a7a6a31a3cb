"""TensorFlow's backprop_test.py JacobianTest and BatchJacobianTest, ported to gradviz's
public API (each test names the TF test it ports; values are TF's).

TF runs its pfor and while-loop variants as separate tests; here both are one pass,
and the tests check that experimental_use_pfor=False gives the same numbers. TF's
*Defun variants run the same code under tf.function. Left out, and why:

- test_foldl_partial_function, test_foldl_pure_function (functional_ops.foldl, a
  control-flow op gradviz does not have; they test foldl's vectorization);
- test_cond_func_grad_jacobian (tf.cond);
- test_strided_slice (array_ops.repeat, which gradviz does not have);
- AggregateIndexedSlicesGradientsTest (backprop_util internals and IndexedSlices).

test_nested_jacobian runs eagerly here (TF skips it in eager mode: "Conversion of
function calls not implemented yet"); test_nested_batch_jacobian_foldl unrolls the
fold in Python (the same cos(a + b) chain); test_indexed_slices uses gather, the op
embedding_lookup of one tensor is.
"""
import numpy as np
import pytest

import gradviz as tf


# -- JacobianTest -----------------------------------------------------------------------

def _jacobian(experimental_use_pfor):
    with tf.GradientTape(persistent=not experimental_use_pfor) as g:
        x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
        g.watch(x)
        g.watch(y)
        z = x * x * y
    jacobian = g.jacobian(z, [x, y], experimental_use_pfor=experimental_use_pfor)
    answer = [np.diag((2 * x * y).numpy()), np.diag((x * x).numpy())]
    return jacobian, answer


@pytest.mark.parametrize("use_pfor", [True, False], ids=["Pfor", "WhileLoop"])
@pytest.mark.parametrize("decorate", [lambda f: f, tf.function], ids=["", "Defun"])
def test_jacobian(use_pfor, decorate):
    """JacobianTest.testPfor, testWhileLoop, testPforDefun, testWhileLoopDefun."""
    jacobian, answer = decorate(_jacobian)(use_pfor)
    for j, a in zip(jacobian, answer):
        np.testing.assert_array_equal(j.numpy(), a)


def test_jacobian_persistent_tape():
    """JacobianTest.testPersistentTape."""
    with tf.GradientTape() as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match='persistent'):
        g.jacobian(y, x, experimental_use_pfor=False)


def test_jacobian_parallel_iterations():
    """JacobianTest.test_parallel_iterations."""
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant([[1., 2], [3, 4]])
        g.watch(x)
        y = tf.matmul(x, x)
    a = g.jacobian(y, x, parallel_iterations=2).numpy()
    np.testing.assert_allclose(a, g.jacobian(y, x, parallel_iterations=3).numpy())
    # y01 = x00 x01 + x01 x11: d/dx00 = x01, d/dx01 = x00 + x11, d/dx11 = x01
    np.testing.assert_allclose(a[0, 1], [[2.0, 5.0], [0.0, 2.0]])


def test_nested_jacobian():
    """JacobianTest.test_nested_jacobian."""
    x = tf.ones((10, 2))
    with tf.GradientTape(persistent=False) as g:
        g.watch(x)
        with tf.GradientTape(persistent=False) as gg:
            gg.watch(x)
            y = tf.reduce_sum(tf.square(x))
        dy_x = gg.jacobian(y, x)
    dy_xx = g.batch_jacobian(dy_x, x)
    np.testing.assert_allclose(dy_xx.numpy(), [[[2.0, 0], [0, 2.0]]] * 10)


def test_nested_batch_jacobian_foldl():
    """JacobianTest.test_nested_batch_jacobian_foldl (the fold unrolled)."""
    def _grad(f):
        def _grad_function(primal):
            with tf.GradientTape() as tape:
                tape.watch(primal)
                primal_out = f(primal)
            return tape.batch_jacobian(primal_out, primal)
        return _grad_function

    def _func(x):
        elems = tf.unstack(tf.transpose(x))
        a = elems[0]
        for b in elems[1:]:
            a = tf.cos(a + b)
        return tf.reshape(a, [1, 1])

    f = _func
    x = tf.constant([[1.0, 2.0]])
    for _ in range(2):
        theoretical, numerical = tf.test.compute_gradient(f, [x])
        np.testing.assert_allclose(theoretical, numerical, rtol=1e-3)
        f = _grad(f)
        expected_flat = np.reshape(numerical, [-1])
        np.testing.assert_allclose(np.reshape(f(x).numpy(), [-1]), expected_flat, rtol=1e-3)
        np.testing.assert_allclose(np.reshape(tf.function(f)(x).numpy(), [-1]), expected_flat,
                                   rtol=1e-3)


def test_indexed_slices():
    """JacobianTest.test_indexed_slices."""
    with tf.GradientTape(persistent=True) as g:
        inp = tf.random.uniform([3, 2])
        g.watch(inp)
        output = tf.gather(inp, [0, 2])
    pfor = g.jacobian(output, inp, experimental_use_pfor=True).numpy()
    np.testing.assert_array_equal(pfor, g.jacobian(output, inp, experimental_use_pfor=False).numpy())
    expected = np.zeros((2, 2, 3, 2))
    for i, row in enumerate([0, 2]):
        expected[i, :, row, :] = np.eye(2)
    np.testing.assert_array_equal(pfor, expected)


def test_empty_tensor_consistent_jacobian():
    """JacobianTest.test_empty_tensor_consistent_jacobian."""
    variable = tf.Variable(1.0)
    rng = np.random.default_rng(0)
    inputs = (tf.constant(rng.uniform(size=(0, 4))), tf.constant(rng.uniform(size=(0, 3))))
    with tf.GradientTape(persistent=True) as tape:
        outputs = variable * tf.cast(tf.concat(inputs, axis=-1), tf.float32)
    jacobians_pfor = tape.jacobian(outputs, variable, experimental_use_pfor=True)
    jacobians_loop = tape.jacobian(outputs, variable, experimental_use_pfor=False)
    assert jacobians_pfor.shape == jacobians_loop.shape == (0, 7)


# -- BatchJacobianTest ------------------------------------------------------------------

def _batch_jacobian(experimental_use_pfor):
    with tf.GradientTape(persistent=not experimental_use_pfor) as g:
        x = tf.constant([[1., 2.], [3., 4.]])
        y = tf.constant([[3., 4.], [5., 6.]])
        g.watch(x)
        z = x * x * y
    batch_jacobian = g.batch_jacobian(z, x, experimental_use_pfor=experimental_use_pfor)
    answer = np.stack([np.diag((2 * x[0] * y[0]).numpy()), np.diag((2 * x[1] * y[1]).numpy())])
    return batch_jacobian, answer


@pytest.mark.parametrize("use_pfor", [True, False], ids=["Pfor", "WhileLoop"])
@pytest.mark.parametrize("decorate", [lambda f: f, tf.function], ids=["", "Defun"])
def test_batch_jacobian(use_pfor, decorate):
    """BatchJacobianTest.testPfor, testWhileLoop, testPforDefun, testWhileLoopDefun."""
    batch_jacobian, answer = decorate(_batch_jacobian)(use_pfor)
    np.testing.assert_array_equal(batch_jacobian.numpy(), answer)


def test_batch_jacobian_persistent_tape():
    """BatchJacobianTest.testPersistentTape."""
    with tf.GradientTape() as g:
        x = tf.constant([[1.0, 2.0]])
        g.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match='persistent'):
        g.batch_jacobian(y, x, experimental_use_pfor=False)


def test_batch_jacobian_bad_shape_and_ranks():
    """BatchJacobianTest.testBadShape, testBadInputRank, testBadOutputRank."""
    x = tf.random.uniform([2, 3])
    with tf.GradientTape() as g:
        y = tf.concat([x, x], axis=0)
    with pytest.raises(ValueError, match='Need first dimension'):
        g.batch_jacobian(y, x)
    for x, y in ((tf.random.uniform([2]), tf.random.uniform([2, 2])),
                 (tf.random.uniform([2, 2]), tf.random.uniform([2]))):
        with tf.GradientTape() as g:
            pass
        with pytest.raises(ValueError, match='must have rank at least 2'):
            g.batch_jacobian(y, x)


def test_batch_jacobian_parallel_iterations():
    """BatchJacobianTest.test_parallel_iterations."""
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant([[1., 2], [3, 4]])
        g.watch(x)
        w = tf.constant([[1., 2, 3, 4], [5, 6, 7, 8]])
        y = tf.matmul(x, w)
    a = g.batch_jacobian(y, x, parallel_iterations=2).numpy()
    np.testing.assert_allclose(a, g.batch_jacobian(y, x, parallel_iterations=3).numpy())
    np.testing.assert_allclose(a, np.stack([w.numpy().T] * 2))


def test_batch_jacobian_parallel_iterations_in_function():
    """BackpropTest.testBatchJacobianParallelIterations."""
    @tf.function
    def f(persistent):
        with tf.GradientTape(persistent=persistent) as t:
            x = tf.constant([[3.0]])
            t.watch(x)
            y = x * x
            z = tf.tile(y * y, [1, 16])
        return t.batch_jacobian(z, x, parallel_iterations=8)

    with pytest.raises(RuntimeError, match='persistent=True.*parallel_iterations'):
        f(persistent=False)
    np.testing.assert_allclose(f(persistent=True).numpy(), [[[4.0 * 3.0 ** 3.0]] * 16])


@pytest.mark.parametrize("use_function", [True, False])
@pytest.mark.parametrize("use_pfor", [True, False])
def test_degenerate_shape(use_function, use_pfor):
    """BatchJacobianTest.test_degenerate_shape."""
    def f(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x ** 2
        return tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor)

    if use_function:
        f = tf.function(f)
    assert list(tf.shape(f(tf.zeros([1, 0]))).numpy()) == [1, 0, 0]


@pytest.mark.parametrize("use_pfor", [True, False])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_zeros_type_correct(use_pfor, dtype):
    """BatchJacobianTest.test_zeros_type_correct."""
    @tf.function
    def f(x):
        del x
        return tf.constant([[1.]], dtype=dtype)

    for mode in ('none', 'zero'):
        with tf.GradientTape(persistent=True) as tape:
            x = tf.constant([[2.]], dtype=dtype)
            tape.watch(x)
            y = f(x)
        jac = tape.batch_jacobian(y, x, unconnected_gradients=mode,
                                  experimental_use_pfor=use_pfor)
        assert jac.dtype == dtype
        np.testing.assert_array_equal(jac.numpy(), [[[0.]]])


# -- BackpropTest's jacobian tests ------------------------------------------------------

def test_jacobian_inside_gradient_tape_scope():
    """BackpropTest.testJacobianInsideGradientTapeScope,
    testBatchJacobianInsideGradientTapeScope, testGradientTapeBatchJacobianCalledMultipleTimes."""
    with tf.GradientTape() as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
        np.testing.assert_allclose(g.jacobian(z, x).numpy(), 4.0 * 3.0 ** 3.0)
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant([[3.0]])
        g.watch(x)
        y = x * x
        z = y * y
        np.testing.assert_allclose(g.batch_jacobian(z, x).numpy(), [[[4.0 * 3.0 ** 3.0]]])
    with tf.GradientTape() as g:
        x = tf.constant([[3.0]])
        g.watch(x)
        y = x * x
        z = y * y
    g.batch_jacobian(z, x)
    with pytest.raises(RuntimeError, match='A non-persistent GradientTape can only'):
        g.batch_jacobian(y, [x])


def test_grad_jacobian_conv():
    """JacobianTest.test_grad_jacobian_conv: the gradient of a sum of batch_jacobians of a
    convolution, under tf.function, against finite differences."""
    def _inner(x):
        kernel = tf.ones([3, 3, 1, 9])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.conv2d(x, kernel, strides=(1, 1), padding='SAME', data_format='NHWC')
            reduced = tf.reduce_sum(y ** 2.0, axis=[2, 3])
        return tf.reduce_sum(tape.batch_jacobian(reduced, x))

    theoretical, numerical = tf.test.compute_gradient(tf.function(_inner),
                                                      [tf.ones([10, 4, 4, 1])])
    np.testing.assert_allclose(numerical, theoretical, rtol=0.1)

    @tf.function
    def _outer():
        with tf.GradientTape() as tape:
            x = tf.ones([10, 4, 4, 1])
            tape.watch(x)
            y = _inner(x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(np.reshape(numerical, [-1]), np.reshape(_outer().numpy(), [-1]),
                               rtol=0.1)
