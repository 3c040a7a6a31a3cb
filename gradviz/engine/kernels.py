"""Numba kernels for the loops numpy does slowly, each with a numpy twin.

numba is never imported at `import gradviz`, and no caller waits for it: the first
call that a kernel would serve starts a worker thread that imports numba and loads
every kernel (cache=True: ~0.3-0.7 s from the disk cache, seconds to compile into an
empty one), and the numpy twins run until it is done. `warm_up()` loads them and
waits. GRADVIZ_NUMBA=0 selects the numpy twins everywhere; the tests check that both
paths agree. Small arrays always take numpy: below MIN_SIZE elements a kernel call
costs more than it saves.
"""
import atexit
import importlib.util
import os
import threading

import numpy as np

ENABLED = os.environ.get("GRADVIZ_NUMBA", "1") != "0"
MIN_SIZE = 4096

_compiled = {}
_lock = threading.Lock()
_ready = False  # every kernel is loaded: use_numba may say yes
_loader = None  # the worker thread loading them
_exiting = threading.Event()


def _kernel(name):
    fn = _compiled.get(name)
    if fn is None:
        with _lock:
            fn = _compiled.get(name)
            if fn is None:
                from . import _numba_kernels  # numba: imported and compiled on first use
                fn = getattr(_numba_kernels, name)
                _compiled[name] = fn
    return fn


def use_numba(first, *rest):
    """numba pays off on large float32/float64 arrays in C order of one shape and dtype;
    everything else (float16, integers, views, broadcasting) takes numpy. Called on every
    activation: written to cost well under a microsecond."""
    if not ENABLED or first.size < MIN_SIZE:
        return False
    # Native float32 and float64 by identity (numpy's shared dtypes; the typed kernels take
    # no other byte order), the others' dtypes too: a dtype's `.char` or `!=` cost as
    # much as the identity test and the flags together.
    dtype = first.dtype
    if (dtype is not _F32 and dtype is not _F64) or not first.flags.c_contiguous:
        return False
    for a in rest:
        if a.dtype is not dtype or a.shape != first.shape or not a.flags.c_contiguous:
            return False
    return _installed if _ready else _start_loading()


_installed = None


def _start_loading():
    """Start the worker that loads the kernels (once); the caller takes numpy now."""
    global _loader
    if _loader is None and _numba_installed():
        with _lock:
            if _loader is None:
                _loader = start_numba_worker(_load_all, "gradviz numba kernels")
                atexit.register(_stop_loading)
    return False


def _load_all():
    global _ready
    try:
        from . import _numba_kernels  # numba: imported on this worker thread
        _ready = _numba_kernels.warm_up(stop=_exiting.is_set)
    except Exception:  # noqa: BLE001 (a numba that cannot compile here: numpy stays)
        return


def _stop_loading():
    """At exit: the loader stops after its current kernel, and the interpreter waits for
    it (it must not finalize while LLVM runs on that thread); a short script does not wait
    for kernels it will never call."""
    _exiting.set()
    _loader.join()


# -- threads that work with numba, and fork ----------------------------------------------

_busy = 0  # worker threads importing numba or compiling with it now
_busy_lock = threading.Lock()


def start_numba_worker(target, name, daemon=True):
    """Start a thread that imports numba or compiles with it (the kernel loader, a
    tf.function's fusing, a render kernel's load). A child forked while one runs may find
    numba half imported or LLVM mid-compile, their locks held by a thread the child does
    not have: numba is off in that child, whose numpy twins and plain programs run."""
    global _busy
    with _busy_lock:
        _busy += 1

    def run():
        global _busy
        try:
            target()
        finally:
            with _busy_lock:
                _busy -= 1

    thread = threading.Thread(target=run, name=name, daemon=daemon)
    try:
        thread.start()
    except BaseException:
        with _busy_lock:
            _busy -= 1
        raise
    return thread


