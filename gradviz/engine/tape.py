"""GradientTape: record ops while watched tensors flow, then ask for gradients and Jacobians.

Semantics follow TensorFlow: a tape records an op when one of its inputs is
watched or was produced by an op this tape recorded; `gradient` of a non-scalar
target seeds ones (the gradient of the sum of its elements); `output_gradients`
replaces that seed; unconnected sources give None or zeros. What a tape records is
in recording.py, the backward pass it runs in backward.py.
"""
import enum
import weakref

import numpy as np

from . import backend, blocks, nest
from .dtypes import FLOAT32
from .errors import check_result_fits, counted
from .backward import _relevant_entries, backward
from .ops import shape as shape_ops
from . import recording as _recording
from .recording import _state, stack
from .tensor import Tensor, Variable, _live_tapes, _short, convert_to_tensor
from .tracing import _trace


class UnconnectedGradients(enum.Enum):
    NONE = "none"
    ZERO = "zero"


class GradientTape:
    """Records operations for automatic differentiation, as tf.GradientTape."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._entries = []
        self._tracked = set()
        self._watched_variables = []
        self._roots = []  # ids of the tensors watched (explicitly or as accessed variables)
        self._needs_known = True  # see _relevant
        self._entered = False
        self._used = False
        self._producers = (None, 0, {})  # (entries list, its length, output id -> op)
        self._scan = None  # see _scanned
        self._nested = False  # an op was recorded on this tape and another (_scanned)
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
        stack().append(self)
        return self

    def __exit__(self, *exc):
        try:  # a thread-local read costs as much as the rest
            recording = _state.recording
        except AttributeError:
            recording = stack()
        if self in recording:
            recording.remove(self)
        self._entered = False
        return False

    @property
    def _is_recording(self):
        try:
            return self in _state.recording
        except AttributeError:  # the thread's first read
            return self in stack()

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
        self._roots = []
        self._needs_known = True
        self._used = False
        self._scan = None
        self._nested = False

    # -- watching -------------------------------------------------------
    def watch(self, tensor):
        """Trace `tensor` (or each tensor and Variable in a nest of them) on this tape.

        Only what a tape watches, or what an op it recorded made, has a gradient on it:
        a constant that was never watched gets None even where a recorded op read it.
        """
        if self._entries:
            self._needs_known = False  # ops recorded before may read it: see _relevant
        if type(tensor) is Tensor:  # the common call, one tensor (not a Variable)
            if tensor._value.dtype.kind == "f":  # integer tensors are not differentiable
                self._tracked.add(tensor._id)
                self._roots.append(tensor._id)
            return
        for t in nest.flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(
                    f"Passed in object {_short(t)} of type {type(t).__name__!r}, not "
                    "tf.Tensor or tf.Variable: GradientTape.watch takes tensors and "
                    "variables (make one with gradviz.constant first)")
            if t._value.dtype.kind != "f":
                continue  # integer tensors are not differentiable, as in TF
            if isinstance(t, Variable):
                if not any(v is t for v in self._watched_variables):
                    self._watched_variables.append(t)
            self._tracked.add(t._id)
            self._roots.append(t._id)

    def watched_variables(self):
        """The variables this tape watches, in order of construction (as TF documents)."""
        return tuple(sorted(self._watched_variables, key=lambda v: v._id))

    def _should_record(self, inputs):
        """Whether this tape records an op of `inputs` (TF's rule), watching an accessed
        Variable among them. recording.record and execute.apply ask it of other tapes
        only: for a GradientTape they run these lines inline."""
        tracked = self._tracked
        hit = False
        for t in inputs:
            if t._id in tracked:
                hit = True
            elif type(t) is Variable and _recording.watch_accessed(self, t):
                hit = True
        return hit

    def _relevant(self, sources):
        """(op, needs) for each recorded op, from the inputs the tape tracked when it
        recorded the op (apply notes them), or None when _relevant_entries must find them
        by a scan over the entries. They agree when every watched tensor is a source: a
        tensor is tracked exactly when it is watched or made by a recorded op, so from a
        source. The scan is needed when a tensor was watched after ops that may read it
        were recorded, an op was recorded on several tapes (no single _needs) or keeps
        its outputs off the tape, or a watched tensor is not a source (ops from it need
        not run). The scan cost ~3k instructions per op and pass."""
        if not self._needs_known:
            return None
        ids = set()
        for s in sources:
            ids.add(s._id)
        for root in self._roots:
            if root not in ids:
                return None
        return [(op, op._needs) for op in self._entries]

    def _scan_nested(self, sources):
        """_relevant's pairs where it has none, for a tape that shares ops with another
        (nested tapes): _scanned's, from the sources as backward takes them (floating
        and on this tape). A tape of its own leaves the scan to backward: the memo would
        serve no other tape and cost a small gradient ~5 % more."""
        tracked = self._tracked
        ids = set()
        for s in sources:
            dtype = s._value.dtype
            if (dtype is FLOAT32 or dtype.kind == "f") and s._id in tracked:
                ids.add(s._id)
        return _scanned(self, ids)

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
            stack().remove(self)

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE, observer=None):
        """Gradient of the sum of `target`'s elements (or the VJP with output_gradients)."""
        zero = _unconnected_zero(unconnected_gradients)
        if output_gradients is None and isinstance(target, Tensor):
            # tape.gradient(y, x) and tape.gradient(y, [w, b, ...]), the common calls,
            # without the nest bookkeeping
            kind = type(sources)
            if kind is Tensor or kind is Variable:  # isinstance of a list costs more
                self._begin_use("gradient")
                relevant = self._relevant((sources,))
                if relevant is None and self._nested:
                    relevant = self._scan_nested((sources,))
                (g,) = backward(self._entries, [target], [None], [sources], 0, observer,
                                relevant, on_tape=self._tracked)
                return _fill_unconnected([g], [sources], zero, ())[0] if zero else g
            if kind is list or kind is tuple:
                for s in sources:
                    if type(s) is not Variable and not isinstance(s, Tensor):
                        break
                else:
                    self._begin_use("gradient")
                    relevant = self._relevant(sources)
                    if relevant is None and self._nested:
                        relevant = self._scan_nested(sources)
                    grads = backward(self._entries, [target], [None], sources, 0, observer,
                                     relevant, on_tape=self._tracked)
                    if zero:
                        grads = _fill_unconnected(grads, sources, zero, ())
                    return grads if kind is list else tuple(grads)
        flat_targets = [_as_target(t) for t in nest.flatten(target)]
        flat_sources = _as_sources(sources)
        if output_gradients is None:
            seeds = [None] * len(flat_targets)
        else:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) != len(flat_targets):
                raise ValueError(
                    f"output_gradients has {counted(len(flat_out), 'tensor')} but the target has "
                    f"{len(flat_targets)}")
            seeds = [_check_seed(g, t) for g, t in zip(flat_out, flat_targets)]
        self._begin_use("gradient")
        relevant = self._relevant(flat_sources)
        if relevant is None and self._nested:
            relevant = self._scan_nested(flat_sources)
        grads = backward(self._entries, flat_targets, seeds, flat_sources, 0, observer,
                         relevant, on_tape=self._tracked)
        grads = _fill_unconnected(grads, flat_sources, zero, ())
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...]: shape target.shape + source.shape.

        One backward pass over a batch of basis cotangents per memory-sized chunk.
        A nested target gives the nested structure target x sources.
        Every Jacobian here is one vectorized pass, whatever `experimental_use_pfor`
        says (the answer is the same); TF's rules for both arguments still hold
        (a loop needs a persistent tape, see _check_parallel_iterations).
        """
        zero = _unconnected_zero(unconnected_gradients)
        if (isinstance(target, Tensor)
                and (type(sources) is Variable or isinstance(sources, Tensor))
                and parallel_iterations is None and experimental_use_pfor):
            # tape.jacobian(y, x), the common call (a Hessian's outer pass), without the
            # nest bookkeeping below; the same checks and the same result.
            self._begin_use("jacobian")
            shape = target._value.shape + sources._value.shape
            if sources._id not in self._tracked:
                return _unconnected(shape, sources, zero)
            check_result_fits("jacobian", shape, sources._value.dtype)
            return _jacobian(self, target, [sources], zero)[0]
        flat_targets = [_as_target(t) for t in nest.flatten(target)]
        flat_sources = _as_sources(sources)
        self._check_loop_allowed(experimental_use_pfor, "jacobian")
        if experimental_use_pfor:
            for t in flat_targets:
                self._check_parallel_iterations(parallel_iterations, t.size, "jacobian")
        self._begin_use("jacobian")
        known = [s for s in flat_sources if s._id in self._tracked]
        for t in flat_targets:
            for s in known:
                check_result_fits("jacobian", t._value.shape + s._value.shape, s._value.dtype)
        results = []
        for t in flat_targets:
            computed = iter(_jacobian(self, t, known, zero) if known else ())
            flat = [next(computed) if s._id in self._tracked
                    else _unconnected(t._value.shape + s._value.shape, s, zero)
                    for s in flat_sources]
            results.append(nest.pack_sequence_as(sources, flat))
        if isinstance(target, (list, tuple, dict)):
            return _pack_outer(target, results)
        return results[0]

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: shape (batch, *target.shape[1:], *source.shape[1:]).

        Like TF it assumes examples are independent (row b of the target depends on
        row b of the source only); it still runs when they are not. Where no path
        joins them the answer is zeros even under unconnected_gradients='none': TF
        returns zeros there on purpose (to keep its older behaviour), and so do we.
        """
        zero = _unconnected_zero(unconnected_gradients)
        target = _as_target(target)
        (source,) = _as_sources(source)
        for t in (target, source):
            if t.ndim < 2:
                raise ValueError(f"Shape {t.shape} must have rank at least 2: batch_jacobian "
                                 "needs a batch dimension and at least one more")
        if target.shape[0] != source.shape[0]:
            raise ValueError(
                f"Need first dimension of target shape ({target.shape}) and source shape "
                f"({source.shape}) to match.")
        self._check_loop_allowed(experimental_use_pfor, "batch_jacobian")
        shape = tuple(target.shape) + tuple(source.shape[1:])
        check_result_fits("batch_jacobian", shape, target._value.dtype)
        batch = target.shape[0]
        per_row = int(np.prod(target.shape[1:], dtype=np.int64))
        if experimental_use_pfor:
            self._check_parallel_iterations(parallel_iterations, per_row, "batch_jacobian")
        self._begin_use("batch_jacobian")
        known = source._id in self._tracked and source._value.dtype.kind == "f"
        if not known or batch == 0 or per_row == 0:
            return Tensor._wrap(np.zeros(shape, target._value.dtype))
        relevant = _relevant_entries(self._entries, {source._id})[0]
        chunk = _chunk_size(relevant, per_row, (source,))
        dtype = target._value.dtype
        parts = []
        for start in range(0, per_row, chunk):
            stop = min(per_row, start + chunk)
            seed = np.empty((stop - start, batch, per_row), dtype)
            seed[...] = _basis(start, stop, per_row, dtype)[:, None, :]
            seed = Tensor._wrap(seed.reshape((stop - start,) + tuple(target.shape)))
            (g,) = backward(self._entries, [target], [seed], [source], 1, None, relevant,
                            on_tape=self._tracked)
            if g is None:
                return Tensor._wrap(np.zeros(shape, target._value.dtype))
            parts.append(g)
        if not stack():  # nothing to record: plain numpy
            j = parts[0]._value if len(parts) == 1 else np.concatenate([p._value for p in parts])
            return Tensor._wrap(j.reshape(per_row, batch, -1).transpose(1, 0, 2).reshape(shape))
        S = shape_ops
        j = parts[0] if len(parts) == 1 else S.concat(parts, axis=0)
        j = S.reshape(j, (per_row, batch, -1))
        j = S.transpose(j, (1, 0, 2))
        return S.reshape(j, shape)

    def _check_parallel_iterations(self, parallel_iterations, iterations, what):
        """TF's rules for `parallel_iterations`, though every Jacobian here is one pass:
        TF's pfor runs its loop body twice when 2 <= parallel_iterations <= iterations
        (a tiled loop and the remainder), which a non-persistent tape cannot serve."""
        if parallel_iterations is None:
            return
        if parallel_iterations < 1:
            raise ValueError("`parallel_iterations` must be None or a positive integer, "
                             f"got {parallel_iterations}.")
        if parallel_iterations == 1:
            raise ValueError("Found `parallel_iterations == 1`. Use `for_loop` instead "
                             "(experimental_use_pfor=False).")
        if parallel_iterations <= iterations and not self._persistent:
            if what == "batch_jacobian":
                raise RuntimeError("GradientTape must be created with persistent=True to "
                                   "compute the batch_jacobian with parallel_iterations.")
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                f"gradients (or jacobians): with parallel_iterations={parallel_iterations} "
                f"TF's jacobian differentiates the tape more than once. Use "
                "GradientTape(persistent=True).")

    def _check_loop_allowed(self, use_pfor, what):
        if not use_pfor and not self._persistent:
            raise RuntimeError(
                f"GradientTape must be created with persistent=True to compute the {what} "
                "with eager execution enabled and with experimental_use_pfor set to False.")


