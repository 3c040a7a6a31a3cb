"""The two namespaces a gradient rule is written against.

`numpy` (here): plain arrays, used when nothing records the backward pass (the fast
path). `gradviz` (backend_gradviz.py, above the ops): the recorded ops themselves, used
when an outer tape is recording, so the gradient computation is differentiable in turn.
A rule calls `F.name(...)` with the same signature in both.
"""
import math
import types

import numpy as np

from . import kernels
from .dtypes import as_dtype
from .ops import windows


def _t(x):
    return np.swapaxes(x, -1, -2)


class ZeroCotangent:
    """A cotangent known to be zeros, not written out: what a rule gives an input that
    only selects (relu's y in ReluGrad, max pooling's input in its second derivative).
    The backward pass drops it where it meets another contribution to the same tensor
    (adding zeros changes nothing) and writes it out as np.zeros anywhere else, so every
    rule still receives an array. A Hessian's outer pass met two of these per relu
    layer: two zeros arrays of the batched cotangent's size and two sums, 4% of W4."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    def written(self):
        return np.zeros(self.shape, self.dtype)


def _np_matmul(a, b, transpose_a=False, transpose_b=False):
    if ONE_HOT_STACKS:  # a Jacobian's pass is running: its basis cotangents are picked
        out = _one_hot_matmul(a, b, transpose_a, transpose_b)
        if out is not None:
            return out
    if a.ndim == 2 and b.ndim == 2:  # the common case: `.T` costs a third of swapaxes
        return np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)
    if transpose_a:
        a = a.swapaxes(-1, -2)
    if transpose_b:
        b = b.swapaxes(-1, -2)
    return matmul_arrays(a, b)


# The basis cotangents of a Jacobian's pass while it runs (tape._jacobian): id(stack) ->
# stack, a (m·n, m, n) stack of one-hot matrices, matrix i·n + j with its one at (i, j).
ONE_HOT_STACKS = {}
# Stacks of fewer matrices take the product: one BLAS call per matrix costs less than the
# pick's numpy calls (CPU time, one thread, x (k, m) @ a stack of m·n: 40 matrices of 7x5
# @ 5x8 2.7 us against 3.8 for the pick; 64 of 7x8 @ 8x8 4.4 against 3.8; 600 of 16x20 @
# 20x30 174 against 40).
ONE_HOT_MIN = 64


def _one_hot_matmul(a, b, transpose_a, transpose_b):
    """a @ b (each transposed if asked) where one of them is a stack of ONE_HOT_STACKS and
    the other a finite matrix of its dtype: the other's rows (or columns) written in place
    through one strided view, the values the product has (1 · v plus zeros), where the
    product calls BLAS once per matrix of the stack (a Hessian's first outer step: 40
    calls of 7x5 @ 5x8 for a 5x8 kernel, 600 of 16x20 @ 20x30 for a 20x30 one). None
    where the product must run: a batched or non-finite other operand (0 · inf is NaN in
    the product), another dtype, shapes that do not fit (numpy raises)."""
    stack = ONE_HOT_STACKS.get(id(a))
    if stack is a:
        other, stack_t, other_t, left = b, transpose_a, transpose_b, True
    else:
        stack = ONE_HOT_STACKS.get(id(b))
        if stack is not b:
            return None
        other, stack_t, other_t, left = a, transpose_b, transpose_a, False
    if other.ndim != 2 or other.dtype != stack.dtype:
        return None
    if other_t:
        other = other.T
    _, m, n = stack.shape
    # Matrix (i, j) of the stack, transposed or not, has its one at (p, q): (i, j) or (j, i).
    p_size, q_size = (n, m) if stack_t else (m, n)
    if other.shape[0 if left else 1] != (q_size if left else p_size):
        return None  # numpy's product raises its error
    if not math.isfinite(other.sum()):
        return None
    # The product's entry is 1 · v plus zeros 0 · w, summed from +0.0: where v is -0.0 it
    # is +0.0, and so is v + 0.0 (every other value as it was).
    other = other + 0.0
    k = other.shape[1 if left else 0]
    dtype = stack.dtype
    if left:  # out (m, n, p, k): out[i, j, p, :] = other[q, :]
        out = np.zeros((m, n, p_size, k), dtype)
        s_i, s_j, s_p, s_k = out.strides
        if stack_t:  # p = j, q = i
            np.ndarray((m, n, k), dtype, out, 0, (s_i, s_j + s_p, s_k))[...] = other[:, None, :]
        else:  # p = i, q = j
            np.ndarray((m, n, k), dtype, out, 0, (s_i + s_p, s_j, s_k))[...] = other[None, :, :]
        return out.reshape(m * n, p_size, k)
    # out (m, n, k, q): out[i, j, :, q] = other[:, p]
    out = np.zeros((m, n, k, q_size), dtype)
    s_i, s_j, s_k, s_q = out.strides
    if stack_t:  # p = j, q = i
        np.ndarray((m, n, k), dtype, out, 0, (s_i + s_q, s_j, s_k))[...] = other.T[None, :, :]
    else:  # p = i, q = j
        np.ndarray((m, n, k), dtype, out, 0, (s_i, s_j + s_q, s_k))[...] = other.T[:, None, :]
    return out.reshape(m * n, k, q_size)


# A stack of matrices times one matrix is one product of all their rows up to this many
# multiply-adds (see matmul_arrays).
_FOLD_LIMIT = 1 << 19


def matmul_arrays(a, b):
    """np.matmul, with a small stack of matrices times one matrix done as one product of
    all their rows: numpy's stacked loop calls BLAS once per matrix, and the batched
    cotangents of jacobian meet `g @ wᵀ` in every dense layer (40 calls of a 7x8 @ 8x6
    in a 5x8 Hessian's pass, 1.3x slower than one 280x8 @ 8x6). Only while the whole
    product stays small: OpenBLAS packs a large one first, and a (600, 16, 30) @ (30, 10)
    stack ran 1.3x slower as one (9600, 30) @ (30, 10) than as 600 small products
    (measured here, alternating, one thread; the same from about 1M multiply-adds up).
    Otherwise a small transposed 2-D operand of a stacked product is made contiguous
    first: numpy's stacked loop is up to 3x slower on a strided one."""
    if a.ndim > 2:
        if b.ndim == 2:
            if a.flags.c_contiguous and a.size * b.shape[1] <= _FOLD_LIMIT:
                rows = a.shape[:-1]
                flat = np.matmul(a.reshape(math.prod(rows), a.shape[-1]), b)
                return flat.reshape(rows + (b.shape[1],))
            if not b.flags.c_contiguous:
                b = np.ascontiguousarray(b)
    elif b.ndim > 2 and a.ndim == 2 and not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return np.matmul(a, b)


def _np_split(x, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis)


def _np_slice_grad(g, key, shape):
    out = np.zeros(shape, g.dtype)
    out[key] = g
    return out


def _np_solve(a, b, adjoint=False):
    return np.linalg.solve(_t(a) if adjoint else a, b)


def _np_reshape(x, shape):
    try:
        return x.reshape(shape)  # the method skips np.reshape's Python layer
    except AttributeError:
        return np.reshape(x, shape)


def _np_transpose(x, perm=None):
    try:
        return x.transpose(perm)
    except AttributeError:
        return np.transpose(x, perm)


# Results up to this many elements are materialised by broadcast_to (see below).
_SMALL_BROADCAST = 1 << 16


def _np_broadcast_to(x, shape):
    """np.broadcast_to, with small results written out: numpy's version costs ~2.5 us of
    Python, more than copying a few thousand elements, and the ops that follow run
    faster on a contiguous array."""
    dtype = getattr(x, "dtype", None)
    if dtype is None or math.prod(shape) > _SMALL_BROADCAST:
        return np.broadcast_to(x, shape)
    out = np.empty(shape, dtype)
    out[...] = x
    return out


def _np_multiply_no_nan(x, y):
    """x · y, but 0 where y is 0 even if x is inf or NaN (TF's mul_no_nan)."""
    x, y = np.asarray(x), np.asarray(y)
    out = np.zeros(np.broadcast_shapes(x.shape, y.shape), np.result_type(x, y))
    return np.multiply(x, y, out=out, where=y != 0)


def _np_cumulative(ufunc, identity):
    """numpy's accumulate as TF's Cumsum / Cumprod: `exclusive` starts from the
    identity (cumprod([a, b, c]) -> [1, a, a·b]), `reverse` runs from the end."""
    def forward(x, axis, exclusive=False, reverse=False):
        if reverse:
            x = np.flip(x, axis)
        if exclusive and x.shape[axis]:
            head = np.full_like(np.take(x, [0], axis), identity)
            x = np.concatenate([head, np.delete(x, -1, axis)], axis)
        out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
        return np.ascontiguousarray(np.flip(out, axis) if reverse else out)
    return forward


def _np_reduce(fn):
    def reduce(x, axis=None, keepdims=False):
        return np.asarray(fn(x, axis=axis, keepdims=keepdims), dtype=x.dtype)
    return reduce


numpy = types.SimpleNamespace(
    matmul=_np_matmul,
    reshape=_np_reshape,
    broadcast_to=_np_broadcast_to,
    transpose=_np_transpose,
    reduce_sum=_np_reduce(np.sum),
    reduce_mean=_np_reduce(kernels.mean),
    reduce_prod=_np_reduce(np.prod),
    cumsum=_np_cumulative(np.add, 0),
    cumprod=_np_cumulative(np.multiply, 1),
    cast=lambda x, dtype: np.asarray(x).astype(as_dtype(dtype)._np),
    equal=np.equal,
    greater=np.greater,
    greater_equal=np.greater_equal,
    less=np.less,
    less_equal=np.less_equal,
    logical_not=np.logical_not,
    logical_and=np.logical_and,
    where=np.where,
    zero_gradient=lambda x: x,
    minimum=np.minimum,
    ones_like=np.ones_like,
    zeros_like=np.zeros_like,
    zeros=lambda shape, dtype: np.zeros(shape, as_dtype(dtype)._np),
    zero_cotangent=ZeroCotangent,
    masked=lambda g, mask: np.where(mask, g, np.zeros((), g.dtype)),
    multiply_no_nan=_np_multiply_no_nan,
    log=np.log,
    exp=np.exp,
    sqrt=np.sqrt,
    sin=np.sin,
    cos=np.cos,
    sign=np.sign,
    pow=np.power,
    sigmoid=kernels.sigmoid,
    softmax=kernels.softmax,
    log_softmax=kernels.log_softmax,
    tanh_grad=kernels.tanh_grad,
    sqrt_grad=kernels.sqrt_grad,
    reciprocal_grad=kernels.reciprocal_grad,
    reciprocal=np.reciprocal,
    sin_grad=kernels.sin_grad,
    cos_grad=kernels.cos_grad,
    relu_grad=kernels.relu_grad,
    sigmoid_grad=kernels.sigmoid_grad,
    elu_grad=kernels.elu_grad,
    split=_np_split,
    concat=lambda xs, axis: np.concatenate(xs, axis),
    stack=lambda xs, axis=0: np.stack(xs, axis),
    unstack=lambda x, axis=0: [np.take(x, i, axis=axis) for i in range(x.shape[axis])],
    strided_slice=lambda x, key: x[key],
    slice_grad=_np_slice_grad,
    gather=lambda x, indices, axis=0: np.take(x, indices, axis=axis),
    gather_grad=kernels.scatter_add,
    einsum=lambda eq, *xs: np.asarray(np.einsum(eq, *xs, optimize=len(xs) > 2)),
    solve=_np_solve,
    sum_to_shape=kernels.sum_to_shape,
    conv2d=windows.conv2d,
    conv2d_backprop_input=windows.backprop_input,
    conv2d_backprop_filter=windows.backprop_filter,
    max_pool_grad=windows.max_pool_grad,
    max_pool_grad_grad=windows.max_pool_grad_grad,
    avg_pool=windows.avg_pool,
    avg_pool_grad=windows.avg_pool_grad,
)
