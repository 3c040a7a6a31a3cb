"""Neural-network ops: activations (fused forward/backward kernels), softmax, batch norm."""
import numpy as np

from .. import kernels
from ..axes import axis_index
from ..execute import apply, tensors
from ..registry import define_op
from ..tensor import Tensor
from .math import tanh  # noqa: F401  (tf.nn.tanh is tf.math.tanh)
from .shape import squeeze, stop_gradient, transpose
from . import math as M
from .reduce import normalize_axes, reduce_mean


def _unary(op):
    def fn(features, name=None):
        x = features
        if type(x) is not Tensor:
            (x,) = tensors(x)
        return apply(op, (x,))
    return fn


RELU = define_op("Relu", kernels.relu,
                 lambda F, g, ins, out, at, needs: (F.relu_grad(g, out),),
                 ("grad_x = grad where x > 0",))
relu = _unary(RELU)

def _relu_grad_rule(F, g, ins, out, at, needs):
    """y only selects, so its gradient is zero; zeros rather than None, as TF's
    _ReluGradGrad, so the Hessian of a relu network is zeros and not unconnected."""
    _, y = ins
    gy = None
    if needs[1]:
        gy = F.zero_cotangent(tuple(g.shape[:g.ndim - out.ndim]) + tuple(y.shape), y.dtype)
    return (F.relu_grad(g, y) if needs[0] else None), gy


RELU_GRAD = define_op("ReluGrad", kernels.relu_grad, _relu_grad_rule,
                      ("grad_g = grad where y > 0", "grad_y = 0 (y only selects)"))


def relu_grad(g, y):
    return apply(RELU_GRAD, tensors(g, y))


SIGMOID = define_op("Sigmoid", kernels.sigmoid,
                    lambda F, g, ins, out, at, needs: (F.sigmoid_grad(out, g),),
                    ("grad_x = grad · σ(x) · (1 - σ(x))",))
sigmoid = _unary(SIGMOID)


def _sigmoid_grad_rule(F, g, ins, out, at, needs):
    """TF's _SigmoidGradGrad: gb - 2 · gb · y with gb = grad · dy (not gb · (1 - 2y):
    at y = 0 and gb = inf that is inf - NaN = NaN in TF)."""
    y, dy = ins
    gy = None
    if needs[0]:
        gb = g * dy
        gy = gb - 2.0 * gb * y
    return gy, (F.sigmoid_grad(y, g) if needs[1] else None)


SIGMOID_GRAD = define_op("SigmoidGrad", kernels.sigmoid_grad, _sigmoid_grad_rule,
                         ("grad_y = grad · dy - 2 · grad · dy · y", "grad_dy = grad · y · (1 - y)"))


def sigmoid_grad(y, dy):
    return apply(SIGMOID_GRAD, tensors(y, dy))


ELU = define_op("Elu", kernels.elu,
                lambda F, g, ins, out, at, needs: (F.elu_grad(g, out),),
                ("grad_x = grad where x > 0, grad · (elu(x) + 1) elsewhere",))
elu = _unary(ELU)


def _elu_grad_rule(F, g, ins, out, at, needs):
    dy, y = ins
    negative = F.less(y, 0)  # TF's _EluGradGrad: y < 0
    return (F.elu_grad(g, y) if needs[0] else None,
            F.masked(g * dy, negative) if needs[1] else None)


ELU_GRAD = define_op("EluGrad", kernels.elu_grad, _elu_grad_rule,
                     ("grad_dy = elu_grad(grad, y)", "grad_y = grad · dy where y < 0"))


def elu_grad(g, y):
    return apply(ELU_GRAD, tensors(g, y))


SOFTPLUS = define_op("Softplus", kernels.softplus,
                     lambda F, g, ins, out, at, needs: (g * F.sigmoid(ins[0]),),
                     ("grad_x = grad · σ(x)",))
softplus = _unary(SOFTPLUS)


def _softmax_rule(F, g, ins, out, at, needs):
    return (out * (g - F.reduce_sum(g * out, (-1,), True)),)


SOFTMAX = define_op("Softmax", kernels.softmax, _softmax_rule,
                    ("grad_x = y · (grad - Σ grad·y)",))


def _log_softmax_rule(F, g, ins, out, at, needs):
    return (g - F.exp(out) * F.reduce_sum(g, (-1,), True),)


LOG_SOFTMAX = define_op("LogSoftmax", kernels.log_softmax, _log_softmax_rule,
                        ("grad_x = grad - softmax(x) · Σ grad",))


