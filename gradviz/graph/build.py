"""Turning a document into engine tensors, node by node in topological order.

Shared by shape inference (no tape) and evaluation (inside real GradientTapes):
one code path, so what validation accepts is exactly what evaluation runs. For
every node it notes the tape entries (engine Operations) it produced, so the
internal ops of a layer map back to the node.
"""
import contextlib
import copy
import math

import numpy as np

import gradviz as gv

from . import catalog
from .document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Port
from .errors import DocumentError, Problem
from .tensors import MAX_ELEMENTS

ENGINE_ERRORS = (ValueError, TypeError, IndexError, LookupError, RuntimeError, ArithmeticError,
                 np.linalg.LinAlgError)


def n_outputs(node):
    """How many output ports a node has (a layer: its output, then its weights)."""
    if node.kind == OP:
        return catalog.OPS[node.op].outputs(catalog.full_attrs(node))
    if node.kind == LAYER:
        return 1 + len(catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node)))
    return 1


def input_slots(node):
    """(fixed number of inputs, variadic?) for a node."""
    if node.kind == OP:
        spec = catalog.OPS[node.op]
        return len(spec.inputs), spec.variadic
    if node.kind in (LAYER, CUSTOM_GRADIENT):
        return 1, False
    return 0, False


def topological_order(doc):
    """Node ids, each after its inputs; raises DocumentError naming a node on a cycle."""
    indegree = {nid: 0 for nid in doc.nodes}
    consumers = {nid: [] for nid in doc.nodes}
    for e in doc.edges:
        if e.src.node in doc.nodes and e.dst.node in doc.nodes:
            indegree[e.dst.node] += 1
            consumers[e.src.node].append(e.dst.node)
    ready = [nid for nid, d in indegree.items() if d == 0]
    order = []
    while ready:
        nid = ready.pop(0)
        order.append(nid)
        for c in consumers[nid]:
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    if len(order) < len(doc.nodes):
        stuck = [nid for nid in doc.nodes if indegree[nid] > 0]
        raise DocumentError(f"the graph has a cycle through {', '.join(stuck[:6])}",
                            node=stuck[0])
    return order


class Built:
    """The tensors of a document's node outputs and which tape entries each node made."""

    def __init__(self):
        self.tensors = {}      # Port -> Tensor
        self.entries = {}      # node id -> [Operation] recorded on the first tape
        self.problems = []


def build(doc, tapes=(), grad_tape=None, grad_watch=()):
    """Run the document forward. `tapes` are entered tapes (outermost first); `grad_tape`
    answers 'gradient' nodes (None: a zero placeholder with the right shape)."""
    built = Built()
    order = topological_order(doc)
    stopped = set(doc.tape.stop_recording)
    main = tapes[0] if tapes else None
    for nid in order:
        node = doc.nodes[nid]
        inputs = []
        for e in doc.inputs_of(nid):
            t = built.tensors.get(e.src)
            if t is None:
                break
            inputs.append(t)
        else:
            before = len(main._entries) if main is not None else 0
            try:
                with _paused(tapes if nid in stopped else ()):
                    outs = _run(node, inputs, tapes, grad_tape, nid in grad_watch)
            except DocumentError as e:
                built.problems.append(e.problem)
                continue
            except ENGINE_ERRORS as e:
                built.problems.append(Problem(_one_line(e), node=nid))
                continue
            if main is not None:
                built.entries[nid] = main._entries[before:]
            for i, t in enumerate(outs):
                built.tensors[Port(nid, i)] = t
    return built


def _one_line(e):
    return " ".join(str(e).split())[:300] or type(e).__name__


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


