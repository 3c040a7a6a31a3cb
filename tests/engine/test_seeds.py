"""Every seed document's example, written as close to the seed's code as gradviz allows,
asserting the numbers the seeds print (or closed forms / finite differences where the
seed's numbers are random)."""
import numpy as np
import pytest

import gradviz as tf
from gradviz import gradient_registry


@pytest.fixture(autouse=True)
def _seeded():
    tf.random.set_seed(1234)


# -- seed 004: why dy/dx of a matmul has repeated rows -----------------------------------

MAT = [[0.8363, 0.4719, 0.9783],
       [0.3379, 0.6548, 0.3835],
       [0.7846, 0.9173, 0.2393],
       [0.5418, 0.3875, 0.4276],
       [0.0948, 0.2637, 0.8039]]
ANOTHER_MAT = [[0.43842274, -0.53439844, -0.07710262],
               [1.5658046, -0.1012345, -0.2744976],
               [1.4204658, 1.2609464, -0.43640924]]


def test_seed004_gradient_of_matmul_is_gradient_of_the_sum():
    tf_t = tf.Variable(tf.convert_to_tensor(MAT))
    tf_b = tf.Variable(tf.convert_to_tensor(ANOTHER_MAT))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(tf_t)
        y_tf = tf.matmul(tf_t, tf_b)
        y_t0 = y_tf[0, 0]
    dy_dx = tape.gradient(y_tf, tf_t)
    assert dy_dx.shape == (5, 3) and dy_dx.dtype == tf.float32
    np.testing.assert_allclose(dy_dx.numpy(), [[-0.17307831, 1.1900724, 2.245003]] * 5,
                               rtol=1e-6)
    # The answer's explanation: each dy_dx[i, j] is the sum of row j of tf_b.
    np.testing.assert_allclose(dy_dx.numpy()[0, 0], np.sum(np.array(ANOTHER_MAT)[0, :]),
                               rtol=1e-6)
    np.testing.assert_allclose(dy_dx.numpy()[:, 1], np.sum(ANOTHER_MAT[1]), rtol=1e-6)

    dy0_dx = tape.gradient(y_t0, tf_t)
    expected = np.zeros((5, 3), np.float32)
    expected[0] = [0.43842274, 1.5658046, 1.4204658]  # the first column of tf_b
    np.testing.assert_allclose(dy0_dx.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(dy0_dx.numpy()[0].sum(), 3.424693, rtol=1e-6)


# -- seed 003: what a registered gradient function returns --------------------------------

def test_seed003_registry_matmul_grad_matches_the_tape():
    matmul_grad = gradient_registry.lookup('MatMul')
    assert callable(matmul_grad)
    a = tf.constant([[1, 2], [3, 4]], dtype=tf.float32)
    b = tf.constant([[6, 7, 8], [9, 10, 11]], dtype=tf.float32)
    with tf.GradientTape(persistent=True) as g:
        g.watch(a)
        c = tf.matmul(a, b)
        cc = c * tf.stop_gradient(c)
    np.testing.assert_array_equal(c.numpy(), [[24, 27, 30], [54, 61, 68]])

    grad_c_a_1 = g.gradient(c, a)
    grad_c_a_2, _ = matmul_grad(c.op, tf.ones_like(c))
    np.testing.assert_array_equal(grad_c_a_1.numpy(), [[21, 30], [21, 30]])
    np.testing.assert_array_equal(grad_c_a_2.numpy(), [[21, 30], [21, 30]])

    grad_cc_a_1 = g.gradient(cc, a)
    grad_cc_a_2, _ = matmul_grad(c.op, c)
    np.testing.assert_array_equal(grad_cc_a_1.numpy(), [[573, 816], [1295, 1844]])
    np.testing.assert_array_equal(grad_cc_a_2.numpy(), [[573, 816], [1295, 1844]])


def test_seed003_gradient_of_a_single_element_is_a_row_of_b_transposed():
    """The comment thread: d c[0,0] / d a is b's first column in a's first row."""
    a = tf.constant([[1, 2], [3, 4]], dtype=tf.float32)
    b = tf.constant([[6, 7, 8], [9, 10, 11]], dtype=tf.float32)
    with tf.GradientTape() as g:
        g.watch(a)
        c = tf.matmul(a, b)
        c00 = c[0, 0]
    np.testing.assert_array_equal(g.gradient(c00, a).numpy(), [[6, 9], [0, 0]])


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_seed003_every_matmul_grad_branch_matches_the_tape(transpose_a, transpose_b):
    rng = np.random.default_rng(3)
    a_np = rng.standard_normal((2, 4)).astype(np.float32)   # (m, k)
    b_np = rng.standard_normal((4, 3)).astype(np.float32)   # (k, n)
    a = tf.constant(a_np.T if transpose_a else a_np)
    b = tf.constant(b_np.T if transpose_b else b_np)
    matmul_grad = gradient_registry.lookup('MatMul')
    with tf.GradientTape(persistent=True) as g:
        g.watch([a, b])
        c = tf.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
        cc = c * tf.stop_gradient(c)
    assert c.op.type == "MatMul"
    assert c.op.get_attr("transpose_a") == transpose_a
    assert c.op.get_attr("transpose_b") == transpose_b
    np.testing.assert_allclose(c.numpy(), a_np @ b_np, rtol=1e-5)
    by_registry = matmul_grad(c.op, c)
    by_tape = g.gradient(cc, [a, b])
    # Closed form for the untransposed operands, transposed back where needed.
    ga = c.numpy() @ b_np.T
    gb = a_np.T @ c.numpy()
    expected = [ga.T if transpose_a else ga, gb.T if transpose_b else gb]
    for r, t, e in zip(by_registry, by_tape, expected):
        np.testing.assert_allclose(r.numpy(), e, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(t.numpy(), e, rtol=1e-5, atol=1e-5)


# -- seed 002: output_gradients (grad_ys), gradients by parts -----------------------------

def test_seed002_output_gradients_is_a_vector_jacobian_product():
    with tf.GradientTape() as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x  # y is a length 2 vector
    vec = tf.constant([2.0, 3.0])  # vector in vector jacobian product
    grad = g.gradient(y, x, output_gradients=vec)
    np.testing.assert_array_equal(grad.numpy(), [4.0, 12.0])

    with tf.GradientTape() as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    grad = g.gradient(y, x)  # the vector-jacobian product with a vector of ones
    np.testing.assert_array_equal(grad.numpy(), [2.0, 4.0])


def test_seed002_gradient_by_parts_equals_the_whole_gradient():
    x = tf.ones([1, 10])
    w = tf.Variable(tf.constant(0.5, shape=[10, 5]))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = tf.matmul(x, w)
        out_target = tf.constant(0., shape=[5])
        loss = tf.reduce_mean(tf.square(out - out_target))
        parts = tf.split(out, 5, axis=1)
    grad = tape.gradient(loss, x)
    np.testing.assert_allclose(grad.numpy(), np.full((1, 10), 5.0))

    part_grad_1 = tape.gradient(loss, out)                              # (1, 5)
    np.testing.assert_allclose(part_grad_1.numpy(), np.full((1, 5), 2.0))
    # The seed's split-and-concat: one gradient per output element, no summing.
    part_grad_2 = tf.concat([tape.gradient(i, x) for i in parts], axis=0)  # (5, 10)
    grad_by_parts = tf.matmul(part_grad_1, part_grad_2)
    np.testing.assert_allclose(grad_by_parts.numpy(), grad.numpy(), rtol=1e-6)

    # The "for future readers" answer: tape.jacobian gives part_grad_2 directly.
    j = tape.jacobian(out, x)
    assert j.shape == (1, 5, 1, 10)
    np.testing.assert_array_equal(tf.reshape(j, [5, 10]).numpy(), part_grad_2.numpy())
    grad_by_jacobian = tf.matmul(part_grad_1, tf.reshape(j, [5, 10]))
    np.testing.assert_allclose(grad_by_jacobian.numpy(), grad.numpy(), rtol=1e-6)


def test_seed002_externally_supplied_gradient():
    """dz/dx = gradient(y, x, output_gradients=approx) when only dz/dy ≈ approx is known."""
    x = tf.random.normal([3, 4])
    w = tf.Variable(tf.random.normal([4, 2]))
    approx = tf.random.normal([3, 2])  # e.g. measured by hardware, not differentiable
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.tanh(tf.matmul(x, w))
        weighted = tf.reduce_sum(y * tf.stop_gradient(approx))
    dz_dx = tape.gradient(y, x, output_gradients=approx)
    local = approx.numpy() * (1 - y.numpy() ** 2)
    np.testing.assert_allclose(dz_dx.numpy(), local @ w.numpy().T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dz_dx.numpy(), tape.gradient(weighted, x).numpy(),
                               rtol=1e-5, atol=1e-6)
    dz_dw = tape.gradient(y, w, output_gradients=approx)
    np.testing.assert_allclose(dz_dw.numpy(), x.numpy().T @ local, rtol=1e-5, atol=1e-6)


# -- seed 001: the advanced autodiff guide ------------------------------------------------

def test_seed001_stop_recording():
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)

    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq

    grad = t.gradient(z, {'x': x, 'y': y})
    assert grad['x'].numpy() == 4.0  # 2*x => 4
    assert grad['y'] is None


def test_seed001_reset():
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    reset = True

    with tf.GradientTape() as t:
        y_sq = y * y
        if reset:
            # Throw out all the tape recorded so far.
            t.reset()
        z = x * x + y_sq

    grad = t.gradient(z, {'x': x, 'y': y})
    assert grad['x'].numpy() == 4.0
    assert grad['y'] is None


def test_seed001_stop_gradient():
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)

    with tf.GradientTape() as t:
        y_sq = y**2
        z = x**2 + tf.stop_gradient(y_sq)

    grad = t.gradient(z, {'x': x, 'y': y})
    np.testing.assert_allclose(grad['x'].numpy(), 4.0)
    assert grad['y'] is None


