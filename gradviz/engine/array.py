"""Tensor constructors and random numbers. None of these are recorded: their values
do not depend on a watched tensor's value, so no gradient flows into them."""
import numpy as np

from . import dtypes
from .tensor import Tensor, convert_to_tensor, _to_array
from .tracing import _trace
from .ops.shape import _ints


def _shape(shape):
    """Shapes as TF takes them: a list, TensorShape, 1-D tensor, or a single int (`zeros(5)`)."""
    if isinstance(shape, (int, np.integer)) or (isinstance(shape, Tensor) and shape.ndim == 0):
        return (int(shape),)
    return _ints(shape)


def _np_dtype(dtype, default=dtypes.float32):
    return (dtypes.as_dtype(dtype) if dtype is not None else default)._np


def zeros(shape, dtype=dtypes.float32, name=None):
    return Tensor._wrap(np.zeros(_shape(shape), _np_dtype(dtype)))


def ones(shape, dtype=dtypes.float32, name=None):
    return Tensor._wrap(np.ones(_shape(shape), _np_dtype(dtype)))


def fill(dims, value, name=None):
    v = _to_array(value)
    return Tensor._wrap(np.full(_shape(dims), v, v.dtype))


def zeros_like(input, dtype=None, name=None):
    x = convert_to_tensor(input)
    return Tensor._wrap(np.zeros(x._value.shape, _np_dtype(dtype, x.dtype)))


def ones_like(input, dtype=None, name=None):
    x = convert_to_tensor(input)
    return Tensor._wrap(np.ones(x._value.shape, _np_dtype(dtype, x.dtype)))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    m = np.eye(int(num_rows), None if num_columns is None else int(num_columns),
               dtype=_np_dtype(dtype))
    if batch_shape is not None:
        m = np.broadcast_to(m, _shape(batch_shape) + m.shape).copy()
    return Tensor._wrap(m)


def linspace(start, stop, num, name=None, axis=0):
    s = _to_array(start)
    dtype = s.dtype if s.dtype.kind == "f" else np.float32
    return Tensor._wrap(np.linspace(float(s), float(_to_array(stop)), int(num), dtype=dtype))


def range_(start, limit=None, delta=1, dtype=None, name="range"):
    if limit is None:
        start, limit = 0, start
    values = [_to_array(v) for v in (start, limit, delta)]
    is_float = any(v.dtype.kind == "f" for v in values)
    default = dtypes.float32 if is_float else dtypes.int32
    out = np.arange(*(v[()] for v in values)).astype(_np_dtype(dtype, default))
    return Tensor._wrap(out)


class _Random:
    """tf.random: normal, uniform, set_seed. One generator, seedable for reproducible lessons."""

    def __init__(self):
        self._rng = None  # made at the first draw: numpy.random takes ~10 ms to import

    def set_seed(self, seed):
        self._rng = np.random.default_rng(seed)

    def _generator(self, seed):
        if seed is not None:
            return np.random.default_rng(seed)
        if self._rng is None:
            self._rng = np.random.default_rng()
        return self._rng

    def _draw(self, draw):
        """A tensor of `draw()`; under tf.function's tracer a step drawn at every call."""
        if _trace.tracer is not None:
            return _trace.tracer.host(draw, (), True)
        return Tensor._wrap(draw())

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
        shape, np_dtype = _shape(shape), _np_dtype(dtype)
        return self._draw(lambda: self._generator(seed).normal(mean, stddev, shape)
                          .astype(np_dtype))

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
        maxval = 1.0 if maxval is None else maxval
        shape, np_dtype = _shape(shape), _np_dtype(dtype)
        return self._draw(lambda: self._generator(seed).uniform(float(minval), float(maxval),
                                                                shape).astype(np_dtype))

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                         name=None):
        shape, np_dtype = _shape(shape), _np_dtype(dtype)

        def draw():
            rng = self._generator(seed)
            values = rng.normal(0.0, 1.0, shape)
            bad = np.abs(values) > 2
            while bad.any():
                values[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
                bad = np.abs(values) > 2
            return (mean + stddev * values).astype(np_dtype)
        return self._draw(draw)


random = _Random()
