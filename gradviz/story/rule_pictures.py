"""The rules of conv2d, pooling and softmax cross-entropy as pictures, with their real
numbers: what a formula card draws in its equation "upstream ⊗ rule = contribution", in
place of the rule's words.

- conv2d, input: the upstream spread by the stride (zeros between) and padded by
  (K−1)·dilation − pad, slid over the filter flipped in both spatial axes (its in and
  out channels swapped): a transposed convolution.
- conv2d, filter: the padded input slid over by the upstream (a correlation): tap
  (a, b) of the gradient is Σ x[n, i·s + a·d, j·s + b·d, c] · g[n, i, j, o].
- max_pool: each upstream entry sent to its window's maximum (ringed in the input; the
  first maximum on ties).
- avg_pool: each upstream entry divided by its window's count of real entries and
  shared over the window.
- softmax cross-entropy, logits: p = softmax(logits), the labels, p − labels, one row
  each; the contribution is grad · (p − labels).

Each picture is computed here from the op's inputs and the upstream, independently of
the engine's rule, and tests hold it (and the result it gives) to the engine's VJP; the card
shows the engine's contribution once, as the equation's right-hand side. Plain numpy, no Qt.
`pictures(step)` -> Pictured: parts ("word", text) / ("op", symbol) / ("picture", array,
label, role, ringed flat indices).
"""
from dataclasses import dataclass, field

import numpy as np

from ..engine.ops import windows as W
from ..engine.ops.cross_entropy import one_hot_of
from ..graph.operands import operand_heading

FILTER = "filter"      # a rank-4 array read as in x out tiles (render.tiles.FILTER)
# ops whose pictures correspond cell by cell (an upstream entry and its window): one scale for all
ALIGNED = frozenset({"MaxPool", "AvgPool"})


def _picture(array, label, role=None, ringed=()):
    return ("picture", np.asarray(array), label, role, tuple(int(i) for i in ringed))


def _pad_or_crop(a, axis, before, after):
    """`a` with `before` / `after` zeros added along `axis` (a negative amount crops)."""
    if before < 0:
        a = np.take(a, range(-before, a.shape[axis]), axis=axis)
        before = 0
    if after < 0:
        a = np.take(a, range(0, a.shape[axis] + after), axis=axis)
        after = 0
    widths = [(0, 0)] * a.ndim
    widths[axis] = (before, after)
    return np.pad(a, widths)


def _spread(g, strides):
    """g with stride − 1 zeros between its entries along H and W."""
    n, h, w, c = g.shape
    out = np.zeros((n, (h - 1) * strides[0] + 1, (w - 1) * strides[1] + 1, c), g.dtype)
    out[:, ::strides[0], ::strides[1], :] = g
    return out


def _geometry(x_shape, k_hw, at):
    dilations = at.get("dilations", (1, 1, 1, 1))
    out_hw, pads = W.geometry(x_shape[1:3], k_hw, at["strides"], at["padding"],
                              at.get("explicit_paddings", ()), dilations)
    return out_hw, pads, at["strides"][1:3], dilations[1:3]


def correlate(x, w, dilations=(1, 1)):
    """VALID, stride-1 correlation of x (N, H, W, C) with w (KH, KW, C, O), tap by tap."""
    kh, kw, _, n_out = w.shape
    dh, dw = dilations
    out_h, out_w = x.shape[1] - (kh - 1) * dh, x.shape[2] - (kw - 1) * dw
    y = np.zeros((x.shape[0], out_h, out_w, n_out), np.float64)
    for a in range(kh):
        for b in range(kw):
            y += np.einsum("nhwc,co->nhwo", x[:, a * dh:a * dh + out_h, b * dw:b * dw + out_w, :], w[a, b])
    return y


def transposed_convolution(g, w, x_shape, at):
    """(upstream spread and padded, filter flipped, their correlation = the input's gradient)."""
    kh, kw = w.shape[:2]
    _, pads, strides, (dh, dw) = _geometry(x_shape, (kh, kw), at)
    spread = _spread(np.asarray(g, np.float64), strides)
    for axis, k, d, (before, _), size in ((1, kh, dh, pads[0], x_shape[1]), (2, kw, dw, pads[1], x_shape[2])):
        left = (k - 1) * d - before
        spread = _pad_or_crop(spread, axis, left, size + (k - 1) * d - left - spread.shape[axis])
    flipped = np.asarray(w, np.float64)[::-1, ::-1].transpose(0, 1, 3, 2)
    return spread, flipped, correlate(spread, flipped, (dh, dw))