def _last_axis(op, logits, axis):
    (x,) = tensors(logits)
    axis = axis_index(axis, x.ndim)
    if axis == x.ndim - 1:
        return apply(op, (x,))
    perm = list(range(x.ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(apply(op, (transpose(x, perm),)), perm)


def softmax(logits, axis=-1, name=None):
    return _last_axis(SOFTMAX, logits, axis)


def log_softmax(logits, axis=-1, name=None):
    return _last_axis(LOG_SOFTMAX, logits, axis)


# -- batch normalisation with batch statistics (training=True) ---------------------------

def _batch_norm_forward(x, gamma, beta, epsilon):
    mean, var = kernels.batch_moments(x)
    return ((x - mean) * (gamma / np.sqrt(var + epsilon)) + beta).astype(x.dtype, copy=False)


def _batch_norm_rule(F, g, ins, out, at, needs):
    """The classic fused rule: dx = γ/σ · (g - mean(g) - x̂ · mean(g·x̂))."""
    x, gamma, _ = ins
    axes = tuple(range(-x.ndim, -1))
    mean = F.reduce_mean(x, axes, True)
    centered = x - mean
    inv_std = 1 / F.sqrt(F.reduce_mean(centered * centered, axes, True) + at["epsilon"])
    x_hat = centered * inv_std
    gx = ggamma = gbeta = None
    if needs[0]:
        g_mean = F.reduce_mean(g, axes, True)
        gx_hat_mean = F.reduce_mean(g * x_hat, axes, True)
        gx = (gamma * inv_std) * (g - g_mean - x_hat * gx_hat_mean)
    if needs[1]:
        ggamma = F.reduce_sum(g * x_hat, axes, False)
    if needs[2]:
        gbeta = F.reduce_sum(g, axes, False)
    return gx, ggamma, gbeta


BATCH_NORM = define_op("FusedBatchNorm", _batch_norm_forward, _batch_norm_rule,
                       ("grad_x = γ/σ · (grad - mean(grad) - x̂ · mean(grad · x̂))",
                        "grad_γ = Σ grad · x̂", "grad_β = Σ grad"))


def batch_normalization_training(x, gamma, beta, epsilon):
    """Normalise over every axis but the last with the batch's own mean and variance."""
    x, gamma, beta = tensors(x, gamma, beta)
    return apply(BATCH_NORM, (x, gamma, beta), {"epsilon": float(epsilon)})


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """tf.nn.batch_normalization: (x - mean) · scale / √(variance + ε) + offset."""
    x, mean, variance = tensors(x, mean, variance)
    inv = M.divide(1.0, M.sqrt(M.add(variance, variance_epsilon)))
    if scale is not None:
        inv = M.multiply(inv, scale)
    y = M.multiply(M.subtract(x, mean), inv)
    return M.add(y, offset) if offset is not None else y


# -- layer normalisation: each example over its own axes ----------------------------------

def _layer_norm_forward(x, gamma, beta, axis, epsilon):
    mean = kernels.mean(x, axis=axis, keepdims=True)
    centered = x - mean
    var = kernels.mean(centered * centered, axis=axis, keepdims=True)
    inv = (1 / np.sqrt(var + epsilon)).astype(x.dtype, copy=False)
    return (centered * inv * gamma + beta).astype(x.dtype, copy=False)


def _layer_norm_rule(F, g, ins, out, at, needs):
    """dx = (1/σ) · (ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂)) with ĝ = grad · γ, means over the
    normalised axes. Written with recorded ops, the mean's own dependence on x included,
    so second derivatives are exact. TF's layers take their variance from tf.nn.moments
    (moments below), whose stop_gradient on the mean makes TF's second derivative differ
    from this one; the first derivatives agree."""
    x, gamma, _ = ins
    axes = at["axis"]
    mean = F.reduce_mean(x, axes, True)
    centered = x - mean
    inv_std = 1 / F.sqrt(F.reduce_mean(centered * centered, axes, True) + at["epsilon"])
    x_hat = centered * inv_std
    gx = None
    if needs[0]:
        g_hat = g * gamma
        gx = inv_std * (g_hat - F.reduce_mean(g_hat, axes, True)
                        - x_hat * F.reduce_mean(g_hat * x_hat, axes, True))
    # γ and β broadcast along the other axes: the backward pass sums these to their shapes.
    return gx, (g * x_hat if needs[1] else None), (g if needs[2] else None)


LAYER_NORM = define_op("LayerNorm", _layer_norm_forward, _layer_norm_rule,
                       ("grad_x = (ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂)) / σ, ĝ = grad · γ",
                        "grad_γ = Σ grad · x̂", "grad_β = Σ grad"))


def layer_normalization(x, gamma, beta, axis, epsilon):
    """(x − mean) / √(var + ε) · γ + β, mean and variance over `axis` of each example.
    γ and β must broadcast against x (the layer shapes them)."""
    x, gamma, beta = tensors(x, gamma, beta)
    axes = normalize_axes(axis, x.ndim)
    return apply(LAYER_NORM, (x, gamma, beta), {"axis": axes, "epsilon": float(epsilon)})


def moments(x, axes, keepdims=False, name=None):
    """Mean and variance over `axes`, built as TF's tf.nn.moments builds them: the variance
    is the mean of (x − mean)² with the mean behind a stop_gradient, so its gradient is
    2(x − mean)/n with no term through the mean (exact to first order; the second
    derivative is TF's 2/n·I, not the true 2/n·(I − 11ᵀ/n)); float16 is computed in
    float32 and cast back."""
    (x,) = tensors(x)
    half = x._value.dtype == np.float16
    y = M.cast(x, np.float32) if half else x
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(M.square(M.subtract(y, stop_gradient(mean))), axes, keepdims=True)
    if not keepdims:
        axes = normalize_axes(axes, y.ndim)
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if half:
        mean, variance = M.cast(mean, np.float16), M.cast(variance, np.float16)
    return mean, variance
