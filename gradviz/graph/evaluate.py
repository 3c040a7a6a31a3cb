"""Running a document through the engine with a real GradientTape.

`evaluate` gives forward values and the gradient of the target(s) w.r.t. the
sources, exactly as the equivalent script would; `jacobian`, `batch_jacobian`,
`hessian`, `newton_step` and `higher_order` are the studies, each built with the
tapes (nested where TF nests them) that the seed code uses.
"""
import contextlib
import math
from dataclasses import dataclass, field

import numpy as np

import gradviz as gv

from .build import ENGINE_ERRORS, build
from .document import Port
from .errors import DocumentError, Problem
from .fileformat import parse_port, port_text
from .tensors import MAX_ELEMENTS
from .validate import structure_problems


@dataclass
class Evaluation:
    values: dict = field(default_factory=dict)      # Port -> np.ndarray
    gradients: dict = field(default_factory=dict)   # source Port -> np.ndarray | None
    tensors: dict = field(default_factory=dict)     # Port -> Tensor
    tape: object = None
    problems: list = field(default_factory=list)
    entries: dict = field(default_factory=dict)     # node id -> [Operation]
    _ports: dict = field(default_factory=dict)      # tensor id -> Port
    _op_nodes: dict = field(default_factory=dict)   # Operation id -> node id

    def port_of(self, tensor):
        """The node output that made `tensor` (the layer's output for its internal ops)."""
        return self._ports.get(getattr(tensor, "_id", None))

    def node_of_op(self, operation):
        return self._op_nodes.get(id(operation))

    @property
    def ok(self):
        return not self.problems


def _gradient_nodes(doc):
    return [n for n in doc.nodes.values() if n.kind == "op" and n.op == "gradient"]


def _grad_watch(doc):
    """Input nodes feeding a 'gradient' node's source slot: its inner tape watches them."""
    out = set()
    for n in _gradient_nodes(doc):
        for e in doc.inputs_of(n.id):
            if e.dst.index == 1:
                out.add(e.src.node)
    return out


def _check(doc):
    problems = structure_problems(doc)
    if problems:
        raise DocumentError.from_problem(problems[0])


@contextlib.contextmanager
def _tapes(doc, n, persistent_outer=True):
    """`n` nested tapes (outermost first) plus an inner helper when 'gradient' nodes need one."""
    wav = doc.tape.watch_accessed_variables
    tapes = [gv.GradientTape(persistent=persistent_outer if i == 0 else True,
                             watch_accessed_variables=wav) for i in range(n)]
    helper = gv.GradientTape(persistent=True) if _gradient_nodes(doc) else None
    with contextlib.ExitStack() as stack:
        for t in tapes + ([helper] if helper else []):
            stack.enter_context(t)
        yield tapes, helper


def _built(doc, tapes, helper):
    all_tapes = tapes + ([helper] if helper else [])
    return build(doc, all_tapes, grad_tape=helper, grad_watch=_grad_watch(doc))


def evaluate(doc, observer=None, persistent=True):
    """Forward values and gradients; engine refusals become problems on their nodes."""
    _check(doc)
    ev = Evaluation()
    with _tapes(doc, 1, persistent or doc.tape.persistent) as (tapes, helper):
        built = _built(doc, tapes, helper)
    tape = tapes[0]
    ev.tape, ev.tensors, ev.entries = tape, built.tensors, built.entries
    ev.problems = list(built.problems)
    for p, t in built.tensors.items():
        ev.values[p] = np.asarray(t._value)
        ev._ports[t._id] = p
    for nid, ops in built.entries.items():
        for op in ops:
            ev._op_nodes[id(op)] = nid
            for t in op.outputs:
                ev._ports.setdefault(t._id, Port(nid, 0))
    ev.problems += _nan_problems(doc, ev.values)
    if not doc.targets or ev.problems:
        return ev
    targets = [built.tensors.get(p) for p in doc.targets]
    sources = [built.tensors.get(p) for p in doc.sources]
    if any(t is None for t in targets + sources):
        return ev
    seeds = None
    if doc.output_gradients:
        seeds = [gv.constant(doc.output_gradients[p]) if p in doc.output_gradients
                 else gv.ones_like(t) for p, t in zip(doc.targets, targets)]
    try:
        grads = tape.gradient(targets, sources, output_gradients=seeds, observer=observer)
    except ENGINE_ERRORS as e:
        ev.problems.append(Problem(" ".join(str(e).split())[:300], where="gradient"))
        return ev
    for p, g in zip(doc.sources, grads):
        ev.gradients[p] = None if g is None else np.asarray(g._value)
    return ev


def _nan_problems(doc, values):
    """A NaN or infinity is reported on the first node that produced it."""
    bad = set()
    problems = []
    for p, v in values.items():
        if v.dtype.kind == "f" and not np.all(np.isfinite(v)):
            bad.add(p.node)
    for nid in bad:
        upstream = {e.src.node for e in doc.inputs_of(nid)}
        if not upstream & bad:
            problems.append(Problem("produced NaN or infinity", node=nid))
    return problems


