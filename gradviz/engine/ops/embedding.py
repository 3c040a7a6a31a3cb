"""tf.nn.embedding_lookup and tf.nn.dropout."""
import numpy as np

from .. import tracing
from ..array import random
from ..execute import apply, tensors
from ..registry import define_op
from ..tensor import Tensor, Variable, convert_to_tensor, tensor_of
from .reduce import clip_by_norm
from .shape import GATHER, RESOURCE_GATHER, concat


def _ids(ids):
    ids = ids if isinstance(ids, Tensor) else tensor_of(np.asarray(ids))
    if ids._value.dtype.kind not in "iu":
        raise TypeError(f"embedding_lookup needs integer ids (int32 or int64), got "
                        f"{ids.dtype.name}")
    return ids


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows `ids` of the table `params` (axis 0). A Variable table records ResourceGather
    and a tensor GatherV2, as in TF; a list of tables is their concatenation (TF's 'div'
    sharding). With max_norm, each looked-up row is clipped to that norm."""
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        if len(params) > 1:
            params = concat(list(params), axis=0)
        else:
            params = params[0]
    params = params if isinstance(params, Tensor) else convert_to_tensor(params)
    ids = _ids(ids)
    if params.ndim == 0:
        raise ValueError("embedding_lookup needs a table of rank at least 1, got a scalar")
    op = RESOURCE_GATHER if type(params) is Variable else GATHER
    rows = apply(op, (params, ids), {"axis": 0})
    if max_norm is None:
        return rows
    axes = list(range(ids.ndim, rows.ndim))
    return clip_by_norm(rows, max_norm, axes=axes) if axes else rows


# -- dropout --------------------------------------------------------------------------------

def keep_mask(shape, rate, seed, dtype):
    """The kept elements scaled by 1/(1 − rate) (0 elsewhere), drawn from `seed` alone, so
    the same seed gives the same mask on every call and the backward pass redraws it."""
    u = np.random.default_rng(int(seed) % 2 ** 64).random(shape)  # TF seeds may be negative
    scale = np.asarray(1.0 / (1.0 - rate), dtype)
    return np.where(u >= rate, scale, np.zeros((), dtype)).astype(dtype, copy=False)


def _dropout_forward(x, rate, seed, noise_shape):
    mask = keep_mask(noise_shape, rate, seed, x.dtype)
    return np.where(mask != 0, x * mask, np.zeros((), x.dtype)).astype(x.dtype, copy=False)


def _dropout_rule(F, g, ins, out, at, needs):
    """TF's gradient of where(keep, x · scale, 0): SelectV2's where(keep, grad, 0), then
    Mul's · scale, so a dropped element gets +0 whatever grad is (not -0, not inf · 0)."""
    x = ins[0]
    dtype = np.dtype(x.dtype.name if isinstance(x, Tensor) else x.dtype)
    mask = keep_mask(at["noise_shape"], at["rate"], at["seed"], dtype)
    return (F.masked(g, mask != 0) * np.asarray(1.0 / (1.0 - at["rate"]), dtype),)


DROPOUT = define_op("Dropout", _dropout_forward, _dropout_rule,
                    ("grad_x = grad · mask / (1 − rate)",))


def _noise_shape(noise_shape, x):
    if noise_shape is None:
        return tuple(x.shape)
    dims = list(getattr(noise_shape, "_value", noise_shape))
    if len(dims) != x.ndim:
        raise ValueError(f"noise_shape {dims} needs one entry per axis of x, shape "
                         f"{tuple(x.shape)}")
    shape = tuple(int(d) if d is not None else n for d, n in zip(dims, x.shape))
    if any(d != 1 and d != n for d, n in zip(shape, x.shape)):
        raise ValueError(f"noise_shape {list(shape)} is not broadcastable to the shape of x "
                         f"{tuple(x.shape)}: each entry must be 1 or the size of its axis")
    return shape


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability `rate`, scale the rest by 1/(1 − rate).

    With a seed the mask depends on the seed alone (stateless: the same on every call);
    without one, a seed is drawn from tf.random's generator (tf.random.set_seed makes it
    reproducible). The engine records one Dropout op (TF records the uniform draw,
    a comparison and a select), so the story shows the rule grad · mask / (1 − rate).
    """
    (x,) = tensors(x)
    if x._value.dtype.kind != "f":
        raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    r = getattr(rate, "_value", rate)
    if np.ndim(r) != 0 or not isinstance(np.asarray(r).item(), (int, float)) \
            or isinstance(np.asarray(r).item(), bool) or not 0 <= float(r) < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={r!r}")
    shape = _noise_shape(noise_shape, x)
    if float(r) == 0:
        return x  # TF's fast path: nothing is dropped and no op is recorded
    if seed is None:
        tracing.python_value(x, "dropout without a seed (its mask is drawn in Python)")
        seed = int(random._generator(None).integers(0, 2 ** 31 - 1))
    return apply(DROPOUT, (x,), {"rate": float(r), "seed": int(seed), "noise_shape": shape})
