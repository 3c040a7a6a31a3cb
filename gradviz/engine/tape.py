"""GradientTape: record ops while watched tensors flow, then run the backward pass.

Semantics follow TensorFlow: a tape records an op when one of its inputs is
watched or was produced by an op this tape recorded; `gradient` of a non-scalar
target seeds ones (the gradient of the sum of its elements); `output_gradients`
replaces that seed; unconnected sources give None or zeros.
"""
import enum
import threading
import weakref

import numpy as np

from . import backend as _backend, blocks, nest
from .registry import define_op
from .tensor import Tensor, Variable, convert_to_tensor

class _ThreadState(threading.local):
    """Per thread: the tapes recording there, innermost last. `apply` checks it on every
    op. Per thread, so a Jacobian computed in a worker thread never records onto (or
    pauses) a tape of the UI thread, as TF keeps its tape stack per thread."""

    def __init__(self):
        self.recording = []


_state = _ThreadState()


class UnconnectedGradients(enum.Enum):
    NONE = "none"
    ZERO = "zero"


class Operation:
    """A recorded op: what `tensor.op` returns and what a gradient function receives."""

    __slots__ = ("opdef", "inputs", "outputs", "attrs", "_in_values", "_out_values", "_id",
                 "__weakref__")

    def __init__(self, opdef, inputs, outputs, attrs, in_values, out_values):
        self.opdef = opdef
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs or {}
        self._in_values = in_values
        self._out_values = out_values
        self._id = outputs[0]._id

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


_new_operation = Operation.__new__


def record(opdef, inputs, in_values, outputs, out_values, attrs):
    """Record one op application on every recording tape that tracks one of its inputs."""
    operation = None
    for tape in _state.recording:
        tracked = tape._tracked
        hit = False
        for t in inputs:  # _should_record, inlined for inputs that are not Variables
            if t._id in tracked:
                hit = True
            elif type(t) is Variable:
                hit = tape._should_record(inputs)  # may watch an accessed variable
                break
        if hit:
            if operation is None:
                # Operation.__init__, inlined: this runs once per recorded op.
                operation = _new_operation(Operation)
                operation.opdef = opdef
                operation.inputs = inputs
                operation.outputs = outputs
                operation.attrs = attrs or {}
                operation._in_values = in_values
                operation._out_values = out_values
                operation._id = outputs[0]._id
            tape._entries.append(operation)
            for t in outputs:
                if t._value.dtype.kind == "f":
                    tracked.add(t._id)


# Every tape alive, so `tensor.op` can find the Operation that produced a tensor
# without the tensor pointing at it (see Tensor._op).
_live_tapes = weakref.WeakSet()


def producer_of(tensor):
    """The Operation that produced `tensor` on some live tape, or None."""
    for tape in list(_live_tapes):
        op = tape._producer(tensor._id)
        if op is not None:
            return op
    return None


class Observer:
    """Receives each step of a backward pass. Subclass and override what you need.

    The backward pass calls these only when an observer is attached.
    """

    def seed(self, target, cotangent, given):
        """The cotangent a target starts with (`given`: from output_gradients)."""

    def fan_in(self, tensor, contributions, total):
        """Several consumers' contributions to one tensor, and their sum."""

    def visit(self, op, upstream):
        """An op is reached with the (summed) upstream cotangent of its output(s)."""

    def contribution(self, op, index, cotangent):
        """The op's local VJP gave `cotangent` for input `index` (None: no gradient)."""

    def cut(self, op, index):
        """Input `index` of op gets nothing because the op stops gradients."""

    def accumulate(self, source, total):
        """A source's final gradient (None when unconnected)."""