def _after_fork_in_child():
    global _busy, _busy_lock, _installed
    _busy_lock = threading.Lock()
    if _busy:
        _busy = 0
        _installed = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _numba_installed():
    """Without numba every kernel takes its numpy twin instead of failing."""
    global _installed
    if _installed is None:
        _installed = importlib.util.find_spec("numba") is not None
    return _installed


def compiled(fn):
    """`fn` compiled by numba (nogil, cached on disk), or None when kernels are off, numba
    is missing or cannot compile it: the caller then runs its Python or numpy path."""
    if not ENABLED or not _numba_installed():
        return None
    try:
        import numba  # heavy and optional: imported only when a kernel compiles
        return numba.njit(cache=True, nogil=True)(fn)
    except Exception:  # noqa: BLE001 (a numba that cannot compile here: fall back)
        return None


def warm_up():
    """Load (or compile) every kernel and wait for it: afterwards large arrays take numba."""
    if not ENABLED or not _numba_installed():
        return
    _start_loading()
    _loader.join()


# -- kernels of the layers above, loaded on a worker -------------------------------------

_thread_state = threading.local()


def never_wait_here():
    """Mark the calling thread (the app's UI thread) as one that never waits for numba:
    there a BackgroundKernel not loaded yet is None and its caller runs its twin."""
    _thread_state.never_wait = True


class BackgroundKernel:
    """A numba kernel of a layer above the engine (PNG's deflate, GIF's LZW), compiled or
    loaded from numba's disk cache on a worker thread at its first request.

    `get()` waits for it, except on a thread marked by `never_wait_here()`, where it is
    None until loaded and the caller runs its Python or numpy twin (the same bytes come
    out): the app's UI thread never waits for a compile. None too when kernels are off
    or numba is missing or cannot compile it. `examples()` lists the arguments of small
    first calls, one per argument layout the callers use, so that each is compiled on
    the worker and none on a caller.
    """

    def __init__(self, fn, examples):
        self._fn, self._examples = fn, examples
        self._kernel = None
        self._thread = None

    def get(self):
        if not ENABLED or not _numba_installed():
            return None
        if self._kernel is not None:
            return self._kernel
        if self._thread is None:
            with _lock:
                if self._thread is None:
                    # Not a daemon: the interpreter waits for a compile at exit rather
                    # than stopping LLVM in the middle of one.
                    self._thread = start_numba_worker(self._load, f"numba {self._fn.__name__}",
                                                      daemon=False)
        if not getattr(_thread_state, "never_wait", False):
            self._thread.join()
        return self._kernel

    def wait(self):
        """The kernel once loaded, on any thread (None without numba)."""
        if self.get() is None and self._thread is not None:
            self._thread.join()
        return self.get()

    def _load(self):
        kernel = compiled(self._fn)
        if kernel is None:
            return
        try:
            for args in self._examples():
                kernel(*args)
        except Exception:  # noqa: BLE001 (numba could not compile it: the twin stays)
            return
        self._kernel = kernel


# -- undo broadcasting ------------------------------------------------------------------

def sum_to_shape(x, shape, nbatch):
    """Sum `x` (batch + broadcast shape) down to `shape` (batch + input shape)."""
    shape = tuple(shape)
    have = x.shape
    if have == shape:
        return x
    extra = len(have) - len(shape)
    if extra == 1 and not nbatch and shape and have[1:] == shape:
        return np.add.reduce(x, axis=0)  # a bias's gradient: the case below, written short
    if extra > 0 and shape and have[:nbatch] == shape[:nbatch] \
            and have[nbatch + extra:] == shape[nbatch:]:
        # The common case (a bias): only whole broadcast axes to sum, none of size 1.
        return np.add.reduce(x, axis=nbatch if extra == 1 else tuple(range(nbatch, nbatch + extra)))
    if extra < 0:  # a contribution the same for every batch element (zeros, usually)
        return np.broadcast_to(x, shape).copy()
    if x.shape[:nbatch] != shape[:nbatch] or any(
            d != 1 and d != e for d, e in zip(shape[nbatch:], x.shape[nbatch + extra:])):
        raise ValueError(
            f"cannot sum a gradient of shape {x.shape} down to shape {shape} "
            f"({nbatch} batch axes): a gradient rule returned the wrong shape")
    axes = list(range(nbatch, nbatch + extra))
    for i in range(len(shape) - nbatch):
        if shape[nbatch + i] == 1 and x.shape[nbatch + extra + i] != 1:
            axes.append(nbatch + extra + i)
    out = np.sum(x, axis=tuple(axes)) if axes else x
    return np.asarray(out, dtype=x.dtype).reshape(shape)


