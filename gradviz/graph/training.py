"""Training a document: an optimizer updates the document's Variables, step by step.

The loss is what the tape differentiates: the target's elements summed (weighted by the
document's output_gradients where it gives them, Σ seed·target), summed over the
targets. The parameters are the sources that are Variables (a Variable node, or a
layer's weight port), or the Variables the caller chooses. Every step evaluates the
document through the engine exactly as `evaluate` does, so each gradient is the
tape's; Newton's Hessian comes from nested tapes, as in seed 001.
"""
import dataclasses

import numpy as np

import gradviz as gv

from ..engine.interrupt import checkpoints
# OPTIMIZERS, hyper_parameters, make_optimizer and default_origin are offered here too
# (the CLI, the dock).
from ..engine.optimizers import (OPTIMIZERS, SGD, Adam, Newton, RMSprop, default_origin,
                                 hessian_matrix, hyper_parameters, make_optimizer,
                                 optimizer_kind)
from . import catalog
from . import compiled
from .build import one_line, quiet
from .compiled import LeafProgram, Replayer, Uncompilable
from .document import LAYER, VARIABLE, Port
from .errors import ENGINE_ERRORS, DocumentError
from .evaluate import _built, _tapes, evaluate, seeds_of
from .names import objective_name, objective_note, port_names
from .ports import parse_port, port_text
from .structure import analyse

# Newton solves an n x n system over all parameters each step: for small problems only.
NEWTON_LIMIT = 1000
# The path (every parameter entry at each step) is kept for up to this many entries, at
# up to PATH_POINTS steps (every stride-th step and the last; the stride doubles as a run grows).
PATH_LIMIT = 4096
PATH_POINTS = 2000


def update_rule(optimizer, number=lambda x: f"{x:g}"):
    """The update `optimizer` makes, with its numbers written by `number` (the app passes
    the cards' notation, which this layer may not import), as true as it is written (t
    counts the steps from 1; every operation is element-wise but Newton's)."""
    c = optimizer.get_config()
    lr = f"η = {number(c['learning_rate'])}"
    if isinstance(optimizer, SGD):
        mu = c["momentum"]
        if not mu:
            return f"w ← w − η·g   ({lr})"
        last = "w ← w + μ·v − η·g" if c["nesterov"] else "w ← w + v"
        return f"v ← μ·v − η·g;   {last}   ({lr}, μ = {number(mu)}, v starts at 0)"
    if isinstance(optimizer, RMSprop):
        lines = [f"s ← ρ·s + (1 − ρ)·g²"]
        if c["centered"]:
            lines.append("ḡ ← ρ·ḡ + (1 − ρ)·g")
            step = "η·g / √(s − ḡ² + ε)"
        else:
            step = "η·g / √(s + ε)"
        if c["momentum"]:
            lines += [f"m ← μ·m + {step}", "w ← w − m"]
        else:
            lines.append(f"w ← w − {step}")
        return ";   ".join(lines) + (f"   ({lr}, ρ = {number(c['rho'])}, ε = {number(c['epsilon'])}"
                                     + (f", μ = {number(c['momentum'])}" if c["momentum"] else "")
                                     + ", s starts at 0)")
    if isinstance(optimizer, Adam):
        v = "vmax ← max(vmax, v);   " if c["amsgrad"] else ""
        root = "√vmax" if c["amsgrad"] else "√v"
        return (f"m ← β₁·m + (1 − β₁)·g;   v ← β₂·v + (1 − β₂)·g²;   {v}"
                f"w ← w − η·√(1 − β₂ᵗ)/(1 − β₁ᵗ) · m / ({root} + ε)   "
                f"({lr}, β₁ = {number(c['beta_1'])}, β₂ = {number(c['beta_2'])}, ε = {number(c['epsilon'])}, "
                "m and v start at 0)")
    return (f"w ← w − η·(H + λI)⁻¹ g, with g and H over all trained parameters as one vector   "
            f"({lr}, λ = {number(c['damping'])})")


# -- the document's parameters ------------------------------------------------------------

def is_variable_port(doc, port):
    node = doc.nodes.get(port.node)
    if node is None:
        return False
    if node.kind == VARIABLE:
        return port.index == 0
    return node.kind == LAYER and 1 <= port.index <= len(_weight_names(node))


def _weight_names(node):
    return catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))


