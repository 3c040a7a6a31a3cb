"""The names of a card's ports, and where they are written: beside the port, outside the
card, when a side has several (matmul's `a` and `b`: the operand order is the maths).

The canvas and the exported pictures write them in the same place and font."""
from __future__ import annotations

from PySide6.QtCore import QRectF

from ..graph import catalog
from ..graph.document import LAYER, OP
from . import text

LABEL_FONT = 7.5
LABEL_GAP = 7.0     # from the port's centre to its name, along the card's edge
LABEL_RISE = 17.0   # from the port's centre up to the top of its name
LABEL_H = 12.0


def input_names(node, count):
    """The names of a node's `count` inputs: the catalog's (`a`, `b`, `values[0]` ...)."""
    names = []
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    for i in range(count):
        if spec is not None and spec.inputs:
            name = spec.inputs[min(i, len(spec.inputs) - 1)]
            names.append(f"{name.rstrip('*')}[{i - len(spec.inputs) + 1}]" if name.endswith("*") else name)
        else:
            names.append("x" if count == 1 else f"x{i}")
    return names


def output_names(node, count):
    """The names of a node's `count` outputs: a layer's are its output and its weights."""
    if node.kind == LAYER and node.op in catalog.LAYERS:
        weights = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        return ["output", *weights][:count] + [f"output {i}" for i in range(1 + len(weights), count)]
    return ["output"] if count == 1 else [f"output {i}" for i in range(count)]


def label_font():
    return text.sans(LABEL_FONT)


def label_rect(name, is_output):
    """Where a port's name is written, relative to the port's centre: above the edge that
    leaves (or enters) the card there, outside the card."""
    w = text.width(label_font(), name) + 2
    x = LABEL_GAP if is_output else -LABEL_GAP - w
    return QRectF(x, -LABEL_RISE, w, LABEL_H)
