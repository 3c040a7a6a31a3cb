"""`gradviz run FILE` and `gradviz trace SCRIPT -o FILE`, without argparse or printing.

Both return (exit code, text): 0 and the output, or 2 and one line naming the
problem and where it is. Files are read as JSON only; nothing in them runs.
"""
import json

import numpy as np

from .capture import trace_script
from .errors import DocumentError
from .evaluate import evaluate, run_studies
from .fileformat import load, port_text, save


def _plain(array):
    if array is None:
        return None
    if isinstance(array, list):
        return [_plain(a) for a in array]
    a = np.asarray(array)
    if a.dtype.kind == "f":
        # float32 values printed with the digits that identify them (0.1, not 0.10000000149)
        flat = a.reshape(-1)
        values = (np.array([float(str(v)) for v in flat]).reshape(a.shape)
                  if a.dtype != np.float64 else a)
        return {"dtype": a.dtype.name, "shape": list(a.shape),
                "value": _finite(np.asarray(values).tolist())}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.tolist()}


def _finite(v):
    if isinstance(v, list):
        return [_finite(x) for x in v]
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    return v


def _error(path, e):
    return 2, f"{path}: {e}"


def run_command(path):
    """Values and gradients of the document at `path` as JSON text."""
    try:
        doc = load(path)
        ev = evaluate(doc)
        if ev.problems:
            raise DocumentError.from_problem(ev.problems[0])
        studies = run_studies(doc)
    except DocumentError as e:
        return _error(path, e)
    except OSError as e:
        return 2, f"{path}: cannot read the file ({e.strerror or e})"
    out = {
        "title": doc.title,
        "targets": [port_text(p) for p in doc.targets],
        "values": {port_text(p): _plain(v) for p, v in ev.values.items()},
        "gradients": {port_text(p): _plain(g) for p, g in ev.gradients.items()},
        "studies": {k: _plain(v) for k, v in studies.items()},
    }
    return 0, json.dumps(out, indent=2, sort_keys=True)


def trace_command(script, out_path):
    """Run `script` (chosen by the user), capture its last gradient call, save a document."""
    try:
        doc = trace_script(script)
        save(doc, out_path)
    except DocumentError as e:
        return _error(script, e)
    except OSError as e:
        return 2, f"{out_path}: cannot write the file ({e.strerror or e})"
    return 0, f"wrote {out_path}: {len(doc.nodes)} nodes, {len(doc.edges)} edges"
