"""The names of a card's ports, and where they are written: beside the port, outside the
card, when a side has several (matmul's `a` and `b`: the operand order is the maths).

The canvas and the exported pictures write them in the same place and font."""
from __future__ import annotations

from PySide6.QtCore import QRectF

from ..engine import registry
from ..graph import catalog
from ..graph.document import LAYER, OP, Port
from ..story import operands
from . import legible, text

LABEL_FONT = legible.NUMBER_PT   # a port's name reads where the cards' numbers do
LABEL_GAP = 7.0     # from the port's centre to its name, along the card's edge
LABEL_RISE = 17.0   # from the port's centre up to the top of its name
LABEL_H = 14.0


def input_names(node, count, doc=None):
    """The names of a node's `count` inputs: the catalog's (`a`, `b`, `values[0]` ...).

    With the `doc` the node is in, a name that is another node's name there is renamed as
    the rule card renames it (story.operands): multiply's port `y`, fed by the node x,
    beside a node y would give y two values."""
    names = []
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    for i in range(count):
        if spec is not None and spec.inputs:
            name = spec.inputs[min(i, len(spec.inputs) - 1)]
            names.append(f"{name.rstrip('*')}[{i - len(spec.inputs) + 1}]" if name.endswith("*") else name)
        else:
            names.append("x" if count == 1 else f"x{i}")
    if doc is None:
        return names
    feeds = {e.dst.index: catalog.port_name(doc, e.src) for e in doc.edges if e.dst.node == node.id}
    mapping = operands.unclash(names, [feeds.get(i) for i in range(count)], node_names(doc),
                               _formulas(spec, node, count))
    return [mapping.get(n, n) for n in names]


def output_names(node, count, doc=None):
    """The names of a node's `count` outputs: a layer's are its output and its weights.
    With the `doc`, one that is another node's name there is written whole ('dense.kernel')."""
    if node.kind == LAYER and node.op in catalog.LAYERS:
        weights = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        names = ["output", *weights][:count] + [f"output {i}" for i in range(1 + len(weights), count)]
    else:
        names = ["output"] if count == 1 else [f"output {i}" for i in range(count)]
    if doc is None:
        return names
    taken = node_names(doc) - {node.label or node.id}
    return [catalog.port_name(doc, Port(node.id, i)) if name in taken else name
            for i, name in enumerate(names)]


def with_port_names(node, doc, text):
    """`text` about the node's op ('multiply(x, y): x * y') with its operands named as its
    ports are in `doc` ('multiply(x, a): x * a' for the node y = x * x)."""
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    if spec is None or spec.variadic:
        return text
    count = len(spec.inputs)
    return operands.rename(text, dict(zip(input_names(node, count), input_names(node, count, doc))))


def node_names(doc):
    """Every node's name on the canvas."""
    return frozenset(n.label or n.id for n in doc.nodes.values())


def _formulas(spec, node, count):
    """The engine's rule texts of the op: a renamed port takes no letter they use, so the
    rule card, which renames by the same rule, uses the same letter."""
    if spec is None or not spec.engine:
        return ()
    try:
        opdef = registry.get_op(spec.engine)
    except LookupError:
        return ()
    attrs = catalog.full_attrs(node)
    return tuple(f for f in (opdef.formula(attrs, k) for k in range(count)) if f)


def label_font():
    return text.sans(LABEL_FONT)


def label_rect(name, is_output):
    """Where a port's name is written, relative to the port's centre: above the edge that
    leaves (or enters) the card there, outside the card."""
    w = text.width(label_font(), name) + 2
    x = LABEL_GAP if is_output else -LABEL_GAP - w
    return QRectF(x, -LABEL_RISE, w, LABEL_H)
