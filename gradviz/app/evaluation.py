"""What an evaluation of the document gives the window: its Result (values, problems in the
user's names, the backprop story told on first request), the problems of one node, and an
exception worded with the user's names (`worded`). The controller (app/controller.py)
decides when to evaluate and keeps the undo history; this module says what came out.
"""
import re

import numpy as np

from ..graph import catalog
from ..graph.build import build
from ..graph.document import CONSTANT, Document, Edge, Node, Port
from ..graph.errors import DocumentError, Problem, named
from ..graph.names import node_name
from ..graph.evaluate import checks_hold, evaluate
from ..graph.structure import input_slots, structure_problems, text_problems
from ..story.build import tell as tell_story
from ..story.model import events_spec
from ..story.recorder import Recorder
from .snapshots import changed_attributes



class Result:
    """What the last recomputation found; widgets read it, never the engine directly.

    `story` (story.Story, or None when the document cannot run) is assembled on first
    access from the backward pass recorded during evaluation.
    """

    def __init__(self, evaluation=None, problems=(), story=None, tell=None, elapsed_ms=0.0):
        self.evaluation = evaluation      # graph.Evaluation (values, gradients, tensors)
        self.name_nodes(problems, None)
        self.elapsed_ms = elapsed_ms
        self._story = story
        self._tell = tell
        # Shared by the results of documents that differ at most in where nodes stand (and
        # the lesson): every card shows the same, so the canvas measures none of them again.
        self.content = object()

    def name_nodes(self, problems, doc):
        """Keep `problems`, each naming its node as `doc` (the document now, which may have
        renamed a node since the evaluation) names it: graph.errors.named."""
        self.problems = list(problems) if doc is None else named(problems, doc)
        self.node_problems = {}           # node id -> [graph.Problem]
        for p in self.problems:
            if p.node:
                self.node_problems.setdefault(p.node, []).append(p)

    # The format the story will write its tensors in (Story.number_spec), known before it
    # is told: from the evaluation and the backward pass's events (story.model.events_spec);
    # None where they are not at hand (a replayed evaluation: its values' own, then).
    numbers_spec = None

    @property
    def story(self):
        if self._tell is not None:
            tell, self._tell = self._tell, None
            try:
                self._story = tell()
            except Exception as e:  # a story that cannot be told must not stop the editor
                self.problems.append(Problem(f"the story could not be told: {worded(e, None)}",
                                             where="story"))
        return self._story

    @property
    def story_ready(self):
        """True when `story` costs nothing to read (assembled, or there is none)."""
        return self._tell is None

    @property
    def ok(self):
        return not self.problems


class Basis:
    """The last evaluation, for reuse: `evaluated`, the document snapshot it was made from;
    `doc`, the latest snapshot it stands for (moves and new labels since reuse it);
    `latest`, the latest Result made from it, whose story is told with `doc`'s names (the
    evaluation's own story keeps the names it was evaluated with: reused for a move after
    a rename, it put the old name back in the story's chips and captions)."""

    def __init__(self, doc, result, events):
        self.doc, self.result, self.events = doc, result, events
        self.evaluated = doc
        self.latest = result
        self.content = result.content   # the token of the latest result it stands for


def worded(e, doc):
    """Why work failed, in the app's words, on the UI thread or off it alike: a
    DocumentError naming its node and input as the canvas names them now (graph.errors.named:
    'input 2 (b) is not connected', not the catalog's 'y'); any other error said in words (what kind of failure,
    then its message), never as a class name such as LinAlgError, with every node the
    message names called by its name on the canvas, not its internal id. One line."""
    if isinstance(e, DocumentError):
        return str(named([e.problem], doc)[0]).replace("\n", " ")
    message = _by_name(" ".join(str(e).split()), doc)
    if len(message) > 300:
        message = message[:297] + "..."
    for kinds, words in _FAILURES:
        if isinstance(e, kinds):
            return words(message)
    return message or "it stopped without saying why"


# What each kind of failure is, in words, before the message that says it in its own
_FAILURES = (
    (MemoryError, lambda m: "there is not enough memory for it" + (f" ({m})" if m else "")),
    (np.linalg.LinAlgError, lambda m: f"a matrix computation failed ({m or 'no reason given'}): "
                                      "its numbers may hold NaN or infinity, or the matrix is singular"),
    (ZeroDivisionError, lambda m: "a division by zero" + (f" ({m})" if m else "")),
    ((OverflowError, FloatingPointError), lambda m: "a number grew beyond what a float can hold"
                                                    + (f" ({m})" if m else "")),
    (RecursionError, lambda m: "the graph nests too deeply to compute"),
    (KeyError, lambda m: f"{m or 'a value'} was never computed (the graph stops before it)"),
)


def _by_name(text, doc):
    """`text` with each node id it quotes ('w2') written as the node's name (its label)."""
    nodes = getattr(doc, "nodes", None) or {}
    renames = {nid: node_name(node) for nid, node in nodes.items() if node_name(node) != nid}
    if not renames or not text:
        return text
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(renames, key=len, reverse=True)))
                         + r")(?![\w])")
    return pattern.sub(lambda m: renames[m.group(1)], text)


