"""Convolution (tf.nn.conv2d, conv1d, conv2d_transpose) and the two ops its gradient is
made of, as in TF: Conv2DBackpropInput, the transposed convolution of the upstream
with the filter, and Conv2DBackpropFilter, the correlation of the input with the
upstream. Each has its own rule in these three ops, so every derivative order runs
through recorded ops.

Operands may carry leading axes before N (for the filter: before KH) as batch axes
that broadcast against each other: a batched cotangent of jacobian, or an operand
that had one when an outer tape recorded the first backward pass.
"""
import numpy as np

from ..execute import apply, tensors
from ..registry import define_op
from . import windows as W
from .windows import backprop_filter as _backprop_filter_forward, conv2d as _conv2d_forward
from .shape import expand_dims, squeeze

GEOMETRY = ("strides", "padding", "explicit_paddings", "dilations", "data_format")


def _geometry(at):
    return {k: at[k] for k in GEOMETRY}


def _conv2d_rule(F, g, ins, out, at, needs):
    x, w = ins
    geo = _geometry(at)
    gx = F.conv2d_backprop_input(g, w, tuple(x.shape[-4:]), **geo) if needs[0] else None
    gw = F.conv2d_backprop_filter(x, g, tuple(w.shape[-4:]), **geo) if needs[1] else None
    return gx, gw


def _backprop_input_forward(w, g, input_sizes, **geometry):
    """Inputs in TF's order (filter, out_backprop); input_sizes is an attribute here."""
    return W.backprop_input(g, w, input_sizes, **geometry)


def _backprop_input_rule(F, u, ins, out, at, needs):
    """The op is bilinear in (filter, g): ⟨u, op(w, g)⟩ = ⟨conv2d(u, w), g⟩."""
    w, g = ins
    geo = _geometry(at)
    gw = F.conv2d_backprop_filter(u, g, tuple(w.shape[-4:]), **geo) if needs[0] else None
    gg = F.conv2d(u, w, **geo) if needs[1] else None
    return gw, gg


def _backprop_filter_rule(F, u, ins, out, at, needs):
    """Bilinear in (x, g): ⟨u, op(x, g)⟩ = ⟨g, conv2d(x, u)⟩."""
    x, g = ins
    geo = _geometry(at)
    gx = F.conv2d_backprop_input(g, u, tuple(x.shape[-4:]), **geo) if needs[0] else None
    gg = F.conv2d(x, u, **geo) if needs[1] else None
    return gx, gg


CONV2D = define_op("Conv2D", _conv2d_forward, _conv2d_rule, (
    "grad_input = transposed convolution of grad with filters",
    "grad_filters = correlation of input with grad, summed over the batch"))
CONV2D_BACKPROP_INPUT = define_op(
    "Conv2DBackpropInput", _backprop_input_forward, _backprop_input_rule, (
        "grad_filters = correlation of grad with out_backprop, summed over the batch",
        "grad_out_backprop = conv2d(grad, filters)"))
CONV2D_BACKPROP_FILTER = define_op(
    "Conv2DBackpropFilter", _backprop_filter_forward, _backprop_filter_rule, (
        "grad_input = transposed convolution of out_backprop with grad",
        "grad_out_backprop = conv2d(input, grad)"))


# -- the public functions -----------------------------------------------------------------

def _attrs(strides, padding, dilations, data_format):
    if data_format not in ("NHWC", None):
        raise ValueError(f"data_format must be 'NHWC' (channels last; TF's CPU kernels support "
                         f"no other), got {data_format!r}")
    name, explicit = W.padding_attrs(padding)
    return {"strides": W.sequence(strides, "strides"), "padding": name,
            "explicit_paddings": explicit, "dilations": W.sequence(dilations, "dilations"),
            "data_format": "NHWC"}


def _check_rank(t, what, rank=4, layout="[batch, height, width, channels]"):
    if t.ndim != rank:
        raise ValueError(f"{what} must be of rank {rank} {layout}, got shape {tuple(t.shape)}")


