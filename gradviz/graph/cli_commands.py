"""`gradviz run FILE` and `gradviz trace SCRIPT -o FILE`, without argparse or printing.

Both return (exit code, text): 0 and the output, or 2 and one line naming the
problem and where it is. Files are read as JSON only; nothing in them runs. Warnings
(a NaN where it first appears) do not fail a run: they go to `warn` and into the
output's "warnings".
"""
import json
import os
import re
import uuid

import numpy as np

from ..engine.errors import counted
from .errors import DocumentError
from .evaluate import evaluate, run_studies
from .nan_origin import study_problems
from .atomic import write_bytes
from .fileformat import MAX_NODES, load, save, too_many_nodes
from .gradient_check import gradient_check
from .names import port_names
from .tracing import trace
from .flat_newton import flat_newton_words
from .training import Newton, Trainer, named_parameters


def shortest_floats(array):
    """A float array as float64 values whose repr is the shortest text that reads back to
    the same value of the array's dtype (float32 0.1 prints 0.1, not 0.10000000149).

    Small integers (the zeros of a Jacobian) are already shortest as float64; the text of
    each other distinct value is found once, so this takes a fraction of a second where
    one conversion per element took seconds."""
    a = np.asarray(array)
    if a.dtype == np.float64:
        return a
    out = a.astype(np.float64).reshape(-1)
    exact = 2.0 ** (np.finfo(a.dtype).nmant + 1)  # integers up to here print as themselves
    rest = np.flatnonzero((out != np.round(out)) | (np.abs(out) > exact))
    if rest.size:
        distinct, where = np.unique(a.reshape(-1)[rest], return_inverse=True)
        out[rest] = np.array([float(str(v)) for v in distinct], dtype=np.float64)[where]
    return out.reshape(a.shape)


def _plain(array, raw):
    if array is None:
        return None
    if isinstance(array, list):
        return [_plain(a, raw) for a in array]
    a = np.asarray(array)
    values = shortest_floats(a) if a.dtype.kind == "f" else a
    if a.dtype.kind == "f" and not np.isfinite(values).all():
        values = values.astype(object)
        bad = ~np.isfinite(a)
        values[bad] = [str(v) for v in a[bad].astype(np.float64)]  # "nan", "inf", "-inf"
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": raw.add(values)}


def _check_json(check):
    """The gradient check's table as JSON: NaN and infinity written as text."""
    def f(x):
        return x if np.isfinite(x) else str(x)
    return {"source": check.entry_name, "index": list(check.index), "dtype": check.dtype,
            "backward": f(check.backward), "passed": check.passed,
            "measurable": check.measurable,
            "steps": [r.h for r in check.rows],
            "central_differences": [f(r.difference) for r in check.rows],
            "relative_errors": [f(r.relative) for r in check.rows]}


SLAB = 1_000_000


def _json_array(values):
    """json.dumps(values.tolist()), made from slabs of about SLAB values: a Jacobian of 50
    million values as one list of Python floats would take gigabytes."""
    if values.size <= SLAB:
        return json.dumps(values.tolist())
    row = values.size // len(values)
    if row > SLAB:
        parts = [_json_array(v) for v in values]
    else:
        step = SLAB // row
        parts = [json.dumps(values[i:i + step].tolist())[1:-1]
                 for i in range(0, len(values), step)]
    return "[" + ", ".join(parts) + "]"


class _Raw:
    """Tensor values kept aside and written on one line each by json's C encoder: the
    indenting encoder is pure Python and took seconds for a Jacobian of a few million
    values. The document's JSON holds a unique placeholder in their place."""

    def __init__(self):
        self.nonce = f"@{uuid.uuid4().hex}@"
        self.texts = []

    def add(self, values):
        self.texts.append(_json_array(values))
        return f"{self.nonce}{len(self.texts) - 1}"

    def dumps(self, obj):
        text = json.dumps(obj, indent=2, sort_keys=True)
        return re.sub(f'"{self.nonce}([0-9]+)"', lambda m: self.texts[int(m[1])], text)


def _error(path, e):
    where = getattr(e, "where", None)
    if where == str(path):  # the message already names the file
        return 2, f"{path}: {e.message}"
    return 2, f"{path}: {e}"


def run_command(path, warn=None):
    """Values and gradients of the document at `path` as JSON text; `warn(line)` hears each
    warning."""
    try:
        doc = load(path)
        ev = evaluate(doc)
        if ev.errors:
            raise DocumentError.from_problem(ev.errors[0])
        studies = run_studies(doc)
        check = gradient_check(doc) if "gradient_check" in doc.studies else None
    except DocumentError as e:
        return _error(path, e)
    except OSError as e:
        return 2, f"{path}: cannot read the file ({e.strerror or e})"
    warnings = ev.warnings + study_problems(doc, studies)
    for p in warnings:
        if warn:
            warn(f"{path}: {p}")
    raw = _Raw()
    names = port_names(doc, [*ev.values, *ev.gradients, *doc.targets])  # labels, not ids
    out = {
        "title": doc.title,
        "targets": [names[p] for p in doc.targets],
        "values": {names[p]: _plain(v, raw) for p, v in ev.values.items()},
        "gradients": {names[p]: _plain(g, raw) for p, g in ev.gradients.items()},
        "studies": {k: _plain(v, raw) for k, v in studies.items()}
        | ({"gradient_check": _check_json(check)} if check is not None else {}),
        "warnings": [str(p) for p in warnings],
    }
    return 0, raw.dumps(out)


