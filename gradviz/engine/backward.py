"""The backward pass: cotangents from the targets, through each recorded op's local
vector-Jacobian product, summed where a tensor fans out, into the sources.

With no tape recording, the rules run on numpy arrays (the fast path); under a
recording tape they run as gradviz ops, so the gradient is differentiable in turn.
An optional observer (observer.Observer) receives each step (the story is told from it).
"""
import numpy as np

from . import backend, backend_gradviz, kernels, recording as _recording, registry
from .backend import ZeroCotangent
from .array import zeros_like
from .dtypes import FLOAT32
from .errors import counted
from .execute import apply
from .interrupt import current_hook
from .ops import shape as shape_ops
from .recording import NEEDS_1, NEEDS_2, _state, stack
from .registry import define_op
from .tensor import Tensor, Variable, _next_id, convert_to_tensor, new_tensor


def backward(entries, targets, seeds, sources, nbatch, observer, relevant=None, on_tape=None):
    """Propagate cotangents from `targets` to `sources` through recorded `entries`.

    `seeds[i]` is target i's cotangent (None: ones), with `nbatch` leading batch
    axes. Returns one gradient per source (None where unconnected). Runs with
    numpy rules unless a tape is recording, in which case it runs gradviz ops so
    that tape records the gradient computation (higher-order derivatives).
    `relevant`: `_relevant_entries(entries, sources)[0]`, when the caller has it.
    `on_tape`: the ids of the tensors the tape knows (watched, or made by an op it
    recorded); a source outside it gets no gradient through the ops, as in TF, where
    such a tensor's gradient is dropped once its consumers are done (tape.h).
    """
    stop_here = current_hook()  # cancelled work (a study on a worker) stops at an op
    try:
        recording = _state.recording
    except AttributeError:  # the thread's first read
        recording = stack()
    differentiable = bool(recording)
    F = backend_gradviz.gradviz if differentiable else backend.numpy
    # A recorded pass keeps a constant cotangent (the ones seed, and what rules of shapes
    # alone make of it) an array: see _constant_step. Not for an observer (it is shown
    # tensors) nor another kind of tape (a tf.function trace records every op).
    constants = differentiable and observer is None and _plain_tapes(recording)

    source_ids = set()  # a loop, not a set comprehension: no function made per pass
    for s in sources:
        dtype = s._value.dtype
        if (dtype is FLOAT32 or dtype.kind == "f") and (on_tape is None or s._id in on_tape):
            source_ids.add(s._id)
    if relevant is None:
        relevant = _relevant_entries(entries, source_ids)[0]

    pending = {}  # tensor id -> its cotangent so far (a _FanIn of several, until summed)
    # The leading batch axes of every cotangent of the pass: the seeds' (a contribution is
    # summed to batch + its input's shape), read once rather than from each step's total.
    batch = () if nbatch else None
    for t, seed in zip(targets, seeds):
        dtype = t._value.dtype
        if dtype is not FLOAT32 and dtype.kind != "f":
            continue
        given = seed is not None
        if seed is None:
            # np.ones without its Python wrapper: this runs on every gradient. A scalar
            # target's is a copy of a shared 0-d one (0.36 us, against fill's 0.59).
            if t._value.ndim:
                value = np.empty(t._value.shape, dtype)
                value.fill(1)
            else:
                value = kernels.constant_of(1, dtype).copy()
        else:
            value = seed._value
            if nbatch:
                batch = value.shape[:nbatch]
        if given and differentiable:
            c = seed
        elif differentiable and not constants:
            c = Tensor._wrap(value)
        else:
            c = value
        if observer is not None:
            observer.seed(t, _as_tensor(c), given)
        _contribute(pending, t._id, c)

    finals = {}
    if not differentiable and observer is None:
        _pass_on_arrays(relevant, pending, source_ids, finals, nbatch, batch, stop_here)
    else:
        _pass_recorded(relevant, pending, source_ids, finals, nbatch, batch, stop_here, F,
                       differentiable, observer, constants)

    results = []
    consumed = None
    for s in sources:
        sid = s._id
        g = finals.get(sid)  # never None when there
        if g is None:
            g = pending.get(sid)
            # A source in source_ids is floating and on the tape: only the others are
            # asked again (a Variable's gradient, the common case, asks nothing here).
            if g is not None and sid not in source_ids:
                dtype = s._value.dtype
                if dtype is not FLOAT32 and dtype.kind != "f":
                    g = None
                elif on_tape is not None and sid not in on_tape:
                    # A source the tape does not know that is also a target keeps
                    # its own seed, unless an op on the targets' path read it: TF
                    # then drops it with the gradient its consumers gave (the
                    # tensor is on no tape).
                    if consumed is None:
                        consumed = _read_on_path(entries, targets)
                    if sid in consumed:
                        g = None
            if type(g) is _FanIn:
                g = _sum(g, observer, s)
        if type(g) is np.ndarray:  # the common case first
            t = new_tensor()  # Tensor._wrap, inlined
            t._value = g
            t._id = _next_id()
            g = t
        elif type(g) is ZeroCotangent:
            g = Tensor._wrap(g.written())
        elif g is not None and not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g))
        if observer is not None:
            if on_tape is not None and s._id not in on_tape:
                observer.off_tape(s)
            observer.accumulate(s, g)
        results.append(g)
    return results