def test_seed001_custom_gradient_clips_the_intermediate_gradient():
    # Establish an identity operation, but clip during the gradient pass.
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)
        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v * v)
    np.testing.assert_allclose(output.numpy(), 4.0)
    grad = t.gradient(output, v)  # calls "backward", which clips 4 to 2
    np.testing.assert_allclose(grad.numpy(), 2.0)
    assert str(grad) == "tf.Tensor(2.0, shape=(), dtype=float32)"


def test_seed001_multiple_tapes():
    x0 = tf.constant(0.0)
    x1 = tf.constant(0.0)

    with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)

        y0 = tf.math.sin(x0)
        y1 = tf.nn.sigmoid(x1)

        y = y0 + y1

        ys = tf.reduce_sum(y)
    assert tape0.gradient(ys, x0).numpy() == 1.0   # cos(x) => 1.0
    assert tape1.gradient(ys, x1).numpy() == 0.25  # sigmoid(x1)*(1-sigmoid(x1)) => 0.25


def test_seed001_higher_order_gradients():
    x = tf.Variable(1.0)  # Create a Tensorflow variable initialized to 1.0

    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x

        # Compute the gradient inside the outer `t2` context manager
        # which means the gradient computation is differentiable as well.
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)

    assert dy_dx.numpy() == 3.0    # 3 * x**2 => 3.0
    assert d2y_dx2.numpy() == 6.0  # 6 * x => 6.0


