"""TensorFlow's tensorflow/python/ops/parallel_for/gradients_test.py, ported to the
tape's jacobian and batch_jacobian.

TF's tests compare parallel_for.gradients.jacobian / batch_jacobian (graph mode,
tf.gradients inside pfor or a while loop) with per-element gradients. Here the same
models are differentiated with GradientTape: the vectorized Jacobian, the loop variant
(experimental_use_pfor=False) and per-element or per-example gradients must agree.
BasicLSTMCell is written out (the same gates: i, j, f, o with forget_bias 1.0).
Left out, and why:

- test_jacobian_unknown_shape, test_batch_jacobian_unknown_shape,
  test_batch_jacobian_bad_unknown_shapes: placeholders and sessions (graph mode);
- test_dynamic_lstm_batch_jacobian: rnn.dynamic_rnn (a while loop over sequence_length);
- test_mnist_per_eg_jacobian: its model has a Dropout layer (issue 19 section 4, not in
  gradviz yet), and its per-example Jacobians of 10 logits by 3.3 million weights are
  what test_mnist_per_eg_grad already exercises, ten times over.

test_mnist_per_eg_grad runs TF's model without its Dropout layer, which TF calls with
training=False (the identity), and writes losses.softmax_cross_entropy as
-Σ labels · log_softmax(logits).

test_no_path: parallel_for's batch_jacobian returns None without a path; the tape's
batch_jacobian returns zeros there on purpose (TF's backprop.py), which is what is
checked.
"""
import numpy as np
import pytest

import gradviz as tf

RTOL = ATOL = 1e-4