def _pass_on_arrays(relevant, pending, source_ids, finals, nbatch, batch, stop_here):
    """The backward loop when nothing records it and no observer listens: rules on
    numpy arrays. The common step (one output, a built-in rule) is written out here,
    accumulation included: this loop runs once per op of every eager gradient. `batch`:
    the cotangents' leading batch axes (None when there are none)."""
    F = backend.numpy
    ndarray = np.ndarray
    for op, needs in reversed(relevant):
        if stop_here is not None:
            stop_here()
        rule = op.opdef.plain_rule
        if rule is None:  # several outputs, a TF-style gradient function, or none
            _visit(op, needs, pending, source_ids, finals, nbatch, F, False, None)
            continue
        total = pending.pop(op._id, None)  # an op's id is its (one) output's
        if total is None:
            continue
        if type(total) is not ndarray:  # several to sum, unwritten zeros (or a scalar)
            total = _written(total, None, None)
        if op._id in source_ids:
            finals[op._id] = total
        if True not in needs:
            continue
        in_values = op._in_values
        contributions = rule(F, total, in_values, op.outputs[0]._value, op.attrs, needs)
        # zip stops at the shorter: a rule may leave out trailing inputs
        for t, v, need, c in zip(op.inputs, in_values, needs, contributions):
            if not need or c is None:
                continue
            # the shape to meet is the recorded input's (behind the batch axes)
            if batch is None:
                if c.shape != v.shape:
                    c = F.sum_to_shape(c, v.shape, 0)
            else:
                shape = batch + v.shape
                if c.shape != shape:
                    c = F.sum_to_shape(c, shape, nbatch)
            prev = pending.get(t._id)  # _contribute, written out: once per contribution
            if prev is None:
                pending[t._id] = c
            elif type(prev) is _FanIn:
                prev.append(c)
            elif type(c) is ZeroCotangent:
                pass
            elif type(prev) is ZeroCotangent:
                pending[t._id] = c
            else:
                pending[t._id] = _FanIn((prev, c))


def _pass_recorded(relevant, pending, source_ids, finals, nbatch, batch, stop_here, F,
                   differentiable, observer, constants):
    """The backward loop when an outer tape records it (rules as gradviz ops) or an
    observer listens (every step through _step). `constants`: a cotangent may be an
    array, a constant that no recording tape tracks (_constant_step)."""
    inline = observer is None  # _step's common case runs inlined in the loop below
    for op, needs in reversed(relevant):
        if stop_here is not None:
            stop_here()
        rule = op.opdef.plain_rule
        if not inline or rule is None:
            _visit(op, needs, pending, source_ids, finals, nbatch, F, differentiable, observer)
            continue
        t = op.outputs[0]
        total = pending.pop(op._id, None)  # _total, written out (an op's id is its output's)
        if total is None:
            continue
        kind = type(total)
        if kind is _FanIn or kind is ZeroCotangent:
            total = _written(total, None, t)
            kind = type(total)
        if op._id in source_ids:
            finals[op._id] = total
        if True not in needs:
            continue
        # _step for a built-in rule with no observer, written out: the inner loop of
        # every backward pass that an outer tape records (a Hessian's inner gradient).
        if kind is not Tensor:
            if kind is np.ndarray and constants and op.opdef.shapes_only_rule:
                _constant_step(op, needs, total, pending, nbatch, batch)
                continue
            if not isinstance(total, Tensor):
                total = _as_tensor(total)
        inputs = op.inputs
        if len(inputs) == 2:  # _recorded_inputs' test, inline: no Variable assigned since
            a, b = inputs
            value_a, value_b = op._in_values
            if a._value is not value_a or b._value is not value_b:
                inputs = _recorded_inputs(op)
        else:
            inputs = _recorded_inputs(op)
        contributions = rule(F, total, inputs, t, op.attrs, needs)
        # zip stops at the shorter: a rule may leave out trailing inputs
        for t, need, c in zip(op.inputs, needs, contributions):
            if not need or c is None:
                continue
            shape = batch + t._value.shape if nbatch else t._value.shape
            if (c._value.shape if type(c) is Tensor else c.shape) != shape:
                c = F.sum_to_shape(c, shape, nbatch)
            _contribute(pending, t._id, c)


