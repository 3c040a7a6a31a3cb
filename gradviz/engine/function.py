"""tf.function: the decorator, its cache of traces (keyed by TF's retracing rules) and
their compiled replay.

A call that meets a new trace runs the Python function once, eagerly, under a tracer
(trace_program.py) that records every op, including the tapes inside the function and
their gradients and Jacobians, and every Variable read and assign. Later calls replay
that record as a straight-line numpy program: Python side effects (print, appending to a
list) happen at trace time only, as in TF; Variables are read at run time. Under a
recording tape the replay runs as gradviz ops, so the tape differentiates through it.

What TF decides before it runs a graph is kept:

- the trace a call belongs to: tensors by shape and dtype (Variables too), numpy arrays
  as tensors, Python scalars, strings and None by value, lists, tuples and dicts by
  their structure, any other object by identity; `experimental_get_tracing_count()`
  counts the traces, `get_concrete_function` returns one, and a function traced
  `RETRACING_WARNING_THRESHOLD` times warns (as TF logs about excessive retracing);
- `input_signature`: arguments are converted to the TensorSpecs' dtypes and checked
  against their shapes, one trace serves every call;
- `reduce_retracing`: a call that misses makes a trace general enough for it and the
  traces before (dimensions that differ become None);
- outputs come back as tensors (Python numbers converted, None kept);
- `jit_compile` and `autograph` are accepted: every trace is compiled the same way.

A trace whose dimensions are None (input_signature, reduce_retracing) keeps one compiled
program per concrete shape it meets: the Python function runs again for a new shape (as
XLA compiles once per shape), though TF's tracing count stays one.

Python control flow on a traced tensor's value (`if x > 0:`, `float(x)`, `x.numpy()`)
cannot be recorded: TF's autograph would rewrite it, this tracer does not. The function
then falls back to eager execution, with a `FunctionFallbackWarning` naming the line:
it keeps computing exactly as the undecorated function, at eager speed, and its Python
side effects run at every call.
"""
import functools
import inspect
import warnings
import weakref

import numpy as np

from . import nest
from .recording import stack
from .tracing import _trace
from .ops.shape import identity
from .spec import TensorSpec
from .tensor import Tensor, Variable, constant, convert_to_tensor

_LITERALS = (type(None), bool, int, float, complex, str, bytes)

# As TF: a function traced this many times warns that retracing is expensive.
RETRACING_WARNING_THRESHOLD = 5


_run_eagerly = False


def run_functions_eagerly(run_eagerly):
    """tf.config.run_functions_eagerly: every tf.function runs its Python function at
    every call, op by op (for debugging, and for `gradviz trace`, which must see each
    gradient call a script makes)."""
    global _run_eagerly
    _run_eagerly = bool(run_eagerly)


def functions_run_eagerly():
    return _run_eagerly


class FunctionFallbackWarning(UserWarning):
    """A tf.function could not be compiled and runs eagerly (the message says why)."""


class RetracingWarning(UserWarning):
    """A tf.function was traced many times (each new signature traces it again)."""


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None):
    """Decorator (with or without arguments), as tf.function.

    `autograph`, `jit_compile` and the experimental options are accepted and kept:
    eager execution needs neither (Python control flow already runs on values).
    """
    options = dict(
        input_signature=None if input_signature is None else tuple(input_signature),
        autograph=autograph,
        jit_compile=jit_compile if jit_compile is not None else experimental_compile,
        reduce_retracing=bool(reduce_retracing or experimental_relax_shapes))
    for spec in nest.flatten(list(options["input_signature"] or ())):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"input_signature must hold tf.TensorSpec objects, got "
                            f"{type(spec).__name__}: {spec!r}")
    if func is None:
        return lambda f: Function(f, **options)
    return Function(func, **options)


