"""Keras 3's layer conventions on every layer (dtype=, build marks built, weights assignable,
get/set_weights), LayerNormalization and Embedding: values against closed forms, gradients
against finite differences (first and second order)."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads
from gradviz.engine.ops import nn
from gradviz.engine.registry import get_op

layers = tf.keras.layers


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# layer factory, input, weight names in order
LAYERS = {
    "Dense": (lambda **kw: layers.Dense(3, **kw), normal((2, 4)), ["kernel", "bias"]),
    "BatchNormalization": (lambda **kw: layers.BatchNormalization(**kw), normal((5, 4)),
                           ["gamma", "beta", "moving_mean", "moving_variance"]),
    "LayerNormalization": (lambda **kw: layers.LayerNormalization(**kw), normal((2, 4)),
                           ["gamma", "beta"]),
    "Embedding": (lambda **kw: layers.Embedding(6, 3, **kw), np.array([[1, 5], [0, 1]]),
                  ["embeddings"]),
    "Conv2D": (lambda **kw: layers.Conv2D(2, 3, **kw), normal((1, 4, 4, 3)), ["kernel", "bias"]),
}


def built(name, **kw):
    make, x, names = LAYERS[name]
    layer = make(**kw)
    layer.build(x.shape)
    return layer, x, names


@pytest.mark.parametrize("name", LAYERS)
def test_build_marks_the_layer_built_and_a_call_keeps_assigned_weights(name):
    layer, x, names = built(name)
    assert layer.built
    weights = [getattr(layer, n) for n in names]
    assert layer.weights == weights
    values = [np.abs(normal(tuple(w.shape), i + 1)).astype(np.float32) + 0.5
              for i, w in enumerate(weights)]  # positive: a moving variance too
    for w, v in zip(weights, values):
        w.assign(v)
    layer(x)
    assert [getattr(layer, n) for n in names] == weights
    for w, v in zip(layer.get_weights(), values):
        np.testing.assert_array_equal(w, v)


@pytest.mark.parametrize("name", LAYERS)
def test_weights_are_assignable_by_name(name):
    layer, x, names = built(name)
    first = names[0]
    shape = tuple(getattr(layer, first).shape)
    setattr(layer, first, np.full(shape, 2.0))           # values: assigned to the Variable
    np.testing.assert_array_equal(layer.get_weights()[0], np.full(shape, 2.0, np.float32))
    replacement = tf.Variable(np.full(shape, 3.0, np.float32), name="mine")
    setattr(layer, first, replacement)                   # a Variable: takes the old one's place
    assert layer.weights[0] is replacement and len(layer.weights) == len(names)
    y = layer(x)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    assert tape.gradient(y, replacement) is not None


def test_assigning_values_before_build_is_refused_in_words():
    with pytest.raises(AttributeError, match="build it first"):
        layers.Dense(3).kernel = np.ones((2, 3))


@pytest.mark.parametrize("name", LAYERS)
def test_set_weights_checks_count_and_shapes_as_keras(name):
    layer, x, names = built(name)
    values = [w + 1 for w in layer.get_weights()]
    layer.set_weights(values)
    for w, v in zip(layer.get_weights(), values):
        np.testing.assert_array_equal(w, v)
    with pytest.raises(ValueError, match=rf"weight list of length {len(names) + 1}, but the "
                                         rf"layer was expecting {len(names)} weights"):
        layer.set_weights(values + [values[0]])
    bad = [np.zeros(v.shape + (1,)) for v in values]
    with pytest.raises(ValueError, match="is not compatible with provided weight shape"):
        layer.set_weights(bad)
    for w, v in zip(layer.get_weights(), values):  # nothing assigned by the refused call
        np.testing.assert_array_equal(w, v)


@pytest.mark.parametrize("name", LAYERS)
def test_dtype_makes_float64_weights_and_outputs(name):
    layer, x, names = built(name, dtype="float64")
    assert layer.dtype == layer.compute_dtype == "float64"
    assert all(w.dtype == tf.float64 for w in layer.weights)
    assert layer(x).dtype == tf.float64


@pytest.mark.parametrize("name", ["Dense", "BatchNormalization", "LayerNormalization"])
def test_a_built_layer_refuses_an_input_of_another_width_in_kerass_words(name):
    layer, x, _ = built(name)
    with pytest.raises(ValueError, match=r"is incompatible with the layer: .*\(2, 5\)"):
        layer(np.ones((2, 5)))


def test_get_weights_of_an_unbuilt_layer_is_empty():
    assert layers.LayerNormalization().get_weights() == []


def test_a_subclass_build_marks_the_layer_built():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", (input_shape[-1],), "ones")

        def call(self, x):
            return x * self.w

    layer = Scale()
    layer.build((2, 3))
    assert layer.built
    layer.w.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(layer(tf.ones((1, 3))).numpy(), [[1.0, 2.0, 3.0]])


# -- LayerNormalization ------------------------------------------------------------------

def layer_norm(x, gamma, beta, axes, epsilon=1e-3):
    mean = x.mean(axis=tuple(axes), keepdims=True)
    var = x.var(axis=tuple(axes), keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon) * gamma + beta


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_values_and_default_epsilon(dtype):
    x = (normal((3, 5)) * 0.01).astype(dtype)  # a small variance: ε = 1e-3 shows
    layer = layers.LayerNormalization(dtype=dtype.__name__)
    y = layer(x)
    assert layer.epsilon == 1e-3 and y.dtype == tf.as_dtype(dtype)
    expected = layer_norm(x.astype(np.float64), 1.0, 0.0, [1])
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 1e-14)


def test_layer_norm_over_several_axes_with_gamma_and_beta():
    x = normal((2, 3, 4))
    layer = layers.LayerNormalization(axis=[1, 2], dtype="float64")
    layer.build(x.shape)
    gamma, beta = normal((3, 4), 1), normal((3, 4), 2)
    layer.set_weights([gamma, beta])
    np.testing.assert_allclose(layer(x).numpy(), layer_norm(x, gamma, beta, [1, 2]), rtol=1e-12)
    middle = layers.LayerNormalization(axis=1, dtype="float64", center=False)
    middle.build(x.shape)
    middle.set_weights([normal((3,), 3)])
    np.testing.assert_allclose(middle(x).numpy(),
                               layer_norm(x, normal((3,), 3)[:, None], 0.0, [1]), rtol=1e-12)


@pytest.mark.parametrize("axis, shape", [(-1, (3, 4)), ([1, 2], (2, 3, 4)), (1, (2, 3, 2))],
                         ids=["last", "two-axes", "middle"])
def test_layer_norm_op_gradients(axis, shape):
    axes = [axis] if isinstance(axis, int) else axis
    p_shape = tuple(shape[a] if a in [x % len(shape) for x in axes] else 1
                    for a in range(min(a % len(shape) for a in axes), len(shape)))
    check_grads(lambda x, g, b: nn.layer_normalization(x, g, b, axis, 1e-3),
                [normal(shape), normal(p_shape, 1), normal(p_shape, 2)], order=2)


def test_layer_norm_third_order_through_a_nonlinearity():
    check_grads(lambda x, g: tf.sin(nn.layer_normalization(x * x, g, 0.0 * g, -1, 1e-3)),
                [normal((2, 3)), normal((3,), 1)], order=3)


def test_layer_norm_hessian_in_x_is_the_finite_difference_one():
    """The second derivative keeps the mean's dependence on x. TF's moments drop it (a
    stop_gradient on the mean in the variance): right to first order, wrong to second."""
    x = tf.constant(normal((4,)))

    def loss(v):
        y = nn.layer_normalization(tf.reshape(v, (1, 4)), tf.ones((4,), tf.float64),
                                   tf.zeros((4,), tf.float64), -1, 1e-3)
        return tf.reduce_sum(y * tf.constant(normal((1, 4), 5)))

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            value = loss(x)
        g = inner.gradient(value, x)
    h = outer.jacobian(g, x).numpy()
    eps, base = 1e-5, x.numpy()
    numeric = np.zeros((4, 4))
    for j in range(4):
        for sign in (1, -1):
            v = tf.constant(base + sign * eps * np.eye(4)[j])
            with tf.GradientTape() as t:
                t.watch(v)
                out = loss(v)
            numeric[:, j] += sign * t.gradient(out, v).numpy() / (2 * eps)
    np.testing.assert_allclose(h, numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(h, h.T, atol=1e-12)


def test_moments_variance_hessian_is_tfs():
    """tf.nn.moments as TF builds it (nn_impl.moments): the variance is the mean of
    squared_difference(x, stop_gradient(mean)), so TF's Hessian of var(x) over n elements
    is 2/n · I, not the true 2/n (I − 11ᵀ/n) (LayerNormalization above keeps the mean's
    dependence, as Keras 3's layer does). This test asserted the true Hessian until
    tf.nn.moments was made TF's."""
    x = tf.constant(normal((5,)))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            _, var = tf.nn.moments(x, axes=[0])
        g = inner.gradient(var, x)
    np.testing.assert_allclose(g.numpy(), 2 / 5 * (x.numpy() - x.numpy().mean()), rtol=1e-12)
    np.testing.assert_allclose(outer.jacobian(g, x).numpy(), 2 / 5 * np.eye(5), atol=1e-14)


def test_layer_norm_layer_weight_gradients_by_finite_differences():
    layer, x, _ = built("LayerNormalization", dtype="float64")

    def f(x, gamma, beta):
        layer.gamma, layer.beta = gamma, beta
        return layer(x) ** 2

    saved = layer.gamma, layer.beta
    try:
        check_grads(f, [x, normal((4,), 1), normal((4,), 2)], order=2)
    finally:
        layer.gamma, layer.beta = saved
    assert layer.weights == list(saved)


def test_layer_norm_op_type_rule_text_and_registry():
    layer = layers.LayerNormalization()
    x = tf.constant(normal((2, 3)).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
    assert y.op.type == "LayerNorm"
    assert get_op("LayerNorm").formula({}, 1) == "grad_γ = Σ grad · x̂"
    g_x, g_gamma, g_beta = tf.gradient_registry.lookup("LayerNorm")(y.op, tf.ones_like(y))
    np.testing.assert_allclose(g_beta.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(g_x.numpy(), np.zeros((2, 3)), atol=1e-6)  # Σ x̂ = 0


# -- Embedding -----------------------------------------------------------------------------

def test_embedding_looks_up_rows_and_scatter_adds_gradients():
    layer = layers.Embedding(5, 2)
    ids = np.array([[0, 3], [3, 4]])
    with tf.GradientTape() as tape:
        rows = layer(ids)
        loss = tf.reduce_sum(rows * rows)
    table = layer.embeddings.numpy()
    assert rows.op.type == "ResourceGather" and rows.dtype == tf.float32
    assert np.abs(table).max() <= 0.05  # Keras's 'uniform': U(-0.05, 0.05)
    np.testing.assert_array_equal(rows.numpy(), table[ids])
    counts = np.bincount(ids.ravel(), minlength=5)[:, None]
    np.testing.assert_allclose(tape.gradient(loss, layer.embeddings).numpy(),
                               2 * counts * table, rtol=1e-6)


def test_embedding_casts_float_ids_to_integers_and_refuses_ids_out_of_range():
    layer = layers.Embedding(3, 2, embeddings_initializer="ones")
    np.testing.assert_array_equal(layer(np.array([2.0, 0.0])).numpy(), np.ones((2, 2)))
    with pytest.raises(IndexError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
        layer([0, 3])
    with pytest.raises(ValueError, match="should be positive"):
        layers.Embedding(0, 2)


def test_embedding_gradient_by_finite_differences():
    layer = layers.Embedding(4, 3, dtype="float64")
    layer.build()

    def f(table):
        layer.embeddings = table
        return tf.sin(layer(np.array([[0, 3], [3, 3]])))

    saved = layer.embeddings
    try:
        check_grads(f, [normal((4, 3))], order=2)
    finally:
        layer.embeddings = saved
