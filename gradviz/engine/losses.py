"""keras.losses: mean squared error and (sparse) categorical cross-entropy, as classes with
Keras 3's reductions and as functions giving the loss per example. Built from recorded
ops (the cross-entropies from logits on TF's fused ops), so every derivative is exact."""
import numpy as np

from . import tracing
from .dtypes import as_dtype
from .ops import cross_entropy, math, reduce
from .ops.shape import expand_dims, squeeze
from .tensor import Tensor, convert_to_tensor, tensor_of

REDUCTIONS = ("sum", "sum_over_batch_size", "mean", "mean_with_sample_weight", "none", None)
EPSILON = 1e-7  # Keras's backend.epsilon(): probabilities are clipped to [ε, 1 − ε]


def _pair(y_true, y_pred, dtype=None):
    y_pred = convert_to_tensor(y_pred)
    if dtype is not None and y_pred._value.dtype != as_dtype(dtype)._np:
        y_pred = math.cast(y_pred, dtype)
    if y_pred._value.dtype.kind != "f":
        y_pred = math.cast(y_pred, "float32")
    y_true = convert_to_tensor(y_true)
    if y_true._value.dtype != y_pred._value.dtype:
        y_true = math.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    """mean((y_pred − y_true)², axis=-1): one value per example."""
    y_true, y_pred = _pair(y_true, y_pred)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        try:
            np.broadcast_shapes(tuple(y_true.shape), tuple(y_pred.shape))
        except ValueError:
            raise ValueError(f"y_true and y_pred must have broadcastable shapes, got "
                             f"{tuple(y_true.shape)} and {tuple(y_pred.shape)}") from None
    return reduce.reduce_mean(math.square(math.subtract(y_pred, y_true)), axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """−Σ y_true · log p along `axis`, p = softmax(y_pred) from logits, else y_pred
    normalised to sum 1 and clipped to [1e-7, 1 − 1e-7] as Keras does."""
    y_true, y_pred = _pair(y_true, y_pred)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(f"Arguments `target` and `output` must have the same shape. Received: "
                         f"target.shape={tuple(y_true.shape)}, "
                         f"output.shape={tuple(y_pred.shape)}")
    if label_smoothing:
        n = y_pred.shape[axis]
        y_true = math.add(math.multiply(y_true, 1.0 - float(label_smoothing)),
                          float(label_smoothing) / n)
    if from_logits:
        return cross_entropy.softmax_cross_entropy_with_logits(y_true, y_pred, axis=axis)
    p = _clipped_probabilities(y_pred, axis)
    return math.negative(reduce.reduce_sum(math.multiply(y_true, math.log(p)), axis=axis))


def _clipped_probabilities(y_pred, axis):
    p = math.divide(y_pred, reduce.reduce_sum(y_pred, axis=axis, keepdims=True))
    return math.clip_by_value(p, EPSILON, 1.0 - EPSILON)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """−log p[label] over the last axis, for integer labels (a trailing axis of 1 is
    dropped, as Keras does)."""
    y_pred = convert_to_tensor(y_pred)
    if y_pred._value.dtype.kind != "f":
        y_pred = math.cast(y_pred, "float32")
    if axis not in (-1, y_pred.ndim - 1):
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    labels = y_true if isinstance(y_true, Tensor) else convert_to_tensor(np.asarray(y_true))
    values = labels._value
    if values.dtype.kind == "f" or (labels.ndim == y_pred.ndim and labels.shape[-1] == 1):
        tracing.python_value(labels, "sparse labels converted with numpy")
    if values.dtype.kind == "f":
        if not np.array_equal(values, np.round(values)):
            raise ValueError("sparse labels must be whole numbers (class indices), got "
                             f"{values.reshape(-1)[:5].tolist()}")
        labels = tensor_of(values.astype(np.int64))
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = tensor_of(np.asarray(labels._value).reshape(tuple(labels.shape[:-1])))
    logits = y_pred if from_logits else math.log(_clipped_probabilities(y_pred, -1))
    return cross_entropy.sparse_softmax_cross_entropy_with_logits(labels, logits)


def _same_rank(values, weights):
    """Keras's squeeze_or_expand_to_same_rank: ranks one apart meet by dropping a trailing
    axis of 1 from the larger, else adding one to the smaller."""
    if weights.ndim == values.ndim + 1:
        if weights.shape[-1] == 1:
            return values, squeeze(weights, -1)
        return expand_dims(values, -1), weights
    if values.ndim == weights.ndim + 1:
        if values.shape[-1] == 1:
            return squeeze(values, -1), weights
        return values, expand_dims(weights, -1)
    return values, weights


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Keras 3's reductions of per-example losses: weighted by sample_weight, then
    summed ('sum'), averaged over the values ('sum_over_batch_size', 'mean'), over the
    sum of the weights ('mean_with_sample_weight'), or left as they are ('none', None;
    and, as in Keras, a scalar or empty loss)."""
    weights = None
    if sample_weight is not None:
        weights = convert_to_tensor(sample_weight)
        if weights._value.dtype != values._value.dtype:
            weights = math.cast(weights, values.dtype)
        values, weights = _same_rank(values, weights)
        values = math.multiply(values, weights)
    if reduction in ("none", None) or tuple(values.shape) in ((), (0,)):
        return values
    total = reduce.reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weights is not None:
        divisor = reduce.reduce_sum(weights)
        return math.where(math.equal(divisor, 0.0), math.multiply(total, 0.0),
                          math.divide(total, divisor))  # divide_no_nan
    return math.divide(total, float(values.size))


class Loss:
    """A loss with a reduction (Keras 3's default: the mean over every per-example value)."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in REDUCTIONS:
            raise ValueError(f"Invalid value for argument `reduction`. Expected one of "
                             f"{REDUCTIONS}. Received: reduction={reduction!r}")
        self.name = name or type(self).__name__.lower()
        self.reduction = reduction
        self.dtype = as_dtype(dtype or "float32").name

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if y_pred._value.dtype != as_dtype(self.dtype)._np:
            y_pred = math.cast(y_pred, self.dtype)
        return reduce_values(self.call(y_true, y_pred), sample_weight, self.reduction)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class MeanSquaredError(Loss):
    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(name, reduction, dtype)

    def call(self, y_true, y_pred):
        return mean_squared_error(y_true, y_pred)


class CategoricalCrossentropy(Loss):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        super().__init__(name, reduction, dtype)
        self.from_logits, self.label_smoothing, self.axis = bool(from_logits), label_smoothing, axis

    def call(self, y_true, y_pred):
        return categorical_crossentropy(y_true, y_pred, self.from_logits, self.label_smoothing,
                                        self.axis)


class SparseCategoricalCrossentropy(Loss):
    def __init__(self, from_logits=False, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(name, reduction, dtype)
        self.from_logits = bool(from_logits)

    def call(self, y_true, y_pred):
        return sparse_categorical_crossentropy(y_true, y_pred, self.from_logits)
