"""keras.layers: Dense, BatchNormalization, LayerNormalization and Embedding, built on the
engine's ops, with Keras 3's conventions: `dtype=`, `build(input_shape)` marks the layer
built (a later call keeps the weights), weights assignable by name, get/set_weights."""
from math import prod as math_prod

import numpy as np

from . import array
from .ops import linalg, math, nn
from .ops.embedding import embedding_lookup
from .ops.shape import reshape
from .axes import axis_index
from .dtypes import as_dtype
from .errors import InvalidArgumentError
from .execute import apply
from .tensor import Tensor, Variable, convert_to_tensor
from . import kernels, tracing

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


class WeightSlot:
    """A layer attribute holding one weight (`layer.kernel`). Setting a Variable puts it
    in the layer's weights in place of the old one; setting another tensor uses it as
    is (the weights list keeps the Variable: that is how a weight is swapped for a
    function's argument); setting an array assigns the values to the Variable."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, layer, owner=None):
        if layer is None:
            return self
        return layer.__dict__.get(self.name)

    def __set__(self, layer, value):
        current = layer.__dict__.get(self.name)
        if value is None or isinstance(value, Tensor):
            if type(value) is Variable and all(v is not value for v in layer._variables):
                at = next((i for i, v in enumerate(layer._variables) if v is current), None)
                if at is None:
                    layer._variables.append(value)
                else:
                    layer._variables[at] = value
            layer.__dict__[self.name] = value
        elif type(current) is Variable:
            current.assign(value)
        else:
            raise AttributeError(f"layer '{layer.name}' has no {self.name} yet to assign "
                                 "values to: build it first (layer.build(input_shape))")


class Layer:
    """Builds its variables on the first call, from the input's last dimension.

    As Keras, numeric inputs are cast to the layer's dtype (float32 unless given), so a
    float64 numpy array can be fed to a float32 layer; the cast is recorded, so the
    gradient with respect to the input comes back in the input's dtype.
    """

    _count = 0

    def __init_subclass__(cls, **kwargs):
        """As Keras 3: a subclass's `build` marks the layer built when it returns, so an
        explicit `layer.build(shape)` is not repeated (nor its weights replaced) by a call."""
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_marks_built", False):
            def marked(self, *args, **kw):
                result = build(self, *args, **kw)
                self.built = True
                return result
            marked._marks_built = True
            marked.__doc__, marked.__name__ = build.__doc__, build.__name__
            cls.build = marked

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

    compute_dtype = variable_dtype = dtype

    def build(self, input_shape=None):
        """Create the weights (a layer without weights has nothing to create)."""

    def get_weights(self):
        """The weights' values as numpy arrays, in the order of `weights`."""
        return [np.array(v._value) for v in self.weights]

    def set_weights(self, weights):
        """Assign every weight at once, checked as Keras 3 checks them."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a "
                             f"weight list of length {len(weights)}, but the layer was "
                             f"expecting {len(mine)} weights.")
        values = [np.asarray(getattr(w, "_value", w)) for w in weights]
        for v, value in zip(mine, values):
            if tuple(v.shape) != value.shape:
                raise ValueError(f"Layer {self.name} weight shape {tuple(v.shape)} is not "
                                 f"compatible with provided weight shape {value.shape}.")
        for v, value in zip(mine, values):
            v.assign(value)

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
        if not isinstance(inputs, Tensor):
            inputs = convert_to_tensor(inputs)
        if not self.built:
            self.build(tuple(inputs.shape))
            self.built = True
        return self.call(self._cast_inputs(inputs), *args, **kwargs)

    def _expect_width(self, inputs, width):
        """Keras's input check: a built layer takes inputs whose last axis it was built for."""
        shape = inputs._value.shape
        if not shape or shape[-1] != width:
            raise ValueError(f'Input 0 of layer "{self.name}" is incompatible with the layer: '
                             f"expected axis -1 of input shape to have value {width}, but "
                             f"received input with shape {tuple(inputs.shape)}")

    def _cast_inputs(self, inputs):
        compute = self._variables[0]._value.dtype if self._variables else self._dtype
        dtype = inputs._value.dtype
        # identity first: comparing two dtypes costs more than the rest of the call
        if dtype is not compute and dtype.kind in "fiu" and dtype != compute:
            inputs = math.cast(inputs, compute)
        return inputs


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

    kernel = WeightSlot()
    bias = WeightSlot()

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
        weights = self.__dict__  # what the WeightSlots read, without their calls
        kernel = weights.get("kernel")
        self._expect_width(inputs, kernel._value.shape[0])
        dtype = kernel._value.dtype
        if inputs._value.ndim >= 2 and inputs._value.dtype is dtype:
            # linalg.matmul's checks are made (the width above, the rank and the dtype
            # here): its op at once, as for the bias below (one layer's call is three ops)
            y = apply(linalg.MATMUL, (inputs, kernel), linalg.MATMUL_ATTRS[False, False])
        else:
            y = linalg.matmul(inputs, kernel)  # its errors
        if self.use_bias:
            bias = weights.get("bias")
            if (type(bias) is Variable or type(bias) is Tensor) and bias._value.dtype is dtype:
                y = apply(math.ADD, (y, bias))
            else:
                y = math.add(y, bias)
        return self.activation(y) if self.activation is not None else y


