"""The namespace a gradient rule receives when an outer tape is recording: the gradviz
ops themselves, so the gradient is differentiable in turn (backend.py holds the numpy
namespace of the fast path). Above the ops, which it is made of."""
import types

import numpy as np

from . import array
from .execute import apply, tensors
from .tensor import Tensor, Variable
from .ops import conv, linalg, math, nn, pool, reduce, shape


def _gradviz_namespace():
    # Rules pass shapes that fit, so the hot shape ops skip the public functions'
    # argument checks (which cost more than the op itself on small tensors).
    def matmul(a, b, transpose_a=False, transpose_b=False):
        # two tensors (or Variables) of one dtype, the rules' call, without tensors()
        kind_a, kind_b = type(a), type(b)
        if not ((kind_a is Tensor or kind_a is Variable) and (kind_b is Tensor or kind_b is Variable)
                and a._value.dtype is b._value.dtype):
            a, b = tensors(a, b)
        # the shared attrs by the flags as given when they are bools (the rules'), bool()
        # for anything else
        if type(transpose_a) is bool and type(transpose_b) is bool:
            attrs = matmul_attrs[transpose_a, transpose_b]
        else:
            attrs = matmul_attrs[bool(transpose_a), bool(transpose_b)]
        return apply(linalg.MATMUL, (a, b), attrs)

    matmul_attrs = linalg.MATMUL_ATTRS

    def reshape(x, new_shape):
        new_shape = tuple(map(int, new_shape))
        if -1 in new_shape:
            return shape.reshape(x, new_shape)
        return apply(shape.RESHAPE, tensors(x), {"shape": new_shape})

    def broadcast_to(x, new_shape):
        return apply(shape.BROADCAST_TO, tensors(x), {"shape": tuple(map(int, new_shape))})

    def zero_gradient(x):
        """x's value with a gradient of zeros (connected, unlike stop_gradient's None):
        what TF's rules give an input that a stored op output only seemed to read."""
        none = np.zeros(tuple(x.shape), bool)
        return math.add(shape.stop_gradient(x), math.masked(x, none))

    def conv2d(x, w, **geometry):
        return apply(conv.CONV2D, tensors(x, w), geometry)

    def conv2d_backprop_input(g, w, input_sizes, **geometry):
        return apply(conv.CONV2D_BACKPROP_INPUT, tensors(w, g),
                     dict(geometry, input_sizes=tuple(input_sizes)))

    def conv2d_backprop_filter(x, g, filter_sizes, **geometry):
        return apply(conv.CONV2D_BACKPROP_FILTER, tensors(x, g),
                     dict(geometry, filter_sizes=tuple(filter_sizes)))

    def max_pool_grad(x, y, g, **geometry):
        return apply(pool.MAX_POOL_GRAD, tensors(x, y, g), geometry)

    def max_pool_grad_grad(x, y, u, **geometry):
        return apply(pool.MAX_POOL_GRAD_GRAD, tensors(x, y, u), geometry)

    def avg_pool(x, **geometry):
        return apply(pool.AVG_POOL, tensors(x), geometry)

    def avg_pool_grad(g, orig_input_shape, **geometry):
        return apply(pool.AVG_POOL_GRAD, tensors(g),
                     dict(geometry, orig_input_shape=tuple(orig_input_shape)))

    return types.SimpleNamespace(
        matmul=matmul,
        reshape=reshape,
        broadcast_to=broadcast_to,
        transpose=shape.transpose,
        reduce_sum=reduce.reduce_sum,
        reduce_mean=reduce.reduce_mean,
        reduce_prod=reduce.reduce_prod,
        cumsum=reduce.cumsum,
        cumprod=reduce.cumprod,
        cast=math.cast,
        equal=math.equal,
        greater=math.greater,
        greater_equal=math.greater_equal,
        less=math.less,
        less_equal=math.less_equal,
        logical_not=math.logical_not,
        logical_and=math.logical_and,
        where=math.where,
        zero_gradient=zero_gradient,
        minimum=math.minimum,
        ones_like=array.ones_like,
        zeros_like=array.zeros_like,
        zeros=array.zeros,
        zero_cotangent=array.zeros,  # written out: the recorded pass keeps TF's zeros
        masked=math.masked,
        multiply_no_nan=math.multiply_no_nan,
        log=math.log,
        exp=math.exp,
        sqrt=math.sqrt,
        sin=math.sin,
        cos=math.cos,
        sign=math.sign,
        pow=math.pow,
        sigmoid=nn.sigmoid,
        softmax=nn.softmax,
        log_softmax=nn.log_softmax,
        tanh_grad=math.tanh_grad,
        sqrt_grad=math.sqrt_grad,
        reciprocal_grad=math.reciprocal_grad,
        reciprocal=math.reciprocal,
        sin_grad=lambda x, g: g * math.cos(x),
        cos_grad=lambda x, g: -g * math.sin(x),
        relu_grad=nn.relu_grad,
        sigmoid_grad=nn.sigmoid_grad,
        elu_grad=nn.elu_grad,
        split=shape.split,
        concat=shape.concat,
        stack=shape.stack,
        unstack=shape.unstack,
        strided_slice=shape.strided_slice,
        slice_grad=shape.slice_grad,
        gather=shape.gather,
        gather_grad=shape.gather_grad,
        einsum=linalg.einsum,
        solve=linalg.solve,
        sum_to_shape=shape.sum_to_shape,
        conv2d=conv2d,
        conv2d_backprop_input=conv2d_backprop_input,
        conv2d_backprop_filter=conv2d_backprop_filter,
        max_pool_grad=max_pool_grad,
        max_pool_grad_grad=max_pool_grad_grad,
        avg_pool=avg_pool,
        avg_pool_grad=avg_pool_grad,
    )


gradviz = _gradviz_namespace()
