"""Finite-difference gradient checks (first and second order), after HIPS autograd's
test_util.check_grads. Everything runs in float64 so the differences are meaningful."""
import numpy as np

from .tape import GradientTape
from .tensor import Tensor
from .ops.shape import concat, reshape


def _as64(x):
    return Tensor._wrap(np.array(x._value if isinstance(x, Tensor) else x, dtype=np.float64))


def _dot(a, b):
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def numeric_jacobian(f, args, index, eps=1e-6):
    """Central differences of f with respect to args[index]: shape out.shape + arg.shape."""
    base = [a._value for a in args]
    x = base[index]
    out_shape = np.shape(f(*args)._value)
    jac = np.zeros(out_shape + x.shape)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        vp = f(*[Tensor._wrap(plus) if k == index else args[k] for k in range(len(args))])._value
        vm = f(*[Tensor._wrap(minus) if k == index else args[k] for k in range(len(args))])._value
        jac[(Ellipsis,) + i] = (vp - vm) / (2 * eps)
    return jac


def check_vjp(f, args, rng, eps=1e-6, rtol=1e-5, atol=1e-7):
    """<v, J u> by central differences equals <Jᵀv, u> by the tape, for random u, v."""
    with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(args)
        y = f(*args)
    v = rng.standard_normal(y.shape)
    grads = tape.gradient(y, list(args), output_gradients=Tensor._wrap(v.astype(np.float64)),
                          unconnected_gradients="zero")
    for i, (g, a) in enumerate(zip(grads, args)):
        if tuple(g.shape) != tuple(a.shape) or g._value.dtype != a._value.dtype:
            raise AssertionError(
                f"the gradient for argument {i} has shape {tuple(g.shape)} and dtype "
                f"{g._value.dtype}; the argument has shape {tuple(a.shape)} and dtype "
                f"{a._value.dtype}")
    us = [rng.standard_normal(a.shape) for a in args]
    reverse = sum(_dot(g._value, u) for g, u in zip(grads, us))
    plus = f(*[Tensor._wrap(a._value + eps * u) for a, u in zip(args, us)])._value
    minus = f(*[Tensor._wrap(a._value - eps * u) for a, u in zip(args, us)])._value
    forward = _dot(v, (plus - minus) / (2 * eps))
    if not np.isclose(reverse, forward, rtol=rtol, atol=atol):
        raise AssertionError(
            f"VJP check failed: tape gives <Jᵀv,u> = {reverse!r}, finite differences "
            f"<v,Ju> = {forward!r} (difference {abs(reverse - forward):.3g})")


def check_jacobian(f, args, eps=1e-6, rtol=1e-5, atol=1e-7):
    """tape.jacobian (batched cotangents) equals the finite-difference Jacobian."""
    for index in range(len(args)):
        with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
            tape.watch(args)
            y = f(*args)
        j = tape.jacobian(y, args[index], unconnected_gradients="zero")
        expected = numeric_jacobian(f, args, index, eps)
        np.testing.assert_allclose(j._value, expected, rtol=rtol, atol=atol,
                                   err_msg=f"jacobian with respect to argument {index}")


def _jacobians(f, args):
    with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(args)
        y = f(*args)
    return [tape.jacobian(y, a, unconnected_gradients="zero")._value for a in args]


def check_recorded_path(f, args, pullback, rtol=1e-5, atol=1e-7):
    """Rules run on numpy, or on recorded gradviz ops while an outer tape records; the
    finite-difference checks compare derivatives only, so compare the values here:
    the gradient (one cotangent) and the jacobian (a batch of them) by both paths."""
    plain = [pullback(*args)._value] + _jacobians(f, args)
    with GradientTape(watch_accessed_variables=False) as outer:
        outer.watch(args)
        recorded = [pullback(*args)._value] + _jacobians(f, args)
    for what, a, b in zip(["gradient"] + [f"jacobian for argument {i}" for i in range(len(args))],
                          recorded, plain):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                   err_msg=f"{what}: recorded rules differ from numpy rules")


def check_grads(f, args, order=2, eps=1e-6, rtol=1e-5, atol=1e-7, seed=0, jacobian=True):
    """Check f's gradients up to `order` against finite differences.

    `f` takes and returns gradviz tensors. Order 2 checks the VJP of the VJP: the
    function x -> Jᵀ(x)v, recorded by an outer tape, against its own differences.
    """
    rng = np.random.default_rng(seed)
    args = [_as64(a) for a in args]
    check_vjp(f, args, rng, eps, rtol, atol)
    if jacobian:
        check_jacobian(f, args, eps, rtol, atol)
    if order > 1:
        y = f(*args)
        v = Tensor._wrap(rng.standard_normal(y.shape))

        def pullback(*xs):
            with GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(list(xs))
                out = f(*xs)
            grads = tape.gradient(out, list(xs), output_gradients=v, unconnected_gradients="zero")
            return concat([reshape(g, (-1,)) for g in grads], axis=0)

        check_recorded_path(f, args, pullback, rtol, atol)
        check_grads(pullback, args, order - 1, eps, rtol, atol, seed + 1, jacobian)