class BatchNormalization(Layer):
    """Normalises the last axis; training=True uses the batch's statistics (and couples
    the examples of a batch: batch_jacobian's assumption no longer holds)."""

    gamma = WeightSlot()
    beta = WeightSlot()
    moving_mean = WeightSlot()
    moving_variance = WeightSlot()

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
        self._expect_width(inputs, self.moving_mean.shape[0])
        dtype = inputs._value.dtype
        c = inputs.shape[-1]
        gamma = self.gamma if self.gamma is not None else array.ones((c,), dtype)
        beta = self.beta if self.beta is not None else array.zeros((c,), dtype)
        if training:
            tracing.python_value(inputs, "BatchNormalization's moving averages (numpy)")
            mean, var = kernels.batch_moments(inputs._value)
            m = self.momentum
            self.moving_mean.assign(self.moving_mean._value * m + mean * (1 - m))
            self.moving_variance.assign(self.moving_variance._value * m + var * (1 - m))
            return nn.batch_normalization_training(inputs, gamma, beta, self.epsilon)
        return nn.batch_normalization(inputs, self.moving_mean, self.moving_variance, beta, gamma,
                                      self.epsilon)


class LayerNormalization(Layer):
    """Normalises each example over `axis` (the last by default) with its own mean and
    variance, then scales by gamma and shifts by beta. One LayerNorm op whose rule is
    written with recorded ops, so its second derivatives are exact."""

    gamma = WeightSlot()
    beta = WeightSlot()

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", name=None, trainable=True,
                 dtype=None, **kwargs):
        _check_kwargs(kwargs)
        super().__init__(name, trainable, dtype)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else int(axis)
        self.epsilon = float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = get_initializer(beta_initializer)
        self.gamma_initializer = get_initializer(gamma_initializer)
        self.gamma = self.beta = None

    def _axes(self, ndim):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        out = sorted({axis_index(a, ndim) for a in axes})   # Keras: "Invalid axis" when out of range
        if len(out) != len(axes):
            raise InvalidArgumentError(f"axis {self.axis} names an axis twice")
        return out

    def build(self, input_shape):
        shape = tuple(input_shape)
        axes = self._axes(len(shape))
        param = tuple(shape[a] for a in axes)
        if self.scale:
            self.gamma = self.add_weight("gamma", param, self.gamma_initializer)
        if self.center:
            self.beta = self.add_weight("beta", param, self.beta_initializer)

    def call(self, inputs, training=None):
        axes = self._axes(inputs.ndim)
        dtype = inputs._value.dtype
        # γ and β have the normalised axes' sizes; they broadcast from the first of them.
        shape = tuple(inputs.shape[a] if a in axes else 1 for a in range(axes[0], inputs.ndim))
        params = []
        for w, fill in ((self.gamma, array.ones), (self.beta, array.zeros)):
            if w is not None and w.size != math_prod(shape):
                raise ValueError(f'Input 0 of layer "{self.name}" is incompatible with the '
                                 f"layer: its weights have shape {tuple(w.shape)}, the input "
                                 f"{tuple(inputs.shape)} needs {tuple(d for d in shape if d != 1)}"
                                 f" along axis {self.axis}")
            w = w if w is not None else fill(shape, dtype)
            params.append(w if tuple(w.shape) == shape else reshape(w, shape))
        return nn.layer_normalization(inputs, params[0], params[1], axes, self.epsilon)


def random_uniform(shape, dtype):
    """Keras's 'uniform' initializer: U(-0.05, 0.05)."""
    return array.random.uniform(shape, -0.05, 0.05, dtype=dtype)._value


_INITIALIZERS["uniform"] = random_uniform


class Embedding(Layer):
    """Maps integer ids to rows of an (input_dim, output_dim) table, `embeddings`. The
    lookup in the Variable records ResourceGather, as in TF; ids are never cast to the
    layer's float dtype (float ids become int32, as Keras does)."""

    embeddings = WeightSlot()

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", name=None,
                 trainable=True, dtype=None, **kwargs):
        _check_kwargs(kwargs, ("input_length", "mask_zero"))
        if kwargs.get("mask_zero"):
            raise ValueError("Embedding(mask_zero=True) needs masks, which gradviz does not have")
        super().__init__(name, trainable, dtype)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        if self.input_dim <= 0 or self.output_dim <= 0:
            raise ValueError(f"Both `input_dim` and `output_dim` should be positive, received "
                             f"input_dim={input_dim} and output_dim={output_dim}")
        self.embeddings_initializer = get_initializer(embeddings_initializer)
        self.embeddings = None

    def build(self, input_shape=None):
        self.embeddings = self.add_weight("embeddings", (self.input_dim, self.output_dim),
                                          self.embeddings_initializer)

    def _cast_inputs(self, inputs):
        if inputs._value.dtype.kind not in "iu":
            inputs = math.cast(inputs, "int32")
        return inputs

    def call(self, inputs):
        return embedding_lookup(self.embeddings, inputs)
