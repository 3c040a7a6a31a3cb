"""tf.keras.optimizers against closed forms of Keras' documented update equations.

Each expected trajectory is written here element by element in plain float64 Python,
independently of gradviz/engine/optimizers.py, and compared over several steps.
"""
import math

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.optimizers import Newton

A = [3.0, 0.5, -1.0, 2.0]      # f(w) = Σ 0.5·a·w² + b·w, so g = a·w + b
B = [1.0, -2.0, 0.25, 0.0]
W0 = [0.7, -1.3, 2.0, 0.1]
STEPS = 6


def loss_fn(w):
    return lambda: tf.reduce_sum(0.5 * tf.constant(A, w.dtype) * w * w + tf.constant(B, w.dtype) * w)


def run(optimizer, dtype="float64", steps=STEPS):
    w = tf.Variable(np.array(W0, dtype))
    path = []
    for _ in range(steps):
        optimizer.minimize(loss_fn(w), [w])
        path.append(w.numpy().astype(np.float64))
    return np.array(path)


def closed_form(rule, state=None, steps=STEPS):
    """Run `rule(w, g, state, t) -> w` on each element in float64."""
    path = np.zeros((steps, len(W0)))
    for i, (a, b, w) in enumerate(zip(A, B, W0)):
        s = dict(state or {})
        for t in range(1, steps + 1):
            w = rule(w, a * w + b, s, t)
            path[t - 1, i] = w
    return path


def sgd(lr, momentum=0.0, nesterov=False):
    def rule(w, g, s, t):
        if momentum == 0:
            return w - lr * g
        s["v"] = momentum * s.get("v", 0.0) - lr * g
        return w + momentum * s["v"] - lr * g if nesterov else w + s["v"]
    return rule


def rmsprop(lr, rho, eps, momentum=0.0, centered=False):
    def rule(w, g, s, t):
        s["ms"] = rho * s.get("ms", 0.0) + (1 - rho) * g * g
        if centered:
            s["mg"] = rho * s.get("mg", 0.0) + (1 - rho) * g
            inc = lr * g / math.sqrt(s["ms"] - s["mg"] ** 2 + eps)
        else:
            inc = lr * g / math.sqrt(s["ms"] + eps)
        if momentum:
            s["mom"] = momentum * s.get("mom", 0.0) + inc
            inc = s["mom"]
        return w - inc
    return rule


def adam(lr, b1, b2, eps, amsgrad=False):
    """Kingma & Ba with bias-corrected m̂, v̂ and Keras' 'epsilon hat' ε̂ = ε·√(1 − β₂ᵗ)."""
    def rule(w, g, s, t):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        v = s["v"]
        if amsgrad:
            s["vmax"] = v = max(s.get("vmax", 0.0), v)
        m_hat, v_hat = s["m"] / (1 - b1 ** t), v / (1 - b2 ** t)
        return w - lr * m_hat / (math.sqrt(v_hat) + eps / math.sqrt(1 - b2 ** t))
    return rule


CASES = [
    ("SGD", lambda: tf.keras.optimizers.SGD(0.1), sgd(0.1)),
    ("SGD default lr", lambda: tf.keras.optimizers.SGD(), sgd(0.01)),
    ("momentum", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9), sgd(0.1, 0.9)),
    ("nesterov", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.8, nesterov=True),
     sgd(0.1, 0.8, True)),
    ("RMSprop defaults", lambda: tf.keras.optimizers.RMSprop(), rmsprop(0.001, 0.9, 1e-7)),
    ("RMSprop", lambda: tf.keras.optimizers.RMSprop(0.05, rho=0.8, epsilon=1e-3),
     rmsprop(0.05, 0.8, 1e-3)),
    ("RMSprop momentum centered",
     lambda: tf.keras.optimizers.RMSprop(0.05, momentum=0.5, centered=True),
     rmsprop(0.05, 0.9, 1e-7, 0.5, True)),
    ("Adam defaults", lambda: tf.keras.optimizers.Adam(), adam(0.001, 0.9, 0.999, 1e-7)),
    ("Adam", lambda: tf.keras.optimizers.Adam(0.3, beta_1=0.5, beta_2=0.9, epsilon=0.1),
     adam(0.3, 0.5, 0.9, 0.1)),
    ("AMSGrad", lambda: tf.keras.optimizers.Adam(0.3, beta_1=0.5, beta_2=0.6, amsgrad=True),
     adam(0.3, 0.5, 0.6, 1e-7, True)),
]