class GradientTape:
    """Records operations for automatic differentiation, as tf.GradientTape."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._entries = []
        self._tracked = set()
        self._watched_variables = []
        self._entered = False
        self._used = False
        self._producers = (None, 0, {})  # (entries list, its length, output id -> op)
        _live_tapes.add(self)

    def _producer(self, tensor_id):
        entries, n, table = self._producers
        if entries is not self._entries or n != len(self._entries):
            table = {o._id: op for op in self._entries for o in op.outputs}
            self._producers = (self._entries, len(self._entries), table)
        return table.get(tensor_id)

    # -- context --------------------------------------------------------
    def __enter__(self):
        if self._entered:
            raise ValueError(
                "this GradientTape is already recording; a tape cannot be entered "
                "twice (exit it first, or use a new tape)")
        self._entered = True
        _state.recording.append(self)
        return self

    def __exit__(self, *exc):
        if self in _state.recording:
            _state.recording.remove(self)
        self._entered = False
        return False

    @property
    def _is_recording(self):
        return self in _state.recording

    def stop_recording(self):
        """Context manager: ops inside it are not recorded on this tape."""
        return _StopRecording(self)

    def reset(self):
        """Forget everything recorded and watched, as if the tape were entered anew."""
        if not self._is_recording:
            raise ValueError("Tape is not recording: reset() works only inside the tape's context.")
        self._entries = []
        self._tracked = set()
        self._watched_variables = []
        self._used = False

    # -- watching -------------------------------------------------------
    def watch(self, tensor):
        for t in nest.flatten(tensor):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"GradientTape.watch expects tensors or variables, got {type(t).__name__}")
            if t._value.dtype.kind != "f":
                continue  # integer tensors are not differentiable, as in TF
            if isinstance(t, Variable):
                if not any(v is t for v in self._watched_variables):
                    self._watched_variables.append(t)
            self._tracked.add(t._id)

    def watched_variables(self):
        return tuple(self._watched_variables)

    def _should_record(self, inputs):
        tracked = self._tracked
        hit = False
        for t in inputs:
            if t._id in tracked:
                hit = True
            elif (type(t) is Variable and self._watch_accessed_variables and t.trainable
                  and t._value.dtype.kind == "f"):
                self._watched_variables.append(t)
                tracked.add(t._id)
                hit = True
        return hit

    # -- differentiation ------------------------------------------------
    def _begin_use(self, what):
        if self._used and not self._persistent:
            raise RuntimeError(
                f"A non-persistent GradientTape can only be used to compute one set of "
                f"gradients (or jacobians); this {what} call is a second one. Use "
                "GradientTape(persistent=True) to compute several.")
        self._used = True
        if self._is_recording and not self._persistent:
            # As in TF: asking a non-persistent tape inside its context ends its recording.
            _state.recording.remove(self)

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE, observer=None):
        """Gradient of the sum of `target`'s elements (or the VJP with output_gradients)."""
        zero = _unconnected_zero(unconnected_gradients)
        if output_gradients is None and isinstance(target, Tensor) and isinstance(sources, Tensor):
            # tape.gradient(y, x), the common call, without the nest bookkeeping
            self._begin_use("gradient")
            (g,) = backward(self._entries, [target], [None], [sources], 0, observer)
            return _fill_unconnected([g], [sources], zero, ())[0]
        flat_targets = [_as_target(t) for t in nest.flatten(target)]
        flat_sources = _as_sources(sources)
        if output_gradients is None:
            seeds = [None] * len(flat_targets)
        else:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) != len(flat_targets):
                raise ValueError(
                    f"output_gradients has {len(flat_out)} tensors but the target has "
                    f"{len(flat_targets)}")
            seeds = [_check_seed(g, t) for g, t in zip(flat_out, flat_targets)]
        self._begin_use("gradient")
        grads = backward(self._entries, flat_targets, seeds, flat_sources, 0, observer)
        grads = _fill_unconnected(grads, flat_sources, zero, ())
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...]: shape target.shape + source.shape.

        One backward pass over a batch of basis cotangents per memory-sized chunk.
        A nested target gives the nested structure target x sources.
        """
        zero = _unconnected_zero(unconnected_gradients)
        flat_targets = [_as_target(t) for t in nest.flatten(target)]
        flat_sources = _as_sources(sources)
        self._begin_use("jacobian")
        results = []
        for t in flat_targets:
            flat = _jacobian(self._entries, t, flat_sources, zero)
            results.append(nest.pack_sequence_as(sources, flat))
        if isinstance(target, (list, tuple, dict)):
            return _pack_outer(target, results)
        return results[0]

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: shape (batch, *target.shape[1:], *source.shape[1:]).

        Like TF it assumes examples are independent (row b of the target depends on
        row b of the source only); it still runs when they are not.
        """
        zero = _unconnected_zero(unconnected_gradients)
        target = _as_target(target)
        (source,) = _as_sources(source)
        if target.ndim < 1 or source.ndim < 1:
            raise ValueError("batch_jacobian needs a target and a source with a batch dimension")
        if target.shape[0] != source.shape[0]:
            raise ValueError(
                f"batch_jacobian needs the same first (batch) dimension: target has shape "
                f"{tuple(target.shape)}, source has shape {tuple(source.shape)}")
        self._begin_use("batch_jacobian")
        batch = target.shape[0]
        per_row = int(np.prod(target.shape[1:], dtype=np.int64))
        relevant = _relevant_entries(self._entries, {source._id} if source._value.dtype.kind == "f"
                                     else set())[0]
        chunk = _chunk_size([op for op, _ in relevant], per_row)
        dtype = target._value.dtype
        parts = []
        for start in range(0, per_row, chunk):
            stop = min(per_row, start + chunk)
            seed = np.empty((stop - start, batch, per_row), dtype)
            seed[...] = _basis(start, stop, per_row, dtype)[:, None, :]
            seed = Tensor._wrap(seed.reshape((stop - start,) + tuple(target.shape)))
            (g,) = backward(self._entries, [target], [seed], [source], 1, None, relevant)
            if g is None:
                if not zero:
                    return None
                g = Tensor._wrap(np.zeros((stop - start,) + tuple(source.shape), source._value.dtype))
            parts.append(g)
        shape = tuple(target.shape) + tuple(source.shape[1:])
        if not _state.recording:  # nothing to record: plain numpy
            j = parts[0]._value if len(parts) == 1 else np.concatenate([p._value for p in parts])
            return Tensor._wrap(j.reshape(per_row, batch, -1).transpose(1, 0, 2).reshape(shape))
        S = _shape_ops()
        j = parts[0] if len(parts) == 1 else S.concat(parts, axis=0)
        j = S.reshape(j, (per_row, batch, -1))
        j = S.transpose(j, (1, 0, 2))
        return S.reshape(j, tuple(target.shape) + tuple(source.shape[1:]))


