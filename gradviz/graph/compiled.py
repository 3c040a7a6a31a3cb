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
import threading

import numpy as np

from ..engine.trace_program import Tracer
from ..engine.tensor import Tensor
from . import catalog
from .build import make_leaves, quiet
from .document import CONSTANT, VARIABLE, Port
from .errors import ENGINE_ERRORS, named
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


class LeafProgram:
    """A computation on a document's tensors (its leaves: build.make_leaves) traced once:
    `run(doc)` replays it for a document of the same form."""

    def __init__(self, doc, compute, name):
        """Trace `compute(leaves)`, which returns a flat list of tensors (or None) made
        from the leaves; Uncompilable when the trace cannot be replayed."""
        leaves = make_leaves(doc)
        self._places = [_place(doc, key) for key in leaves]
        self._leaf_specs = [(t._value.shape, t._value.dtype) for t in leaves.values()]
        tracer = Tracer(list(leaves.values()))
        with tracer:
            outputs = compute(leaves)
        if tracer.failure is not None:
            raise Uncompilable(tracer.failure)
        if tracer.variables_created:
            raise Uncompilable("the computation makes Variables of its own")
        self._specs = [None if o is None else (o._value.shape, o._value.dtype) for o in outputs]
        self.program = tracer.program(outputs, [None] * len(outputs), name, fuse=False)

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

    def run(self, doc):
        """The outputs' arrays (None where the trace gave None) for `doc`, a document of
        the traced form; None when the program cannot give them (an engine error, an
        output of another shape than traced: compute eagerly then)."""
        args = self._arguments(doc)
        if args is None:
            return None
        try:
            with quiet():
                outputs = self.program.run(args)
        except ENGINE_ERRORS:
            return None
        arrays = []
        for out, spec in zip(outputs, self._specs):
            value = None if out is None else out._value
            if value is not None and (value.shape, value.dtype) != spec:
                return None  # a shape that depends on the values: the trace does not hold
            arrays.append(value)
        return arrays