def _plain_tapes(recording):
    """Whether every recording tape is a GradientTape (not a tf.function trace, nor
    another tape-like recorder)."""
    for tape in recording:
        if type(tape) is not _recording.PLAIN_TAPE:
            return False
    return True


def _constant_step(op, needs, total, pending, nbatch, batch):
    """A recorded pass's step on a constant cotangent (an array: the ones seed, or what
    such steps made of it) through a rule of shapes alone: on numpy, as the ops it would
    apply read no tensor a tape tracks and none would be recorded (the same values). A
    Hessian's inner gradient of a mean loses its division and broadcast: two ops that
    cost ~1.3 us each as gradviz ops. A rule that reads values takes the array as a
    tensor (_pass_recorded)."""
    in_values = op._in_values
    contributions = op.opdef.rule(backend.numpy, total, in_values, op.outputs[0]._value,
                                  op.attrs, needs)
    for t, v, need, c in zip(op.inputs, in_values, needs, contributions):
        if not need or c is None:
            continue
        shape = batch + v.shape if nbatch else v.shape
        if c.shape != shape:
            c = kernels.sum_to_shape(c, shape, nbatch)
        _contribute(pending, t._id, c)


def _visit(op, needs, pending, source_ids, finals, nbatch, F, differentiable, observer):
    """One op of the backward pass, any kind: its outputs' cotangents summed, then _step."""
    upstream = [_total(pending, t, source_ids, finals, observer) for t in op.outputs]
    for total in upstream:
        if total is not None:
            _step(op, needs, upstream, pending, nbatch, F, differentiable, observer)
            return


def _total(pending, t, source_ids, finals, observer):
    """Tensor t's cotangent, its contributions summed and zeros written out (None: it has
    none); a source's is kept in `finals` too."""
    total = pending.pop(t._id, None)
    if total is None:
        return None
    total = _written(total, observer, t)
    if t._id in source_ids:
        finals[t._id] = total
    return total


def _written(c, observer, t):
    """A pending cotangent as one value: a _FanIn summed, unwritten zeros written out."""
    if type(c) is _FanIn:
        c = _sum(c, observer, t)
    if type(c) is ZeroCotangent:
        c = c.written()
    return c


def _as_tensor(c):
    return c if isinstance(c, Tensor) else Tensor._wrap(np.asarray(c))


class _FanIn(list):
    """Two or more contributions to one tensor's cotangent, summed when it is reached."""

    __slots__ = ()


def _contribute(pending, tensor_id, c):
    """Add contribution `c` to a tensor's pending cotangent (one, or a _FanIn of several).
    Unwritten zeros add nothing where another contribution meets them, as _sum drops
    them: neither a _FanIn nor a sum (a relu layer's ReluGrad gives one per Hessian
    pass)."""
    prev = pending.get(tensor_id)
    if prev is None:
        pending[tensor_id] = c
    elif type(prev) is _FanIn:
        prev.append(c)
    elif type(c) is ZeroCotangent:
        pass
    elif type(prev) is ZeroCotangent:
        pending[tensor_id] = c
    else:
        pending[tensor_id] = _FanIn((prev, c))


def _sum(cs, observer, tensor):
    if len(cs) == 1:
        return cs[0]
    if observer is None:  # zeros not written out add nothing (an observer never gets any)
        real = [c for c in cs if type(c) is not ZeroCotangent]
        if len(real) < 2:
            return real[0] if real else cs[0]
        cs = real
    total = cs[0]
    for c in cs[1:]:
        total = total + c
    if observer is not None:
        observer.fan_in(tensor, [_as_tensor(c) for c in cs], _as_tensor(total))
    return total


def _read_on_path(entries, targets):
    """Ids of the tensors read by the recorded ops the targets depend on."""
    needed = {t._id for t in targets}
    read = set()
    for op in reversed(entries):
        if any(o._id in needed for o in op.outputs):
            for t in op.inputs:
                needed.add(t._id)
                read.add(t._id)
    return read