def trainable_parameters(doc):
    """The sources that are Variables: what training updates unless told otherwise."""
    return [p for p in doc.sources if is_variable_port(doc, p)]


def variable_ports(doc):
    """Every Variable port of the document: what a user may choose to train."""
    ports = []
    for node in doc.nodes.values():
        if node.kind == VARIABLE:
            ports.append(Port(node.id))
        elif node.kind == LAYER:
            ports += [Port(node.id, i + 1) for i in range(len(_weight_names(node)))]
    return ports


def named_parameters(doc, texts):
    """The Variable ports `texts` name: each by its reader's name, as every list shows it
    ('W1', 'layer1.kernel', 'x_1' for the second of two x), or by its internal id ('w2',
    'layer1:1') when that is no other Variable's name. A DocumentError in words otherwise."""
    ports = variable_ports(doc)
    names = port_names(doc, ports)
    by_name = {name: port for port, name in names.items()}
    listing = ", ".join(names.values()) or "none"
    chosen = []
    for text in texts:
        port = by_name.get(text)
        try:
            by_id = parse_port(text, "--param")
        except DocumentError:
            by_id = None
        if port is not None and by_id in names and by_id != port:
            node = doc.nodes[port.node]
            raise DocumentError(f"'{text}' names the Variable labelled {text} (id {node.id}) and "
                                f"is the id of {names[by_id]}: choose by a name that is one "
                                f"Variable's (the Variables: {listing})", where="--param")
        port = port if port is not None else by_id if by_id in names else None
        if port is None:
            raise DocumentError(f"'{text}' is not a Variable, so it cannot be trained (the "
                                f"Variables: {listing})", where="--param")
        chosen.append(port)
    return chosen


def port_value(doc, port):
    """The stored value of a Variable port (a Variable node's value, a layer's weight)."""
    node = doc.nodes[port.node]
    if node.kind == VARIABLE:
        return node.value
    return node.weights.get(_weight_names(node)[port.index - 1])


def loss_graph(doc, parameters):
    """The part of `doc` the loss is computed from (the nodes its targets depend on, and
    the `parameters`' nodes) with `parameters` as its sources: what training and the
    landscape evaluate. A node the loss does not depend on (a stray matmul with no
    inputs) neither stops them nor costs a step anything, as it does not stop the story."""
    keep = doc.ancestors([p.node for p in doc.targets]) | {p.node for p in parameters}
    nodes = {nid: node for nid, node in doc.nodes.items() if nid in keep}
    edges = [e for e in doc.edges if e.src.node in nodes and e.dst.node in nodes]
    tape = dataclasses.replace(doc.tape, stop_recording=[
        nid for nid in doc.tape.stop_recording if nid in nodes])
    return dataclasses.replace(doc, nodes=nodes, edges=edges, sources=list(parameters),
                               tape=tape, studies={})


def with_values(doc, values):
    """A copy of `doc` whose Variable ports hold `values` ({Port: ndarray}); `doc` and its
    nodes are left as they are."""
    nodes = dict(doc.nodes)
    for port in values:
        node = nodes[port.node]
        if node is doc.nodes[port.node]:
            nodes[port.node] = dataclasses.replace(node, weights=dict(node.weights))
    copy = dataclasses.replace(doc, nodes=nodes)
    store_values(copy, values)
    return copy


def store_values(doc, values):
    """Put `values` ({Port: array}) into `doc`'s Variable ports, each as a new array of the
    port's dtype (a tensor is replaced, never written into: undo snapshots share them)."""
    for port, value in values.items():
        node = doc.nodes[port.node]
        if node.kind == VARIABLE:
            node.value = np.array(value, dtype=node.value.dtype)
        else:
            name = _weight_names(node)[port.index - 1]
            node.weights[name] = np.array(value, dtype=node.weights[name].dtype)


def loss_of(doc, values):
    """The scalar the tape differentiates, in float64: Σ over targets of Σ seed·target."""
    total = 0.0
    for p in doc.targets:
        v = np.asarray(values[p], np.float64)
        seed = doc.output_gradients.get(p)
        total += float(np.sum(v if seed is None else np.asarray(seed, np.float64) * v))
    return total


def loss_name(doc, values=None):
    """The loss as the cards name what the tape differentiates (graph.names.objective_name):
    'loss' for a scalar target, 'Σy' for one the tape sums, '❬v, y❭' with output_gradients
    v, several added ('' without a target)."""
    return objective_name(doc, values)


