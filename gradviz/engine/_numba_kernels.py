"""The compiled kernels behind kernels.py. Importing this module imports numba."""

import numba
import numpy as np

from ._vector_math import cos_grad_into, sin_grad_into  # noqa: F401 (kernels.py loads them by name)

_jit = numba.njit(cache=True, nogil=True, fastmath=False)


def _typed(*dtypes):
    """Compiled here (on the loader) for C-order 1-D arrays of these dtypes, and never at a
    call: any other dtype or layout raises TypeError, and the caller runs numpy. The
    kernels write their last argument, an array the caller made, and return True: numba
    boxes a returned array with two Python calls (its _numba_unpickle), which with the
    reshape back cost ~0.5 us a call more (W2's 64x128 relu, 2.29 -> 1.79 us)."""
    def compile_(fn):
        arrays = ", ".join(["{t}[::1]"] * fn.__code__.co_argcount)
        return numba.njit([f"boolean({arrays.format(t=t)})" for t in dtypes],
                          cache=True, nogil=True, error_model="numpy")(fn)
    return compile_


@_jit
def scatter_add_3d(out, idx, g3):
    pre, n_idx, post = g3.shape
    for p in range(pre):
        for j in range(n_idx):
            row = idx[j]
            for q in range(post):
                out[p, row, q] += g3[p, j, q]


@_typed("float32", "float64")
def relu(x, out):
    for i in range(x.size):
        out[i] = 0 if x[i] <= 0 else x[i]  # NaN stays NaN, as np.maximum(x, 0)
    return True


@_typed("float32", "float64")
def relu_grad(g, y, out):
    # g times a 1 or 0 of g's dtype, as numpy's g · mask: an integer 1 or 0 made every
    # product a float64 one (a 64x128 float32 cotangent took 2.9 us against 2.0)
    one = g.dtype.type(1)
    zero = g.dtype.type(0)
    for i in range(g.size):
        out[i] = g[i] * (one if y[i] > 0 else zero)  # NaN·0 is NaN, as in numpy and TF
    return True


@_jit
def relu_grad_rows(rows, y):
    """relu_grad of a cotangent whose rows (k, n) repeat over y's b rows: (k, b, n)."""
    k_, n = rows.shape
    out = np.empty((k_, y.shape[0], n), rows.dtype)
    for k in range(k_):
        for b in range(y.shape[0]):
            for i in range(n):
                g = rows[k, i]
                out[k, b, i] = g if y[b, i] > 0 else g * 0  # NaN·0 is NaN, -g·0 is -0
    return out


@_typed("float32", "float64")
def sigmoid_grad(y, g, out):
    one = y.dtype.type(1)  # 1 - y in y's dtype, as numpy and TF subtract (not in float64)
    for i in range(g.size):
        out[i] = g[i] * y[i] * (one - y[i])
    return True


@_typed("float32", "float64")
def tanh_grad_into(y, dy, out):
    """out = dy · (1 - y²), in the arrays' dtype as numpy computes it (the same bits)."""
    one = y.dtype.type(1)
    for i in range(out.size):
        out[i] = dy[i] * (one - y[i] * y[i])
    return True


@_typed("float32", "float64")
def elu_grad(g, y, out):
    one = y.dtype.type(1)  # y + 1 in y's dtype, as numpy and TF add (not in float64)
    for i in range(g.size):
        out[i] = (y[i] + one) * g[i] if y[i] < 0 else g[i]  # TF's EluGrad
    return True


@_jit
def moments_cols(x):
    rows, cols = x.shape
    mean = np.zeros(cols, x.dtype)
    var = np.zeros(cols, x.dtype)
    acc = np.zeros(cols, np.float64)
    for r in range(rows):
        for c in range(cols):
            acc[c] += x[r, c]
    for c in range(cols):
        mean[c] = acc[c] / rows
        acc[c] = 0.0
    for r in range(rows):
        for c in range(cols):
            d = x[r, c] - mean[c]
            acc[c] += d * d
    for c in range(cols):
        var[c] = acc[c] / rows
    return mean, var


@_jit
def move_windows(padded, cols, sh, sw, dh, dw, gather):
    """gather: cols[b, ho, wo, i, j] = padded[b, r, s] (im2col); else padded[b, r, s] +=
    cols[b, ho, wo, i, j] (its transpose), with r = ho·sh + i·dh and s = wo·sw + j·dw."""
    n, out_h, out_w, kh, kw, channels = cols.shape
    for b in range(n):
        for ho in range(out_h):
            for wo in range(out_w):
                for i in range(kh):
                    r = ho * sh + i * dh
                    for j in range(kw):
                        s = wo * sw + j * dw
                        if gather:
                            for c in range(channels):
                                cols[b, ho, wo, i, j, c] = padded[b, r, s, c]
                        else:
                            for c in range(channels):
                                padded[b, r, s, c] += cols[b, ho, wo, i, j, c]


def warm_up(stop=None):
    """Load (or compile) every kernel for float32 and float64, stopping early if `stop()`
    turns true (the interpreter is exiting)."""
    for dtype in (np.float32, np.float64):
        v = np.linspace(-1, 1, 8).astype(dtype)
        cols = np.empty((1, 1, 1, 2, 2, 2), dtype)
        calls = [(relu, v, np.empty_like(v)), (relu_grad, v, v, np.empty_like(v)),
                 (relu_grad_rows, v.reshape(2, 4), v.reshape(2, 4)),
                 (sigmoid_grad, v, v, np.empty_like(v)), (elu_grad, v, v, np.empty_like(v)),
                 (tanh_grad_into, v, v, np.empty_like(v)),
                 (moments_cols, v.reshape(2, 4)),
                 (scatter_add_3d, np.zeros((1, 3, 2), dtype), np.array([0, 2], np.int64),
                  v[:4].reshape(1, 2, 2)),
                 (move_windows, v.reshape(1, 2, 2, 2), cols, 1, 1, 1, 1, True),
                 (move_windows, np.zeros((1, 2, 2, 2), dtype), cols, 1, 1, 1, 1, False)]
        if dtype is np.float32:
            calls += [(sin_grad_into, v, v, np.empty_like(v)),
                      (cos_grad_into, v, v, np.empty_like(v))]
        for kernel, *args in calls:
            if stop is not None and stop():
                return False
            kernel(*args)
    return True