# -- scatter-add (the gradient of gather) -----------------------------------------------

def scatter_add(g, indices, axis, shape):
    """zeros(shape) with g's slices added at `indices` along `axis` (repeats accumulate)."""
    shape = tuple(shape)
    pre = int(np.prod(shape[:axis], dtype=np.int64))
    post = int(np.prod(shape[axis + 1:], dtype=np.int64))
    n = shape[axis]
    idx = np.asarray(indices).reshape(-1).astype(np.int64)
    idx = np.where(idx < 0, idx + n, idx)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError(f"scatter-add indices must be in [-{n}, {n}) along axis {axis}")
    g3 = np.ascontiguousarray(g).reshape(pre, idx.size, post)
    out = np.zeros((pre, n, post), g.dtype)
    if use_numba(g3):
        _kernel("scatter_add_3d")(out, idx, g3)
    else:
        for j in range(idx.size):  # per index, vectorised over pre and post
            out[:, idx[j], :] += g3[:, j, :]
    return out.reshape(shape)


# -- sliding windows: im2col and its transpose (convolution, pooling) ------------------

def gather_windows(xp, out_hw, k_hw, steps):
    """Every window of a padded NHWC `xp` (C order, leading axes allowed), copied:
    (..., Ho, Wo, KH, KW, C). `steps`: (stride h, stride w, dilation h, dilation w).
    numba's loop copies a few channels at a time ~5x faster than numpy's strided copy."""
    x4 = xp.reshape((-1,) + xp.shape[-3:])
    cols = np.empty((x4.shape[0],) + tuple(out_hw) + tuple(k_hw) + xp.shape[-1:], xp.dtype)
    _kernel("move_windows")(x4, cols, *steps, True)
    return cols.reshape(xp.shape[:-3] + cols.shape[1:])


def add_windows(out, cols, steps):
    """out (..., Hp, Wp, C) += each window's values from cols (..., Ho, Wo, KH, KW, C), in
    place, both C order: the transpose of gather_windows."""
    _kernel("move_windows")(out.reshape((-1,) + out.shape[-3:]),
                            cols.reshape((-1,) + cols.shape[-5:]), *steps, False)


# -- activations: forward and backward in one pass -------------------------------------

def _batch_rows(g, y):
    """The rows (k, n) of a cotangent g (k, b, n) that repeats them over y's b rows (a
    broadcast view: batch_jacobian's basis rows after a dense layer), when a numba kernel
    should take g and y; else None. numpy's broadcast multiply over the view took 3x the
    kernel's time (W3 batch_jacobian's relu: 64x10x128)."""
    if (not ENABLED or g.ndim != 3 or y.ndim != 2 or g.strides[1] != 0 or g.size < MIN_SIZE
            or g.shape[1:] != y.shape or g.dtype != y.dtype or g.dtype.char not in "fd"
            or not y.flags.c_contiguous):
        return None
    rows = g[:, 0, :]
    if not rows.flags.c_contiguous:
        return None
    return rows if (_installed if _ready else _start_loading()) else None



_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_FLOAT32_CONSTANTS = {}
_FLOAT64_CONSTANTS = {}
_CONSTANTS = {}  # other dtypes: dtype -> {value: constant}


