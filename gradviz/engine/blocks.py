"""Block-diagonal Jacobians: when row b of a target depends on row b of a source only.

The Jacobian of y (B, ...) with respect to x (B, ...) is then zero off its B diagonal
blocks, and one backward pass can carry the basis cotangents of every row at once: the
per_row seeds "element j of every row" instead of the B * per_row seeds "element j of
row b". That is `batch_jacobian`'s trick; here it is applied only where the tape
*proves* that rows stay apart, so `jacobian` keeps its exact meaning. Sparse AD calls
this structural sparsity detection with row compression.

The proof walks the recorded ops forward from the source. A tensor is row-aligned when
its axis 0 is the source's axis 0 and its row b depends on the source's row b only. An
op keeps alignment only if it is one of the row-wise ops below and its inputs that
depend on the source are aligned; anything else (a reduction over axis 0, a matmul
that mixes rows, gather, batch norm, a custom gradient) ends it, and `jacobian` falls
back to the dense pass.
"""
import numpy as np

from .backward import backward
from .execute import apply
from .ops import shape as shape_ops
from .registry import define_op
from .tensor import Tensor
from .tracing import _trace

# False: jacobian always takes the dense pass (to compare, or to rule this path out).
ENABLED = True

ELEMENTWISE = frozenset((   # each output entry reads the same (broadcast) entry of each input
    # unary
    "Neg", "Exp", "Log", "Sin", "Cos", "Sqrt", "Square", "Abs", "Tanh", "Reciprocal",
    "Sign", "Relu", "Sigmoid", "Elu", "Softplus", "Identity", "Cast",
    # n-ary with numpy broadcasting
    "AddV2", "Sub", "Mul", "RealDiv", "Pow", "Maximum", "Minimum", "Masked", "SelectV2",
    "ClipByValue", "TanhGrad", "ReluGrad", "SigmoidGrad", "EluGrad", "SqrtGrad", "ReciprocalGrad",
))
_REDUCTIONS = frozenset(("Sum", "Mean", "Max", "Min", "Prod", "EuclideanNorm"))
_LAST_AXIS = frozenset(("Softmax", "LogSoftmax"))
_RESHAPES = frozenset(("Reshape", "ExpandDims", "Squeeze"))


def _lead(t, rows):
    shape = t._value.shape
    return len(shape) >= 1 and shape[0] == rows


def _keeps_rows(op, dependent, rows):
    """Does `op` map row b of its dependent (aligned) inputs to row b of its output?"""
    kind = op.opdef.type
    if op.opdef.grad_fn is not None or len(op.outputs) != 1:
        return False
    out = op.outputs[0]
    if not _lead(out, rows):
        return False
    ndim = out._value.ndim
    if kind in ELEMENTWISE or kind == "BroadcastTo":
        # Broadcasting may repeat a dependent input along other axes, never along axis 0.
        return all(t._value.ndim == ndim and _lead(t, rows) for t in dependent)
    if kind in _REDUCTIONS:
        (x,) = op.inputs
        return x._value.ndim >= 2 and -x._value.ndim not in op.attrs["axis"]
    if kind in _LAST_AXIS:
        return ndim >= 2
    if kind in _RESHAPES:
        # Equal leading sizes: row b is the same contiguous run of elements before and after.
        return _lead(op.inputs[0], rows)
    if kind == "Transpose":
        return op.attrs["perm"][0] == 0
    if kind == "MatMul":
        a, b = op.inputs
        for i, t in enumerate((a, b)):
            if not any(t is d for d in dependent):
                continue
            n = t._value.ndim
            if n >= 3:  # axis 0 is a batch axis of the product
                if n != ndim:
                    return False
            elif i == 1 or op.attrs["transpose_a"] or ndim != 2:
                return False  # a 2-D right operand, or a transposed left one, mixes rows
        return True
    return False


def last_op_keeps_rows(relevant, target, rows):
    """A quick test before `row_aligned` with one source, from `relevant` (the (op, needs)
    pairs of backward._relevant_entries for that source): the op that made the target
    must keep rows of the inputs that depend on the source. False settles it (the walk
    would end in the same op); True decides nothing. A Hessian's inner gradient
    `xᵀ @ g` fails here at once, without the walk over every op of both passes."""
    for op, needs in reversed(relevant):
        for o in op.outputs:
            if o is target:
                if op.opdef.type == "MatMul" and needs[1] and op.inputs[1]._value.ndim == 2:
                    return False  # a dependent 2-D right operand mixes rows (_keeps_rows)
                dependent = [t for t, need in zip(op.inputs, needs) if need]
                return _keeps_rows(op, dependent, rows)
    return True  # made by no op on the path (the source itself, or unconnected)


def row_aligned(entries, target, source):
    """True if the recorded `entries` prove target[b] depends on source[b] only."""
    if not ENABLED or target._value.ndim < 1 or source._value.ndim < 1:
        return False
    rows = source._value.shape[0]
    if target._value.shape[0] != rows or source._value.dtype.kind != "f":
        return False
    # Floating tensors that depend on the source: row-aligned ones, and the others.
    aligned = {source._id}
    mixed = set()
    goal = target._id
    for op in entries:
        hit = False
        clean = True
        for t in op.inputs:
            if t._id in aligned:
                hit = True
            elif t._id in mixed:
                hit = True
                clean = False
        if not hit:
            continue
        if clean and _keeps_rows(op, [t for t in op.inputs if t._id in aligned], rows):
            into = aligned
        else:
            into = mixed
        for o in op.outputs:
            if o._value.dtype.kind == "f":
                into.add(o._id)
        if goal in into:
            break
    return goal in aligned


