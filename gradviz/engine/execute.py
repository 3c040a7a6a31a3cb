"""Running one op: compute it with numpy, wrap the result, record it if a tape asks."""
import numpy as np

from . import recording as _recording
from .dtypes import FLOAT32
from .tensor import Tensor, Variable, _next_id, convert_to_tensor, new_tensor

_state = _recording._state
_stack = _recording.stack
_record = _recording.record
_NO_ATTRS = _recording._NO_ATTRS
_NEEDS_1, _NEEDS_2 = _recording.NEEDS_1, _recording.NEEDS_2
_watch_accessed = _recording.watch_accessed
Operation = _recording.Operation


def apply(opdef, inputs, attrs=None):
    """Run `opdef` on tensors `inputs`; returns a Tensor (or a list for multi-output ops)."""
    # Tuples, not lists: a tuple of arrays leaves the cyclic GC's lists at its first
    # collection, so the values a tape keeps do not make the GC's later passes longer.
    n = len(inputs)
    if n == 1:
        values = (inputs[0]._value,)
    elif n == 2:
        values = (inputs[0]._value, inputs[1]._value)
    else:
        values = tuple([t._value for t in inputs])
    try:
        out = opdef.forward(*values, **attrs) if attrs else opdef.forward(*values)
    except (ValueError, IndexError, np.linalg.LinAlgError) as e:
        shapes = ", ".join(str(tuple(v.shape)) for v in values)
        raise type(e)(f"{opdef.type} cannot run on inputs of shapes {shapes}: {e}") from None
    if opdef.n_outputs == 1:
        result = new_tensor()  # Tensor._wrap, inlined: once per op
        result._value = out
        result._id = _next_id()
        try:
            recording = _state.recording
        except AttributeError:  # the thread's first op
            recording = _stack()
        if not recording:
            return result
        if len(recording) == 1:
            # record() for one tape, written out: every recorded op passes here, and the
            # call was a sixth of an op's recording.
            tape = recording[0]
            tracked = tape._tracked
            if n == 2 and type(tape) is _recording.PLAIN_TAPE:
                # Which inputs the tape tracks is also which carry gradient back (the
                # op's _needs, below): found once. An untracked Variable is watched
                # first if the tape watches accessed variables.
                a, b = inputs
                need_a = a._id in tracked
                if not need_a and type(a) is Variable:
                    need_a = _watch_accessed(tape, a)
                need_b = b._id in tracked
                if not need_b and type(b) is Variable:
                    need_b = _watch_accessed(tape, b)
                hit = need_a or need_b
                needs = _NEEDS_2[need_a][need_b]
            else:
                needs = None
                hit = False
                for t in inputs:
                    if t._id in tracked:
                        hit = True
                    elif type(t) is Variable:
                        if type(tape) is not _recording.PLAIN_TAPE:
                            hit = tape._should_record(inputs)  # may watch an accessed variable
                            break
                        hit = _watch_accessed(tape, t) or hit
            if hit:
                operation = Operation()  # no __init__: see recording.new_operation
                operation.opdef = opdef
                operation.inputs = inputs
                operation.outputs = [result]
                operation.attrs = attrs or _NO_ATTRS
                operation._in_values = values
                operation._id = result._id
                # Which inputs carry gradient back: those the tape tracks (all floating).
                if needs is not None:
                    operation._needs = needs
                elif n == 1:
                    operation._needs = _NEEDS_1[1]
                elif n == 2:
                    operation._needs = _NEEDS_2[inputs[0]._id in tracked][inputs[1]._id in tracked]
                else:
                    operation._needs = tuple([t._id in tracked for t in inputs])
                tape._entries.append(operation)
                if opdef.outputs_off_tape:
                    tape._needs_known = False
                else:
                    dtype = out.dtype
                    if dtype is FLOAT32 or dtype.kind == "f":
                        tracked.add(result._id)
            return result
        if len(recording) == 2:
            _record_on_two(recording, opdef, inputs, values, result, attrs)
        else:
            _record(recording, opdef, inputs, values, [result], attrs)
        return result
    results = [Tensor._wrap(o) for o in out]
    recording = _stack()
    if recording:
        _record(recording, opdef, inputs, values, results, attrs)
    return results


