"""Studies: their checks hold where they should and warn where they should."""
import numpy as np
import pytest

import gradviz as tf
from gradviz import story
from gradviz.graph.evaluate import NEWTON_EPS
from gradviz.story import studies

B = np.array([[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
              [1.4204658, 1.2609464, -0.43640924]])
T = np.array([[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
              [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]])


def test_jacobian_sums_to_the_gradient_seed004():
    s = studies.jacobian_study(lambda t: tf.matmul(t, tf.constant(B)), T)
    assert s.jacobian.shape == (5, 3, 5, 3)
    np.testing.assert_allclose(s.gradient[0], B.sum(axis=1), rtol=1e-6)
    assert s.max_difference < 1e-5 and s.vjp_difference < 1e-5 and s.ok
    # d y[0,0] / d t is b's first column in row 0, zeros elsewhere (seed 004)
    np.testing.assert_allclose(s.jacobian[0, 0, 0], B[:, 0])
    assert not s.jacobian[0, 0, 1:].any()


def test_jacobian_vjp_with_a_given_v():
    v = np.arange(6.0).reshape(2, 3)
    s = studies.jacobian_study(lambda x: tf.tanh(x) * x, np.linspace(-1, 1, 6).reshape(2, 3), v=v)
    np.testing.assert_allclose(s.v, v)
    assert s.vjp_difference < 1e-5


def test_dense_batch_jacobian_has_independent_examples():
    layer = tf.keras.layers.Dense(3, activation="tanh")
    x = np.random.default_rng(1).normal(size=(4, 2)).astype(np.float32)
    s = studies.batch_jacobian_study(lambda x: layer(x), x)
    assert s.independent and s.warning == "" and s.largest == 0
    assert s.blocks.shape == (4, 3, 2) and s.block_difference < 1e-6
    assert s.engine_difference < 1e-6


def test_batch_normalization_couples_the_batch_and_warns():
    bn = tf.keras.layers.BatchNormalization()
    x = np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32)
    s = studies.batch_jacobian_study(lambda x: bn(x, training=True), x)
    assert not s.independent
    assert "BatchNormalization" in s.warning and s.largest > 1e-3
    b, c = s.location
    assert b != c and s.off_diagonal[b, c] == pytest.approx(s.largest)
    assert s.engine_difference < 1e-5  # batch_jacobian sums the blocks over target examples
    assert s.block_difference > 1e-3   # ... so it is not the per-example Jacobian here


def test_lessons_name_the_batch_axis_batch_jacobian_sums_over():
    """TF's batch_jacobian sums the full Jacobian over the target's batch axis, J[b, i, c, j]
    summed over b; lesson 18 said 'over its second batch axis' (c), which agrees only where
    the blocks off the diagonal are zero, and not for lesson 19's BatchNormalization."""
    bn = tf.keras.layers.BatchNormalization()
    x = tf.constant(np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.elu(bn(x, training=True) + 0.5 * x)  # bn alone sums to 0 over the batch
    full, batch = tape.jacobian(y, x).numpy(), tape.batch_jacobian(y, x).numpy()
    np.testing.assert_allclose(batch, full.sum(axis=0).transpose(1, 0, 2), atol=1e-5)
    assert np.abs(batch - np.einsum("bicj->bij", full)).max() > 1e-3
    from gradviz.bundled import sample_paths
    from gradviz.graph import load
    taught = [doc for doc in map(load, sample_paths()) if "batch_jacobian" in doc.lesson
              and "summed over" in doc.lesson]
    assert len(taught) >= 2
    for doc in taught:
        assert "summed over the target's batch axis" in " ".join(doc.lesson.split()), doc.title


def test_hessian_is_symmetric_with_a_newton_step():
    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    def f(x):  # ½ xᵀAx
        return 0.5 * tf.reduce_sum(x * tf.reshape(tf.matmul(tf.constant(A), tf.reshape(x, (2, 1))), (2,)))
    x = np.array([1.0, -2.0])
    s = studies.hessian_study(f, x)
    np.testing.assert_allclose(s.hessian, A, atol=1e-9)
    assert s.symmetry_error < 1e-9
    np.testing.assert_allclose(s.eigenvalues, np.linalg.eigvalsh(A))
    # one default ε for every Newton step: graph.evaluate.NEWTON_EPS (1e-3)
    assert s.epsilon == NEWTON_EPS == 1e-3
    np.testing.assert_allclose(s.newton_step, np.linalg.solve(A + 1e-3 * np.eye(2), A @ x))
    assert s.residual < 1e-12
    assert s.warning == "" and s.definiteness == "positive definite"
    exact = studies.hessian_study(f, x, epsilon=1e-12)
    np.testing.assert_allclose(exact.newton_step, x, rtol=1e-9)  # quadratic: one step to 0
    np.testing.assert_allclose(exact.x_new, 0, atol=1e-9)


def test_hessian_of_a_nonconvex_function_warns():
    s = studies.hessian_study(lambda x: tf.reduce_sum(tf.sin(x) * x[::-1]), np.array([0.3, 1.2, -0.7]))
    assert s.symmetry_error < 1e-9
    assert "not positive definite" in s.warning


def test_chain_cost_reverse_is_vector_matrix_seed000():
    c = studies.chain_cost([8192, 8192, 8192, 1])
    assert c.forward == 8192 ** 3 + 8192 ** 2
    assert c.reverse == 2 * 8192 ** 2
    assert c.ratio > 4000 and "multiply-adds" in c.text()


def test_chain_cost_from_a_story():
    x = tf.Variable(np.ones((4, 3)))
    w = tf.constant(np.ones((3, 5)))
    with tf.GradientTape() as tape:
        h = tf.tanh(tf.matmul(x, w))
        loss = tf.reduce_sum(h)
    s = story.from_tape(tape, loss, x)
    c = studies.chain_cost(s)
    assert c.sizes == [12, 20, 20, 1]
    assert c.reverse < c.forward


def test_definiteness_uses_a_tolerance_relative_to_the_largest_eigenvalue():
    assert studies.definiteness([-5.955e-09, 0.1, 0.78])[0] == \
        "positive semi-definite within rounding"
    words, tol = studies.definiteness([-5.955e-09, 0.1, 0.78])
    assert tol == pytest.approx(0.78e-6)
    assert studies.definiteness([1e-3, 0.78])[0] == "positive definite"
    assert studies.definiteness([-1e-3, 0.78])[0] == "indefinite"
    assert studies.definiteness([-2.0, -1.0])[0] == "negative definite"
    assert studies.definiteness([0.0, 0.0])[0].startswith("zero")


def test_hessian_newton_sample_is_semidefinite_within_rounding_not_a_warning():
    from gradviz.graph import load
    from pathlib import Path
    doc = load(Path(__file__).resolve().parents[2] / "samples" / "001_hessian_newton.json")
    h = studies.hessian_study(doc)
    assert h.eigenvalues[0] < 0 and abs(h.eigenvalues[0]) < h.tolerance
    assert h.definiteness == "positive semi-definite within rounding" and h.warning == ""
    assert h.epsilon == 1e-3 and h.residual < 1e-9


def test_document_studies_use_the_ports_the_study_names():
    from gradviz.graph import Port, load
    from pathlib import Path
    doc = load(Path(__file__).resolve().parents[2] / "samples" / "002_gradient_by_parts.json")
    j = studies.jacobian_study(doc)  # studies.jacobian: target out, source x (not loss)
    assert j.jacobian.shape == (1, 5, 1, 10) and j.ok
    assert doc.targets == [Port("loss")]


def test_gradient_norms_follow_the_edges_of_the_backward_pass():
    """Issue 20 §1: the Gradient norms caption chained 'y → upstream → grad' where upstream
    and grad are both inputs of y (siblings). The points' edges say where the pass goes."""
    from pathlib import Path

    from op_cases import op_doc

    from gradviz.graph import load
    norms = studies.gradient_norms(story.build(op_doc("multiply", ["upstream", "grad"], "y")))
    assert norms.names == ["y", "upstream", "grad"]
    assert norms.edges == [(0, 1), (0, 2)] and norms.paths() == [[0, 1], [0, 2]]
    samples = Path(__file__).resolve().parents[2] / "samples"
    chain = studies.gradient_norms(story.build(load(samples / "nets_2_sigmoid_chain.json")))
    assert chain.paths() == [list(range(len(chain.names)))]     # a chain is one run
    # attention: out = A @ V, A = softmax(S), S = QKᵀ / √d; Q, K, V all from the tokens
    att = studies.gradient_norms(story.build(load(samples / "nets_6_attention.json")))
    runs = [[att.names[k] for k in run] for run in att.paths()]
    assert runs == [["out[3]", "out", "A", "S", "QKᵀ", "Q", "tokens x"], ["out", "V", "tokens x"],
                    ["QKᵀ", "K", "tokens x"]]
    assert sorted(e for run in att.paths() for e in zip(run, run[1:])) == sorted(att.edges)