def retexted(problems, evaluated, doc):
    """`problems` found in document `evaluated`, for `doc`, which the engine sees the same:
    only the checks of the title, lesson and labels can differ."""
    old, new = text_problems(evaluated), text_problems(doc)
    return problems if old == new else [p for p in problems if p not in old] + new


def checked(basis, doc):
    """The last Evaluation when its checks and plan hold for `doc`: since it, only numbers,
    positions or attributes that keep every shape changed (a value edit, a transpose flag
    of a square matrix). Making them again takes a third of a 100-node evaluation."""
    last = basis.result.evaluation if basis is not None else None
    if last is None:
        return None
    changed = changed_attributes(basis.evaluated, doc)
    return last if changed is not None and checks_hold(last, basis.evaluated, doc, changed) else None


def evaluated_result(doc, same_structure_as=None, ending=None, replayer=None):
    """(Result, recorded backward-pass events or None) for a document snapshot;
    `same_structure_as`: the last Evaluation, when its checks and plan hold (`checked`);
    `replayer`: a graph.compiled.Replayer that may replay the document's compiled
    evaluation (no events then: the story evaluates eagerly when it is told).

    The graph layer evaluates whatever can run: a problem stops only the nodes that
    depend on it, so a stray node elsewhere never hides the target's gradient."""
    replayed = replayer.evaluation(doc, same_structure_as) if replayer is not None else None
    if replayed is not None:
        return Result(replayed, replayed.problems, tell=teller(doc, replayed, None, ending)), None
    recorder = Recorder()
    try:
        evaluation = evaluate(doc, observer=recorder, same_structure_as=same_structure_as)
    except Exception as e:  # the engine refused: keep editing, show the reason
        problem = e.problem if isinstance(e, DocumentError) else \
            Problem(worded(e, doc), where="evaluation")
        return Result(None, [problem]), None
    result = Result(evaluation, evaluation.problems, tell=teller(doc, evaluation, recorder.events, ending))
    result.numbers_spec = events_spec(evaluation, recorder.events)
    return result, recorder.events


def teller(doc, evaluation, events, ending=None):
    """The story of `doc` from its evaluation and the backward pass's events, ended by
    `ending`; a replayed evaluation has neither tape nor events: the story evaluates
    eagerly (the same numbers)."""
    def tell():
        if evaluation.replayed:
            recorder = Recorder()
            eager = evaluate(doc, observer=recorder, same_structure_as=evaluation)
            story = tell_story(doc, eager, recorder.events)
        else:
            story = tell_story(doc, evaluation, events)
        return story if ending is None else ending(story)
    return tell


def reaches(doc, start, goal):
    """True when `goal` is downstream of `start` (following edges forward)."""
    seen, stack = set(), [start]
    while stack:
        nid = stack.pop()
        if nid == goal:
            return True
        if nid in seen:
            continue
        seen.add(nid)
        stack.extend(e.dst.node for e in doc.edges if e.src.node == nid)
    return False


def structure_problems_for(doc, node_id, ignore_missing=False):
    """Structural problems that concern `node_id` or its incoming edges, as text."""
    out = []
    for p in structure_problems(doc):
        mentions = p.node == node_id or (p.edge and f"{node_id}" in str(p.edge))
        if not mentions:
            continue
        if ignore_missing and "is not connected" in p.message:
            continue
        out.append(p.message)
    return out


def shape_problem(doc, node_id, evaluation=None):
    """Run node `node_id` on its inputs; the engine's refusal in words, else None.

    The inputs' values come from `evaluation` (the document before the new edge, whose
    upstream values the edge cannot change), so only this one node runs; without an
    evaluation the whole document runs.
    """
    edges = doc.inputs_of(node_id)
    node = doc.nodes[node_id]
    needed, _ = _input_count(node)
    if len(edges) < needed:
        return None  # not all inputs are there yet: nothing to check
    values = getattr(evaluation, "values", None)
    if values is not None:
        if any(e.src not in values for e in edges):
            return None  # an input does not compute yet: that is its own problem
        doc = _one_node_document(node, edges, values, doc)
    try:
        built = build(doc)
    except Exception as e:  # noqa: BLE001 (any refusal becomes a message)
        return str(e)
    for p in built.problems:
        if p.node == node_id:
            return p.message
    return None


def _one_node_document(node, edges, values, whole):
    """`node` fed by constants that hold its inputs' values, named as their nodes in the
    `whole` document (a refusal names them: 'x (operand a) has shape (2, 3)')."""
    doc = Document()
    for k, e in enumerate(edges):
        source = doc.add(Node(id=f"{node.id}__input{k}", kind=CONSTANT, value=values[e.src],
                              label=catalog.port_name(whole, e.src)))
        doc.edges.append(Edge(Port(source.id), e.dst))
    doc.add(node)
    return doc


def _input_count(node):
    return input_slots(node)