def _input_gradient_norm(x, kernel, bias):
    """Closed form of the seed's g1_mag, in float64: ‖d/dx sum(relu(xW+b)²)‖."""
    z = x @ kernel + bias
    g1 = (2 * np.maximum(z, 0)) @ kernel.T
    return np.linalg.norm(g1)


def test_seed001_input_gradient_regularization():
    x = tf.random.normal([7, 5])

    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
    with tf.GradientTape() as t2:
        # The inner tape only takes the gradient with respect to the input,
        # not the variables.
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)
            out = tf.reduce_sum(layer(x)**2)
        # 1. Calculate the input gradient.
        g1 = t1.gradient(out, x)
        # 2. Calculate the magnitude of the input gradient.
        g1_mag = tf.norm(g1)

    # 3. Calculate the gradient of the magnitude with respect to the model.
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)
    assert [var.shape for var in dg1_mag] == [tf.TensorShape([5, 10]), tf.TensorShape([10])]
    assert y.shape == (7, 10)

    xs = x.numpy().astype(np.float64)
    kernel = layer.kernel.numpy().astype(np.float64)
    bias = layer.bias.numpy().astype(np.float64)
    np.testing.assert_allclose(g1_mag.numpy(), _input_gradient_norm(xs, kernel, bias), rtol=1e-5)
    eps = 1e-6
    numeric_kernel = np.zeros_like(kernel)
    for i in np.ndindex(kernel.shape):
        plus, minus = kernel.copy(), kernel.copy()
        plus[i] += eps
        minus[i] -= eps
        numeric_kernel[i] = (_input_gradient_norm(xs, plus, bias)
                             - _input_gradient_norm(xs, minus, bias)) / (2 * eps)
    numeric_bias = np.zeros_like(bias)
    for i in range(bias.size):
        plus, minus = bias.copy(), bias.copy()
        plus[i] += eps
        minus[i] -= eps
        numeric_bias[i] = (_input_gradient_norm(xs, kernel, plus)
                           - _input_gradient_norm(xs, kernel, minus)) / (2 * eps)
    np.testing.assert_allclose(dg1_mag[0].numpy(), numeric_kernel, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dg1_mag[1].numpy(), numeric_bias, rtol=1e-3, atol=1e-4)


