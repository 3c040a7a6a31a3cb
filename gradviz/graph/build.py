"""Turning a document into engine tensors, node by node in topological order.

Shared by validation (no tape) and evaluation (inside real GradientTapes): one code
path, so what validation accepts is exactly what evaluation runs. Before anything
runs, the plan (budget.py) predicts every output shape and refuses what would be too
large or too slow. For every node it notes the tape entries (engine Operations) it
produced, so the internal ops of a layer map back to the node.
"""
import contextlib
from types import SimpleNamespace

import numpy as np

import gradviz as gv

from . import catalog
from .budget import make_plan
from .document import CONSTANT, CUSTOM_GRADIENT, LAYER, VARIABLE, Port
from .errors import ENGINE_ERRORS, DocumentError, Problem
from .inner_pass import InnerPass
from .shape_error import inputs_named
from .structure import analyse, partial_order
from .tensors import dims



def gradient_path(doc):
    """Nodes a backward pass from the targets to the sources goes through."""
    if not doc.targets or not doc.sources:
        return set()
    return (doc.ancestors(p.node for p in doc.targets)
            & doc.descendants(p.node for p in doc.sources))


def running_order(doc, order):
    """`order` with what the targets need first: a heavy part of the graph that no target
    needs cannot use up the budget before the part that computes the gradients."""
    needed = doc.ancestors([p.node for p in doc.targets + doc.sources])
    return [n for n in order if n in needed] + [n for n in order if n not in needed]


def document_plan(doc, skip):
    """The plan (budget.py) of `doc`'s nodes in running order, leaving out `skip`."""
    order, _ = partial_order(doc)
    return make_plan(doc, running_order(doc, order), set(skip), gradient_path(doc))


class Built:
    """The tensors of a document's node outputs and which tape entries each node made."""

    def __init__(self):
        self.tensors = {}      # Port -> Tensor
        self.entries = {}      # node id -> [Operation] recorded on the first tape
        self.inner = {}        # 'gradient' node id -> its inner pass (inner_pass.InnerPass)
        self.problems = []     # plan and engine refusals, each on its node
        self.plan = None       # budget.Plan: predicted shapes and costs


def build(doc, tapes=(), grad_tape=None, grad_watch=(), skip=None, plan=None, leaves=None):
    """Run the document forward. `tapes` are entered tapes (outermost first); `grad_tape`
    answers 'gradient' nodes (None: a zero placeholder with the right shape). `leaves`
    ({Port: Tensor}, see `make_leaves`): the tensors of the constants, Variables and
    layer weights, instead of new ones from the nodes' values (a trace's arguments).

    Nodes in `skip` (default: the nodes with structural problems), on a cycle, refused by
    the plan (shape or budget) or by the engine do not run, nor do the nodes after them;
    everything else does, so one broken node does not hide the rest; but when a node
    breaks a size limit only what the targets need runs. `plan`: the plan
    of a document of the same structure and shapes (it depends on nothing else)."""
    built = Built()
    if plan is None:
        plan = document_plan(doc, analyse(doc).broken if skip is None else skip)
    built.plan = plan
    built.problems = list(plan.problems)
    order = plan.order
    if plan.over_limit:
        # A node over a size limit: only what the targets need runs (`gradviz run` runs
        # nothing). The other nodes before it may hold up to the limit, ~100M values,
        # for no picture the document asks for.
        needed = doc.ancestors([p.node for p in doc.targets])
        order = [nid for nid in order if nid in needed]
    stopped = set(doc.tape.stop_recording)
    main = tapes[0] if tapes else None
    incoming = doc.input_index()
    with quiet():
        for nid in order:
            node = doc.nodes[nid]
            inputs = [built.tensors.get(e.src) for e in incoming[nid]]
            if any(t is None for t in inputs):
                continue  # an input was refused by the engine (reported on its node)
            before = len(main._entries) if main is not None else 0
            try:
                with _paused(tapes if nid in stopped else ()):
                    outs = _run(node, inputs, tapes, grad_tape, nid in grad_watch, leaves, built.inner)
            except DocumentError as e:
                built.problems.append(e.problem)
                continue
            except ENGINE_ERRORS as e:
                built.problems.append(_refusal(e, doc, node, incoming[nid], inputs))
                continue
            if main is not None:
                built.entries[nid] = main._entries[before:]
            for i, t in enumerate(outs):
                built.tensors[Port(nid, i)] = t
    return built


