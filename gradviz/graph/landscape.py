"""The loss landscape over two scalar coordinates: two scalar Variables, or two entries of
Variables, with every other parameter held where it is.

Each point is the loss the tape differentiates (Σ seed·target) with the two coordinates
set. Where every node after the coordinates has a batch rule (graph/batched.py: element-
wise ops, matmul of matrices, reductions, Dense layers) a whole chunk of the grid runs as
one forward pass with a leading axis of points; otherwise each point runs alone through
graph/build.py, the one code path evaluation uses. The first chunk's first and last
points are checked against that path before the batched values are trusted.
The local picture at the current point (the gradient and the quadratic model's
minimum, Newton's step restricted to the two coordinates) comes from nested tapes.
"""
from dataclasses import dataclass, field

import numpy as np

from .batched import Batched, NotBatchable, run_batched
from .build import build, quiet
from .document import OP, Port
from .errors import DocumentError, errors, named
from .evaluate import evaluate
from . import catalog
from .ports import port_text
from .training import (NEWTON_LIMIT, gradient_and_hessian, is_variable_port, loss_graph, loss_of,
                       port_value, store_values, trainable_parameters, with_values)

CHUNK_POINTS = 2000      # points per forward pass (batched) or per progress report
CHECK_RTOL = 1e-4        # batched against point by point (float32 sums in another order)


@dataclass(frozen=True)
class Coordinate:
    """One scalar: entry `index` of Variable port `port` (index () for a scalar Variable)."""

    port: Port
    index: tuple = ()

    def text(self, name=None):
        name = name or port_text(self.port)
        return name + (f"[{', '.join(map(str, self.index))}]" if self.index else "")


def coordinates(doc, parameters, limit=200):
    """The scalars a landscape can be drawn over: each entry of each parameter (at most
    `limit`, the first entries of each parameter first)."""
    out = []
    for port in parameters:
        shape = np.shape(port_value(doc, port))
        out += [Coordinate(port, tuple(int(i) for i in ix)) for ix in np.ndindex(*shape)]
    return out[:limit]


def value_of(doc, coordinate):
    return float(np.asarray(port_value(doc, coordinate.port))[coordinate.index])


@dataclass
class Landscape:
    x: Coordinate
    y: Coordinate
    xs: np.ndarray                 # grid values of x
    ys: np.ndarray                 # grid values of y
    losses: np.ndarray             # (len(ys), len(xs)): losses[j, i] at (xs[i], ys[j])
    center: tuple                  # the current point (x, y)
    held_fixed: int                # parameter entries held at their current values
    batched: bool                  # True: chunks of points ran as one forward pass
    note: str = ""


def landscape(doc, x, y, x_range, y_range, n=100, progress=None, parameters=None):
    """The loss on an n x n grid over x_range × y_range; `progress(fraction)` hears each
    chunk (and may raise to cancel). `parameters` (default: the sources that are
    Variables) are what the note counts as held fixed."""
    for c in (x, y):
        if not is_variable_port(doc, c.port):
            raise DocumentError(f"'{catalog.port_name(doc, c.port)}' is not a Variable", where="landscape")
    if x == y:
        raise DocumentError("choose two different coordinates", where="landscape")
    held = _held_fixed(doc, x, y, trainable_parameters(doc) if parameters is None else parameters)
    doc = loss_graph(doc, _ports(x, y))           # what the loss does not need is not run
    xs = np.linspace(*map(float, x_range), n)
    ys = np.linspace(*map(float, y_range), n)
    gx, gy = np.meshgrid(xs, ys)
    points = np.stack([gx.ravel(), gy.ravel()], axis=1)
    base = evaluate(doc, persistent=False)
    if base.errors:
        raise DocumentError.from_problem(base.errors[0])
    batched = _can_batch(doc, base, x, y)
    run = _batched_losses if batched else _point_losses
    losses = np.empty(len(points))
    work = with_values(doc, {c.port: port_value(doc, c.port) for c in (x, y)})
    for start in range(0, len(points), CHUNK_POINTS):
        chunk = points[start:start + CHUNK_POINTS]
        losses[start:start + len(chunk)] = run(work, base, x, y, chunk)
        if progress is not None:
            progress((start + len(chunk)) / len(points))
    return Landscape(x, y, xs, ys, losses.reshape(n, n), (value_of(doc, x), value_of(doc, y)),
                     held, batched, fixed_note(held))


def fixed_note(held):
    if held == 0:
        return "x and y are every parameter the loss has here: this is its whole surface."
    if held == 1:
        return ("The other parameter entry is held at its current value: this is a slice "
                "through the loss, which moves as it does.")
    return (f"The other {held:,} parameter entries are held at their current values: this is "
            "a slice through the loss, which moves as they do.")


def _held_fixed(doc, x, y, parameters):
    total = sum(int(np.size(port_value(doc, p))) for p in parameters)
    return max(0, total - sum(1 for c in (x, y) if c.port in parameters))


