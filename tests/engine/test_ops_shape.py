"""Shape ops, and the internal ops their gradients use (SumToShape, StridedSliceGrad,
GatherGrad): VJPs against finite differences, first and second order."""
import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.check import check_grads
from gradviz.engine.ops import shape as S


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def smooth(f):
    """f after a nonlinearity, so the second-order check has something to find."""
    return lambda x: f(x * x)


UNARY = [
    ("reshape", lambda x: tf.reshape(x, (3, 2)), (2, 3)),
    ("reshape-minus-one", lambda x: tf.reshape(x, (-1,)), (2, 3)),
    ("reshape-to-scalar", lambda x: tf.reshape(x, ()), (1, 1)),
    ("transpose-default", tf.transpose, (2, 3)),
    ("transpose-perm", lambda x: tf.transpose(x, (1, 2, 0)), (2, 3, 2)),
    ("expand-dims-0", lambda x: tf.expand_dims(x, 0), (2, 3)),
    ("expand-dims-minus-1", lambda x: tf.expand_dims(x, -1), (2, 3)),
    ("squeeze-all", tf.squeeze, (2, 1, 3, 1)),
    ("squeeze-axis", lambda x: tf.squeeze(x, axis=1), (2, 1, 3, 1)),
    ("tile", lambda x: tf.tile(x, (2, 3)), (2, 3)),
    ("tile-ones", lambda x: tf.tile(x, (1, 2, 1)), (2, 1, 2)),
    ("broadcast-to-rows", lambda x: tf.broadcast_to(x, (2, 3)), (3,)),
    ("broadcast-to-column", lambda x: tf.broadcast_to(x, (2, 3, 4)), (3, 1)),
    ("pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), (2, 3)),
    ("pad-constant", lambda x: tf.pad(x, [[0, 2], [1, 1]], constant_values=3.0), (2, 3)),
    ("slice-int-and-range", lambda x: x[0, 1:], (2, 3)),
    ("slice-step", lambda x: x[:, ::2], (2, 3)),
    ("slice-ellipsis-newaxis", lambda x: x[..., None, 1], (2, 3)),
    ("slice-negative-step", lambda x: x[::-1, -2:], (2, 3)),
    ("slice-scalar", lambda x: x[1, 2], (2, 3)),
    ("tf-slice", lambda x: tf.slice(x, [0, 1], [2, -1]), (2, 3)),
    ("gather-rows-repeated", lambda x: tf.gather(x, [2, 0, 2, 2]), (3, 2)),
    ("gather-columns-repeated", lambda x: tf.gather(x, [1, 1, 0], axis=1), (2, 3)),
    ("gather-2d-indices", lambda x: tf.gather(x, [[0, 1], [1, 1]], axis=1), (2, 3)),
    ("unstack-then-stack", lambda x: tf.stack(tf.unstack(x)[::-1], axis=1), (2, 3)),
    ("unstack-some-outputs", lambda x: tf.unstack(x, axis=1)[2], (2, 3)),
    ("split-equal", lambda x: tf.concat(tf.split(x, 3, axis=1)[::-1], axis=0), (2, 3)),
    ("split-sizes", lambda x: tf.split(x, [1, 2], axis=1)[1] * 2.0, (2, 3)),
    ("split-sizes-minus-one", lambda x: tf.split(x, [2, -1], axis=0)[0], (3, 2)),
    ("split-one-output-of-three", lambda x: tf.split(x, 3, axis=0)[1], (3, 2)),
    ("split-two-of-three", lambda x: tf.split(x, 3, axis=0)[0] - tf.split(x, 3, axis=0)[2],
     (3, 2)),
    ("identity", tf.identity, (2, 3)),
]


@pytest.mark.parametrize("fn, shape", [(f, s) for _, f, s in UNARY], ids=[n for n, _, _ in UNARY])
def test_shape_op(fn, shape):
    check_grads(fn, [normal(shape)], order=2)
    check_grads(smooth(fn), [normal(shape)], order=2)


@pytest.mark.parametrize("axis", [0, 1, -1], ids=["0", "1", "-1"])
def test_concat(axis):
    check_grads(lambda a, b, c: tf.concat([a * b, b, c], axis=axis),
                [normal((2, 3), 1), normal((2, 3), 2), normal((2, 3), 3)], order=2)


def test_concat_of_different_sizes():
    check_grads(lambda a, b: tf.concat([a, b * b], axis=0), [normal((1, 3), 1), normal((2, 3), 2)],
                order=2)


@pytest.mark.parametrize("axis", [0, 1, 2, -1], ids=["0", "1", "2", "-1"])
def test_stack(axis):
    check_grads(lambda a, b: tf.stack([a, b, a * b], axis=axis),
                [normal((2, 3), 1), normal((2, 3), 2)], order=2)


@pytest.mark.parametrize("axis", [0, 1, -1], ids=["0", "1", "-1"])
def test_unstack(axis):
    check_grads(lambda x: tf.add_n([u * float(i + 1) for i, u in enumerate(tf.unstack(x * x, axis=axis))]),
                [normal((2, 3))], order=2)


def test_split_without_using_an_output_gives_zeros_there():
    x = tf.constant(normal((3, 2)), dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        a, _, c = tf.split(x, 3)
        y = tf.reduce_sum(a * 2.0 + c)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[2, 2], [0, 0], [1, 1]])


