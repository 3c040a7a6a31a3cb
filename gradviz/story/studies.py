"""Studies for the views: Jacobian, batch Jacobian, Hessian and the cost of a chain.

Each study takes either a graph Document (its target and source ports, evaluated
by graph/evaluate.py) or a function `f(x) -> y` with a value for x, and returns
numpy results with the check numbers that make them trustworthy.
"""
from dataclasses import dataclass, field, replace

import numpy as np

from ..engine.interrupt import checkpoint
from ..engine.tape import GradientTape
from ..engine.tensor import Tensor, convert_to_tensor
from ..graph.evaluate import NEWTON_EPS, evaluate
from ..graph.evaluate import batch_jacobian as document_batch_jacobian
from ..graph.evaluate import hessian as document_hessian
from ..graph.evaluate import jacobian as document_jacobian
from ..graph.ports import parse_port
from ..graph.flat_newton import EIGENVALUE_RTOL, flat_parts
from .local import _defining_step
from .numbers import alone, line_format
from ..graph.nan_origin import study_nan_warning


# -- subjects: what is differentiated ---------------------------------------------------

class _Function:
    def __init__(self, f, x):
        self.f = f
        self.x = np.asarray(x._value if isinstance(x, Tensor) else x)
        if self.x.dtype.kind != "f":
            self.x = self.x.astype(np.float64)

    def _run(self, persistent=False):
        x = convert_to_tensor(self.x)
        tape = GradientTape(persistent=persistent, watch_accessed_variables=False)
        with tape:
            tape.watch(x)
            y = self.f(x)
        return tape, x, y

    def target_shape(self):
        return np.shape(self._run()[2]._value)

    def jacobian(self):
        tape, x, y = self._run()
        return np.asarray(tape.jacobian(y, x, unconnected_gradients="zero")._value)

    def gradient(self, v=None):
        tape, x, y = self._run()
        return np.asarray(tape.gradient(y, x, output_gradients=v,
                                        unconnected_gradients="zero")._value)

    def batch_jacobian(self):
        tape, x, y = self._run()
        return np.asarray(tape.batch_jacobian(y, x, unconnected_gradients="zero")._value)

    def hessian(self):
        x = convert_to_tensor(self.x)
        with GradientTape(watch_accessed_variables=False) as outer:
            outer.watch(x)
            with GradientTape(watch_accessed_variables=False) as inner:
                inner.watch(x)
                y = self.f(x)
            g = inner.gradient(y, x, unconnected_gradients="zero")
        return np.asarray(outer.jacobian(g, x, unconnected_gradients="zero")._value)


class _Document:
    def __init__(self, doc, target=None, source=None, study=""):
        self.doc = doc
        self.target = target if target is not None else _study_port(doc, study, "target")
        self.source = source if source is not None else _study_port(doc, study, "source")
        self.x = np.asarray(evaluate(doc).values[self.source])

    def _variant(self, output_gradients):
        return replace(self.doc, targets=[self.target], sources=[self.source],
                       output_gradients=output_gradients)

    def target_shape(self):
        return np.shape(evaluate(self.doc).values[self.target])

    def _or_zeros(self, result, shape):
        return np.zeros(shape, self.x.dtype) if result is None else np.asarray(result)

    def jacobian(self):
        return self._or_zeros(document_jacobian(self.doc, self.target, self.source),
                              self.target_shape() + self.x.shape)

    def gradient(self, v=None):
        og = {} if v is None else {self.target: np.asarray(v)}
        g = evaluate(self._variant(og)).gradients.get(self.source)
        return np.zeros_like(self.x) if g is None else np.asarray(g)

    def batch_jacobian(self):
        t = self.target_shape()
        return self._or_zeros(document_batch_jacobian(self.doc, self.target, self.source),
                              t + self.x.shape[1:])

    def hessian(self):
        return self._or_zeros(document_hessian(self._variant({}), self.source, self.target),
                              self.x.shape * 2)


