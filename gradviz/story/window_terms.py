"""Which output entries one input entry of a convolution or a pooling met, and with what
local factor: the closed forms element provenance uses for Conv2D, MaxPool and AvgPool.

An input entry x[n, p, q, c] of conv2d met filter tap w[a, b, c, o] in every output
y[n, i, j, o] whose window put tap (a, b) on it: i·stride − pad + a·dilation = p (and
the same along the width). So its gradient is the sum of upstream g[n, i, j, o] times
those taps: the upstream window times the filter, flipped (a transposed convolution).
A filter tap's gradient is the sum over every window of g times the input entry under
the tap (a correlation). Max pooling passes g[n, i, j, c] to the one entry that was its
window's maximum (the first, on ties, as TF's CPU kernel does); average pooling shares
it equally among the window's real (unpadded) entries.

Each function returns (count, entries): entries(limit) -> (flat output indices, local
factors, rule label of term p, reader label of term p), as story.local's columns do;
None where the closed form does not apply (operands with leading batch axes).
"""
import numpy as np

from ..engine.ops import windows as W


def _idx(multi):
    return ",".join(str(int(i)) for i in multi)


def _at(name, multi):
    return f"{name}[{_idx(multi)}]"


def _hits(pos, pad, stride, step, size, taps):
    """[(tap, output position)] along one axis: the window positions whose tap lands on
    input position `pos` (pos = out·stride − pad + tap·step)."""
    out = []
    for tap in range(taps):
        t = pos + pad - tap * step
        if t >= 0 and t % stride == 0 and t // stride < size:
            out.append((tap, t // stride))
    return out


def _conv_geometry(op):
    x, w = op._in_values
    at = op.attrs
    (out_h, out_w), pads = W.geometry(x.shape[1:3], w.shape[0:2], at["strides"], at["padding"],
                                      at["explicit_paddings"], at["dilations"])
    return (out_h, out_w), (pads[0][0], pads[1][0]), at["strides"][1:3], at["dilations"][1:3]


def conv2d_terms(op, k, i, names):
    x, w = op._in_values
    if x.ndim != 4 or w.ndim != 4:
        return None
    (out_h, out_w), (top, left), (sh, sw), (dh, dw) = _conv_geometry(op)
    out_shape = op._out_values[0].shape
    if k == 0:
        n, p, q, c = i
        kh, kw, _, n_out = w.shape
        rows, cols = _hits(p, top, sh, dh, out_h, kh), _hits(q, left, sw, dw, out_w, kw)
        hits = [((n, oi, oj, o), (a, b, c, o)) for a, oi in rows for b, oj in cols for o in range(n_out)]
        other, name = w, names[1]
    else:
        a, b, c, o = i
        n_in, h, wd, _ = x.shape
        hits = []
        for n in range(n_in):
            for oi in range(out_h):
                p = oi * sh - top + a * dh
                if not 0 <= p < h:
                    continue
                for oj in range(out_w):
                    q = oj * sw - left + b * dw
                    if 0 <= q < wd:
                        hits.append(((n, oi, oj, o), (n, p, q, c)))
        other, name = x, names[0]
    def label(index):      # as the card writes the operand: filters[1,2,0,0]
        return _at(name, index)
    return _listed(hits, out_shape, lambda index: float(other[index]), label, label)


def _pool_geometry(op):
    x = op._in_values[0]
    at = op.attrs
    ksize, strides = at["ksize"], at["strides"]
    (out_h, out_w), pads = W.geometry(x.shape[1:3], ksize[1:3], strides, at["padding"],
                                      at.get("explicit_paddings", ()), (1, 1, 1, 1))
    return (out_h, out_w), (pads[0][0], pads[1][0]), strides[1:3], ksize[1:3]


def pool_terms(op, k, i, out_name):
    """MaxPool: 1 for the windows whose maximum entry i is; AvgPool: 1/(real entries) for
    every window that holds entry i."""
    x = op._in_values[0]
    if x.ndim != 4 or k != 0:
        return None
    (out_h, out_w), (top, left), (sh, sw), (kh, kw) = _pool_geometry(op)
    n, p, q, c = i
    windows = [((n, oi, oj, c), (a, b)) for a, oi in _hits(p, top, sh, 1, out_h, kh)
               for b, oj in _hits(q, left, sw, 1, out_w, kw)]
    at = op.attrs
    out_shape = op._out_values[0].shape
    if op.type == "MaxPool":
        mask, _ = W._is_argmax(x, at["ksize"], at["strides"], at["padding"], at.get("explicit_paddings", ()))
        hits = [(j, None) for j, (a, b) in windows if mask[j[:3] + (a * kw + b, c)]]
        return _listed(hits, out_shape, lambda _: 1.0, lambda _: "1",
                       lambda j: f"1 (max of window {_at(out_name, j)})", by_output=True)
    counts = W._window_counts(x.shape[1:3], at["ksize"], at["strides"], at["padding"],
                              at.get("explicit_paddings", ()))
    hits = [(j, int(counts[j[1], j[2], 0])) for j, _ in windows]
    return _listed(hits, out_shape, lambda count: 1.0 / count, lambda count: f"1/{count}",
                   lambda count: f"1/{count}", by_output=False)


def _listed(hits, out_shape, local, rule_label, reader_label, by_output=None):
    """(count, entries) over `hits` [(output multi-index, key)]: the local factor and the
    labels are functions of the key (or, `by_output`, of the output index); in the
    outputs' order."""
    hits = sorted(hits, key=lambda hit: hit[0])
    js = np.array([np.ravel_multi_index(j, out_shape) for j, _ in hits], dtype=np.int64)
    keys = [j if by_output else key for j, key in hits]
    factors = np.array([local(key) for key in keys], dtype=np.float64)

    def entries(limit):
        return (js[:limit], factors[:limit], lambda t: rule_label(keys[t]), lambda t: reader_label(keys[t]))
    return len(hits), entries
