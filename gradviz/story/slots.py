"""The names of an op node's inputs on screen: the labels beside its ports and the names its
rule card gives those operands, one choice for both.

They are graph.input_names' (a, b by place; conv2d's input, filters by role), except where
such a name is another node's on the canvas and would give that name a second value: then
letters by place move on together, keeping their order (d, e beside nodes a, b, c), and a
role word becomes its operand's node's name where the card writes it so, else a spare letter.
"""
from ..graph import catalog
from ..graph.input_names import by_place, declared_names, plain_names, rule_texts, slot_letter
from . import operands


def input_names(node, count, doc=None, incoming=None):
    """The names written for the node's `count` inputs: a, b, c by place or the role words
    (graph.input_names). With the `doc` the node is in, a name that is another node's name
    there, not the node feeding that input, is replaced: letters by place move on together
    (d, e beside nodes a, b, c); a role word becomes the name of the node feeding it, where
    the card writes it so, else a spare letter. `incoming`: the node's input edges, when the
    caller has them (doc.input_index), else they are looked up."""
    names = plain_names(node, count)
    if doc is None:
        return names
    if incoming is None:
        incoming = [e for e in doc.edges if e.dst.node == node.id]
    same = {}   # one object per feeding port: two inputs from x are one operand
    feeds = {e.dst.index: same.setdefault(e.src, e.src) for e in incoming}
    feeders = [feeds.get(i) for i in range(count)]
    labels = [None if p is None else catalog.port_name(doc, p) for p in feeders]
    taken = node_names(doc)
    if not any(n in taken and n != lab for n, lab in zip(names, labels)):
        return names
    texts = rule_texts(node, count)
    if by_place(node, count):
        return _moved_on(count, taken | {lab for lab in labels if lab}, texts)
    placed = operands.port_renaming(operands.rule_names(texts),
                                    (declared_names(node, count), names))
    formulas = [operands.rename(f, placed) for f in texts]
    fitting = operands.substitutions(names, labels, feeders, formulas)
    mapping = {n: fitting[n] for n, lab in zip(names, labels)
               if n in taken and n != lab and n in fitting}
    rest = [(n, lab) for n, lab in zip(names, labels) if n not in mapping]
    mapping.update(operands.unclash([n for n, _ in rest], [lab for _, lab in rest],
                                    taken | set(mapping.values()), [*texts, *formulas]))
    return [mapping.get(n, n) for n in names]


def _moved_on(count, used, texts):
    """The letters a, b, ... moved together to the first run that is no node's name and no
    word of the rule (d, e beside nodes a, b, c), so their order still reads as the
    operands' order."""
    avoid = used | set().union(*(operands.words(f) for f in texts))
    start = next(i for i in range(26 * 40)
                 if not {slot_letter(i + j) for j in range(count)} & avoid)
    return [slot_letter(start + j) for j in range(count)]


def node_names(doc):
    """Every node's name on the canvas."""
    return frozenset(n.label or n.id for n in doc.nodes.values())