@pytest.mark.parametrize("name, make, rule", CASES, ids=[c[0] for c in CASES])
def test_update_matches_closed_form(name, make, rule):
    expected = closed_form(rule)
    np.testing.assert_allclose(run(make()), expected, rtol=1e-12, atol=1e-14)
    # float32 variables: the same rule in the variable's dtype
    np.testing.assert_allclose(run(make(), "float32"), expected, rtol=2e-5, atol=1e-6)


def test_the_path_moves():
    """The closed forms above are not trivially equal: each rule moves w differently."""
    paths = [closed_form(rule)[-1] for _, _, rule in CASES]
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            assert np.abs(paths[i] - paths[j]).max() > 1e-4


def test_apply_gradients_and_iterations():
    w, u = tf.Variable([1.0, 2.0]), tf.Variable(5.0)
    opt = tf.keras.optimizers.SGD(learning_rate=0.5)
    result = opt.apply_gradients(zip([tf.constant([2.0, -4.0]), None], [w, u]))
    np.testing.assert_allclose(w.numpy(), [0.0, 4.0])
    assert float(u.numpy()) == 5.0          # a None gradient leaves its variable (Keras)
    assert int(result.numpy()) == 1 and int(opt.iterations.numpy()) == 1
    assert w.dtype == tf.float32


def test_minimize_with_a_tape_and_a_tensor_loss():
    w = tf.Variable([1.0, -1.0])
    opt = tf.keras.optimizers.SGD(0.25)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    opt.minimize(loss, [w], tape=tape)
    np.testing.assert_allclose(w.numpy(), [0.5, -0.5])
    with pytest.raises(ValueError, match="tape"):
        opt.minimize(loss, [w])


def test_adam_slots_are_the_moments():
    w = tf.Variable([2.0])
    opt = tf.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.constant([4.0]), w)])
    slots = opt.slots(w)
    np.testing.assert_allclose(slots["m"], [0.4])       # (1 − 0.9)·4
    np.testing.assert_allclose(slots["v"], [0.016])     # (1 − 0.999)·16
    assert opt.get_config()["beta_2"] == 0.999


@pytest.mark.parametrize("make, message", [
    (lambda: tf.keras.optimizers.SGD(momentum=1.5), r"`momentum` must be a number in \[0, 1\]"),
    (lambda: tf.keras.optimizers.SGD(learning_rate=-1), r"`learning_rate` must be a number > 0"),
    (lambda: tf.keras.optimizers.Adam(beta_1=1.0), r"`beta_1` must be a number in \[0, 1\)"),
    (lambda: tf.keras.optimizers.RMSprop(epsilon=float("nan")), r"`epsilon`"),
    (lambda: tf.keras.optimizers.Adam(learning_rate="fast"), r"must be a number, got 'fast'"),
])
def test_bad_hyper_parameters_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_shape_mismatch_is_reported():
    w = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        tf.keras.optimizers.SGD().apply_gradients([(tf.constant([1.0, 2.0, 3.0]), w)])


def quadratic_problem():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(5, 5))
    a = m @ m.T + 5 * np.eye(5)             # positive definite over 2 + 3 parameters
    b = rng.normal(size=5)
    w1, w2 = tf.Variable(rng.normal(size=2)), tf.Variable(rng.normal(size=3))

    def loss():
        w = tf.concat([w1, w2], 0)
        return 0.5 * tf.reduce_sum(w * tf.linalg.matmul(tf.constant(a), tf.reshape(w, [5, 1]))[:, 0]) \
            + tf.reduce_sum(tf.constant(b) * w)
    return a, b, w1, w2, loss


def test_newton_step_over_two_variables_is_the_closed_form():
    a, b, w1, w2, loss = quadratic_problem()
    w = np.concatenate([w1.numpy(), w2.numpy()])
    damping, lr = 0.5, 0.8
    expected = w - lr * np.linalg.solve(a + damping * np.eye(5), a @ w + b)
    Newton(learning_rate=lr, damping=damping).minimize(loss, [w1, w2])
    np.testing.assert_allclose(np.concatenate([w1.numpy(), w2.numpy()]), expected, rtol=1e-10)


def test_undamped_newton_lands_on_the_minimum_of_a_quadratic():
    a, b, w1, w2, loss = quadratic_problem()
    Newton(damping=0.0).minimize(loss, [w1, w2])
    np.testing.assert_allclose(np.concatenate([w1.numpy(), w2.numpy()]),
                               -np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
