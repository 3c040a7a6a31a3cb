"""Where a Hessian's first NaN or infinity comes from, in a reader's words.

A Hessian is the outer tape's Jacobian of the inner gradient, so a NaN can start in a
rule applied twice: pow's rule grad · y · x^(y-1), differentiated again where x = 0,
multiplies 0 by 0^(-1) = ∞ (faithful to TF's Pow gradient). The study then cannot give
eigenvalues; this module names the node and the rule, as node warnings do.

It runs the nested tapes once more with two observers: while the inner tape
differentiates, one notes which forward op each new outer-tape entry serves (the ops a
VJP records are made between the visit of that op and the next visit); then the outer
tape differentiates one row of the Hessian that is not finite, and the other notes the
first contribution that is not finite. Everything before it was finite: that rule made it.
"""
from dataclasses import dataclass

import numpy as np

from ..engine.backward import Observer
from ..engine.tensor import Tensor
from .build import quiet
from .errors import ENGINE_ERRORS
from .evaluate import _built, _check, _prepared, _tapes


@dataclass
class NanOrigin:
    node: str          # the document node whose rule, differentiated again, made it
    op_type: str       # the engine op whose rule made it ('Pow')
    rule: str          # that rule's formula for the input it fed ('grad_x = grad · y · x^(y-1)')
    second: bool       # True: a rule of an op that a differentiation recorded
    entry: tuple       # the first Hessian entry (row, column) that is not finite
    count: int         # how many Hessian entries are not finite
    operand: str = ""  # the input node where the rule's input holds zeros
    zeros: int = 0     # how many of its entries are 0
    size: int = 0

    def text(self, label):
        """'H holds NaN …: it first appears …' with `label(node id)` the node's name."""
        where = (f"where the rule of {label(self.node)} ({self.op_type}) is differentiated "
                 f"again" if self.second else f"in the gradient of {label(self.node)} "
                 f"({self.op_type})")
        rule = f"{self.op_type}'s rule {self.rule}" if self.rule else f"{self.op_type}'s rule"
        zero = (f" where its input {label(self.operand)} is 0 ({self.zeros} of {self.size} "
                f"entries), as in 0 · ∞" if self.zeros else "")
        return (f"H holds NaN or infinity in {self.count} of its entries (first at row "
                f"{self.entry[0]}, column {self.entry[1]}). It first appears {where}: "
                f"{rule} gives NaN or infinity from finite numbers{zero}.")


class _Servers(Observer):
    """Which forward op the outer-tape entries made during the inner backward pass serve."""

    def __init__(self, outer):
        self.outer, self.marks = outer, []   # (first entry index, forward op)

    def visit(self, op, upstream):
        self.marks.append((len(self.outer._entries), op))

    def served(self, index):
        owner = None
        for start, op in self.marks:
            if start > index:
                break
            owner = op
        return owner


class _FirstNonFinite(Observer):
    def __init__(self):
        self.found = None    # (op, input index)

    def contribution(self, op, index, cotangent):
        value = np.asarray(cotangent._value if hasattr(cotangent, "_value") else cotangent)
        if self.found is None and value.dtype.kind == "f" and not np.isfinite(value).all():
            self.found = (op, index)


def hessian_nan_origin(doc, hessian, target=None, source=None):
    """NanOrigin for a Hessian (n × n over the flattened source) that is not finite, or
    None when it is finite or the origin cannot be traced."""
    h = np.asarray(hessian)
    n = int(np.sqrt(h.size))
    bad = np.argwhere(~np.isfinite(h.reshape(n, n))) if h.size else []
    if not len(bad):
        return None
    row, col = (int(i) for i in bad[0])
    tp, sp, structure = _prepared(doc, "hessian", target, source)
    try:
        with _tapes(doc, 2, persistent_outer=True) as (tapes, helper), quiet():
            outer, inner = tapes
            built = _built(doc, tapes, helper, structure.broken)
            _check(doc, structure, built, [tp, sp], "hessian")
            t, s = built.tensors[tp], built.tensors[sp]
            servers = _Servers(outer)
            first = len(outer._entries)
            g = inner.gradient(t, s, observer=servers)
            if g is None:
                return None
            made = {id(op): i for i, op in enumerate(outer._entries) if i >= first}
            seed = np.zeros(g._value.shape, g._value.dtype)
            seed.flat[row] = 1
            finder = _FirstNonFinite()
            outer.gradient(g, s, output_gradients=Tensor._wrap(seed), observer=finder)
    except ENGINE_ERRORS:
        return None
    if finder.found is None:
        return None
    op, k = finder.found
    second = id(op) in made
    forward = servers.served(made[id(op)]) if second else op
    node = _source_node(doc, built, op) or _node_of(built, forward)
    if node is None:
        return None
    origin = NanOrigin(node, op.type, op.opdef.formula(op.attrs, k) or "", second or
                       doc.nodes[node].op != "gradient", (row, col),
                       int((~np.isfinite(h)).sum()))
    for tensor in op.inputs:   # the input whose zeros the rule divides by, say
        value = np.asarray(tensor._value)
        owner = _port_node(built, tensor)
        if owner is not None and value.dtype.kind == "f" and (value == 0).any():
            origin.operand, origin.zeros, origin.size = owner, int((value == 0).sum()), value.size
            break
    return origin


def _node_of(built, op):
    for node_id, ops in built.entries.items():
        if any(o is op for o in ops):
            return node_id
    return None


def _port_node(built, tensor):
    return next((port.node for port, t in built.tensors.items() if t is tensor), None)


def _source_node(doc, built, op):
    """The document node that applies an op of the same type to the same first input: a
    rule that repeats its op (pow's x^(y-1)) leads back to where the reader wrote it."""
    for node_id, ops in built.entries.items():
        node = doc.nodes.get(node_id)
        if node is None or node.op == "gradient":
            continue
        if any(o.type == op.type and o.inputs and op.inputs and o.inputs[0] is op.inputs[0]
               for o in ops):
            return node_id
    return None
