"""Why a source the canvas joins to a target gets None: the ops on its paths that pass no
gradient back.

TF returns None for a source when no recorded op with a gradient leads from the target to
it. On the canvas that happens in two ways: no edge path joins them (a real disconnection),
or every path passes a node that cuts the gradient: an op TF declares not differentiable
(argmax, argmin, a comparison, tf.stop_gradient), a node whose output is an integer or
boolean tensor made from floating inputs (a cast to int; TF does not differentiate through
integer tensors), or a node run inside tape.stop_recording(). `cut_reason` says which node
and why, in the reader's names, so no view writes "no path" beside a path in plain view.
Everything here reads the document and the forward values only (a compiled replay has no
tape), so every evaluation gives the same words.
"""
import numpy as np

from gradviz.engine.registry import get_op

from .catalog import OPS, port_name
from .document import OP, Port
from .errors import Problem


def _floating(value):
    return value is not None and np.asarray(value).dtype.kind == "f"


def _dtype(value):
    kind = np.asarray(value).dtype
    return "boolean" if kind == np.bool_ else kind.name


def _no_gradient(node):
    """The engine declares the op of `node` not differentiable (as TF does)."""
    spec = OPS.get(node.op) if node.kind == OP else None
    if spec is None or not spec.engine:
        return False
    try:
        return bool(get_op(spec.engine).no_gradient)
    except KeyError:
        return False


def node_cut(doc, values, nid, incoming):
    """Why node `nid` passes no gradient to its inputs ('' when it does), as the end of a
    sentence about it: 'which returns integer indices and has no gradient (TF: not
    differentiable)'."""
    node = doc.nodes[nid]
    if nid in doc.tape.stop_recording:
        return ("which is in the tape's stop_recording region (run inside "
                "tape.stop_recording(), or before a tape.reset()), so the tape holds no record of it")
    if _no_gradient(node):
        if node.op == "stop_gradient":
            return "which is tf.stop_gradient and passes no gradient back (by design)"
        if node.op in ("math.argmax", "math.argmin"):
            return "which returns integer indices and has no gradient (TF: not differentiable)"
        return f"which has no gradient (TF declares {node.op} not differentiable)"
    out = values.get(_port(nid))
    ins = [values.get(e.src) for e in incoming.get(nid, [])]
    if out is not None and not _floating(out) and any(_floating(v) for v in ins):
        return (f"which turns floating values into {_dtype(out)} ones, and TF does not "
                f"differentiate through integer or boolean tensors")
    return ""


def _port(nid):
    return Port(nid, 0)


def _above(doc, targets):
    """The nodes some edge path leads from to a target, the targets included."""
    return doc.ancestors([p.node for p in targets if p.node in doc.nodes])


def joined(doc, source, targets=None):
    """Some edge path on the canvas leads from `source` to a target (of `targets`, default
    the document's)."""
    targets = doc.targets if targets is None else targets
    return source.node in _above(doc, targets)


def cuts(doc, values, source, targets=None):
    """[(node id, why)] of the first nodes that cut every path from `source` (a Port) to the
    targets on the canvas, in the document's order; [] when some path is not cut, or when no
    edge path joins them at all (then nothing but the missing edge explains the None)."""
    targets = list(doc.targets if targets is None else targets)
    incoming = doc.input_index()
    outgoing = {}
    for e in doc.edges:
        outgoing.setdefault(e.src.node, []).append(e.dst.node)
    above = _above(doc, targets)
    if source.node not in above or source.node not in doc.nodes:
        return []
    ends = {p.node for p in targets}
    found, seen, open_path = {}, set(), False
    stack = [source.node]
    while stack:       # walk from the source, stopping at each cut
        nid = stack.pop()
        for nxt in outgoing.get(nid, []):
            if nxt in seen or nxt not in above:
                continue
            seen.add(nxt)
            why = node_cut(doc, values, nxt, incoming)
            if why:
                found[nxt] = why
            elif nxt in ends:
                open_path = True
            else:
                stack.append(nxt)
    if open_path:
        return []
    return [(nid, found[nid]) for nid in doc.nodes if nid in found]


def cut_reason(doc, values, source, targets=None, found=None):
    """'every path from reduce_sum to W passes argmax, which returns integer indices and has
    no gradient (TF: not differentiable)', or '' when the canvas has no such cut (no path
    at all, or an open one). An integer source says that it is integer. `found`: cuts()
    already worked out for the same source and targets."""
    targets = list(doc.targets if targets is None else targets)
    name = port_name(doc, source)
    value = values.get(source)
    if value is not None and not _floating(value):
        return (f"{name} is {_dtype(value)}, and TF differentiates only with respect to "
                f"floating tensors")
    found = cuts(doc, values, source, targets) if found is None else found
    if not found:
        return ""
    what = (port_name(doc, targets[0]) if len(targets) == 1
            else "the targets (" + ", ".join(port_name(doc, p) for p in targets) + ")")
    passes = "; or ".join(f"{port_name(doc, _port(nid))}, {why}" for nid, why in found)
    return f"every path from {what} to {name} passes {passes}"


def _chosen(doc, nid):
    """Node `nid` cuts because the reader asked for it: tf.stop_gradient, or a node run
    inside tape.stop_recording() (a lesson's point, not a surprise to warn about)."""
    return nid in doc.tape.stop_recording or doc.nodes[nid].op == "stop_gradient"


def cut_warnings(doc, values, gradients):
    """Warnings for the status bar: a target that is an integer or boolean tensor, and each
    source whose None comes from an op without a gradient or an integer tensor on every
    path (a stop_gradient or stop_recording region the reader chose gets none)."""
    problems = []
    for p in doc.targets:
        value = values.get(p)
        if value is not None and not _floating(value):
            problems.append(Problem(
                f"the target {port_name(doc, p)} is {_dtype(value)}: TF does not differentiate "
                f"integer or boolean tensors, so no gradient flows back from it",
                where="gradient", warning=True))
    for p, g in gradients.items():
        if g is not None:
            continue
        found = cuts(doc, values, p)
        if any(not _chosen(doc, nid) for nid, _ in found):
            problems.append(Problem(f"{port_name(doc, p)}'s gradient is None: "
                                    f"{cut_reason(doc, values, p, found=found)}",
                                    where="gradient", warning=True))
    return problems


def none_words(doc, values, source):
    """What a card writes for source `source`'s None gradient, in a few words: 'None (cut
    at argmax)', 'None (W is int32)', or 'None (no path from the target)' when no edge path
    joins it to a target."""
    value = values.get(source)
    if value is not None and not _floating(value):
        return f"None ({port_name(doc, source)} is {_dtype(value)})"
    found = cuts(doc, values, source)
    if found:
        return f"None (cut at {', '.join(port_name(doc, _port(nid)) for nid, _ in found)})"
    return "None (no recorded path)" if joined(doc, source) else "None (no path from the target)"


def none_why(doc, values, source):
    """The inspector's sentence for source `source`'s None gradient: 'None: every path from
    reduce_sum to W passes argmax, which …; TF returns None.', or 'None: no path of edges
    joins this source to the target (TF returns None).'"""
    why = cut_reason(doc, values, source)
    if why:
        return f"None: {why}; TF returns None."
    if joined(doc, source):   # an unwatched source: the tape recorded nothing from it
        return "None: the tape recorded no path from the target to this source (TF returns None)."
    return "None: no path of edges joins this source to the target (TF returns None)."