def constant_of(value, dtype):
    """The Python number `value` as a 0-d array of `dtype`, shared (read only). numpy
    takes it next to an array 0.6-1.6 us faster than the Python number itself, whose
    NEP 50 promotion runs on every call (y > 0 on a 7x8 float32 array 2.7 us, against
    1.4; dy * (1 - y * y) on 1000 float32 4.6 us, against 2.9; a 0-d float32 cotangent
    / 640 1.5 us, against 0.7: ~3k instructions a call); the values are the same, the
    Python number being cast to `dtype` there too. Only for floats (and integer values
    with integer dtypes): other kinds (bool) keep the Python number, whose promotion
    decides their result's dtype. float32 and float64 find their table by identity:
    hashing a dtype costs ~1k instructions, as much as a third of the saving."""
    if dtype is _F32:
        table = _FLOAT32_CONSTANTS
    elif dtype is _F64:
        table = _FLOAT64_CONSTANTS
    else:
        table = _CONSTANTS.get(dtype)
        if table is None:
            table = _CONSTANTS[dtype] = {}
    constant = table.get(value)
    if constant is None:
        if dtype.kind == "f" or (dtype.kind in "iu" and type(value) is int):
            constant = np.array(value, dtype)
            constant.flags.writeable = False
        else:
            constant = value
        table[value] = constant
    return constant


_F32_ZERO = constant_of(0, _F32)  # relu's, read inline


def _filled(name, a, b=None):
    """A new array of a's shape and dtype, written by kernel `name` from flat views of `a`
    (and `b`), arrays use_numba accepted. The kernels write an array made here rather than
    return one: numba boxes a returned array with two Python calls, which with the
    reshape back cost ~0.5 us a call more. ravel: a C-order array's flat view, for a
    third of reshape(-1)'s cost."""
    out = np.empty(a.shape, a.dtype)
    if b is None:
        _kernel(name)(a.ravel(), out.ravel())
    else:
        _kernel(name)(a.ravel(), b.ravel(), out.ravel())
    return out


def relu(x):
    if use_numba(x):
        return _filled("relu", x)
    dtype = x.dtype
    return np.maximum(x, _F32_ZERO if dtype is _F32 else constant_of(0, dtype))


def relu_grad(g, y):
    if g.size < MIN_SIZE:  # use_numba and _batch_rows say no: a Hessian's small layers
        dtype = y.dtype
        zero = _F32_ZERO if dtype is _F32 else constant_of(0, dtype)  # constant_of's, inline
        return g * (y > zero).astype(g.dtype)
    if use_numba(g, y):
        return _filled("relu_grad", g, y)
    rows = _batch_rows(g, y)
    if rows is not None:
        return _kernel("relu_grad_rows")(rows, y)
    # A float mask, not a bool one: numpy's float x float loop is ~30% faster than its
    # mixed float x bool loop on the batched cotangents of a Jacobian.
    return g * (y > constant_of(0, y.dtype)).astype(g.dtype)


def sigmoid(x):
    # numpy, never a kernel: exp in a numba loop is one libm call per element (no SVML
    # here) where numpy's exp is SIMD; the sigmoid, elu and softmax kernels were 1.4-2.5x
    # slower than these lines (bench, 64x128 and 256x256, float32 and float64).
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def sigmoid_grad(y, g):
    if use_numba(g, y):
        return _filled("sigmoid_grad", y, g)
    return g * y * (constant_of(1, y.dtype) - y)


def tanh_grad(y, dy):
    """dy · (1 - y²): numpy's three calls, or one loop that gives the same bits."""
    out = _elementwise("tanh_grad_into", y, dy, _FLOATS)
    return dy * (constant_of(1, y.dtype) - y * y) if out is None else out


def sqrt_grad(y, dy):
    """TF's SqrtGrad: (0.5 · dy) / y, and 0 where dy is 0 (so sqrt(0) passes no NaN back
    when nothing flows into it: a Jacobian's other rows, an untaken where branch)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (constant_of(0.5, dy.dtype) * dy) / y
    return np.where(dy == constant_of(0, dy.dtype), constant_of(0, out.dtype), out)


def reciprocal_grad(y, dy):
    """TF's ReciprocalGrad: -y · y · dy, and 0 where dy is 0 (as SqrtGrad)."""
    with np.errstate(invalid="ignore", over="ignore"):
        out = -y * y * dy
    return np.where(dy == constant_of(0, dy.dtype), constant_of(0, out.dtype), out)