class _StopRecording:
    def __init__(self, tape):
        self._tape = tape
        self._index = None

    def __enter__(self):
        if not self._tape._is_recording:
            raise RuntimeError(
                "Tape is not recording: stop_recording() needs a tape that is recording.")
        self._index = _state.recording.index(self._tape)
        _state.recording.remove(self._tape)
        return self

    def __exit__(self, *exc):
        if self._tape._entered and self._tape not in _state.recording:
            _state.recording.insert(min(self._index, len(_state.recording)), self._tape)
        return False


def _unconnected_zero(value):
    if isinstance(value, UnconnectedGradients):
        return value is UnconnectedGradients.ZERO
    if value in ("none", "zero"):
        return value == "zero"
    raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {value!r}")


def _as_target(t):
    if not isinstance(t, Tensor):
        t = convert_to_tensor(t)
    return t


def _as_sources(sources):
    flat = nest.flatten(sources)
    for s in flat:
        if not isinstance(s, Tensor):
            raise TypeError(
                f"sources must be tensors or variables (or nested lists/dicts of them), "
                f"got {type(s).__name__}: {s!r}")
    return flat


def _check_seed(g, target):
    if g is None:
        return None
    g = convert_to_tensor(g, dtype=target.dtype) if not isinstance(g, Tensor) else g
    if g.dtype != target.dtype:
        raise TypeError(
            f"output_gradients must have the target's dtype: target is {target.dtype.name}, "
            f"output_gradients is {g.dtype.name}")
    if tuple(g.shape) != tuple(target.shape):
        raise ValueError(
            f"output_gradients must have the target's shape: target has shape "
            f"{tuple(target.shape)}, output_gradients has shape {tuple(g.shape)}")
    return g


