"""The stack of recording tapes (per thread) and what a tape records: one Operation per op.

`apply` asks `record` after every op; a tape records the op when one of its inputs is
watched or was produced by an op the tape recorded (TensorFlow's rule).
"""
import threading

from .dtypes import FLOAT32
from .tensor import Variable


# Per thread: the tapes recording there, innermost last (`_state.recording`). `apply`
# checks it on every op. Per thread, so a Jacobian computed in a worker thread never
# records onto (or pauses) a tape of the UI thread, as TF keeps its tape stack per thread.
# A plain threading.local: reading an attribute of a subclass of it costs twice as much
# (73 against 33 ns here), and every op reads it. A thread's list is made on its first
# read (`stack()`); the hot paths read the attribute and call `stack()` when it is missing.
_state = threading.local()
_state.recording = []


def stack():
    """This thread's recording tapes, innermost last (the list itself: callers push and pop)."""
    try:
        return _state.recording
    except AttributeError:  # the thread's first read
        recording = _state.recording = []
        return recording


class Operation:
    """A recorded op: what `tensor.op` returns and what a gradient function receives.
    Only `record` makes them (its fields are set there, on the hot path)."""

    # _needs: which inputs the tape that recorded it tracked then (apply's one-tape
    # recording sets it; see GradientTape._relevant).
    __slots__ = ("opdef", "inputs", "outputs", "attrs", "_in_values", "_id", "_needs",
                 "__weakref__")

    @property
    def _out_values(self):
        """The output arrays. Not stored: outputs are Tensors, which never change, and
        one tuple fewer per recorded op is one object fewer for the cyclic GC."""
        return tuple([o._value for o in self.outputs])

    @property
    def type(self):
        return self.opdef.type

    @property
    def name(self):
        return f"{self.opdef.type}_{self._id}"

    def get_attr(self, name):
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"op {self.type} has no attribute '{name}'") from None

    def __repr__(self):
        return f"<Operation {self.name}>"


# GradientTape (tape.py sets it, being above this module): `record` and `apply` watch an
# accessed Variable for it inline, as its _should_record does; any other tape (the
# tf.function tracer, the graph tracer's spy, custom_gradient's watcher) is asked
# through its own _should_record.
PLAIN_TAPE = None

# The needs of one- and two-input ops, indexed by booleans: shared tuples, not a new
# one per op and pass.
NEEDS_1 = ((False,), (True,))
NEEDS_2 = (((False, False), (False, True)), ((True, False), (True, True)))
# The attrs of every op recorded without any (read only, as every op's attrs).
_NO_ATTRS = {}


def watch_accessed(tape, variable):
    """Whether GradientTape `tape` tracks `variable`, read by an op and not tracked yet:
    GradientTape._should_record's lines for that input (an accessed trainable floating
    Variable is watched if the tape watches accessed variables)."""
    if tape._watch_accessed_variables and variable.trainable and (
            variable._value.dtype is FLOAT32 or variable._value.dtype.kind == "f"):
        tape._watched_variables.append(variable)
        tape._tracked.add(variable._id)
        tape._roots.append(variable._id)
        return True
    return False


def new_operation(opdef, inputs, in_values, outputs, attrs):
    """The Operation of one op application, for the tapes that record it."""
    # Operation has no __init__: the call is object's own, cheaper than
    # object.__new__(Operation) (~400 instructions less per recorded op).
    operation = Operation()
    operation.opdef = opdef
    operation.inputs = inputs
    operation.outputs = outputs
    operation.attrs = attrs or _NO_ATTRS
    operation._in_values = in_values
    operation._id = outputs[0]._id
    return operation


def record(recording, opdef, inputs, in_values, outputs, attrs):
    """Record one op application on every tape of `recording` (the thread's recording
    tapes, which the caller has just read) that tracks one of its inputs."""
    operation = None
    for tape in recording:
        tracked = tape._tracked
        hit = False
        for t in inputs:  # _should_record, inlined
            if t._id in tracked:
                hit = True
            elif type(t) is Variable:
                if type(tape) is not PLAIN_TAPE:
                    hit = tape._should_record(inputs)  # may watch an accessed variable
                    break
                hit = watch_accessed(tape, t) or hit
        if hit:
            tape._needs_known = False  # the op may be on several tapes: no one _needs
            if operation is None:
                operation = new_operation(opdef, inputs, in_values, outputs, attrs)
            tape._entries.append(operation)
            if not opdef.outputs_off_tape:
                for t in outputs:
                    if t._value.dtype.kind == "f":
                        tracked.add(t._id)


