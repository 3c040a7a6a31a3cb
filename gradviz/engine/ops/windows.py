"""Sliding windows over the two spatial axes of NHWC tensors: the geometry convolution
and pooling share (TF's argument forms, SAME / VALID / explicit padding) and the two
array moves built on it: gather every window (im2col) and add values back into the
windows they came from (its transpose, col2im).

Axes before N are batch axes (a batched cotangent of jacobian) and ride along. Arrays
only (numpy, and numba kernels for the two window moves on large arrays): the ops in
conv.py and pool.py run these, and so does the numpy backend.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import kernels


_AXES = ("height", "width")


def sequence(value, name, n=2):
    """TF's argument forms for strides, dilations and ksize: an int, a list of 1, of n
    ([h, w]) or of n + 2 ([1, h, w, 1]) entries -> the n + 2 form as a tuple."""
    if value is None:
        return (1,) * (n + 2)
    value = getattr(value, "_value", value)  # a gradviz Tensor
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        inner = (int(value),) * n
    else:
        try:
            entries = tuple(int(v) for v in value)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an int or a list of ints, got {value!r}") from None
        if len(entries) == 1:
            inner = entries * n
        elif len(entries) == n:
            inner = entries
        elif len(entries) == n + 2:
            if entries[0] != 1 or entries[-1] != 1:
                raise ValueError(f"{name} must be 1 in the batch and depth dimensions "
                                 f"(TF does not support others), got {list(entries)}")
            inner = entries[1:-1]
        else:
            raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was "
                             f"{len(entries)}")
    if any(v < 1 for v in inner):
        raise ValueError(f"{name} must be positive integers, got {list(inner)}")
    return (1,) + inner + (1,)


def padding_attrs(padding, allow_explicit=True, n=2):
    """'SAME', 'VALID' or TF's explicit list [[0, 0], [top, bottom], [left, right], [0, 0]]
    -> (padding name, explicit_paddings as TF's flat tuple, empty unless EXPLICIT)."""
    if isinstance(padding, str):
        if padding == "EXPLICIT":
            raise ValueError('"EXPLICIT" is not a valid value for padding. To use explicit '
                             "padding, padding must be a list.")
        if padding not in ("SAME", "VALID"):
            allowed = '"SAME", "VALID"' + (', or a list of explicit paddings'
                                           if allow_explicit else "")
            raise ValueError(f"Value for attr 'padding' of {padding!r} is not in the list of "
                             f"allowed values: {allowed}")
        return padding, ()
    if not allow_explicit:
        raise ValueError(f"padding must be 'SAME' or 'VALID' here, got {padding!r}")
    padding = getattr(padding, "_value", padding)
    if isinstance(padding, np.ndarray):
        padding = padding.tolist()
    try:
        rows = [tuple(int(v) for v in row) for row in padding]
    except (TypeError, ValueError):
        raise ValueError("when padding is a list, each entry must be a pair [before, after] "
                         f"of ints, got {padding!r}") from None
    if len(rows) != n + 2 or any(len(r) != 2 for r in rows):
        raise ValueError(f"when padding is a list, it must be of size {n + 2} with a pair "
                         f"[before, after] per dimension, got {padding!r}")
    if rows[0] != (0, 0) or rows[-1] != (0, 0):
        raise ValueError("Nonzero explicit padding in the batch or depth dimensions is not "
                         f"supported, got {padding!r}")
    if any(v < 0 for r in rows for v in r):
        raise ValueError(f"explicit paddings must be non-negative, got {padding!r}")
    return "EXPLICIT", tuple(v for r in rows for v in r)


def output_size(size, k, stride, dilation, padding, explicit, axis):
    """(output size, (pad before, pad after)) along one spatial axis, as TF computes
    them: SAME gives ceil(size / stride) and puts the odd extra pad after."""
    effective = (k - 1) * dilation + 1
    if padding == "VALID":
        before = after = 0
    elif padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + effective - size, 0)
        before, after = total // 2, total - total // 2
    else:
        before, after = explicit[2 + 2 * axis], explicit[3 + 2 * axis]
    padded = size + before + after
    if padded < effective:
        raise ValueError(
            f"the window ({effective} wide{' with dilation' if dilation > 1 else ''}) is "
            f"larger than the padded input ({padded}) along the {_AXES[axis]}: the output "
            f"size would be {(padded - effective + stride) // stride} [input_size: {size}, "
            f"effective_filter_size: {effective}, stride: {stride}]")
    return (padded - effective) // stride + 1, (before, after)


def geometry(in_hw, k_hw, strides, padding, explicit, dilations):
    """((out_h, out_w), ((top, bottom), (left, right))) of a window sweep."""
    sizes, pads = [], []
    for axis in (0, 1):
        out, pad = output_size(in_hw[axis], k_hw[axis], strides[1 + axis], dilations[1 + axis],
                               padding, explicit, axis)
        sizes.append(out)
        pads.append(pad)
    return tuple(sizes), tuple(pads)


