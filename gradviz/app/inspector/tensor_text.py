"""Tensor text: parse what users paste (numpy / TF repr, nested lists, CSV / TSV rows) and
write text that reads back to exactly the same values. Parsed, never evaluated; every
refusal says what is wrong and where, in words. No Qt here.
"""
import re
import sys

import numpy as np

from ...engine.errors import counted


class TensorTextError(ValueError):
    """Pasted text that is not a tensor; the message says where and why."""


# -- parsing ----------------------------------------------------------------------------------
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|infinity)",
                     re.IGNORECASE)
_TOKEN = re.compile(r"\s*(\[|\]|,|[^\s\[\],]+)")
_WRAPPER = re.compile(r"^\s*(?:array|tf\.Tensor|np\.array|numpy\.array)\s*\((.*)\)\s*$", re.S)
_TRAILER = re.compile(r",\s*(?:shape\s*=\s*\([^)]*\)\s*,?\s*)?(?:dtype\s*=\s*[\w.]+)?\s*$")


def parse_number(text):
    """A float from cell or paste text: decimal, scientific, nan, inf, True/False."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return 1.0 if low == "true" else 0.0
    if not _NUMBER.fullmatch(t):
        raise TensorTextError(f"'{t[:30]}' is not a number")
    return float(t)


def parse_tensor_text(text):
    """An ndarray (float64) from numpy/TF repr text, a nested list, or CSV/TSV rows."""
    text = text.strip()
    if not text:
        raise TensorTextError("the text is empty")
    if "..." in text or "…" in text:
        raise TensorTextError("the text is abbreviated with '...'; print the whole array "
                              "(np.set_printoptions(threshold=sys.maxsize)) and copy again")
    if "numpy=" in text:  # <tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([...])>
        text = text.split("numpy=", 1)[1].rstrip().rstrip(">")
    m = _WRAPPER.match(text)
    if m:
        text = _TRAILER.sub("", m.group(1)).strip()
    if "[" in text or "]" in text:
        return _parse_nested(text)
    return _parse_rows(text)


def _parse_nested(text):
    tokens = _TOKEN.findall(text)
    pos = 0

    def item(depth):
        nonlocal pos
        if pos >= len(tokens):
            raise TensorTextError("the text ends early: a ']' is missing")
        tok = tokens[pos]
        if tok == "[":
            pos += 1
            items = []
            while True:
                if pos >= len(tokens):
                    raise TensorTextError("the text ends early: a ']' is missing")
                if tokens[pos] == "]":
                    pos += 1
                    return items
                if tokens[pos] == ",":
                    pos += 1
                    continue
                items.append(item(depth + 1))
        if tok == "]":
            raise TensorTextError("there is a ']' without a matching '['")
        pos += 1
        return parse_number(tok)

    value = item(0)
    if pos < len(tokens):
        rest = "".join(tokens[pos:])[:30]
        raise TensorTextError(f"unexpected text after the array: '{rest}'")
    return np.array(_regular(value, ()), dtype=np.float64)


def _regular(value, where):
    """Check a nested list is rectangular; name the first row that is not."""
    if not isinstance(value, list):
        return value
    if not value:
        if where:
            raise TensorTextError(f"row {_where(where)} is empty")
        raise TensorTextError("the array is empty")
    kinds = {isinstance(v, list) for v in value}
    if len(kinds) > 1:
        raise TensorTextError(f"{'row ' + _where(where) if where else 'the array'} mixes "
                              "numbers and lists")
    if True in kinds:
        lengths = [_depth_len(v) for v in value]
        for i, n in enumerate(lengths):
            if n != lengths[0]:
                raise TensorTextError(f"row {_where(where + (i,))} has {counted(n[1], 'value')}, expected "
                                      f"{lengths[0][1]}" if n[0] == lengths[0][0] else
                                      f"row {_where(where + (i,))} is nested differently")
        return [_regular(v, where + (i,)) for i, v in enumerate(value)]
    return value


def _depth_len(v):
    depth = 0
    x = v
    while isinstance(x, list) and x:
        depth += 1
        x = x[0]
    return depth, len(v)


def _where(where):
    return ", ".join(str(i + 1) for i in where)


def _parse_rows(text):
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" in line:
            cells = line.split("\t")
        elif "," in line:
            cells = line.split(",")
        elif ";" in line:
            cells = line.split(";")
        else:
            cells = line.split()
        cells = [c for c in (c.strip() for c in cells)]
        if cells and cells[-1] == "":  # a trailing separator
            cells.pop()
        rows.append(cells)
    if not rows:
        raise TensorTextError("the text is empty")
    values = []
    for r, cells in enumerate(rows, 1):
        if len(cells) != len(rows[0]):
            raise TensorTextError(f"row {r} has {counted(len(cells), 'value')}, expected {len(rows[0])}")
        row = []
        for c, cell in enumerate(cells, 1):
            try:
                row.append(parse_number(cell))
            except TensorTextError as e:
                where = f"row {r}, column {c}" if len(rows) > 1 else f"value {c}"
                raise TensorTextError(f"{where}: {e}") from None
        values.append(row)
    array = np.array(values, dtype=np.float64)
    if array.shape[0] == 1:
        array = array[0]
        if array.shape[0] == 1 and len(rows[0]) == 1 and "," not in text and "\t" not in text:
            array = array[0]  # a lone number is a scalar
    return array


def tensor_text(array):
    """numpy repr text that reads back to exactly the same values (and parses above)."""
    array = np.asarray(array)
    with np.printoptions(threshold=sys.maxsize, floatmode="unique", linewidth=100):
        return repr(array)


def cast_to(values, dtype):
    """`values` as `dtype`, refusing what would silently change (fractions into ints, nan)."""
    dtype = np.dtype(dtype)
    values = np.asarray(values, dtype=np.float64)
    if dtype.kind in "iub":
        if not np.all(np.isfinite(values)):
            raise TensorTextError(f"a {dtype.name} tensor cannot hold nan or inf")
        if np.any(values != np.round(values)):
            raise TensorTextError(f"a {dtype.name} tensor holds whole numbers only")
        if dtype.kind == "b":
            return values != 0
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.astype(dtype)
    if dtype.kind == "f" and np.any(np.isinf(out) & np.isfinite(values)):
        raise TensorTextError(f"a value is too large for {dtype.name}")
    return out


def random_values(shape, distribution="normal", seed=0, a=0.0, b=1.0):
    """Reproducible numbers: numpy's PCG64 generator seeded with `seed`."""
    rng = np.random.default_rng(seed)
    if distribution == "uniform":
        return rng.uniform(a, b, size=shape)
    return rng.normal(a, b, size=shape)


def as_grid(array):
    """The 2-d view the grid shows: a scalar is 1×1, a vector one row; None above rank 2."""
    array = np.asarray(array)
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(1, -1)
    return array if array.ndim == 2 else None


def cell_text(v):
    """One entry as the shortest text that reads back to the same value of its dtype."""
    v = np.asarray(v)
    if v.dtype.kind == "b":
        return "True" if v else "False"
    return str(v.item()) if v.dtype.kind in "iu" else str(v[()])


def cells_text(block):
    """A 2-d block of entries as tab-separated rows (what spreadsheets paste)."""
    return "\n".join("\t".join(cell_text(v) for v in row) for row in np.asarray(block))