def test_seed001_jacobian_scalar_source():
    x = tf.linspace(-10.0, 10.0, 200+1)
    delta = tf.Variable(0.0)

    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x+delta)

    dy_dx = tape.jacobian(y, delta)
    assert str(y.shape) == "(201,)"
    assert str(dy_dx.shape) == "(201,)"
    s = 1 / (1 + np.exp(-x.numpy().astype(np.float64)))
    np.testing.assert_allclose(dy_dx.numpy(), s * (1 - s), rtol=1e-5, atol=1e-7)


def test_seed001_jacobian_tensor_source():
    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

    with tf.GradientTape(persistent=True) as tape:
        y = layer(x)

    assert y.shape == tf.TensorShape([7, 10])
    assert layer.kernel.shape == tf.TensorShape([5, 10])
    j = tape.jacobian(y, layer.kernel)
    assert j.shape == tf.TensorShape([7, 10, 5, 10])

    g = tape.gradient(y, layer.kernel)
    assert str(g.shape) == "(5, 10)"
    j_sum = tf.reduce_sum(j, axis=[0, 1])
    delta = tf.reduce_max(abs(g - j_sum)).numpy()
    assert delta < 1e-6

    # Each slice is the closed form: d y[b, u] / d kernel[i, v] = [u == v] relu'(z[b, u]) x[b, i].
    mask = (x.numpy() @ layer.kernel.numpy() + layer.bias.numpy()) > 0
    expected = np.einsum("bu,bi,uv->buiv", mask.astype(np.float32), x.numpy(), np.eye(10))
    np.testing.assert_allclose(j.numpy(), expected, rtol=1e-6)


def _hessian_example():
    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.relu)

    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            x = layer1(x)
            x = layer2(x)
            loss = tf.reduce_mean(x**2)

        g = t1.gradient(loss, layer1.kernel)

    h = t2.jacobian(g, layer1.kernel)
    return layer1, g, h


def test_seed001_hessian_and_newton_step():
    layer1, g, h = _hessian_example()
    assert layer1.kernel.shape == (5, 8)
    assert h.shape == (5, 8, 5, 8)
    assert f'h.shape: {h.shape}' == 'h.shape: (5, 8, 5, 8)'

    n_params = tf.reduce_prod(layer1.kernel.shape)
    assert int(n_params) == 40

    g_vec = tf.reshape(g, [n_params, 1])
    h_mat = tf.reshape(h, [n_params, n_params])
    # The Hessian matrix should be symmetric.
    assert np.max(np.abs(h_mat.numpy() - h_mat.numpy().T)) < 1e-5
    assert np.abs(h_mat.numpy()).max() > 0

    eps = 1e-3
    eye_eps = tf.eye(h_mat.shape[0])*eps
    # X(k+1) = X(k) - (∇²f(X(k)))^-1 @ ∇f(X(k))
    update = tf.linalg.solve(h_mat + eye_eps, g_vec)
    a = h_mat.numpy().astype(np.float64) + np.eye(40) * eps
    residual = a @ update.numpy() - g_vec.numpy()
    assert np.abs(residual).max() <= 1e-4 * max(1.0, np.abs(a).max() * np.abs(update.numpy()).max())

    before = layer1.kernel.numpy()
    _ = layer1.kernel.assign_sub(tf.reshape(update, layer1.kernel.shape))
    np.testing.assert_allclose(layer1.kernel.numpy(), before - update.numpy().reshape(5, 8),
                               rtol=1e-6)
    assert not np.array_equal(layer1.kernel.numpy(), before)


def test_seed001_hessian_matches_finite_differences_of_the_gradient():
    """Check the values too: each Hessian row is the change of the gradient."""
    x = tf.random.normal([7, 5], dtype=tf.float64)
    kernel1 = tf.Variable(tf.random.normal([5, 8], dtype=tf.float64))
    kernel2 = tf.Variable(tf.random.normal([8, 6], dtype=tf.float64))

    def loss_fn():
        return tf.reduce_mean(tf.tanh(tf.matmul(tf.tanh(tf.matmul(x, kernel1)), kernel2))**2)

    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            loss = loss_fn()
        g = t1.gradient(loss, kernel1)
    h = t2.jacobian(g, kernel1).numpy()

    def grad_at(k):
        kernel1.assign(k)
        with tf.GradientTape() as t:
            loss = loss_fn()
        return t.gradient(loss, kernel1).numpy()

    k0 = kernel1.numpy()
    eps = 1e-6
    for i in [(0, 0), (2, 5), (4, 7)]:
        plus, minus = k0.copy(), k0.copy()
        plus[i] += eps
        minus[i] -= eps
        numeric = (grad_at(plus) - grad_at(minus)) / (2 * eps)
        np.testing.assert_allclose(h[(...,) + i], numeric, rtol=1e-5, atol=1e-8)