def _record_on_two(recording, opdef, inputs, values, result, attrs):
    """recording.record for two tapes and one output, written out: both tapes of a
    Hessian's forward (nested tapes) pass here for every op, and the general loop over
    tapes, inputs and outputs cost ~0.7 us an op more."""
    first, second = recording
    plain = _recording.PLAIN_TAPE
    if type(first) is not plain or type(second) is not plain:
        _record(recording, opdef, inputs, values, [result], attrs)
        return
    tracked_1 = first._tracked
    tracked_2 = second._tracked
    hit_1 = hit_2 = False
    for t in inputs:  # _should_record of each tape, inlined (watching accessed Variables)
        i = t._id
        if i in tracked_1:
            hit_1 = True
        elif type(t) is Variable:
            hit_1 = _watch_accessed(first, t) or hit_1
        if i in tracked_2:
            hit_2 = True
        elif type(t) is Variable:
            hit_2 = _watch_accessed(second, t) or hit_2
    if not (hit_1 or hit_2):
        return
    operation = _recording.new_operation(opdef, inputs, values, [result], attrs)
    # An op on both tapes has no one _needs (see GradientTape._relevant): the tapes scan.
    if opdef.outputs_off_tape:
        floating = False
    else:
        dtype = result._value.dtype
        floating = dtype is FLOAT32 or dtype.kind == "f"
    if hit_1 and hit_2:
        first._nested = second._nested = True  # their scans may share (tape._scanned)
    if hit_1:
        first._needs_known = False
        first._entries.append(operation)
        if floating:
            tracked_1.add(result._id)
    if hit_2:
        second._needs_known = False
        second._entries.append(operation)
        if floating:
            tracked_2.add(result._id)


def tensors(*values):
    """Convert op arguments: Python scalars and lists take the dtype of a tensor among them."""
    # Fast paths for the common calls: one tensor, two tensors of one dtype, or a
    # floating tensor and a Python number (`y - 1`, `g / n` in the rules). Everything
    # else takes the general path, which gives these the same result.
    # Tuples: one allocation (a list is two), and a recorded op keeps them as its inputs.
    # Exact types, not isinstance: Tensor's metaclass makes isinstance of anything else
    # (a Variable, a number) a method call; other Tensor subclasses take the general path.
    n = len(values)
    if n == 1:
        kind = type(values[0])
        if kind is Tensor or kind is Variable:
            return values
    elif n == 2:
        a, b = values
        kind_a = type(a)
        kind_b = type(b)
        if kind_a is Tensor or kind_a is Variable:
            if kind_b is Tensor or kind_b is Variable:
                if a._value.dtype is b._value.dtype:
                    return values
            elif (kind_b is float or kind_b is int) and a._value.dtype.kind == "f":
                c = new_tensor()  # Tensor._wrap, inlined
                c._value = np.asarray(b, a._value.dtype)
                c._id = _next_id()
                return (a, c)
        elif ((kind_a is float or kind_a is int) and (kind_b is Tensor or kind_b is Variable)
              and b._value.dtype.kind == "f"):
            c = new_tensor()
            c._value = np.asarray(a, b._value.dtype)
            c._id = _next_id()
            return (c, b)
    dtype = None
    for v in values:
        if isinstance(v, Tensor):
            dtype = v._value.dtype
            break
    out = []
    for v in values:
        if isinstance(v, Tensor):
            if dtype is not None and v._value.dtype != dtype:
                raise TypeError(
                    f"inputs must have the same dtype: got {dtype.name} and {v.dtype.name} "
                    "(use gradviz.cast to convert one of them)")
            out.append(v)
        elif dtype is not None and isinstance(v, (int, float, bool, list, tuple)):
            if dtype.kind != "f" and (type(v) is float or (
                    type(v) is not int and np.asarray(v).dtype.kind == "f")):
                # As TF: 0.5 does not silently become 0 next to an integer tensor.
                raise TypeError(f"cannot convert {v!r} to a tensor of dtype {dtype.name} "
                                "(use gradviz.cast to make the tensor floating)")
            out.append(Tensor._wrap(np.asarray(v, dtype=dtype)))
        elif (dtype is not None and isinstance(v, (np.ndarray, np.generic))
              and v.dtype.kind == dtype.kind):
            out.append(Tensor._wrap(np.asarray(v, dtype=dtype)))
        else:
            t = convert_to_tensor(v)
            if dtype is None:
                dtype = t._value.dtype
            elif t._value.dtype != dtype:
                raise TypeError(
                    f"inputs must have the same dtype: got {dtype.name} and {t.dtype.name} "
                    "(use gradviz.cast to convert one of them)")
            out.append(t)
    return out