def block_jacobian(entries, target, sources, zero, relevant=None, *, chunk_size):
    """`jacobian` for a target row-aligned with every source (see `row_aligned`):
    per_row backward passes' worth of seeds instead of target.size, then the blocks
    are placed on the diagonal. Off the diagonal, TF's row of the Jacobian (one pass
    seeded with a one-hot cotangent) carries a zero cotangent through the rows the
    one-hot misses, and a rule's zero times ∞ there is NaN (Pow at 0: 0 · 0^-0.5). By
    row alignment, source row b' of such a pass depends on target row b' alone, so it
    is the same for every seed outside row b': one more seed of zeros, after the last
    one-hot, gives it (all zeros, unless a rule meets ∞ or NaN). No tape records this;
    under tf.function's tracer the passes and the placing are ops, so the trace has them.
    `chunk_size(entries, n)`: how many seeds one pass carries (the tape's memory budget)."""
    rows = target._value.shape[0]
    per_row = target._value.size // rows
    dtype = target._value.dtype
    seeds = per_row + 1  # the last is the zero seed
    chunk = chunk_size(entries, seeds)
    parts = [[] for _ in sources]
    for start in range(0, seeds, chunk):
        stop = min(seeds, start + chunk)
        seed = np.zeros((stop - start, rows, per_row), dtype)
        ones = min(stop, per_row)
        seed[np.arange(ones - start), :, np.arange(start, ones)] = 1
        seed = Tensor._wrap(seed.reshape((stop - start,) + target._value.shape))
        for lst, g in zip(parts, backward(entries, [target], [seed], sources, 1, None, relevant)):
            lst.append(g)
    out = []
    for lst, s in zip(parts, sources):
        shape = target._value.shape + s._value.shape
        if any(g is None for g in lst):
            out.append(Tensor._wrap(np.zeros(shape, s._value.dtype)) if zero else None)
            continue
        rest = s._value.size // rows
        if _trace.tracer is not None:
            out.append(_diagonal_blocks_op(lst, rows, per_row, rest, shape))
            continue
        g = lst[0]._value if len(lst) == 1 else np.concatenate([g._value for g in lst])
        # g[k, b] is row b's block column k: d target[b, k] / d source[b, :].
        j = _diagonal_blocks_forward(g[:per_row].reshape(per_row, rows, rest).transpose(1, 0, 2),
                                     g[per_row].reshape(rows, rest))
        out.append(Tensor._wrap(j.reshape(shape)))
    return out


def _diagonal_blocks_forward(blocks, fill):
    """j with `blocks` on its diagonal and `fill` repeated off it. The fill is zeros
    unless a NaN or ∞ met a zero cotangent (NaN counts as nonzero), and then it is not
    copied: a fresh array of zeros is the same numbers (+0, where a fill of -0 gave -0
    in compiled code and +0 eagerly), and the copy of a small fill into a large array
    can run 15x slower. When j lies 16 bytes past a multiple of 4 KiB above the fill (a
    glibc header past the end of a fill of 2·4 KiB, as W3's trace allocates them), each
    load of the fill waits on the store before it (4K aliasing): W3 compiled took 4-5
    floors instead of one in the processes whose heap put j there."""
    rows, per_row, rest = blocks.shape
    j = np.zeros((rows, per_row, rows, rest), blocks.dtype)
    if fill.any():
        j[...] = fill.reshape(1, 1, rows, rest)
    r = np.arange(rows)
    j[r, :, r, :] = blocks
    return j


def _diagonal_blocks_rule(F, g, ins, out, at, needs):
    rows = out.shape[0]
    mask = np.eye(rows, dtype=bool).reshape(rows, 1, rows, 1)
    return (F.reduce_sum(F.masked(g, mask), axis=-2),
            F.reduce_sum(F.masked(g, ~mask), axis=(-4, -3)))


# blocks (rows, per_row, rest), fill (rows, rest) -> j (rows, per_row, rows, rest):
# j[b, :, b, :] = blocks[b] and j[b, :, b', :] = fill[b'] for b' != b, block_jacobian's
# placing as an op for tf.function's trace.
DIAGONAL_BLOCKS = define_op("DiagonalBlocks", _diagonal_blocks_forward, _diagonal_blocks_rule,
                            ("grad_blocks = the diagonal blocks of grad",
                             "grad_fill = grad off the diagonal blocks, summed over target rows"))


def _diagonal_blocks_op(parts, rows, per_row, rest, shape):
    """block_jacobian's placing of the blocks and the zero seed's fill, as ops (traced by
    tf.function)."""
    S = shape_ops
    g = parts[0] if len(parts) == 1 else S.concat(parts, axis=0)
    g, fill = S.split(S.reshape(g, (per_row + 1, rows, rest)), [per_row, 1], axis=0)
    blocks = S.transpose(g, (1, 0, 2))
    return S.reshape(apply(DIAGONAL_BLOCKS, (blocks, S.reshape(fill, (rows, rest)))), shape)