class Function:
    """A function made with tf.function: call it like the Python function."""

    def __init__(self, python_function, input_signature=None, autograph=True,
                 jit_compile=None, reduce_retracing=False):
        self._python_function = python_function
        self._input_signature = input_signature
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._traces = {}  # trace key -> ConcreteFunction, in the order they were made
        self._bound = weakref.WeakKeyDictionary()  # instance -> its bound Function
        self._fast = {}  # (class, shape, dtype) of each positional tensor -> Program
        functools.update_wrapper(self, python_function)
        self._signature = _signature_of(python_function)
        if input_signature is not None:  # one trace for every call, known before any
            names = (list(self._signature.parameters)[:len(input_signature)]
                     if self._signature is not None else range(len(input_signature)))
            self._signature_key = _key(tuple(names), input_signature)

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def experimental_autograph(self):
        return self._autograph

    @property
    def jit_compile(self):
        return self._jit_compile

    def experimental_get_tracing_count(self):
        """How many traces TF would have made for the calls so far."""
        return len(self._traces)

    def __get__(self, instance, owner=None):
        """On a method: one Function (and one cache of traces) per instance, as TF."""
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # an instance that cannot be weakly referenced
            bound = None
        if bound is None:
            bound = Function(functools.partial(self._python_function, instance),
                             self._input_signature, self._autograph, self._jit_compile,
                             self._reduce_retracing)
            bound.__name__ = getattr(self._python_function, "__name__", "function")
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    def __call__(self, *args, **kwargs):
        fast_key = None
        if not kwargs and not stack() and _trace.tracer is None and not _run_eagerly:
            # Tensors passed positionally: the compiled program is found by their shapes
            # and dtypes alone, without binding the call to the signature (the common
            # call, which must cost little more than the program).
            try:
                fast_key = tuple([(a.__class__, a._value.shape, a._value.dtype) for a in args])
            except AttributeError:
                pass
            else:
                program = self._fast.get(fast_key)
                if program is not None:
                    return program.run(args)
        concrete, arguments = self._trace_for(args, kwargs)
        result = concrete._run(arguments)
        if fast_key is not None and not concrete._eager:
            concrete._offer_fast(self._fast, fast_key, args)
        return result

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments (tensors, arrays or TensorSpecs), made if new;
        with an input_signature, the arguments may be left out."""
        if self._input_signature is not None and not args and not kwargs:
            return self._trace(self._signature_key)
        return self._trace_for(args, kwargs)[0]

    def _trace_for(self, args, kwargs):
        if self._input_signature is not None:
            arguments = _bind_signature(self._input_signature, self._signature, args, kwargs)
            return self._trace(self._signature_key), arguments
        arguments = _bind(self._signature, args, kwargs)
        arguments.arguments.update(
            (k, _arrays_as_tensors(v)) for k, v in arguments.arguments.items())
        key = _key(tuple(arguments.arguments), arguments.arguments.values())
        return self._trace(key), arguments

    def _trace(self, key):
        """The ConcreteFunction serving `key`: one that exists (the same or more general),
        or a new one (relaxed against the others under reduce_retracing)."""
        concrete = self._traces.get(key)
        if concrete is None:
            concrete = next((c for c in self._traces.values() if _is_subtype(key, c.key)), None)
        if concrete is None:
            if self._reduce_retracing:
                for other in self._traces.values():
                    key = _supertype(key, other.key) or key
            concrete = ConcreteFunction(self, key)
            self._traces[key] = concrete
            if len(self._traces) == RETRACING_WARNING_THRESHOLD:
                warnings.warn(
                    f"tf.function '{getattr(self, '__name__', 'function')}' has been traced "
                    f"{len(self._traces)} times. Tracing is expensive: a new shape, dtype or "
                    "Python value of an argument traces again. Pass tensors instead of "
                    "Python numbers, or give an input_signature (None for a dimension that "
                    "varies) or reduce_retracing=True.", RetracingWarning, stacklevel=4)
        return concrete

    def __repr__(self):
        return f"<gradviz.function {getattr(self, '__name__', 'function')}>"


class ConcreteFunction:
    """One trace: the argument types it serves (`key`); calling it checks and runs."""

    def __init__(self, function, key):
        self._function = function
        self.key = key
        self._programs = {}    # concrete shapes of the argument leaves -> Program
        self._structures = {}  # the same key -> the outputs' structure
        self._eager = False    # set when a trace fell back (see the module's docstring)
        self._made_variables = set()  # concrete keys whose trace made Variables

    @property
    def structured_input_signature(self):
        """(positional, keyword) argument types, as TF: TensorSpecs for tensors, the
        values of Python literals."""
        return tuple(_readable(t) for t in self.key[2]), {}

    def __call__(self, *args, **kwargs):
        f = self._function
        if f._input_signature is not None:
            return self._run(_bind_signature(f._input_signature, f._signature, args, kwargs))
        arguments = _bind(f._signature, args, kwargs)
        key = _key(tuple(arguments.arguments), arguments.arguments.values())
        if key != self.key and not _is_subtype(key, self.key):
            raise TypeError(
                f"this concrete function serves {self.structured_input_signature[0]}; the "
                f"arguments given are {tuple(_readable(t) for t in key[2])}")
        return self._run(arguments)

    def _run(self, arguments):
        python_function = self._function._python_function
        if self._eager or _trace.tracer is not None or _run_eagerly:
            # Fallen back, or called while another function traces (that trace records
            # these ops as its own: TF inlines a function called from a function), or
            # asked to by run_functions_eagerly.
            return _as_outputs(python_function(*arguments.args, **arguments.kwargs))
        leaves = nest.flatten([list(arguments.args), arguments.kwargs])
        key = _concrete_key(leaves)
        program = self._programs.get(key)
        if program is None:
            return self._trace_and_run(python_function, arguments, leaves, key)
        if stack():
            return nest.pack_sequence_as(self._structures[key], program.run_ops(leaves))
        return program.run(leaves)

    def _offer_fast(self, table, fast_key, args):
        """Put this call's program in `table` (Function._fast) when the arguments are
        its leaves as they are (positional tensors, no defaults, no tensor twice)."""
        program = self._programs.get(_concrete_key(list(args)))
        if (program is not None and len(program.inputs) == len(args)
                and len(set(map(id, args))) == len(args)):
            table[fast_key] = program

    def _trace_and_run(self, python_function, arguments, leaves, key):
        # The tracer and its compiler (trace_program, fuse) load at the first trace: a
        # program that never traces does not pay for them at `import gradviz`.
        from .trace_program import Tracer
        tracer = Tracer(leaves)
        with tracer:
            result = _as_outputs(python_function(*arguments.args, **arguments.kwargs))
        name = getattr(self._function, "__name__", "function")
        if tracer.variables_created and tracer.failure is None:
            # As TF: Variables may be made at the first call only (a Keras layer built
            # there); the next call traces again, and must make none.
            if key not in self._made_variables:
                self._made_variables.add(key)
                return result
            tracer.failure = ("it makes a tf.Variable at every call, where TF allows that at "
                              "the first call only: make the Variable outside the function.")
        if tracer.failure is not None:
            self._eager = True
            warnings.warn(f"tf.function '{name}' runs eagerly: {tracer.failure}",
                          FunctionFallbackWarning, stacklevel=4)
            return result
        flat = nest.flatten(result)
        structure = nest.pack_sequence_as(result, [None] * len(flat))
        self._programs[key] = tracer.program(flat, structure, name)
        self._structures[key] = structure
        return result

    @property
    def program_source(self):
        """The Python source of the compiled programs (for reading; one per shape)."""
        return [p.source for p in self._programs.values()]


def _concrete_key(leaves):
    """The concrete shapes and dtypes of the tensors among the argument leaves, and
    which leaves are one tensor (a program is compiled for each such key)."""
    parts = []
    ids = []
    for leaf in leaves:
        if isinstance(leaf, Tensor):
            v = leaf._value
            parts.append((v.shape, v.dtype.char, type(leaf) is Variable))
            ids.append(id(leaf))
        else:
            parts.append(None)
    if len(set(ids)) != len(ids):
        parts.append(tuple(ids.index(i) for i in ids))
    return tuple(parts)


def _signature_of(f):
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def _bind(signature, args, kwargs, defaults=True):
    if signature is None:
        return _Arguments(args, kwargs)
    bound = signature.bind(*args, **kwargs)
    if defaults:
        bound.apply_defaults()
    return bound


class _Arguments:
    """Arguments of a callable inspect cannot read: kept as given."""

    def __init__(self, args, kwargs):
        self.arguments = dict(enumerate(args), **kwargs)
        self._n = len(args)

    @property
    def args(self):
        return tuple(self.arguments[i] for i in range(self._n))

    @property
    def kwargs(self):
        return {k: v for k, v in self.arguments.items() if not isinstance(k, int)}


def _bind_signature(specs, signature, args, kwargs):
    """Bind the call to `input_signature`: one tensor per spec (the first parameters, in
    order), converted and checked; parameters after them keep their Python defaults."""
    bound = _bind(signature, args, kwargs, defaults=False)
    passed = len(bound.arguments)
    if signature is not None:
        bound.apply_defaults()
    names = list(bound.arguments)
    if passed > len(specs) or len(names) < len(specs):
        raise TypeError(
            f"Binding inputs to tf.function failed: the input_signature has {len(specs)} "
            f"arguments, the call gave {passed}")
    for name, spec in zip(names, specs):
        bound.arguments[name] = _conform_nested(bound.arguments[name], spec, name)
    return bound


def _conform_nested(value, spec, name):
    """`value` shaped as `spec` (a TensorSpec, or lists, tuples, dicts of them)."""
    if isinstance(spec, TensorSpec):
        return _conform(value, spec, name)
    if isinstance(spec, dict) and isinstance(value, dict) and set(value) == set(spec):
        return {k: _conform_nested(value[k], spec[k], name) for k in spec}
    if (isinstance(spec, (list, tuple)) and isinstance(value, (list, tuple))
            and len(value) == len(spec)):
        return type(spec)(_conform_nested(v, s, name) for v, s in zip(value, spec))
    raise TypeError(f"Binding inputs to tf.function failed: argument '{name}' ({value!r}) "
                    f"does not have the structure of the input_signature's {spec!r}")


def _conform(value, spec, name):
    if isinstance(value, Tensor):
        if value.dtype != spec.dtype:
            raise TypeError(
                f"Binding inputs to tf.function failed: argument '{name}' has dtype "
                f"{value.dtype.name}, the input_signature wants {spec!r}")
        tensor = value
    else:
        try:
            tensor = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Binding inputs to tf.function failed: argument '{name}' "
                            f"({value!r}) cannot become {spec!r}: {e}") from None
    if not spec.is_compatible_with(tensor):
        raise TypeError(
            f"Binding inputs to tf.function failed: argument '{name}' has shape "
            f"{tensor.shape}, the input_signature wants {spec!r}")
    return tensor


def _arrays_as_tensors(value):
    """Numpy arrays and scalars become constants, as TF converts them before tracing."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biuf":
        return constant(value)
    if isinstance(value, (list, tuple, dict)):
        flat = nest.flatten(value)
        if any(isinstance(v, (np.ndarray, np.generic)) for v in flat):
            return nest.pack_sequence_as(value, [_arrays_as_tensors(v) for v in flat])
    return value