def _check_depth(in_depth, filter_depth):
    if in_depth != filter_depth:
        raise ValueError(f"input depth must equal filter depth: {in_depth} vs {filter_depth} "
                         "(the filter's third dimension is the input's channels)")


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """tf.nn.conv2d: NHWC input, [KH, KW, C_in, C_out] filters (a cross-correlation)."""
    x, w = tensors(input, filters)
    _check_rank(x, "input")
    _check_rank(w, "filters", layout="[height, width, in_channels, out_channels]")
    _check_depth(x.shape[3], w.shape[2])
    at = _attrs(strides, padding, dilations, data_format)
    W.geometry(x.shape[1:3], w.shape[0:2], at["strides"], at["padding"], at["explicit_paddings"],
           at["dilations"])
    return apply(CONV2D, (x, w), at)


def _check_out_backprop(op, input_sizes, filter_sizes, g, at):
    (out_h, out_w), _ = W.geometry(input_sizes[1:3], filter_sizes[:2], at["strides"],
                               at["padding"], at["explicit_paddings"], at["dilations"])
    want = (input_sizes[0], out_h, out_w, filter_sizes[3])
    if g.ndim < 4 or tuple(g.shape[-4:]) != want:
        raise ValueError(f"{op}: out_backprop has shape {tuple(g.shape)}; a convolution of an "
                         f"input of shape {tuple(input_sizes)} with filters of shape "
                         f"{tuple(filter_sizes)} gives {want}")


def _sizes(value, what, layout):
    """A shape given as a tuple, list or 1-D integer tensor (TF passes a tensor)."""
    sizes = tuple(int(d) for d in np.asarray(getattr(value, "_value", value)).reshape(-1))
    if len(sizes) != 4:
        raise ValueError(f"{what} must have 4 entries {layout}, got {sizes}")
    return sizes


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides, padding,
                          data_format="NHWC", dilations=None, name=None):
    """TF's Conv2DBackpropInput: the gradient of conv2d with respect to its input. The op's
    inputs are (filters, out_backprop); TF's input_sizes tensor is an attribute here."""
    w, g = tensors(filters, out_backprop)
    input_sizes = _sizes(input_sizes, "input_sizes", "(N, H, W, C)")
    at = _attrs(strides, padding, dilations, data_format)
    _check_depth(input_sizes[3], w.shape[-2])
    _check_out_backprop("Conv2DBackpropInput", input_sizes, tuple(w.shape[-4:]), g, at)
    return apply(CONV2D_BACKPROP_INPUT, (w, g), dict(at, input_sizes=input_sizes))


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                           data_format="NHWC", dilations=None, name=None):
    """TF's Conv2DBackpropFilter: the gradient of conv2d with respect to its filters."""
    x, g = tensors(input, out_backprop)
    filter_sizes = _sizes(filter_sizes, "filter_sizes", "(KH, KW, C_in, C_out)")
    at = _attrs(strides, padding, dilations, data_format)
    _check_depth(x.shape[-1], filter_sizes[2])
    _check_out_backprop("Conv2DBackpropFilter", tuple(x.shape[-4:]), filter_sizes, g, at)
    return apply(CONV2D_BACKPROP_FILTER, (x, g), dict(at, filter_sizes=filter_sizes))


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",
                     dilations=None, name=None):
    """tf.nn.conv2d_transpose: the gradient of conv2d with respect to its input, as a
    layer (filters are [KH, KW, C_out, C_in]: the output's channels come third)."""
    return conv2d_backprop_input(output_shape, filters, input, strides, padding, data_format,
                                 dilations)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """tf.nn.conv1d, built as TF builds it: expand to height 1, Conv2D, squeeze."""
    if data_format not in ("NWC", None):
        raise ValueError(f"data_format must be 'NWC' (channels last), got {data_format!r}")
    x, w = tensors(input, filters)
    _check_rank(x, "input", 3, "[batch, width, channels]")
    _check_rank(w, "filters", 3, "[width, in_channels, out_channels]")
    if not isinstance(padding, str):
        raise ValueError(f"conv1d's padding must be 'SAME' or 'VALID', got {padding!r}")
    stride = W.sequence(stride, "stride", n=1)
    dilations = W.sequence(dilations, "dilations", n=1)
    y = conv2d(expand_dims(x, 1), expand_dims(w, 0), (1, 1) + stride[1:], padding,
               dilations=(1, 1) + dilations[1:])
    return squeeze(y, [1])