def quiet():
    """No numpy warnings on stderr: a NaN or infinity is reported on its node instead.
    numpy's error state is this thread's own, where a warnings filter would be the whole
    process's (warnings.catch_warnings is not thread-safe: two threads leaving it out of
    order leave one's filter in place for good)."""
    return np.errstate(all="ignore")


def one_line(e):
    """An engine refusal as one line of words."""
    return " ".join(str(e).split())[:300] or type(e).__name__


def _refusal(e, doc, node, edges, inputs):
    """The engine's refusal `e` to run `node` as a Problem, its words (`refused`) said anew
    for a document that renames a node since (Problem.words): it keeps the refusal's text
    and the inputs' dtypes and shapes, not the tensors."""
    said = one_line(e)
    seen = [SimpleNamespace(dtype=t.dtype, shape=tuple(t.shape)) for t in inputs]

    def words(now):
        return refused(said, now, node, edges, seen), refused(said, now, node, edges, seen, True)
    message, brief = words(doc)
    return Problem(message, node=node.id, brief=brief, words=words)


def refused(e, doc, node, edges, inputs, short=False):
    """The engine's refusal to run `node`, after its inputs named by the nodes that feed
    them (the user's names and their ports' letters, as a shape error names them) with their
    dtypes and shapes: 'x (operand a) is float32 (2, 3), w (operand b) is float64 (2, 3):
    inputs must have the same dtype: got float32 and float64 ...'. The engine knows the inputs only as 'x' or 'a'
    or by their dtypes, and the reader must know which node is which to cast or reshape it;
    the names lead, as a card's problem line shows its first lines only. `short`: for a
    card drawn compact, 'x (c) float32 2×3, w (d) float64 2×3: inputs must have …'."""
    if not edges:
        return one_line(e)
    names = inputs_named(catalog.with_defaults(node), doc, edges, short=short)
    seen = ", ".join(f"{name} {t.dtype.name} {dims(t.shape)}" if short
                     else f"{name} is {t.dtype.name} {tuple(t.shape)}" for name, t in zip(names, inputs))
    return f"{seen}: {one_line(e)}"


@contextlib.contextmanager
def _paused(tapes):
    with contextlib.ExitStack() as stack:
        for t in tapes:
            if t._is_recording:
                stack.enter_context(t.stop_recording())
        yield


def _watch(tensor, tapes):
    for t in tapes:
        t.watch(tensor)


def seed_key(port):
    """The key of target `port`'s seed (its output_gradients) among the leaves."""
    return ("seed", port)


def make_leaves(doc):
    """{Port: Tensor}: a new tensor for every constant, Variable and layer weight of `doc`,
    made as `build` makes them from the nodes' values; and under `seed_key(target)` each
    seed of output_gradients, as `evaluate` makes it."""
    leaves = {seed_key(p): gv.constant(g) for p, g in doc.output_gradients.items()}
    for node in doc.nodes.values():
        if node.kind == CONSTANT:
            leaves[Port(node.id)] = _new_constant(node)
        elif node.kind == VARIABLE:
            leaves[Port(node.id)] = _new_variable(node)
        elif node.kind == LAYER:
            names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
            for i, name in enumerate(names):
                leaves[Port(node.id, i + 1)] = _new_weight(node, name)
    return leaves


def _new_constant(node):
    return gv.constant(node.value.copy())


def _new_variable(node):
    return gv.Variable(node.value.copy(), trainable=node.trainable, name=node.id)


def _new_weight(node, name):
    """A layer's weight as the Variable Keras makes (moving statistics are not trained)."""
    trainable = node.trainable and not name.startswith("moving_")
    return gv.Variable(node.weights[name].copy(), trainable=trainable, name=f"{node.id}/{name}")


