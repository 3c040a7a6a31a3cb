"""keras.layers.Dense and keras.layers.BatchNormalization, built on the engine's ops."""
import numpy as np

from . import array
from .ops import linalg, math, nn
from .dtypes import as_dtype
from .tensor import Variable, convert_to_tensor
from . import kernels

_ACTIVATIONS = {
    None: None, "linear": None, "relu": nn.relu, "elu": nn.elu, "sigmoid": nn.sigmoid,
    "tanh": math.tanh, "softmax": nn.softmax, "softplus": nn.softplus,
}


def get_activation(activation):
    if callable(activation):
        return activation
    try:
        return _ACTIVATIONS[activation]
    except KeyError:
        raise ValueError(
            f"unknown activation {activation!r}; use one of "
            f"{', '.join(k for k in _ACTIVATIONS if k)} or a function") from None


class Layer:
    """Builds its variables on the first call, from the input's last dimension.

    As Keras, numeric inputs are cast to the layer's dtype (float32 unless given), so a
    float64 numpy array can be fed to a float32 layer; the cast is recorded, so the
    gradient with respect to the input comes back in the input's dtype.
    """

    _count = 0

    def __init__(self, name=None, trainable=True, dtype=None):
        Layer._count += 1
        self.name = name or f"{type(self).__name__.lower()}_{Layer._count}"
        self.trainable = trainable
        self.built = False
        self._dtype = np.dtype(as_dtype(dtype or "float32")._np)
        self._variables = []

    @property
    def dtype(self):
        return self._dtype.name

    def add_weight(self, name, shape, initializer, trainable=True, dtype=None):
        value = get_initializer(initializer)(tuple(shape), np.dtype(dtype or self._dtype))
        v = Variable(value, trainable=trainable and self.trainable, name=f"{self.name}/{name}")
        self._variables.append(v)
        return v

    @property
    def variables(self):
        return list(self._variables)

    weights = variables

    @property
    def trainable_variables(self):
        return [v for v in self._variables if v.trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self):
        return [v for v in self._variables if not v.trainable]

    non_trainable_weights = non_trainable_variables

    def __call__(self, inputs, *args, **kwargs):
        inputs = convert_to_tensor(inputs)
        if not self.built:
            self.build(tuple(inputs.shape))
            self.built = True
        compute = self._variables[0]._value.dtype if self._variables else self._dtype
        if inputs._value.dtype.kind in "fiu" and inputs._value.dtype != compute:
            inputs = math.cast(inputs, compute)
        return self.call(inputs, *args, **kwargs)


def _check_kwargs(kwargs, understood=("input_shape", "input_dim")):
    unknown = sorted(set(kwargs) - set(understood))
    if unknown:
        raise TypeError(f"Keyword argument not understood: {', '.join(unknown)}")


def glorot_limit(shape):
    """√(6 / (fan_in + fan_out)), the fans counted as Keras counts them: a conv kernel
    (KH, KW, C_in, C_out) has fan_in KH·KW·C_in and fan_out KH·KW·C_out."""
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[-2 if len(shape) > 1 else 0] * receptive, shape[-1] * receptive
    return np.sqrt(6.0 / max(1, fan_in + fan_out))


def glorot_uniform(shape, dtype):
    limit = glorot_limit(shape)
    return array.random.uniform(shape, -limit, limit, dtype=dtype)._value


def zeros(shape, dtype):
    return np.zeros(shape, dtype)


def ones(shape, dtype):
    return np.ones(shape, dtype)


_INITIALIZERS = {"glorot_uniform": glorot_uniform, "zeros": zeros, "ones": ones}


def get_initializer(initializer):
    """A name ('glorot_uniform', 'zeros', 'ones') or a function (shape, dtype) -> values."""
    if callable(initializer):
        return initializer
    try:
        return _INITIALIZERS[initializer]
    except KeyError:
        raise ValueError(f"unknown initializer {initializer!r}; use one of "
                         f"{', '.join(_INITIALIZERS)} or a function (shape, dtype)") from None


class Dense(Layer):
    """y = activation(x @ kernel + bias)."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", name=None, trainable=True, dtype=None, **kwargs):
        _check_kwargs(kwargs)
        super().__init__(name, trainable, dtype)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(f"Dense needs a positive number of units, got {units!r}")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel = self.bias = None

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (input_shape[-1], self.units),
                                      self.kernel_initializer)
        if self.use_bias:
            self.bias = self.add_weight("bias", (self.units,), self.bias_initializer)
        self.built = True

    def call(self, inputs, training=None):
        y = linalg.matmul(inputs, self.kernel)
        if self.use_bias:
            y = math.add(y, self.bias)
        return self.activation(y) if self.activation is not None else y


class BatchNormalization(Layer):
    """Normalises the last axis; training=True uses the batch's statistics (and couples
    the examples of a batch: batch_jacobian's assumption no longer holds)."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 name=None, trainable=True, dtype=None, **kwargs):
        _check_kwargs(kwargs)
        super().__init__(name, trainable, dtype)
        if axis not in (-1,) and not isinstance(axis, int):
            raise ValueError("BatchNormalization supports a single (last) axis")
        self.axis = axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center, self.scale = center, scale

    def build(self, input_shape):
        if self.axis not in (-1, len(input_shape) - 1):
            raise ValueError("BatchNormalization supports axis=-1 (channels last) only")
        c = (input_shape[-1],)
        self.gamma = self.add_weight("gamma", c, ones) if self.scale else None
        self.beta = self.add_weight("beta", c, zeros) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", c, zeros, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", c, ones, trainable=False)
        self.built = True

    def call(self, inputs, training=None):
        dtype = inputs._value.dtype
        c = inputs.shape[-1]
        gamma = self.gamma if self.gamma is not None else array.ones((c,), dtype)
        beta = self.beta if self.beta is not None else array.zeros((c,), dtype)
        if training:
            mean, var = kernels.batch_moments(inputs._value)
            m = self.momentum
            self.moving_mean.assign(self.moving_mean._value * m + mean * (1 - m))
            self.moving_variance.assign(self.moving_variance._value * m + var * (1 - m))
            return nn.batch_normalization_training(inputs, gamma, beta, self.epsilon)
        return nn.batch_normalization(inputs, self.moving_mean, self.moving_variance, beta, gamma,
                                      self.epsilon)