def filter_correlation(x, g, w_shape, at):
    """(input padded, the upstream, tap by tap Σ x[n, i·s + a·d, j·s + b·d, c] · g[n, i, j, o])."""
    kh, kw, c, n_out = w_shape
    (out_h, out_w), pads, (sh, sw), (dh, dw) = _geometry(x.shape, (kh, kw), at)
    padded = W.pad_spatial(np.asarray(x, np.float64), pads)
    g = np.asarray(g, np.float64)
    gw = np.zeros((kh, kw, c, n_out))
    for a in range(kh):
        for b in range(kw):
            under = padded[:, a * dh:a * dh + (out_h - 1) * sh + 1:sh, b * dw:b * dw + (out_w - 1) * sw + 1:sw, :]
            gw[a, b] = np.einsum("nijc,nijo->co", under, g)
    return padded, g, gw


def _pool_taps(x_shape, at):
    """Per tap (a, b) of the pooling window: the input rows and columns it reads for every
    output position, (N, Ho, Wo, C)-broadcastable, and where those lie inside the input."""
    k_hw = tuple(at["ksize"][1:3])
    (out_h, out_w), pads, (sh, sw), _ = _geometry(x_shape, k_hw, dict(at, dilations=(1, 1, 1, 1)))
    for a in range(k_hw[0]):
        for b in range(k_hw[1]):
            p = (np.arange(out_h) * sh - pads[0][0] + a)[None, :, None, None]
            q = (np.arange(out_w) * sw - pads[1][0] + b)[None, None, :, None]
            yield p, q, (p >= 0) & (p < x_shape[1]) & (q >= 0) & (q < x_shape[2])


def _gather(x, p, q, inside, fill):
    """x[n, p, q, c] for every output position, `fill` where (p, q) is padding."""
    n, _, _, c = x.shape
    shape = np.broadcast_shapes(inside.shape, (n, 1, 1, c))
    rows, cols = np.clip(p, 0, x.shape[1] - 1), np.clip(q, 0, x.shape[2] - 1)
    picked = x[np.arange(n)[:, None, None, None], rows, cols, np.arange(c)[None, None, None, :]]
    return np.where(np.broadcast_to(inside, shape), picked, fill)


def max_pool_routing(x, g, at):
    """(flat indices of each window's first maximum in x, g sent there)."""
    x, g = np.asarray(x, np.float64), np.asarray(g, np.float64)
    best = np.full(g.shape, -np.inf)
    where_p, where_q = np.zeros(g.shape, int), np.zeros(g.shape, int)
    for p, q, inside in _pool_taps(x.shape, at):          # taps in row-major order: ">" keeps the first
        value = _gather(x, p, q, inside, -np.inf)
        better = value > best
        best = np.where(better, value, best)
        where_p = np.where(better, np.broadcast_to(p, g.shape), where_p)
        where_q = np.where(better, np.broadcast_to(q, g.shape), where_q)
    n, _, _, c = np.indices(g.shape)
    routed = np.zeros(x.shape, np.float64)
    np.add.at(routed, (n, where_p, where_q, c), g)
    winners = np.unique(np.ravel_multi_index((n, where_p, where_q, c), x.shape))
    return winners.tolist(), routed


def avg_pool_sharing(x_shape, g, at):
    """(each window's count of real entries, g / count shared over the window)."""
    g = np.asarray(g, np.float64)
    taps = list(_pool_taps(x_shape, at))
    counts = np.broadcast_to(sum(inside.astype(np.float64) for _, _, inside in taps), g.shape)
    share = g / counts
    shared = np.zeros(x_shape, np.float64)
    n, _, _, c = np.indices(g.shape)
    for p, q, inside in taps:
        real = np.broadcast_to(inside, g.shape)
        np.add.at(shared, (n[real], np.broadcast_to(p, g.shape)[real], np.broadcast_to(q, g.shape)[real],
                           c[real]), share[real])
    return np.array(counts), shared


