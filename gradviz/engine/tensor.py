"""Tensor and Variable: an ndarray with an identity the tape can refer to.

A Tensor is immutable; its `_id` is what tapes watch and record. A Variable keeps
one id for its whole life while `assign` swaps the array behind it, which is how
gradients "with respect to a variable" survive updates.
"""
import itertools
import threading
import weakref

import numpy as np

from . import dtypes
from .errors import counted
from .tracing import _trace

_next_id = itertools.count(1).__next__

class _LiveTapes:
    """Weak references to the tapes made, pruned of dead ones whenever their count
    doubles. Lighter than a WeakSet, whose add and per-tape removal callback are Python
    code run for every tape (W2 makes one per step); `tensor.op`, the only reader, is rare.

    Tapes are made on worker threads too. `add` takes no lock (list.append is atomic):
    only pruning does, and it deletes dead entries in place from the end, so an append
    on another thread meanwhile is never lost."""

    def __init__(self):
        self._refs = []
        self._limit = 64
        self._lock = threading.Lock()

    def add(self, tape):
        refs = self._refs
        refs.append(weakref.ref(tape))
        if len(refs) > self._limit:
            self._prune()

    def _prune(self):
        with self._lock:
            refs = self._refs
            for i in range(len(refs) - 1, -1, -1):
                if refs[i]() is None:
                    del refs[i]
            self._limit = max(64, 2 * len(refs))

    def alive(self):
        refs = list(self._refs)
        return [tape for tape in (r() for r in refs) if tape is not None]


# Every tape alive, so `tensor.op` can find the Operation that produced a tensor
# without the tensor pointing at it (see Tensor._op).
_live_tapes = _LiveTapes()


def producer_of(tensor):
    """The Operation that produced `tensor` on some live tape, or None."""
    for tape in _live_tapes.alive():
        op = tape._producer(tensor._id)
        if op is not None:
            return op
    return None


