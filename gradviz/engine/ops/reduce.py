"""Reductions: sum, mean, max, min, prod, the Euclidean norm; cumulative sums and products.

Axes are stored negative (counted from the end) so the rules work unchanged when a
cotangent carries leading batch axes.
"""
import math

import numpy as np

from .. import backend, kernels, tracing
from ..axes import axes_from_end, axis_index
from ..errors import InvalidArgumentError
from ..dtypes import FLOAT32, as_dtype, int64
from ..execute import apply, tensors
from ..registry import define_op, get_op, no_gradient
from . import math as M
from ..array import ones_like
from ..tensor import Tensor
from .shape import reshape


def normalize_axes(axis, ndim, ordered=False):
    """Axis argument -> tuple of negative axes, sorted unless `ordered` (None means all);
    see axes.py."""
    if isinstance(axis, Tensor):
        tracing.python_value(axis, "an axis given as a tensor")
    return axes_from_end(axis, ndim, ordered=ordered)


def _kept_shape(in_shape, axes):
    n = len(in_shape)
    reduced = {n + a for a in axes}
    return tuple(1 if i in reduced else d for i, d in enumerate(in_shape))


def _reducer(type, forward, rule, formula, ordered=False):
    """`ordered`: the axes keep the order the call names them in (Prod's gradient
    flattens them in that order, as TF's does)."""
    op = define_op(type, forward, rule, (formula,))
    whole = {}  # rank -> the attrs of a whole reduction, shared (an op's attrs are read only)

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        (x,) = tensors(input_tensor)
        if axis is None and keepdims is False:  # the common call: its attrs made once a rank
            ndim = x._value.ndim
            attrs = whole.get(ndim)
            if attrs is None:
                attrs = whole[ndim] = {"axis": normalize_axes(None, ndim, ordered),
                                       "keepdims": False}
            return apply(op, (x,), attrs)
        axes = normalize_axes(axis, x._value.ndim, ordered)
        return apply(op, (x,), {"axis": axes, "keepdims": bool(keepdims)})
    return op, fn


def _same_kind(x):
    """Integers keep their dtype (numpy would widen int32 sums to int64; TF does not)."""
    return x.dtype if x.dtype.kind in "iuf" else None


def _np_sum(x, axis, keepdims):
    return np.asarray(np.sum(x, axis=axis, keepdims=keepdims, dtype=_same_kind(x)))


def _np_mean(x, axis, keepdims):
    n = _count(x, axis)
    dtype = x.dtype
    if (dtype is FLOAT32 or (dtype.kind == "f" and dtype.itemsize >= 4)) and n:
        # np.mean's own arithmetic (a float32/64 sum, then one division), without its
        # ~4 us of Python; float16 and integers keep np.mean's wider accumulator.
        total = np.add.reduce(x, axis=axis, keepdims=keepdims)
        if type(total) is np.ndarray:  # not a numpy scalar, which takes the int faster
            n = kernels.constant_of(n, total.dtype)
        return np.asarray(total / n)
    return np.asarray(kernels.mean(x, axis=axis, keepdims=keepdims), dtype=x.dtype)


def _lowest(dtype, sign):
    """The identity of max (sign -1) or min (sign +1) over nothing: -inf / +inf for floats,
    the dtype's lowest / highest integer. TF's Max and Min kernels reduce with Eigen's
    MaxReducer / MinReducer, whose initial values these are, so reduce_max of an empty
    float axis is -inf there too (numpy raises instead)."""
    if dtype.kind == "f":
        return sign * np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    return None if info is None else (info.min if sign < 0 else info.max)


def _np_max(x, axis, keepdims):
    if x.size == 0:
        return np.asarray(np.max(x, axis=axis, keepdims=keepdims, initial=_lowest(x.dtype, -1)))
    return np.asarray(np.max(x, axis=axis, keepdims=keepdims))


def _np_min(x, axis, keepdims):
    if x.size == 0:
        return np.asarray(np.min(x, axis=axis, keepdims=keepdims, initial=_lowest(x.dtype, 1)))
    return np.asarray(np.min(x, axis=axis, keepdims=keepdims))


def _np_prod(x, axis, keepdims):
    return np.asarray(np.prod(x, axis=axis, keepdims=keepdims, dtype=_same_kind(x)))


def _count(x, axes):
    if type(x) is np.ndarray and len(axes) == x.ndim:  # every axis (they are distinct)
        return x.size
    shape = tuple(x.shape)
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _sum_rule(F, g, ins, out, at, needs):
    return (_expand(F, g, ins[0], out, at),)


def _expand(F, g, x, out, at):
    """g (batch + out.shape) -> batch + x.shape, repeating along the reduced axes."""
    if g.ndim == 0:  # a full reduction's scalar broadcasts as it is: no reshape first
        return F.broadcast_to(g, tuple(x.shape))
    nb = g.ndim - out.ndim
    batch = tuple(g.shape[:nb])
    g = F.reshape(g, batch + _kept_shape(tuple(x.shape), at["axis"]))
    return F.broadcast_to(g, batch + tuple(x.shape))


