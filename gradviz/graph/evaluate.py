"""Running a document through the engine with a real GradientTape.

`evaluate` gives forward values and the gradient of the target(s) w.r.t. the
sources, exactly as the equivalent script would; `jacobian`, `batch_jacobian`,
`hessian`, `newton_step` and `higher_order` are the studies, each built with the
tapes (nested where TF nests them) that the seed code uses.

A problem stops only what depends on it: `evaluate` runs every node that can run
and computes the gradients whenever the part of the graph the targets need is
sound, so a stray node elsewhere never hides them. A NaN or infinity is a warning
on the node where it first appears, never an error: it propagates, as in TF, and
is shown.
"""
import contextlib
import math
from dataclasses import dataclass, field

import numpy as np

import gradviz as gv

from . import budget
from .build import build, one_line, quiet, seed_key
from .catalog import port_name
from .cut_paths import cut_warnings
from .document import Port
from .errors import ENGINE_ERRORS, DocumentError, Problem, errors, named, warnings
from .ports import parse_port
from .structure import analyse, input_slots, n_outputs, node_problems
from .validate import output_gradient_problems


@dataclass
class Evaluation:
    values: dict = field(default_factory=dict)      # Port -> np.ndarray
    gradients: dict = field(default_factory=dict)   # source Port -> np.ndarray | None
    tensors: dict = field(default_factory=dict)     # Port -> Tensor
    tape: object = None
    problems: list = field(default_factory=list)
    entries: dict = field(default_factory=dict)     # node id -> [Operation]
    inner: dict = field(default_factory=dict)       # 'gradient' node id -> its InnerPass
    structure: object = None                        # structure.Structure
    plan: object = None                             # budget.Plan
    _ports: dict = field(default_factory=dict)      # tensor id -> Port
    _op_nodes: dict = field(default_factory=dict)   # Operation id -> node id
    _gradient_tensors: list = field(default_factory=list)  # per source: Tensor | None
    # True for a replay of a compiled program (compiled.py): values, gradients and
    # problems only; no tensors, tape or entries (the story evaluates again eagerly).
    replayed: bool = False

    def port_of(self, tensor):
        """The node output that made `tensor` (the layer's output for its internal ops)."""
        return self._ports.get(getattr(tensor, "_id", None))

    def node_of_op(self, operation):
        return self._op_nodes.get(id(operation))

    @property
    def errors(self):
        return errors(self.problems)

    @property
    def warnings(self):
        return warnings(self.problems)

    @property
    def ok(self):
        """True when nothing stopped a node or the gradient (warnings allowed)."""
        return not self.errors


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


def _built(doc, tapes, helper, skip, plan=None, leaves=None):
    all_tapes = tapes + ([helper] if helper else [])
    return build(doc, all_tapes, grad_tape=helper, grad_watch=_grad_watch(doc), skip=skip, plan=plan,
                 leaves=leaves)


def checks_hold(evaluation, before, doc, changed):
    """Do `evaluation`'s checks and plan, made for document `before`, hold for `doc`? The
    caller knows that `doc` differs from `before` at most in its tensors' numbers (not
    their shapes or dtypes), its nodes' positions and the attributes of the nodes
    `changed`: the checks and plan read nothing else. They hold when every changed node
    has no problem in either version, the same ports, and the same plan entry (output
    shapes and cost): the nodes after it then see the same inputs. (A node with a problem
    of its own before is in `structure.broken`.)"""
    plan, structure = evaluation.plan, evaluation.structure
    for nid in changed:
        old, new = before.nodes[nid], doc.nodes[nid]
        if nid in structure.broken or node_problems(new) \
                or n_outputs(old) != n_outputs(new) or input_slots(old) != input_slots(new) \
                or not budget.entry_holds(plan, doc, new):
            return False
    return True


def evaluate(doc, observer=None, persistent=True, same_structure_as=None, leaves=None):
    """Forward values of every node that can run, the gradients when the targets' part of
    the graph is sound, and every problem (errors and warnings) on its node.

    `same_structure_as`: an Evaluation whose checks and plan hold for `doc` (a document
    that differs at most in its tensors' numbers and its nodes' positions, or as
    `checks_hold` allows): they are taken instead of made again. `leaves`: the tensors
    of the constants and Variables (build.make_leaves), when the caller made them.
    Each problem names its node as the reader knows it (errors.named)."""
    ev = _evaluate(doc, observer, persistent, same_structure_as, leaves)
    ev.problems = named(ev.problems, doc)
    return ev


