"""Tensors in a file: {"dtype", "shape", "data": flat list}, checked before allocation.

Floats are written with the shortest text that reads back to the same value of
their dtype, so float32 data round-trips exactly and files stay readable.
"""
import math

import numpy as np

from ..engine.errors import counted
from .document import json_kind
from .errors import DocumentError, shown

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


class Counted:
    """A data list of a file's outline (skim.py): how many values it holds, unread, and
    where its text stands, (text, start, end), for skim.numbers_read."""

    __slots__ = ("count", "span")

    def __init__(self, count, span=None):
        self.count, self.span = count, span

    def __len__(self):
        return self.count


def tensor_from_json(obj, where):
    """A tensor from its JSON form, checked before any allocation. Data `Counted` gives a
    stand-in of the declared shape and dtype that holds no values (its values are read
    and checked by the full read)."""
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        holds = "" if isinstance(obj, dict) else f", not {json_kind(obj)}"
        raise DocumentError(f"a tensor must be an object with exactly dtype, shape and data{holds}",
                            where=where)
    dtype, shape, data = obj["dtype"], obj["shape"], obj["data"]
    if dtype not in DTYPES:
        raise DocumentError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}"[:200],
                            where=where)
    count = check_shape(shape, where)
    if not isinstance(data, (list, Counted)):
        raise DocumentError(f"data must be a flat list of numbers, not {json_kind(data)}", where=where)
    if len(data) != count:
        raise DocumentError(f"data has {counted(len(data), 'value')} but shape {shape} needs {count}",
                            where=where)
    if isinstance(data, Counted):
        return np.broadcast_to(np.zeros((), dtype), shape)
    kind = np.dtype(dtype).kind
    values = data
    if not set(map(type, data)) <= _PLAIN[kind]:   # a bool, a text: each checked, the first bad one named
        for i, v in enumerate(data):
            if not _fits(v, kind):
                raise DocumentError(f"data[{i}] = {v!r} is not a {dtype} value"[:200], where=where)
        values = [float(v) if isinstance(v, str) else v for v in data]
    try:
        with np.errstate(over="raise"):
            array = np.array(values, dtype=dtype)
    except (OverflowError, ValueError, FloatingPointError) as e:
        raise DocumentError(f"data does not fit {dtype}: {e}", where=where) from None
    return array.reshape(shape)


# The types of values a tensor of each dtype kind takes as they are: checking their set is
# one pass in C, where checking each value in Python took 3.5 s of a 1000 x 1000 x 3 file.
_PLAIN = {"f": {float, int}, "i": {int}, "u": {int}, "b": {bool}}


def _fits(v, kind):
    if kind == "b":
        return isinstance(v, bool)
    if isinstance(v, bool):
        return False
    if kind == "f":
        return isinstance(v, (int, float)) or v in ("nan", "inf", "-inf")
    return isinstance(v, int)


def amount(n):
    """A count for a message: exact when small, else three digits and a power of ten."""
    if n < 1_000_000:
        return str(int(n))
    mantissa, exponent = f"{n:.2e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def dims(shape):
    """A shape as the cards write it: '3×3×1×4', or 'scalar'."""
    return "×".join(str(d) for d in shape) if shape else "scalar"


def dims_text(shape):
    """A shape for a message: huge dimensions by their number of digits."""
    return "[" + ", ".join(shown(d, 20) for d in shape) + "]"


def size_problem(shape):
    """What makes a tensor of `shape` (non-negative integers) too large, in words, or None.

    More than MAX_ELEMENTS elements; or, when a 0 makes it empty, other dimensions that
    multiply to more than that: numpy cannot even describe such an array ("array is too
    big", "Maximum allowed dimension exceeded"), and an op that reduces the empty axis
    would make a tensor of that size."""
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        return (f"shape {dims_text(shape)} has {amount(count)} elements, more than the limit "
                f"of {amount(MAX_ELEMENTS)} for one tensor")
    rest = math.prod(d for d in shape if d)
    if count == 0 and rest > MAX_ELEMENTS:
        return (f"shape {dims_text(shape)} is empty, but its other dimensions multiply to "
                f"{amount(rest)}, more than the limit of {amount(MAX_ELEMENTS)} for one tensor")
    return None


def check_shape(shape, where):
    """The element count of a declared shape; an error naming the first bad dimension, or
    the shape when it is too large, before anything is allocated."""
    if not isinstance(shape, list):
        raise DocumentError(f"shape must be a list of non-negative integers, got {shown(shape)}",
                            where=where)
    if len(shape) > MAX_RANK:
        raise DocumentError(f"shape has rank {len(shape)}; at most {MAX_RANK} is allowed",
                            where=where)
    for i, d in enumerate(shape):
        if not isinstance(d, int) or isinstance(d, bool):
            raise DocumentError(f"shape {shown(shape)}: dimension {i} is {shown(d)}, not an "
                                "integer", where=where)
        if d < 0:
            raise DocumentError(f"shape {dims_text(shape)}: dimension {i} is {d}; a dimension "
                                "cannot be negative", where=where)
        if d > MAX_ELEMENTS:
            raise DocumentError(f"dimension {i} of the shape is {shown(d)}, more than the "
                                f"limit of {amount(MAX_ELEMENTS)}", where=where)
    problem = size_problem(shape)
    if problem:
        raise DocumentError(problem, where=where)
    return math.prod(shape)
