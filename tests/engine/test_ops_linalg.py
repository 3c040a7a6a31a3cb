"""matmul, einsum, solve and inv: VJPs against finite differences."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def well_conditioned(shape, seed=0):
    """A random matrix (or stack of them) close to 2·I: condition number below ~3."""
    n = shape[-1]
    return 2 * np.eye(n) + 0.3 * normal(shape, seed)


# (a shape, b shape, transpose_a, transpose_b)
MATMULS = [
    ((2, 3), (3, 4), False, False),
    ((2, 3), (4, 3), False, True),
    ((3, 2), (3, 4), True, False),
    ((3, 2), (4, 3), True, True),
    ((2, 2, 3), (3, 4), False, False),
    ((2, 3), (2, 3, 4), False, False),
    ((2, 3, 2), (2, 4, 3), True, True),
    ((2, 1, 2, 3), (3, 3, 2), False, False),
    ((1, 2, 2, 3), (2, 1, 3, 2), False, False),
]
MATMUL_IDS = ["plain", "transpose-b", "transpose-a", "transpose-both", "batched-x-matrix",
              "matrix-x-batched", "batched-transpose-both", "broadcast-batch", "broadcast-both"]


@pytest.mark.parametrize("a_shape, b_shape, ta, tb", MATMULS, ids=MATMUL_IDS)
def test_matmul(a_shape, b_shape, ta, tb):
    check_grads(lambda a, b: tf.matmul(a, b, transpose_a=ta, transpose_b=tb),
                [normal(a_shape, 1), normal(b_shape, 2)], order=2)


def test_matmul_operator_and_adjoint():
    check_grads(lambda a, b: (a @ b) @ tf.matmul(b, a, adjoint_a=True, adjoint_b=True),
                [normal((2, 3), 1), normal((3, 2), 2)], order=2)


def test_matmul_of_a_matrix_with_itself():
    check_grads(lambda a: tf.matmul(a, a, transpose_b=True), [normal((2, 3))], order=2)


# A small stack of matrices times one matrix is one product of all their rows
# (backend.py), a large one numpy's loop: empty stacks and empty rows, a shared inner size
# of 0, integers, a strided stack, and a stack too large to fold.
STACKED = [((4, 7, 8), (8, 6)), ((2, 3, 5, 4), (4, 2)), ((0, 3, 4), (4, 2)),
           ((3, 0, 4), (4, 2)), ((3, 2, 0), (0, 5)), ((3, 2, 4), (4, 0)),
           ((64, 64, 10), (10, 128))]


@pytest.mark.parametrize("a_shape, b_shape", STACKED)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_stacked_times_matrix_equals_numpys_stacked_loop(a_shape, b_shape, dtype):
    from gradviz.engine.backend import matmul_arrays
    a = (normal(a_shape, 1) * 4).astype(dtype)
    b = (normal(b_shape, 2) * 4).astype(dtype)
    want = np.matmul(a, b)
    for operand in (a, np.swapaxes(np.swapaxes(a, -1, -2).copy(), -1, -2)):
        got = matmul_arrays(operand, b)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij->j", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...ij,jk->...ik", [(2, 2, 3), (3, 2)]),
    ("...ij,jk->...ik", [(2, 3), (3, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba,ca", [(2, 3), (4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("ijk->", [(2, 3, 2)]),
    ("ij,kj->ik", [(2, 3), (2, 3)]),
    ("...ij,...jk->...ik", [(1, 2, 3), (2, 3, 2)]),
    ("...ij,...jk", [(2, 1, 2, 3), (3, 3, 2)]),
    ("bij,bjk->bik", [(1, 2, 3), (2, 3, 2)]),
]
EINSUM_IDS = ["matmul", "batched-matmul", "column-sums", "transpose", "dot", "outer",
              "ellipsis-batched", "ellipsis-empty", "implicit-matmul", "implicit-sorted",
              "three-operands", "sum-all", "same-shape", "ellipsis-broadcast",
              "ellipsis-broadcast-implicit", "named-broadcast"]


@pytest.mark.parametrize("equation, shapes", EINSUMS, ids=EINSUM_IDS)
def test_einsum(equation, shapes):
    args = [normal(s, i) for i, s in enumerate(shapes)]
    check_grads(lambda *xs: tf.einsum(equation, *xs), args, order=2)


def test_einsum_sums_an_index_only_one_operand_has():
    # 'k' appears only in b and not in the output: grad_b is broadcast along k.
    check_grads(lambda a, b: tf.einsum("ij,jk->i", a, b), [normal((2, 3), 1), normal((3, 4), 2)],
                order=2)


@pytest.mark.parametrize("equation, shapes", EINSUMS, ids=EINSUM_IDS)
def test_einsum_values_match_numpy(equation, shapes):
    args = [normal(s, i) for i, s in enumerate(shapes)]
    np.testing.assert_allclose(tf.einsum(equation, *[tf.constant(a) for a in args]).numpy(),
                               np.einsum(equation, *args), rtol=1e-12)


def test_einsum_rejects_mismatched_named_indices():
    with pytest.raises(ValueError, match="index 'j'"):
        tf.einsum("ij,jk->ik", tf.ones((2, 3)), tf.ones((2, 2)))


@pytest.mark.parametrize("adjoint", [False, True], ids=["plain", "adjoint"])
@pytest.mark.parametrize("a_shape, b_shape", [((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1))],
                         ids=["matrix", "batched"])
def test_solve(a_shape, b_shape, adjoint):
    check_grads(lambda a, b: tf.linalg.solve(a, b, adjoint=adjoint),
                [well_conditioned(a_shape, 1), normal(b_shape, 2)], order=2)


def test_solve_value():
    a, b = well_conditioned((3, 3)), normal((3, 2))
    x = tf.linalg.solve(tf.constant(a), tf.constant(b), adjoint=True).numpy()
    np.testing.assert_allclose(a.T @ x, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2)], ids=["matrix", "batched"])
@pytest.mark.parametrize("adjoint", [False, True], ids=["plain", "adjoint"])
def test_inv(shape, adjoint):
    check_grads(lambda a: tf.linalg.inv(a, adjoint=adjoint), [well_conditioned(shape)], order=2)


def test_inv_gradient_closed_form():
    """d tr(A⁻¹) / dA = -(A⁻²)ᵀ."""
    a = tf.constant(well_conditioned((3, 3)), dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.einsum("ii->", tf.linalg.inv(a))
    inv = np.linalg.inv(a.numpy())
    np.testing.assert_allclose(tape.gradient(y, a).numpy(), -(inv @ inv).T, rtol=1e-10)


@pytest.mark.parametrize("equation, shapes", [
    ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]), ("iij->j", [(2, 2, 3)]), ("ii,ij->j", [(2, 2), (2, 3)]),
    ("bii->b", [(2, 3, 3)]), ("iii->i", [(2, 2, 2)])],
    ids=["trace", "diagonal", "partial-trace", "trace-with-other", "batched-trace", "triple"])
def test_einsum_with_repeated_indices(equation, shapes):
    args = [normal(s, i) for i, s in enumerate(shapes)]
    check_grads(lambda *xs: tf.einsum(equation, *xs), args, order=2)