def _fill_unconnected(grads, sources, zero, batch_shape):
    if not zero:
        return grads
    return [g if g is not None
            else Tensor._wrap(np.zeros(batch_shape + tuple(s.shape), s._value.dtype))
            for g, s in zip(grads, sources)]


def _pack_outer(structure, leaves):
    it = iter(leaves)

    def build(s):
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)}
        if isinstance(s, (list, tuple)):
            return type(s)(build(v) for v in s)
        return next(it)
    return build(structure)


# Memory budget for one chunk of batched cotangents in jacobian/batch_jacobian. Small
# enough that a chunk's cotangents stay in cache: a dense (640, 64, 128) Jacobian pass
# runs 1.7x faster in chunks of 16 MB than in one 256 MB chunk.
JACOBIAN_CHUNK_BYTES = 16 * 2**20


def _chunk_size(entries, n):
    largest = max([v.nbytes for op in entries for v in op._in_values]
                  + [v.nbytes for op in entries for v in op._out_values] + [1])
    # A few live cotangents of the largest size per basis vector.
    return max(1, min(n, JACOBIAN_CHUNK_BYTES // (4 * largest)))


def _basis(start, stop, n, dtype):
    """Rows start..stop-1 of the n x n identity: the basis cotangents of one chunk."""
    return np.eye(stop - start, n, start, dtype=dtype)


def _jacobian(entries, target, sources, zero):
    n = target.size
    if n == 0:
        return [Tensor._wrap(np.zeros(tuple(target.shape) + tuple(s.shape), s._value.dtype))
                for s in sources]
    # Found once for all chunks: the recorded ops on a path from a source.
    relevant = _relevant_entries(entries, {s._id for s in sources if s._value.dtype.kind == "f"})[0]
    ops = [op for op, _ in relevant]
    if not _state.recording and n > target._value.shape[0] > 1 if target._value.ndim else False:
        if all(blocks.row_aligned(ops, target, s) for s in sources):
            return blocks.block_jacobian(ops, target, sources, zero, relevant)
    chunk = _chunk_size(ops, n)
    dtype = target._value.dtype
    per_source = [[] for _ in sources]
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        seed = _basis(start, stop, n, dtype)
        seed = Tensor._wrap(seed.reshape((stop - start,) + tuple(target.shape)))
        grads = backward(entries, [target], [seed], sources, 1, None, relevant)
        for parts, g in zip(per_source, grads):
            parts.append(g)
    S = _shape_ops()
    out = []
    for parts, s in zip(per_source, sources):
        if any(p is None for p in parts):
            out.append(Tensor._wrap(np.zeros(tuple(target.shape) + tuple(s.shape), s._value.dtype))
                       if zero else None)
            continue
        shape = tuple(target.shape) + tuple(s.shape)
        if not _state.recording:  # nothing to record: plain numpy
            j = parts[0]._value if len(parts) == 1 else np.concatenate([p._value for p in parts])
            out.append(Tensor._wrap(j.reshape(shape)))
            continue
        j = parts[0] if len(parts) == 1 else S.concat(parts, axis=0)
        out.append(S.reshape(j, shape))
    return out


# ---------------------------------------------------------------------------
# The backward pass
# ---------------------------------------------------------------------------

def backward(entries, targets, seeds, sources, nbatch, observer, relevant=None):
    """Propagate cotangents from `targets` to `sources` through recorded `entries`.

    `seeds[i]` is target i's cotangent (None: ones), with `nbatch` leading batch
    axes. Returns one gradient per source (None where unconnected). Runs with
    numpy rules unless a tape is recording, in which case it runs gradviz ops so
    that tape records the gradient computation (higher-order derivatives).
    `relevant`: `_relevant_entries(entries, sources)[0]`, when the caller has it.
    """
    differentiable = bool(_state.recording)
    F = _backend.gradviz if differentiable else _backend.numpy

    source_ids = {s._id for s in sources if s._value.dtype.kind == "f"}
    if relevant is None:
        relevant = _relevant_entries(entries, source_ids)[0]

    pending = {}  # tensor id -> its cotangent so far (a _FanIn of several, until summed)
    for t, seed in zip(targets, seeds):
        if t._value.dtype.kind != "f":
            continue
        given = seed is not None
        if seed is None:
            value = np.empty(t._value.shape, t._value.dtype)
            value.fill(1)  # np.ones without its Python wrapper: this runs on every gradient
        else:
            value = seed._value
        c = seed if (given and differentiable) else (Tensor._wrap(value) if differentiable else value)
        if observer is not None:
            observer.seed(t, _as_tensor(c), given)
        _contribute(pending, t._id, c)

    finals = {}
    plain = observer is None and not differentiable
    for op, needs in reversed(relevant):
        outputs = op.outputs
        if len(outputs) == 1:  # the common case, without the bookkeeping below
            t = outputs[0]
            total = pending.pop(t._id, None)
            if total is None:
                continue
            if type(total) is _FanIn:
                total = _sum(total, observer, t)
            if t._id in source_ids:
                finals[t._id] = total
            opdef = op.opdef
            if (plain and opdef.n_outputs == 1 and opdef.grad_fn is None
                    and opdef.rule is not None and not opdef.no_gradient and True in needs):
                # _step for a built-in rule on arrays with no observer, inlined: this is
                # the inner loop of every numpy backward pass.
                contributions = opdef.rule(F, total, op._in_values, op._out_values[0],
                                           op.attrs, needs)
                n_contributions = len(contributions)
                for i, t in enumerate(op.inputs):
                    if not needs[i] or i >= n_contributions:
                        continue
                    c = contributions[i]
                    if c is None:
                        continue
                    shape = total.shape[:nbatch] + t._value.shape if nbatch else t._value.shape
                    if c.shape != shape:
                        c = F.sum_to_shape(c, shape, nbatch)
                    prev = pending.get(t._id)
                    if prev is None:
                        pending[t._id] = c
                    elif type(prev) is _FanIn:
                        prev.append(c)
                    else:
                        pending[t._id] = _FanIn((prev, c))
                continue
            _step(op, needs, [total], pending, nbatch, F, differentiable, observer)
            continue
        upstream = []
        any_cotangent = False
        for t in outputs:
            total = pending.pop(t._id, None)
            if total is None:
                upstream.append(None)
                continue
            any_cotangent = True
            if type(total) is _FanIn:
                total = _sum(total, observer, t)
            if t._id in source_ids:
                finals[t._id] = total
            upstream.append(total)
        if not any_cotangent:
            continue
        _step(op, needs, upstream, pending, nbatch, F, differentiable, observer)

    results = []
    for s in sources:
        if s._id in finals:
            g = finals[s._id]
        elif s._id in pending and s._value.dtype.kind == "f":
            g = pending[s._id]
            if type(g) is _FanIn:
                g = _sum(g, observer, s)
        else:
            g = None
        if g is not None and not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g))
        if observer is not None:
            observer.accumulate(s, g)
        results.append(g)
    return results