def _mean_rule(F, g, ins, out, at, needs):
    # Divide before expanding: one division per output element, not per input element.
    n = _count(ins[0], at["axis"])
    if type(g) is np.ndarray:  # the count as a 0-d array (kernels.constant_of)
        n = kernels.constant_of(n, g.dtype)
    return (_expand(F, g / n, ins[0], out, at),)


def _extreme_rule(F, g, ins, out, at, needs):
    x = ins[0]
    kept = _kept_shape(tuple(x.shape), at["axis"])
    winners = F.cast(F.equal(x, F.reshape(out, kept)), x.dtype)
    ties = F.reduce_sum(winners, at["axis"], True)
    return (_expand(F, g, x, out, at) * (winners / ties),)


def _prod_rule(F, g, ins, out, at, needs):
    x = ins[0]
    return (_expand(F, g, x, out, at) * _product_of_others(F, x, at["axis"]),)


def _product_of_others(F, x, axes):
    """For each element, the product of the others in its reduction, built as TF's
    _ProdGrad (math_grad.py) builds it: the reduced axes (in the order the call named
    them) moved to the front and flattened into one, then the exclusive cumulative
    product from the left times the one from the right. No division, so zeros and
    infinities give TF's numbers ([inf, 2] -> [2, inf], not inf / inf = NaN), and the
    second derivative runs through Cumprod's own gradient, as TF's does."""
    ndim = x.ndim
    shape = tuple(x.shape)
    reduced = [ndim + a for a in axes]
    other = [i for i in range(ndim) if i not in reduced]
    perm = tuple(reduced + other)
    permuted = F.transpose(x, perm)
    flat = F.reshape(permuted, (math.prod(shape[i] for i in reduced),
                                math.prod(shape[i] for i in other)))
    left = F.cumprod(flat, 0, exclusive=True)
    right = F.cumprod(flat, 0, exclusive=True, reverse=True)
    others = F.reshape(left * right, tuple(shape[i] for i in perm))
    return F.transpose(others, tuple(np.argsort(perm)))


SUM, reduce_sum = _reducer("Sum", _np_sum, _sum_rule, "grad_x = broadcast(grad)")
MEAN, reduce_mean = _reducer("Mean", _np_mean, _mean_rule, "grad_x = broadcast(grad) / n")
SUM.shapes_only_rule = MEAN.shapes_only_rule = True
MAX, reduce_max = _reducer("Max", _np_max, _extreme_rule,
                           "grad_x = broadcast(grad) where x = max (split among ties)")
MIN, reduce_min = _reducer("Min", _np_min, _extreme_rule,
                           "grad_x = broadcast(grad) where x = min (split among ties)")
PROD, reduce_prod = _reducer("Prod", _np_prod, _prod_rule,
                             "grad_x = broadcast(grad) · (product of the others)", ordered=True)


def _cumsum_rule(F, g, ins, out, at, needs):
    """TF's _CumsumGrad: the cumulative sum of grad the other way round."""
    return (F.cumsum(g, at["axis"], at["exclusive"], not at["reverse"]),)


def _cumprod_rule(F, g, ins, out, at, needs):
    """TF's _CumprodGrad, division included: cumsum(cumprod(x) · grad) the other way
    round, over x (TF's note: this fails where x holds a zero; TF gives inf or NaN there,
    and so does this)."""
    x = ins[0]
    axis, exclusive, reverse = at["axis"], at["exclusive"], at["reverse"]
    prod = F.cumprod(x, axis, exclusive, reverse)
    return (F.cumsum(prod * g, axis, exclusive, not reverse) / x,)


CUMSUM = define_op("Cumsum", backend.numpy.cumsum, _cumsum_rule,
                   ("grad_x = cumsum(grad) the other way round",))
CUMPROD = define_op("Cumprod", backend.numpy.cumprod, _cumprod_rule,
                    ("grad_x = cumsum(cumprod(x) · grad) the other way round / x",))


def _cumulative(op):
    def fn(x, axis=0, exclusive=False, reverse=False, name=None):
        (x,) = tensors(x)
        if isinstance(axis, Tensor):
            tracing.python_value(axis, "an axis given as a tensor")
        axis = axis_index(axis, x.ndim) - x.ndim  # from the end: see the module's note
        return apply(op, (x,), {"axis": axis, "exclusive": bool(exclusive),
                                "reverse": bool(reverse)})
    fn.__name__ = op.type.lower()
    return fn


cumsum = _cumulative(CUMSUM)
cumprod = _cumulative(CUMPROD)


def _boolean_reducer(type, forward):
    """reduce_all / reduce_any: booleans in, a boolean out, no gradient (as in TF)."""
    define_op(type, forward)
    no_gradient(type)
    op = get_op(type)

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        (x,) = tensors(input_tensor)
        if x._value.dtype != np.bool_:
            raise TypeError(f"{type} needs a boolean tensor, got {x.dtype.name} "
                            "(compare first, e.g. x == y or x > 0)")
        return apply(op, (x,), {"axis": normalize_axes(axis, x.ndim), "keepdims": bool(keepdims)})
    return fn


