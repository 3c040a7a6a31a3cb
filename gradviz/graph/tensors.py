"""Tensors in a file: {"dtype", "shape", "data": flat list}, checked before allocation.

Floats are written with the shortest text that reads back to the same value of
their dtype, so float32 data round-trips exactly and files stay readable.
"""
import math

import numpy as np

from .errors import DocumentError

MAX_ELEMENTS = 50_000_000  # per tensor and per file; checked before anything is allocated
MAX_RANK = 8
DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def tensor_to_json(array):
    array = np.asarray(array)
    return {"dtype": array.dtype.name, "shape": list(array.shape),
            "data": [_scalar(v, array.dtype) for v in array.reshape(-1).tolist()]}


def _scalar(v, dtype):
    if dtype.kind == "f":
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return _Float(v, dtype)
    return v


class _Float(float):
    """A float written with the shortest text that reads back to the same value of its dtype."""

    def __new__(cls, v, dtype):
        self = super().__new__(cls, v)
        self.text = repr(float(v)) if dtype == np.float64 else _short(v, dtype)
        return self


def _short(v, dtype):
    text = str(dtype.type(v))
    return text if any(c in text for c in ".e") else text + ".0"


def tensor_from_json(obj, where):
    """A tensor from its JSON form, checked before any allocation."""
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise DocumentError("a tensor must be an object with exactly dtype, shape and data",
                            where=where)
    dtype, shape, data = obj["dtype"], obj["shape"], obj["data"]
    if dtype not in DTYPES:
        raise DocumentError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}"[:200],
                            where=where)
    count = check_shape(shape, where)
    if not isinstance(data, list):
        raise DocumentError("data must be a flat list of numbers", where=where)
    if len(data) != count:
        raise DocumentError(f"data has {len(data)} values but shape {shape} needs {count}",
                            where=where)
    kind = np.dtype(dtype).kind
    for i, v in enumerate(data):
        if not _fits(v, kind):
            raise DocumentError(f"data[{i}] = {v!r} is not a {dtype} value"[:200], where=where)
    try:
        with np.errstate(over="raise"):
            values = [float(v) if isinstance(v, str) else v for v in data]
            array = np.array(values, dtype=dtype)
    except (OverflowError, ValueError, FloatingPointError) as e:
        raise DocumentError(f"data does not fit {dtype}: {e}", where=where) from None
    return array.reshape(shape)


def _fits(v, kind):
    if kind == "b":
        return isinstance(v, bool)
    if isinstance(v, bool):
        return False
    if kind == "f":
        return isinstance(v, (int, float)) or v in ("nan", "inf", "-inf")
    return isinstance(v, int)


def check_shape(shape, where):
    """The element count of a declared shape; an error if it is malformed or too large."""
    if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise DocumentError(f"shape must be a list of non-negative integers, got {shape!r}"[:200],
                            where=where)
    if len(shape) > MAX_RANK:
        raise DocumentError(f"shape {shape} has rank {len(shape)}; at most {MAX_RANK} is allowed",
                            where=where)
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        raise DocumentError(f"shape {shape} has {count} elements, more than the limit of "
                            f"{MAX_ELEMENTS}", where=where)
    return count
