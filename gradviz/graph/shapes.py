"""Static shape inference: each node's output shapes and work, before anything runs.

From the input shapes and the attributes alone (no values), so a document that asks
for a huge tensor or hours of matrix products is refused before it allocates or
computes anything. Every axis attribute is checked here (the engine would wrap an
out-of-range axis around). The engine still runs the op afterwards and is the
authority on everything that depends on values (a singular matrix, a dtype clash);
tests check that the shapes predicted here are the shapes the engine produces.
"""
import math
import re
import string

import numpy as np

from gradviz.engine.axes import axis_index
from gradviz.engine.errors import InvalidArgumentError, counted
from gradviz.engine.ops import windows as _windows
from gradviz.engine.ops.shape import check_indices

from . import catalog, slots
from .document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE
from .input_names import by_place, plain_names, slot_letter
from .tensors import dims
from ..engine.ops.linalg import _explicit_equation

UNARY = {"negative", "exp", "log", "sin", "cos", "sqrt", "square", "abs", "tanh", "reciprocal",
         "nn.relu", "nn.sigmoid", "nn.elu", "nn.softplus", "stop_gradient", "identity", "cast",
         "clip_by_value", "clip_by_norm"}
BINARY = {"add", "subtract", "multiply", "divide", "pow", "maximum", "minimum"}
REDUCE = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
          "reduce_logsumexp", "norm"}


class ShapeError(ValueError):
    """What is wrong with a node's input shapes or attributes, in words. A message names an
    input by `_in(k)`; `worded` names it by the node that feeds it and the letter its port
    shows on the canvas, where the caller gives the document ('hidden (operand a) has shape
    (2, 4)'); str() by its slot alone ('a', 'filters'), as TF's words do."""

    node = None          # the node whose inputs do not fit, and their shapes: set by infer
    shapes = ()

    def __str__(self):
        return self.worded()

    def worded(self, doc=None, edges=()):
        """The message with each input named as `inputs_named` names it, for the node's
        input `edges` in `doc`; by its slot alone without them."""
        return self._named(inputs_named(self.node, doc, edges, len(self.shapes))
                           if self.node is not None else [])

    def brief(self, doc=None, edges=()):
        """The essentials first, for a card drawn compact (three short lines): each input by
        its node and port with its shape, then what is wrong: the message's clauses before
        the first that names an input ('x (c) 2×4, W (d) 5×2: matmul shapes do not match'),
        else the message whole ('input (images) 6×5×2, filters (k) 2×2×2×3: input (images)
        must be of rank 4 …'), never words cut off mid-clause."""
        if self.node is None:
            return str(self)
        names = inputs_named(self.node, doc, edges, len(self.shapes), short=True)
        head = (str(self.args[0]) if self.args else "").split("\x00", 1)[0].rstrip()
        head = head.rstrip(":;").rstrip() if head.endswith((":", ";")) else ""
        said = ", ".join(f"{name} {dims(shape)}" for name, shape in zip(names, self.shapes))
        return f"{said}: {head or self._named(names)}"

    def _named(self, names):
        def name(match):
            k = int(match.group(1))
            return names[k] if k < len(names) else slot_letter(k)
        return _INPUT.sub(name, str(self.args[0]) if self.args else "")


def inputs_named(node, doc=None, edges=(), count=None, short=False):
    """Each input of `node` (its `count`, else one per edge) as a message names it: by the
    node that feeds it (its user's name) beside the name its port shows on the canvas
    (graph.slots, which the canvas draws: 'hidden (operand c)' beside a node named b where
    inputs go by place, 'filters (W)' by role); the port's name alone where no `edges` in
    `doc` feed it. `short`: 'hidden (c)', for a compact card's few words."""
    count = len(edges) if count is None else count
    feeds = {e.dst.index: catalog.port_name(doc, e.src) for e in edges} if doc is not None else {}
    if node.kind == LAYER:       # a layer: its input, then its first weight
        names, placed = ["input", "kernel"], False
    else:
        names = slots.input_names(node, count, doc, list(edges)) if doc is not None \
            else plain_names(node, count)
        placed = node.kind == OP and by_place(node, count)
    return [_fed(names[k] if k < len(names) else slot_letter(k), feeds.get(k), placed, short)
            for k in range(count)]