def _study_port(doc, study, key):
    """The port a document's study names ('studies.jacobian.target'), else its first."""
    given = doc.studies.get(study, {}).get(key) if study else None
    if given is not None:
        return parse_port(given, f"studies.{study}") if isinstance(given, str) else given
    return (doc.targets if key == "target" else doc.sources)[0]


def _nan_problem(s, kind, result):
    """Why a study's numbers cannot be trusted as they are ('' when all are finite): the node
    and rule where the first NaN or infinity appears, when the subject is a document."""
    if np.isfinite(result).all():
        return ""
    if isinstance(s, _Document):
        return study_nan_warning(s.doc, kind, result, s.target, s.source)
    return study_nan_warning(None, kind, result)


def _subject(subject, x=None, target=None, source=None, study=""):
    if callable(subject):
        if x is None:
            raise TypeError("a function study needs a value for x")
        return _Function(subject, x)
    return _Document(subject, target, source, study)


# -- Jacobian ---------------------------------------------------------------------------

@dataclass
class JacobianStudy:
    jacobian: np.ndarray          # target.shape + source.shape
    summed: np.ndarray            # J summed over the target axes
    gradient: np.ndarray          # tape.gradient(target, source): seeded with ones
    max_difference: float         # |summed - gradient|
    v: np.ndarray                 # the cotangent of the VJP check
    jtv: np.ndarray               # Jᵀv from the Jacobian
    vjp: np.ndarray               # tape.gradient(..., output_gradients=v)
    vjp_difference: float
    problem: str = ""             # where its first NaN or infinity appears ('' when finite)

    @property
    def ok(self):
        scale = 1e-5 * max(1.0, float(np.abs(self.jacobian).max(initial=0)))
        return self.max_difference <= scale and self.vjp_difference <= scale


def jacobian_study(subject, x=None, *, target=None, source=None, v=None):
    """J = d target / d source, checked two ways: ΣJ over target axes = gradient; Jᵀv = VJP.

    `v` defaults to the document's output_gradients for the target, else a fixed ramp.
    """
    s = _subject(subject, x, target, source, "jacobian")
    J = s.jacobian()
    t_shape = J.shape[:J.ndim - s.x.ndim]
    t_axes = tuple(range(len(t_shape)))
    summed = J.sum(axis=t_axes)
    gradient = s.gradient()
    if v is None and isinstance(s, _Document):
        v = s.doc.output_gradients.get(s.target)
    if v is None:
        v = np.linspace(-1.0, 1.0, int(np.prod(t_shape, dtype=int))).reshape(t_shape)
    v = np.asarray(v, dtype=J.dtype)
    jtv = np.tensordot(v, J, axes=(t_axes, t_axes)) if t_axes else v * J
    vjp = s.gradient(v)
    return JacobianStudy(J, summed, gradient, float(np.abs(summed - gradient).max(initial=0)),
                         v, jtv, vjp, float(np.abs(jtv - vjp).max(initial=0)),
                         _nan_problem(s, "jacobian", J))


# -- batch Jacobian ---------------------------------------------------------------------

@dataclass
class BatchJacobianStudy:
    jacobian: np.ndarray          # full: (B, *t) + (B, *s)
    blocks: np.ndarray            # true per-example blocks J[b, ..., b, ...]: (B, *t, *s)
    batch_jacobian: np.ndarray    # what tape.batch_jacobian returned
    column_sums: np.ndarray       # Σ_b J[b, ..., c, ...]: what batch_jacobian computes
    engine_difference: float      # |batch_jacobian - column_sums| (should be ~0)
    block_difference: float       # |batch_jacobian - blocks|: its error when examples mix
    off_diagonal: np.ndarray      # (B, B) norms of J[b, ..., c, ...]; diagonal zero
    largest: float                # the largest norm of an off-diagonal block's numbers
    location: tuple               # (b, c): target example b depends on source example c
    tolerance: float
    warning: str = ""
    problem: str = ""             # where its first NaN or infinity appears ('' when finite)

    @property
    def independent(self):
        return not self.warning