_recording.PLAIN_TAPE = GradientTape


class _StopRecording:
    def __init__(self, tape):
        self._tape = tape
        self._index = None

    def __enter__(self):
        if not self._tape._is_recording:
            raise RuntimeError(
                "Tape is not recording: stop_recording() needs a tape that is recording.")
        recording = stack()
        self._index = recording.index(self._tape)
        recording.remove(self._tape)
        return self

    def __exit__(self, *exc):
        recording = stack()
        if self._tape._entered and self._tape not in recording:
            recording.insert(min(self._index, len(recording)), self._tape)
        return False


# The members, read once: an Enum member lookup runs Python code (~0.25 us here), and
# every gradient and Jacobian call asks.
_NONE, _ZERO = UnconnectedGradients.NONE, UnconnectedGradients.ZERO


def _unconnected_zero(value):
    if value is _NONE:
        return False
    if value is _ZERO:
        return True
    if value in ("none", "zero"):
        return value == "zero"
    raise ValueError(f"Unknown value for unconnected_gradients: {value!r} (use 'none' or "
                     "'zero', or gradviz.UnconnectedGradients)")


def _unconnected(shape, source, zero):
    """What an unconnected source gets: None, or zeros of `shape` in its dtype."""
    return Tensor._wrap(np.zeros(shape, source._value.dtype)) if zero else None


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