class TensorShape(tuple):
    """A tuple of ints with TensorShape's helpers (as_list, rank, num_elements)."""

    __slots__ = ()

    def as_list(self):
        return list(self)

    @property
    def rank(self):
        return len(self)

    @property
    def ndims(self):
        return len(self)

    def num_elements(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __eq__(self, other):
        """As in TF, a shape equals a list or tuple of the same dimensions."""
        if isinstance(other, (list, tuple)):
            return tuple.__eq__(self, tuple(other))
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        """TF prints shapes as tuples: `print(y.shape)` gives (201,)."""
        return tuple.__repr__(self)


class _TensorType(type):
    """Tensor's metaclass: calling `Tensor(...)` raises, as calling tf.Tensor does (a
    tensor is made by tf.constant or convert_to_tensor). The engine allocates tensors
    with `new_tensor`, type's own call bound to Tensor: as fast as a class call
    without __init__, and it never runs this one. Subclasses (Variable) construct as usual."""

    def __call__(cls, *args, **kwargs):
        if cls is Tensor:
            raise TypeError(
                "tf.Tensor cannot be constructed directly: make a tensor with "
                "gradviz.constant(value) or gradviz.convert_to_tensor(value)")
        return super().__call__(*args, **kwargs)


class Tensor(metaclass=_TensorType):
    """An immutable value; `op` is the recorded operation that produced it, if any."""

    __slots__ = ("_value", "_id", "__weakref__")
    __array_priority__ = 100

    # No __init__: `new_tensor()` (below) is then object's own allocation, cheaper than
    # object.__new__(Tensor) through its wrapper, and every op makes one. Tensors of a
    # value are made by `tensor_of` (tf.constant, convert_to_tensor), as in TF, where
    # tf.Tensor is not called with a value either.

    @classmethod
    def _wrap(cls, array):
        """Wrap an ndarray the engine just computed (no copy, no checks)."""
        t = new_tensor() if cls is Tensor else object.__new__(cls)
        t._value = array
        t._id = _next_id()
        return t

    @property
    def _op(self):
        """The recorded Operation that produced this tensor, while a tape holds it.

        Found through the live tapes rather than stored here: an Operation refers to
        its outputs, and a reference back would make one reference cycle per recorded
        op, which only the cyclic GC frees (slowly, keeping every intermediate alive).
        Looking it up costs only when asked; recording stays cheap.
        """
        return producer_of(self)

    # -- reading ---------------------------------------------------------
    @property
    def shape(self):
        return TensorShape(self._value.shape)

    @property
    def dtype(self):
        return dtypes.from_numpy(self._value.dtype)

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        return self._value.size

    @property
    def op(self):
        op = self._op  # a scan of the live tapes: once
        if op is None:
            raise AttributeError(
                "this tensor was not recorded by a GradientTape (or no tape that recorded "
                "it exists any more), so it has no op; compute it inside a tape that "
                "watches its inputs")
        return op

    @property
    def name(self):
        op = self._op
        return op.name + ":0" if op is not None else f"Tensor_{self._id}"

    def numpy(self):
        if _trace.tracer is not None:
            _trace.tracer.python_value(self, ".numpy()")
        v = self._value
        return v[()] if v.ndim == 0 else v.copy()

    def get_shape(self):
        return self.shape

    def __array__(self, dtype=None, copy=None):
        if _trace.tracer is not None:
            _trace.tracer.python_value(self, "a numpy conversion")
        return self._value if dtype is None else self._value.astype(dtype)

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("len() of a scalar tensor")
        return len(self._value)

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iterating over a scalar tensor")
        for i in range(len(self._value)):
            yield self[i]

    def __bool__(self):
        if _trace.tracer is not None:
            _trace.tracer.python_value(self, "bool()")
        return bool(self._value)

    def __float__(self):
        if _trace.tracer is not None:
            _trace.tracer.python_value(self, "float()")
        return float(self._value)

    def __int__(self):
        if _trace.tracer is not None:
            _trace.tracer.python_value(self, "int()")
        return int(self._value)

    def __index__(self):
        if self._value.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, not {self.dtype.name}")
        if _trace.tracer is not None:
            _trace.tracer.python_value(self, "an index")
        return int(self._value)

    def __hash__(self):
        return self._id

    def __repr__(self):
        return (f"<tf.Tensor: shape={tuple(self.shape)}, dtype={self.dtype.name}, "
                f"numpy={_numpy_text(self._value)}>")

    def __str__(self):
        body = str(self._value)
        if self._value.ndim > 1:
            body = "\n" + body
        return f"tf.Tensor({body}, shape={tuple(self.shape)}, dtype={self.dtype.name})"

    # Python's operators (+ - * / ** @, comparisons, indexing) call the ops: operators.py
    # sets them on this class when the engine loads.

    # Hashable by identity (TF would need .ref()): tapes and documents key on tensors.
    __hash__ = __hash__


# An empty Tensor (its _value and _id set by the caller): the engine's allocation, which
# skips _TensorType.__call__ (see there).
new_tensor = type.__call__.__get__(Tensor)


class Variable(Tensor):
    """A mutable tensor with a stable identity; trainable ones are auto-watched by tapes."""

    __slots__ = ("trainable", "_name")

    def __init__(self, initial_value, trainable=True, name=None, dtype=None):
        if callable(initial_value):
            initial_value = initial_value()
        self._value = _to_array(initial_value, dtype)
        self._id = _next_id()
        if _trace.tracer is not None:
            _trace.tracer.variables_created = True
        self.trainable = bool(trainable)
        self._name = name or "Variable"  # TF's eager default; names need not be unique

    @property
    def name(self):
        return self._name + ":0"

    @property
    def op(self):
        raise AttributeError("a Variable is not produced by an op")

    def _check(self, value):
        array = _to_array(value, self._value.dtype)
        if array.shape != self._value.shape:
            raise ValueError(
                f"cannot assign a value of shape {array.shape} to variable "
                f"'{self._name}' of shape {self._value.shape}")
        return array

    # Under tf.function's tracer an assign is recorded (and done): see trace_program.py.
    def assign(self, value):
        if _trace.tracer is not None:
            return _trace.tracer.assign(self, value, None)
        self._value = self._check(value)
        return self

    def assign_add(self, delta):
        if _trace.tracer is not None:
            return _trace.tracer.assign(self, delta, "add")
        self._value = self._value + self._check(delta)
        return self

    def assign_sub(self, delta):
        if _trace.tracer is not None:
            return _trace.tracer.assign(self, delta, "subtract")
        self._value = self._value - self._check(delta)
        return self

    # read_value (and value), a recorded read: set by operators.py.

    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={tuple(self.shape)} dtype={self.dtype.name}, "
                f"numpy={_numpy_text(self._value)}>")

    __str__ = __repr__  # print(v) shows the variable, as TF does