def softmax_rows(logits, labels, sparse):
    """(p = softmax(logits), the labels as rows (one-hot when sparse), p − labels)."""
    z = np.asarray(logits, np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    rows = one_hot_of(labels, z.shape[-1], np.float64) if sparse else np.asarray(labels, np.float64)
    return p, rows, p - rows


UPSTREAM, CONTRIBUTION = ("upstream",), ("contribution",)   # where the card puts its own arrays


@dataclass(frozen=True)
class Pictured:
    """A rule drawn with its numbers. equation: the card's one row "upstream ⊗ rule =
    contribution" with the rule as pictures (UPSTREAM and CONTRIBUTION mark where the card
    puts those arrays), or None; shows: the operands the pictures show, in the equation or
    the rows (the card writes them no second time); rows: more rows under the equation."""
    equation: list | None = None
    shows: frozenset = frozenset()
    rows: list = field(default_factory=list)


def _named(step, operand):
    """'input (relu)': the rule's operand and the node it stands for."""
    node = (getattr(step, "operand_nodes", None) or {}).get(operand, "")
    return f"{operand} ({node})" if node and node != operand else operand


def pictures(step):
    """`step`'s rule as pictures with its numbers (Pictured), or None for other ops and steps."""
    op = getattr(step, "_op", None)
    if getattr(step, "kind", "") != "contribution" or op is None:
        return None
    grad = (step.operands or {}).get("grad")
    if grad is None or isinstance(grad, list):
        return None
    g, k, at = np.asarray(grad), step.input_index, op.attrs
    ins = op._in_values
    windowed = {"Conv2D": 2, "MaxPool": 1, "AvgPool": 1}.get(op.type, 0)
    if windowed and any(np.ndim(v) != 4 for v in [g, *ins[:windowed]]):
        return None      # batched operands (a jacobian's cotangents): the text alone
    if op.type == "Conv2D" and k == 0:     # the upstream, padded, correlated with the flipped filters
        spread, flipped, _ = transposed_convolution(g, ins[1], ins[0].shape, at)
        strided = max(at["strides"]) > 1
        label = "upstream" + (", spread by the stride" if strided else "") + ", zero-padded"
        channels = " (in ↔ out)" if ins[1].shape[2] * ins[1].shape[3] > 1 else ""
        return Pictured([_picture(spread, label), ("op", "⋆"),
                         _picture(flipped, f"{_named(step, 'filters')} flipped ↻180°{channels}", FILTER),
                         ("op", "="), CONTRIBUTION], frozenset({"filters"}))
    if op.type == "Conv2D" and k == 1:     # the input, padded, correlated with the upstream
        padded, _, _ = filter_correlation(ins[0], g, ins[1].shape, at)
        label = _named(step, "input") + (", zero-padded" if padded.shape != ins[0].shape else "") \
            + (", read every stride" if max(at["strides"]) > 1 else "")
        return Pictured([_picture(padded, label), ("op", "⋆"), UPSTREAM, ("op", "="), CONTRIBUTION],
                        frozenset({"input"}))
    if op.type == "MaxPool":               # each upstream entry sent to its window's ringed maximum
        winners, _ = max_pool_routing(ins[0], g, at)
        return Pictured([_picture(ins[0], f"{_named(step, 'input')}: each window's max ringed", ringed=winners),
                         ("op", "←"), UPSTREAM, ("op", "="), CONTRIBUTION], frozenset({"input"}))
    if op.type == "AvgPool":               # each upstream entry shared over its window
        counts, _ = avg_pool_sharing(ins[0].shape, g, at)
        return Pictured([UPSTREAM, ("op", "÷"), _picture(counts, "entries in each window; each share spread over it"),
                         ("op", "="), CONTRIBUTION])
    if op.type in ("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits") and k == 0:
        sparse = op.type.startswith("Sparse")
        p, rows, diff = softmax_rows(ins[0], ins[1], sparse)
        # the operands as the step's rule names them (the reader's names: softmax(dense))
        nodes = getattr(step, "operand_nodes", None) or {}
        logits, labels = [*nodes, "logits", "labels"][:2]
        shown = f"one_hot({labels})" if sparse else labels
        # the dense labels are the operand itself: headed as the where line would ('labels
        # (vertical)'), which then leaves them out
        return Pictured(rows=[[("word", f"p = softmax({logits}) ="), _picture(p, "")],
                              [("word", f"{shown if sparse else operand_heading(labels, nodes.get(labels, ''))} ="),
                               _picture(rows, "")],
                              [("word", f"p − {shown} ="), _picture(diff, "")]],
                        shows=frozenset() if sparse else frozenset({labels}))
    return None


def aligned(step):
    """Do `step`'s rule pictures correspond cell by cell (pooling), so that one drawn larger
    than the others would hide which window an upstream entry goes to?"""
    return getattr(getattr(step, "_op", None), "type", "") in ALIGNED