def _relevant_entries(entries, source_ids, relevant=None, reached=None):
    """(op, needs) for the entries on a path from a source: only those can carry
    gradient to a source. `needs[i]`: input i is reached and floating. An op's inputs
    are made before it, so this forward scan already knows them all. `relevant` and
    `reached`: where a scan of ops before `entries` from the same sources left off (the
    caller's copies; this extends them)."""
    if reached is None:
        reached = set(source_ids)
        relevant = []
    for op in entries:
        inputs = op.inputs
        n = len(inputs)
        if n == 2:  # the most common arity first: this loop runs on most passes
            a, b = inputs
            need_a = a._id in reached
            need_b = b._id in reached
            if not (need_a or need_b):
                continue
            if need_a:
                dtype = a._value.dtype
                need_a = dtype is FLOAT32 or dtype.kind == "f"
            if need_b:
                dtype = b._value.dtype
                need_b = dtype is FLOAT32 or dtype.kind == "f"
            needs = NEEDS_2[need_a][need_b]
        elif n == 1:
            t = inputs[0]
            if t._id not in reached:
                continue
            dtype = t._value.dtype
            needs = NEEDS_1[dtype is FLOAT32 or dtype.kind == "f"]
        else:
            for t in inputs:
                if t._id in reached:
                    break
            else:
                continue
            needs = tuple([t._id in reached and t._value.dtype.kind == "f" for t in inputs])
        relevant.append((op, needs))
        if op.opdef.n_outputs == 1:  # two slot reads, cheaper than len()
            reached.add(op._id)  # an op's id is its first output's
        else:
            reached.update([o._id for o in op.outputs])
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
                                   op.outputs[0]._value if opdef.n_outputs == 1 else op._out_values,
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
        given = c._value.shape if isinstance(c, Tensor) else c.shape
        if given != shape:
            if observer is not None:
                observer.summed(op, i, tuple(given[nbatch:]))
            c = F.sum_to_shape(c, shape, nbatch)
        if observer is not None:
            if type(c) is ZeroCotangent:  # the story shows the zeros
                c = c.written()
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
_READ_VARIABLE.shapes_only_rule = True


def _recorded_inputs(op):
    """op.inputs, with each Variable assigned since the op ran read back at its old value.

    The numpy path uses the recorded arrays; the recorded path must too, or an
    `assign` between forward and backward would change the gradient. TF records a
    ReadVariableOp per read for the same reason.
    """
    # A Tensor's array never changes, so each input still holding the array the op read
    # is the test for all of them: only an assigned Variable fails it. No type test per
    # input (four of a Hessian's inner steps read a Variable).
    inputs = op.inputs
    if len(inputs) == 2:  # the common arity, written out
        a, b = inputs
        value_a, value_b = op._in_values
        if a._value is value_a and b._value is value_b:
            return inputs
    else:
        for t, v in zip(inputs, op._in_values):
            if t._value is not v:
                break
        else:
            return inputs
    values = op._in_values
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
    S = shape_ops
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
        raise ValueError(f"the gradient function of {op.type} returned "
                         f"{counted(len(grads), 'gradient')} for its {counted(len(op.inputs), 'input')}")
    return grads


def tf_style_grad(opdef):
    """Wrap a built-in rule as TF's `fn(op, grad) -> [grad per input]`."""
    def grad(op, *grads):
        gs = [zeros_like(o) if g is None else convert_to_tensor(g)  # TF: None for an unused output
              for g, o in zip(grads, op.outputs)]
        g = gs[0] if opdef.n_outputs == 1 else gs
        out = op.outputs[0] if opdef.n_outputs == 1 else op.outputs
        needs = tuple(t._value.dtype.kind == "f" for t in op.inputs)
        contributions = opdef.rule(backend_gradviz.gradviz, g, _recorded_inputs(op), out, op.attrs, needs)
        nb = gs[0].ndim - op.outputs[0].ndim
        result = []
        for c, t in zip(contributions, op.inputs):
            if c is not None:
                shape = tuple(gs[0].shape[:nb]) + tuple(t.shape)
                if tuple(c.shape) != shape:
                    c = backend_gradviz.gradviz.sum_to_shape(c, shape, nb)
            result.append(c)
        return result
    grad.__name__ = f"_{opdef.type}Grad"
    return grad


class _GradientRegistry:
    """`lookup(type)` gives a TF-style `fn(op, grad)`, as TF's _gradient_registry."""

    def lookup(self, op_type):
        if op_type in registry._PENDING:
            return registry._PENDING[op_type]
        op = registry._OPS.get(op_type)
        if op is None or not op.has_gradient:
            raise LookupError(f"No gradient defined for operation type '{op_type}'")
        if op.grad_fn is not None:
            return op.grad_fn
        if op.no_gradient:
            return lambda operation, *grads: [None] * len(operation.inputs)
        return tf_style_grad(op)

    def list(self):
        return sorted([t for t, op in registry._OPS.items() if op.has_gradient]
                      + list(registry._PENDING))


gradient_registry = _GradientRegistry()
