"""The names of a card's ports, and where they are written: beside the port, outside the
card, when a side has several (matmul's `a` and `b`: the operand order is the maths). The
names are those the rule card gives the operands (graph.slots).

The canvas and the exported pictures write them in the same place and font."""
from __future__ import annotations

from PySide6.QtCore import QRectF

from ..graph import catalog
from ..graph.document import LAYER, OP, Port
from ..graph.input_names import declared_names
from ..graph import operands, slots
from . import legible, text

LABEL_FONT = legible.NUMBER_PT   # a port's name reads where the cards' numbers do
LABEL_GAP = 7.0     # from the port's centre to its name, along the card's edge
LABEL_RISE = 17.0   # from the port's centre up to the top of its name
LABEL_H = 14.0


def input_names(node, count, doc=None):
    """The names of a node's `count` inputs, as its rule card calls them (graph.slots): a, b
    in operand order for an op that names them by letters (multiply, matmul), the role words
    of one that names them by role (conv2d's input and filters); with the `doc`, one that is
    another node's name there is replaced by a spare letter."""
    return slots.input_names(node, count, doc)


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
    taken = slots.node_names(doc) - {node.label or node.id}
    return [catalog.port_name(doc, Port(node.id, i)) if name in taken else name
            for i, name in enumerate(names)]


def with_port_names(node, doc, text):
    """`text` about the node's op ('multiply(x, y): x * y') with its operands named as its
    ports are in `doc` ('multiply(a, b): a * b')."""
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    if spec is None or spec.variadic:
        return text
    count = len(spec.inputs)
    return operands.rename(text, dict(zip(declared_names(node, count),
                                          input_names(node, count, doc))))


def label_font():
    return text.sans(LABEL_FONT)


def label_rect(name, is_output):
    """Where a port's name is written, relative to the port's centre: above the edge that
    leaves (or enters) the card there, outside the card."""
    w = text.width(label_font(), name) + 2
    x = LABEL_GAP if is_output else -LABEL_GAP - w
    return QRectF(x, -LABEL_RISE, w, LABEL_H)
