"""Capture's layer nodes: the folded ops of a Keras layer become one layer node holding
the weights the ops saw (Dense, BatchNormalization, LayerNormalization, Embedding)."""
import re

import numpy as np

import gradviz as gv

from .catalog import api_name
from .document import LAYER, Node
from .errors import DocumentError

_ACTIVATIONS = {"Relu": "relu", "Elu": "elu", "Sigmoid": "sigmoid", "Tanh": "tanh",
                "Softmax": "softmax", "Softplus": "softplus"}


def layer_id(item, weight, recording):
    """The name given to the layer, else the script's name for it, else its variables' prefix."""
    script_name = recording.layers.get(weight._id, (None, ""))[1]
    prefix = item.extra["prefix"]
    automatic = re.fullmatch(r"[a-z][a-z0-9]*_\d+", prefix) is not None  # 'dense_3', 'conv2d_1'
    return script_name if automatic and script_name else prefix


def dense_node(item, name, recording, watched):
    """A Dense layer (MatMul) or a Conv2D layer (Conv2D), with its bias and activation."""
    matmul = item.ops[0]
    kernel = matmul.inputs[1]
    weights = {"kernel": np.array(matmul._in_values[1])}
    item.extra["weights"] = [kernel]
    activation = "linear"
    for op in item.ops[1:]:
        if op.type == "AddV2":
            weights["bias"] = np.array(op._in_values[1])
            item.extra["weights"].append(op.inputs[1])
        else:
            activation = _ACTIVATIONS[op.type]
    attrs = {"activation": activation, "use_bias": "bias" in weights}
    if item.kind == "dense":
        attrs["units"] = int(kernel.shape[1])
    else:
        at = matmul.attrs
        attrs.update(filters=int(kernel.shape[3]), kernel_size=[int(d) for d in kernel.shape[:2]],
                     strides=[int(v) for v in at["strides"][1:3]],
                     padding=at["padding"].lower(),
                     dilation_rate=[int(v) for v in at["dilations"][1:3]])
    op = "Dense" if item.kind == "dense" else "Conv2D"
    return Node(name(layer_id(item, kernel, recording)), LAYER, op=op, attrs=attrs,
                weights=weights,
                trainable=kernel.trainable, watched=watched(kernel))


def batchnorm_node(item, name, recording, watched):
    op = item.ops[0]
    _, gamma, beta = op.inputs
    layer = recording.layers.get(gamma._id, (None, ""))[0]
    c = int(gamma.shape[0])
    mean = getattr(getattr(layer, "moving_mean", None), "_value", np.zeros(c, gamma._value.dtype))
    var = getattr(getattr(layer, "moving_variance", None), "_value", np.ones(c, gamma._value.dtype))
    item.extra["weights"] = [gamma, beta]
    attrs = {"epsilon": float(op.attrs["epsilon"]),
             "momentum": float(getattr(layer, "momentum", 0.99)), "training": True}
    return Node(name(layer_id(item, gamma, recording)), LAYER, op="BatchNormalization",
                attrs=attrs,
                weights={"gamma": np.array(op._in_values[1]), "beta": np.array(op._in_values[2]),
                         "moving_mean": np.array(mean), "moving_variance": np.array(var)},
                trainable=gamma.trainable, watched=watched(gamma))


def layernorm_folds(op, fresh):
    """Whether a LayerNorm op is a document's LayerNormalization layer: over the last
    axis, each of gamma and beta the layer's own Variable ('name/gamma', 'name/beta', not
    used before) or, for scale=False / center=False, the ones or zeros it stands for."""
    x, gamma, beta = op._in_values
    if tuple(op.attrs["axis"]) != (-1,) or np.shape(gamma) != (np.shape(x)[-1],) \
            or np.shape(beta) != (np.shape(x)[-1],):
        raise DocumentError("this layer normalisation cannot be saved as a LayerNormalization "
                            "layer: a document's layer normalises the last axis, with gamma "
                            "and beta of its size", where=api_name(op.type))
    found = []
    for t, value, name, fill in ((op.inputs[1], gamma, "gamma", 1), (op.inputs[2], beta, "beta", 0)):
        if isinstance(t, gv.Variable):
            found.append(t._name.endswith("/" + name))
        elif not np.all(np.asarray(value) == fill):
            found.append(False)
    if not all(found) or not fresh:
        raise DocumentError("this layer normalisation cannot be saved as a LayerNormalization "
                            "layer: its gamma and beta must be the layer's own variables, not "
                            "used before it", where=api_name(op.type))
    return True


def layernorm_node(item, name, recording, watched):
    op = item.ops[0]
    _, gamma, beta = op.inputs
    weights, variables = {}, []
    for t, value, key in ((gamma, op._in_values[1], "gamma"), (beta, op._in_values[2], "beta")):
        if isinstance(t, gv.Variable):
            weights[key] = np.array(value)
            variables.append(t)
    item.extra["weights"] = variables
    attrs = {"epsilon": float(op.attrs["epsilon"]), "center": "beta" in weights,
             "scale": "gamma" in weights}
    if not variables:  # center=False and scale=False: a layer with no weights
        return Node(name(item.extra["prefix"]), LAYER, op="LayerNormalization", attrs=attrs)
    first = variables[0]
    return Node(name(layer_id(item, first, recording)), LAYER, op="LayerNormalization",
                attrs=attrs, weights=weights, trainable=first.trainable, watched=watched(first))


def embedding_node(item, name, recording, watched):
    op = item.ops[0]
    table = op.inputs[0]
    item.extra["weights"] = [table]
    rows, cols = np.shape(op._in_values[0])
    return Node(name(layer_id(item, table, recording)), LAYER, op="Embedding",
                attrs={"input_dim": int(rows), "output_dim": int(cols)},
                weights={"embeddings": np.array(op._in_values[0])},
                trainable=table.trainable, watched=watched(table))
