"""Matrix ops: matmul (transposes, batches), einsum, solve, inv."""
import string

import numpy as np

from ..backend import _np_matmul
from ..execute import apply, tensors
from ..registry import define_op
from .shape import matrix_transpose


def _t(x):
    return np.swapaxes(x, -1, -2)


def _matmul_rule(F, g, ins, out, at, needs):
    """TF's _MatMulGrad, case by case (seed 003 walks through the first one)."""
    a, b = ins
    ta, tb = at["transpose_a"], at["transpose_b"]
    mm = F.matmul
    if not ta and not tb:
        ga = mm(g, b, transpose_b=True) if needs[0] else None
        gb = mm(a, g, transpose_a=True) if needs[1] else None
    elif not ta and tb:
        ga = mm(g, b) if needs[0] else None
        gb = mm(g, a, transpose_a=True) if needs[1] else None
    elif ta and not tb:
        ga = mm(b, g, transpose_b=True) if needs[0] else None
        gb = mm(a, g) if needs[1] else None
    else:
        ga = mm(b, g, transpose_a=True, transpose_b=True) if needs[0] else None
        gb = mm(g, a, transpose_a=True, transpose_b=True) if needs[1] else None
    return ga, gb


def _matmul_formulas(at):
    ta, tb = at.get("transpose_a", False), at.get("transpose_b", False)
    return {
        (False, False): ("grad_a = grad @ bᵀ", "grad_b = aᵀ @ grad"),
        (False, True): ("grad_a = grad @ b", "grad_b = gradᵀ @ a"),
        (True, False): ("grad_a = b @ gradᵀ", "grad_b = a @ grad"),
        (True, True): ("grad_a = bᵀ @ gradᵀ", "grad_b = gradᵀ @ aᵀ"),
    }[(bool(ta), bool(tb))]


MATMUL = define_op("MatMul", _np_matmul, _matmul_rule, _matmul_formulas)
# The four attrs a MatMul can have, shared (an op's attrs are read only): one dict fewer
# per product, forward and in every recorded gradient.
MATMUL_ATTRS = {(ta, tb): {"transpose_a": ta, "transpose_b": tb}
                for ta in (False, True) for tb in (False, True)}


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           name=None):
    a, b = tensors(a, b)
    ta = bool(transpose_a or adjoint_a)
    tb = bool(transpose_b or adjoint_b)
    if a._value.ndim < 2 or b._value.ndim < 2:
        raise ValueError(
            f"matmul needs tensors of rank >= 2, got shapes {tuple(a.shape)} and {tuple(b.shape)}")
    try:
        return apply(MATMUL, (a, b), MATMUL_ATTRS[ta, tb])
    except ValueError:
        # the inner dimensions asked only when the product fails (numpy's error names
        # them too): two numpy shape tuples fewer on every call
        k_a = a._value.shape[-2 if ta else -1]
        k_b = b._value.shape[-1 if tb else -2]
        if k_a != k_b:
            raise ValueError(
                f"matmul shapes do not match: a has shape {tuple(a.shape)}"
                f"{' (transposed)' if ta else ''}, b has shape {tuple(b.shape)}"
                f"{' (transposed)' if tb else ''}; inner dimensions {k_a} and {k_b} differ"
            ) from None
        raise


# -- einsum -------------------------------------------------------------------------------