def _compare(op, a, b, if_incompatible):
    if b is None:
        return if_incompatible
    try:
        return op(a, b)
    except (TypeError, ValueError):
        return if_incompatible


def _numpy_text(array):
    """The value as TF's repr shows it: `4.0` for a scalar, `array([...], dtype=float32)`."""
    text = str(array[()]) if array.ndim == 0 else repr(array)
    return "\n" + text if "\n" in text else text


def _to_array(value, dtype=None):
    """TF's conversion rules: Python floats become float32, Python ints int32. Only numbers
    and booleans make a tensor (see _numeric)."""
    return _numeric(_converted(value, dtype), value)


_KINDS = {"U": "text", "S": "bytes", "O": "Python object", "c": "complex", "M": "date",
          "m": "time-span", "V": "structured"}


def _numeric(array, value):
    """`array` when it holds floats, integers or booleans; else a TypeError in words.

    A decision, not an accident: TF has string tensors, but they have no gradient and no
    arithmetic, and numpy would carry text or Python objects through an op until some
    kernel failed far from the cause; complex numbers have no gradient rules here."""
    if array.dtype.kind not in "biuf":
        what = _KINDS.get(array.dtype.kind, array.dtype.name)
        raise TypeError(f"cannot make a tensor of {what} values ({_short(value)}): gradviz "
                        "tensors hold numbers (floats, integers) and booleans only")
    return array


def _converted(value, dtype):
    np_dtype = None
    if dtype is not None:
        np_dtype = dtypes.as_dtype(dtype)._np
    if isinstance(value, Tensor):
        if _trace.tracer is not None:  # a traced value would become a constant
            _trace.tracer.python_value(value, "a new tensor made from a tensor's value")
        array = value._value
        return array if np_dtype is None or array.dtype == np_dtype else array.astype(np_dtype)
    if isinstance(value, np.ndarray):
        if np_dtype is not None and value.dtype != np_dtype:
            return value.astype(np_dtype)
        return value.copy()
    if isinstance(value, np.generic):
        return np.asarray(value, dtype=np_dtype)
    if np_dtype is None:
        array = np.asarray(_unwrap_nested(value))
        kind = array.dtype.kind
        if kind == "f":
            array = array.astype(np.float32)
        elif kind in "iu":
            array = array.astype(np.int32)
        elif kind == "O":
            raise TypeError(f"cannot convert {type(value).__name__} to a tensor")
        return array
    data = _unwrap_nested(value)
    if np_dtype.kind in "iub" and np.asarray(data).dtype.kind in "fc":
        # As TF: Python floats do not silently truncate to an integer dtype.
        raise TypeError(f"cannot convert {_short(value)} to a tensor of dtype {np_dtype.name} "
                        "(Python floats do not truncate; use gradviz.cast on a float tensor)")
    return np.asarray(data, dtype=np_dtype)


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _unwrap_nested(value):
    if isinstance(value, Tensor):
        if _trace.tracer is not None:
            _trace.tracer.python_value(value, "a new tensor made from a list of tensors")
        return value._value
    if isinstance(value, (list, tuple)):
        return [_unwrap_nested(v) for v in value]
    return value


def convert_to_tensor(value, dtype=None, name=None):
    """A Tensor for `value`; tensors pass through (converted only if dtype differs)."""
    if isinstance(value, Tensor):
        if dtype is None or value.dtype == dtype:
            return value
        raise ValueError(
            f"tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
            f"for a tensor of dtype {value.dtype.name}")
    return tensor_of(value, dtype)


def tensor_of(value, dtype=None):
    """A new Tensor holding `value` converted by TF's rules (see _to_array)."""
    t = new_tensor()
    t._value = _to_array(value, dtype)
    t._id = _next_id()
    return t


def constant(value, dtype=None, shape=None, name=None):
    array = _to_array(value, dtype)
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if array.size == 1:
            array = np.broadcast_to(array.reshape(()), shape).copy()
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise ValueError(f"a value of {counted(array.size, 'element')} cannot fill shape {shape}")
    return Tensor._wrap(array)