def batch_jacobian_study(subject, x=None, *, target=None, source=None, tolerance=1e-6):
    """Per-example Jacobians and the check batch_jacobian silently assumes:
    example b of the target depends only on example b of the source.

    batch_jacobian seeds ones across the batch, so it returns Σ_b J[b, ..., c, ...];
    that equals the diagonal block only when the off-diagonal blocks vanish.
    """
    s = _subject(subject, x, target, source, "batch_jacobian")
    J = s.jacobian()
    nb = s.x.shape[0]
    t_rank = J.ndim - s.x.ndim
    t_shape, s_shape = J.shape[:t_rank], J.shape[t_rank:]
    per = t_shape[1:] + s_shape[1:]
    if J.size == 0:   # no example, or examples of no element: every block is empty
        empty = np.zeros((nb,) + per, J.dtype)
        return BatchJacobianStudy(J, empty, s.batch_jacobian(), empty, 0.0, 0.0,
                                  np.zeros((nb, nb)), 0.0, (0, 0), tolerance)
    m = J.reshape(nb, int(np.prod(t_shape[1:], dtype=int)), nb, -1)
    norms = np.linalg.norm(m, axis=(1, 3))
    blocks = np.stack([m[b, :, b, :] for b in range(nb)]).reshape((nb,) + per)
    sums = m.sum(axis=0).transpose(1, 0, 2).reshape((nb,) + per)
    off = norms.copy()
    np.fill_diagonal(off, 0.0)
    # Dependence is judged on the numbers: a block that is NaN where a zero cotangent met
    # a rule's ∞ (√ at 0), as TF's jacobian gives it, is no sign that examples mix.
    numbers = np.linalg.norm(np.where(np.isfinite(m), m, 0), axis=(1, 3))
    np.fill_diagonal(numbers, 0.0)
    loc = np.unravel_index(int(np.argmax(numbers)), numbers.shape) if nb > 1 else (0, 0)
    largest = float(numbers[loc]) if nb > 1 else 0.0
    bj = s.batch_jacobian()
    with np.errstate(invalid="ignore"):   # ∞ - ∞ where J holds infinity: its problem says so
        error = float(np.abs(blocks - bj).max(initial=0))
        engine_difference = float(np.abs(bj - sums).max(initial=0))
    warning = ""
    if largest > tolerance:
        write = line_format(largest, tolerance, error)
        warning = (f"The examples are not independent: d target[{loc[0]}] / d source[{loc[1]}] "
                   f"has norm {write(largest)} (> {write(tolerance)}). batch_jacobian assumes "
                   f"each example depends only on its own row; here it sums the cross-example "
                   f"blocks into each result (off by up to {write(error)}). A layer that mixes the batch "
                   f"(BatchNormalization in training, through the batch mean and variance) "
                   f"couples the examples: use jacobian instead.")
    return BatchJacobianStudy(J, blocks, bj, sums, engine_difference, error, off, largest,
                              tuple(int(i) for i in loc), tolerance, warning,
                              _nan_problem(s, "batch_jacobian", bj))


# -- Hessian ----------------------------------------------------------------------------