def _port(doc, study, key, given):
    if given is not None:
        return parse_port(given, "argument") if isinstance(given, str) else given
    spec = doc.studies.get(study, {})
    if key in spec:
        return parse_port(spec[key], f"studies.{study}")
    ports = doc.targets if key == "target" else doc.sources
    if not ports:
        raise DocumentError(f"no {key} to study", where=f"studies.{study}")
    return ports[0]


def _tensor(built, port, where):
    t = built.tensors.get(port)
    if t is None:
        problem = built.problems[0] if built.problems else None
        if problem:
            raise DocumentError.from_problem(problem)
        raise DocumentError(f"port '{port_text(port)}' has no value", where=where)
    return t


def _limit(n, what):
    if n > MAX_ELEMENTS:
        raise DocumentError(f"the {what} would have {n} elements, more than the limit of "
                            f"{MAX_ELEMENTS}", where=what)


def _study(doc, kind, target, source, compute):
    _check(doc)
    tp, sp = _port(doc, kind, "target", target), _port(doc, kind, "source", source)
    with _tapes(doc, 1) as (tapes, helper):
        built = _built(doc, tapes, helper)
    t, s = _tensor(built, tp, kind), _tensor(built, sp, kind)
    try:
        result = compute(tapes[0], t, s)
    except ENGINE_ERRORS as e:
        raise DocumentError(" ".join(str(e).split())[:300], where=kind) from None
    return None if result is None else np.asarray(result._value)


def jacobian(doc, target=None, source=None):
    """d target[i...] / d source[j...], shape target.shape + source.shape (None: unconnected)."""
    def compute(tape, t, s):
        _limit(t.size * s.size, "jacobian")
        return tape.jacobian(t, s)
    return _study(doc, "jacobian", target, source, compute)


def batch_jacobian(doc, target=None, source=None):
    def compute(tape, t, s):
        _limit(t.size * (s.size // max(1, s.shape[0] if s.ndim else 1)), "batch_jacobian")
        return tape.batch_jacobian(t, s)
    return _study(doc, "batch_jacobian", target, source, compute)


def _nested(doc, kind, target, source, order):
    """Build inside `order` nested tapes and differentiate `order` times, innermost first."""
    _check(doc)
    tp, sp = _port(doc, kind, "target", target), _port(doc, kind, "source", source)
    with _tapes(doc, order + 1, persistent_outer=True) as (tapes, helper):
        built = _built(doc, tapes, helper)
        t, s = _tensor(built, tp, kind), _tensor(built, sp, kind)
        derivatives = []
        g = t
        try:
            for tape in reversed(tapes[1:]):
                g = tape.gradient(g, s)
                derivatives.append(g)
                if g is None:
                    break
        except ENGINE_ERRORS as e:
            raise DocumentError(" ".join(str(e).split())[:300], where=kind) from None
    return tapes[0], derivatives, s


def higher_order(doc, order=None, target=None, source=None):
    """[d/dx, d²/dx², ...] of the target, each the gradient of the sum of the previous one."""
    order = order or doc.studies.get("higher_order", {}).get("order", 2)
    _, derivatives, _ = _nested(doc, "higher_order", target, source, order)
    out = [None if g is None else np.asarray(g._value) for g in derivatives]
    return out + [None] * (order - len(out))


def hessian(doc, source=None, target=None):
    """The Hessian of the (scalar) target w.r.t. one source: shape source.shape * 2."""
    outer, (g,), s = _nested(doc, "hessian", target, source, 1)
    if g is None:
        return None
    _limit(s.size * s.size, "hessian")
    h = outer.jacobian(g, s)
    return None if h is None else np.asarray(h._value)


def newton_step(doc, source=None, target=None, eps=None):
    """(H + eps·I)⁻¹ g reshaped like the source, as in the seed's Newton update."""
    if eps is None:
        eps = doc.studies.get("hessian", {}).get("newton_eps", 1e-3)
    outer, (g,), s = _nested(doc, "hessian", target, source, 1)
    if g is None:
        return None
    _limit(s.size * s.size, "hessian")
    h = outer.jacobian(g, s)
    n = math.prod(s.shape)
    h_mat = gv.reshape(h, [n, n])
    g_vec = gv.reshape(g, [n, 1])
    update = gv.linalg.solve(h_mat + gv.eye(n, dtype=h.dtype) * eps, g_vec)
    return np.asarray(gv.reshape(update, tuple(s.shape))._value)


def run_studies(doc):
    """Every study the document asks for: {name: ndarray | list | None}."""
    out = {}
    for name in doc.studies:
        if name == "jacobian":
            out[name] = jacobian(doc)
        elif name == "batch_jacobian":
            out[name] = batch_jacobian(doc)
        elif name == "hessian":
            out[name] = hessian(doc)
            if "newton_eps" in doc.studies[name]:
                out["newton_step"] = newton_step(doc)
        elif name == "higher_order":
            out[name] = higher_order(doc)
    return out
