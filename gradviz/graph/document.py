"""The graph document: what a user builds on the canvas and saves to a .gradviz.json file.

Plain data, no Qt and no engine objects: nodes, the edges between their ports, which
node outputs are targets and sources, the output_gradients seeds and the tape
settings. `evaluate.py` runs it through a real GradientTape; `fileformat.py` reads
and writes it; `validate.py` checks it and infers shapes.
"""
import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np

# Node kinds
CONSTANT = "constant"        # a tensor value; `watched` means tape.watch(value)
VARIABLE = "variable"        # a tf.Variable (trainable ones are watched automatically)
OP = "op"                    # any op of the catalog (catalog.py), with attributes
LAYER = "layer"              # keras.layers.Dense / BatchNormalization with their weights
CUSTOM_GRADIENT = "custom_gradient"  # identity forward, a declarative backward rule
KINDS = (CONSTANT, VARIABLE, OP, LAYER, CUSTOM_GRADIENT)

# Characters of display text; longer text is refused (it would not fit anywhere it is shown).
TEXT_LIMITS = {"label": 80, "title": 200, "lesson": 5000}


def json_kind(value):
    """What a value read from a file is, in JSON's words: text, a number, true or false,
    null, a list, an object (a message says what a field holds, never a Python type)."""
    if isinstance(value, bool):
        return "true or false"
    if value is None:
        return "null"
    return ("text" if isinstance(value, str) else "a list" if isinstance(value, (list, tuple))
            else "an object" if isinstance(value, dict) else "a number")


# What display text may not hold: control characters (Unicode's category Cc: U+0000-U+001F,
# U+007F-U+009F), lone surrogates (Cs) and the non-characters U+FFFE, U+FFFF. One search
# finds the first (a loop over every character took 1 ms a lesson of 4,750 characters, 34 µs
# so).
_NOT_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def text_problem(what, text):
    """What is wrong with display text `what` ('label', 'title', 'lesson'), or None.

    Text must survive every place it goes: UTF-8 files, SVG/XML exports, a terminal.
    So no lone surrogates (from a "\\ud800" escape) and no control characters (only the
    lesson may hold line breaks and tabs)."""
    if not isinstance(text, str):
        return f"the {what} must be text, not {json_kind(text)}"
    limit = TEXT_LIMITS[what]
    if len(text) > limit:
        return f"the {what} has {len(text)} characters; at most {limit} are allowed"
    allowed = "\n\t" if what == "lesson" else ""
    for found in _NOT_TEXT.finditer(text):
        i, c = found.start(), found.group()
        if c in allowed:
            continue
        category = unicodedata.category(c)
        if category == "Cs":
            return (f"the {what} holds an unpaired surrogate {c!r} at character {i}, which "
                    "is not valid Unicode text")
        if category == "Cc" or c in "\ufffe\uffff":
            kind = "control character" if category == "Cc" else "non-character"
            return (f"the {what} holds the {kind} {c!r} at character {i}"
                    + ("; only line breaks and tabs are allowed" if allowed else ""))
    return None


def clean_text(what, text):
    """`text` made acceptable as `what`: characters `text_problem` refuses are replaced by
    '?', and it is cut to the length limit (for text gradviz makes, say from a file name)."""
    allowed = "\n\t" if what == "lesson" else ""
    text = "".join(c if c in allowed or text_problem("label", c) is None else "?" for c in text)
    return text[:TEXT_LIMITS[what]]


def fresh(stem, taken, counters=None, count_on=True):
    """`stem` if free, else TF's next name: matmul, matmul_1, matmul_2 (with `count_on`, a
    stem that ends in _N counts on from its base: a copy of matmul_1 is matmul_2; without,
    as TF's own rule, const_3 then const_3_1). `counters` (base -> the next N to try), kept
    by a caller naming many nodes while `taken` only grows, makes that linear: each N of a
    base is probed once, not once per node."""
    if stem not in taken:
        return stem
    base = (re.sub(r"_\d+$", "", stem) or stem) if count_on else stem
    i = counters.get(base, 1) if counters is not None else 1
    while f"{base}_{i}" in taken:
        i += 1
    if counters is not None:
        counters[base] = i + 1
    return f"{base}_{i}"


@dataclass
class Node:
    """One box on the canvas. `op` names the catalog entry (OP), layer class (LAYER) or
    rule (CUSTOM_GRADIENT); `value` holds a tensor for CONSTANT and VARIABLE nodes;
    `weights` holds a layer's variables by name ('kernel', 'bias', ...)."""

    id: str
    kind: str
    op: str = ""
    label: str = ""
    attrs: dict = field(default_factory=dict)
    value: np.ndarray | None = None
    watched: bool = False
    trainable: bool = True
    weights: dict = field(default_factory=dict)
    position: tuple[float, float] | None = None

    @property
    def title(self):
        return self.label or self.op or self.id


@dataclass(frozen=True)
class Port:
    """An output (`index` of node `node`) or an input slot, depending on context."""

    node: str
    index: int = 0


