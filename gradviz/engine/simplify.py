"""Peephole rewrites of a tf.function program before it runs as numpy (trace_program.py):
steps whose result is known without their numpy call.

- x + 0, x - 0, x * 1, x / 1 (a constant of zeros or ones that does not broadcast x up)
  and x ** 1 are x itself. A backward pass makes them: the zero cotangent of an input
  that only selects (ReluGrad's y) added at a fan-in, the exponent y - 1 of x ** 2.
- A one-hot basis @ M, the basis cotangents of jacobian and batch_jacobian meeting a
  dense layer, is rows of M (broadcast over the batch axis), not a matmul: the seeds of
  batch_jacobian (k, batch, k) times a (k, n) weight cost k·batch·k·n multiply-adds.

The exact same numbers: adding a zero, multiplying by one and picking rows are exact in
floating point (up to the sign of a zero sum), and where M holds an inf or NaN the
matmul runs (0 · inf spreads NaN over every row there). The traced steps themselves stay
for Program.run_ops, which replays them as ops under a recording tape.
"""
import numpy as np

# op type -> (the value of the constant operand that makes the op return the other
# operand, the input positions that constant may take)
_NEUTRAL = {"AddV2": (0, (0, 1)), "Sub": (0, (1,)), "Mul": (1, (0, 1)),
            "RealDiv": (1, (1,)), "Pow": (1, (1,))}


def simplify(steps, outputs, info):
    """(steps, outputs) with the rewrites above. `info(ref)` gives a value's (shape, dtype,
    constant value or None)."""
    alias = {}  # slot -> the slot whose value it is

    def same(ref):
        return ("s", alias[ref[1]]) if ref is not None and ref[0] == "s" and ref[1] in alias else ref

    out = []
    for step in steps:
        kind = step[0]
        if kind in ("op", "host") and any(r is not None and r[0] == "s" and r[1] in alias
                                          for r in step[2]):
            step = step[:2] + (tuple(same(r) for r in step[2]),) + step[3:]
        elif kind == "store" and step[2][0] == "s" and step[2][1] in alias:
            step = step[:2] + (same(step[2]),)
        if kind == "op" and step[5]:
            kept = _neutral_operand(step, info)
            if kept is not None:
                alias[step[4][0]] = kept[1]
                continue
            rows = _basis_matmul(step, info)
            if rows is not None:
                out.append(("host", rows, (step[2][1],), step[4][0]))
                continue
        out.append(step)
    return out, [same(r) for r in outputs]


def _neutral_operand(step, info):
    """The ref of the operand the op returns unchanged, or None."""
    _, opdef, refs, attrs, outs, _ = step
    neutral = _NEUTRAL.get(opdef.type)
    if neutral is None or attrs or len(refs) != 2:
        return None
    value, positions = neutral
    shape, dtype, _ = info(("s", outs[0]))
    for pos in positions:
        kept = refs[1 - pos]
        if kept[0] != "s" or info(kept)[:2] != (shape, dtype):
            continue
        constant = info(refs[pos])[2]
        if constant is not None and constant.size and (constant == value).all():
            return kept
    return None


def _basis_matmul(step, info):
    """For `basis @ M` with a constant one-hot basis: a function of M giving the product
    as rows of M; else None."""
    _, opdef, refs, attrs, outs, _ = step
    if opdef.type != "MatMul" or attrs.get("transpose_a") or refs[0][0] != "c":
        return None
    basis = info(refs[0])[2]
    m_shape = info(refs[1])[0]
    if basis.ndim not in (2, 3) or len(m_shape) != 2 or basis.dtype.kind != "f":
        return None
    first = basis[:, 0, :] if basis.ndim == 3 else basis
    if basis.ndim == 3 and not (basis == first[:, None, :]).all():
        return None  # not the same basis vector for every batch row
    if not (((first == 0) | (first == 1)).all() and (first.sum(axis=1) == 1).all()):
        return None
    index = np.argmax(first, axis=1)
    shape = info(("s", outs[0]))[0]
    transpose_b = bool(attrs.get("transpose_b"))
    product = opdef.forward
    full = (lambda m: product(basis, m, transpose_b=True)) if transpose_b else \
        (lambda m: product(basis, m))

    def rows(m):
        if not np.isfinite(m).all():
            return full(m)
        picked = (m.T if transpose_b else m)[index]
        return np.broadcast_to(picked[:, None, :], shape) if basis.ndim == 3 else picked
    return rows