def _random(shape, seed):
    return tf.constant(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


class _FullyConnectedModel:
    def __init__(self, activation_size, num_layers):
        self.layers = [tf.keras.layers.Dense(activation_size, activation=tf.nn.relu)
                       for _ in range(num_layers)]

    def __call__(self, inp):
        for layer in self.layers:
            inp = layer(inp)
        return inp

    @property
    def variables(self):
        return [v for layer in self.layers for v in (layer.kernel, layer.bias)]


class _LSTMCell:
    """BasicLSTMCell: [x, h] @ W + b split into i, j, f, o; c' = c σ(f + 1) + σ(i) tanh(j),
    h' = tanh(c') σ(o)."""

    def __init__(self, state_size, seed=0):
        rng = np.random.default_rng(seed)
        n = 2 * state_size
        self.kernel = tf.Variable(rng.uniform(-0.5, 0.5, (n, 4 * state_size)).astype(np.float32))
        self.bias = tf.Variable(np.zeros(4 * state_size, np.float32))

    def __call__(self, inp, state):
        c, h = state
        i, j, f, o = tf.split(tf.concat([inp, h], axis=1) @ self.kernel + self.bias, 4, axis=1)
        new_c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
        new_h = tf.tanh(new_c) * tf.sigmoid(o)
        return new_h, (new_c, new_h)


def _lstm(cell, init_c, inputs):
    state = (init_c, tf.zeros_like(init_c))
    for inp in inputs:
        _, state = cell(inp, state)
    return state[0]


def _batch_jacobian_three_ways(f, inp):
    """batch_jacobian vectorized, as a loop, and as the per-example jacobians stacked."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(inp)
        out = f(inp)
    pfor = tape.batch_jacobian(out, inp)
    loop = tape.batch_jacobian(out, inp, experimental_use_pfor=False)
    full = tape.jacobian(out, inp).numpy()
    per_example = np.stack([full[b, ..., b, :] for b in range(inp.shape[0])])
    return pfor.numpy(), loop.numpy(), per_example


def test_no_path():
    """test_no_path."""
    for use_pfor in (True, False):
        x, y = tf.constant([[1.0]]), tf.constant([[2.0]])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
        assert tape.jacobian(y, x, experimental_use_pfor=use_pfor) is None
        j = tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
        np.testing.assert_array_equal(j.numpy(), [[[0.0]]])


def test_jacobian_fixed_shape():
    """test_jacobian_fixed_shape: the Jacobian's rows are the per-element gradients."""
    x = tf.random.uniform([2, 2])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(x, x, transpose_a=True)
        elements = [[y[i][j] for j in range(2)] for i in range(2)]
    answer = np.array([[tape.gradient(elements[i][j], x).numpy() for j in range(2)]
                       for i in range(2)])
    for use_pfor in (True, False):
        np.testing.assert_allclose(tape.jacobian(y, x, experimental_use_pfor=use_pfor).numpy(),
                                   answer, rtol=RTOL, atol=ATOL)


def test_batch_jacobian_bad_shapes():
    """test_batch_jacobian_bad_shapes (the tape's words: 'target', not 'output')."""
    x, y = tf.random.uniform([2, 2]), tf.random.uniform([3, 2])
    with tf.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(ValueError, match="Need first dimension of target shape"):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_fixed_shape():
    """test_batch_jacobian_fixed_shape."""
    x = tf.random.uniform([2, 3, 5])
    pfor, loop, _ = _batch_jacobian_three_ways(lambda x: x * x, x)
    two_x = 2 * x.numpy()
    answer = np.stack([np.diag(two_x[b].ravel()).reshape(3, 5, 3, 5) for b in range(2)])
    np.testing.assert_allclose(pfor, answer, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(loop, answer, rtol=RTOL, atol=ATOL)


def test_fc_batch_jacobian():
    """test_fc_batch_jacobian."""
    model = _FullyConnectedModel(activation_size=4, num_layers=2)
    pfor, loop, per_example = _batch_jacobian_three_ways(model, _random([8, 4], 1))
    np.testing.assert_allclose(pfor, loop, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(pfor, per_example, rtol=RTOL, atol=ATOL)


def test_lstm_batch_jacobian():
    """test_lstm_batch_jacobian: d final c / d initial c, per example."""
    cell = _LSTMCell(4)
    inputs = [_random([8, 4], seed) for seed in (2, 3)]
    pfor, loop, per_example = _batch_jacobian_three_ways(
        lambda c: _lstm(cell, c, inputs), tf.zeros([8, 4]))
    np.testing.assert_allclose(pfor, loop, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(pfor, per_example, rtol=RTOL, atol=ATOL)
    assert np.abs(pfor).max() > 0.1  # the forget gate passes c on


def test_lstm_batch_hessian():
    """test_lstm_batch_hessian: batch_jacobian of a batch_jacobian (nested tapes)."""
    cell = _LSTMCell(2)
    inputs = [_random([2, 2], seed) for seed in (4, 5)]
    init_c = tf.constant([[0.3, -0.2], [0.1, 0.5]])
    for use_pfor in (True, False):
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(init_c)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(init_c)
                out = _lstm(cell, init_c, inputs)
            jacobian = tf.reshape(inner.batch_jacobian(out, init_c), [2, -1])
        hessian = outer.batch_jacobian(jacobian, init_c, experimental_use_pfor=use_pfor).numpy()
        expected = np.stack([_numeric_row_hessian(cell, inputs, init_c, b) for b in range(2)])
        np.testing.assert_allclose(hessian, expected, rtol=1e-2, atol=1e-3)


def _numeric_row_hessian(cell, inputs, init_c, b, eps=1e-2):
    """d (d out[b] / d c[b]) / d c[b] by central differences of the tape's jacobian."""
    def row_jacobian(c_value):
        c = tf.constant(c_value)
        with tf.GradientTape() as tape:
            tape.watch(c)
            out = _lstm(cell, c, inputs)
        return tape.batch_jacobian(out, c).numpy()[b].ravel()

    base = init_c.numpy().astype(np.float32)
    columns = []
    for k in range(base.shape[1]):
        plus, minus = base.copy(), base.copy()
        plus[b, k] += eps
        minus[b, k] -= eps
        columns.append((row_jacobian(plus) - row_jacobian(minus)) / (2 * eps))
    return np.stack(columns, axis=-1)


def test_lstm_hessian():
    """test_lstm_hessian: jacobian of the jacobian with respect to the weights."""
    cell = _LSTMCell(2)
    inputs = [_random([2, 2], seed) for seed in (6, 7)]
    init_c = tf.zeros([2, 2])
    weights = [cell.kernel, cell.bias]
    results = []
    for use_pfor in (True, False):
        with tf.GradientTape(persistent=True) as outer:
            with tf.GradientTape(persistent=True) as inner:
                out = _lstm(cell, init_c, inputs)
            jacobians = inner.jacobian(out, weights)
        results.append([[outer.jacobian(j, w, experimental_use_pfor=use_pfor).numpy()
                         for w in weights] for j in jacobians])
    for a, b in zip(results[0], results[1]):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=RTOL, atol=ATOL)
    # d²out/dbias² is symmetric in the two bias indices
    h = results[0][1][1].reshape(4, 8, 8)
    np.testing.assert_allclose(h, h.transpose(0, 2, 1), rtol=1e-4, atol=1e-5)


def _per_example_gradients(model_fn, variables, inputs, batch_size):
    """The gradient of each example's loss, by a loop and by one jacobian pass."""
    loop = []
    for i in range(batch_size):
        with tf.GradientTape() as tape:
            loss = model_fn([tf.expand_dims(tf.gather(x, i), 0) for x in inputs])
        loop.append([g.numpy() for g in tape.gradient(loss, variables)])
    with tf.GradientTape() as tape:
        losses = tf.stack([model_fn([tf.expand_dims(tf.gather(x, i), 0) for x in inputs])
                           for i in range(batch_size)])
    vectorized = [j.numpy() for j in tape.jacobian(losses, variables)]
    return [np.stack([row[k] for row in loop]) for k in range(len(variables))], vectorized


def _l2_loss(t):
    return tf.reduce_sum(t * t) / 2.0


def test_fc_per_eg_grad():
    """test_fc_per_eg_grad."""
    model = _FullyConnectedModel(activation_size=4, num_layers=2)
    projection = tf.keras.layers.Dense(1)
    inp = _random([8, 4], 8)
    model(inp[:1])  # build the layers
    projection(tf.zeros([1, 4]))
    variables = model.variables + [projection.kernel, projection.bias]
    loop, vectorized = _per_example_gradients(lambda xs: _l2_loss(projection(model(xs[0]))),
                                              variables, [inp], 8)
    for a, b in zip(loop, vectorized):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


def test_lstm_per_eg_grad():
    """test_lstm_per_eg_grad."""
    cell = _LSTMCell(4)
    inputs = [_random([8, 4], seed) for seed in (9, 10)]

    def model_fn(xs):
        return _l2_loss(_lstm(cell, tf.zeros([1, 4]), xs))

    loop, vectorized = _per_example_gradients(model_fn, [cell.kernel, cell.bias], inputs, 8)
    for a, b in zip(loop, vectorized):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


def test_fc_jacobian():
    """test_fc_jacobian: the jacobian of the batch output with respect to the weights,
    against per-example jacobians (vectorized and looped)."""
    model = _FullyConnectedModel(activation_size=4, num_layers=2)
    inp = _random([8, 4], 11)
    with tf.GradientTape() as tape:
        output = model(inp)
    jacobians = [j.numpy() for j in tape.jacobian(output, model.variables)]
    for use_pfor in (True, False):
        per_example = []
        for i in range(8):
            with tf.GradientTape(persistent=True) as tape:
                out_i = tf.reshape(model(tf.expand_dims(tf.gather(inp, i), 0)), [-1])
            per_example.append(tape.jacobian(out_i, model.variables,
                                             experimental_use_pfor=use_pfor))
        for k, j in enumerate(jacobians):
            stacked = np.stack([p[k].numpy() for p in per_example])
            np.testing.assert_allclose(j, stacked, rtol=2e-3, atol=1e-3)


class _Mnist:
    """TF's test model (channels_last): two 5x5 same convolutions with relu, each
    followed by a 2x2 max pool, then dense 1024 relu and dense 10."""

    def __init__(self):
        self.conv1 = tf.keras.layers.Conv2D(32, 5, padding="same", activation=tf.nn.relu)
        self.conv2 = tf.keras.layers.Conv2D(64, 5, padding="same", activation=tf.nn.relu)
        self.fc1 = tf.keras.layers.Dense(1024, activation=tf.nn.relu)
        self.fc2 = tf.keras.layers.Dense(10)
        self.flatten = tf.keras.layers.Flatten()

    def __call__(self, inputs):
        y = tf.reshape(inputs, [-1, 28, 28, 1])
        y = tf.nn.max_pool2d(self.conv1(y), 2, 2, "SAME")
        y = tf.nn.max_pool2d(self.conv2(y), 2, 2, "SAME")
        return self.fc2(self.fc1(self.flatten(y)))

    @property
    def variables(self):
        return [v for layer in (self.conv1, self.conv2, self.fc1, self.fc2)
                for v in (layer.kernel, layer.bias)]


@pytest.mark.slow
def test_mnist_per_eg_grad():
    """test_mnist_per_eg_grad: per-example gradients of a convolutional classifier."""
    batch = 4
    rng = np.random.default_rng(12)
    images = tf.constant(rng.uniform(size=(batch, 28, 28)).astype(np.float32))
    labels = np.zeros((batch, 10), np.float32)
    labels[np.arange(batch), rng.integers(0, 10, batch)] = 1.0
    model = _Mnist()
    model(images[:1])  # build the layers

    def model_fn(xs):
        image, label = xs
        logits = tf.reshape(model(image), [-1])
        return -tf.reduce_sum(tf.reshape(label, [-1]) * tf.nn.log_softmax(logits))

    loop, vectorized = _per_example_gradients(model_fn, model.variables,
                                              [images, tf.constant(labels)], batch)
    for a, b in zip(loop, vectorized):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=ATOL)
    assert all(np.abs(g).max() > 0 for g in loop)