def loss_text(doc, values=None):
    """What training minimises, in words with the user's names: 'minimising loss' for a
    scalar target, 'minimising Σy (Σy: the sum of y's elements, …)' for one the tape sums,
    '❬v, y❭ (❬v, y❭ = Σ v·y, where v is the output_gradients …)' with a seed. `values`
    ({Port: array}) tell a scalar target from one that is summed."""
    name = objective_name(doc, values)
    if not name:
        return "no target: mark one in the inspector"
    note = objective_note(doc, values)
    return f"minimising {name}" + (f" ({note})" if note else "")


# -- the run --------------------------------------------------------------------------------

@dataclasses.dataclass
class TrainStep:
    index: int                  # 1 for the first update
    loss: float                 # at the parameters before this update
    loss_after: float           # at the parameters after it
    gradient_norms: list        # ‖g‖ per parameter, in the trainer's order
    update_norms: list          # ‖w_after − w_before‖ per parameter


@dataclasses.dataclass
class Update:
    """The numbers of one step, per parameter (in the trainer's order): what the update
    card writes out. `slots_*` are the optimizer's state (velocity, m, v ...) before and
    after; `t` counts the optimizer's steps from 1."""

    index: int
    t: int
    before: list
    gradients: list
    after: list
    slots_before: list
    slots_after: list


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """A Trainer's state after `steps` updates (Trainer.checkpoint)."""

    steps: int
    values: list
    optimizer: tuple
    history: list
    last_update: object
    path: list
    stride: int