def pad_spatial(x, pads, value=0):
    """x with the two spatial axes (-3, -2) padded by `pads` with `value`."""
    if pads == ((0, 0), (0, 0)):
        return x
    (t, b), (left, r) = pads
    shape = x.shape[:-3] + (x.shape[-3] + t + b, x.shape[-2] + left + r, x.shape[-1])
    out = np.full(shape, value, x.dtype)
    out[..., t:t + x.shape[-3], left:left + x.shape[-2], :] = x
    return out


def windows(xp, k_hw, out_hw, strides, dilations):
    """A read-only view of every window of the padded `xp`: (..., N, Ho, Wo, KH, KW, C)."""
    s = xp.strides
    shape = xp.shape[:-3] + tuple(out_hw) + tuple(k_hw) + xp.shape[-1:]
    view_strides = s[:-3] + (s[-3] * strides[1], s[-2] * strides[2],
                             s[-3] * dilations[1], s[-2] * dilations[2], s[-1])
    return as_strided(xp, shape, view_strides, writeable=False)


def add_windows(cols, in_hw, pads, strides, dilations):
    """The transpose of gathering windows (col2im): each window's values (..., N, Ho, Wo,
    KH, KW, C) added back where they came from, padding cropped: (..., N, H, W, C)."""
    lead = cols.shape[:-6]
    n, out_h, out_w, kh, kw, c = cols.shape[-6:]
    (t, b), (left, r) = pads
    out = np.zeros(lead + (n, in_hw[0] + t + b, in_hw[1] + left + r, c), cols.dtype)
    sh, sw, dh, dw = strides[1], strides[2], dilations[1], dilations[2]
    if kernels.use_numba(cols):
        kernels.add_windows(out, cols, (sh, sw, dh, dw))
        return out[..., t:t + in_hw[0], left:left + in_hw[1], :]
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (out_h - 1) + 1, sh)
        for j in range(kw):
            out[..., rows, slice(j * dw, j * dw + sw * (out_w - 1) + 1, sw), :] += \
                cols[..., i, j, :]
    return out[..., t:t + in_hw[0], left:left + in_hw[1], :]


# -- convolution and its two gradients on arrays ---------------------------------------

def patches(x, k_hw, strides, padding, explicit_paddings, dilations):
    """im2col: x (..., N, H, W, C) -> (..., N·Ho·Wo, KH·KW·C), and (Ho, Wo)."""
    out_hw, pads = geometry(x.shape[-3:-1], k_hw, strides, padding, explicit_paddings, dilations)
    xp = pad_spatial(x, pads)
    if kernels.use_numba(xp):
        cols = kernels.gather_windows(xp, out_hw, k_hw, (strides[1], strides[2], dilations[1],
                                                         dilations[2]))
    else:
        cols = windows(xp, k_hw, out_hw, strides, dilations)
    n, c = x.shape[-4], x.shape[-1]
    cols = cols.reshape(x.shape[:-4] + (n * out_hw[0] * out_hw[1], k_hw[0] * k_hw[1] * c))
    return cols, out_hw


def conv2d(x, w, strides, padding, explicit_paddings, dilations, data_format="NHWC"):
    kh, kw, c, o = w.shape[-4:]
    cols, (out_h, out_w) = patches(x, (kh, kw), strides, padding, explicit_paddings, dilations)
    y = np.matmul(cols, w.reshape(w.shape[:-4] + (kh * kw * c, o)))
    return y.reshape(y.shape[:-2] + (x.shape[-4], out_h, out_w, o))


def backprop_input(g, w, input_sizes, strides, padding, explicit_paddings, dilations,
                   data_format="NHWC"):
    """Jᵀg for the input: every output position's cotangent spread back through the
    filter onto the window it was computed from."""
    kh, kw, c, o = w.shape[-4:]
    n, out_h, out_w = g.shape[-4:-1]
    in_hw = tuple(input_sizes[1:3])
    _, pads = geometry(in_hw, (kh, kw), strides, padding, explicit_paddings, dilations)
    g2 = g.reshape(g.shape[:-4] + (n * out_h * out_w, o))
    cols = np.matmul(g2, np.swapaxes(w.reshape(w.shape[:-4] + (kh * kw * c, o)), -1, -2))
    cols = cols.reshape(cols.shape[:-2] + (n, out_h, out_w, kh, kw, c))
    return add_windows(cols, in_hw, pads, strides, dilations)


def backprop_filter(x, g, filter_sizes, strides, padding, explicit_paddings, dilations,
                    data_format="NHWC"):
    """Jᵀg for the filter: Σ over examples and positions of input window ⊗ cotangent."""
    kh, kw, c, o = filter_sizes
    cols, _ = patches(x, (kh, kw), strides, padding, explicit_paddings, dilations)
    g2 = g.reshape(g.shape[:-4] + (-1, o))
    gw = np.matmul(np.swapaxes(cols, -1, -2), g2)
    return gw.reshape(gw.shape[:-2] + (kh, kw, c, o))


# -- pooling on arrays -------------------------------------------------------------------