reduce_all = _boolean_reducer(
    "All", lambda x, axis, keepdims: np.asarray(np.all(x, axis=axis, keepdims=keepdims)))
reduce_any = _boolean_reducer(
    "Any", lambda x, axis, keepdims: np.asarray(np.any(x, axis=axis, keepdims=keepdims)))


def _np_norm(x, axis, keepdims):
    return np.asarray(np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)), dtype=x.dtype)


def _norm_rule(F, g, ins, out, at, needs):
    """The gradient TF's tf.norm gets: it is sqrt(reduce_sum(x · x)) there, so SqrtGrad
    (0 where grad is 0 even at ‖x‖ = 0, which keeps a zero vector's NaN out of a
    Jacobian's other rows) broadcast over x, times x from each side of the product."""
    x = ins[0]
    kept = _kept_shape(tuple(x.shape), at["axis"])
    batch = tuple(g.shape[:g.ndim - out.ndim])
    s = F.sqrt_grad(F.reshape(out, kept), F.reshape(g, batch + kept))
    return (s * x + x * s,)


NORM = define_op("EuclideanNorm", _np_norm, _norm_rule,
                 ("grad_x = grad · x / ‖x‖, 0 where grad = 0 even at ‖x‖ = 0",))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """The Euclidean (Frobenius) norm over `axis` (all elements by default)."""
    if ord not in ("euclidean", "fro", 2, 2.0):
        raise ValueError(f"norm supports ord='euclidean' (or 'fro', 2), not {ord!r}")
    (x,) = tensors(tensor)
    axes = normalize_axes(axis, x.ndim)
    return apply(NORM, (x,), {"axis": axes, "keepdims": bool(keepdims)})


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t · clip_norm / max(‖t‖, clip_norm), built from recorded ops as in TF.

    As TF, the norm is taken where the sum of squares is positive only: at t = 0 the
    gradient of ‖t‖ is 0/0, and although max() discards it, 0 · NaN would still be NaN.
    """
    t, clip = tensors(t, clip_norm)
    l2sum = reduce_sum(M.multiply(t, t), axes, keepdims=True)
    positive = M.greater(l2sum, 0)
    l2norm = M.where(positive, M.sqrt(M.where(positive, l2sum, ones_like(l2sum))), l2sum)
    return M.divide(M.multiply(t, clip), M.maximum(l2norm, clip))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log Σ exp(x), shifted by the max for stability. The shift is a constant (the
    result does not depend on it); where the max is ±inf it is 0, as in TF, so an all
    -inf slice gives -inf rather than -inf - (-inf) = NaN."""
    (x,) = tensors(input_tensor)
    axes = normalize_axes(axis, x.ndim)
    tracing.python_value(x, "reduce_logsumexp's shift (the max, in numpy)")
    shift = _np_max(x._value, axes, True)  # -inf over an empty axis, so the result is -inf
    shift = Tensor._wrap(np.where(np.isfinite(shift), shift, 0).astype(x._value.dtype))
    with np.errstate(divide="ignore"):
        total = M.log(reduce_sum(M.exp(M.subtract(x, shift)), axes, keepdims=True))
    result = M.add(total, shift)
    if not keepdims:
        result = reshape(result, _np_sum(x._value, axes, False).shape)
    return result


def _arg_extreme(type, forward):
    """argmax / argmin: the index of the extreme along one axis. An integer output with
    no gradient (TF declares both NotDifferentiable)."""
    op = define_op(type, lambda x, axis, output_type: forward(x, axis=axis).astype(output_type))
    no_gradient(type)

    def fn(input, axis=None, output_type=None, name=None):
        (x,) = tensors(input)
        if x.ndim == 0:
            raise ValueError(f"{type} needs a tensor of rank at least 1, got a scalar")
        if isinstance(axis, Tensor):
            tracing.python_value(axis, "an axis given as a tensor")
        axis = axis_index(0 if axis is None else axis, x.ndim)  # TF: axis 0 when None
        if x.shape[axis] == 0:
            # TF's ArgOp: "Reduction axis 0 is empty in shape [0,3]" (InvalidArgumentError).
            raise InvalidArgumentError(f"{type} of an empty axis {axis}: shape {tuple(x.shape)}")
        out = as_dtype(output_type if output_type is not None else int64)
        if out._np not in (np.int32, np.int64):
            raise TypeError(f"{type}'s output_type must be int32 or int64, got {out.name}")
        return apply(op, (x,), {"axis": axis, "output_type": out.name})
    return op, fn


ARG_MAX, argmax = _arg_extreme("ArgMax", np.argmax)
ARG_MIN, argmin = _arg_extreme("ArgMin", np.argmin)
