"""Elementwise math: arithmetic, transcendental functions, comparisons.

Rules return contributions with the *broadcast* shape; the engine sums them back to
each input's shape in one place (backward._step).
"""

import numpy as np

from .. import kernels
from ..backend import _np_multiply_no_nan
from ..execute import apply, tensors
from ..registry import define_op, no_gradient
from ..tensor import Tensor
from .shape import _where_indices
from ..dtypes import as_dtype
from ..tensor import convert_to_tensor

def _unary(type, forward, rule, formula):
    op = define_op(type, forward, rule, (formula,))

    def fn(x, name=None):
        if x.__class__ is not Tensor:  # (`type` is this function's op name here)
            (x,) = tensors(x)
        return apply(op, (x,))
    fn.__name__ = type.lower()
    return op, fn

def _binary(type, forward, rule, formulas):
    op = define_op(type, forward, rule, formulas)

    def fn(x, y, name=None):
        return apply(op, tensors(x, y))
    fn.__name__ = type.lower()
    return op, fn

ADD, add = _binary(
    "AddV2", np.add,
    lambda F, g, ins, out, at, needs: (g, g),
    ("grad_x = grad", "grad_y = grad"))
SUB, subtract = _binary(
    "Sub", np.subtract,
    lambda F, g, ins, out, at, needs: (g, -g if needs[1] else None),
    ("grad_x = grad", "grad_y = -grad"))
MUL, multiply = _binary(
    "Mul", np.multiply,
    lambda F, g, ins, out, at, needs: (g * ins[1] if needs[0] else None,
                                       g * ins[0] if needs[1] else None),
    ("grad_x = grad · y", "grad_y = grad · x"))

def _mul_no_nan_rule(F, g, ins, out, at, needs):
    """TF's MulNoNanGrad: grad_x = mul_no_nan(grad, y), grad_y = mul_no_nan(x, grad)."""
    x, y = ins
    return (F.multiply_no_nan(g, y) if needs[0] else None,
            F.multiply_no_nan(x, g) if needs[1] else None)

MUL_NO_NAN, multiply_no_nan = _binary(
    "MulNoNan", _np_multiply_no_nan, _mul_no_nan_rule,
    ("grad_x = grad · y, 0 where y = 0 even if grad is ±∞ or NaN",
     "grad_y = grad · x, 0 where grad = 0 even if x is ±∞ or NaN"))

def _div_rule(F, g, ins, out, at, needs):
    """TF's _RealDivGrad: grad / y and grad · ((-x / y) / y), not -grad · out / y: the
    same in exact arithmetic, not where (-x / y) / y overflows and the other does not."""
    x, y = ins
    return (g / y if needs[0] else None,
            g * ((-x / y) / y) if needs[1] else None)

DIV, divide = _binary("RealDiv", np.true_divide, _div_rule,
                      ("grad_x = grad / y", "grad_y = -grad · x / y²"))

def _pow_forward(x, y):
    return np.power(x, y)

def _pow_rule(F, g, ins, out, at, needs):
    x, y = ins
    gx = gy = None
    if needs[0]:
        # On arrays, the last line without its exact no-ops: x ** 0 is 1 and x ** 1 is x
        # for every x (0, inf and NaN too). A Hessian's backward of x ** 2 meets
        # x ** (2 - 1) with an exponent of 1, a numpy scalar there (numpy's 2 - 1 on
        # 0-d arrays). The exponent is compared as a Python number (item()): a
        # comparison of numpy scalars costs 4x more.
        if type(y) is np.ndarray:
            e = y.item() if y.ndim == 0 else None
        else:
            e = y.item() if isinstance(y, np.generic) else None
        if e == 1:
            gx = g
        elif e == 2:
            gx = g * y * x
        else:
            gx = g * y * F.pow(x, y - 1)
    if needs[1]:
        positive = F.greater(x, 0)
        safe_x = F.where(positive, x, F.ones_like(x))
        gy = g * out * F.where(positive, F.log(safe_x), F.zeros_like(x))
    return gx, gy

POW, pow = _binary("Pow", _pow_forward, _pow_rule,
                   ("grad_x = grad · y · x^(y-1)", "grad_y = grad · x^y · log x"))

def _max_rule(F, g, ins, out, at, needs):
    x, y = ins
    pick_x = F.greater_equal(x, y)
    return (F.masked(g, pick_x) if needs[0] else None,
            F.masked(g, F.logical_not(pick_x)) if needs[1] else None)