_ONE = (1, 1, 1, 1)


def _pool_view(x, ksize, strides, padding, explicit_paddings, fill):
    """Every window of x padded with `fill`: (..., N, Ho, Wo, KH, KW, C), and the pads."""
    k_hw = tuple(ksize[1:3])
    out_hw, pads = geometry(x.shape[-3:-1], k_hw, strides, padding, explicit_paddings, _ONE)
    return windows(pad_spatial(x, pads, fill), k_hw, out_hw, strides, _ONE), pads


def check_pool_padding(ksize, explicit_paddings):
    """Explicit pads smaller than the window: a window of padding only has no maximum."""
    for axis in (0, 1):
        pads = explicit_paddings[2 + 2 * axis:4 + 2 * axis]
        if any(p >= ksize[1 + axis] for p in pads):
            raise ValueError(f"explicit padding {list(pads)} along the {_AXES[axis]} must be "
                             f"smaller than the window ({ksize[1 + axis]}): a window of "
                             "padding only has no maximum")


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool(x, ksize, strides, padding, explicit_paddings, data_format="NHWC"):
    view, _ = _pool_view(x, ksize, strides, padding, explicit_paddings, _lowest(x.dtype))
    return view.max(axis=(-3, -2))


def _is_argmax(x, ksize, strides, padding, explicit_paddings):
    """(..., N, Ho, Wo, KH·KW, C) booleans: where each window's maximum is (the first one,
    in row-major order, where several are equal, as TF's CPU kernel routes ties)."""
    view, pads = _pool_view(x, ksize, strides, padding, explicit_paddings, _lowest(x.dtype))
    kk = ksize[1] * ksize[2]
    flat = view.reshape(view.shape[:-3] + (kk, view.shape[-1]))
    first = flat.argmax(axis=-2)[..., None, :]
    return first == np.arange(kk)[:, None], pads


def max_pool_grad(x, y, g, ksize, strides, padding, explicit_paddings, data_format="NHWC"):
    """Each output position's cotangent, sent to the input its window took the maximum of.
    Selected, not multiplied by a 0/1 mask: TF's kernel adds each cotangent at its window's
    argmax only, so an inf or NaN cotangent leaves the window's other inputs 0 (not 0 · inf)."""
    mask, pads = _is_argmax(x, ksize, strides, padding, explicit_paddings)
    cols = np.where(mask, g[..., None, :], np.zeros((), g.dtype))
    cols = cols.reshape(cols.shape[:-2] + (ksize[1], ksize[2], cols.shape[-1]))
    return add_windows(cols, x.shape[-3:-1], pads, strides, _ONE)


def max_pool_grad_grad(x, y, u, ksize, strides, padding, explicit_paddings, data_format="NHWC"):
    """The transpose of max_pool_grad: `u` (input-shaped) read at each window's maximum
    (selected, as max_pool_grad: an inf or NaN elsewhere in the window stays out)."""
    mask, _ = _is_argmax(x, ksize, strides, padding, explicit_paddings)
    view, _ = _pool_view(u, ksize, strides, padding, explicit_paddings, 0)
    flat = view.reshape(view.shape[:-3] + (ksize[1] * ksize[2], view.shape[-1]))
    return np.where(mask, flat, np.zeros((), flat.dtype)).sum(axis=-2)


def _window_counts(in_hw, ksize, strides, padding, explicit_paddings):
    """How many real (unpadded) elements each window holds: (Ho, Wo, 1)."""
    counts = []
    for axis in (0, 1):
        k, s = ksize[1 + axis], strides[1 + axis]
        out, (before, _) = output_size(in_hw[axis], k, s, 1, padding, explicit_paddings, axis)
        starts = np.arange(out) * s - before
        counts.append(np.minimum(starts + k, in_hw[axis]) - np.maximum(starts, 0))
    return (counts[0][:, None] * counts[1][None, :])[:, :, None]


def avg_pool(x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    """The mean of each window's real elements: SAME's padding is not counted, as in TF."""
    view, _ = _pool_view(x, ksize, strides, padding, explicit_paddings, 0)
    counts = _window_counts(x.shape[-3:-1], ksize, strides, padding, explicit_paddings)
    return (view.sum(axis=(-3, -2)) / counts).astype(x.dtype, copy=False)


def avg_pool_grad(g, orig_input_shape, ksize, strides, padding, explicit_paddings=(),
                  data_format="NHWC"):
    """Each output's cotangent shared equally among its window's real elements."""
    in_hw = tuple(orig_input_shape[1:3])
    counts = _window_counts(in_hw, ksize, strides, padding, explicit_paddings)
    _, pads = geometry(in_hw, tuple(ksize[1:3]), strides, padding, explicit_paddings, _ONE)
    share = (g / counts).astype(g.dtype, copy=False)[..., None, None, :]
    cols = np.broadcast_to(share, share.shape[:-3] + (ksize[1], ksize[2], share.shape[-1]))
    return add_windows(cols, in_hw, pads, strides, _ONE)
