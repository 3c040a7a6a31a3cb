"""How the story writes numbers and arrays as text: compact numbers, small grids, lines
wrapped to the terminal width. Below everything in story/ that writes text."""
import textwrap

import numpy as np

from ..graph.tensors import dims
from .numbers import writer, written

WIDTH = 92


def number(x, digits=6):
    """Compact: 1, -0.17307831, 1.19e+07. A float32 is written as the shortest decimal that
    is that float32 (0.05, not its float64 widening 0.050000001), then to `digits`."""
    if getattr(x, "dtype", None) == np.float32:
        x = float(np.format_float_positional(np.float32(x), unique=True, trim="-"))
    x = float(x)
    if not np.isfinite(x):
        return str(x)
    if x == int(x) and abs(x) < 1e9:
        return str(int(x))
    return f"{x:.{digits}g}"


def grid(a, max_rows=8, max_cols=8, indent="    ", conv_filter=False, write=None, shared=None):
    """A small right-aligned grid of an array, its numbers as its card writes them (the
    power of ten after the first row): 2-D shown as is, rank 4 as its images
    (`image_grids`), others flattened to 2-D. `write`: (format, power of ten) of the
    whole tensor, for a slice of it; `shared`: the format of the story it is shown in
    (Story.number_spec)."""
    if a is None:
        return indent + "None"
    a = np.asarray(a)
    if a.ndim == 0:
        return indent + writer(a, shared)(a.item())
    if a.size == 0:
        return indent + f"(empty, shape {dims(a.shape)})"
    if a.ndim == 4:
        return image_grids(a, max_rows, max_cols, indent, conv_filter, shared=shared)
    fmt, factor = write or written(a, shared)
    m = a.reshape(-1, a.shape[-1]) if a.ndim != 1 else a.reshape(1, -1)
    rows, cols = m.shape
    shown = m[:max_rows, :max_cols]
    cells = [[fmt(v) for v in row] for row in shown.tolist()]
    width = max((len(c) for row in cells for c in row), default=1)
    lines = []
    for row in cells:
        line = "  ".join(c.rjust(width) for c in row)
        if cols > max_cols:
            line += f"  … ({cols - max_cols} more)"
        lines.append(indent + "[ " + line + " ]" + (f" {factor}" if factor and not lines else ""))
    if rows > max_rows:
        lines.append(indent + f"… ({rows - max_rows} more rows)")
    return "\n".join(lines)


def image_grids(a, max_rows=8, max_cols=8, indent="    ", conv_filter=False, most=3, shared=None):
    """A rank-4 tensor as its images, each headed by its index: NHWC [n,:,:,c], a conv
    filter (HWIO) [:,:,i,o]; the first `most`, then how many more. Every image is written
    in the whole tensor's format."""
    if conv_filter:
        cuts = [((slice(None), slice(None), i, o), f"[:,:,{i},{o}]") for i, o in np.ndindex(*a.shape[2:])]
    else:
        cuts = [((n, slice(None), slice(None), c), f"[{n},:,:,{c}]") for n, c in np.ndindex(a.shape[0], a.shape[3])]
    write = written(a, shared)
    lines = []
    for index, head in cuts[:most]:
        lines += [indent + head, grid(a[index], max_rows, max_cols, indent + "  ", write=write)]
    if len(cuts) > most:
        lines.append(indent + f"… ({len(cuts) - most} more {'in → out filters' if conv_filter else 'images'})")
    return "\n".join(lines)


def wrap(text, indent=""):
    return textwrap.fill(" ".join(str(text).split()), WIDTH, initial_indent=indent,
                         subsequent_indent=indent)