def _run(node, inputs, tapes, grad_tape, grad_watched, leaves, inner):
    if node.kind not in (CONSTANT, VARIABLE):
        node = catalog.with_defaults(node)
    if node.kind == CONSTANT:
        t = leaves[Port(node.id)] if leaves is not None else _new_constant(node)
        if node.watched:
            _watch(t, tapes)
        if grad_watched and grad_tape is not None:
            grad_tape.watch(t)
        return [t]
    if node.kind == VARIABLE:
        v = leaves[Port(node.id)] if leaves is not None else _new_variable(node)
        if node.watched:
            _watch(v, tapes)
        if grad_watched and grad_tape is not None:
            grad_tape.watch(v)
        return [v]
    if node.kind == LAYER:
        return _layer(node, inputs[0], tapes, leaves)
    if node.kind == CUSTOM_GRADIENT:
        return [_custom(node, inputs[0])]
    if node.op == "gradient":
        return [_gradient(node, inputs, grad_tape, tapes, inner)]
    out = catalog.OPS[node.op].call(inputs, node.attrs)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _gradient(node, inputs, grad_tape, tapes, inner):
    target, source = inputs
    if grad_tape is None:
        return gv.zeros_like(source)
    recording = tapes[0] if tapes and tapes[0]._is_recording else None
    # The story names the ops the outer tape records here by what they compute (inner_pass)
    observer = inner[node.id] = InnerPass(recording, target) if recording is not None else None
    g = grad_tape.gradient(target, source, observer=observer)
    if g is None:
        raise DocumentError("the gradient is None: the target does not depend on the source "
                            "through recorded ops (is the source watched?)", node=node.id, where="gradient")
    return g


def _layer(node, x, tapes, leaves):
    spec = catalog.LAYERS[node.op]
    a = node.attrs
    names = spec.weight_names(a)
    variables = [leaves[Port(node.id, i + 1)] if leaves is not None else _new_weight(node, name)
                 for i, name in enumerate(names)]
    if node.op in ("Dense", "Conv2D"):
        act = None if a["activation"] == "linear" else a["activation"]
        if node.op == "Dense":
            layer = gv.keras.layers.Dense(a["units"], activation=act, use_bias=a["use_bias"],
                                          name=node.id)
        else:
            layer = gv.keras.layers.Conv2D(
                a["filters"], a["kernel_size"], strides=a["strides"], padding=a["padding"],
                dilation_rate=a["dilation_rate"], activation=act, use_bias=a["use_bias"],
                name=node.id)
        layer.kernel = variables[0]
        layer.bias = variables[1] if a["use_bias"] else None
    elif node.op == "Flatten":
        layer = gv.keras.layers.Flatten(name=node.id)
    elif node.op == "BatchNormalization":
        layer = gv.keras.layers.BatchNormalization(epsilon=a["epsilon"], momentum=a["momentum"],
                                                   name=node.id)
        layer.gamma, layer.beta, layer.moving_mean, layer.moving_variance = variables
    elif node.op == "LayerNormalization":
        layer = gv.keras.layers.LayerNormalization(epsilon=a["epsilon"], center=a["center"],
                                                   scale=a["scale"], name=node.id)
        named = dict(zip(spec.weight_names(a), variables))
        layer.gamma, layer.beta = named.get("gamma"), named.get("beta")
    else:
        layer = gv.keras.layers.Embedding(a["input_dim"], a["output_dim"], name=node.id)
        layer.embeddings = variables[0]
    layer._variables = variables
    layer.built = True
    if node.watched:
        for v in variables:
            _watch(v, tapes)
    y = layer(x, training=a["training"]) if node.op == "BatchNormalization" else layer(x)
    return [y] + variables


def _custom(node, x):
    rule = catalog.CUSTOM_RULES[node.op][2]
    attrs = node.attrs

    @gv.custom_gradient
    def custom(y):
        def backward(dy):
            return rule(dy, attrs)
        return gv.identity(y), backward

    custom.__name__ = node.op
    return custom(x)
