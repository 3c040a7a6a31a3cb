"""Each op's own shape rule (linalg, shape ops, losses, conv, pooling): its outputs and work."""
import math
import string

import numpy as np

from gradviz.engine.errors import InvalidArgumentError, counted
from gradviz.engine.ops import windows as _windows
from gradviz.engine.ops.shape import check_indices

from ..engine.ops.linalg import _explicit_equation
from .shape_error import ShapeError, broadcast, checked_axis, in_, shapes_of, text


# -- linalg ---------------------------------------------------------------------------------
def _matmul(shapes, a):
    x, y = shapes
    if len(x) < 2 or len(y) < 2:
        raise ShapeError(f"matmul needs tensors of rank 2 or more: {shapes_of((x, y))}")
    m, k = (x[-1], x[-2]) if a["transpose_a"] else (x[-2], x[-1])
    k2, n = (y[-1], y[-2]) if a["transpose_b"] else (y[-2], y[-1])
    if k != k2:
        raise ShapeError(f"matmul shapes do not match: {in_(0)} has shape {text(x)}"
                         f"{' (transposed)' if a['transpose_a'] else ''}, {in_(1)} has shape "
                         f"{text(y)}{' (transposed)' if a['transpose_b'] else ''}; inner "
                         f"dimensions {k} and {k2} differ")
    batch = broadcast([x[:-2], y[:-2]])
    return [batch + (m, n)], math.prod(batch) * m * k * n


def _square(shape, op):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"{op} needs square matrices: {in_(0)} has shape {text(shape)}")
    return shape[-1]


def _solve(shapes, a):
    matrix, rhs = shapes
    n = _square(matrix, "linalg.solve")
    if len(rhs) < 2 or rhs[-2] != n:
        raise ShapeError(f"linalg.solve needs a right-hand side of shape [..., {n}, K]: "
                         f"{in_(1)} has shape {text(rhs)}")
    batch = broadcast([matrix[:-2], rhs[:-2]])
    return [batch + tuple(rhs[-2:])], math.prod(batch) * (n ** 3 + n * n * rhs[-1])


def _inv(shapes, a):
    n = _square(shapes[0], "linalg.inv")
    return [shapes[0]], math.prod(shapes[0][:-2]) * n ** 3


def _einsum(shapes, a):
    equation = a["equation"]
    rest = equation.replace("->", "", 1).replace("...", "")
    if not set(rest) <= set(string.ascii_letters + ", "):
        raise ShapeError(f"einsum equation {equation!r} must use letters, ',', '...' and one "
                         "'->'"[:200])
    try:
        explicit = _explicit_equation(equation, shapes)
    except ValueError as e:
        raise ShapeError(str(e)) from None
    lhs, out = explicit.split("->")
    subs = lhs.split(",")
    sizes = {}
    for s, shape in zip(subs, shapes):
        for c, d in zip(s, shape):
            sizes[c] = max(sizes.get(c, d), d) if 1 in (sizes.get(c, d), d) else d
    for c in out:
        if c not in sizes:
            raise ShapeError(f"einsum equation {equation!r}: output index {c!r} is not an "
                             "input index"[:200])
    if len(set(out)) != len(out):
        raise ShapeError(f"einsum equation {equation!r} repeats an output index"[:200])
    return [tuple(sizes[c] for c in out)], _einsum_cost(subs, out, sizes)


def _einsum_cost(subs, out, sizes):
    """Multiply-adds of numpy's einsum: one pass over every index combination for one or two
    operands; for more, the greedy pairwise path it takes (optimize=True)."""
    if len(subs) <= 2:
        return math.prod(sizes[c] for c in set("".join(subs)))
    dummies = [np.broadcast_to(np.zeros(()), [sizes[c] for c in s]) for s in subs]
    path = np.einsum_path(",".join(subs) + "->" + out, *dummies, optimize="greedy")[0][1:]
    subs, cost = list(subs), 0
    for picked in path:
        letters = set("".join(subs[i] for i in picked))
        rest = [s for i, s in enumerate(subs) if i not in picked]
        cost += math.prod(sizes[c] for c in letters)
        subs = rest + ["".join(sorted(c for c in letters if c in out or any(c in s for s in rest)))]
    return cost


