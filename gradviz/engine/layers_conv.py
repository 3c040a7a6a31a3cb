"""keras.layers.Conv2D and keras.layers.Flatten, on the engine's ops, with Keras 3's
conventions: `dtype=`, `build(input_shape)` marks the layer built (a later call keeps
the weights), `kernel` / `bias` assignable, `get_weights` / `set_weights`."""
import math as _math

import numpy as np

from .layers import Layer, WeightSlot, _check_kwargs, get_activation, get_initializer
from .ops import conv, math, shape
from .tensor import convert_to_tensor


def _pair(value, name):
    """Keras's standardize_tuple: an int or a tuple of 2 ints, each at least 1."""
    if isinstance(value, (int, np.integer)):
        value = (int(value),) * 2
    try:
        pair = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        pair = ()
    if len(pair) != 2 or min(pair) < 1:
        raise ValueError(f"The `{name}` argument must be a tuple of 2 positive integers. "
                         f"Received {name}={value!r}")
    return pair


class Conv2D(Layer):
    """y = activation(conv2d(x, kernel) + bias), channels last; kernel (KH, KW, C, filters)."""

    kernel = WeightSlot()
    bias = WeightSlot()

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", name=None,
                 trainable=True, dtype=None, **kwargs):
        _check_kwargs(kwargs)
        super().__init__(name, trainable, dtype)
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(f'The `padding` argument must be one of "valid", "same". '
                             f"Received: padding={padding!r}")
        if data_format not in (None, "channels_last"):
            raise ValueError(f"Conv2D supports data_format='channels_last' only, got "
                             f"{data_format!r}")
        if groups != 1:
            raise ValueError(f"Conv2D supports groups=1 only, got {groups!r}")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.activation = get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel = self.bias = None

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) != 4:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: "
                             f"expected ndim=4 (batch, height, width, channels), found "
                             f"ndim={len(input_shape)}. Full shape received: {input_shape}")
        if input_shape[-1] is None:
            raise ValueError("The channel dimension of the inputs should be defined, found None")
        self.kernel = self.add_weight(
            "kernel", self.kernel_size + (int(input_shape[-1]), self.filters),
            self.kernel_initializer)
        if self.use_bias:
            self.bias = self.add_weight("bias", (self.filters,), self.bias_initializer)
        self.built = True

    def call(self, inputs):
        y = conv.conv2d(inputs, self.kernel, self.strides, self.padding.upper(),
                        dilations=self.dilation_rate)
        if self.use_bias:
            y = math.add(y, self.bias)
        return self.activation(y) if self.activation is not None else y


class Flatten(Layer):
    """(N, d1, d2, ...) -> (N, d1·d2·...): one Reshape, as Keras 3 records it."""

    def __init__(self, data_format=None, name=None, trainable=True, dtype=None, **kwargs):
        _check_kwargs(kwargs)
        super().__init__(name, trainable, dtype)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"Flatten supports data_format='channels_last' only, got "
                             f"{data_format!r}")

    def build(self, input_shape=None):
        self.built = True

    def __call__(self, inputs):
        inputs = convert_to_tensor(inputs)
        self.built = True
        if inputs._value.dtype.kind == "f" and inputs._value.dtype != self._dtype:
            inputs = math.cast(inputs, self._dtype)  # Keras autocasts floats only
        return self.call(inputs)

    def call(self, inputs):
        if inputs.ndim == 0:
            raise ValueError("Flatten needs an input with a batch axis, got a scalar")
        rest = _math.prod(inputs.shape[1:])
        return shape.reshape(inputs, (inputs.shape[0], rest))
