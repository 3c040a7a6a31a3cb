"""tf.TensorSpec: the shape and dtype a tensor must have; None marks a dimension (or a
whole shape) left free. tf.function keys its traces by these."""
import numpy as np

from . import dtypes
from .tensor import Tensor, TensorShape


class TensorSpec:
    """Describes a tensor: `TensorSpec(shape, dtype=tf.float32, name=None)`."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = None if shape is None else TensorShape(
            None if d is None else int(d) for d in shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tuple(tensor.shape), tensor.dtype, name)

    @property
    def shape(self):
        """A TensorShape of ints and None, or None when even the rank is free."""
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, other):
        """True when `other` (a spec, a tensor or an array) could be described by self."""
        if isinstance(other, TensorSpec):
            shape, dtype = other._shape, other._dtype
        else:
            value = other._value if isinstance(other, Tensor) else np.asarray(other)
            shape, dtype = value.shape, dtypes.from_numpy(value.dtype)
        return dtype == self._dtype and _shapes_compatible(self._shape, shape)

    def is_subtype_of(self, other):
        """Every tensor self describes is described by `other` (other is as free or freer)."""
        if not isinstance(other, TensorSpec) or other._dtype != self._dtype:
            return False
        if other._shape is None:
            return True
        if self._shape is None or len(self._shape) != len(other._shape):
            return False
        return all(o is None or s == o for s, o in zip(self._shape, other._shape))

    def most_specific_common_supertype(self, others):
        """The tightest spec describing self and every spec in `others` (None if the
        dtypes differ): dimensions that differ become None, ranks that differ free the
        whole shape."""
        shape = self._shape
        for other in others:
            if not isinstance(other, TensorSpec) or other._dtype != self._dtype:
                return None
            shape = _join(shape, other._shape)
        return TensorSpec(shape, self._dtype, self._name)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape
                and self._dtype == other._dtype and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        shape = "None" if self._shape is None else str(self._shape)
        name = "None" if self._name is None else repr(self._name)
        return f"TensorSpec(shape={shape}, dtype={self._dtype!r}, name={name})"


def _shapes_compatible(a, b):
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def _join(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))