class Trainer:
    """Runs an optimizer on a private copy of a document; the caller's document is never
    changed (`values()` and `document()` give the trained numbers)."""

    def __init__(self, doc, optimizer, parameters=None):
        self.parameters = list(trainable_parameters(doc) if parameters is None else parameters)
        if not doc.targets:
            raise DocumentError("the document has no target: nothing to minimise", where="training")
        if not self.parameters:
            raise DocumentError("no source is a Variable, so there is nothing to train (a "
                                "constant is not trained): make a source a Variable",
                                where="training")
        shown = port_names(doc, self.parameters)      # the reader's names, not the ids
        for p in self.parameters:
            if not is_variable_port(doc, p):
                raise DocumentError(f"'{shown[p]}' is not a Variable, so it cannot be trained",
                                    where="training")
            if port_value(doc, p) is None or np.asarray(port_value(doc, p)).dtype.kind != "f":
                raise DocumentError(f"'{shown[p]}' has no floating-point value to train",
                                    where="training")
        size = sum(int(np.size(port_value(doc, p))) for p in self.parameters)
        if isinstance(optimizer, Newton) and size > NEWTON_LIMIT:
            raise DocumentError(f"Newton's step solves a system over all {size:,} parameters; "
                                f"it is offered up to {NEWTON_LIMIT:,}: choose fewer parameters "
                                "or a gradient method", where="training")
        if int(optimizer.iterations._value):
            raise ValueError(f"a Trainer needs an optimizer that has taken no step (this one took "
                             f"{int(optimizer.iterations._value)}): its t and slots would go on "
                             "from another run; use fresh_optimizer")
        self.original = doc
        self.optimizer = optimizer
        self.doc = with_values(loss_graph(doc, self.parameters),
                               {p: port_value(doc, p) for p in self.parameters})
        self.variables = [gv.Variable(np.array(port_value(doc, p)), name=port_text(p))
                          for p in self.parameters]
        self.history = []
        self.last_update = None     # Update of the last step
        self.evaluation = None
        self._replayer = Replayer()
        self._newton = None        # _NewtonProgram, or False when it cannot be traced
        self._newton_calls = 0
        size = sum(v._value.size for v in self.variables)
        self.path = [] if size <= PATH_LIMIT else None   # [(step, {Port: ndarray})]
        self._stride = 1
        self._evaluate()
        self._remember(0)
        unconnected = [shown[p] for p in self.parameters if self.gradient(p) is None]
        if unconnected:
            raise DocumentError(f"the loss does not depend on {', '.join(unconnected)} through "
                                "recorded ops (its gradient is None): choose parameters the "
                                "target depends on", where="training")

    @property
    def loss(self):
        """The loss at the current parameters."""
        return loss_of(self.doc, self.evaluation.values)

    @property
    def losses(self):
        """The loss before the first step and after each step."""
        return self.losses_of(list(self.history))

    def losses_of(self, history):
        """`losses` up to the end of `history`, a copy of `self.history` taken while a
        worker may still be adding to it (the curves then agree with their records)."""
        return [history[0].loss] + [s.loss_after for s in history] if history else [self.loss]

    def gradient(self, port):
        return self.evaluation.gradients.get(port)

    def values(self):
        """{Port: ndarray}: the parameters' current values."""
        return {p: np.array(v._value) for p, v in zip(self.parameters, self.variables)}

    def document(self):
        """The original document with the trained values."""
        return with_values(self.original, self.values())

    def step(self):
        """One update of every parameter; returns its TrainStep. A step is whole or not at
        all: the engine's checkpoints (where a cancelled worker stops) are off inside it,
        else the Variables would be updated and the history not; `run` stops between steps."""
        with checkpoints(None):
            return self._step()

    def _step(self):
        before = [v._value for v in self.variables]
        loss = self.loss
        grads = [self.gradient(p) for p in self.parameters]
        slots_before = [self._slots(v) for v in self.variables]
        try:
            with quiet():
                if isinstance(self.optimizer, Newton):
                    self.optimizer.apply_hessian(*self._newton_terms(), self.variables)
                else:
                    self.optimizer.apply_gradients(zip(grads, self.variables))
        except ENGINE_ERRORS as e:
            raise DocumentError(one_line(e), where=f"training step {len(self.history) + 1}") from None
        store_values(self.doc, {p: v._value for p, v in zip(self.parameters, self.variables)})
        self._evaluate()
        record = TrainStep(len(self.history) + 1, loss, self.loss,
                           [_norm(g) for g in grads],
                           [_norm(v._value.astype(np.float64) - b) for v, b in zip(self.variables, before)])
        self.history.append(record)
        self._remember(record.index)
        self.last_update = Update(record.index, int(self.optimizer.iterations._value), before,
                                  grads, [v._value for v in self.variables], slots_before,
                                  [self._slots(v) for v in self.variables])
        return record

    def replay(self, step):
        """({Port: value before update `step`}, that step's Update), `step` counting from 1:
        the run computed again from the original document by a fresh optimizer of the same
        configuration (the same code, so the same numbers; the run keeps only its last
        Update). Costs `step` steps."""
        if not 1 <= step <= len(self.history):
            raise ValueError(f"step {step} is not in this run (it has {len(self.history)})")
        last = self.last_update
        if last is not None and step == last.index:
            return {p: np.array(v) for p, v in zip(self.parameters, last.before)}, last
        twin = Trainer(self.original, fresh_optimizer(self.optimizer), self.parameters)
        twin.run(step - 1)
        before = twin.values()
        twin.step()
        return before, twin.last_update

    def checkpoint(self):
        """Where the run is now, to come back to with `rewind` (the app's Undo of a later
        run): the parameters, the optimizer's state, the records and the path. An update
        replaces arrays, never writes into them, so they are shared, not copied."""
        return Checkpoint(len(self.history), [v._value for v in self.variables],
                          self.optimizer.state(), list(self.history), self.last_update,
                          list(self.path) if self.path is not None else None, self._stride)

    def rewind(self, checkpoint):
        """Put the run back to `checkpoint` (earlier or later than now): the next step is
        the one that followed it, with the numbers it had."""
        for variable, value in zip(self.variables, checkpoint.values):
            variable.assign(value)
        self.optimizer.set_state(checkpoint.optimizer)
        self.history = list(checkpoint.history)
        self.last_update = checkpoint.last_update
        self.path = list(checkpoint.path) if checkpoint.path is not None else None
        self._stride = checkpoint.stride
        store_values(self.doc, {p: v._value for p, v in zip(self.parameters, self.variables)})
        self._evaluate()

    def run(self, steps, should_stop=None, on_step=None):
        """Up to `steps` updates; stops early when `should_stop()` says so. `on_step(record)`
        hears each one. Returns the records of this run."""
        records = []
        for _ in range(int(steps)):
            if should_stop is not None and should_stop():
                break
            records.append(self.step())
            if on_step is not None:
                on_step(records[-1])
        return records

    # -- internals ------------------------------------------------------------------------
    def _slots(self, variable):
        slots = getattr(self.optimizer, "slots", None)
        return slots(variable) if slots is not None else {}

    def _remember(self, step):
        """Every stride-th step into the path, and always the newest: a run's export and
        its landscape path end where the run is (a run of 2003 steps ended at 2002)."""
        if self.path is None:
            return
        if self.path and self.path[-1][0] % self._stride:
            self.path.pop()                # the newest before, off the stride
        self.path.append((step, self.values()))
        if len(self.path) > PATH_POINTS:
            self._stride *= 2
            self.path = [entry for entry in self.path[:-1] if entry[0] % self._stride == 0] \
                + self.path[-1:]

    def _evaluate(self):
        """Values and gradients at the current parameters; only numbers changed since the
        last evaluation, so from the second on they replay its compiled program (eagerly
        when the program cannot run: its checks and plan are reused then)."""
        ev = self._replayer.evaluation(self.doc, self.evaluation, same=True)
        if ev is None:
            ev = evaluate(self.doc, persistent=False, same_structure_as=self.evaluation)
        if ev.errors:
            raise DocumentError.from_problem(ev.errors[0])
        self.evaluation = ev

    def _newton_terms(self):
        """The gradients and Hessian of Newton's step: from the second step on the nested
        tapes' computation is replayed from its trace (eagerly when it cannot be)."""
        self._newton_calls += 1
        if self._newton is None and self._newton_calls >= 2 and compiled.REPLAY:
            try:
                self._newton = _NewtonProgram(self.doc, self.parameters)
            except (Uncompilable, DocumentError) + ENGINE_ERRORS:
                self._newton = False
        replayed = self._newton.terms(self.doc) if self._newton and compiled.REPLAY else None
        return replayed if replayed is not None else gradient_and_hessian(self.doc, self.parameters)


