"""Static shape inference: each node's output shapes and work, before anything runs.

From the input shapes and the attributes alone (no values), so a document that asks
for a huge tensor or hours of matrix products is refused before it allocates or
computes anything. Every axis attribute is checked here (the engine would wrap an
out-of-range axis around). The engine still runs the op afterwards and is the
authority on everything that depends on values (a singular matrix, a dtype clash);
tests check that the shapes predicted here are the shapes the engine produces.
"""
import math

from . import catalog
from .document import CONSTANT, CUSTOM_GRADIENT, LAYER, VARIABLE
from .shape_error import ShapeError, broadcast, checked_axis, text
from .shape_rules import RULES, conv2d_layer, loss

UNARY = {"negative", "exp", "log", "sin", "cos", "sqrt", "square", "abs", "tanh", "reciprocal",
         "nn.relu", "nn.sigmoid", "nn.elu", "nn.softplus", "stop_gradient", "identity", "cast",
         "clip_by_value", "clip_by_norm"}
BINARY = {"add", "subtract", "multiply", "divide", "pow", "maximum", "minimum"}
REDUCE = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
          "reduce_logsumexp", "norm"}


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
        return [broadcast(shapes, named=True)], 0
    if op in REDUCE:
        return [_reduce(shapes[0], a["axis"], a["keepdims"])], 0
    if op in ("nn.softmax", "nn.log_softmax"):
        if not shapes[0]:
            raise ShapeError(f"{op} needs an input with at least one axis, got a scalar")
        checked_axis(a["axis"], len(shapes[0]))
        return [shapes[0]], 0
    if op == "gradient":
        return [shapes[1]], 0
    if op.startswith("losses."):
        return loss(shapes, a, op)
    return RULES[op](shapes, a)


def _reduce(shape, axis, keepdims):
    rank = len(shape)
    if axis is None:
        axes = set(range(rank))
    else:
        listed = axis if isinstance(axis, list) else [axis]
        axes = [checked_axis(x, rank) for x in listed]
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
            raise ShapeError(f"weight {name!r} has shape {text(w.shape)}, an input of shape "
                             f"{text(x)} needs {text(expected[name])}")
    weights = [expected[n] for n in names]
    if node.op == "Conv2D":
        return conv2d_layer(x, a, weights)
    if node.op == "Dense":
        rows = math.prod(x[:-1])
        return [tuple(x[:-1]) + (a["units"],)] + weights, rows * x[-1] * a["units"]
    if node.op == "Embedding":
        return [tuple(x) + (a["output_dim"],)] + weights, 0
    return [tuple(x)] + weights, 0

