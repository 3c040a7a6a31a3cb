"""The names of an op node's inputs on screen: the labels beside its ports and the names its
rule card gives those operands, one choice for both.

They are graph.input_names' (a, b by place; conv2d's input, filters by role), except where
such a name is another node's on the canvas and would give that name a second value: then
the operand's own node's name, where the card writes it so, else letters moved on.
"""
from ..graph import catalog
from ..graph.input_names import by_place, declared_names, plain_names, rule_texts, slot_letter
from . import operands


def input_names(node, count, doc=None):
    """The names written for the node's `count` inputs: a, b, c by place or the role words
    (`by_place`). With the `doc` the node is in, a name that is another node's name there,
    not the node feeding that input, is replaced by a spare letter."""
    names = plain_names(node, count)
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