def same_optimizer(a, b):
    """Whether optimizers `a` and `b` are of one kind with the same hyper-parameters (their
    states aside): a run with `b` may go on from `a`'s state."""
    return type(a) is type(b) and a.get_config() == b.get_config()


def fresh_optimizer(optimizer):
    """An optimizer of the same kind and hyper-parameters, with no state (no steps taken)."""
    name = optimizer_kind(optimizer)
    config = optimizer.get_config()
    return make_optimizer(name, **{k: config[k] for k in hyper_parameters(name)})


def gradient_and_hessian(doc, parameters):
    """The loss's gradients (one per parameter) and its Hessian over the parameters
    flattened into one vector, from nested tapes as seed 001 builds them."""
    grads, blocks = _gradient_and_blocks(doc, parameters)
    return grads, hessian_matrix(blocks, [port_value(doc, p) for p in parameters])


def _gradient_and_blocks(doc, parameters, leaves=None):
    """The gradient tensors and the Jacobian blocks d g_i / d w_j of them (nested tapes);
    `leaves`: build.make_leaves' tensors (a trace's arguments), else new ones."""
    structure = analyse(doc)
    with _tapes(doc, 2) as (tapes, helper):
        built = _built(doc, tapes, helper, structure.broken, leaves=leaves)
        missing = [p for p in list(parameters) + list(doc.targets) if p not in built.tensors]
        if missing:
            raise DocumentError(f"'{catalog.port_name(doc, missing[0])}' has no value", where="hessian")
        sources = [built.tensors[p] for p in parameters]
        targets = [built.tensors[p] for p in doc.targets]
        grads = tapes[1].gradient(targets, sources, output_gradients=seeds_of(doc, targets, leaves),
                                  unconnected_gradients="zero")
    blocks = tapes[0].jacobian(grads, sources, unconnected_gradients="zero")
    return grads, blocks


class _NewtonProgram:
    """gradient_and_hessian traced once (compiled.LeafProgram) for a trainer's document,
    whose numbers alone change: `terms(doc)` replays it (None: compute eagerly)."""

    def __init__(self, doc, parameters):
        self.n = len(parameters)

        def terms(leaves):
            grads, blocks = _gradient_and_blocks(doc, parameters, leaves)
            return list(grads) + [b for row in blocks for b in row]

        self.program = LeafProgram(doc, terms, "newton")
        self.parameters = parameters

    def terms(self, doc):
        arrays = self.program.run(doc)
        if arrays is None:
            return None
        n = self.n
        blocks = [arrays[n + i * n:n + (i + 1) * n] for i in range(n)]
        return arrays[:n], hessian_matrix(blocks, [port_value(doc, p) for p in self.parameters])


def _norm(array):
    return 0.0 if array is None else float(np.linalg.norm(np.asarray(array, np.float64)))