def _key(names, values):
    return ("arguments", names, tuple(_trace_type(v) for v in values))


def _trace_type(value):
    """The part of an argument that decides its trace (TF's trace_type)."""
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, Variable):
        return ("Variable", TensorSpec(tuple(value.shape), value.dtype))
    if isinstance(value, Tensor):
        return TensorSpec(tuple(value.shape), value.dtype)
    if isinstance(value, _LITERALS):
        return ("literal", value)
    if isinstance(value, dict):
        keys = sorted(value, key=repr)
        return ("dict", tuple((k, _trace_type(value[k])) for k in keys))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_trace_type(v) for v in value))
    return ("object", _Identity(value))


class _Identity:
    """Keys an object by identity, keeping it alive so its id is not reused."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)

    def __repr__(self):
        return f"<{type(self.obj).__name__} object>"


def _is_subtype(key, general):
    """Does the trace `general` serve a call of type `key`?"""
    if isinstance(key, TensorSpec):
        return key.is_subtype_of(general)
    if isinstance(key, tuple) and isinstance(general, tuple) and len(key) == len(general):
        return all(_is_subtype(a, b) for a, b in zip(key, general))
    return key == general


def _supertype(a, b):
    """The most specific type both `a` and `b` are subtypes of, or None."""
    if isinstance(a, TensorSpec):
        return a.most_specific_common_supertype([b])
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        parts = [_supertype(x, y) for x, y in zip(a, b)]
        return None if any(p is None for p in parts) else tuple(parts)
    return a if a == b else None


def _readable(key):
    if isinstance(key, TensorSpec):
        return key
    if isinstance(key, tuple) and len(key) == 2 and key[0] in ("literal", "object", "Variable"):
        return key[1]
    if isinstance(key, tuple):
        return tuple(_readable(k) for k in key)
    return key


def _as_outputs(result):
    """Outputs as TF returns them from a function: tensors (None kept)."""
    flat = nest.flatten(result)
    out = []
    for v in flat:
        if v is None or (isinstance(v, Tensor) and not isinstance(v, Variable)):
            out.append(v)
        elif isinstance(v, Variable):
            out.append(identity(v))  # a Variable is read: its gradient flows
        else:
            out.append(convert_to_tensor(v))
    return nest.pack_sequence_as(result, out)