_SHAPE_OPS = None


def _shape_ops():
    """gradviz.engine.ops.shape, imported once on first use (it imports this module);
    a `from .ops import shape` in a hot function would run importlib's Python code."""
    global _SHAPE_OPS
    if _SHAPE_OPS is None:
        from .ops import shape
        _SHAPE_OPS = shape
    return _SHAPE_OPS


def _as_tensor(c):
    return c if isinstance(c, Tensor) else Tensor._wrap(np.asarray(c))


class _FanIn(list):
    """Two or more contributions to one tensor's cotangent, summed when it is reached."""

    __slots__ = ()


def _contribute(pending, tensor_id, c):
    """Add contribution `c` to a tensor's pending cotangent (one, or a _FanIn of several)."""
    prev = pending.get(tensor_id)
    if prev is None:
        pending[tensor_id] = c
    elif type(prev) is _FanIn:
        prev.append(c)
    else:
        pending[tensor_id] = _FanIn((prev, c))


def _sum(cs, observer, tensor):
    if len(cs) == 1:
        return cs[0]
    total = cs[0]
    for c in cs[1:]:
        total = total + c
    if observer is not None:
        observer.fan_in(tensor, [_as_tensor(c) for c in cs], _as_tensor(total))
    return total


def _relevant_entries(entries, source_ids):
    """(op, needs) for the entries on a path from a source: only those can carry
    gradient to a source. `needs[i]`: input i is reached and floating. An op's inputs
    are made before it, so this forward scan already knows them all."""
    reached = set(source_ids)
    relevant = []
    for op in entries:
        inputs = op.inputs
        if len(inputs) == 1:
            t = inputs[0]
            if t._id not in reached:
                continue
            needs = (t._value.dtype.kind == "f",)
        elif len(inputs) == 2:
            a, b = inputs
            need_a = a._id in reached
            need_b = b._id in reached
            if not (need_a or need_b):
                continue
            needs = (need_a and a._value.dtype.kind == "f", need_b and b._value.dtype.kind == "f")
        else:
            for t in inputs:
                if t._id in reached:
                    break
            else:
                continue
            needs = tuple([t._id in reached and t._value.dtype.kind == "f" for t in inputs])
        relevant.append((op, needs))
        for o in op.outputs:
            reached.add(o._id)
    return relevant, reached


