"""custom_gradient: an op whose backward pass is the user's function.

As in TF eager mode: the decorated function runs while every tape keeps recording
(so whatever `grad_fn` uses from the forward pass is differentiable again by an
outer tape: that is what gives correct second derivatives), a watcher notes the
trainable variables it reads, and one op from the flattened inputs (and those
variables) to fresh output tensors is recorded, whose gradient calls
`grad_fn(*upstream)` (or `grad_fn(*upstream, variables=...)`). The forward ops stay
on the tape but lie on no path to the outputs, so first-order gradients only see
`grad_fn`.
"""
import functools
import inspect

from . import nest, recording as _recording
from .errors import counted
from .registry import OpDef
from .tensor import Tensor, Variable, _short, convert_to_tensor


class _VariableWatcher:
    """Sits in the recording stack and only notes which trainable variables are read."""

    def __init__(self):
        self.variables = []
        self._tracked = frozenset()  # tracks nothing: record() asks _should_record

    def _should_record(self, inputs):
        for t in inputs:
            if type(t) is Variable and t.trainable and not any(v is t for v in self.variables):
                self.variables.append(t)
        return False


def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; grad_fn maps upstream to input gradients.

    Arguments may be nested (lists, tuples, dicts of tensors): grad_fn returns one
    gradient per flattened leaf, as in TF. On a method, `self` is bound first and is
    not an input: grad_fn returns gradients for the other arguments only (TF binds
    the decorated method the same way).
    """
    if f is None:
        return custom_gradient
    return _CustomGradientFunction(f)


class _CustomGradientFunction:
    """The decorated function; a descriptor, so that on a method `self` is bound first."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = _CustomGradientFunction(functools.partial(self._f, instance))
        bound.__name__ = getattr(self._f, "__name__", "f")
        return bound

    def __call__(self, *args, **kwargs):
        return _call(self._f, getattr(self, "__name__", "f"), args, kwargs)


def _call(f, name, args, kwargs):
    watcher = _VariableWatcher()
    recording = _recording.stack()
    recording.append(watcher)
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        recording.remove(watcher)
    flat_args = nest.flatten(list(args))
    inputs = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in flat_args]
    known = flat_args + nest.flatten(kwargs)
    variables = [v for v in watcher.variables if not any(v is a for a in known)]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(
            "@custom_gradient: the function reads trainable variables "
            f"({', '.join(v.name for v in variables)}), so its grad_fn must accept a "
            "keyword argument 'variables'")
    flat = [convert_to_tensor(r) for r in nest.flatten(result)]
    outputs = [Tensor._wrap(r._value) for r in flat]
    if _recording.stack():
        opdef = OpDef("CustomGradient", None, formulas=(f"grad = {name}'s grad_fn(upstream)",))
        opdef.n_outputs = 1 if len(outputs) == 1 else len(outputs)
        opdef.grad_fn = _make_grad_fn(grad_fn, len(inputs), variables, name)
        all_inputs = inputs + variables
        _recording.record(_recording.stack(), opdef, all_inputs,
                          [t._value for t in all_inputs], outputs, {"function": name})
    return nest.pack_sequence_as(result, outputs)


def grad_pass_through(f):
    """`f` forward, identity backward: each output's upstream goes to the matching input.

    As tf.grad_pass_through: `grad_pass_through(x.assign)(z ** 2)` is differentiable
    in z although an assignment is not. Variables `f` reads get no gradient.
    """
    @custom_gradient
    def pass_through(*args, **kwargs):
        def grad(*upstream, variables=None):
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream
        return f(*args, **kwargs), grad

    pass_through.__name__ = getattr(f, "__name__", "grad_pass_through")
    return pass_through


def _accepts_variables(fn):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "variables" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _make_grad_fn(grad_fn, n_inputs, variables, name):
    def grad(op, *upstream):
        if variables:
            input_grads, variable_grads = grad_fn(*upstream, variables=variables)
            variable_grads = nest.flatten(variable_grads)
            if len(variable_grads) != len(variables):
                raise ValueError(
                    f"custom gradient returned {len(variable_grads)} variable gradients for "
                    f"{len(variables)} variables")
        else:
            input_grads = grad_fn(*upstream)
            variable_grads = []
        input_grads = nest.flatten(input_grads)
        if len(input_grads) != n_inputs:
            raise ValueError(
                f"custom gradient returned {counted(len(input_grads), 'gradient')} for "
                f"{counted(n_inputs, 'input')}")
        return [_gradient_tensor(g, name, i) for i, g in enumerate(input_grads + variable_grads)]
    return grad


def _gradient_tensor(g, name, i):
    """Gradient `i` returned by `name`'s grad_fn as a tensor (None stays None); what is not
    a number is refused naming the function, not deep in the backward pass."""
    if g is None:
        return None
    try:
        return convert_to_tensor(g)
    except (TypeError, ValueError) as e:
        raise TypeError(f"the custom gradient of {name} returned {_short(g)} as gradient "
                        f"{i}: {e}") from None