def _fed(slot, feed, placed, short=False):
    """An input named by the node that feeds it beside its slot: 'hidden (operand a)' where
    inputs go by place ('hidden (a)' `short`), 'labels (y)' by role; the slot alone where no
    name is known."""
    if feed is None or feed == slot:
        return slot
    if placed:
        return f"{feed} ({slot})" if short else f"{feed} (operand {slot})"
    return f"{slot} ({feed})"


_INPUT = re.compile("\x00(\\d+)\x00")


def _in(k):
    """Input k as a message names it (ShapeError.worded writes the name)."""
    return f"\x00{k}\x00"


def infer(node, shapes, weights=None):
    """([output shape], multiply-adds) of `node` (attributes with their defaults) for input
    `shapes`. Multiply-adds count the matrix products, einsums, solves and inverses; the
    other ops cost about one operation per value and are counted by their outputs."""
    try:
        return _infer(node, shapes, weights)
    except ShapeError as e:
        e.node, e.shapes = node, [tuple(s) for s in shapes]
        raise


def _infer(node, shapes, weights=None):
    if node.kind in (CONSTANT, VARIABLE):
        return [tuple(node.value.shape)], 0
    if node.kind == CUSTOM_GRADIENT:
        return [shapes[0]], 0
    if node.kind == LAYER:
        return _layer(node, shapes[0])
    a, op = node.attrs, node.op
    if op in UNARY:
        return [shapes[0]], 0
    if op in BINARY or op == "add_n":
        return [_broadcast(shapes, named=True)], 0
    if op in REDUCE:
        return [_reduce(shapes[0], a["axis"], a["keepdims"])], 0
    if op in ("nn.softmax", "nn.log_softmax"):
        if not shapes[0]:
            raise ShapeError(f"{op} needs an input with at least one axis, got a scalar")
        _axis(a["axis"], len(shapes[0]))
        return [shapes[0]], 0
    if op == "gradient":
        return [shapes[1]], 0
    if op.startswith("losses."):
        return _loss(shapes, a, op)
    return RULES[op](shapes, a)


def _text(shape):
    return str(tuple(shape))  # as the engine writes shapes


def _axis(axis, rank, what="axis", new=False):
    """`axis` normalised to 0..rank-1; an error in words when it is out of range (the
    engine's own check, engine/axes.py, so both say the same)."""
    try:
        return axis_index(axis, rank, what, new)
    except InvalidArgumentError as e:
        raise ShapeError(str(e)) from None