# -- shape ops ------------------------------------------------------------------------------
def _reshape(shapes, a):
    x, target = shapes[0], a["shape"]
    size = math.prod(x)
    if target.count(-1) > 1 or any(d < -1 for d in target):
        raise ShapeError(f"shape {target} may hold at most one -1 and no other negative size")
    known = math.prod(d for d in target if d != -1)
    if -1 in target:
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape a tensor of shape {text(x)} ({counted(size, 'element')}) "
                             f"into shape {target}")
        return [tuple(size // known if d == -1 else d for d in target)], 0
    if known != size:
        raise ShapeError(f"cannot reshape a tensor of shape {text(x)} ({counted(size, 'element')}) "
                         f"into shape {target} ({counted(known, 'element')})")
    return [tuple(target)], 0


def _transpose(shapes, a):
    x, perm = shapes[0], a["perm"]
    if perm is None:
        return [tuple(reversed(x))], 0
    if not isinstance(perm, list):
        raise ShapeError(f"perm must be a list of axes, got {perm!r}")
    axes = [checked_axis(p, len(x), "perm entry") for p in perm]
    if sorted(axes) != list(range(len(x))):
        raise ShapeError(f"perm {perm} is not a permutation of the {counted(len(x), 'axis', 'axes')} of shape "
                         f"{text(x)}")
    return [tuple(x[p] for p in axes)], 0


def _expand_dims(shapes, a):
    x, axis = list(shapes[0]), a["axis"]
    if not isinstance(axis, int):
        raise ShapeError(f"axis must be one integer, got {axis!r}")
    x.insert(checked_axis(axis, len(x) + 1, new=True), 1)
    return [tuple(x)], 0


def _squeeze(shapes, a):
    x, axis = shapes[0], a["axis"]
    if axis is None:
        return [tuple(d for d in x if d != 1)], 0
    listed = axis if isinstance(axis, list) else [axis]
    axes = [checked_axis(i, len(x)) for i in listed]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"axis {axis} names an axis twice")
    for i in axes:
        if x[i] != 1:
            raise ShapeError(f"cannot squeeze axis {i} of shape {text(x)}: its size is not 1")
    return [tuple(d for i, d in enumerate(x) if i not in axes)], 0


def _broadcast_to(shapes, a):
    x, target = shapes[0], tuple(a["shape"])
    if any(d < 0 for d in target) or len(x) > len(target) or any(
            d != 1 and d != t for d, t in zip(reversed(x), reversed(target))):
        raise ShapeError(f"cannot broadcast shape {text(x)} to {text(target)}")
    return [target], 0


def _tile(shapes, a):
    x, multiples = shapes[0], a["multiples"]
    if len(multiples) != len(x) or any(m < 0 for m in multiples):
        raise ShapeError(f"tile needs {len(x)} non-negative multiples for shape {text(x)}, "
                         f"got {multiples}"[:200])
    return [tuple(d * m for d, m in zip(x, multiples))], 0


def _pad(shapes, a):
    x, paddings = shapes[0], a["paddings"]
    if len(paddings) != len(x):
        raise ShapeError(f"paddings has {counted(len(paddings), 'row')} for a tensor of rank {len(x)}")
    return [tuple(d + lo + hi for d, (lo, hi) in zip(x, paddings))], 0


def _concat(shapes, a):
    first = shapes[0]
    if any(len(s) != len(first) for s in shapes):
        raise ShapeError("concat needs tensors of one rank: " + shapes_of(shapes))
    axis = checked_axis(a["axis"], len(first))
    for s in shapes:
        if any(d != e for i, (d, e) in enumerate(zip(s, first)) if i != axis):
            raise ShapeError(f"concat along axis {axis} needs the other axes to match: "
                             + shapes_of(shapes))
    out = list(first)
    out[axis] = sum(s[axis] for s in shapes)
    return [tuple(out)], 0


def _stack(shapes, a):
    if len(set(shapes)) != 1:
        raise ShapeError("stack needs tensors of one shape: " + shapes_of(shapes))
    out = list(shapes[0])
    out.insert(checked_axis(a["axis"], len(out) + 1, new=True), len(shapes))
    return [tuple(out)], 0


def _split(shapes, a):
    x, num = shapes[0], a["num"]
    axis = checked_axis(a["axis"], len(x))
    if num < 1 or x[axis] % num:
        raise ShapeError(f"cannot split an axis of size {x[axis]} into {num} equal parts")
    part = list(x)
    part[axis] = x[axis] // num
    return [tuple(part)] * num, 0


def _slice(shapes, a):
    x, begin, size = shapes[0], a["begin"], a["size"]
    if len(begin) != len(x) or len(size) != len(x):
        raise ShapeError(f"begin and size need {counted(len(x), 'entry', 'entries')} each for shape {text(x)}, got "
                         f"begin {begin} and size {size}"[:200])
    out = []
    for d, b, s in zip(x, begin, size):
        if not 0 <= b <= d or not (s == -1 or 0 <= s <= d - b):
            raise ShapeError(f"slice begin {begin} size {size} does not fit shape {text(x)}"
                             [:200])
        out.append(d - b if s == -1 else s)
    return [tuple(out)], 0


def _getitem(shapes, a):
    x, index = shapes[0], a["index"]
    if index.count("...") > 1:
        raise ShapeError("an index may hold at most one '...'")
    named = [k for k in index if k != "..."]
    if len(named) > len(x):
        raise ShapeError(f"index {index} has {counted(len(named), 'entry', 'entries')} for a tensor of rank "
                         f"{len(x)}"[:200])
    if "..." in index:
        at = index.index("...")
        index = index[:at] + [[None, None, None]] * (len(x) - len(named)) + index[at + 1:]
    index = index + [[None, None, None]] * (len(x) - len(index))
    out = []
    for d, k in zip(x, index):
        if isinstance(k, list):
            if k[2] == 0:
                raise ShapeError(f"index {a['index']} has a slice step of 0"[:200])
            out.append(len(range(*slice(*k).indices(d))))
        elif not -d <= k < d:
            raise ShapeError(f"index {k} is out of range for an axis of size {d}")
    return [tuple(out)], 0


def _gather(shapes, a):
    x, indices = shapes[0], a["indices"]
    axis = checked_axis(a["axis"], len(x))
    try:
        check_indices(np.asarray(indices, np.int64), x[axis])
    except InvalidArgumentError as e:
        raise ShapeError(f"gather along axis {axis}: {e}") from None
    return [tuple(x[:axis]) + (len(indices),) + tuple(x[axis + 1:])], 0


# -- losses and indices --------------------------------------------------------------------
def _softmax_xent(shapes, a):
    labels, logits = shapes
    if not logits:
        raise ShapeError(f"{in_(1)} cannot be a scalar: softmax_cross_entropy_with_logits "
                         "needs a class axis")
    axis = checked_axis(a["axis"], len(logits)) - len(logits)  # counted from the end
    try:
        both = np.broadcast_shapes(tuple(labels), tuple(logits))
    except ValueError:
        raise ShapeError("the input shapes do not broadcast together: " + shapes_of(shapes)) \
            from None
    return [tuple(d for i, d in enumerate(both) if i != len(both) + axis)], 0


def _sparse_xent(shapes, a):
    labels, logits = shapes
    if not logits:
        raise ShapeError(f"{in_(1)} cannot be a scalar: sparse_softmax_cross_entropy_with_logits "
                         "needs a class axis")
    if tuple(labels) != tuple(logits[:-1]):
        raise ShapeError(f"{shapes_of((labels, logits))}: the shape of {in_(0)} should equal "
                         f"the shape of {in_(1)} without its last (class) axis")
    return [tuple(labels)], 0


def _arg_extreme(shapes, a):
    x = shapes[0]
    if not x:
        raise ShapeError("argmax and argmin need a tensor with at least one axis, got a scalar")
    axis = checked_axis(a["axis"], len(x))
    if x[axis] == 0:
        raise ShapeError(f"axis {a['axis']} of shape {text(x)} is empty: it has no extreme")
    return [tuple(d for i, d in enumerate(x) if i != axis)], 0


def _embedding_lookup(shapes, a):
    params, ids = shapes
    if not params:
        raise ShapeError(f"embedding_lookup needs a table with at least one axis: {in_(0)} is a "
                         "scalar")
    return [tuple(ids) + tuple(params[1:])], 0


def _dropout(shapes, a):
    x, noise = shapes[0], a["noise_shape"]
    if noise is not None and (len(noise) != len(x) or any(
            d not in (1, n) for d, n in zip(noise, x))):
        raise ShapeError(f"noise_shape {noise} does not fit shape {text(x)}: it needs one "
                         "entry per axis, each 1 or the size of its axis"[:200])
    return [tuple(x)], 0


def loss(shapes, a, op):
    y_true, y_pred = shapes
    if op == "losses.MeanSquaredError":
        both = broadcast([y_true, y_pred])
        if not both:
            raise ShapeError(f"{op} needs values with at least one axis, got scalars")
        per_example = both[:-1]
    elif not y_pred:
        raise ShapeError(f"{op} needs {in_(1)} with at least one axis, got a scalar")
    elif op == "losses.SparseCategoricalCrossentropy":
        labels = tuple(y_true[:-1]) if len(y_true) == len(y_pred) and y_true[-1:] == (1,) \
            else tuple(y_true)
        if labels != tuple(y_pred[:-1]):
            raise ShapeError(f"{shapes_of((y_true, y_pred))}: the shape of {in_(0)} should "
                             f"equal the shape of {in_(1)} without its last (class) axis")
        per_example = labels
    elif op == "losses.CategoricalCrossentropy":
        if tuple(y_true) != tuple(y_pred):
            raise ShapeError(f"{in_(0)} and {in_(1)} must have the same shape, got "
                             f"{text(y_true)} and {text(y_pred)}")
        per_example = tuple(y_pred[:-1])
    if a["reduction"] == "none" or per_example in ((), (0,)):
        return [per_example], 0
    return [()], 0


# -- convolution and pooling (channels last) ----------------------------------------------
def _window_geometry(x, k_hw, a, dilations=(1, 1)):
    """(out_h, out_w) of a window sweep over NHWC `x`, in the engine's words on failure."""
    if len(x) != 4:
        raise ShapeError(f"{in_(0)} must be of rank 4 [batch, height, width, channels], got "
                         f"shape {text(x)}")
    padding = a["padding"]
    explicit = _flat(a["explicit_paddings"]) if padding == "EXPLICIT" else ()
    try:
        (out_h, out_w), _ = _windows.geometry(
            x[1:3], k_hw, _windows.sequence(a["strides"], "strides"), padding, explicit,
            _windows.sequence(dilations, "dilations"))
    except ValueError as e:
        raise ShapeError(str(e)) from None
    return out_h, out_w


def _flat(rows):
    return tuple(v for row in rows for v in row)


def _conv2d(shapes, a):
    x, w = shapes
    if len(w) != 4:
        raise ShapeError(f"{in_(1)} must be of rank 4 [height, width, in_channels, "
                         f"out_channels], got shape {text(w)}")
    if len(x) == 4 and x[3] != w[2]:
        raise ShapeError(f"{in_(0)} has {counted(x[3], 'channel')}, but the in_channels of "
                         f"{in_(1)} is {w[2]}: they must be equal")
    out_h, out_w = _window_geometry(x, w[:2], a, a["dilations"])
    return [(x[0], out_h, out_w, w[3])], x[0] * out_h * out_w * w[0] * w[1] * w[2] * w[3]


def _conv1d(shapes, a):
    x, w = shapes
    if len(x) != 3 or len(w) != 3:
        raise ShapeError(f"conv1d shapes do not fit: {in_(0)} needs rank 3 [batch, width, "
                         f"channels] and {in_(1)} rank 3 [width, in_channels, out_channels], got "
                         f"{text(x)} and {text(w)}")
    attrs = {"strides": [1, a["stride"]], "padding": a["padding"], "dilations": [1, a["dilations"]],
             "explicit_paddings": ()}
    (y,), work = _conv2d([(x[0], 1) + tuple(x[1:]), (1,) + tuple(w)], attrs)
    return [(y[0], y[2], y[3])], work


def conv2d_layer(x, a, weights):
    """keras.layers.Conv2D: the conv2d of its kernel, plus the bias (same shape)."""
    if max(a["strides"]) > 1 and max(a["dilation_rate"]) > 1:
        raise ShapeError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={a['strides']} and "
                         f"dilation_rate={a['dilation_rate']}")
    if len(x) != 4:
        raise ShapeError(f"Conv2D expects {in_(0)} of rank 4 (batch, height, width, channels), "
                         f"got shape {text(x)}")
    attrs = {"strides": a["strides"], "padding": a["padding"].upper(),
             "dilations": a["dilation_rate"]}
    (y,), work = _conv2d([tuple(x), weights[0]], attrs)
    return [y] + weights, work