class DocumentProgram:
    """The traced evaluation of one document form; `evaluate(doc)` replays it."""

    def __init__(self, doc, last=None, doc_form=None):
        """Trace `doc`'s evaluation. `last`: an Evaluation whose checks and plan hold for
        `doc` (evaluate's same_structure_as), or None."""
        self.form = form(doc) if doc_form is None else doc_form
        traced = []

        def evaluation(leaves):
            ev = evaluate(doc, persistent=False, same_structure_as=last, leaves=leaves)
            if ev.errors:
                raise Uncompilable(f"the evaluation stops: {ev.errors[0]}")
            traced.append(ev)
            return [ev.tensors[p] for p in ev.values] + ev._gradient_tensors

        self._leaf_program = LeafProgram(doc, evaluation, "document")
        ev = traced[0]
        self.structure, self.plan = ev.structure, ev.plan
        self._base = list(ev.structure.problems) + list(ev.plan.problems)
        if self._problems(doc, ev) != ev.problems:
            raise Uncompilable("its problems depend on more than the values and gradients")
        self._ports = list(ev.values)
        self._sources = list(ev.gradients)

    @property
    def program(self):
        """The engine's Program (trace_program.Program) replayed."""
        return self._leaf_program.program

    def _problems(self, doc, ev):
        """The problems of evaluation `ev` from its values and gradients: the checks' and
        plan's (the same for every document of this form), then the NaN warnings."""
        problems = list(self._base) + nan_warnings(doc, ev.values)
        if ev.gradients:
            probe = Evaluation(values=ev.values, gradients=ev.gradients, problems=problems)
            problems += gradient_warnings(doc, probe)
        return problems

    def evaluate(self, doc):
        """The Evaluation of `doc` (of this program's form) by a replay; None when the
        program cannot give it (evaluate `doc` eagerly then)."""
        arrays = self._leaf_program.run(doc)
        if arrays is None:
            return None
        n = len(self._ports)
        ev = Evaluation(values=dict(zip(self._ports, arrays[:n])),
                        gradients=dict(zip(self._sources, arrays[n:])),
                        structure=self.structure, plan=self.plan, replayed=True)
        ev.problems = named(self._problems(doc, ev), doc)
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
    """Keeps the programs of the last few forms evaluated: `evaluation(doc)` replays one
    for a document of its form. A form is traced the `trace_at`-th time it is seen (a
    trace costs a few eager evaluations: a form seen once, a structural edit's, is not
    worth one); with `background`, on a thread of its own, so that the caller (the
    window) never waits for a trace: its documents are evaluated eagerly until the
    program is there."""

    KEEP = 4   # programs kept (an undo and a redo alternate between two forms)

    def __init__(self, trace_at=2, background=False):
        self.trace_at = trace_at
        self.background = background
        self.program = None     # the program of the last replay
        self._programs = []     # [DocumentProgram], the most recently used last
        self._seen = []         # [[form, times seen]], the most recent last
        self._refused = []      # [(form, why)] of forms that could not compile
        self._lock = threading.Lock()
        self._tracing = None    # the thread tracing in the background

    def evaluation(self, doc, last=None, same=False):
        """A replayed Evaluation of `doc`, or None: evaluate it eagerly (a form seen fewer
        than `trace_at` times, one that cannot compile or is being traced, a replay that
        cannot finish). `doc` is not changed after (a snapshot), nor is `last`: an
        Evaluation whose checks and plan hold for `doc`, or None. `same`: the caller
        knows `doc` has the form of the last document replayed (a trainer's copy, whose
        numbers alone change)."""
        if not REPLAY:
            return None
        if same and self.program is not None:
            return self.program.evaluate(doc)
        doc_form = form(doc)
        with self._lock:
            program = _take(self._programs, lambda p: same_form(p.form, doc_form))
            if program is None:
                if any(same_form(f, doc_form) for f, _ in self._refused) \
                        or self._sighting(doc_form) < self.trace_at:
                    return None
            else:
                self._keep(program)
        if program is None:
            if self.background:
                if self._tracing is None or not self._tracing.is_alive():
                    self._tracing = threading.Thread(target=self._trace, args=(doc, last, doc_form),
                                                     name="gradviz-trace", daemon=True)
                    self._tracing.start()
                return None
            program = self._trace(doc, last, doc_form)
            if program is None:
                return None
        self.program = program
        return program.evaluate(doc)

    def wait(self, timeout=None):
        """Block until a trace in the background has ended (tests)."""
        if self._tracing is not None:
            self._tracing.join(timeout)

    def _trace(self, doc, last, doc_form):
        try:
            program = DocumentProgram(doc, last, doc_form)
        except Exception as e:  # noqa: BLE001 (any failure: this form is evaluated eagerly)
            why = str(e) if isinstance(e, Uncompilable) else f"the trace failed: {type(e).__name__}: {e}"
            with self._lock:
                self._refused = self._refused[1 - self.KEEP:] + [(doc_form, why)]
            return None
        with self._lock:
            self._keep(program)
        return program

    def _keep(self, program):
        self._programs = self._programs[1 - self.KEEP:] + [program]

    def _sighting(self, doc_form):
        """How many times `doc_form` has been seen, this time included."""
        entry = _take(self._seen, lambda e: same_form(e[0], doc_form)) or [doc_form, 0]
        entry[1] += 1
        self._seen = self._seen[1 - self.KEEP:] + [entry]
        return entry[1]

    @property
    def refusal(self):
        """Why the last form that could not compile could not (None if every one could)."""
        return self._refused[-1][1] if self._refused else None


def _take(items, matches):
    """Remove and return the last item of list `items` that `matches`, or None."""
    for k in range(len(items) - 1, -1, -1):
        if matches(items[k]):
            return items.pop(k)
    return None
