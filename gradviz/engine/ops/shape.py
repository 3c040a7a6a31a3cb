"""Shape ops: reshape, transpose, slicing, concat/split, stack/unstack, pad, gather, tile.

Their rules move cotangents back into place; each also works when the cotangent has
leading batch axes (the first `g.ndim - out.ndim` axes are left alone).
"""
import builtins
import math

import numpy as np

from .. import kernels, tracing
from ..axes import axis_index
from ..errors import InvalidArgumentError, counted
from ..backend import _np_broadcast_to
from ..execute import apply, tensors
from ..registry import define_op, no_gradient
from ..tensor import Tensor, tensor_of


builtin_slice = builtins.slice  # this module defines tf.slice


def _ints(shape):
    """A shape given as list/tuple/TensorShape/Tensor (entries may be tensors) -> ints."""
    if isinstance(shape, Tensor):
        tracing.python_value(shape, "a shape given as a tensor")
        return tuple(int(d) for d in np.atleast_1d(shape._value))
    return tuple(map(int, shape))


def _nb(g, out):
    return g.ndim - out.ndim


# -- reshape and friends (their rule: reshape the cotangent back) -----------------------

def _reshape_back(F, g, ins, out, at, needs):
    return (F.reshape(g, tuple(g.shape[:_nb(g, out)]) + tuple(ins[0].shape)),)


RESHAPE = define_op("Reshape", lambda x, shape: np.reshape(x, shape), _reshape_back,
                    ("grad_x = reshape(grad, x.shape)",))


def reshape(tensor, shape, name=None):
    (x,) = tensors(tensor)
    shape = _ints(shape)
    size = x._value.size
    if -1 in shape:
        known = math.prod([d for d in shape if d != -1])
        if shape.count(-1) == 1 and known and size % known == 0:
            shape = tuple(size // known if d == -1 else d for d in shape)
    if -1 in shape or math.prod(shape) != size:
        raise ValueError(
            f"cannot reshape a tensor of shape {tuple(x.shape)} ({counted(x.size, 'element')}) "
            f"into shape {shape}")
    return apply(RESHAPE, (x,), {"shape": shape})


EXPAND_DIMS = define_op("ExpandDims", lambda x, axis: np.expand_dims(x, axis), _reshape_back,
                        ("grad_x = squeeze(grad)",))


def expand_dims(input, axis, name=None):
    (x,) = tensors(input)
    axis = axis_index(axis, x.ndim + 1, new=True)
    return apply(EXPAND_DIMS, (x,), {"axis": axis})


SQUEEZE = define_op("Squeeze", lambda x, axis: np.squeeze(x, axis), _reshape_back,
                    ("grad_x = reshape(grad, x.shape)",))


def squeeze(input, axis=None, name=None):
    (x,) = tensors(input)
    if axis is None:
        axis = tuple(i for i, d in enumerate(x._value.shape) if d == 1)
    else:
        listed = axis if isinstance(axis, (list, tuple)) else [axis]
        axis = tuple(axis_index(a, x.ndim) for a in listed)
    for a in axis:
        if x._value.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a} of shape {tuple(x.shape)}: its size is not 1")
    return apply(SQUEEZE, (x,), {"axis": axis})


def _transpose_rule(F, g, ins, out, at, needs):
    nb = _nb(g, out)
    inverse = np.argsort(at["perm"])
    return (F.transpose(g, tuple(range(nb)) + tuple(nb + int(p) for p in inverse)),)


TRANSPOSE = define_op("Transpose", lambda x, perm: np.transpose(x, perm), _transpose_rule,
                      ("grad_x = transpose(grad, inverse perm)",))


def transpose(a, perm=None, conjugate=False, name=None):
    (x,) = tensors(a)
    if perm is None:
        perm = tuple(reversed(range(x.ndim)))
    perm = tuple(axis_index(p, x.ndim, "perm entry") for p in _ints(perm))
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"perm {perm} is not a permutation of the axes of shape {tuple(x.shape)}")
    return apply(TRANSPOSE, (x,), {"perm": perm})