def _step(op, needs, upstream, pending, nbatch, F, differentiable, observer):
    opdef = op.opdef
    inputs = op.inputs
    if observer is not None:
        observer.visit(op, [_as_tensor(u) if u is not None else None for u in upstream])
    if True not in needs:
        return
    if opdef.no_gradient:
        if observer is not None:
            for i, need in enumerate(needs):
                if need:
                    observer.cut(op, i)
        return
    if opdef.rule is None and opdef.grad_fn is None:
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {opdef.type}); register "
            f"one with gradviz.RegisterGradient('{opdef.type}') or declare "
            f"gradviz.no_gradient('{opdef.type}')")

    if opdef.n_outputs == 1:
        g = upstream[0]
    else:
        g = [u if u is not None else _zeros_cotangent(o, upstream, op, nbatch, F)
             for u, o in zip(upstream, op.outputs)]

    if opdef.grad_fn is not None:
        contributions = _call_grad_fn(op, g, nbatch)
        if not differentiable:
            contributions = [c._value if isinstance(c, Tensor) else c for c in contributions]
    elif differentiable:
        gt = g if opdef.n_outputs != 1 else _as_tensor(g)
        contributions = opdef.rule(F, gt, _recorded_inputs(op),
                                   op.outputs[0] if opdef.n_outputs == 1 else op.outputs,
                                   op.attrs, needs)
    else:
        contributions = opdef.rule(F, g, op._in_values,
                                   op._out_values[0] if opdef.n_outputs == 1 else op._out_values,
                                   op.attrs, needs)

    batch_shape = _batch_shape(upstream, op, nbatch) if nbatch else ()
    n_contributions = len(contributions)
    for i, t in enumerate(inputs):
        if not needs[i]:
            continue
        c = contributions[i] if i < n_contributions else None
        if c is None:
            if observer is not None:
                observer.cut(op, i)
            continue
        shape = batch_shape + t._value.shape if nbatch else t._value.shape
        if (c._value.shape if isinstance(c, Tensor) else c.shape) != shape:
            c = F.sum_to_shape(c, shape, nbatch)
        if observer is not None:
            observer.contribution(op, i, _as_tensor(c))
        prev = pending.get(t._id)  # _contribute, inlined: this is the hot loop
        if prev is None:
            pending[t._id] = c
        elif type(prev) is _FanIn:
            prev.append(c)
        else:
            pending[t._id] = _FanIn((prev, c))