def _evaluate(doc, observer, persistent, same_structure_as, leaves):
    reuse = same_structure_as
    structure = reuse.structure if reuse is not None else analyse(doc)
    ev = Evaluation(problems=list(structure.problems), structure=structure)
    with _tapes(doc, 1, persistent or doc.tape.persistent) as (tapes, helper):
        built = _built(doc, tapes, helper, structure.broken, reuse.plan if reuse is not None else None,
                       leaves)
    ev.plan = built.plan
    tape = tapes[0]
    ev.tape, ev.tensors, ev.entries, ev.inner = tape, built.tensors, built.entries, built.inner
    ev.problems += built.problems
    for p, t in built.tensors.items():
        ev.values[p] = np.asarray(t._value)
        ev._ports[t._id] = p
    for nid, ops in built.entries.items():
        for op in ops:
            ev._op_nodes[id(op)] = nid
            for t in op.outputs:
                ev._ports.setdefault(t._id, Port(nid, 0))
    ev.problems += nan_warnings(doc, ev.values)
    seeding = output_gradient_problems(doc, built.tensors)
    ev.problems += seeding
    targets = [built.tensors.get(p) for p in doc.targets]
    sources = [built.tensors.get(p) for p in doc.sources]
    if (not doc.targets or structure.blocking() or seeding
            or any(t is None for t in targets + sources)):
        return ev
    seeds = seeds_of(doc, targets, leaves) if doc.output_gradients else None
    try:
        with quiet():
            grads = tape.gradient(targets, sources, output_gradients=seeds, observer=observer)
    except ENGINE_ERRORS as e:
        ev.problems.append(Problem(one_line(e), where="gradient"))
        return ev
    ev._gradient_tensors = list(grads)
    for p, g in zip(doc.sources, grads):
        ev.gradients[p] = None if g is None else np.asarray(g._value)
    ev.problems += gradient_warnings(doc, ev)
    return ev


def seeds_of(doc, targets, leaves=None):
    """The output_gradients of the target tensors `targets` (ones where the document gives
    none); `leaves`: build.make_leaves' tensors, whose seeds are taken when given."""
    return [(gv.constant(doc.output_gradients[p]) if leaves is None else leaves[seed_key(p)])
            if p in doc.output_gradients else gv.ones_like(t) for p, t in zip(doc.targets, targets)]


def _finite(v):
    return v.dtype.kind != "f" or bool(np.isfinite(v).all())


def nan_warnings(doc, values):
    """A NaN or infinity is a warning on the node where it first appears (a node with
    non-finite values whose inputs are all finite); the nodes after it are not flagged."""
    floats = [v.reshape(-1) for v in values.values() if v.dtype.kind == "f"]
    if not floats or np.isfinite(np.concatenate(floats)).all():
        return []   # one check of every number (a check per array costs five times more)
    bad = {p.node for p, v in values.items() if not _finite(v)}
    incoming = doc.input_index()
    problems = []
    for nid in doc.nodes:
        if nid in bad and not {e.src.node for e in incoming[nid]} & bad:
            node = doc.nodes[nid]
            what = ("its value holds NaN or infinity" if node.kind in ("constant", "variable")
                    else "produced NaN or infinity")
            problems.append(Problem(what, node=nid, warning=True))
    return problems


def gradient_warnings(doc, ev):
    """Where a non-finite gradient starts (nonfinite_gradient), and why a source joined to
    the target on the canvas gets None (cut_paths.cut_warnings: an integer target, an op
    without a gradient on every path)."""
    return nonfinite_gradient(doc, ev) + cut_warnings(doc, ev.values, ev.gradients)


def nonfinite_gradient(doc, ev):
    """Where a non-finite gradient starts when the forward values are all finite: a seed
    (output_gradients) holding NaN, else the source (say the gradient of sqrt at 0)."""
    if ev.warnings:
        return []
    seeds = [Problem("the seed holds NaN or infinity", warning=True,
                     where=f"output_gradients '{port_name(doc, p)}'")
             for p, g in doc.output_gradients.items() if not _finite(g)]
    return seeds or [Problem("its gradient holds NaN or infinity", node=p.node, warning=True)
                     for p, g in ev.gradients.items() if g is not None and not _finite(g)]


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


def _check(doc, structure, built, ports, study):
    """Raise the first error that stops `study` of `ports`: one in the study's own fields,
    or on a node those ports depend on. Problems elsewhere do not matter."""
    needed = doc.ancestors(p.node for p in ports)
    for p in named(errors(structure.problems + built.problems), doc):
        if (p.where or "").startswith(f"studies.{study}") or p.node in needed:
            raise DocumentError.from_problem(p)
    for port in ports:
        if port not in built.tensors:
            raise DocumentError(f"'{port_name(doc, port)}' has no value", where=study)


def _prepared(doc, study, target, source):
    """The study's target and source ports, and the document's structure."""
    return _port(doc, study, "target", target), _port(doc, study, "source", source), analyse(doc)


def _refuse(doc, built, study, target, source, **options):
    """Refuse before computing when the plan says the study is malformed or too large."""
    message = budget.study_problem(built.plan, doc, study, target, source, **options)
    if message:
        raise DocumentError(message, where=study)