def _can_batch(doc, base, x, y):
    """Every node after the coordinates has a batch rule (no 'gradient' node anywhere: its
    value comes from a tape), and two points computed batched equal the same points
    computed one by one."""
    if any(n.kind == OP and n.op == "gradient" for n in doc.nodes.values()):
        return False
    work = with_values(doc, {c.port: port_value(doc, c.port) for c in (x, y)})
    corners = np.array([[value_of(doc, x) + 1.0, value_of(doc, y) - 0.5],
                        [value_of(doc, x) - 0.25, value_of(doc, y) + 2.0]])
    try:
        batched = _batched_losses(work, base, x, y, corners)
    except (NotBatchable, ValueError, TypeError, IndexError):
        return False
    alone = _point_losses(work, base, x, y, corners)
    return bool(np.allclose(batched, alone, rtol=CHECK_RTOL,
                            atol=CHECK_RTOL * 1e-3 * (1.0 + np.abs(alone).max())))


def _varying(work, x, y, chunk):
    """{Variable port: (points, *shape) array}: the port's value at every point, with the
    coordinates' entries set from the chunk's columns."""
    varying = {}
    for column, c in enumerate((x, y)):
        if c.port not in varying:
            value = np.asarray(port_value(work, c.port))
            varying[c.port] = np.repeat(value[None], len(chunk), axis=0)
        varying[c.port][(slice(None),) + c.index] = chunk[:, column]
    return varying


def _batched_losses(work, base, x, y, chunk):
    values = run_batched(work, base.values, _varying(work, x, y, chunk), len(chunk))
    total = np.zeros(len(chunk))
    for p in work.targets:
        v = values[p]
        batched = isinstance(v, Batched)
        v = np.asarray(v.value if batched else v, np.float64)
        seed = work.output_gradients.get(p)
        v = v if seed is None else v * np.asarray(seed, np.float64)
        total += v.reshape(len(chunk), -1).sum(axis=1) if batched else float(np.sum(v))
    return total


def _point_losses(work, base, x, y, chunk):
    out = np.empty(len(chunk))
    arrays = {c.port: np.array(port_value(work, c.port)) for c in (x, y)}
    for k, (a, b) in enumerate(chunk):
        for c, v in ((x, a), (y, b)):
            arrays[c.port][c.index] = v
        store_values(work, arrays)
        built = build(work, skip=base.structure.broken, plan=base.plan)
        _raise_first(built, work)
        out[k] = loss_of(work, {p: t._value for p, t in built.tensors.items()})
    return out


def _raise_first(built, doc):
    if errors(built.problems):
        raise DocumentError.from_problem(named(errors(built.problems), doc)[0])


@dataclass
class LocalModel:
    """The loss near the current point along x and y: value, gradient, the 2 x 2 Hessian
    and the minimum of the quadratic model L + gᵀδ + ½δᵀ(H + λI)δ (None when H + λI is
    not positive definite: the model has no minimum)."""

    loss: float
    gradient: np.ndarray
    hessian: np.ndarray
    damping: float
    minimum: tuple | None
    note: str = field(default="")


def _ports(x, y):
    return list(dict.fromkeys([x.port, y.port]))


def local_model(doc, x, y, damping=1e-3):
    ports = _ports(x, y)
    doc = loss_graph(doc, ports)
    size = sum(int(np.size(port_value(doc, p))) for p in ports)
    if size > NEWTON_LIMIT:
        raise DocumentError(f"the Hessian over {size:,} entries is not computed for the "
                            f"landscape (up to {NEWTON_LIMIT:,})", where="landscape")
    with quiet():
        grads, hessian = gradient_and_hessian(doc, ports)
    offsets, at = {}, 0
    for p in ports:
        offsets[p] = at
        at += int(np.size(port_value(doc, p)))

    def flat(c):
        shape = np.shape(port_value(doc, c.port))
        return offsets[c.port] + (int(np.ravel_multi_index(c.index, shape)) if shape else 0)
    ix = [flat(x), flat(y)]
    g_all = np.concatenate([np.asarray(g._value, np.float64).reshape(-1) for g in grads])
    g = g_all[ix]
    h = hessian[np.ix_(ix, ix)]
    shifted = 0.5 * (h + h.T) + damping * np.eye(2)
    center = np.array([value_of(doc, x), value_of(doc, y)])
    minimum, note = None, ""
    if np.all(np.linalg.eigvalsh(shifted) > 0):
        minimum = tuple(center - np.linalg.solve(shifted, g))
    else:
        note = ("H + λI is not positive definite along x and y: the quadratic model has no "
                "minimum, and Newton's step need not go downhill.")
    values = evaluate(doc, persistent=False).values
    return LocalModel(loss_of(doc, values), g, h, damping, minimum, note)


def window(center, path=(), margin=0.25, aspect=1.0):
    """((x_lo, x_hi), (y_lo, y_hi)): a rectangle `aspect` times as wide as tall around
    `center` (x, y) that holds every point of `path`, with a margin. Drawn with equal scales
    on both axes in a plot of that shape (a short, wide dock gives it aspect 2), the
    contours keep their true shape and −∇L is perpendicular to them."""
    points = np.asarray(list(path) + [center], np.float64).reshape(-1, 2)
    points = points[np.isfinite(points).all(axis=1)]
    lo, hi = points.min(axis=0), points.max(axis=0)
    across, up = (float(e) for e in hi - lo)
    if max(across, up) == 0:
        across = up = max(1.0, float(np.abs(center).max()))
    half_up = max(across / aspect, up) * (0.5 + margin)
    mid = (lo + hi) / 2
    return tuple((float(m - half), float(m + half)) for m, half in zip(mid, (aspect * half_up, half_up)))