def _read_variable_forward(variable, value):
    return value


# A Variable read back at the value an op saw; its gradient flows to the Variable.
_READ_VARIABLE = define_op("ReadVariableOp", _read_variable_forward,
                           lambda F, g, ins, out, at, needs: (g,), ("grad_v = grad",))


def _recorded_inputs(op):
    """op.inputs, with each Variable assigned since the op ran read back at its old value.

    The numpy path uses the recorded arrays; the recorded path must too, or an
    `assign` between forward and backward would change the gradient. TF records a
    ReadVariableOp per read for the same reason.
    """
    inputs = op.inputs
    values = op._in_values
    for t, v in zip(inputs, values):
        if type(t) is Variable and t._value is not v:
            break
    else:
        return inputs
    from .execute import apply
    return [apply(_READ_VARIABLE, (t,), {"value": v})
            if type(t) is Variable and t._value is not v else t
            for t, v in zip(inputs, values)]


def _batch_shape(upstream, op, nbatch):
    if nbatch == 0:
        return ()
    for u, o in zip(upstream, op.outputs):
        if u is not None:
            return tuple(u.shape[:nbatch])
    return ()


def _zeros_cotangent(output, upstream, op, nbatch, F):
    """Cotangent for an unused output of a multi-output op (split, unstack)."""
    batch = _batch_shape(upstream, op, nbatch)
    return F.zeros(batch + output._value.shape, output._value.dtype)


def _call_grad_fn(op, g, nbatch):
    """A TF-style gradient function, mapped over leading batch axes if there are any."""
    fn = op.opdef.grad_fn
    if nbatch == 0:
        grads = fn(op, *(_as_tensor(x) for x in (g if isinstance(g, list) else [g])))
        return _as_list(grads, op)
    S = _shape_ops()
    gs = g if isinstance(g, list) else [g]
    gs = [_as_tensor(x) for x in gs]
    batch = tuple(gs[0].shape[:nbatch])
    count = int(np.prod(batch))
    flat = [S.reshape(x, (count,) + tuple(x.shape[nbatch:])) for x in gs]
    per_input = [[] for _ in op.inputs]
    for k in range(count):
        grads = _as_list(fn(op, *(x[k] for x in flat)), op)
        for lst, gr in zip(per_input, grads):
            lst.append(gr)
    out = []
    for lst, t in zip(per_input, op.inputs):
        if any(x is None for x in lst):
            out.append(None)
        else:
            out.append(S.reshape(S.stack(lst), batch + tuple(t.shape)))
    return out


def _as_list(grads, op):
    if isinstance(grads, (list, tuple)):
        grads = list(grads)
    else:
        grads = [grads]
    if len(grads) != len(op.inputs):
        raise ValueError(f"the gradient function of {op.type} returned {len(grads)} gradients "
                         f"for its {len(op.inputs)} inputs")
    return grads


def tf_style_grad(opdef):
    """Wrap a built-in rule as TF's `fn(op, grad) -> [grad per input]`."""
    from . import backend

    def grad(op, *grads):
        from .array import zeros_like
        gs = [zeros_like(o) if g is None else convert_to_tensor(g)  # TF: None for an unused output
              for g, o in zip(grads, op.outputs)]
        g = gs[0] if opdef.n_outputs == 1 else gs
        out = op.outputs[0] if opdef.n_outputs == 1 else op.outputs
        needs = tuple(t._value.dtype.kind == "f" for t in op.inputs)
        contributions = opdef.rule(backend.gradviz, g, _recorded_inputs(op), out, op.attrs, needs)
        nb = gs[0].ndim - op.outputs[0].ndim
        result = []
        for c, t in zip(contributions, op.inputs):
            if c is not None:
                shape = tuple(gs[0].shape[:nb]) + tuple(t.shape)
                if tuple(c.shape) != shape:
                    c = backend.gradviz.sum_to_shape(c, shape, nb)
            result.append(c)
        return result
    grad.__name__ = f"_{opdef.type}Grad"
    return grad
