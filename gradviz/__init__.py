"""gradviz: backpropagation made visible.

The public API is shaped like TensorFlow's, so the seed documents' code runs with
`import gradviz as tf`.
"""
import importlib as _importlib
import types as _types

from .engine import dtypes as _dtypes
from .engine.array import (eye, fill, linspace, ones, ones_like, random, range_ as range,  # noqa: F401
                           zeros, zeros_like)
from .engine import errors as _errors
from .engine.custom import custom_gradient, grad_pass_through  # noqa: F401
from .engine.function import function, functions_run_eagerly as _functions_run_eagerly, \
    run_functions_eagerly as _run_functions_eagerly  # noqa: F401
from .engine.spec import TensorSpec  # noqa: F401
from .engine.dtypes import (DType, as_dtype, bool_ as bool, float16, float32, float64,  # noqa: F401
                            int8, int16, int32, int64, uint8)
from .engine.functional import hessian, hvp, jvp, vjp  # noqa: F401
from .engine import gradient_checker as _gradient_checker
from .engine.ops import conv as _conv, linalg as _linalg, math as _math, nn as _nn, \
    pool as _pool, reduce as _reduce, shape as _shape
from .engine.ops.linalg import einsum, matmul  # noqa: F401
from .engine.ops.math import (abs, add, add_n, cast, clip_by_value, cos, divide, equal, exp,  # noqa: F401
                              greater, greater_equal, less, less_equal, log, logical_and,
                              logical_not, logical_or, maximum, minimum, multiply, negative,
                              not_equal, pow, reciprocal, sign, sin, sqrt, square, subtract,
                              tanh, where)
from .engine.ops.cross_entropy import (softmax_cross_entropy_with_logits as _softmax_xent,
                                       sparse_softmax_cross_entropy_with_logits as _sparse_xent)
from .engine.ops.embedding import dropout as _dropout, embedding_lookup as _embedding_lookup
from .engine.ops.reduce import (argmax, argmin, clip_by_norm, cumsum, norm, reduce_all,  # noqa: F401
                                reduce_any, reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
                                reduce_prod, reduce_sum)
from .engine.ops.shape import (broadcast_to, concat, expand_dims, gather, identity, pad,  # noqa: F401
                               rank, reshape, shape, size, slice, split, squeeze, stack,
                               stop_gradient, tile, transpose, unstack)
from .engine.registry import NotDifferentiable, RegisterGradient, define_op, no_gradient  # noqa: F401
from .engine.backward import gradient_registry  # noqa: F401
from .engine.observer import Observer  # noqa: F401
from .engine.tape import GradientTape, UnconnectedGradients  # noqa: F401
from .engine.tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor  # noqa: F401
from .engine import layers as _layers, layers_conv as _layers_conv, losses as _losses, nest, \
    optimizers as _optimizers  # noqa: F401

__version__ = "0.1.0"

dtypes = _dtypes

math = _types.SimpleNamespace(
    abs=abs, add=add, add_n=add_n, argmax=argmax, argmin=argmin, cos=cos,
    cumprod=_reduce.cumprod, cumsum=cumsum, divide=divide, equal=equal, exp=exp,
    greater=greater, greater_equal=greater_equal, less=less, less_equal=less_equal, log=log,
    logical_and=logical_and, logical_not=logical_not, logical_or=logical_or, maximum=maximum,
    minimum=minimum, multiply=multiply, negative=negative, not_equal=not_equal, pow=pow,
    reciprocal=reciprocal, reduce_max=reduce_max, reduce_mean=reduce_mean, reduce_min=reduce_min,
    reduce_prod=reduce_prod, reduce_sum=reduce_sum, reduce_logsumexp=reduce_logsumexp,
    reduce_all=reduce_all, reduce_any=reduce_any,
    sigmoid=_nn.sigmoid, sign=sign, sin=sin, softplus=_nn.softplus, sqrt=sqrt, square=square,
    subtract=subtract, tanh=tanh, multiply_no_nan=_math.multiply_no_nan,
    softmax=_nn.softmax, log_softmax=_nn.log_softmax)

nn = _types.SimpleNamespace(
    relu=_nn.relu, elu=_nn.elu, sigmoid=_nn.sigmoid, tanh=tanh, softmax=_nn.softmax,
    log_softmax=_nn.log_softmax, softplus=_nn.softplus, moments=_nn.moments,
    batch_normalization=_nn.batch_normalization, conv2d=_conv.conv2d, conv1d=_conv.conv1d,
    conv2d_transpose=_conv.conv2d_transpose, max_pool2d=_pool.max_pool2d,
    avg_pool2d=_pool.avg_pool2d,
    softmax_cross_entropy_with_logits=_softmax_xent,
    sparse_softmax_cross_entropy_with_logits=_sparse_xent,
    embedding_lookup=_embedding_lookup, dropout=_dropout)

linalg = _types.SimpleNamespace(
    matmul=matmul, einsum=einsum, solve=_linalg.solve, inv=_linalg.inv, norm=norm,
    matrix_transpose=_shape.matrix_transpose, eye=eye)

keras = _types.SimpleNamespace(
    layers=_types.SimpleNamespace(Dense=_layers.Dense, Conv2D=_layers_conv.Conv2D,
                                  Flatten=_layers_conv.Flatten,
                                  BatchNormalization=_layers.BatchNormalization,
                                  LayerNormalization=_layers.LayerNormalization,
                                  Embedding=_layers.Embedding,
                                  Layer=_layers.Layer),
    losses=_types.SimpleNamespace(
        MeanSquaredError=_losses.MeanSquaredError,
        CategoricalCrossentropy=_losses.CategoricalCrossentropy,
        SparseCategoricalCrossentropy=_losses.SparseCategoricalCrossentropy,
        Loss=_losses.Loss, mean_squared_error=_losses.mean_squared_error,
        MSE=_losses.mean_squared_error, mse=_losses.mean_squared_error,
        categorical_crossentropy=_losses.categorical_crossentropy,
        sparse_categorical_crossentropy=_losses.sparse_categorical_crossentropy),
    activations=_types.SimpleNamespace(get=_layers.get_activation, relu=_nn.relu,
                                       elu=_nn.elu, sigmoid=_nn.sigmoid, tanh=tanh,
                                       softmax=_nn.softmax),
    optimizers=_types.SimpleNamespace(SGD=_optimizers.SGD, RMSprop=_optimizers.RMSprop,
                                      Adam=_optimizers.Adam, Optimizer=_optimizers.Optimizer))

losses = keras.losses  # tf.losses, TF 2's alias
config = _types.SimpleNamespace(run_functions_eagerly=_run_functions_eagerly,
                                functions_run_eagerly=_functions_run_eagerly)
# tf.test.compute_gradient; max_error is gradient_checker_v2's, which TF's own tests use.
test = _types.SimpleNamespace(compute_gradient=_gradient_checker.compute_gradient,
                              max_error=_gradient_checker.max_error)

# tf.errors: the kinds of error the engine raises where TF raises them.
errors = _types.SimpleNamespace(InvalidArgumentError=_errors.InvalidArgumentError,
                                ResourceExhaustedError=_errors.ResourceExhaustedError)

sigmoid = _nn.sigmoid
newaxis = None
del _reduce


def __getattr__(name):
    """`gradviz.capture` (a tape as a document, tape_document.py) is loaded on first use:
    it needs graph, story and render, which themselves import gradviz."""
    if name in ("capture", "TapeDocument"):
        value = getattr(_importlib.import_module(f"{__name__}.tape_document"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
