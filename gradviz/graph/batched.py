"""Running a document forward for many values of its Variables at once.

The landscape needs the loss at 10,000 points; one forward pass per point pays the
graph's Python overhead 10,000 times. Here the varying Variables carry a leading axis of
points and every node that depends on them runs once over all the points. Each op's
batch rule says how the extra axis passes through it: an element-wise op gets it in front
of the broadcast shape, matmul of matrices broadcasts it, a reduction's axes move by one,
a Dense layer is its matmul, bias and activation. A node with no rule raises
`NotBatchable` (the caller then runs the points one by one); nodes that do not depend on
the varying Variables keep the values of the plain evaluation.
"""
import numpy as np

import gradviz as gv

from . import catalog
from ..engine.layers import get_activation
from .build import quiet
from .document import CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Port
from .structure import partial_order

# Ops whose output entry depends only on the same (broadcast) entry of each input.
ELEMENTWISE = {"add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "negative",
               "exp", "log", "sin", "cos", "sqrt", "square", "abs", "tanh", "reciprocal",
               "add_n", "clip_by_value", "cast", "identity", "stop_gradient", "nn.relu",
               "nn.sigmoid", "nn.elu", "nn.softplus"}
REDUCTIONS = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
              "reduce_logsumexp"}
ALONG_AN_AXIS = {"nn.softmax", "nn.log_softmax"}


class NotBatchable(Exception):
    """A node on the way from the varying Variables has no batch rule (its words say which)."""


class Batched:
    """A node output over all points: `value` has the leading axis of points."""

    def __init__(self, value):
        self.value = value


def run_batched(doc, plain, varying, n):
    """{Port: value} of every node output: `Batched` (leading axis of n points) where it
    depends on `varying` ({Variable port: (n, *shape) array}), else `plain`'s value (the
    ordinary evaluation's {Port: ndarray})."""
    order, _ = partial_order(doc)
    moving = doc.descendants({p.node for p in varying}) | {p.node for p in varying}
    incoming = doc.input_index()
    values = dict(plain)
    with quiet():
        for nid in order:
            if nid not in moving:
                continue
            node = doc.nodes[nid]
            inputs = [values[e.src] for e in incoming[nid]]
            for i, out in enumerate(_run(node, inputs, varying, n, plain)):
                values[Port(nid, i)] = out
    return values


def _run(node, inputs, varying, n, plain):
    if node.kind == VARIABLE:
        return [Batched(varying[Port(node.id)])]
    if node.kind == CUSTOM_GRADIENT:
        return inputs          # its forward is the identity
    if node.kind == LAYER:
        return _layer(node, inputs, varying, plain)
    if node.kind != OP:
        raise NotBatchable(f"{node.id} ({node.kind}) has no batch rule")
    node = catalog.with_defaults(node)
    op, attrs = node.op, dict(node.attrs)
    if op in ELEMENTWISE:
        arrays = _aligned(inputs, everything=op == "add_n")
    elif op == "matmul":
        arrays = _matrices(node, inputs)
    elif op in REDUCTIONS or op in ALONG_AN_AXIS:
        (x,) = inputs
        rank = np.ndim(x.value) - 1
        attrs["axis"] = _shifted(attrs["axis"], rank, op in REDUCTIONS)
        arrays = [x.value]
    else:
        raise NotBatchable(f"{node.id} ({op}) has no batch rule")
    out = catalog.OPS[op].call([gv.constant(a) for a in arrays], attrs)
    return [Batched(np.asarray(out._value))]


def _aligned(inputs, everything=False):
    """The inputs' arrays with the axis of points in front of the broadcast shape: a batched
    input of shape (n, *s) becomes (n, 1, …, 1, *s) at the rank of the widest input."""
    rank = max(np.ndim(v.value) - 1 if isinstance(v, Batched) else np.ndim(v) for v in inputs)
    n = next(v.value.shape[0] for v in inputs if isinstance(v, Batched))
    arrays = []
    for v in inputs:
        if isinstance(v, Batched):
            shape = v.value.shape[1:]
            arrays.append(v.value.reshape((n,) + (1,) * (rank - len(shape)) + shape))
        else:
            arrays.append(np.asarray(v))
    if everything:   # add_n adds arrays of one shape
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        arrays = [np.broadcast_to(a, shape) for a in arrays]
    return arrays


def _matrices(node, inputs):
    """matmul of two matrices (one or both batched): numpy broadcasts the axis of points."""
    ranks = [np.ndim(v.value) - 1 if isinstance(v, Batched) else np.ndim(v) for v in inputs]
    if ranks != [2, 2]:
        raise NotBatchable(f"{node.id} (matmul) is batched for matrices only")
    return [_array(v) for v in inputs]


def _shifted(axis, rank, none_is_all):
    """A reduction's (or softmax's) axis for an array with the axis of points in front."""
    if axis is None:
        if not none_is_all:
            raise NotBatchable("an axis of None has no batch rule here")
        return list(range(1, rank + 1))
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    moved = [int(a) + 1 if int(a) >= 0 else int(a) for a in axes]
    return moved[0] if np.ndim(axis) == 0 else moved


def _layer(node, inputs, varying, plain):
    """A Dense layer: activation(x @ kernel + bias), with x, kernel or bias batched."""
    if node.op != "Dense":
        raise NotBatchable(f"{node.id} ({node.op}) has no batch rule")
    a = catalog.with_defaults(node).attrs
    (x,) = inputs
    weights = []
    for i, _ in enumerate(catalog.LAYERS[node.op].weight_names(a), start=1):
        port = Port(node.id, i)
        weights.append(Batched(varying[port]) if port in varying else plain[port])
    rank = np.ndim(x.value) - 1 if isinstance(x, Batched) else np.ndim(x)
    kernel = weights[0]
    if isinstance(kernel, Batched) and rank != 2:
        raise NotBatchable(f"{node.id} (Dense) is batched over its kernel for matrix inputs only")
    y = gv.matmul(gv.constant(_array(x)), gv.constant(_array(kernel)))
    if a["use_bias"]:
        bias = _array(weights[1])
        if isinstance(weights[1], Batched):   # (n, units) in front of y's rows
            bias = bias.reshape((bias.shape[0],) + (1,) * (rank - 1) + bias.shape[1:])
        y = gv.add(y, gv.constant(bias))
    if a["activation"] != "linear":
        y = get_activation(a["activation"])(y)
    return [Batched(np.asarray(y._value))] + weights


def _array(v):
    return v.value if isinstance(v, Batched) else np.asarray(v)