def _chunk_size(relevant, n, sources):
    """Basis vectors per pass, from the (op, needs) pairs of the pass: a few live
    cotangents of the largest size per basis vector. Cotangents have the shapes of the
    tensors on a path from a source, which are the sources and the outputs of the
    relevant ops (an input that needs a gradient is one of them); inputs that need none
    are not read (a third of the loop, which runs on every Jacobian)."""
    largest = 1
    for s in sources:
        if s._value.nbytes > largest:
            largest = s._value.nbytes
    for op, _ in relevant:  # loops, not lists and their max
        for o in op.outputs:
            if o._value.nbytes > largest:
                largest = o._value.nbytes
    return max(1, min(n, JACOBIAN_CHUNK_BYTES // (4 * largest)))


def _basis(start, stop, n, dtype):
    """Rows start..stop-1 of the n x n identity: the basis cotangents of one chunk.
    Row i's one is flat element start + i * (n + 1): one strided write (np.eye's
    Python layer and flat iterator cost more than the rest of a small Jacobian)."""
    rows = np.zeros((stop - start, n), dtype)
    rows.reshape(-1)[start::n + 1] = 1
    return rows


# The tape whose relevance scan ran last (a weak reference: its _scan, see _scanned).
_last_scan = lambda: None  # no scan yet


def _scanned(tape, source_ids):
    """_relevant_entries(tape._entries, source_ids)[0], resumed where the last scan of a
    tape (this one or another) left off when this tape's entries begin with the ops it
    scanned, from the same sources. Nested tapes record the same forward ops: a Hessian's
    outer Jacobian scanned the ops the inner gradient had just scanned (W4: 8 of its 14,
    ~430 bytecodes) before the inner gradient's own. The scan of a list's first ops from
    the same sources is the same whatever follows them (ops are never changed once
    recorded); the memo lives on the tape that scanned (its _scan), so it keeps no op
    alive longer than that tape's own entries do."""
    global _last_scan
    entries = tape._entries
    last = _last_scan()
    if last is not None and last._scan is not None:
        scanned, k, ids, relevant, reached = last._scan
        if k <= len(entries) and ids == source_ids and entries[:k] == scanned[:k]:
            relevant, reached = _relevant_entries(entries[k:], source_ids, list(relevant),
                                                  set(reached))
        else:
            relevant, reached = _relevant_entries(entries, source_ids)
    else:
        relevant, reached = _relevant_entries(entries, source_ids)
    tape._scan = (entries, len(entries), source_ids, relevant, reached)
    _last_scan = weakref.ref(tape)
    return relevant


def _jacobian(tape, target, sources, zero):
    entries = tape._entries
    n = target._value.size
    if n == 0:
        return [Tensor._wrap(np.zeros(target._value.shape + s._value.shape, s._value.dtype))
                for s in sources]
    # Found once for all chunks: the recorded ops on a path from a source.
    source_ids = set()  # a loop, not a set comprehension: no function made per call
    for s in sources:
        dtype = s._value.dtype
        if dtype is FLOAT32 or dtype.kind == "f":
            source_ids.add(s._id)
    relevant = (_scanned(tape, source_ids) if tape._nested
                else _relevant_entries(entries, source_ids)[0])
    recording = stack()
    no_tape = not recording or (len(recording) == 1 and recording[0] is _trace.tracer)
    if no_tape and n > target._value.shape[0] > 1 if target._value.ndim else False:
        if len(sources) > 1 or blocks.last_op_keeps_rows(relevant, target,
                                                         target._value.shape[0]):
            ops = [op for op, _ in relevant]
            if all(blocks.row_aligned(ops, target, s) for s in sources):
                return blocks.block_jacobian(
                    ops, target, sources, zero, relevant,
                    chunk_size=lambda _ops, seeds: _chunk_size(relevant, seeds, sources))
    chunk = _chunk_size(relevant, n, sources)
    dtype = target._value.dtype
    target_shape = target._value.shape
    per_source = [[] for _ in sources]
    one_hot = backend.ONE_HOT_STACKS
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        seed = _basis(start, stop, n, dtype).reshape((stop - start,) + target_shape)
        if chunk == n >= backend.ONE_HOT_MIN and len(target_shape) == 2:
            one_hot[id(seed)] = seed  # products with it pick rows (backend)
        try:
            grads = backward(entries, [target], [Tensor._wrap(seed)], sources, 1, None,
                             relevant)
        finally:
            one_hot.pop(id(seed), None)
        for parts, g in zip(per_source, grads):
            parts.append(g)
    S = shape_ops
    out = []
    for parts, s in zip(per_source, sources):
        shape = target_shape + s._value.shape
        if _has_none(parts):
            out.append(Tensor._wrap(np.zeros(shape, s._value.dtype)) if zero else None)
            continue
        if not recording:  # nothing to record: plain numpy
            j = parts[0]._value if len(parts) == 1 else np.concatenate([p._value for p in parts])
            out.append(Tensor._wrap(j.reshape(shape)))
            continue
        j = parts[0] if len(parts) == 1 else S.concat(parts, axis=0)
        out.append(S.reshape(j, shape))
    return out


def _has_none(items):
    for item in items:
        if item is None:
            return True
    return False