def _pool(shapes, a):
    x = shapes[0]
    try:
        k_hw = _windows.sequence(a["ksize"], "ksize")[1:3]
    except ValueError as e:
        raise ShapeError(str(e)) from None
    out_h, out_w = _window_geometry(x, k_hw, {**a, "explicit_paddings": a.get(
        "explicit_paddings", ())})
    if a["padding"] == "EXPLICIT":
        try:
            _windows.check_pool_padding((1,) + k_hw + (1,), _flat(a["explicit_paddings"]))
        except ValueError as e:
            raise ShapeError(str(e)) from None
    return [(x[0], out_h, out_w, x[3])], 0


RULES = {
    "nn.conv2d": _conv2d, "nn.conv1d": _conv1d, "nn.max_pool2d": _pool, "nn.avg_pool2d": _pool,
    "matmul": _matmul, "einsum": _einsum, "linalg.solve": _solve, "linalg.inv": _inv,
    "reshape": _reshape, "transpose": _transpose, "expand_dims": _expand_dims,
    "squeeze": _squeeze, "broadcast_to": _broadcast_to, "tile": _tile, "pad": _pad,
    "concat": _concat, "stack": _stack, "split": _split, "slice": _slice,
    "getitem": _getitem, "gather": _gather,
    "nn.softmax_cross_entropy_with_logits": _softmax_xent,
    "nn.sparse_softmax_cross_entropy_with_logits": _sparse_xent,
    "math.argmax": _arg_extreme, "math.argmin": _arg_extreme,
    "nn.embedding_lookup": _embedding_lookup, "nn.dropout": _dropout,
}
