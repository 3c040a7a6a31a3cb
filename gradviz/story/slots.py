"""The names of an op node's inputs on screen: the labels beside its ports and the names its
rule card gives those operands, one choice for both.

An op of several inputs whose rule names them by letters (multiply's x, y; matmul's a, b;
linalg.solve's A, b), and a variadic op (add_n, concat), names its inputs by their place:
a, b, c in operand order, so 'a' is always the first operand and matmul's order reads at a
glance. An op whose rule names its inputs by role (conv2d's input and filters, a
cross-entropy's labels and logits) keeps those words, as TF's API does. A name that is
another node's name on the canvas would give that name a second value: it is replaced by a
spare letter (operands.unclash), beside the port and on the card alike.
"""
from ..engine import registry
from ..graph import catalog
from ..graph.document import OP
from . import operands

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
    formulas = rule_texts(node, count)
    lhs = [f.split("=", 1)[0].strip() for f in formulas]
    return len(lhs) == count and all(n.startswith("grad_") and len(n) == 6 and n[5].isascii()
                                     and n[5].isalpha() for n in lhs)


def input_names(node, count, doc=None):
    """The names written for the node's `count` inputs: a, b, c by place or the role words
    (`by_place`). With the `doc` the node is in, a name that is another node's name there,
    not the node feeding that input, is replaced by a spare letter."""
    names = ([slot_letter(k) for k in range(count)] if by_place(node, count)
             else declared_names(node, count))
    if doc is None:
        return names
    same = {}   # one object per feeding port: two inputs from x are one operand
    feeds = {e.dst.index: same.setdefault(e.src, e.src) for e in doc.edges if e.dst.node == node.id}
    feeders = [feeds.get(i) for i in range(count)]
    labels = [None if p is None else catalog.port_name(doc, p) for p in feeders]
    taken = node_names(doc)
    if not any(n in taken and n != lab for n, lab in zip(names, labels)):
        return names
    # A name that is another node's: the card writes that operand by its node's name where
    # the name is one term (operands.substitutions), and so does the port; else a spare letter.
    texts = rule_texts(node, count)
    placed = operands.port_renaming(operands.rule_names(texts),
                                    (declared_names(node, count), names))
    formulas = [operands.rename(f, placed) for f in texts]
    fitting = operands.substitutions(names, labels, feeders, formulas)
    mapping = {n: fitting[n] for n, lab in zip(names, labels)
               if n in taken and n != lab and n in fitting}
    rest = [(n, lab) for n, lab in zip(names, labels) if n not in mapping]
    used = taken | set(mapping.values()) | {lab for lab in labels if lab}
    if by_place(node, count):
        mapping.update(_moved_on(rest, used, texts))
    else:
        mapping.update(operands.unclash([n for n, _ in rest], [lab for _, lab in rest],
                                        used, [*texts, *formulas]))
    return [mapping.get(n, n) for n in names]


def _moved_on(rest, used, texts):
    """{letter: its new letter}: when a letter left is another node's name, all the letters
    left move together to the first free run (b, c when a node is named a), so that their
    order still reads as the operands' order."""
    if not any(n in used and n != lab for n, lab in rest):
        return {}
    avoid = used | set().union(*(operands.words(f) for f in texts))
    start = next(i for i in range(26 * 40)
                 if not {slot_letter(i + j) for j in range(len(rest))} & avoid)
    return {n: slot_letter(start + j) for j, (n, _) in enumerate(rest)}


def node_names(doc):
    """Every node's name on the canvas."""
    return frozenset(n.label or n.id for n in doc.nodes.values())


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