def _min_rule(F, g, ins, out, at, needs):
    x, y = ins
    pick_x = F.less_equal(x, y)
    return (F.masked(g, pick_x) if needs[0] else None,
            F.masked(g, F.logical_not(pick_x)) if needs[1] else None)

MAXIMUM, maximum = _binary("Maximum", np.maximum, _max_rule,
                           ("grad_x = grad where x ≥ y", "grad_y = grad where y > x"))
MINIMUM, minimum = _binary("Minimum", np.minimum, _min_rule,
                           ("grad_x = grad where x ≤ y", "grad_y = grad where y < x"))

def _masked_forward(g, mask):
    """A select, not g · mask: as TF's where-based rules, an inf or NaN cotangent where
    the mask is off gives 0 there, not NaN (inf · 0)."""
    return np.where(mask, g, np.zeros((), g.dtype))

# g where mask else 0: the building block of the max/min/where/clip rules.
MASKED = define_op("Masked", _masked_forward,
                   lambda F, g, ins, out, at, needs: (F.masked(g, ins[1]), None),
                   ("grad_g = grad where mask", "mask: no gradient"))

def masked(g, mask):
    (g,) = tensors(g)
    (mask,) = tensors(mask)
    return apply(MASKED, (g, mask))

NEG, negative = _unary("Neg", np.negative, lambda F, g, ins, out, at, needs: (-g,),
                       "grad_x = -grad")
ADD.shapes_only_rule = SUB.shapes_only_rule = NEG.shapes_only_rule = True
EXP, exp = _unary("Exp", np.exp, lambda F, g, ins, out, at, needs: (g * out,),
                  "grad_x = grad · exp(x)")
LOG, log = _unary("Log", np.log,
                  lambda F, g, ins, out, at, needs: (g * F.reciprocal(ins[0]),),
                  "grad_x = grad / x")  # TF's _LogGrad: grad · reciprocal(x)
SIN, sin = _unary("Sin", np.sin, lambda F, g, ins, out, at, needs: (F.sin_grad(ins[0], g),),
                  "grad_x = grad · cos(x)")
COS, cos = _unary("Cos", np.cos, lambda F, g, ins, out, at, needs: (F.cos_grad(ins[0], g),),
                  "grad_x = -grad · sin(x)")
SQRT, sqrt = _unary("Sqrt", np.sqrt,
                    lambda F, g, ins, out, at, needs: (F.sqrt_grad(out, g),),
                    "grad_x = grad / (2·√x), 0 where grad = 0 even at x = 0")
def _square_rule(F, g, ins, out, at, needs):
    x = ins[0]
    two = kernels.constant_of(2, x.dtype) if type(x) is np.ndarray else 2
    return (g * (two * x),)


SQUARE, square = _unary("Square", np.square, _square_rule, "grad_x = grad · 2x")
ABS, abs = _unary("Abs", np.abs, lambda F, g, ins, out, at, needs: (g * F.sign(ins[0]),),
                  "grad_x = grad · sign(x)")
TANH, tanh = _unary("Tanh", np.tanh, lambda F, g, ins, out, at, needs: (F.tanh_grad(out, g),),
                    "grad_x = grad · (1 - tanh²(x))")
RECIPROCAL, reciprocal = _unary(
    "Reciprocal", np.reciprocal,
    lambda F, g, ins, out, at, needs: (F.reciprocal_grad(out, g),),
    "grad_x = -grad / x², 0 where grad = 0 even at x = 0")


def _sqrt_grad_rule(F, g, ins, out, at, needs):
    """TF's _SqrtGradGrad: with ga = grad / y, -ga · out for y and 0.5 · ga for dy."""
    ga = g / ins[0]
    return (-ga * out if needs[0] else None, 0.5 * ga if needs[1] else None)


SQRT_GRAD, sqrt_grad = _binary("SqrtGrad", kernels.sqrt_grad, _sqrt_grad_rule,
                               ("grad_y = -grad · out / y", "grad_dy = grad / (2y)"))


def _reciprocal_grad_rule(F, g, ins, out, at, needs):
    """TF's _ReciprocalGradGrad: grad · -2 · dy · y for y, reciprocal_grad(y, grad) for dy."""
    y, dy = ins
    return (g * -2.0 * dy * y if needs[0] else None,
            F.reciprocal_grad(y, g) if needs[1] else None)


RECIPROCAL_GRAD, reciprocal_grad = _binary(
    "ReciprocalGrad", kernels.reciprocal_grad, _reciprocal_grad_rule,
    ("grad_y = -2 · grad · dy · y", "grad_dy = -grad · y²"))

