"""Custom gradients in a document: recognise which declarative rule a traced
`@custom_gradient` function computes, by calling it (it is the user's script's code) on
probe cotangents, and refuse in words when none does.
"""
import numpy as np

from gradviz.engine.errors import counted
from gradviz.engine.tensor import Tensor

from . import catalog
from .errors import DocumentError

def _rules_text():
    return ", ".join(f"{name} ({desc})" for name, (_, desc, _) in catalog.CUSTOM_RULES.items())


def declarative_rule(op):
    """(rule, attrs) of catalog.CUSTOM_RULES that a CustomGradient op's grad_fn computes.

    The function is called (it is the user's script's code) on probe cotangents along one
    direction, of norms 1e-6 … 1e6, to find the rule: zero, identity, a constant scale, or
    clipping to one norm. Positive multiples of one direction cannot tell `2 * relu(dy)`
    from `2 * dy`, so the rule found is then checked against the function on upstreams the
    probes did not cover: negated, zero and random ones.
    """
    fn_name = op.attrs.get("function", "f")

    def refuse(why):
        raise DocumentError(
            f"the custom gradient {fn_name} cannot be saved in a document: {why}; a document "
            f"holds an identity forward with one of the declarative rules: {_rules_text()}",
            where=fn_name)

    if len(op.inputs) != 1 or len(op.outputs) != 1:
        refuse(f"it has {counted(len(op.inputs), 'input')} (variables included) and "
               f"{counted(len(op.outputs), 'output')}, not one of each")
    x, y = np.asarray(op._in_values[0]), np.asarray(op._out_values[0])
    if x.shape != y.shape or not np.array_equal(x, y):
        refuse("its forward is not the identity")
    if y.dtype.kind != "f":
        refuse(f"its output is {y.dtype.name}, not floating")
    rtol = 1e-3 if y.dtype.itemsize <= 4 else 1e-9

    def gradient_of(g):
        try:
            (r,) = op.opdef.grad_fn(op, Tensor._wrap(g))
        except Exception as e:  # noqa: BLE001 - the user's function; say what it did
            refuse(f"calling its gradient function on the upstream {_shown(g)} failed "
                   f"({type(e).__name__}: {e})")
        if r is None:
            refuse("its gradient function returns None")
        r = np.asarray(getattr(r, "_value", r), np.float64)
        if r.shape != y.shape:
            refuse(f"its gradient has shape {list(r.shape)}, not {list(y.shape)}")
        return r

    base = np.random.default_rng(0).normal(size=y.shape) if y.ndim else np.array(1.0)
    base = base / np.linalg.norm(base)
    probes = [(base * scale).astype(y.dtype) for scale in (1e-6, 1e-3, 0.3, 7.0, 1e3, 1e6)]
    rule, attrs = _recognise([(g.astype(np.float64), gradient_of(g)) for g in probes], y, rtol,
                             refuse)
    apply = catalog.CUSTOM_RULES[rule][2]
    for g in _checks(base, y.dtype):
        want = np.asarray(apply(Tensor._wrap(g), attrs)._value, np.float64)
        got = gradient_of(g)
        scale = max(float(np.abs(want).max(initial=0.0)), float(np.abs(g).max(initial=0.0)))
        if not np.allclose(got, want, rtol=rtol, atol=rtol * scale):
            refuse(f"for the upstream {_shown(g)} it gives {_shown(got)}, but the rule "
                   f"{_rule_text(rule, attrs)} that it follows on positive multiples of one "
                   f"upstream would give {_shown(want)}")
    return rule, attrs


def _checks(base, dtype):
    """Upstreams to check a recognised rule on: negated, zero, random of both signs."""
    rng = np.random.default_rng(1)
    shape = base.shape
    out = [-base, -7.5 * base, np.zeros(shape)]
    out += [rng.normal(size=shape) * scale for scale in (0.01, 1.0, 100.0)]
    if base.size > 1:   # one element alone, the others zero
        one = np.zeros(base.size)
        one[rng.integers(base.size)] = -2.0
        out.append(one.reshape(shape))
    return [np.asarray(g, dtype) for g in out]


def _shown(a):
    a = np.asarray(a, np.float64)
    if a.ndim == 0:
        return f"{float(a):.6g}"
    flat = ", ".join(f"{v:.4g}" for v in a.reshape(-1)[:4])
    return f"[{flat}{', …' if a.size > 4 else ''}] (shape {list(a.shape)})"


def _rule_text(rule, attrs):
    return rule + "".join(f" ({k} {v:.6g})" for k, v in attrs.items())


def _recognise(results, y, rtol, refuse):
    """The rule that [(probe, gradient)] follow."""
    if all(np.allclose(r, 0, atol=0) for _, r in results):
        return "zero", {}
    factors = []
    for g, r in results:
        c = float(np.vdot(r, g) / np.vdot(g, g))
        if not np.allclose(r, c * g, rtol=rtol, atol=rtol * np.abs(g).max()):
            refuse("its gradient is not a multiple of the upstream cotangent")
        factors.append(c)
    if all(abs(c - 1) <= rtol for c in factors):
        return "identity", {}
    if all(abs(c - factors[0]) <= rtol * max(1.0, abs(factors[0])) for c in factors):
        return "scale", {"factor": factors[0]}
    norms = [float(np.linalg.norm(r)) for _, r in results]
    clip = norms[-1]
    expected = [min(float(np.linalg.norm(g)), clip) for g, _ in results]
    if all(c > 0 for c in factors) and np.allclose(norms, expected, rtol=rtol):
        return "clip_by_norm", {"clip_norm": float(np.float32(clip)) if y.dtype.itemsize <= 4
                                else clip}
    refuse("its gradient is neither zero, the identity, a constant scale nor a clip by norm")
