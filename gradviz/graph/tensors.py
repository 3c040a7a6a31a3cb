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


# Non-finite floats are JSON strings; a finite float's text always has a '.' or an 'e'.
_NOT_FINITE = {"nan": '"nan"', "inf": '"inf"', "-inf": '"-inf"'}


def data_texts(flat):
    """The JSON text of each value of the 1-D array `flat`: a float in the shortest text
    that reads back to the same value of its dtype (numpy's, for float16 and float32),
    non-finite floats as "nan", "inf", "-inf"."""
    kind = flat.dtype.kind
    if kind == "b":
        return ["true" if v else "false" for v in flat.tolist()]
    if kind != "f":
        return [str(v) for v in flat.tolist()]
    texts = map(repr, flat.tolist()) if flat.dtype == np.float64 else map(str, flat)
    return [t if "." in t or "e" in t else _NOT_FINITE.get(t, t + ".0") for t in texts]


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
