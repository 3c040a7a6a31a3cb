"""tf.function's compiled form: a trace of every op, replayed as a straight-line program.

Tracing runs the Python function once, eagerly, with a `Tracer` on the tape stack that
records every op (the tapes inside the function record as usual, and their backward
passes run as gradviz ops because a tape is recording, so the VJPs are in the trace),
every Variable read and assign, and the host steps the ops cannot express (an
optimizer's update, a random draw). Values that depend on no argument and no Variable
are folded into constants.

The trace becomes a `Program`: Python source over numpy arrays, one line per step
(`s7 = f7(s3, s5)` calls the op's forward), generated once and compiled with `exec`;
no Tensor objects and no tape bookkeeping run at replay, and each value is deleted after
its last use; BLAS calls stay numpy's. A program called FUSE_AFTER_CALLS times is
fused on a worker thread: its runs of elementwise steps become numba kernels (fuse.py).
Under a recording tape the same steps run as gradviz ops instead (`run_ops`), so an
outer tape records them and differentiates through the function.

What cannot be recorded: a traced tensor's value read by Python (`if x > 0:`,
`float(x)`, `x.numpy()`). The trace run continues eagerly (it is an eager run) and the
tracer notes where it happened; function.py then runs that function eagerly from then
on, with a warning naming the line.
"""
import functools
import os
import sys

import numpy as np

from . import fuse, kernels, nest, recording as _recording
from .backward import _READ_VARIABLE
from .execute import apply
from .ops import math as math_ops
from .simplify import simplify
from .tensor import Tensor, Variable, convert_to_tensor
from .tracing import _trace

_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))

# A program is fused (fuse.py) once it has run this many times.
FUSE_AFTER_CALLS = 10


class _Everything:
    """The tracer's tracked set: it records every op, whatever its inputs."""

    __slots__ = ()

    def __contains__(self, item):
        return True

    def add(self, item):
        pass


class _Sink:
    """The tracer's entry list: record() appends each Operation, the tracer takes it."""

    __slots__ = ("append",)

    def __init__(self, append):
        self.append = append


