"""tf.test.compute_gradient: the tape's Jacobian beside a finite-difference one, as
TensorFlow's gradient_checker_v2 makes them (so TF's gradient tests port unchanged).

Both Jacobians are 2-D numpy arrays of shape (y.size, x.size) per argument x: row r of
the theoretical one is the gradient for the r-th unit cotangent, column c of the
numerical one the central difference (f(x + δe_c) - f(x - δe_c)) / 2δ, computed in the
argument's own dtype. check.py has gradviz's own, float64 checks of every op.
"""
import numpy as np

from .tape import GradientTape
from .tensor import Tensor, convert_to_tensor


def compute_gradient(f, x, delta=None):
    """(theoretical, numerical): tuples with one (y.size, x.size) Jacobian per argument.

    `x` is a list or tuple of f's arguments (tensors, arrays or numbers). `delta`
    defaults to 1/1024, exactly representable in binary, as in TF.
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError(
            f"`x` must be a list or tuple of values convertible to a Tensor (arguments to "
            f"`f`), not a {type(x).__name__}")
    delta = 1.0 / 1024 if delta is None else delta
    xs = [convert_to_tensor(v) for v in x]
    for i, v in enumerate(xs):
        if v._value.dtype.kind != "f":
            raise TypeError(f"cannot compute the gradient for argument {i} of dtype "
                            f"{v.dtype.name}: only floating arguments are differentiable")
    y = convert_to_tensor(f(*xs))
    if y._value.dtype.kind != "f":
        raise TypeError(f"cannot compute the gradient of a result of dtype {y.dtype.name}: "
                        "f must return a floating tensor")
    pairs = [(_theoretical(f, y, xs, i), _numerical(f, y, xs, i, delta))
             for i in range(len(xs))]
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def max_error(grad1, grad2):
    """The largest absolute difference between two lists of Jacobians (NaN if any is)."""
    error = 0
    for a, b in zip(grad1, grad2):
        if a.size or b.size:
            error = np.maximum(error, np.fabs(a - b).max())
    return error


def _gradient(f, xs, index, cotangent):
    args = list(xs)
    with GradientTape() as tape:
        tape.watch(args[index])
        y = f(*args)
    g = tape.gradient(y, args[index], output_gradients=cotangent)
    return None if g is None else np.asarray(g._value)


def _theoretical(f, y, xs, index):
    x = xs[index]
    jacobian = np.zeros((y.size, x.size), x._value.dtype)
    cotangent = np.zeros(y._value.shape, y._value.dtype)
    flat = cotangent.reshape(-1)
    for row in range(y.size):
        flat[row] = 1
        g = _gradient(f, xs, index, Tensor._wrap(cotangent.copy()))
        if g is not None:
            jacobian[row] = g.reshape(-1)
        flat[row] = 0
    if y.size == 0:  # no rows: still run the gradient once and check what it gives
        g = _gradient(f, xs, index, Tensor._wrap(cotangent))
        if g is not None:
            if g.shape != x._value.shape:
                raise ValueError(f"Empty gradient has wrong shape: expected "
                                 f"{tuple(x.shape)}, got {g.shape}")
            if np.any(g):
                raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numerical(f, y, xs, index, delta):
    values = [np.array(v._value) for v in xs]
    x = values[index]
    flat = x.reshape(-1)
    scale = np.asarray(2 * delta, dtype=y._value.dtype)[()]
    jacobian = np.zeros((y.size, x.size), x.dtype)

    def run():
        return np.array(convert_to_tensor(f(*[Tensor._wrap(v.copy()) for v in values]))._value)

    for col in range(x.size):
        original = flat[col]
        flat[col] += delta
        plus = run()
        flat[col] = original
        flat[col] -= delta
        minus = run()
        flat[col] = original
        jacobian[:, col] = ((plus - minus) / scale).reshape(-1)
    return jacobian
