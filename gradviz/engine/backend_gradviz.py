"""The namespace a gradient rule receives when an outer tape is recording: the gradviz
ops themselves, so the gradient is differentiable in turn (backend.py holds the numpy
namespace of the fast path). Above the ops, which it is made of."""
import types

from . import array
from .execute import apply, tensors
from .ops import linalg, math, nn, reduce, shape


def _gradviz_namespace():
    # Rules pass shapes that fit, so the hot shape ops skip the public functions'
    # argument checks (which cost more than the op itself on small tensors).
    def matmul(a, b, transpose_a=False, transpose_b=False):
        return apply(linalg.MATMUL, tensors(a, b),
                     {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)})

    def reshape(x, new_shape):
        new_shape = tuple(map(int, new_shape))
        if -1 in new_shape:
            return shape.reshape(x, new_shape)
        return apply(shape.RESHAPE, tensors(x), {"shape": new_shape})

    def broadcast_to(x, new_shape):
        return apply(shape.BROADCAST_TO, tensors(x), {"shape": tuple(map(int, new_shape))})

    return types.SimpleNamespace(
        matmul=matmul,
        reshape=reshape,
        broadcast_to=broadcast_to,
        transpose=shape.transpose,
        reduce_sum=reduce.reduce_sum,
        reduce_mean=reduce.reduce_mean,
        reduce_prod=reduce.reduce_prod,
        cast=math.cast,
        equal=math.equal,
        greater=math.greater,
        greater_equal=math.greater_equal,
        less=math.less,
        less_equal=math.less_equal,
        logical_not=math.logical_not,
        logical_and=math.logical_and,
        where=math.where,
        ones_like=array.ones_like,
        zeros_like=array.zeros_like,
        zeros=array.zeros,
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
        tanh_grad=math.tanh_grad,
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
    )


gradviz = _gradviz_namespace()