@dataclass
class HessianStudy:
    hessian: np.ndarray           # (n, n) matrix over the flattened source
    symmetry_error: float         # max |H - Hᵀ|
    eigenvalues: np.ndarray       # of (H + Hᵀ)/2, ascending
    gradient: np.ndarray          # flattened
    epsilon: float
    newton_step: np.ndarray       # (H + εI)⁻¹ g, shaped like the source; where H + εI is 0
                                  # within rounding (ε = 0, H singular), inverted only along
                                  # the directions where it is not (a pseudo-inverse)
    x_new: np.ndarray             # x - newton_step
    warning: str = ""
    definiteness: str = ""        # 'positive definite', '... semi-definite within rounding', ...
    tolerance: float = 0.0        # |eigenvalue| below this counts as zero (rounding)
    residual: float = 0.0         # max |(H + εI)·step - g|: how well the solve worked
    left_out: int = 0             # directions where H + εI is 0 within rounding: no step there
    flat_gradient: float = None   # |g| along the directions where H is 0 within rounding
    flat_step: float = None       # |step| along them

    def __post_init__(self):
        if self.flat_gradient is None:
            self.flat_gradient, self.flat_step = flat_parts(
                self.hessian, self.gradient, self.newton_step,
                self.tolerance or EIGENVALUE_RTOL * float(np.abs(self.eigenvalues).max(initial=0)))

    @property
    def finite(self):
        """False when H holds NaN or infinity: no eigenvalues, no Newton step."""
        return bool(np.isfinite(self.hessian).all())

    @property
    def problem(self):
        """Where H's first NaN or infinity appears ('' when H is finite)."""
        return "" if self.finite else self.warning


def definiteness(eigenvalues, rtol=EIGENVALUE_RTOL):
    """(words, tolerance) for a symmetric matrix's ascending eigenvalues."""
    eig = np.asarray(eigenvalues)
    tol = rtol * float(np.abs(eig).max(initial=0))
    if eig.size == 0 or tol == 0:
        return "zero (every eigenvalue is 0)", tol
    if eig[0] > tol:
        return "positive definite", tol
    if eig[0] >= -tol:
        if eig[-1] <= tol:
            return "zero within rounding", tol
        return "positive semi-definite within rounding", tol
    if eig[-1] < -tol:
        return "negative definite", tol
    return "indefinite", tol


def hessian_study(subject, x=None, *, target=None, source=None, epsilon=None):
    """H of the scalar target (the sum of its elements) with its checks and a Newton step.

    epsilon defaults to the document's studies.hessian.newton_eps, else graph.NEWTON_EPS.
    """
    s = _subject(subject, x, target, source, "hessian")
    if epsilon is None:
        spec = s.doc.studies.get("hessian", {}) if isinstance(s, _Document) else {}
        epsilon = float(spec.get("newton_eps", NEWTON_EPS))
    n = s.x.size
    H = s.hessian().reshape(n, n)
    g = s.gradient().reshape(n)
    if not np.isfinite(H).all():
        return _not_finite(s, H, g, epsilon)
    checkpoint()   # the eigenvalues and the solve are O(n³) calls that cannot stop midway
    sym = 0.5 * (H + H.T)
    eig, basis = np.linalg.eigh(sym)
    words, tol = definiteness(eig)
    shifted = H + epsilon * np.eye(n)
    kept = np.abs(eig + epsilon) > tol
    if kept.all():
        step = np.linalg.solve(shifted, g)
    else:   # H + εI is singular: solve() would return round-off blown up (|step| 53 for 2.03)
        step = basis[:, kept] @ ((basis[:, kept].T @ g) / (eig[kept] + epsilon))
    warning = ""
    if not words.startswith(("positive", "zero")):
        warning = (f"H is not positive definite ({words}; smallest eigenvalue {alone(eig[0])}): "
                   f"the Newton step need not point downhill.")
    return HessianStudy(H, float(np.abs(H - H.T).max(initial=0)), eig, g, epsilon,
                        step.reshape(s.x.shape), s.x - step.reshape(s.x.shape), warning,
                        words, tol, float(np.abs(shifted @ step - g).max(initial=0)),
                        int((~kept).sum()), *flat_parts(H, g, step, tol, (eig, basis)))


def _not_finite(s, H, g, epsilon):
    """A Hessian holding NaN or infinity: no eigenvalues or Newton step, and a warning that
    names the node and rule where the first non-finite number appears."""
    warning = _nan_problem(s, "hessian", H)
    empty = np.zeros(0)
    nan = np.full(s.x.shape, np.nan)
    with np.errstate(invalid="ignore"):
        symmetry = float(np.nanmax(np.abs(H - H.T), initial=0))
    return HessianStudy(H, symmetry, empty, g, epsilon, nan, s.x.copy(), warning,
                        "none: H holds NaN or infinity, so it has no eigenvalues", 0.0, float("nan"))


