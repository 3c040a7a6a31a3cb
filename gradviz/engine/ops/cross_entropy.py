"""Softmax cross-entropy from logits, dense and sparse labels (TF's fused ops).

Both rules are written with recorded ops (softmax, subtract, multiply), so they are
differentiable in turn, as TF's are. TF's SoftmaxCrossEntropyWithLogits gradient
multiplies the upstream by the op's stored `backprop` output (p − labels), whose own
gradient reaches the logits only (_SoftmaxCrossEntropyWithLogitsGrad's grad_grad term):
the derivative of grad_logits with respect to labels is 0 in TF, not the true −grad.
The labels enter the rule through F.zero_gradient for the same 0 (still connected, so a
Jacobian in the labels is zeros, as TF's, not None).
"""
import numpy as np

from ..axes import axis_index
from .. import kernels
from ..execute import apply, tensors
from ..registry import define_op
from ..tensor import Tensor, convert_to_tensor, tensor_of
from .math import cast
from .shape import reshape, transpose


def _expand_last(F, g):
    """The upstream (batch + loss shape) with a class axis of 1, to scale each row."""
    return F.reshape(g, tuple(g.shape) + (1,))


# -- dense labels ----------------------------------------------------------------------

def _xent_forward(logits, labels):
    log_p = kernels.log_softmax(logits)
    return np.asarray(-np.sum(labels * log_p, axis=-1), dtype=logits.dtype)


def _xent_rule(F, g, ins, out, at, needs):
    logits, labels = ins
    ge = _expand_last(F, g)
    g_logits = ge * (F.softmax(logits) - F.zero_gradient(labels)) if needs[0] else None
    g_labels = -ge * F.log_softmax(logits) if needs[1] else None
    return g_logits, g_labels


SOFTMAX_XENT = define_op(
    "SoftmaxCrossEntropyWithLogits", _xent_forward, _xent_rule,
    ("grad_logits = grad · (p − labels), p = softmax(logits)",
     "grad_labels = −grad · log_softmax(logits)"))


def _float_logits(logits, op):
    if logits._value.dtype.kind != "f":
        raise TypeError(f"{op} needs floating logits (float16, float32 or float64), "
                        f"got {logits.dtype.name}")


def _class_axis_last(x, axis):
    """x with `axis` moved to the end (TF's _move_dim_to_end), recorded."""
    axis += x.ndim  # `axis` is counted from the end (checked by the caller)
    if axis == x.ndim - 1:
        return x
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    return transpose(x, perm)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """−Σ labels · log softmax(logits) along `axis`; each row of labels should be a
    probability distribution. Gradients flow into logits and labels, as in TF."""
    logits = convert_to_tensor(logits)
    _float_logits(logits, "softmax_cross_entropy_with_logits")
    if isinstance(labels, Tensor) and labels._value.dtype != logits._value.dtype:
        labels = cast(labels, logits.dtype)  # TF casts labels to the logits' dtype
    logits, labels = tensors(logits, labels)
    if logits.ndim == 0:
        raise ValueError("logits cannot be scalars - received shape ().")
    try:
        np.broadcast_shapes(tuple(logits.shape), tuple(labels.shape))
    except ValueError:
        raise ValueError(f"logits and labels must be broadcastable: logits_size="
                         f"{list(logits.shape)} labels_size={list(labels.shape)}") from None
    axis = axis_index(axis, logits.ndim) - logits.ndim  # the class axis, counted from the end
    labels = _same_rank(labels, logits.ndim)
    logits = _same_rank(logits, labels.ndim)
    logits, labels = _class_axis_last(logits, axis), _class_axis_last(labels, axis)
    return apply(SOFTMAX_XENT, (logits, labels))


def _same_rank(x, ndim):
    """x with leading axes of 1 up to rank `ndim` (the op broadcasts the rest)."""
    if x.ndim >= ndim:
        return x
    return reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape))


# -- sparse (integer) labels -------------------------------------------------------------

def _check_labels(labels, n_classes):
    """TF's CPU kernel: every label in [0, n_classes), else InvalidArgument."""
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        bad = labels[(labels < 0) | (labels >= n_classes)].reshape(-1)[0]
        shown = " ".join(str(int(v)) for v in labels.reshape(-1)[:10])
        raise ValueError(f"Received a label value of {int(bad)} which is outside the valid "
                         f"range of [0, {n_classes}).  Label values: {shown}")


def _sparse_xent_forward(logits, labels):
    _check_labels(labels, logits.shape[-1])
    log_p = kernels.log_softmax(logits)
    picked = np.take_along_axis(log_p, labels[..., None].astype(np.intp), axis=-1)[..., 0]
    return np.asarray(-picked, dtype=logits.dtype)


def one_hot_of(labels, n_classes, dtype):
    """One-hot rows of integer `labels` (a constant: labels carry no gradient)."""
    labels = np.asarray(getattr(labels, "_value", labels))
    return (labels[..., None] == np.arange(n_classes)).astype(dtype)


def _sparse_xent_rule(F, g, ins, out, at, needs):
    logits, labels = ins
    one_hot = one_hot_of(labels, logits.shape[-1], np.dtype(logits.dtype.name))
    return _expand_last(F, g) * (F.softmax(logits) - one_hot), None


SPARSE_SOFTMAX_XENT = define_op(
    "SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_forward, _sparse_xent_rule,
    ("grad_logits = grad · (p − one_hot(labels)), p = softmax(logits)",
     "grad_labels = None (integer labels have no gradient)"))


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """−log softmax(logits)[label] over the last axis, for integer class labels."""
    logits = convert_to_tensor(logits)
    _float_logits(logits, "sparse_softmax_cross_entropy_with_logits")
    labels = labels if isinstance(labels, Tensor) else tensor_of(np.asarray(labels))
    if labels._value.dtype.kind not in "iu":
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits needs integer labels "
                        f"(int32 or int64), got {labels.dtype.name}")
    if logits.ndim == 0:
        raise ValueError("Logits cannot be scalars - received shape ().")
    if labels.ndim != logits.ndim - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {labels.ndim}) should "
                         f"equal rank of logits minus 1 (received {logits.ndim}).")
    if tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise ValueError(f"Shape mismatch: The shape of labels (received "
                         f"{tuple(labels.shape)}) should equal the shape of logits except "
                         f"for the last dimension (received {tuple(logits.shape)}).")
    _check_labels(labels._value, logits.shape[-1])
    return apply(SPARSE_SOFTMAX_XENT, (logits, labels))