class Tracer:
    """Records one run of a function into steps (see Program for what each step is).

    It sits on the tape stack as a tape that tracks everything (record() gives it each
    op); `_trace.tracer` points at it for the hooks of Tensor, Variable and the host
    steps. Slots are numbered values; a ref is ("s", slot) or ("c", constant index).
    """

    _watch_accessed_variables = False

    def __init__(self, leaves):
        self._tracked = _Everything()
        self._entries = _Sink(self._on_op)
        self.steps = []
        self.constants = []
        self.failure = None      # why the trace cannot be replayed (a sentence), if so
        self.variables_created = False  # a Variable was made while tracing
        self.info = {}           # slot -> (shape, dtype) of its value in this trace
        self._n = 0
        self._slot = {}          # tensor id -> slot of a value that depends on inputs
        self._by_array = {}      # id(array) -> slot, for aliases (custom_gradient, reads)
        self._keep = []          # arrays the id() maps refer to, alive while tracing
        self._reads = {}         # id(variable) -> (array, slot) since its last store
        self._variables = []     # Variables captured by the function (not arguments)
        self._arg_variable = {}  # id(variable) -> index of the argument leaf
        self.inputs = []         # per argument leaf: ("arg", slot) or ("var", index) or None
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, Variable):
                self._arg_variable.setdefault(id(leaf), i)
                self.inputs.append(("var", i))
            elif isinstance(leaf, Tensor):
                slot = self._new_slot(leaf)
                self.inputs.append(("arg", slot))
            else:
                self.inputs.append(None)

    # -- the tape interface record() uses ---------------------------------------------
    def _should_record(self, inputs):
        return True

    # -- entering and leaving -----------------------------------------------------------
    def __enter__(self):
        self._saved = _trace.tracer
        _trace.tracer = self
        _recording.stack().insert(0, self)
        return self

    def __exit__(self, *exc):
        _trace.tracer = self._saved
        recording = _recording.stack()
        if self in recording:
            recording.remove(self)
        return False

    # -- slots and refs -----------------------------------------------------------------
    def _new_slot(self, tensor):
        n = self._n
        self._n += 1
        self.info[n] = (tensor._value.shape, tensor._value.dtype)
        self._slot[tensor._id] = n
        self._by_array[id(tensor._value)] = n
        self._keep.append(tensor._value)
        return n

    def is_dynamic(self, tensor):
        return isinstance(tensor, Variable) or tensor._id in self._slot

    def _variable_ref(self, variable):
        i = self._arg_variable.get(id(variable))
        if i is not None:
            return ("arg", i)
        for k, v in enumerate(self._variables):
            if v is variable:
                return ("captured", k)
        self._variables.append(variable)
        return ("captured", len(self._variables) - 1)

    def _read(self, variable, array):
        cached = self._reads.get(id(variable))
        if cached is not None and cached[0] is array:
            return ("s", cached[1])
        n = self._n
        self._n += 1
        self.info[n] = (array.shape, array.dtype)
        self.steps.append(("read", self._variable_ref(variable), n))
        self._reads[id(variable)] = (array, n)
        self._by_array[id(array)] = n
        self._keep.append(array)
        return ("s", n)

    def ref(self, tensor):
        """The ref of a value an op or a store uses at this point of the trace."""
        if isinstance(tensor, Variable):
            return self._read(tensor, tensor._value)
        slot = self._slot.get(tensor._id)
        if slot is not None:
            return ("s", slot)
        self.constants.append(tensor._value)
        return ("c", len(self.constants) - 1)

    # -- what record() gives ------------------------------------------------------------
    def _on_op(self, operation):
        opdef = operation.opdef
        if opdef is _READ_VARIABLE or opdef.forward is None:
            # A Variable read back at an old value, or custom_gradient's outputs: the
            # same arrays as values already traced.
            arrays = ([operation.attrs["value"]] if opdef is _READ_VARIABLE
                      else [o._value for o in operation.outputs])
            for out, array in zip(operation.outputs, arrays):
                slot = self._by_array.get(id(array))
                if slot is not None:
                    self._slot[out._id] = slot
            return
        refs = []
        dynamic = False
        for t, value in zip(operation.inputs, operation._in_values):
            if isinstance(t, Variable):
                refs.append(self._read(t, value))
                dynamic = True
            else:
                slot = self._slot.get(t._id)
                refs.append(None if slot is None else ("s", slot))
                dynamic = dynamic or slot is not None
        if not dynamic:
            return  # folded: its outputs are constants of this trace
        refs = [r if r is not None else self.ref(t) for r, t in zip(refs, operation.inputs)]
        outs = [self._new_slot(o) for o in operation.outputs]
        single = opdef.n_outputs == 1
        self.steps.append(("op", opdef, tuple(refs), operation.attrs, tuple(outs), single))

    # -- the hooks (tracing.py) ---------------------------------------------------------
    def python_value(self, tensor, what):
        if self.failure is None and self.is_dynamic(tensor):
            self.fail(what)

    def fail(self, what):
        """Something the trace cannot replay happened (the run itself goes on eagerly)."""
        if self.failure is None:
            self.failure = (
                f"{what} at {_user_line()} reads a traced tensor's value in Python (control "
                "flow on a value, or numpy on it), which the trace cannot record. Write it "
                "with tensor ops (tf.where, tf.maximum) to compile the function.")

    def assign(self, variable, value, combine):
        """Variable.assign / assign_add / assign_sub during the trace: done, and recorded."""
        saved = _recording.stack()
        _recording._state.recording = [self]  # the tapes do not see an assign
        _trace.tracer = None
        try:
            dtype = variable._value.dtype
            if isinstance(value, Tensor):
                if value._value.dtype != dtype:
                    value = math_ops.cast(value, variable.dtype)
            else:
                value = convert_to_tensor(variable._check(value))
            _trace.tracer = self
            if combine == "add":
                value = math_ops.add(variable, value)
            elif combine == "subtract":
                value = math_ops.subtract(variable, value)
            _trace.tracer = None  # the value is recorded below, not read in Python
            array = variable._check(value)
            _trace.tracer = self
            ref = self.ref(value)
            if ref[0] == "c":
                self.constants[ref[1]] = array
            self.steps.append(("store", self._variable_ref(variable), ref))
            variable._value = array
            self._reads.pop(id(variable), None)
        finally:
            _trace.tracer = self
            _recording._state.recording = saved
        return variable

    def host(self, fn, tensors, returns):
        """A step done in numpy outside the ops (an optimizer's update, a random draw):
        `fn(*arrays)` runs now and at every replay; `returns` says it gives an array."""
        refs = [None if t is None else self.ref(t) for t in tensors]
        arrays = [None if t is None else t._value for t in tensors]
        _trace.tracer = None
        saved = _recording.stack()
        _recording._state.recording = []
        try:
            out = fn(*arrays)
        finally:
            _trace.tracer = self
            _recording._state.recording = saved
        self._reads.clear()  # it may have assigned any Variable
        if not returns:
            self.steps.append(("host", fn, tuple(refs), None))
            return None
        result = Tensor._wrap(out)
        self.steps.append(("host", fn, tuple(refs), self._new_slot(result)))
        return result

    # -- the result ---------------------------------------------------------------------
    def program(self, outputs, structure, name, fuse=True):
        """The Program computing the flat `outputs` (tensors, or None) of this trace;
        `structure`: the nest they are packed into; `fuse`: False for a program that
        never compiles numba kernels (one whose arrays are too small to gain from them)."""
        out_refs = [None if o is None else self.ref(o) for o in outputs]
        return Program(self.steps, self.inputs, self.constants, list(self._variables),
                       out_refs, structure, name, self.info, fuse)