def matrix_transpose(a, name=None):
    (x,) = tensors(a)
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return transpose(x, perm)


def _broadcast_rule(F, g, ins, out, at, needs):
    return (g,)  # the engine sums it back to the input's shape


BROADCAST_TO = define_op("BroadcastTo", lambda x, shape: _np_broadcast_to(x, shape), _broadcast_rule,
                         ("grad_x = sum of grad over the broadcast axes",))


def broadcast_to(input, shape, name=None):
    (x,) = tensors(input)
    shape = _ints(shape)
    have = x._value.shape
    if len(have) > len(shape) or any(a != 1 and a != b for a, b in
                                     zip(reversed(have), reversed(shape))):
        raise ValueError(f"cannot broadcast shape {tuple(x.shape)} to {shape}")
    return apply(BROADCAST_TO, (x,), {"shape": shape})


def _sum_to_shape_forward(x, shape, nbatch):
    return kernels.sum_to_shape(x, shape, nbatch)


def _sum_to_shape_rule(F, g, ins, out, at, needs):
    x = ins[0]
    shape, nbatch = at["shape"], at["nbatch"]
    nb2 = g.ndim - len(shape)
    extra = x.ndim - len(shape)
    lead = tuple(g.shape[:nb2])
    if extra < 0:  # the forward broadcast x up to shape
        return (F.sum_to_shape(g, lead + tuple(x.shape), nb2),)
    g = F.reshape(g, lead + tuple(shape[:nbatch]) + (1,) * extra + tuple(shape[nbatch:]))
    return (F.broadcast_to(g, lead + tuple(x.shape)),)


SUM_TO_SHAPE = define_op("SumToShape", _sum_to_shape_forward, _sum_to_shape_rule,
                         ("grad_x = broadcast(grad, x.shape)",))


def sum_to_shape(x, shape, nbatch=0):
    """Undo broadcasting: sum `x` (batch + broadcast shape) down to `shape` (batch + shape)."""
    (x,) = tensors(x)
    return apply(SUM_TO_SHAPE, (x,), {"shape": tuple(shape), "nbatch": int(nbatch)})


def identity(input, name=None):
    (x,) = tensors(input)
    return apply(IDENTITY, (x,))


IDENTITY = define_op("Identity", lambda x: x, lambda F, g, ins, out, at, needs: (g,),
                     ("grad_x = grad",))
for _op in (RESHAPE, EXPAND_DIMS, SQUEEZE, BROADCAST_TO, SUM_TO_SHAPE, IDENTITY):
    _op.shapes_only_rule = True


def _stop_forward(x):
    return x


STOP_GRADIENT = define_op("StopGradient", _stop_forward)
no_gradient("StopGradient")
STOP_GRADIENT.outputs_off_tape = True


def stop_gradient(input, name=None):
    """The value of `input`; no gradient flows back through it.

    Its output is on no tape, as in TF (which pauses its tapes around this op): an op
    reading only it is not recorded, and it has no gradient as a source either."""
    (x,) = tensors(input)
    return apply(STOP_GRADIENT, (x,))


# -- slicing -----------------------------------------------------------------------------

def _normalize_key(key):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k.ndim != 0 or k._value.dtype.kind not in "iu":
                raise TypeError("only scalar integer tensors can index a tensor; use gather for more")
            tracing.python_value(k, "an index given as a tensor")
            out.append(int(k._value))
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError("boolean indices are not supported; use gradviz.gather with integer indices")
        elif isinstance(k, (int, np.integer)):
            out.append(int(k))
        elif isinstance(k, builtin_slice):
            out.append(builtin_slice(*(None if v is None else int(v) for v in (k.start, k.stop, k.step))))
        elif k is None or k is Ellipsis:
            out.append(k)
        else:
            raise TypeError(f"unsupported index {k!r}: use ints, slices, None and ... (or gather)")
    return tuple(out)


def _slice_forward(x, key):
    try:
        return np.asarray(x[key])
    except IndexError as e:
        raise IndexError(f"index {key} is out of range for shape {x.shape}: {e}") from None


def _batch_key(nb, key):
    return (builtin_slice(None),) * nb + key


