"""The values a rule's text names besides its operands, for its card's "where" line: a card
that writes γ/σ · (... x̂ ...) shows σ and x̂ with their numbers, as it shows γ and x.

`derived(op, upstream)` gives {the rule's symbol: (what it is, in words; its value, or None
where the words are its definition)} in the engine's letters; the story renames them as it
renames the rule (x̂ becomes â with x)."""
import numpy as np

from ..engine.ops.embedding import keep_mask


def _sigma(x, axes, epsilon):
    mean = x.mean(axis=axes, keepdims=True)
    return np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + epsilon).astype(x.dtype)


# x̂ is defined by its formula, not a matrix as large as x beside it: the card stays short
# enough to frame with its nodes
_X_HAT = ("(x − mean) / σ", None)


def _batch_norm(op, upstream):
    x = np.asarray(op._in_values[0])
    return {"σ": ("√(batch var + ε)", _sigma(x, tuple(range(x.ndim - 1)), op.attrs["epsilon"])),
            "x̂": _X_HAT}


def _layer_norm(op, upstream):
    x = np.asarray(op._in_values[0])
    return {"σ": ("√(example var + ε)", _sigma(x, tuple(op.attrs["axis"]), op.attrs["epsilon"])),
            "x̂": _X_HAT}


def _mean(op, upstream):
    count = np.size(op._in_values[0]) // max(1, np.size(op._out_values[0]))
    return {"n": ("count", np.asarray(count))}


def _dropout(op, upstream):
    x = np.asarray(op._in_values[0])
    at = op.attrs
    kept = keep_mask(at["noise_shape"], at["rate"], at["seed"], x.dtype) != 0
    return {"mask": ("1 = kept", kept.astype(x.dtype)), "rate": ("", np.asarray(at["rate"]))}


def _transpose(op, upstream):
    return {"perm": ("", np.asarray(op.attrs["perm"]))}


def _select(op, upstream):
    return {"condition": ("", np.asarray(op._in_values[0]))}


def _solve(op, upstream):
    a = np.asarray(op._in_values[0])
    out = {"x": ("solution", np.asarray(op._out_values[0]))}
    if upstream is not None and not isinstance(upstream, list) and not op.attrs.get("adjoint"):
        g = np.asarray(upstream)
        if g.shape == out["x"][1].shape:
            out["grad_b"] = ("solve(Aᵀ, grad)", np.linalg.solve(np.swapaxes(a, -1, -2), g))
    return out


def _split(op, upstream):
    if not isinstance(upstream, list):
        return {}
    parts = [np.zeros_like(np.asarray(out)) if g is None else np.asarray(g)
             for g, out in zip(upstream, op._out_values)]
    return {"grads": ("the outputs' upstreams", np.concatenate(parts, axis=op.attrs["axis"]))}


DERIVED = {"SplitV": _split, "FusedBatchNorm": _batch_norm, "LayerNorm": _layer_norm, "Mean": _mean,
           "Dropout": _dropout, "Transpose": _transpose, "SelectV2": _select,
           "MatrixSolve": _solve}


def derived(op, upstream):
    """{symbol: (words, value)} of the values `op`'s rule names that are no operand."""
    make = DERIVED.get(op.type)
    return make(op, upstream) if make is not None else {}