def _study(doc, kind, target, source, compute):
    tp, sp, structure = _prepared(doc, kind, target, source)
    with _tapes(doc, 1) as (tapes, helper):
        built = _built(doc, tapes, helper, structure.broken)
    _check(doc, structure, built, [tp, sp], kind)
    _refuse(doc, built, kind, tp, sp)
    try:
        with quiet():
            result = compute(tapes[0], built.tensors[tp], built.tensors[sp])
    except ENGINE_ERRORS as e:
        raise DocumentError(one_line(e), where=kind) from None
    return None if result is None else np.asarray(result._value)


def jacobian(doc, target=None, source=None):
    """d target[i...] / d source[j...], shape target.shape + source.shape (None: unconnected)."""
    return _study(doc, "jacobian", target, source, lambda tape, t, s: tape.jacobian(t, s))


def batch_jacobian(doc, target=None, source=None):
    return _study(doc, "batch_jacobian", target, source,
                  lambda tape, t, s: tape.batch_jacobian(t, s))


def _nested(doc, kind, target, source, times, **options):
    """Build inside `times` + 1 nested tapes and differentiate `times` times, innermost first."""
    tp, sp, structure = _prepared(doc, kind, target, source)
    with _tapes(doc, times + 1, persistent_outer=True) as (tapes, helper):
        built = _built(doc, tapes, helper, structure.broken)
        _check(doc, structure, built, [tp, sp], kind)
        _refuse(doc, built, kind, tp, sp, **options)
        t, s = built.tensors[tp], built.tensors[sp]
        derivatives = []
        g = t
        try:
            with quiet():
                for tape in reversed(tapes[1:]):
                    g = tape.gradient(g, s)
                    derivatives.append(g)
                    if g is None:
                        break
        except ENGINE_ERRORS as e:
            raise DocumentError(one_line(e), where=kind) from None
    return tapes[0], derivatives, s


def higher_order(doc, order=None, target=None, source=None):
    """[d/dx, d²/dx², ...] of the target, each the gradient of the sum of the previous one."""
    order = order or doc.studies.get("higher_order", {}).get("order", 2)
    _, derivatives, _ = _nested(doc, "higher_order", target, source, order, order=order)
    out = [None if g is None else np.asarray(g._value) for g in derivatives]
    return out + [None] * (order - len(out))


def _hessian(doc, source, target, newton=False):
    """The outer tape's Jacobian of the inner gradient (and the Newton step's solve)."""
    outer, (g,), s = _nested(doc, "hessian", target, source, 1, newton=newton)
    if g is None:
        return None, None, s
    try:
        with quiet():
            h = outer.jacobian(g, s)
    except ENGINE_ERRORS as e:
        raise DocumentError(one_line(e), where="hessian") from None
    return h, g, s


def hessian(doc, source=None, target=None):
    """The Hessian of the (scalar) target w.r.t. one source: shape source.shape * 2."""
    h, _, _ = _hessian(doc, source, target)
    return None if h is None else np.asarray(h._value)


# The ε of (H + ε·I)⁻¹ g when a document does not set studies.hessian.newton_eps: the
# one default the Newton step uses everywhere (graph, story studies, app).
NEWTON_EPS = 1e-3


def newton_step(doc, source=None, target=None, eps=None):
    """(H + eps·I)⁻¹ g reshaped like the source, as in the seed's Newton update."""
    if eps is None:
        eps = doc.studies.get("hessian", {}).get("newton_eps", NEWTON_EPS)
    return _newton(*_hessian(doc, source, target, newton=True), eps)


def _newton(h, g, s, eps):
    """The Newton step from the Hessian `h` and gradient `g` of source `s` (None without H)."""
    if h is None:
        return None
    n = math.prod(s.shape)
    with quiet():
        h_mat = gv.reshape(h, [n, n])
        g_vec = gv.reshape(g, [n, 1])
        try:
            update = gv.linalg.solve(h_mat + gv.eye(n, dtype=h.dtype) * eps, g_vec)
        except ENGINE_ERRORS as e:
            raise DocumentError(one_line(e), where="newton_step") from None
    return np.asarray(gv.reshape(update, tuple(s.shape))._value)


def run_studies(doc):
    """Every study the document asks for: {name: ndarray | list | None}."""
    out = {}
    for name in doc.studies:
        if name == "jacobian":
            out[name] = jacobian(doc)
        elif name == "batch_jacobian":
            out[name] = batch_jacobian(doc)
        elif name == "hessian" and "newton_eps" in doc.studies[name]:
            h, g, s = _hessian(doc, None, None, newton=True)   # one Hessian for both
            out[name] = None if h is None else np.asarray(h._value)
            out["newton_step"] = _newton(h, g, s, doc.studies[name]["newton_eps"])
        elif name == "hessian":
            out[name] = hessian(doc)
        elif name == "higher_order":
            out[name] = higher_order(doc)
    return out