# -- chain cost -------------------------------------------------------------------------

@dataclass
class ChainCost:
    sizes: list                   # element counts: input, each intermediate, output
    forward: int                  # multiply-adds from the input side
    reverse: int                  # multiply-adds from the output side
    forward_terms: list = field(default_factory=list)
    reverse_terms: list = field(default_factory=list)

    @property
    def ratio(self):
        return self.forward / self.reverse if self.reverse else float("inf")

    @property
    def forward_carries(self):
        """What forward mode carries into each product J_k · (…): one column per source
        element, a vector for a scalar source."""
        n0 = self.sizes[0]
        return "vector" if n0 == 1 else f"{n0:,} columns"

    @property
    def reverse_carries(self):
        """What reverse mode carries into each product (…) · J_k: one row per target
        element, a vector only for a scalar target."""
        nl = self.sizes[-1]
        return "vector" if nl == 1 else f"{nl:,} rows"

    def text(self):
        row = "vᵀ" if self.sizes[-1] == 1 else "V"
        lines = [f"Chain of {len(self.sizes) - 1} Jacobians, sizes {' → '.join(map(str, self.sizes))}",
                 f"  forward (J_k · (… J_1), each J_k · {self.forward_carries}): "
                 f"{self.forward:,} multiply-adds",
                 f"  reverse ({row} J_L · … · J_1, each {self.reverse_carries} · J_k): "
                 f"{self.reverse:,} multiply-adds",
                 "  both cost the same" if self.forward == self.reverse else
                 f"  reverse is {self.ratio:,.1f}× cheaper" if self.ratio > 1 else
                 f"  forward is {1 / self.ratio:,.1f}× cheaper"]
        return "\n".join(lines)


def chain_cost(sizes):
    """Multiply-adds of the chain rule over Jacobians J_k (sizes[k] × sizes[k-1]).

    Forward accumulation multiplies from the input side, J_k · (J_{k-1} ⋯ J_1): every
    product is sizes[k]·sizes[k-1]·sizes[0]. Reverse starts from the output's row
    (a vector when the loss is scalar): sizes[-1]·sizes[k]·sizes[k-1] each. Seed 000:
    with a scalar loss reverse mode only ever does vector-matrix products.
    `sizes` is a list of element counts, or a Story (its chain of visited ops).
    """
    if not isinstance(sizes, (list, tuple)):
        sizes = chain_sizes(sizes)
    sizes = [int(n) for n in sizes]
    if len(sizes) < 2:
        raise ValueError("a chain needs at least an input and an output size")
    n0, nl = sizes[0], sizes[-1]
    fwd = [sizes[k] * sizes[k - 1] * n0 for k in range(2, len(sizes))]
    rev = [nl * sizes[k] * sizes[k - 1] for k in range(1, len(sizes) - 1)]
    return ChainCost(sizes, sum(fwd), sum(rev), fwd, rev)


def chain_sizes(story):
    """Element counts along one path of the story: the first source, each op's output
    on the way, the target. Follows the defining steps back from the source's gradient
    (a fan-in follows its first path), so it is a true chain even in a graph with branches.
    """
    acc = [s for s in story.steps if s.kind == "accumulate"]
    if not acc:
        return []
    sizes = [int(np.size(acc[0].total))]
    step = _defining_step(story, acc[0]._tensor, acc[0].index)
    while step is not None and step.kind != "seed":
        if step.kind == "fan_in":
            step = story.steps[step._sources[0]] if step._sources else None
            continue
        op = step._op
        sizes.append(sum(int(np.size(v)) for v in op._out_values))
        step = next(filter(None, (_defining_step(story, o, step.index) for o in op.outputs)), None)
    return sizes


# -- the gradient's size along the backward pass ----------------------------------------

