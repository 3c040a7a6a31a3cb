"""Custom gradients in a document: recognise which declarative rule a traced
`@custom_gradient` function computes, by calling it (it is the user's script's code) on
probe cotangents, and refuse in words when none does.
"""
import numpy as np

from gradviz.engine.tensor import Tensor

from . import catalog
from .errors import DocumentError

def _rules_text():
    return ", ".join(f"{name} ({desc})" for name, (_, desc, _) in catalog.CUSTOM_RULES.items())


def declarative_rule(op):
    """(rule, attrs) of catalog.CUSTOM_RULES that a CustomGradient op's grad_fn computes.

    The function is called (it is the user's script's code) on probe cotangents of norms
    1e-6 … 1e6: zero, identity, a constant scale, or clipping to one norm.
    """
    fn_name = op.attrs.get("function", "f")

    def refuse(why):
        raise DocumentError(
            f"the custom gradient {fn_name} cannot be saved in a document: {why}; a document "
            f"holds an identity forward with one of the declarative rules: {_rules_text()}",
            where=fn_name)

    if len(op.inputs) != 1 or len(op.outputs) != 1:
        refuse(f"it has {len(op.inputs)} inputs (variables included) and {len(op.outputs)} "
               "outputs, not one of each")
    x, y = np.asarray(op._in_values[0]), np.asarray(op._out_values[0])
    if x.shape != y.shape or not np.array_equal(x, y):
        refuse("its forward is not the identity")
    if y.dtype.kind != "f":
        refuse(f"its output is {y.dtype.name}, not floating")
    base = np.random.default_rng(0).normal(size=y.shape) if y.ndim else np.array(1.0)
    base = base / np.linalg.norm(base)
    results = []
    for scale in (1e-6, 1e-3, 0.3, 7.0, 1e3, 1e6):
        g = (base * scale).astype(y.dtype)
        try:
            (r,) = op.opdef.grad_fn(op, Tensor._wrap(g))
        except Exception as e:  # noqa: BLE001 - the user's function; say what it did
            refuse(f"calling its gradient function failed ({type(e).__name__}: {e})")
        if r is None:
            refuse("its gradient function returns None")
        r = np.asarray(getattr(r, "_value", r), np.float64)
        if r.shape != y.shape:
            refuse(f"its gradient has shape {list(r.shape)}, not {list(y.shape)}")
        results.append((g.astype(np.float64), r))
    rtol = 1e-3 if y.dtype.itemsize <= 4 else 1e-9
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

