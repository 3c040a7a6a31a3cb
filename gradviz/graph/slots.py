"""The names of an op node's inputs on screen: the labels beside its ports and the names its
rule card gives those operands, one choice for both.

They are graph.input_names' (a, b by place; conv2d's input, filters by role), except where
such a name is another node's on the canvas and would give that name a second value (a
port that another node feeds; an unconnected port holds no value, so its name stays as the
catalog gives it while nothing is wired: a fresh add reads add(a, b) beside nodes a, b): then
letters by place move on together, keeping their order (d, e beside nodes a, b, c), and a
role word becomes its operand's node's name where the card writes it so, else a spare letter.
"""
from . import catalog
from .input_names import by_place, declared_names, plain_names, rule_texts, slot_letter
from . import operands


def input_names(node, count, doc=None, incoming=None):
    """The names written for the node's `count` inputs: a, b, c by place or the role words
    (graph.input_names). With the `doc` the node is in, a name that is another node's name
    there, given to an input that another node feeds, is replaced: letters by place move on
    together (d, e beside nodes a, b, c); a role word becomes the name of the node feeding it, where
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
    clashing = set(clashes(names, labels, taken))
    if not clashing:
        return names
    texts = rule_texts(node, count)
    if by_place(node, count):
        return _moved_on(count, taken | {lab for lab in labels if lab}, texts)
    placed = operands.port_renaming(operands.rule_names(texts),
                                    (declared_names(node, count), names))
    formulas = [operands.rename(f, placed) for f in texts]
    fitting = operands.substitutions(names, labels, feeders, formulas)
    mapping = {n: fitting[n] for n in names if n in clashing and n in fitting}
    rest = [(n, lab) for n, lab in zip(names, labels) if n not in mapping and lab is not None]
    mapping.update(operands.unclash([n for n, _ in rest], [lab for _, lab in rest],
                                    taken | set(mapping.values()), [*texts, *formulas]))
    return [mapping.get(n, n) for n in names]


def clashes(names, labels, taken):
    """The names of `names` (one per input) that are the name of a node in `taken` other
    than the one that feeds that input (`labels`, None where none does)."""
    return [n for n, lab in zip(names, labels) if lab is not None and n in taken and n != lab]


def renamed(node, count, doc):
    """{input index: (the name the catalog gives it, why it was changed: which node's name
    it would repeat)} for the inputs whose names input_names changed, so that a reader is
    told why matmul's port reads d: "'a' is the name of another node, not the one wired in"."""
    plain, shown = plain_names(node, count), input_names(node, count, doc)
    incoming = [e for e in doc.edges if e.dst.node == node.id]
    labels = [None] * count
    for e in incoming:
        if e.dst.index < count:
            labels[e.dst.index] = catalog.port_name(doc, e.src)
    why = "; ".join(f"'{n}' is the name of another node, not the one wired in"
                    for n in clashes(plain, labels, node_names(doc)))
    return {i: (p, why) for i, (p, n) in enumerate(zip(plain, shown)) if p != n}


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
