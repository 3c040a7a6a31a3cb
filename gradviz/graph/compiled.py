"""A document's evaluation compiled once and replayed on new numbers (tf.function's idea).

A value edit, an optimizer's step or a drag through a tensor's numbers keep the
document's form: the same ops run on other numbers. The evaluation of such a document
is traced once (engine/trace_program's Tracer, as tf.function traces) into a
straight-line numpy program whose arguments are the document's tensors (its constants,
Variables, layer weights and seeds); a replay gives every port's value, the sources'
gradients and the problems an eager evaluation finds, without making tensors, a tape or
the checks again. What the story needs besides (the tape, its entries, the backward
pass's events) is not in a replay: the story evaluates eagerly when it is told.

The program holds for documents of the same `form`: the same nodes, ops, attributes,
edges, roles, tape settings and tensor shapes and dtypes. Any other document, one whose
evaluation has an error or reads a traced value in Python, and a replay the program
cannot finish (an engine error, an output of another shape) are evaluated eagerly: a
caller given None evaluates as before, so the numbers are always the eager path's.
"""
import numpy as np

from ..engine.trace_program import Tracer
from ..engine.tensor import Tensor
from . import catalog
from .build import ENGINE_ERRORS, make_leaves, quiet
from .document import CONSTANT, VARIABLE, Port
from .evaluate import Evaluation, evaluate, gradient_warnings, nan_warnings

# False: every evaluation is eager (the benchmarks measure both ways in one process).
REPLAY = True


def _spec(array):
    return None if array is None else (np.shape(array), np.asarray(array).dtype.str)


def form(doc):
    """Everything of `doc` its evaluation's ops depend on but the tensors' numbers."""
    nodes = tuple((nid, n.kind, n.op, tuple(n.attrs.items()), n.watched, n.trainable,
                   _spec(n.value), tuple((k, _spec(w)) for k, w in n.weights.items()))
                  for nid, n in doc.nodes.items())
    seeds = tuple((p, _spec(g)) for p, g in doc.output_gradients.items())
    tape = (doc.tape.persistent, doc.tape.watch_accessed_variables, tuple(doc.tape.stop_recording))
    return (nodes, tuple(doc.edges), tuple(doc.targets), tuple(doc.sources), seeds, tape)


def same_form(a, b):
    """Are forms `a` and `b` equal? (An attribute holding an array compares as unequal.)"""
    try:
        return a == b
    except (ValueError, TypeError):
        return False


class Uncompilable(Exception):
    """The document's evaluation cannot be replayed (why, in words)."""


class DocumentProgram:
    """The traced evaluation of one document form; `evaluate(doc)` replays it."""

    def __init__(self, doc, last=None, doc_form=None):
        """Trace `doc`'s evaluation. `last`: an Evaluation whose checks and plan hold for
        `doc` (evaluate's same_structure_as), or None."""
        self.form = form(doc) if doc_form is None else doc_form
        leaves = make_leaves(doc)
        self._places = [_place(doc, key) for key in leaves]
        self._leaf_specs = [(t._value.shape, t._value.dtype) for t in leaves.values()]
        tracer = Tracer(list(leaves.values()))
        with tracer:
            traced = evaluate(doc, persistent=False, same_structure_as=last, leaves=leaves)
        if tracer.failure is not None:
            raise Uncompilable(tracer.failure)
        if tracer.variables_created:
            raise Uncompilable("the evaluation makes Variables of its own")
        if traced.errors:
            raise Uncompilable(f"the evaluation stops: {traced.errors[0]}")
        self.structure, self.plan = traced.structure, traced.plan
        self._base = list(traced.structure.problems) + list(traced.plan.problems)
        if self._problems(doc, traced) != traced.problems:
            raise Uncompilable("its problems depend on more than the values and gradients")
        self._ports = list(traced.values)
        self._specs = [(v.shape, v.dtype) for v in traced.values.values()]
        self._sources = list(traced.gradients)
        outputs = [traced.tensors[p] for p in self._ports] + traced._gradient_tensors
        self.program = tracer.program(outputs, [None] * len(outputs), "document", fuse=False)

    def _problems(self, doc, ev):
        """The problems of evaluation `ev` from its values and gradients: the checks' and
        plan's (the same for every document of this form), then the NaN warnings."""
        problems = list(self._base) + nan_warnings(doc, ev.values)
        if ev.gradients:
            probe = Evaluation(values=ev.values, gradients=ev.gradients, problems=problems)
            problems += gradient_warnings(doc, probe)
        return problems

    def _arguments(self, doc):
        """The program's arguments: `doc`'s tensors in the order traced (None when one's
        shape or dtype is not the traced one)."""
        args = []
        for (node_id, weight, seed), (shape, dtype) in zip(self._places, self._leaf_specs):
            if seed is not None:
                value = doc.output_gradients[seed]
            else:
                node = doc.nodes[node_id]
                value = node.value if weight is None else node.weights[weight]
            value = np.asarray(value)
            if value.shape != shape or value.dtype != dtype:
                return None
            args.append(Tensor._wrap(value))
        return args

    def evaluate(self, doc):
        """The Evaluation of `doc` (of this program's form) by a replay; None when the
        program cannot give it (evaluate `doc` eagerly then)."""
        args = self._arguments(doc)
        if args is None:
            return None
        try:
            with quiet():
                outputs = self.program.run(args)
        except ENGINE_ERRORS:
            return None
        ev = Evaluation(structure=self.structure, plan=self.plan, replayed=True)
        for port, out, (shape, dtype) in zip(self._ports, outputs, self._specs):
            value = out._value
            if value.shape != shape or value.dtype != dtype:
                return None  # a shape that depends on the values: the trace does not hold
            ev.values[port] = value
        grads = outputs[len(self._ports):]
        ev.gradients = {p: None if g is None else g._value for p, g in zip(self._sources, grads)}
        ev.problems = self._problems(doc, ev)
        return ev


def _place(doc, key):
    """(node id, weight name or None, seed's target or None): where a leaf's value is."""
    if not isinstance(key, Port):
        return None, None, key[1]
    node = doc.nodes[key.node]
    if node.kind in (CONSTANT, VARIABLE):
        return node.id, None, None
    names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
    return node.id, names[key.index - 1], None


class Replayer:
    """Keeps the program of the last form evaluated twice: `evaluation(doc, last)` replays
    it for a document of that form (tracing it the second time a form is seen, so a
    form seen once, a structural edit's, costs no trace)."""

    def __init__(self):
        self.program = None
        self._seen = None       # the form of the last document asked about
        self._refused = None    # (form, why) of the last form that could not compile

    def evaluation(self, doc, last=None, same=False):
        """A replayed Evaluation of `doc`, or None: evaluate it eagerly (a form seen for
        the first time, one that cannot compile, a replay that cannot finish). `last`: an
        Evaluation whose checks and plan hold for `doc`, or None. `same`: the caller
        knows `doc` has the form of the document it asked about last (a trainer's copy,
        whose numbers alone change)."""
        if not REPLAY:
            return None
        if same and self._seen is not None:
            program = self.program
            if program is not None and program.form is self._seen:
                return program.evaluate(doc)
        doc_form = form(doc)
        seen, self._seen = self._seen, doc_form
        program = self.program
        if program is not None and same_form(program.form, doc_form):
            return program.evaluate(doc)
        if not same_form(seen, doc_form) or (
                self._refused is not None and same_form(self._refused[0], doc_form)):
            return None
        try:
            self.program = DocumentProgram(doc, last, doc_form)
        except Uncompilable as e:
            self.program, self._refused = None, (doc_form, str(e))
            return None
        return self.program.evaluate(doc)
