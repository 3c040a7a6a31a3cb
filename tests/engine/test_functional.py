"""vjp, jvp, hessian, hvp: checked against closed forms and numeric Jacobians (float64)."""
import numpy as np
import pytest

import gradviz as tf


def numeric_jacobian(f, x, eps=1e-6):
    """Central differences in float64: shape f(x).shape + x.shape."""
    x = np.asarray(x, np.float64)
    out_shape = np.shape(f(tf.constant(x)).numpy())
    jac = np.zeros(out_shape + x.shape)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        difference = f(tf.constant(plus)).numpy() - f(tf.constant(minus)).numpy()
        jac[(Ellipsis,) + i] = difference / (2 * eps)
    return jac


def f_vector(x):
    """R³ -> R² with every kind of coupling."""
    return tf.stack([x[0] * tf.sin(x[1]), tf.exp(x[2]) * x[0] + x[1] ** 2])


@pytest.fixture
def x64():
    return tf.constant([0.3, -1.1, 0.7], dtype=tf.float64)


def test_vjp_matches_jacobian_transpose(x64):
    out, vjp_fn = tf.vjp(f_vector, x64)
    np.testing.assert_allclose(out.numpy(), f_vector(x64).numpy())
    jac = numeric_jacobian(f_vector, x64.numpy())
    for v in ([1.0, 0.0], [0.0, 1.0], [2.0, -3.0]):
        (g,) = vjp_fn(tf.constant(v, dtype=tf.float64))
        np.testing.assert_allclose(g.numpy(), np.array(v) @ jac, rtol=1e-7)


def test_vjp_of_two_primals_gives_zero_for_an_unused_one():
    a = tf.constant([1.0, 2.0], dtype=tf.float64)
    b = tf.constant(3.0, dtype=tf.float64)
    _, vjp_fn = tf.vjp(lambda a, b: a * 2.0, a, b)
    ga, gb = vjp_fn(tf.constant([1.0, 1.0], dtype=tf.float64))
    np.testing.assert_array_equal(ga.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(gb.numpy(), 0.0)


def test_jvp_matches_jacobian_times_tangent(x64):
    jac = numeric_jacobian(f_vector, x64.numpy())
    for t in ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.5, -2.0, 1.5]):
        out, tangent_out = tf.jvp(f_vector, [x64], [tf.constant(t, dtype=tf.float64)])
        np.testing.assert_allclose(out.numpy(), f_vector(x64).numpy())
        np.testing.assert_allclose(tangent_out.numpy(), jac @ np.array(t), rtol=1e-7)


def test_jvp_of_a_matrix_function():
    a = tf.constant([[2.0, 1.0], [1.0, 3.0]], dtype=tf.float64)
    da = tf.constant([[0.1, 0.0], [0.2, -0.3]], dtype=tf.float64)
    out, tangent = tf.jvp(lambda m: tf.matmul(m, m), [a], [da])
    an, dan = a.numpy(), da.numpy()
    np.testing.assert_allclose(out.numpy(), an @ an)
    np.testing.assert_allclose(tangent.numpy(), dan @ an + an @ dan, rtol=1e-12)


def test_jvp_of_a_function_with_several_outputs_keeps_their_structure():
    x = tf.constant(3.0, dtype=tf.float64)
    (a, b), (ta, tb) = tf.jvp(lambda x: (x * 2.0, x * x), [x], [tf.constant(0.5, tf.float64)])
    assert (a.numpy(), b.numpy(), ta.numpy(), tb.numpy()) == (6.0, 9.0, 1.0, 3.0)


def test_hessian_of_sum_of_fourth_powers():
    x = tf.constant([1.0, -2.0, 0.5], dtype=tf.float64)
    h = tf.hessian(lambda x: tf.reduce_sum(x ** 4), x)
    np.testing.assert_allclose(h.numpy(), np.diag(12 * x.numpy() ** 2), rtol=1e-12)


def test_hessian_of_a_quadratic_form_and_of_a_matrix_argument():
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, -1.0, 1.0]])
    x = tf.constant([0.3, 0.2, -0.4], dtype=tf.float64)
    def quadratic_form(x):  # xᵀ A x
        return tf.reduce_sum(x * tf.linalg.matmul(tf.constant(a), x[:, None])[:, 0])
    h = tf.hessian(quadratic_form, x)
    np.testing.assert_allclose(h.numpy(), a + a.T, rtol=1e-12)

    m = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
    h = tf.hessian(lambda m: tf.reduce_sum(tf.sin(m)), m)
    assert h.shape == (2, 2, 2, 2)
    expected = np.diag(-np.sin(m.numpy()).ravel()).reshape(2, 2, 2, 2)
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-12, atol=1e-15)


def test_hessian_matches_numeric_jacobian_of_the_gradient():
    def f(x):
        return tf.reduce_sum(tf.tanh(x) * x[::-1]) + tf.reduce_prod(x)

    def grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return t.gradient(y, x)

    x = tf.constant([0.4, -0.8, 1.2], dtype=tf.float64)
    np.testing.assert_allclose(tf.hessian(f, x).numpy(), numeric_jacobian(grad, x.numpy()),
                               rtol=1e-6, atol=1e-9)


def test_hvp_equals_hessian_times_vector():
    def f(x):
        return tf.reduce_sum(x ** 4) + tf.reduce_sum(tf.exp(x[:2] * x[1:]))

    x = tf.constant([0.5, -1.0, 1.5], dtype=tf.float64)
    h = tf.hessian(f, x).numpy()
    for v in ([1.0, 0.0, 0.0], [0.3, -0.2, 0.9]):
        hv = tf.hvp(f, x, tf.constant(v, dtype=tf.float64))
        np.testing.assert_allclose(hv.numpy(), h @ np.array(v), rtol=1e-12)


def test_hvp_of_sum_of_fourth_powers_closed_form():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    v = tf.constant([1.0, -1.0], dtype=tf.float64)
    hv = tf.hvp(lambda x: tf.reduce_sum(x ** 4), x, v)
    np.testing.assert_allclose(hv.numpy(), 12 * x.numpy() ** 2 * v.numpy())


def test_float32_inputs_work_too():
    x = tf.constant([1.0, 2.0])
    h = tf.hessian(lambda x: tf.reduce_sum(x ** 3), x)
    assert h.dtype == tf.float32
    np.testing.assert_allclose(h.numpy(), np.diag([6.0, 12.0]), rtol=1e-6)


def test_tangents_and_cotangents_as_lists_take_the_primal_dtype(x64):
    jac = numeric_jacobian(f_vector, x64.numpy())
    _, tangent_out = tf.jvp(f_vector, x64, [1.0, 0.0, 0.0])  # one primal, not in a list
    assert tangent_out.dtype == tf.float64
    np.testing.assert_allclose(tangent_out.numpy(), jac[:, 0], rtol=1e-7)
    _, vjp_fn = tf.vjp(f_vector, x64)
    (g,) = vjp_fn([0.0, 1.0])
    assert g.dtype == tf.float64
    np.testing.assert_allclose(g.numpy(), jac[1], rtol=1e-7)
    hv = tf.hvp(lambda x: tf.reduce_sum(x ** 4), x64, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(hv.numpy(), [12 * 0.3 ** 2, 0.0, 0.0], rtol=1e-12)