def _explicit_equation(equation, shapes):
    """Rewrite an einsum equation with '...' and an implicit output into explicit letters."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(shapes):
        raise ValueError(f"einsum equation '{equation}' names {len(subs)} operands, got {len(shapes)}")
    used = set(equation) - set(".,->")
    free = [c for c in string.ascii_letters if c not in used]
    ell_rank = 0
    for s, shape in zip(subs, shapes):
        if "..." in s:
            ell_rank = max(ell_rank, len(shape) - (len(s) - 3))
    ell = "".join(free[:ell_rank])
    explicit = []
    for s, shape in zip(subs, shapes):
        if "..." in s:
            n = len(shape) - (len(s) - 3)
            s = s.replace("...", ell[ell_rank - n:])
        if len(s) != len(shape):
            raise ValueError(f"einsum subscripts '{s}' do not match an operand of shape {tuple(shape)}")
        explicit.append(s)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for c in "".join(explicit):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    sizes = {}
    for s, shape in zip(explicit, shapes):
        for c, d in zip(s, shape):
            known = sizes.setdefault(c, d)
            if known != d and 1 in (known, d):  # size 1 broadcasts, as in numpy
                sizes[c] = max(known, d)
            elif known != d:
                raise ValueError(
                    f"einsum '{equation}': index '{c}' has size {sizes[c]} in one operand and "
                    f"{d} in another (operand shapes {[tuple(x) for x in shapes]})")
    return ",".join(explicit) + "->" + out


def _einsum_forward(*xs, equation):
    return np.asarray(np.einsum(equation, *xs, optimize=len(xs) > 2))


def _einsum_rule(F, g, ins, out, at, needs):
    lhs, out_sub = at["equation"].split("->")
    in_subs = lhs.split(",")
    nb = g.ndim - out.ndim
    batch = tuple(g.shape[:nb])
    free = iter(c for c in string.ascii_letters if c not in set(at["equation"]))
    z = next(free)
    if nb:
        count = int(np.prod(batch))
        g = F.reshape(g, (count,) + tuple(out.shape))
        out_sub, prefix = z + out_sub, (count,)
    else:
        prefix = ()
    grads = []
    for i, x in enumerate(ins):
        if not needs[i]:
            grads.append(None)
            continue
        others = [in_subs[j] for j in range(len(ins)) if j != i]
        s_i, deltas = _split_repeats(in_subs[i], free)
        x_shape = tuple(x.shape)
        eyes = [np.eye(x_shape[s_i.index(a)], dtype=_dtype(x)) for a, _ in deltas]
        available = set(out_sub).union(*others, *deltas)
        target = "".join(c for c in s_i if c in available)
        eq = ",".join([out_sub] + others + deltas) + "->" + (z if nb else "") + target
        r = F.einsum(eq, g, *[ins[j] for j in range(len(ins)) if j != i], *eyes)
        target_shape = prefix + tuple(d for c, d in zip(s_i, x_shape) if c in available)
        if tuple(r.shape) != target_shape:  # x was broadcast along size-1 axes
            r = F.sum_to_shape(r, target_shape, len(prefix))
        if len(target) < len(s_i):
            kept = tuple(d if c in available else 1 for c, d in zip(s_i, x_shape))
            r = F.broadcast_to(F.reshape(r, prefix + kept), prefix + x_shape)
        if nb:
            r = F.reshape(r, batch + x_shape)
        grads.append(r)
    return tuple(grads)


def _split_repeats(subscripts, free):
    """'iij' -> ('iaj', ['ia']): a repeated index (a diagonal) gets a fresh letter for each
    repeat, and an identity matrix per repeat puts the gradient back on the diagonal."""
    seen, renamed, deltas = set(), "", []
    for c in subscripts:
        if c in seen:
            fresh = next(free)
            deltas.append(c + fresh)
            c = fresh
        seen.add(c)
        renamed += c
    return renamed, deltas


def _dtype(x):
    return getattr(x, "_value", x).dtype


EINSUM = define_op("Einsum", _einsum_forward, _einsum_rule,
                   ("grad = einsum of grad with the other operands",))


def einsum(equation, *inputs, name=None, **kwargs):
    inputs = tensors(*inputs)
    explicit = _explicit_equation(equation, [t._value.shape for t in inputs])
    return apply(EINSUM, tuple(inputs), {"equation": explicit})


# -- solve and inverse --------------------------------------------------------------------

def _solve_forward(matrix, rhs, adjoint):
    return np.linalg.solve(_t(matrix) if adjoint else matrix, rhs)


def _solve_rule(F, g, ins, out, at, needs):
    a, _ = ins
    adjoint = at["adjoint"]
    grad_rhs = F.solve(a, g, adjoint=not adjoint)
    grad_a = None
    if needs[0]:
        grad_a = -(F.matmul(out, grad_rhs, transpose_b=True) if adjoint
                   else F.matmul(grad_rhs, out, transpose_b=True))
    return grad_a, grad_rhs if needs[1] else None


SOLVE = define_op("MatrixSolve", _solve_forward, _solve_rule,
                  ("grad_A = -grad_b @ xᵀ", "grad_b = solve(Aᵀ, grad)"))


def solve(matrix, rhs, adjoint=False, name=None):
    a, b = tensors(matrix, rhs)
    if a.ndim < 2 or a._value.shape[-1] != a._value.shape[-2]:
        raise ValueError(f"solve needs square matrices, got shape {tuple(a.shape)}")
    if b.ndim < 2 or b._value.shape[-2] != a._value.shape[-1]:
        raise ValueError(
            f"solve needs a right-hand side of shape (..., {a._value.shape[-1]}, K), "
            f"got {tuple(b.shape)}")
    return apply(SOLVE, (a, b), {"adjoint": bool(adjoint)})


def _inv_rule(F, g, ins, out, at, needs):
    """TF's _MatrixInverseGrad: -A⁻ᵀ @ (grad @ A⁻ᵀ), grouped as TF groups it (the other
    grouping rounds differently)."""
    return (-F.matmul(out, F.matmul(g, out, transpose_b=True), transpose_a=True),)


INV = define_op("MatrixInverse", lambda a: np.linalg.inv(a), _inv_rule,
                ("grad_A = -A⁻ᵀ @ grad @ A⁻ᵀ",))


def inv(input, adjoint=False, name=None):
    (a,) = tensors(input)
    if a.ndim < 2 or a._value.shape[-1] != a._value.shape[-2]:
        raise ValueError(f"inv needs square matrices, got shape {tuple(a.shape)}")
    if adjoint:
        a = matrix_transpose(a)
    return apply(INV, (a,))
