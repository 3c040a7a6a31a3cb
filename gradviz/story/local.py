"""Element provenance: which products upstream[j] · J[j, i] sum to one cotangent entry.

The local Jacobian J of an op comes from the engine itself: the op is run again on
its recorded input values under a persistent GradientTape and `tape.jacobian` gives
d output / d input. Ops without a forward (custom_gradient) are differentiated by a
batched backward pass through the recorded op, so J is whatever the rule says.
"""
import numpy as np

from ..engine import tape as _tape
from ..engine.execute import apply
from ..engine.tensor import Tensor
from .assemble import operand_names
from .model import Provenance, Term


def local_jacobians(op, k):
    """[J_m for each output m]: J_m has shape out_m.shape + in_k.shape (None if not float)."""
    if op.opdef.forward is not None:
        try:
            return _rerun_jacobians(op, k)
        except (LookupError, TypeError, ValueError):
            pass
    return _backward_jacobians(op, k)


def _rerun_jacobians(op, k):
    xs = [Tensor._wrap(np.array(v)) for v in op._in_values]
    with _tape.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(xs[k])
        out = apply(op.opdef, xs, op.attrs)
    outs = out if isinstance(out, list) else [out]
    result = []
    for o in outs:
        if o._value.dtype.kind != "f":
            result.append(None)
            continue
        result.append(np.asarray(tape.jacobian(o, xs[k], unconnected_gradients="zero")._value))
    return result


def _backward_jacobians(op, k):
    source = op.inputs[k]
    result = []
    for m, o in enumerate(op.outputs):
        n = o._value.size
        seeds = []
        for mm, oo in enumerate(op.outputs):
            if mm == m:
                seeds.append(np.eye(n, dtype=oo._value.dtype).reshape((n,) + oo._value.shape))
            else:
                seeds.append(np.zeros((n,) + oo._value.shape, oo._value.dtype))
        (g,) = _tape.backward([op], list(op.outputs), [Tensor._wrap(s) for s in seeds],
                              [source], 1, None)
        j = np.zeros((n, source._value.size)) if g is None else np.asarray(g._value)
        result.append(j.reshape(o._value.shape + source._value.shape))
    return result


def _idx(multi):
    return ",".join(str(int(i)) for i in multi)


def _matmul_label(op, k, j, i, names):
    """grad[i,j]·b[k,j] style labels for a 2-D (or same-batch) MatMul."""
    a, b = op._in_values
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        return None
    ta, tb = op.attrs.get("transpose_a"), op.attrs.get("transpose_b")
    batch, (r, c) = tuple(j[:-2]), tuple(j[-2:])
    p, q = i[-2:]
    if k == 0:
        row, inner = (q, p) if ta else (p, q)
        other = (c, inner) if tb else (inner, c)
        return f"{names[1]}[{_idx(batch + other)}]"
    inner, col = (q, p) if tb else (p, q)
    other = (inner, r) if ta else (r, inner)
    return f"{names[0]}[{_idx(batch + other)}]"


def local_label(op, k, j, i):
    """A name for the local factor J[j, i] of input k, or None."""
    names = operand_names(op)
    t = op.type
    if t == "MatMul":
        return _matmul_label(op, k, j, i, names)
    same = all(np.shape(v) == op._out_values[0].shape for v in op._in_values)
    if t == "Mul" and same:
        return f"{names[1 - k]}[{_idx(j)}]"
    if t in ("AddV2", "Add", "Identity") and same:
        return "1"
    if t == "Sub" and same:
        return "1" if k == 0 else "(-1)"
    return None


def _cached_jacobians(story, op, k):
    cache = story.__dict__.setdefault("_jacobians", {})
    key = (id(op), k)
    if key not in cache:
        cache[key] = local_jacobians(op, k)
    return cache[key]


def _defining_step(story, tensor, before):
    for s in reversed(story.steps[:before]):
        if s._tensor is tensor and s.kind in ("seed", "contribution", "fan_in"):
            return s
    return None


def _where(step, flat_index):
    shape = np.shape(step.cotangent)
    multi = np.unravel_index(flat_index, shape) if shape else ()
    name = step.port.node if step.port is not None else "·"
    return f"{name}[{_idx(multi)}]" if shape else name


def provenance(story, step, flat_index, max_terms=12):
    if step.kind in ("accumulate", "unconnected", "visit"):
        tensor = step._tensor if step.kind != "visit" else step._op.outputs[0]
        origin = _defining_step(story, tensor, step.index)
        if origin is None:
            return Provenance(0.0, [], _where(step, flat_index), "unconnected")
        return provenance(story, origin, flat_index, max_terms)
    value = float(np.asarray(step.cotangent).flat[flat_index])
    where = _where(step, flat_index)
    if step.kind == "seed":
        return Provenance(value, [], where, "seed")
    if step.kind == "fan_in":
        terms = [Term(None, None, float(np.asarray(a).flat[flat_index]), label)
                 for label, a in step.terms]
        return Provenance(value, terms, where, "fan_in")
    if step.kind != "contribution":
        raise ValueError(f"a {step.kind} step has no cotangent entries to explain")
    op, k = step._op, step.input_index
    grad = step.operands.get("grad")
    upstream = grad if isinstance(grad, list) else [grad]
    in_shape = op._in_values[k].shape
    i = np.unravel_index(flat_index, in_shape) if in_shape else ()
    terms, rest, more = [], 0.0, 0
    for m, (u, jac) in enumerate(zip(upstream, _cached_jacobians(story, op, k))):
        if u is None or jac is None:
            continue
        u = np.asarray(u)
        column = jac.reshape(u.size, -1)[:, flat_index]
        products = u.reshape(-1) * column
        gname = "grad" if len(upstream) == 1 else f"grad{m}"
        for j in np.flatnonzero(products):
            if len(terms) >= max_terms:
                more += 1
                rest += float(products[j])
                continue
            jm = np.unravel_index(j, u.shape) if u.shape else ()
            local = local_label(op, k, jm, i) or f"J[{_idx(jm)}; {_idx(i)}]"
            terms.append(Term(float(u.flat[j]), float(column[j]), float(products[j]),
                              f"{gname}[{_idx(jm)}]·{local}"))
    return Provenance(value, terms, where, "contribution", more, rest)