def _broadcast(shapes, named=False):
    """The shape `shapes` broadcast to; `named`: they are the node's inputs, in order (not
    their batch axes), and the message names them."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        if named:
            raise ShapeError("the input shapes do not broadcast together: " + _shapes_of(shapes)) \
                from None
        raise ShapeError("the input shapes " + ", ".join(map(_text, shapes))
                         + " do not broadcast together") from None


def _shapes_of(shapes):
    """'a has shape (2, 4), b has shape (5, 2)', each input named by _in."""
    return ", ".join(f"{_in(k)} has shape {_text(s)}" for k, s in enumerate(shapes))


def _reduce(shape, axis, keepdims):
    rank = len(shape)
    if axis is None:
        axes = set(range(rank))
    else:
        listed = axis if isinstance(axis, list) else [axis]
        axes = [_axis(x, rank) for x in listed]
        if len(set(axes)) != len(axes):
            raise ShapeError(f"axis {axis} names an axis twice")
        axes = set(axes)
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _layer(node, x):
    spec = catalog.LAYERS[node.op]
    a = node.attrs
    if node.op == "Flatten":
        if not x:
            raise ShapeError("Flatten needs an input with a batch axis, got a scalar")
        return [(x[0], math.prod(x[1:]))], 0
    expected = spec.weight_shapes(a, tuple(x))
    if expected is None:
        raise ShapeError(f"{node.op} needs an input with at least one axis, got a scalar")
    names = spec.weight_names(a)
    for name in names:
        w = node.weights.get(name)
        if w is not None and tuple(w.shape) != expected[name]:
            raise ShapeError(f"weight {name!r} has shape {_text(w.shape)}, an input of shape "
                             f"{_text(x)} needs {_text(expected[name])}")
    weights = [expected[n] for n in names]
    if node.op == "Conv2D":
        return _conv2d_layer(x, a, weights)
    if node.op == "Dense":
        rows = math.prod(x[:-1])
        return [tuple(x[:-1]) + (a["units"],)] + weights, rows * x[-1] * a["units"]
    if node.op == "Embedding":
        return [tuple(x) + (a["output_dim"],)] + weights, 0
    return [tuple(x)] + weights, 0


# -- linalg ---------------------------------------------------------------------------------
def _matmul(shapes, a):
    x, y = shapes
    if len(x) < 2 or len(y) < 2:
        raise ShapeError(f"matmul needs tensors of rank 2 or more: {_shapes_of((x, y))}")
    m, k = (x[-1], x[-2]) if a["transpose_a"] else (x[-2], x[-1])
    k2, n = (y[-1], y[-2]) if a["transpose_b"] else (y[-2], y[-1])
    if k != k2:
        raise ShapeError(f"matmul shapes do not match: {_in(0)} has shape {_text(x)}"
                         f"{' (transposed)' if a['transpose_a'] else ''}, {_in(1)} has shape "
                         f"{_text(y)}{' (transposed)' if a['transpose_b'] else ''}; inner "
                         f"dimensions {k} and {k2} differ")
    batch = _broadcast([x[:-2], y[:-2]])
    return [batch + (m, n)], math.prod(batch) * m * k * n


def _square(shape, op):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"{op} needs square matrices: {_in(0)} has shape {_text(shape)}")
    return shape[-1]


def _solve(shapes, a):
    matrix, rhs = shapes
    n = _square(matrix, "linalg.solve")
    if len(rhs) < 2 or rhs[-2] != n:
        raise ShapeError(f"linalg.solve needs a right-hand side of shape [..., {n}, K]: "
                         f"{_in(1)} has shape {_text(rhs)}")
    batch = _broadcast([matrix[:-2], rhs[:-2]])
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
            raise ShapeError(f"cannot reshape a tensor of shape {_text(x)} ({counted(size, 'element')}) "
                             f"into shape {target}")
        return [tuple(size // known if d == -1 else d for d in target)], 0
    if known != size:
        raise ShapeError(f"cannot reshape a tensor of shape {_text(x)} ({counted(size, 'element')}) "
                         f"into shape {target} ({counted(known, 'element')})")
    return [tuple(target)], 0


def _transpose(shapes, a):
    x, perm = shapes[0], a["perm"]
    if perm is None:
        return [tuple(reversed(x))], 0
    if not isinstance(perm, list):
        raise ShapeError(f"perm must be a list of axes, got {perm!r}")
    axes = [_axis(p, len(x), "perm entry") for p in perm]
    if sorted(axes) != list(range(len(x))):
        raise ShapeError(f"perm {perm} is not a permutation of the {counted(len(x), 'axis', 'axes')} of shape "
                         f"{_text(x)}")
    return [tuple(x[p] for p in axes)], 0


def _expand_dims(shapes, a):
    x, axis = list(shapes[0]), a["axis"]
    if not isinstance(axis, int):
        raise ShapeError(f"axis must be one integer, got {axis!r}")
    x.insert(_axis(axis, len(x) + 1, new=True), 1)
    return [tuple(x)], 0


def _squeeze(shapes, a):
    x, axis = shapes[0], a["axis"]
    if axis is None:
        return [tuple(d for d in x if d != 1)], 0
    listed = axis if isinstance(axis, list) else [axis]
    axes = [_axis(i, len(x)) for i in listed]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"axis {axis} names an axis twice")
    for i in axes:
        if x[i] != 1:
            raise ShapeError(f"cannot squeeze axis {i} of shape {_text(x)}: its size is not 1")
    return [tuple(d for i, d in enumerate(x) if i not in axes)], 0


def _broadcast_to(shapes, a):
    x, target = shapes[0], tuple(a["shape"])
    if any(d < 0 for d in target) or len(x) > len(target) or any(
            d != 1 and d != t for d, t in zip(reversed(x), reversed(target))):
        raise ShapeError(f"cannot broadcast shape {_text(x)} to {list(target)}")
    return [target], 0


def _tile(shapes, a):
    x, multiples = shapes[0], a["multiples"]
    if len(multiples) != len(x) or any(m < 0 for m in multiples):
        raise ShapeError(f"tile needs {len(x)} non-negative multiples for shape {_text(x)}, "
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
        raise ShapeError("concat needs tensors of one rank: " + _shapes_of(shapes))
    axis = _axis(a["axis"], len(first))
    for s in shapes:
        if any(d != e for i, (d, e) in enumerate(zip(s, first)) if i != axis):
            raise ShapeError(f"concat along axis {axis} needs the other axes to match: "
                             + _shapes_of(shapes))
    out = list(first)
    out[axis] = sum(s[axis] for s in shapes)
    return [tuple(out)], 0


def _stack(shapes, a):
    if len(set(shapes)) != 1:
        raise ShapeError("stack needs tensors of one shape: " + _shapes_of(shapes))
    out = list(shapes[0])
    out.insert(_axis(a["axis"], len(out) + 1, new=True), len(shapes))
    return [tuple(out)], 0


def _split(shapes, a):
    x, num = shapes[0], a["num"]
    axis = _axis(a["axis"], len(x))
    if num < 1 or x[axis] % num:
        raise ShapeError(f"cannot split an axis of size {x[axis]} into {num} equal parts")
    part = list(x)
    part[axis] = x[axis] // num
    return [tuple(part)] * num, 0


def _slice(shapes, a):
    x, begin, size = shapes[0], a["begin"], a["size"]
    if len(begin) != len(x) or len(size) != len(x):
        raise ShapeError(f"begin and size need {counted(len(x), 'entry', 'entries')} each for shape {_text(x)}, got "
                         f"begin {begin} and size {size}"[:200])
    out = []
    for d, b, s in zip(x, begin, size):
        if not 0 <= b <= d or not (s == -1 or 0 <= s <= d - b):
            raise ShapeError(f"slice begin {begin} size {size} does not fit shape {_text(x)}"
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
    axis = _axis(a["axis"], len(x))
    try:
        check_indices(np.asarray(indices, np.int64), x[axis])
    except InvalidArgumentError as e:
        raise ShapeError(f"gather along axis {axis}: {e}") from None
    return [tuple(x[:axis]) + (len(indices),) + tuple(x[axis + 1:])], 0


# -- losses and indices --------------------------------------------------------------------
def _softmax_xent(shapes, a):
    labels, logits = shapes
    if not logits:
        raise ShapeError(f"{_in(1)} cannot be a scalar: softmax_cross_entropy_with_logits "
                         "needs a class axis")
    axis = _axis(a["axis"], len(logits)) - len(logits)  # counted from the end
    try:
        both = np.broadcast_shapes(tuple(labels), tuple(logits))
    except ValueError:
        raise ShapeError("the input shapes do not broadcast together: " + _shapes_of(shapes)) \
            from None
    return [tuple(d for i, d in enumerate(both) if i != len(both) + axis)], 0


def _sparse_xent(shapes, a):
    labels, logits = shapes
    if not logits:
        raise ShapeError(f"{_in(1)} cannot be a scalar: sparse_softmax_cross_entropy_with_logits "
                         "needs a class axis")
    if tuple(labels) != tuple(logits[:-1]):
        raise ShapeError(f"{_shapes_of((labels, logits))}: the shape of {_in(0)} should equal "
                         f"the shape of {_in(1)} without its last (class) axis")
    return [tuple(labels)], 0


def _arg_extreme(shapes, a):
    x = shapes[0]
    if not x:
        raise ShapeError("argmax and argmin need a tensor with at least one axis, got a scalar")
    axis = _axis(a["axis"], len(x))
    if x[axis] == 0:
        raise ShapeError(f"axis {a['axis']} of shape {_text(x)} is empty: it has no extreme")
    return [tuple(d for i, d in enumerate(x) if i != axis)], 0


def _embedding_lookup(shapes, a):
    params, ids = shapes
    if not params:
        raise ShapeError(f"embedding_lookup needs a table with at least one axis: {_in(0)} is a "
                         "scalar")
    return [tuple(ids) + tuple(params[1:])], 0


def _dropout(shapes, a):
    x, noise = shapes[0], a["noise_shape"]
    if noise is not None and (len(noise) != len(x) or any(
            d not in (1, n) for d, n in zip(noise, x))):
        raise ShapeError(f"noise_shape {noise} does not fit shape {_text(x)}: it needs one "
                         "entry per axis, each 1 or the size of its axis"[:200])
    return [tuple(x)], 0


def _loss(shapes, a, op):
    y_true, y_pred = shapes
    if op == "losses.MeanSquaredError":
        both = _broadcast([y_true, y_pred])
        if not both:
            raise ShapeError(f"{op} needs values with at least one axis, got scalars")
        per_example = both[:-1]
    elif not y_pred:
        raise ShapeError(f"{op} needs {_in(1)} with at least one axis, got a scalar")
    elif op == "losses.SparseCategoricalCrossentropy":
        labels = tuple(y_true[:-1]) if len(y_true) == len(y_pred) and y_true[-1:] == (1,) \
            else tuple(y_true)
        if labels != tuple(y_pred[:-1]):
            raise ShapeError(f"{_shapes_of((y_true, y_pred))}: the shape of {_in(0)} should "
                             f"equal the shape of {_in(1)} without its last (class) axis")
        per_example = labels
    elif op == "losses.CategoricalCrossentropy":
        if tuple(y_true) != tuple(y_pred):
            raise ShapeError(f"{_in(0)} and {_in(1)} must have the same shape, got "
                             f"{_text(y_true)} and {_text(y_pred)}")
        per_example = tuple(y_pred[:-1])
    if a["reduction"] == "none" or per_example in ((), (0,)):
        return [per_example], 0
    return [()], 0


# -- convolution and pooling (channels last) ----------------------------------------------
def _window_geometry(x, k_hw, a, dilations=(1, 1)):
    """(out_h, out_w) of a window sweep over NHWC `x`, in the engine's words on failure."""
    if len(x) != 4:
        raise ShapeError(f"{_in(0)} must be of rank 4 [batch, height, width, channels], got "
                         f"shape {_text(x)}")
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
        raise ShapeError(f"{_in(1)} must be of rank 4 [height, width, in_channels, "
                         f"out_channels], got shape {_text(w)}")
    if len(x) == 4 and x[3] != w[2]:
        raise ShapeError(f"{_in(0)} has {counted(x[3], 'channel')}, but the in_channels of "
                         f"{_in(1)} is {w[2]}: they must be equal")
    out_h, out_w = _window_geometry(x, w[:2], a, a["dilations"])
    return [(x[0], out_h, out_w, w[3])], x[0] * out_h * out_w * w[0] * w[1] * w[2] * w[3]


def _conv1d(shapes, a):
    x, w = shapes
    if len(x) != 3 or len(w) != 3:
        raise ShapeError(f"conv1d shapes do not fit: {_in(0)} needs rank 3 [batch, width, "
                         f"channels] and {_in(1)} rank 3 [width, in_channels, out_channels], got "
                         f"{_text(x)} and {_text(w)}")
    attrs = {"strides": [1, a["stride"]], "padding": a["padding"], "dilations": [1, a["dilations"]],
             "explicit_paddings": ()}
    (y,), work = _conv2d([(x[0], 1) + tuple(x[1:]), (1,) + tuple(w)], attrs)
    return [(y[0], y[2], y[3])], work


def _conv2d_layer(x, a, weights):
    """keras.layers.Conv2D: the conv2d of its kernel, plus the bias (same shape)."""
    if max(a["strides"]) > 1 and max(a["dilation_rate"]) > 1:
        raise ShapeError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={a['strides']} and "
                         f"dilation_rate={a['dilation_rate']}")
    if len(x) != 4:
        raise ShapeError(f"Conv2D expects {_in(0)} of rank 4 (batch, height, width, channels), "
                         f"got shape {_text(x)}")
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