def _run(node, inputs, tapes, grad_tape, grad_watched):
    if node.kind not in (CONSTANT, VARIABLE):
        node = _with_defaults(node)
    if node.kind == CONSTANT:
        t = gv.constant(node.value.copy())
        if node.watched:
            _watch(t, tapes)
        if grad_watched and grad_tape is not None:
            grad_tape.watch(t)
        return [t]
    if node.kind == VARIABLE:
        v = gv.Variable(node.value.copy(), trainable=node.trainable, name=node.id)
        if node.watched:
            _watch(v, tapes)
        if grad_watched and grad_tape is not None:
            grad_tape.watch(v)
        return [v]
    if node.kind == LAYER:
        return _layer(node, inputs[0], tapes)
    if node.kind == CUSTOM_GRADIENT:
        return [_custom(node, inputs[0])]
    spec = catalog.OPS[node.op]
    guard(node, spec, [tuple(t.shape) for t in inputs])
    if node.op == "gradient":
        return [_gradient(node, inputs, grad_tape)]
    out = spec.call(inputs, node.attrs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    for t in outs:
        if t.size > MAX_ELEMENTS:
            raise DocumentError(f"the output has {t.size} elements, more than the limit",
                                node=node.id)
    return outs


def _with_defaults(node):
    """A view of the node whose attrs include the defaults (nodes made in code may omit them)."""
    view = copy.copy(node)
    view.attrs = catalog.full_attrs(node)
    return view


def _gradient(node, inputs, grad_tape):
    target, source = inputs
    if grad_tape is None:
        return gv.zeros_like(source)
    g = grad_tape.gradient(target, source)
    if g is None:
        raise DocumentError("the gradient is None: the target does not depend on the source "
                            "through recorded ops (is the source watched?)", node=node.id)
    return g


def _layer(node, x, tapes):
    spec = catalog.LAYERS[node.op]
    a = node.attrs
    expected = spec.weight_shapes(a, tuple(x.shape))
    if expected is None:
        raise DocumentError(f"{node.op} needs an input with at least one axis", node=node.id)
    variables = []
    for name in spec.weight_names(a):
        w = node.weights[name]
        if tuple(w.shape) != expected[name]:
            raise DocumentError(f"weight {name!r} has shape {list(w.shape)}, an input of shape "
                                f"{list(x.shape)} needs {list(expected[name])}", node=node.id)
        trainable = node.trainable and not name.startswith("moving_")
        variables.append(gv.Variable(w.copy(), trainable=trainable, name=f"{node.id}/{name}"))
    if node.op == "Dense":
        if a["activation"] not in catalog.ACTIVATIONS:
            raise DocumentError(f"unknown activation {a['activation']!r}"[:200], node=node.id)
        act = None if a["activation"] == "linear" else a["activation"]
        layer = gv.keras.layers.Dense(a["units"], activation=act, use_bias=a["use_bias"],
                                      name=node.id)
        layer.kernel = variables[0]
        layer.bias = variables[1] if a["use_bias"] else None
    else:
        layer = gv.keras.layers.BatchNormalization(epsilon=a["epsilon"], momentum=a["momentum"],
                                                   name=node.id)
        layer.gamma, layer.beta, layer.moving_mean, layer.moving_variance = variables
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


def guard(node, spec, shapes):
    """Refuse an op whose output would exceed the size limit, before it is allocated."""
    a = node.attrs
    size = None
    try:
        if spec.group == "math" and len(shapes) == 2:
            size = math.prod(np.broadcast_shapes(*shapes))
        elif node.op == "matmul" and all(len(s) >= 2 for s in shapes):
            m = shapes[0][-1] if a["transpose_a"] else shapes[0][-2]
            n = shapes[1][-2] if a["transpose_b"] else shapes[1][-1]
            batch = np.broadcast_shapes(shapes[0][:-2], shapes[1][:-2])
            size = math.prod(batch) * m * n
        elif node.op == "broadcast_to":
            size = math.prod(a["shape"])
        elif node.op == "tile":
            size = math.prod(shapes[0]) * math.prod(a["multiples"])
        elif node.op == "pad":
            size = math.prod(d + sum(p) for d, p in zip(shapes[0], a["paddings"]))
        elif node.op in ("concat", "stack", "add_n"):
            size = sum(math.prod(s) for s in shapes)
        elif node.op == "einsum":
            size = _einsum_size(a["equation"], shapes)
    except (ValueError, IndexError, TypeError, OverflowError):
        return  # the engine reports the real problem
    if size is not None and size > MAX_ELEMENTS:
        raise DocumentError(f"the output would have {size} elements, more than the limit of "
                            f"{MAX_ELEMENTS}", node=node.id)


def _einsum_size(equation, shapes):
    if "->" not in equation:
        return None
    ins, out = equation.replace(" ", "").split("->")
    sizes = {}
    for letters, shape in zip(ins.split(","), shapes):
        for c, d in zip(letters, shape):
            sizes[c] = max(sizes.get(c, 1), d)
    return math.prod(sizes.get(c, 1) for c in out)
