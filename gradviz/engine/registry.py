"""One global table: op type -> forward, vector-Jacobian product, formula text.

Built-in ops carry a *rule* `rule(F, g, ins, out, attrs, needs) -> per-input
contributions`, written once against a backend namespace `F` (plain numpy when
nothing records the backward pass, gradviz ops when an outer tape does, which is
what makes higher-order derivatives work). `RegisterGradient` adds TF-style
functions `fn(op, grad) -> [grads]`; `gradient_registry.lookup(type)` (backward.py)
returns a TF-style function for either kind, as TensorFlow's registry does.
"""


_RULE_FIELDS = frozenset(("rule", "grad_fn", "n_outputs", "no_gradient"))


class OpDef:
    """What the engine knows about one op type."""

    # n_outputs: 1 for one tensor; anything else (-1: decided per call) means a list.
    # outputs_off_tape: a tape records the op but not its outputs, so ops that read only
    # them are not recorded (TF pauses its tapes around StopGradient for the same effect).
    # plain_rule: `rule` when the backward pass may call it inline (one output, no
    # TF-style gradient function, not declared without gradient), else None; kept up to
    # date by __setattr__, so the backward pass reads one field per step instead of four.
    # shapes_only_rule: `rule` reads its inputs' and output's shapes, never their values
    # (a sum, a mean, a reshape, an add), so a constant cotangent gives constant
    # contributions, which a recorded pass computes on numpy (backward._constant_step).
    __slots__ = ("type", "forward", "rule", "grad_fn", "formulas", "n_outputs", "no_gradient",
                 "outputs_off_tape", "plain_rule", "shapes_only_rule")

    def __init__(self, type, forward, rule=None, formulas=None, n_outputs=1):
        self.type = type
        self.forward = forward
        self.rule = rule
        self.grad_fn = None
        self.formulas = formulas
        self.n_outputs = n_outputs
        self.no_gradient = False
        self.outputs_off_tape = False
        self.shapes_only_rule = False

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name in _RULE_FIELDS:
            plain = (getattr(self, "grad_fn", None) is None
                     and not getattr(self, "no_gradient", False)
                     and getattr(self, "n_outputs", 1) == 1)
            object.__setattr__(self, "plain_rule", getattr(self, "rule", None) if plain else None)

    @property
    def has_gradient(self):
        return self.no_gradient or self.rule is not None or self.grad_fn is not None

    def formula(self, attrs, index):
        """The local rule for input `index` as text, e.g. 'grad_a = grad @ bᵀ'."""
        f = self.formulas
        if f is None:
            return None
        if callable(f):
            f = f(attrs)
        return f[min(index, len(f) - 1)]  # variadic ops (concat, stack) share one text


_OPS = {}
# Gradient functions registered by name before their op type is defined (TF allows
# that: its registry maps names to functions); define_op attaches them.
_PENDING = {}


def define_op(type, forward, rule=None, formulas=None, n_outputs=1):
    """Register a new op type. `forward` maps numpy arrays (and attrs) to arrays."""
    if type in _OPS:
        raise KeyError(f"op type '{type}' is already defined")
    op = OpDef(type, forward, rule, formulas, n_outputs)
    if type in _PENDING:
        if rule is not None:
            raise KeyError(f"Registering two gradient with name '{type}'!")
        op.grad_fn = _PENDING.pop(type)
    _OPS[type] = op
    return op


def get_op(type):
    try:
        return _OPS[type]
    except KeyError:
        raise LookupError(f"unknown op type '{type}'") from None


def op_types():
    return sorted(_OPS)


class RegisterGradient:
    """Decorator: `@RegisterGradient("MyOp") def grad(op, grad): return [...]`.

    As in TF, registering twice for one type is an error: the registry is global.
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        op = _OPS.get(self._op_type)
        if (op is not None and op.has_gradient) or self._op_type in _PENDING:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        if op is None:
            _PENDING[self._op_type] = fn  # attached when the op type is defined
        else:
            op.grad_fn = fn
        return fn


def no_gradient(op_type):
    """Declare that `op_type` has no gradient: backprop gives None through it."""
    op = get_op(op_type)
    op.no_gradient = True


NotDifferentiable = no_gradient


