"""The one place an axis argument is checked and normalised, for every op that takes one.

TF refuses an axis outside [-rank, rank) with an InvalidArgumentError (softmax_op_test's
testDimTooLarge and testInvalidAxis; gather and concat say "Expected axis in the range
[-r, r)"); numpy's `axis % rank` would quietly turn axis 5 of a matrix into axis 1, so
no op normalises an axis any other way. The document checks (graph/shape_error.py) use the
same functions, so the app, the CLI and a script get the same words.
"""
import numpy as np

from .errors import InvalidArgumentError


def _integer(value, what):
    """An axis given as a Python or numpy integer (or a scalar integer tensor)."""
    value = getattr(value, "_value", value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, got {value!r}"[:200])
    return int(value)


def axis_index(axis, rank, what="axis", new=False):
    """`axis` as 0..rank-1, or InvalidArgumentError in words when it is out of range.
    `new`: the axis of an inserted dimension (expand_dims, stack): `rank` counts it."""
    axis = _integer(axis, what)
    if not -rank <= axis < rank:
        span = f"{-rank}..{rank - 1}" if rank else "none: the tensor is a scalar"
        of = f"a new axis of a tensor of rank {rank - 1}" if new else f"a tensor of rank {rank}"
        text = str(axis) if abs(axis) < 10**20 else f"(an integer of {len(str(abs(axis)))} digits)"
        raise InvalidArgumentError(f"{what} {text} is out of range for {of} (valid: {span})")
    return axis % rank


def axes_from_end(axis, rank, what="axis", ordered=False):
    """A reduction's axis argument (None: all; an integer; a list) as a tuple of negative
    axes (counted from the end, so a rule still holds when a cotangent carries leading
    batch axes), sorted unless `ordered`. An axis named twice is refused, as TF does."""
    if axis is None:
        return tuple(range(-rank, 0))
    axis = getattr(axis, "_value", axis)
    listed = np.asarray(axis).reshape(-1).tolist() if isinstance(axis, np.ndarray) else axis
    if not isinstance(listed, (list, tuple)):
        listed = [listed]
    indices = [axis_index(a, rank, what) for a in listed]
    if len(set(indices)) != len(indices):
        raise InvalidArgumentError(f"{what} {list(listed)} names an axis twice")
    axes = [i - rank for i in indices]
    return tuple(axes if ordered else sorted(axes))