def trace_command(script, out_path, call=-1, progress=None, warn=None, phase=None):
    """Run `script` (chosen by the user), capture its gradient call `call` (-1: the last)
    and save a document that opens. (0, text) when written; (1, text) when written but
    the script failed after that call (`warn(line)` hears how); (2, one line) when nothing
    was written. `progress` and `phase` are tracing.trace's."""
    target = os.path.abspath(out_path)   # where the user meant, if the script changes folder
    if _same_file(script, out_path):
        return 2, (f"{out_path}: is the script itself; choose another output file (trace "
                   "would overwrite the script with the document)")
    try:
        traced = trace(script, call, progress=progress, max_nodes=MAX_NODES, phase=phase)
        doc = traced.doc
        if len(doc.nodes) > MAX_NODES:   # write only documents that open
            raise DocumentError(too_many_nodes(len(doc.nodes)), where="trace")
        if phase:
            phase("writing")
        save(doc, target, verify=True)
    except DocumentError as e:
        return _error(script, e)
    except OSError as e:
        return 2, f"{out_path}: cannot write the file ({e.strerror or e})"
    which = traced.which()
    text = f"wrote {out_path}: {counted(len(doc.nodes), 'node')}, {counted(len(doc.edges), 'edge')}"
    if which:
        text += f"; it shows {which} (--call K picks another)"
    if traced.failure:
        if warn:
            warn(f"{script}: after the gradient call the document shows, {traced.failure}")
        return 1, text
    return 0, text


def _same_file(script, out_path):
    """Is `out_path` the script itself (the same path, a symbolic or a hard link to it)?"""
    try:
        return os.path.samefile(script, out_path)
    except (OSError, ValueError):
        return False


def train_command(path, optimizer, steps, out_path=None, log_path=None, parameters=None,
                  progress=None, warn=None, settings=""):
    """Run `optimizer` for `steps` steps on the document at `path`; write the trained
    document to `out_path` and a CSV of step and loss to `log_path` (each if given).
    `progress(done, steps, loss)` hears each step; `warn(line)` hears a loss that stops
    being finite (said once); `settings`: the run's settings in words, for the summary."""

    try:
        doc = load(path)
        ports = None if parameters is None else named_parameters(doc, parameters)
        trainer = Trainer(doc, optimizer, ports)
        said, flats = [], []

        def heard(record):
            if progress:
                progress(record.index, steps, record.loss_after)
            if not np.isfinite(record.loss_after) and not said and warn:
                said.append(record.index)
                warn(f"{path}: the loss is {record.loss_after} after step {record.index} "
                     "(the learning rate may be too large)")
            flat = flat_step(optimizer)
            if flat and not flats and warn:       # said once, at the first such step
                flats.append(record.index)
                warn(f"{path}: step {record.index}: {flat}")
        trainer.run(steps, on_step=heard)
    except DocumentError as e:
        return _error(path, e)
    except OSError as e:
        return 2, f"{path}: cannot read the file ({e.strerror or e})"
    losses = trainer.losses
    written = []
    for target, write in ((out_path, lambda p: save(trainer.document(), p)),
                          (log_path, lambda p: _write_losses(p, losses))):
        if target:
            try:
                write(target)
            except OSError as e:
                return 2, f"{target}: cannot write the file ({e.strerror or e})"
            written.append(target)
    name = optimizer.name
    text = f"{name}: loss {losses[0]:.6g} -> {losses[-1]:.6g} after {counted(len(losses) - 1, 'step')}"
    text += f" with {settings}" if settings else ""
    return 0, text + (f"; wrote {', '.join(written)}" if written else "; the trained document "
                      "was not saved (give -o FILE)")


def flat_step(optimizer):
    """Why a Newton step just taken is a plain gradient step (H zero or singular), or ''."""
    if not isinstance(optimizer, Newton) or optimizer.last_terms is None:
        return ""
    g, hessian = optimizer.last_terms
    return flat_newton_words(hessian, g, optimizer.last_step, optimizer.damping,
                             lambda x: f"{x:.6g}")


def _write_losses(path, losses):
    """step,loss: step 0 is the loss before training, step k after k updates."""
    write_bytes(path, "step,loss\n" + "".join(f"{k},{loss!r}\n" for k, loss in enumerate(losses)))
