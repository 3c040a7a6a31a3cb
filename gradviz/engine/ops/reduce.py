"""Reductions: sum, mean, max, min, prod, and the Euclidean norm.

Axes are stored negative (counted from the end) so the rules work unchanged when a
cotangent carries leading batch axes.
"""
import numpy as np

from ..execute import apply, tensors
from ..registry import define_op


def normalize_axes(axis, ndim):
    """Axis argument -> sorted tuple of negative axes (None means all)."""
    if axis is None:
        return tuple(range(-ndim, 0))
    if hasattr(axis, "_value"):
        axis = axis._value.tolist()
    if isinstance(axis, (int, np.integer)):
        axis = [axis]
    out = set()
    for a in axis:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndim}")
        out.add(a - ndim if a >= 0 else a)
    return tuple(sorted(out))


def _kept_shape(in_shape, axes):
    n = len(in_shape)
    reduced = {n + a for a in axes}
    return tuple(1 if i in reduced else d for i, d in enumerate(in_shape))


def _reducer(type, forward, rule, formula):
    op = define_op(type, forward, rule, (formula,))

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        (x,) = tensors(input_tensor)
        axes = normalize_axes(axis, x.ndim)
        return apply(op, (x,), {"axis": axes, "keepdims": bool(keepdims)})
    return op, fn


def _np_sum(x, axis, keepdims):
    return np.asarray(np.sum(x, axis=axis, keepdims=keepdims))


def _np_mean(x, axis, keepdims):
    return np.asarray(np.mean(x, axis=axis, keepdims=keepdims), dtype=x.dtype)


def _np_max(x, axis, keepdims):
    return np.asarray(np.max(x, axis=axis, keepdims=keepdims))


def _np_min(x, axis, keepdims):
    return np.asarray(np.min(x, axis=axis, keepdims=keepdims))


def _np_prod(x, axis, keepdims):
    return np.asarray(np.prod(x, axis=axis, keepdims=keepdims))


def _count(x, axes):
    shape = tuple(x.shape)
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _sum_rule(F, g, ins, out, at, needs):
    return (_expand(F, g, ins[0], out, at),)


def _expand(F, g, x, out, at):
    """g (batch + out.shape) -> batch + x.shape, repeating along the reduced axes."""
    nb = g.ndim - out.ndim
    batch = tuple(g.shape[:nb])
    g = F.reshape(g, batch + _kept_shape(tuple(x.shape), at["axis"]))
    return F.broadcast_to(g, batch + tuple(x.shape))


def _mean_rule(F, g, ins, out, at, needs):
    return (_expand(F, g, ins[0], out, at) / _count(ins[0], at["axis"]),)


def _extreme_rule(F, g, ins, out, at, needs):
    x = ins[0]
    kept = _kept_shape(tuple(x.shape), at["axis"])
    winners = F.cast(F.equal(x, F.reshape(out, kept)), x.dtype)
    ties = F.reduce_sum(winners, at["axis"], True)
    return (_expand(F, g, x, out, at) * (winners / ties),)


def _prod_rule(F, g, ins, out, at, needs):
    x = ins[0]
    axes = at["axis"]
    is_zero = F.equal(x, 0)
    zeros = F.reduce_sum(F.cast(is_zero, x.dtype), axes, True)
    safe_x = F.where(is_zero, F.ones_like(x), x)
    others = F.reduce_prod(safe_x, axes, True)  # product with zeros replaced by ones
    no_zero = F.equal(zeros, 0)
    one_zero = F.equal(zeros, 1)
    local = F.where(is_zero, F.masked(others, one_zero) * F.ones_like(x),
                    F.masked(others, no_zero) / safe_x)
    return (_expand(F, g, x, out, at) * local,)


SUM, reduce_sum = _reducer("Sum", _np_sum, _sum_rule, "grad_x = broadcast(grad)")
MEAN, reduce_mean = _reducer("Mean", _np_mean, _mean_rule, "grad_x = broadcast(grad) / n")
MAX, reduce_max = _reducer("Max", _np_max, _extreme_rule,
                           "grad_x = broadcast(grad) where x = max (split among ties)")
MIN, reduce_min = _reducer("Min", _np_min, _extreme_rule,
                           "grad_x = broadcast(grad) where x = min (split among ties)")
PROD, reduce_prod = _reducer("Prod", _np_prod, _prod_rule,
                             "grad_x = broadcast(grad) · (product of the others)")


def _np_norm(x, axis, keepdims):
    return np.asarray(np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)), dtype=x.dtype)


def _norm_rule(F, g, ins, out, at, needs):
    x = ins[0]
    kept = _kept_shape(tuple(x.shape), at["axis"])
    return (_expand(F, g, x, out, at) * (x / F.reshape(out, kept)),)


NORM = define_op("EuclideanNorm", _np_norm, _norm_rule, ("grad_x = grad · x / ‖x‖",))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """The Euclidean (Frobenius) norm over `axis` (all elements by default)."""
    if ord not in ("euclidean", "fro", 2, 2.0):
        raise ValueError(f"norm supports ord='euclidean' (or 'fro', 2), not {ord!r}")
    (x,) = tensors(tensor)
    axes = normalize_axes(axis, x.ndim)
    return apply(NORM, (x,), {"axis": axes, "keepdims": bool(keepdims)})


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t · clip_norm / max(‖t‖, clip_norm), built from recorded ops as in TF."""
    from . import math as M
    t, clip = tensors(t, clip_norm)
    l2 = norm(t, axis=axes, keepdims=True)
    return M.divide(M.multiply(t, clip), M.maximum(l2, clip))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    from . import math as M
    from ..tape import stop_recording_all
    (x,) = tensors(input_tensor)
    with stop_recording_all():
        shift = reduce_max(x, axis, keepdims=True)
    shifted = M.subtract(x, shift)
    result = M.add(M.log(reduce_sum(M.exp(shifted), axis, keepdims=True)), shift)
    if not keepdims:
        from .shape import reshape
        result = reshape(result, _np_sum(x._value, normalize_axes(axis, x.ndim), False).shape)
    return result