@dataclass
class GradientNorms:
    """‖cotangent‖ where the backward pass meets each node (its output's upstream), in the
    story's order from the target back, then each source's gradient: the chart of the
    vanishing- and exploding-gradient lessons. `edges` say which point the pass goes to
    from which: two inputs of one op are siblings, not a chain."""
    names: list                   # the reader's names: 'loss', 'layer6', …, 'x'
    norms: list                   # Euclidean norms (floats; NaN or inf where the cotangent is)
    steps: list                   # the story step each norm is read from (its index)
    kinds: list                   # 'visit' (a node's upstream) or 'gradient' (a source's)
    edges: list = field(default_factory=list)   # (k, j): the pass goes from point k to point j

    def factors(self):
        """norms[k+1] / norms[k]: how much each step back multiplies the size (None at 0)."""
        return [b / a if a else None for a, b in zip(self.norms, self.norms[1:])]

    def paths(self):
        """The backward pass as runs of points, each edge in exactly one: the first from a
        target to where it ends, each next from a point already written to where it leaves
        the runs before it ([[y, upstream], [y, grad]] for y = upstream * grad)."""
        children = {k: [] for k in range(len(self.names))}
        entered = set()
        for k, j in self.edges:
            children[k].append(j)
            entered.add(j)
        runs, written = [], set()
        for root in (k for k in range(len(self.names)) if k not in entered):
            written.add(root)
            if not children[root]:
                runs.append([root])
        while True:
            start = next((k for k in sorted(written) if children[k]), None)
            if start is None:
                break
            run, k = [start], start
            while children[k]:
                j = children[k].pop(0)
                run.append(j)
                if j in written:
                    break
                written.add(j)
                k = j
            runs.append(run)
        return runs

    def text(self):
        return "\n".join(f"  {name}: {alone(norm)}" + (" (gradient)" if kind == "gradient" else "")
                         for name, norm, kind in zip(self.names, self.norms, self.kinds))


def gradient_norms(story):
    """The norm of the cotangent each node's output receives (the story's outer visit steps,
    not those inside a layer node) and of each source's final gradient, with the edges the
    backward pass takes between them (through the ops inside a layer node)."""
    out = GradientNorms([], [], [], [])
    point_of_op, point_of_tensor = {}, {}
    for step in story.steps:
        if step.internal or step.cotangent is None:
            continue
        if step.kind == "visit":
            kind = "visit"
            point_of_op[id(step._op)] = len(out.names)
        elif step.kind == "accumulate":
            kind = "gradient"
            point_of_tensor[id(step._tensor)] = len(out.names)
        else:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            norm = float(np.linalg.norm(np.asarray(step.cotangent, np.float64)))
        out.names.append(step.tensor_name or str(step.node))
        out.norms.append(norm)
        out.steps.append(step.index)
        out.kinds.append(kind)
    producer = {id(o): s._op for s in story.steps if s.kind == "visit" for o in s._op.outputs}
    sent = {}      # op -> the tensors its contributions went to, in the story's order
    for step in story.steps:
        if step.kind == "contribution" and step._op is not None and step._tensor is not None:
            sent.setdefault(id(step._op), []).append(step._tensor)

    def reached(tensor, seen):
        """The points a cotangent sent to `tensor` arrives at: its gradient, its producer's
        visit, or through an op inside a layer node, the points beyond it."""
        points = [point_of_tensor[id(tensor)]] if id(tensor) in point_of_tensor else []
        op = producer.get(id(tensor))
        if op is not None and id(op) not in seen:
            seen.add(id(op))
            if id(op) in point_of_op:
                points.append(point_of_op[id(op)])
            else:
                for t in sent.get(id(op), []):
                    points += reached(t, seen)
        return points

    for step in story.steps:
        k = point_of_op.get(id(step._op)) if step.kind == "visit" else None
        if k is None:
            continue
        ends = []
        for tensor in sent.get(id(step._op), []):
            ends += [j for j in reached(tensor, set()) if j not in ends and j != k]
        out.edges += [(k, j) for j in ends]
    return out