@dataclass(frozen=True)
class Edge:
    """Output `src.index` of node `src.node` feeds input `dst.index` of node `dst.node`."""

    src: Port
    dst: Port


@dataclass
class TapeSettings:
    persistent: bool = False
    watch_accessed_variables: bool = True
    # Node ids evaluated inside `with tape.stop_recording():`.
    stop_recording: list = field(default_factory=list)


@dataclass
class Document:
    title: str = "Untitled"
    lesson: str = ""
    nodes: dict = field(default_factory=dict)      # id -> Node, in insertion order
    edges: list = field(default_factory=list)      # [Edge]
    targets: list = field(default_factory=list)    # [Port] (node outputs)
    sources: list = field(default_factory=list)    # [Port] (node outputs, usually inputs)
    output_gradients: dict = field(default_factory=dict)  # target Port -> np.ndarray
    tape: TapeSettings = field(default_factory=TapeSettings)
    # What the views study by default: {"jacobian": {...}, "hessian": {...}, ...}
    studies: dict = field(default_factory=dict)
    # What the Train dock starts with: {"optimizer": "adam", "steps": 200, "learning_rate": ...}
    training: dict = field(default_factory=dict)

    # -- editing ---------------------------------------------------------------------
    def add(self, node):
        if node.id in self.nodes:
            raise ValueError(f"a node with id '{node.id}' already exists")
        self.nodes[node.id] = node
        return node

    def new_id(self, stem="n"):
        """A free id named as TF names ops: matmul, then matmul_1, matmul_2."""
        return fresh(stem, self.nodes)

    def connect(self, src, dst, src_index=0, dst_index=0):
        edge = Edge(Port(src, src_index), Port(dst, dst_index))
        self.edges = [e for e in self.edges if e.dst != edge.dst] + [edge]
        return edge

    def remove(self, node_id):
        del self.nodes[node_id]
        self.edges = [e for e in self.edges if node_id not in (e.src.node, e.dst.node)]
        self.targets = [p for p in self.targets if p.node != node_id]
        self.sources = [p for p in self.sources if p.node != node_id]
        self.output_gradients = {p: v for p, v in self.output_gradients.items()
                                 if p.node != node_id}
        self.tape.stop_recording = [n for n in self.tape.stop_recording if n != node_id]

    def renamed(self, ids):
        """A copy whose node ids are `ids` ({old id: new id}, one to one; an id it lacks
        stays), every reference following: edges, targets, sources, seeds, stop_recording,
        the studies' ports. Nodes are copied shallowly: tensors are shared."""
        def port(p):
            return Port(ids.get(p.node, p.node), p.index)

        def port_text(text):   # a study's 'node' or 'node:k'
            node, colon, index = text.partition(":")
            return ids.get(node, node) + colon + index

        out = dataclasses.replace(self)
        out.nodes = {ids.get(nid, nid): dataclasses.replace(node, id=ids.get(nid, nid))
                     for nid, node in self.nodes.items()}
        out.edges = [Edge(port(e.src), port(e.dst)) for e in self.edges]
        out.targets = [port(p) for p in self.targets]
        out.sources = [port(p) for p in self.sources]
        out.output_gradients = {port(p): v for p, v in self.output_gradients.items()}
        out.tape = dataclasses.replace(self.tape, stop_recording=[
            ids.get(n, n) for n in self.tape.stop_recording])
        out.studies = {name: {key: port_text(value) if key in ("target", "source") else value
                              for key, value in spec.items()}
                       for name, spec in self.studies.items()}
        out.training = dict(self.training)
        return out

    # -- reading ---------------------------------------------------------------------
    def inputs_of(self, node_id):
        """Incoming edges of a node, ordered by input slot."""
        return sorted((e for e in self.edges if e.dst.node == node_id), key=lambda e: e.dst.index)

    def input_index(self):
        """{node id: its incoming edges by slot}: `inputs_of` for every node in one pass (a
        walk over a 5000-node chain calling `inputs_of` per node took seconds)."""
        index = {nid: [] for nid in self.nodes}
        for e in self.edges:
            index.setdefault(e.dst.node, []).append(e)
        for edges in index.values():
            edges.sort(key=lambda e: e.dst.index)
        return index

    def consumers_of(self, node_id):
        return [e for e in self.edges if e.src.node == node_id]

    def ancestors(self, node_ids):
        """`node_ids` and every node they depend on (following edges backward)."""
        return _closure(node_ids, [(e.dst.node, e.src.node) for e in self.edges])

    def descendants(self, node_ids):
        """`node_ids` and every node that depends on them (following edges forward)."""
        return _closure(node_ids, [(e.src.node, e.dst.node) for e in self.edges])


def _closure(start, links):
    following = {}
    for a, b in links:
        following.setdefault(a, []).append(b)
    seen, stack = set(), list(start)
    while stack:
        nid = stack.pop()
        if nid not in seen:
            seen.add(nid)
            stack.extend(following.get(nid, ()))
    return seen
