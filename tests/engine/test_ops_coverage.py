"""Every op in gradviz/engine/ops with a gradient rule has a finite-difference check:
a new op fails here until its rule is checked too."""
from gradviz.engine.ops import conv, cross_entropy, embedding, linalg, math, nn, pool, reduce, shape
from gradviz.engine.registry import OpDef

# op type -> where its gradient is checked (first and second order).
CHECKED = {
    "AddV2": "test_ops_math", "Sub": "test_ops_math", "Mul": "test_ops_math",
    "RealDiv": "test_ops_math", "Pow": "test_ops_math", "Maximum": "test_ops_math",
    "Minimum": "test_ops_math", "Neg": "test_ops_math", "Exp": "test_ops_math",
    "Log": "test_ops_math", "Sin": "test_ops_math", "Cos": "test_ops_math",
    "Sqrt": "test_ops_math", "Square": "test_ops_math", "Abs": "test_ops_math",
    "Tanh": "test_ops_math", "Reciprocal": "test_ops_math", "TanhGrad": "test_ops_math",
    "SqrtGrad": "test_ops_math", "ReciprocalGrad": "test_ops_math",
    "Sign": "test_ops_math", "SelectV2": "test_ops_math", "ClipByValue": "test_ops_math",
    "Cast": "test_ops_math", "Masked": "test_ops_math", "MulNoNan": "test_ops_math",
    "Sum": "test_ops_reduce", "Mean": "test_ops_reduce", "Max": "test_ops_reduce",
    "Min": "test_ops_reduce", "Prod": "test_ops_reduce", "EuclideanNorm": "test_ops_reduce",
    "Cumsum": "test_ops_reduce", "Cumprod": "test_ops_reduce",
    "MatMul": "test_ops_linalg", "Einsum": "test_ops_linalg", "MatrixSolve": "test_ops_linalg",
    "MatrixInverse": "test_ops_linalg",
    "Reshape": "test_ops_shape", "ExpandDims": "test_ops_shape", "Squeeze": "test_ops_shape",
    "Transpose": "test_ops_shape", "BroadcastTo": "test_ops_shape", "SumToShape": "test_ops_shape",
    "Identity": "test_ops_shape", "StridedSlice": "test_ops_shape",
    "StridedSliceGrad": "test_ops_shape", "ConcatV2": "test_ops_shape", "SplitV": "test_ops_shape",
    "Pack": "test_ops_shape", "Unpack": "test_ops_shape", "PadV2": "test_ops_shape",
    "Tile": "test_ops_shape", "GatherV2": "test_ops_shape", "GatherGrad": "test_ops_shape",
    "Relu": "test_ops_nn", "ReluGrad": "test_ops_nn", "Sigmoid": "test_ops_nn",
    "SigmoidGrad": "test_ops_nn", "Elu": "test_ops_nn", "EluGrad": "test_ops_nn",
    "Softplus": "test_ops_nn", "Softmax": "test_ops_nn", "LogSoftmax": "test_ops_nn",
    "FusedBatchNorm": "test_ops_nn", "LayerNorm": "test_layers_keras3",
    "SoftmaxCrossEntropyWithLogits": "test_ops_cross_entropy",
    "SparseSoftmaxCrossEntropyWithLogits": "test_ops_cross_entropy",
    "ResourceGather": "test_ops_embedding", "Dropout": "test_ops_embedding",
    "Conv2D": "test_ops_conv", "Conv2DBackpropInput": "test_ops_conv",
    "Conv2DBackpropFilter": "test_ops_conv",
    "MaxPool": "test_ops_pool", "MaxPoolGrad": "test_ops_pool", "MaxPoolGradGrad": "test_ops_pool",
    "AvgPool": "test_ops_pool", "AvgPoolGrad": "test_ops_pool",
}


def test_every_op_with_a_gradient_rule_is_checked():
    defined = {v.type for module in (math, reduce, shape, linalg, nn, conv, pool, cross_entropy,
                                     embedding)
               for v in vars(module).values() if isinstance(v, OpDef) and v.rule is not None}
    assert defined - set(CHECKED) == set(), "ops whose gradient no test checks"
    assert set(CHECKED) - defined == set(), "checked ops that no longer exist"