def _slice_rule(F, g, ins, out, at, needs):
    nb = _nb(g, out)
    return (F.slice_grad(g, _batch_key(nb, at["key"]), tuple(g.shape[:nb]) + tuple(ins[0].shape)),)


SLICE = define_op("StridedSlice", _slice_forward, _slice_rule,
                  ("grad_x = zeros with grad placed at the slice",))


def strided_slice(x, key):
    (x,) = tensors(x)
    return apply(SLICE, (x,), {"key": _normalize_key(key)})


def _slice_grad_forward(g, key, shape):
    out = np.zeros(shape, g.dtype)
    out[key] = g
    return out


def _slice_grad_rule(F, g, ins, out, at, needs):
    nb = g.ndim - len(at["shape"])
    return (F.strided_slice(g, _batch_key(nb, at["key"])),)


SLICE_GRAD = define_op("StridedSliceGrad", _slice_grad_forward, _slice_grad_rule,
                       ("grad_g = slice of grad",))


def slice_grad(g, key, shape):
    (g,) = tensors(g)
    return apply(SLICE_GRAD, (g,), {"key": key, "shape": tuple(shape)})


def slice(input_, begin, size, name=None):
    """tf.slice: `size[i] == -1` takes the rest of axis i."""
    (x,) = tensors(input_)
    begin = _ints(begin)
    size = _ints(size)
    key = tuple(builtin_slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return strided_slice(x, key)


# -- concat / split / stack / unstack ----------------------------------------------------

def _neg_axis(axis, ndim, new=False):
    """`axis` counted from the end (-ndim..-1), checked by axes.py."""
    return axis_index(axis, ndim, new=new) - ndim


def _concat_rule(F, g, ins, out, at, needs):
    axis = at["axis"]
    sizes = [int(x.shape[axis]) for x in ins]
    return tuple(F.split(g, sizes, axis))


CONCAT = define_op("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis), _concat_rule,
                   ("grad_x = the matching slice of grad",))


def concat(values, axis, name=None):
    values = tensors(*values)
    if not values:
        raise ValueError("concat needs at least one tensor")
    axis = _neg_axis(axis, values[0].ndim)
    ranks = {v.ndim for v in values}
    if len(ranks) != 1:
        raise ValueError(f"concat needs tensors of one rank, got shapes {[tuple(v.shape) for v in values]}")
    return apply(CONCAT, tuple(values), {"axis": axis})


def _split_forward(x, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis)


def _split_rule(F, g, ins, out, at, needs):
    return (F.concat(list(g), at["axis"]),)


SPLIT = define_op("SplitV", _split_forward, _split_rule, ("grad_x = concat(grads)",), n_outputs=-1)


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    (x,) = tensors(value)
    axis = _neg_axis(axis, x.ndim)
    length = x._value.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        if n <= 0 or length % n:
            raise ValueError(f"cannot split an axis of size {length} into {n} equal parts")
        sizes = (length // n,) * n
    else:
        sizes = list(_ints(num_or_size_splits))
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = length - (sum(sizes) + 1)
        if sum(sizes) != length:
            raise ValueError(f"split sizes {tuple(sizes)} do not add up to the axis size {length}")
        sizes = tuple(sizes)
    return apply(SPLIT, (x,), {"sizes": sizes, "axis": axis})


def _stack_rule(F, g, ins, out, at, needs):
    return tuple(F.unstack(g, axis=at["axis"]))


STACK = define_op("Pack", lambda *xs, axis: np.stack(xs, axis), _stack_rule,
                  ("grad_x = the matching slice of grad",))


def stack(values, axis=0, name=None):
    values = tensors(*values)
    shapes = {tuple(v.shape) for v in values}
    if len(shapes) != 1:
        raise ValueError(f"stack needs tensors of one shape, got {[tuple(v.shape) for v in values]}")
    axis = _neg_axis(axis, values[0].ndim + 1, new=True)
    return apply(STACK, tuple(values), {"axis": axis})


def _unstack_forward(x, axis):
    return [np.take(x, i, axis=axis) for i in range(x.shape[axis])]


def _unstack_rule(F, g, ins, out, at, needs):
    return (F.stack(list(g), axis=at["axis"]),)


UNSTACK = define_op("Unpack", _unstack_forward, _unstack_rule, ("grad_x = stack(grads)",),
                    n_outputs=-1)


def unstack(value, num=None, axis=0, name=None):
    (x,) = tensors(value)
    axis = _neg_axis(axis, x.ndim)
    return apply(UNSTACK, (x,), {"axis": axis})


# -- pad, tile, gather -------------------------------------------------------------------

def _pad_forward(x, paddings, constant_values):
    return np.pad(x, paddings, constant_values=constant_values)


def _pad_rule(F, g, ins, out, at, needs):
    nb = _nb(g, out)
    key = tuple(builtin_slice(lo, g.shape[nb + i] - hi) for i, (lo, hi) in enumerate(at["paddings"]))
    return (F.strided_slice(g, _batch_key(nb, key)),)


PAD = define_op("PadV2", _pad_forward, _pad_rule, ("grad_x = grad without the padding",))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    if str(mode).upper() != "CONSTANT":
        raise ValueError(f"pad supports mode='CONSTANT' only, not {mode!r}")
    (x,) = tensors(tensor)
    if isinstance(paddings, Tensor):
        tracing.python_value(paddings, "paddings given as a tensor")
        paddings = paddings._value.tolist()
    paddings = tuple((int(a), int(b)) for a, b in paddings)
    if len(paddings) != x.ndim:
        raise ValueError(f"paddings has {counted(len(paddings), 'row')} for a tensor of rank {x.ndim}")
    if isinstance(constant_values, Tensor):
        tracing.python_value(constant_values, "pad's constant_values given as a tensor")
        constant_values = constant_values._value
    return apply(PAD, (x,), {"paddings": paddings, "constant_values": float(constant_values)})


def _tile_rule(F, g, ins, out, at, needs):
    nb = _nb(g, out)
    batch = tuple(g.shape[:nb])
    split_shape = []
    for m, d in zip(at["multiples"], ins[0].shape):
        split_shape += [m, int(d)]
    g = F.reshape(g, batch + tuple(split_shape))
    axes = tuple(nb + 2 * i for i in range(len(at["multiples"])))
    return (F.reduce_sum(g, tuple(a - g.ndim for a in axes), False),)


TILE = define_op("Tile", lambda x, multiples: np.tile(x, multiples), _tile_rule,
                 ("grad_x = sum of grad over the tiles",))


def tile(input, multiples, name=None):
    (x,) = tensors(input)
    multiples = _ints(multiples)
    if len(multiples) != x.ndim:
        raise ValueError(f"tile needs {x.ndim} multiples for shape {tuple(x.shape)}, got {multiples}")
    return apply(TILE, (x,), {"multiples": multiples})


def check_indices(values, n):
    """Every index in [0, n), else InvalidArgumentError in TF's words ("indices[1,0] = -1
    is not in [0, 3)"): TF's gather on the CPU refuses a negative index rather than
    counting it from the end, and so does gradviz."""
    if values.size and (values.min() < 0 or values.max() >= n):
        bad = values[(values < 0) | (values >= n)].reshape(-1)[0]
        at = ",".join(str(int(i)) for i in np.argwhere(values == bad)[0])
        raise InvalidArgumentError(f"indices[{at}] = {int(bad)} is not in [0, {n})")


def _gather_forward(params, indices, axis):
    check_indices(indices, params.shape[axis])   # here, so a compiled replay checks too
    return np.take(params, indices, axis=axis)


def _gather_rule(F, g, ins, out, at, needs):
    params, indices = ins
    nb = _nb(g, out)
    shape = tuple(g.shape[:nb]) + tuple(params.shape)
    return (F.gather_grad(g, indices, nb + at["axis"], shape), None)


GATHER = define_op("GatherV2", _gather_forward, _gather_rule,
                   ("grad_params = scatter-add of grad at the indices", "indices: no gradient"))
# What TF records for a lookup in a Variable (embedding_lookup): the same gather.
RESOURCE_GATHER = define_op("ResourceGather", _gather_forward, _gather_rule,
                            ("grad_params = scatter-add of grad at the indices",
                             "indices: no gradient"))


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    (params,) = tensors(params)
    indices = indices if isinstance(indices, Tensor) else tensor_of(np.asarray(indices))
    if indices._value.dtype.kind not in "iu":
        raise TypeError(f"gather indices must be integers, got {indices.dtype.name}")
    b = axis_index(batch_dims, indices.ndim + 1, "batch_dims")
    axis = b if axis is None else axis_index(axis, params.ndim)
    if b == 0:
        return apply(GATHER, (params, indices), {"axis": axis})
    return _batch_gather(params, indices, axis, b)


def _batch_gather(params, indices, axis, b):
    """tf.gather with batch_dims=b, built from recorded ops (so it has every derivative):
    move `axis` next to the batch axes, fold the batch into it with offset indices,
    gather once, and put the axes back in TF's order."""
    p_shape, i_shape = tuple(params.shape), tuple(indices.shape)
    if axis < b or p_shape[:b] != i_shape[:b]:
        raise ValueError(f"gather with batch_dims={b} needs axis >= batch_dims and the same "
                         f"leading {counted(b, 'dimension')}: params {p_shape}, indices {i_shape}")
    n = p_shape[axis]
    tracing.python_value(indices, "gather's indices with batch_dims")
    idx = indices._value.astype(np.int64)
    check_indices(idx, n)
    batch = p_shape[:b]
    count = int(np.prod(batch, dtype=np.int64))
    middle = p_shape[b:axis]            # params axes between the batch and `axis`
    rest = p_shape[axis + 1:]
    perm = tuple(range(b)) + (axis,) + tuple(range(b, axis)) + tuple(range(axis + 1, params.ndim))
    folded = reshape(transpose(params, perm), (count * n,) + middle + rest)
    offsets = (np.arange(count) * n).reshape((count,) + (1,) * (idx.ndim - b))
    flat = tensor_of(idx.reshape((count,) + i_shape[b:]) + offsets)
    out = reshape(apply(GATHER, (folded, flat), {"axis": 0}),
                  batch + i_shape[b:] + middle + rest)
    # (batch, indices, middle, rest) -> (batch, middle, indices, rest), TF's order.
    ni, nm = len(i_shape) - b, len(middle)
    order = (tuple(range(b)) + tuple(range(b + ni, b + ni + nm)) + tuple(range(b, b + ni))
             + tuple(range(b + ni + nm, b + ni + nm + len(rest))))
    return transpose(out, order) if nm and ni else out


def _gather_grad_forward(g, indices, axis, shape):
    return kernels.scatter_add(g, indices, axis, shape)


def _gather_grad_rule(F, g, ins, out, at, needs):
    nb2 = g.ndim - len(at["shape"])
    return (F.gather(g, ins[1], axis=nb2 + at["axis"]), None)


GATHER_GRAD = define_op("GatherGrad", _gather_grad_forward, _gather_grad_rule,
                        ("grad_g = gather(grad, indices)", "indices: no gradient"))


def gather_grad(g, indices, axis, shape):
    (g,) = tensors(g)
    if not isinstance(indices, Tensor):
        indices = tensor_of(np.asarray(indices))
    return apply(GATHER_GRAD, (g, indices), {"axis": int(axis), "shape": tuple(shape)})


def _where_indices(condition):
    (c,) = tensors(condition)
    tracing.python_value(c, "tf.where of a condition alone (its shape is the data's)")
    return Tensor._wrap(np.argwhere(c._value).astype(np.int64))


def shape(input, out_type=None, name=None):
    (x,) = tensors(input)
    return Tensor._wrap(np.asarray(x._value.shape, dtype=np.int32))


def size(input, out_type=None, name=None):
    (x,) = tensors(input)
    return Tensor._wrap(np.asarray(x.size, dtype=np.int32))


def rank(input, name=None):
    (x,) = tensors(input)
    return Tensor._wrap(np.asarray(x.ndim, dtype=np.int32))
