"""Function transforms beyond TF's tape API: vjp, jvp (forward mode), hessian, hvp."""
from . import nest
from .tape import GradientTape
from .tensor import Tensor, convert_to_tensor
from .array import zeros_like
from .ops.math import multiply
from .ops.reduce import reduce_sum


def _primals(primals):
    return [p if isinstance(p, Tensor) else convert_to_tensor(p) for p in primals]


def _like(values, refs):
    """Tangents and cotangents given as lists or arrays take their partner's dtype."""
    return [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=r.dtype)
            for v, r in zip(values, refs)]


def vjp(f, *primals):
    """(f(*primals), vjp_fn) where vjp_fn(cotangent) gives one gradient per primal."""
    primals = _primals(primals)
    with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(primals)
        out = f(*primals)

    def vjp_fn(cotangent):
        if isinstance(out, Tensor):
            cotangent = _like([cotangent], [out])[0]
        else:
            cotangent = nest.pack_sequence_as(
                out, _like(nest.flatten(cotangent), nest.flatten(out)))
        return tuple(tape.gradient(out, primals, output_gradients=cotangent,
                                   unconnected_gradients="zero"))
    return out, vjp_fn


def jvp(f, primals, tangents):
    """(f(*primals), J·tangents): forward mode by transposing the linear map u -> Jᵀu.

    u ↦ Jᵀu is linear, so differentiating <Jᵀu, t> with respect to u gives J t; this
    is the "double backward" trick TF's ForwardAccumulator falls back on.
    """
    if not isinstance(primals, (list, tuple)):  # one primal, one tangent
        primals, tangents = [primals], [tangents]
    primals = _primals(primals)
    tangents = _like(tangents, primals)
    with GradientTape(watch_accessed_variables=False) as outer:
        with GradientTape(watch_accessed_variables=False) as inner:
            inner.watch(primals)
            out = f(*primals)
        u = [zeros_like(o) for o in nest.flatten(out)]
        outer.watch(u)
        pullback = inner.gradient(nest.flatten(out), primals, output_gradients=u,
                                  unconnected_gradients="zero")
    tangent_out = outer.gradient(pullback, u, output_gradients=tangents,
                                 unconnected_gradients="zero")
    return out, nest.pack_sequence_as(out, tangent_out)


def _recorded_gradient(f, x, outer):
    """∇f(x), computed while `outer` records, so `outer` can differentiate it again."""
    outer.watch(x)
    with GradientTape(watch_accessed_variables=False) as inner:
        inner.watch(x)
        y = f(x)
    return inner.gradient(y, x, unconnected_gradients="zero")


def hessian(f, x):
    """d²f/dx² for scalar f: shape x.shape + x.shape (nested tapes, one batched jacobian)."""
    x = _primals([x])[0]
    with GradientTape(watch_accessed_variables=False) as outer:
        g = _recorded_gradient(f, x, outer)
    return outer.jacobian(g, x, unconnected_gradients="zero")


def hvp(f, x, v):
    """H·v for scalar f without forming H: the gradient of <∇f(x), v>."""
    (x,) = _primals([x])
    (v,) = _like([v], [x])
    with GradientTape(watch_accessed_variables=False) as outer:
        g = _recorded_gradient(f, x, outer)
        inner_product = reduce_sum(multiply(g, v))
    return outer.gradient(inner_product, x, unconnected_gradients="zero")


__all__ = ["vjp", "jvp", "hessian", "hvp"]