def _tanh_grad_rule(F, g, ins, out, at, needs):
    """TF's _TanhGradGrad: grad · -2 · dy · y, multiplied in that order (grad · -2 can
    overflow where grad · dy · -2y does not)."""
    y, dy = ins
    return (g * -2.0 * dy * y if needs[0] else None,
            F.tanh_grad(y, g) if needs[1] else None)

TANH_GRAD = define_op("TanhGrad", kernels.tanh_grad, _tanh_grad_rule,
                      ("grad_y = grad · -2 · dy · y", "grad_dy = grad · (1 - y²)"))

def tanh_grad(y, dy):
    return apply(TANH_GRAD, tensors(y, dy))

# Sign, comparisons and logic have no gradient (TF: NotDifferentiable / zero).
def _comparison(type, forward):
    op = define_op(type, forward)
    no_gradient(type)

    def fn(x, y, name=None):
        return apply(op, tensors(x, y))
    fn.__name__ = type.lower()
    return fn

SIGN = define_op("Sign", np.sign, lambda F, g, ins, out, at, needs: (F.zeros_like(g),),
                 ("grad_x = 0",))

def sign(x, name=None):
    (x,) = tensors(x)
    return apply(SIGN, (x,))

greater = _comparison("Greater", np.greater)
greater_equal = _comparison("GreaterEqual", np.greater_equal)
less = _comparison("Less", np.less)
less_equal = _comparison("LessEqual", np.less_equal)
equal = _comparison("Equal", np.equal)
not_equal = _comparison("NotEqual", np.not_equal)
logical_and = _comparison("LogicalAnd", np.logical_and)
logical_or = _comparison("LogicalOr", np.logical_or)

LOGICAL_NOT = define_op("LogicalNot", np.logical_not)
no_gradient("LogicalNot")

def logical_not(x, name=None):
    (x,) = tensors(x)
    return apply(LOGICAL_NOT, (x,))

def _where_forward(cond, x, y):
    return np.where(cond, x, y)

def _where_rule(F, g, ins, out, at, needs):
    cond = ins[0]
    return (None,
            F.masked(g, cond) if needs[1] else None,
            F.masked(g, F.logical_not(cond)) if needs[2] else None)

WHERE = define_op("SelectV2", _where_forward, _where_rule,
                  ("condition: no gradient", "grad_x = grad where condition",
                   "grad_y = grad where not condition"))

def where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return _where_indices(condition)
    (condition,) = tensors(condition)
    x, y = tensors(x, y)
    return apply(WHERE, (condition, x, y))

def add_n(inputs, name=None):
    total = inputs[0]
    for t in inputs[1:]:
        total = add(total, t)
    return total

def _clip_rule(F, g, ins, out, at, needs):
    """TF's tf.clip_by_value is maximum(minimum(x, hi), lo), so its gradient is Maximum's
    then Minimum's (_MaximumMinimumGrad): the same as the texts say for lo ≤ hi, and TF's
    where x is NaN (lo takes the gradient) or lo > hi (lo takes it, x and hi get 0)."""
    x, lo, hi = ins
    through_max = F.greater_equal(F.minimum(x, hi), lo)
    below_hi = F.less_equal(x, hi)
    to_min = F.masked(g, through_max)
    return (F.masked(to_min, below_hi) if needs[0] else None,
            F.masked(g, F.logical_not(through_max)) if needs[1] else None,
            F.masked(to_min, F.logical_not(below_hi)) if needs[2] else None)

CLIP = define_op("ClipByValue", lambda x, lo, hi: np.maximum(np.minimum(x, hi), lo), _clip_rule,
                 ("grad_x = grad where lo ≤ x ≤ hi", "grad_lo = grad where x < lo",
                  "grad_hi = grad where x > hi"))

def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    t, lo, hi = tensors(t, clip_value_min, clip_value_max)
    return apply(CLIP, (t, lo, hi))

def _cast_rule(F, g, ins, out, at, needs):
    return (F.cast(g, ins[0].dtype),)

CAST = define_op("Cast", lambda x, dtype: x.astype(dtype), _cast_rule, ("grad_x = cast(grad)",))

def cast(x, dtype, name=None):
    x = convert_to_tensor(x)
    target = as_dtype(dtype)._np
    if x._value.dtype == target:
        return x
    return apply(CAST, (x,), {"dtype": target})