def sin_grad(x, g):
    """g · cos(x), Sin's gradient; in float32 one loop with _vector_math's cos (within
    2.5 ulp, as numpy's), numpy's two calls otherwise."""
    out = _elementwise("sin_grad_into", x, g, _FLOAT32)
    return g * np.cos(x) if out is None else out


def cos_grad(x, g):
    """-g · sin(x), Cos's gradient (as sin_grad)."""
    out = _elementwise("cos_grad_into", x, g, _FLOAT32)
    return -g * np.sin(x) if out is None else out


_FLOAT32 = (np.dtype(np.float32),)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _elementwise(name, a, b, dtypes):
    """Kernel `name`'s result over two arrays of one shape and dtype (a new array), or
    None where numpy must run: the kernels are not loaded, the shapes differ (a broadcast
    or batched cotangent), the dtype is not one of the kernel's `dtypes`, an array is a
    view or read-only, or the kernel declined (an input beyond its accurate range). At
    any size: each replaces several numpy calls, which cost more than its loop on small
    arrays. Small arrays never start the loader: a large one (use_numba) or warm_up() does."""
    if not (ENABLED and _ready and _installed and a.shape == b.shape and a.dtype in dtypes
            and b.dtype is a.dtype and a.flags.carray and b.flags.carray):
        return None
    out = np.empty(a.shape, a.dtype)
    kernel = _kernel(name)
    if a.ndim == 1:
        done = kernel(a, b, out)
    else:
        done = kernel(a.reshape(-1), b.reshape(-1), out.reshape(-1))
    return out if done else None


def elu(x):
    """TF's Elu kernel: exp(x) - 1 where x < 0 (not expm1: in float32 elu(-1e-8) is 0 in
    TF), x elsewhere (NaN included)."""
    return np.where(x < 0, np.exp(np.minimum(x, 0)) - 1, x).astype(x.dtype, copy=False)


def elu_grad(g, y):
    """TF's EluGrad: (y + 1) · g where y < 0, g itself elsewhere (selected: at y = NaN
    the cotangent passes unchanged, as in TF)."""
    if use_numba(g, y):
        return _filled("elu_grad", g, y)
    return np.where(y < 0, (y + 1) * g, g).astype(g.dtype, copy=False)


def softplus(x):
    """TF's Softplus kernel (softplus_op.h): x itself above -t, exp(x) below t, log1p(exp(x))
    between, t = log(ε) + 2 in x's dtype (-13.94 in float32): softplus(14) is 14 exactly,
    as in TF (max(x, 0) + log1p(exp(-|x|)) rounded it up to 14.000001)."""
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    t = np.log(np.finfo(dtype).eps).astype(dtype) + dtype.type(2)
    with np.errstate(over="ignore"):
        e = np.exp(np.minimum(x, -t))
        return np.where(x > -t, x, np.where(x < t, e, np.log1p(e))).astype(x.dtype, copy=False)


def softmax(x):
    """Softmax over the last axis (empty in, empty out: softmax_op_test's testEmptyInput)."""
    if x.size == 0:
        return x.copy()
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def log_softmax(x):
    if x.size == 0:
        return x.copy()
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


# -- batch normalisation over axis 0 (channels last) ------------------------------------

def mean(x, axis=None, keepdims=False):
    """np.mean, but the mean of nothing is NaN without numpy's 'Mean of empty slice'
    warning, as in TF (a warnings filter to hide it would be the whole process's)."""
    if x.size:
        return np.mean(x, axis=axis, keepdims=keepdims)
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    total = np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)
    if np.size(total) == 0:
        return total
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / 0


def batch_moments(x):
    """Mean and (biased) variance over every axis but the last."""
    x2 = x.reshape(-1, x.shape[-1])
    if use_numba(x2) and x2.shape[0] > 0:
        return _kernel("moments_cols")(x2)
    average = mean(x2, axis=0)
    return average, mean((x2 - average) ** 2, axis=0)