def _user_line():
    """'file:line: source' of the innermost frame outside the engine (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(
            os.path.abspath(frame.f_code.co_filename)) == _ENGINE_DIR:
        frame = frame.f_back
    if frame is None:
        return "an unknown line"
    import linecache  # only for this message
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    return f"{where} ({text})" if text else where


class Program:
    """The straight-line program of one trace.

    Steps: ("read", variable, slot) reads a Variable's value at that point;
    ("op", opdef, refs, attrs, slots, single) runs an op's forward; ("store", variable,
    ref) assigns a Variable; ("host", fn, refs, slot or None) calls a numpy step. A
    variable is ("arg", leaf index) or ("captured", index).
    """

    def __init__(self, steps, inputs, constants, variables, outputs, structure, name, info,
                 fuse=True):
        self.steps = _live_steps(steps, outputs)
        self.inputs = inputs
        self.constants = constants
        self.variables = variables
        self.outputs = outputs
        self.structure = structure
        self.name = name
        self._info = info
        self._calls = 0
        # The numpy program's steps: the traced ones with simplify.py's rewrites.
        self._numpy_steps, self._numpy_outputs = simplify(self.steps, outputs, self._value_info)
        self.source, self._plain = self._make_run(self._numpy_steps)
        self.fused = False
        self.run = self._counting_run if fuse else self._plain

    def _make_run(self, steps):
        """(source, run): run(leaves) gives the outputs in their structure, as Tensors
        (None kept); source is its Python text."""
        source, run = _compile(steps, self.inputs, self.constants, self.variables,
                               self._numpy_outputs, self.structure, self.name)
        if _pack_source(self.structure, iter(self._numpy_outputs)) is not None:
            return source, run
        return source, lambda leaves: nest.pack_sequence_as(self.structure, run(leaves))

    def _counting_run(self, leaves):
        """The plain program, until it has run FUSE_AFTER_CALLS times: then its
        elementwise runs are fused into numba kernels, compiled on a worker thread while
        the plain program goes on serving calls (a compile is worth it only for a
        function called often, and no caller waits for one; the kernels are cached on
        disk for later processes)."""
        self._calls += 1
        if self._calls == FUSE_AFTER_CALLS:
            self.run = self._plain
            # Not a daemon: the interpreter waits for a compile at exit rather than
            # stopping numba in the middle of one.
            kernels.start_numba_worker(self.fuse, f"fuse {self.name}", daemon=False)
        return self._plain(leaves)

    def fuse(self):
        """Replace the program by one whose elementwise groups are numba kernels (each
        compiled on its first call here, so callers never meet a compile)."""
        self.run = self._plain
        try:
            steps = fuse.fuse_steps(self._numpy_steps, self._value_info, self._numpy_outputs)
            if steps is self._numpy_steps:
                return
            source, run = self._make_run(steps)
            fuse.warm(steps)
        except Exception as e:  # noqa: BLE001 (numba could not compile: keep the plain program)
            self.fuse_error = e
            return
        self.source, self.run, self._plain = source, run, run
        self.fused = True

    def _value_info(self, ref):
        if ref[0] == "c":
            array = np.asarray(self.constants[ref[1]])
            return array.shape, array.dtype, array
        shape, dtype = self._info[ref[1]]
        return shape, dtype, None

    def run_ops(self, leaves):
        """The same steps as gradviz ops, so the tapes recording now record them."""
        env = {}
        snapshot = {}  # read slot -> (variable, the array it read)

        def variable(ref):
            return leaves[ref[1]] if ref[0] == "arg" else self.variables[ref[1]]

        def value(ref):
            if ref[0] == "c":
                return Tensor._wrap(self.constants[ref[1]])
            v = env[ref[1]]
            if ref[1] in snapshot:
                var, array = snapshot[ref[1]]
                if var._value is not array:  # assigned since: the value as it was read
                    return apply(_READ_VARIABLE, (var,), {"value": array})
            return v

        for entry, leaf in zip(self.inputs, leaves):
            if entry is not None and entry[0] == "arg":
                env[entry[1]] = leaf
        for step in self.steps:
            kind = step[0]
            if kind == "read":
                var = variable(step[1])
                env[step[2]] = var
                snapshot[step[2]] = (var, var._value)
            elif kind == "op":
                _, opdef, refs, attrs, outs, single = step
                result = apply(opdef, tuple(value(r) for r in refs), attrs)
                for slot, t in zip(outs, [result] if single else result):
                    env[slot] = t
            elif kind == "store":
                variable(step[1]).assign(value(step[2]))
            else:
                _, fn, refs, out = step
                arrays = [None if r is None else value(r)._value for r in refs]
                array = fn(*arrays)
                if out is not None:
                    env[out] = Tensor._wrap(array)
        return [None if r is None else value(r) for r in self.outputs]


def _live_steps(steps, outputs):
    """The steps an output, a store or a host call needs (reads, ops and random draws
    whose values nothing uses are dropped)."""
    needed = {r[1] for r in outputs if r is not None and r[0] == "s"}
    live = []
    for step in reversed(steps):
        kind = step[0]
        if kind == "read":
            if step[2] not in needed:
                continue
        elif kind == "op":
            if not any(s in needed for s in step[4]):
                continue
            needed.update(r[1] for r in step[2] if r[0] == "s")
        elif kind == "store":
            if step[2][0] == "s":
                needed.add(step[2][1])
        else:
            if step[3] is not None and step[3] not in needed and step[2] == ():
                continue  # a random draw nothing reads
            needed.update(r[1] for r in step[2] if r is not None and r[0] == "s")
        live.append(step)
    live.reverse()
    return live


def _compile(steps, inputs, constants, variables, outputs, structure, name):
    """Python source for the steps, compiled: `run(leaves)` gives the outputs packed in
    `structure` when _pack_source can write it, else a flat list of Tensors (or None)."""
    namespace = {"_variables": variables, "W": Tensor._wrap, "E": np.empty}
    lines = [f"def run(leaves):"]
    for i, entry in enumerate(inputs):
        if entry is not None and entry[0] == "arg":
            lines.append(f"    s{entry[1]} = leaves[{i}]._value")
    for k in range(len(constants)):
        namespace[f"c{k}"] = constants[k]
    for k, v in enumerate(variables):
        namespace[f"v{k}"] = v
    for entry, i in ((e, i) for i, e in enumerate(inputs) if e is not None and e[0] == "var"):
        if any(s[0] in ("read", "store") and s[1] == ("arg", i) for s in steps):
            lines.append(f"    v_arg{i} = leaves[{i}]")

    def var(ref):
        return f"v_arg{ref[1]}" if ref[0] == "arg" else f"v{ref[1]}"

    def val(ref):
        return "None" if ref is None else (f"s{ref[1]}" if ref[0] == "s" else f"c{ref[1]}")

    def op_line(step, key):
        _, opdef, refs, attrs, outs, single = step
        fn = f"f{key}"
        namespace[fn] = functools.partial(opdef.forward, **attrs) if attrs else opdef.forward
        args = ", ".join(val(r) for r in refs)
        if single:
            return f"    s{outs[0]} = {fn}({args})  # {opdef.type}"
        targets = ", ".join(f"s{o}" for o in outs)
        return f"    {targets}{',' if len(outs) == 1 else ''} = {fn}({args})  # {opdef.type}"

    last_use = {}
    arena_last_use = {}  # a fused step's arena -> the step that reads it last
    for k, step in enumerate(steps):
        if step[0] == "fused":
            arena_last_use[step[7]] = k
        for r in fuse.step_refs(step):
            if r is not None and r[0] == "s":
                last_use[r[1]] = k
            elif r is not None and r[0] == "a":
                arena_last_use[r[1]] = k
    kept = {r[1] for r in outputs if r is not None and r[0] == "s"}
    dying = {}   # step -> the slots it uses last
    for slot, last in last_use.items():
        dying.setdefault(last, []).append(slot)
    arenas_dying = {}
    for arena, last in arena_last_use.items():
        arenas_dying.setdefault(last, []).append(arena)
    for k, step in enumerate(steps):
        kind = step[0]
        if kind == "read":
            lines.append(f"    s{step[2]} = {var(step[1])}._value")
        elif kind == "op":
            lines.append(op_line(step, k))
        elif kind == "fused":
            lines.extend(fuse.call_lines(step, k, val, namespace, set(last_use) | kept))
        elif kind == "store":
            ref = step[2]
            copy = ".copy()" if ref[0] == "c" else ""
            lines.append(f"    {var(step[1])}._value = {val(ref)}{copy}")
        else:
            _, fn, refs, out = step
            namespace[f"h{k}"] = fn
            call = f"h{k}({', '.join(val(r) for r in refs)})"
            lines.append(f"    s{out} = {call}" if out is not None else f"    {call}")
        dead = [f"s{s}" for s in sorted(dying.get(k, ())) if s not in kept]
        dead += [f"arena{a}" for a in sorted(arenas_dying.get(k, ()))]
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    packed = _pack_source(structure, iter(val(r) if r is not None else None for r in outputs))
    flat = ", ".join("None" if r is None else f"W({val(r)})" for r in outputs)
    lines.append(f"    return {packed if packed is not None else '[' + flat + ']'}")
    source = "\n".join(lines) + "\n"
    code = compile(source, f"<tf.function {name}>", "exec")
    exec(code, namespace)  # our own generated source, from the trace above
    return source, namespace["run"]



def _pack_source(structure, values):
    """Source that builds `structure` (None leaves, lists, tuples, dicts with str or int
    keys) from the value names in `values` (flat, in nest order), each wrapped as a
    Tensor; None for a structure only nest.pack_sequence_as can rebuild."""
    if structure is None:
        v = next(values)
        return "None" if v is None else f"W({v})"
    kind = type(structure)
    if kind in (list, tuple):
        items = [_pack_source(s, values) for s in structure]
        if any(i is None for i in items):
            return None
        body = ", ".join(items)
        return f"[{body}]" if kind is list else f"({body}{',' if len(items) == 1 else ''})"
    if kind is dict and all(type(k) in (str, int) for k in structure):
        built = {}
        for k in sorted(structure):
            built[k] = _pack_source(structure[k], values)
            if built[k] is None:
                return None
        return "{" + ", ".join(f"{k!r}: {built[k]}" for k in structure) + "}"
    return None
