"""Pooling (tf.nn.max_pool2d, avg_pool2d) and the ops their gradients are made of, as in
TF: MaxPoolGrad routes the upstream to each window's maximum and MaxPoolGradGrad reads
it back there (each is the other's transpose); AvgPoolGrad shares the upstream over a
window and its own gradient is AvgPool again. Every derivative order runs through
recorded ops. Leading axes before N are batch axes (a batched cotangent) that broadcast.
"""
from ..execute import apply, tensors
from ..registry import define_op
from . import windows as W
from .conv import _attrs as _conv_attrs, _check_rank

GEOMETRY = ("ksize", "strides", "padding", "explicit_paddings", "data_format")


def _geometry(at):
    return {k: at[k] for k in GEOMETRY if k in at}  # AvgPool has no explicit_paddings


def _zeros_for(F, x, g, out):
    """A zero cotangent for an input that only chooses (TF gives zeros, not None)."""
    return F.zero_cotangent(tuple(g.shape[:g.ndim - out.ndim]) + tuple(x.shape), x.dtype)


def _max_pool_rule(F, g, ins, out, at, needs):
    return (F.max_pool_grad(ins[0], out, g, **_geometry(at)),)


def _max_pool_grad_rule(F, u, ins, out, at, needs):
    x, y, _ = ins
    return (_zeros_for(F, x, u, out) if needs[0] else None,
            _zeros_for(F, y, u, out) if needs[1] else None,
            F.max_pool_grad_grad(x, y, u, **_geometry(at)) if needs[2] else None)


def _max_pool_grad_grad_rule(F, u, ins, out, at, needs):
    x, y, _ = ins
    return (_zeros_for(F, x, u, out) if needs[0] else None,
            _zeros_for(F, y, u, out) if needs[1] else None,
            F.max_pool_grad(x, y, u, **_geometry(at)) if needs[2] else None)


def _avg_pool_rule(F, g, ins, out, at, needs):
    return (F.avg_pool_grad(g, tuple(ins[0].shape[-4:]), **_geometry(at)),)


def _avg_pool_grad_rule(F, u, ins, out, at, needs):
    return (F.avg_pool(u, **_geometry(at)),)


_CHOOSES = ("grad_x = 0 (x only chooses where the maxima are)",
            "grad_y = 0 (y only chooses where the maxima are)")
MAX_POOL = define_op("MaxPool", W.max_pool, _max_pool_rule, (
    "grad_input = grad sent to the largest input of each window (the first, on ties)",))
MAX_POOL_GRAD = define_op("MaxPoolGrad", W.max_pool_grad, _max_pool_grad_rule, _CHOOSES + (
    "grad_dy = grad read at the largest x of each window",))
MAX_POOL_GRAD_GRAD = define_op("MaxPoolGradGrad", W.max_pool_grad_grad,
                               _max_pool_grad_grad_rule, _CHOOSES + (
                                   "grad_ddx = grad sent to the largest x of each window",))
AVG_POOL = define_op("AvgPool", W.avg_pool, _avg_pool_rule, (
    "grad_input = grad ÷ window size, shared over each window's real (unpadded) inputs",))
AVG_POOL_GRAD = define_op("AvgPoolGrad", W.avg_pool_grad, _avg_pool_grad_rule, (
    "grad_dy = avg_pool(grad)",))


def _attrs(ksize, strides, padding, data_format, allow_explicit):
    if not allow_explicit and not isinstance(padding, str):
        raise ValueError(f"avg_pool2d's padding must be 'SAME' or 'VALID', got {padding!r}")
    at = _conv_attrs(strides, padding, None, data_format)
    del at["dilations"]
    if not allow_explicit:
        del at["explicit_paddings"]
    at["ksize"] = W.sequence(ksize, "ksize")
    W.check_pool_padding(at["ksize"], at.get("explicit_paddings", ()))
    return at


def _pool(op, input, ksize, strides, padding, data_format, allow_explicit):
    (x,) = tensors(input)
    _check_rank(x, "input")
    at = _attrs(ksize, strides, padding, data_format, allow_explicit)
    W.geometry(x.shape[1:3], at["ksize"][1:3], at["strides"], at["padding"],
               at.get("explicit_paddings", ()), (1, 1, 1, 1))
    return apply(op, (x,), at)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.max_pool2d: the largest value of each window (padding never wins)."""
    return _pool(MAX_POOL, input, ksize, strides, padding, data_format, True)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.avg_pool2d: the mean of each window over its real elements only (SAME's
    padding is not counted, as in TF)."""
    return _pool(AVG_POOL, input, ksize, strides, padding, data_format, False)


def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC",
                  name=None):
    """TF's MaxPoolGrad: the gradient of max_pool2d with respect to its input."""
    x, y, g = tensors(orig_input, orig_output, grad)
    return apply(MAX_POOL_GRAD, (x, y, g), _attrs(ksize, strides, padding, data_format, True))


def max_pool_grad_grad(orig_input, orig_output, grad, ksize, strides, padding,
                       data_format="NHWC", name=None):
    """TF's MaxPoolGradGrad: the transpose of MaxPoolGrad in its `grad` argument."""
    x, y, g = tensors(orig_input, orig_output, grad)
    return apply(MAX_POOL_GRAD_GRAD, (x, y, g),
                 _attrs(ksize, strides, padding, data_format, True))


def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC",
                  name=None):
    """TF's AvgPoolGrad: the gradient of avg_pool2d with respect to its input."""
    (g,) = tensors(grad)
    at = _attrs(ksize, strides, padding, data_format, False)
    at["orig_input_shape"] = tuple(int(d) for d in orig_input_shape)
    return apply(AVG_POOL_GRAD, (g,), at)
