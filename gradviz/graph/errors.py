"""Problems found in a document, attached to the node or edge that caused them.

`DocumentError` is fatal (the file cannot become a Document, or cannot run);
`Problem` is the same message kept as a finding, so an editor can show it on the
node while the user fixes it. A problem is an error (the node cannot run) or a
warning (it ran, but look: a NaN appeared here).
"""
import copy

import numpy as np

from .document import text_problem

# what the engine raises for a graph that cannot run as built (a shape mismatch, a singular
# matrix, an op without a gradient): caught and said in words, never a traceback
ENGINE_ERRORS = (ValueError, TypeError, IndexError, LookupError, RuntimeError, ArithmeticError,
                 np.linalg.LinAlgError)


def _place(node=None, edge=None, where=None):
    if node is not None:
        return f"node '{node}'"
    if edge is not None:
        return f"edge {edge}"
    return where


class Problem:
    """One finding: `message`, and where: a node id, an edge (text) or a place in the file.

    `name` is the node's name for the reader (its label; ids are internal), which `place`
    says: `named` sets it from the document, where problems leave the graph layer.
    `brief`: the message's essentials first, for a card drawn compact, which writes three
    short lines of it ('x (c) 2×4, W (d) 5×2: matmul shapes do not match'); None where the
    message is that already.
    `words`: for a message that names the node's inputs by their ports' letters (a shape
    mismatch, an engine refusal, an unconnected input), a function of a document
    giving (message, brief) as that document names them: a rename changes both, and
    `named` says them anew."""

    __slots__ = ("message", "node", "edge", "where", "warning", "name", "brief", "words")

    def __init__(self, message, node=None, edge=None, where=None, warning=False, name=None,
                 brief=None, words=None):
        self.message = str(message)
        self.brief = brief
        self.words = words
        self.node = node
        self.edge = edge
        self.where = where
        self.warning = bool(warning)
        self.name = name

    @property
    def place(self):
        return _place(self.name or self.node, self.edge, self.where)

    @property
    def severity(self):
        return "warning" if self.warning else "error"

    def __str__(self):
        place = self.place
        return f"{place}: {self.message}" if place else self.message

    def __repr__(self):
        return f"{type(self).__name__}({str(self)!r}{', warning' if self.warning else ''})"

    def _key(self):
        return (self.message, self.node, self.edge, self.where, self.warning)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def shown(value, limit=60):
    """A value as a message shows it: its repr, cut to `limit` characters (a huge integer
    by its number of digits), so a hostile file cannot make a message huge."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 20:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def reader_name(doc, node_id):
    """What the canvas calls node `node_id`: its label, else (or when the label is not valid
    text, which is then the problem) its id; None if it is missing."""
    node = doc.nodes.get(node_id) if node_id is not None else None
    if node is None:
        return None
    return node.label if node.label and not text_problem("label", node.label) else node.id


def named(problems, doc):
    """`problems` with each node named as `doc` names it, and each input a message names
    as `doc` names it now (Problem.words: the feeding node's name and its port's letter,
    which a rename of any node may change); copies where the words change: a problem may
    be shared with an earlier evaluation, before a rename."""
    out = []
    for p in problems:
        name = reader_name(doc, p.node)
        words = p.words(doc) if p.words is not None else None
        if (name is not None and name != p.name) or (words is not None and
                                                      words != (p.message, p.brief)):
            p = copy.copy(p)   # keeps its class (budget's shape problems)
            p.name = name if name is not None else p.name
            if words is not None:
                p.message, p.brief = words
        out.append(p)
    return out


def errors(problems):
    return [p for p in problems if not p.warning]


def stopping(problems, doc, ports):
    """The errors among `problems` that stop what `ports` are computed from: a node's own
    when the ports' nodes depend on it (a stray node, which nothing they need reads, stops
    nothing of theirs), and every error that names no node (the file, an edge)."""
    needed = doc.ancestors([p.node for p in ports])
    return [p for p in errors(problems) if p.node is None or p.node in needed]


def warnings(problems):
    return [p for p in problems if p.warning]


class DocumentError(ValueError):
    """A document that cannot be loaded or run; `str()` is one line naming the place."""

    def __init__(self, message, node=None, edge=None, where=None, name=None, words=None):
        self.problem = Problem(message, node=node, edge=edge, where=where, name=name, words=words)
        super().__init__(str(self.problem).replace("\n", " "))

    @property
    def message(self):
        return self.problem.message

    @property
    def node(self):
        return self.problem.node

    @property
    def edge(self):
        return self.problem.edge

    @property
    def where(self):
        return self.problem.where

    @classmethod
    def from_problem(cls, problem):
        return cls(problem.message, node=problem.node, edge=problem.edge, where=problem.where,
                   name=problem.name, words=problem.words)