def test_seed001_batch_jacobian():
    x = tf.random.normal([7, 5])

    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)

    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)

    assert y.shape == tf.TensorShape([7, 6])
    j = tape.jacobian(y, x)
    assert j.shape == tf.TensorShape([7, 6, 7, 5])

    # Every (batch, batch) slice is diagonal: examples are independent.
    jn = j.numpy()
    for b1 in range(7):
        for b2 in range(7):
            if b1 != b2:
                assert not jn[b1, :, b2, :].any()

    j_sum = tf.reduce_sum(j, axis=2)
    j_select = tf.einsum('bxby->bxy', j)
    assert j_sum.shape == (7, 6, 5) and j_select.shape == (7, 6, 5)

    jb = tape.batch_jacobian(y, x)
    assert jb.shape == tf.TensorShape([7, 6, 5])
    error = tf.reduce_max(abs(jb - j_sum))
    assert error < 1e-3
    np.testing.assert_allclose(jb.numpy(), j_sum.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(jb.numpy(), j_select.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(jb.numpy(), np.einsum('bxby->bxy', jn), rtol=1e-6, atol=1e-7)


def test_seed001_batch_jacobian_with_batch_normalization_still_runs():
    x = tf.random.normal([7, 5])

    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    bn = tf.keras.layers.BatchNormalization()
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)

    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = bn(y, training=True)
        y = layer2(y)

    j = tape.jacobian(y, x)
    assert f'j.shape: {j.shape}' == 'j.shape: (7, 6, 7, 5)'
    # Batch statistics couple the examples: the off-diagonal blocks are not zero.
    jn = j.numpy()
    off_diagonal = [np.abs(jn[b1, :, b2, :]).max() for b1 in range(7) for b2 in range(7)
                    if b1 != b2]
    assert min(off_diagonal) > 0

    jb = tape.batch_jacobian(y, x)
    assert f'jb.shape: {jb.shape}' == 'jb.shape: (7, 6, 5)'
    # What it computes (as TF): jb[b', i] = d(sum_b y[b, i]) / d x[b'], which is no longer
    # row b' of the Jacobian because the off-diagonal blocks add in.
    expected = np.transpose(jn.sum(axis=0), (1, 0, 2))
    np.testing.assert_allclose(jb.numpy(), expected, rtol=1e-4, atol=1e-6)
    assert not np.allclose(jb.numpy(), np.einsum('bxby->bxy', jn), atol=1e-4)


# -- seed 000: the Hessian of a layer's weights via nested tapes ---------------------------

def test_seed000_solution2_hessian_over_a_list_of_weights():
    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(4, activation=tf.nn.tanh)
    layer(x)  # build the weights
    layer.bias.assign(tf.random.normal([4]) * 0.5)

    with tf.GradientTape() as tape1:
        with tf.GradientTape() as tape2:
            y = layer(x)
            loss = tf.reduce_mean(y ** 2)
        first_order_gradient = tape2.gradient(loss, layer.trainable_weights)
    hessian = tape1.jacobian(first_order_gradient, layer.trainable_weights)

    # A list target gives target x sources: [[d²/dk dk, d²/dk db], [d²/db dk, d²/db db]].
    assert isinstance(hessian, list) and len(hessian) == 2
    assert [[h.shape for h in row] for row in hessian] == [
        [(5, 4, 5, 4), (5, 4, 4)], [(4, 5, 4), (4, 4)]]
    h_kb, h_bk = hessian[0][1].numpy(), hessian[1][0].numpy()
    np.testing.assert_allclose(h_kb, np.transpose(h_bk, (1, 2, 0)), rtol=1e-4, atol=1e-6)
    h_bb = hessian[1][1].numpy()
    np.testing.assert_allclose(h_bb, h_bb.T, rtol=1e-4, atol=1e-6)

    # The bias block in closed form: loss = mean(tanh(z)²), z = xW + b.
    z = x.numpy().astype(np.float64) @ layer.kernel.numpy() + layer.bias.numpy()
    t = np.tanh(z)
    d2 = 2 * (1 - t**2) ** 2 - 4 * t**2 * (1 - t**2)  # d²(tanh²)/dz²
    np.testing.assert_allclose(h_bb, np.diag(d2.sum(axis=0)) / z.size, rtol=1e-4, atol=1e-6)
