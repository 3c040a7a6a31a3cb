"""The names of an op node's inputs, by place or by role (before any clash with another
node's name is resolved: graph.slots does that, for the ports and the rule card alike).

An op of several inputs whose rule names them by letters (multiply's x, y; matmul's a, b;
linalg.solve's A, b), and a variadic op (add_n, concat), names its inputs by their place:
a, b, c in operand order, so 'a' is always the first operand and matmul's order reads at a
glance. An op whose rule names its inputs by role (conv2d's input and filters, a
cross-entropy's labels and logits) keeps those words, as TF's API does.
"""
from ..engine import registry
from . import catalog
from .document import OP

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def slot_letter(k):
    """Input k's letter: a, b, ... z, then a1, b1 ..."""
    return LETTERS[k % 26] + (str(k // 26) if k >= 26 else "")


def declared_names(node, count):
    """The names the catalog gives the node's `count` inputs (TF's argument names: 'x', 'y';
    'labels', 'logits'; 'values[0]' for a variadic op's)."""
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    names = []
    for i in range(count):
        if spec is not None and spec.inputs:
            name = spec.inputs[min(i, len(spec.inputs) - 1)]
            names.append(f"{name.rstrip('*')}[{i - len(spec.inputs) + 1}]" if name.endswith("*")
                         else name)
        else:
            names.append("x" if count == 1 else f"x{i}")
    return names


def by_place(node, count):
    """Whether the node's inputs are named by their place (a, b, c), not by their role."""
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    if spec is None or count < 2:
        return False
    if spec.variadic:
        return True
    lhs = [f.split("=", 1)[0].strip() for f in rule_texts(node, count)]
    return len(lhs) == count and all(n.startswith("grad_") and len(n) == 6 and n[5].isascii()
                                     and n[5].isalpha() for n in lhs)


def plain_names(node, count):
    """The node's inputs' names by place (a, b) or by role (input, filters)."""
    return [slot_letter(k) for k in range(count)] if by_place(node, count) \
        else declared_names(node, count)


def rule_texts(node, count):
    """The engine's rule texts of the node's op, one per input it has one for."""
    spec = catalog.OPS.get(node.op) if node.kind == OP else None
    if spec is None or not spec.engine:
        return ()
    try:
        opdef = registry.get_op(spec.engine)
    except LookupError:
        return ()
    attrs = catalog.full_attrs(node)
    return tuple(f for f in (opdef.formula(attrs, k) for k in range(count)) if f)