def test_gather_gradient_accumulates_repeated_indices():
    x = tf.constant(normal((3, 2)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.gather(x, [2, 0, 2, 2]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[1, 1], [0, 0], [3, 3]])


def _gather_by_loops(params, indices, axis, batch_dims):
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_gather_by_loops(p, i, axis - 1, batch_dims - 1)
                     for p, i in zip(params, indices)])


BATCH_GATHER = [((3, 5), (3, 2), 1, 1), ((2, 4, 5, 3), (2, 4, 6), 2, 2),
                ((2, 4, 5, 3), (2, 6), 2, 1), ((2, 4, 5, 3), (2, 6, 2), 1, 1),
                ((2, 4, 5), (2, 3), -1, 1), ((3, 5), (3,), 1, 1)]


@pytest.mark.parametrize("p_shape, i_shape, axis, batch_dims", BATCH_GATHER)
def test_gather_with_batch_dims(p_shape, i_shape, axis, batch_dims):
    rng = np.random.default_rng(3)
    params = rng.standard_normal(p_shape)
    n = p_shape[axis]
    indices = rng.integers(0, n, i_shape)  # TF's CPU gather refuses negative indices
    got = tf.gather(tf.constant(params), indices, axis=axis, batch_dims=batch_dims)
    np.testing.assert_array_equal(got.numpy(), _gather_by_loops(params, indices,
                                                                axis % len(p_shape), batch_dims))
    check_grads(lambda x: tf.gather(x, indices, axis=axis, batch_dims=batch_dims), [params],
                order=2)


def test_gather_with_batch_dims_refuses_mismatched_batches():
    with pytest.raises(ValueError, match=r"batch_dims=1.*\(3, 5\).*\(2, 2\)"):
        tf.gather(tf.zeros([3, 5]), np.zeros((2, 2), np.int32), axis=1, batch_dims=1)


# -- the internal ops --------------------------------------------------------------------

SUM_TO_SHAPE = [
    ((2, 3), (3,), 0), ((2, 3), (1, 3), 0), ((3, 4), (3, 1), 0), ((2, 3, 4), (1, 4), 0),
    ((2, 3), (), 0), ((2, 3), (2, 3), 0),
    ((2, 4, 3), (2, 3), 1), ((2, 3, 4), (2, 3, 1), 1), ((2, 2, 3), (2, 2, 1), 2),
    ((3,), (2, 3), 0), ((2, 3), (4, 2, 3), 1),
]


@pytest.mark.parametrize("x_shape, shape, nbatch", SUM_TO_SHAPE,
                         ids=["drop-row", "keep-row", "column", "two-axes", "to-scalar", "same",
                              "batched-drop", "batched-column", "two-batch-axes",
                              "broadcast-up", "broadcast-up-batched"])
def test_sum_to_shape(x_shape, shape, nbatch):
    check_grads(smooth(lambda x: S.sum_to_shape(x, shape, nbatch)), [normal(x_shape)], order=2)


def test_sum_to_shape_value():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(S.sum_to_shape(tf.constant(x), (2, 3, 1), 1).numpy(),
                                  x.sum(axis=2, keepdims=True))
    np.testing.assert_array_equal(S.sum_to_shape(tf.constant(x), (1, 4)).numpy(),
                                  x.sum(axis=(0, 1)).reshape(1, 4))


SLICE_GRADS = [
    ((2,), (0, slice(1, None)), (2, 3)),
    ((2, 2), (slice(None), slice(None, None, 2)), (2, 3)),
    ((2, 1), (Ellipsis, None, 1), (2, 3)),
    ((4, 2), (slice(None), slice(1, None), 0), (4, 3, 2)),
]


@pytest.mark.parametrize("g_shape, key, shape", SLICE_GRADS,
                         ids=["int-and-range", "step", "ellipsis-newaxis", "batched"])
def test_strided_slice_grad(g_shape, key, shape):
    check_grads(smooth(lambda g: S.slice_grad(g, key, shape)), [normal(g_shape)], order=2)


GATHER_GRADS = [
    ((4, 2), [2, 0, 2, 2], 0, (3, 2)),
    ((2, 3), [1, 1, 0], 1, (2, 3)),
    ((2, 2, 2), [[0, 1], [1, 1]], 1, (2, 3)),
    ((5, 4, 2), [2, 0, 2, 2], 1, (5, 3, 2)),
]


@pytest.mark.parametrize("g_shape, indices, axis, shape", GATHER_GRADS,
                         ids=["rows", "columns", "2d-indices", "batched"])
def test_gather_grad(g_shape, indices, axis, shape):
    check_grads(smooth(lambda g: S.gather_grad(g, indices, axis, shape)), [normal(g_shape)], order=2)


def test_gather_grad_rejects_out_of_range_indices():
    with pytest.raises(IndexError):
        S.gather_grad(tf.ones((2, 2)), [0, 5], 0, (3, 2))
