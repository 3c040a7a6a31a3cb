"""Capture: what a GradientTape recorded becomes a document.

`from_tape` walks the tape's entries (engine Operations) and names each op by
its catalog entry; the tensors the tape did not produce become constant or
variable nodes holding the values the ops saw. `trace_script` runs a script the
user chose and captures the tape of its last `tape.gradient(...)` call.
"""
import os
import runpy
import sys

import numpy as np

import gradviz as gv
from gradviz.engine import tape as _tape_module

from . import catalog
from .document import CONSTANT, OP, VARIABLE, Document, Edge, Node, Port, TapeSettings
from .errors import DocumentError
from .fileformat import ID

_BY_ENGINE = {spec.engine: spec for spec in catalog.OPS.values() if spec.engine}


def _attrs(spec, attrs, optype):
    """Catalog attributes from the engine's recorded attributes."""
    def plain(v):
        if isinstance(v, tuple):
            return [plain(x) for x in v]
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.floating):
            return float(v)
        return v
    if spec.name == "getitem":
        index = []
        for k in attrs["key"]:
            if isinstance(k, slice):
                index.append([k.start, k.stop, k.step])
            elif k is Ellipsis:
                index.append("...")
            elif isinstance(k, int):
                index.append(k)
            else:
                raise DocumentError(f"cannot capture the index {k!r} (new axes are not supported)",
                                    where=optype)
        return {"index": index}
    if spec.name == "split":
        sizes = list(attrs["sizes"])
        if len(set(sizes)) != 1:
            raise DocumentError("cannot capture a split into unequal parts", where=optype)
        return {"num": len(sizes), "axis": int(attrs["axis"])}
    if spec.name in ("nn.softmax", "nn.log_softmax"):
        return {"axis": -1}
    out = {}
    for key in spec.attrs:
        if key in attrs:
            v = plain(attrs[key])
            out[key] = float(v) if spec.kinds.get(key) == "float" else v
    return out


class _Namer:
    def __init__(self):
        self.used = set()

    def __call__(self, stem):
        stem = stem if ID.match(stem or "") else "n"
        stem = stem.replace("/", "_")
        name, i = stem, 1
        while name in self.used or not ID.match(name):
            i += 1
            name = f"{stem}{i}"
        self.used.add(name)
        return name


def from_tape(tape, targets, sources, output_gradients=None, title="Captured tape",
              entries=None, tracked=None):
    """A document reproducing what `tape` recorded for `tape.gradient(targets, sources)`."""
    entries = list(tape._entries if entries is None else entries)
    tracked = set(tape._tracked if tracked is None else tracked)
    targets = gv.nest.flatten(targets)
    sources = gv.nest.flatten(sources)
    doc = Document(title=title, tape=TapeSettings(
        persistent=tape._persistent, watch_accessed_variables=tape._watch_accessed_variables))
    ports, name = {}, _Namer()

    def leaf(t, value):
        if t._id in ports:
            return ports[t._id]
        if isinstance(t, gv.Variable):
            base = (t.name or "v").split(":")[0].replace("/", "_")
            node = Node(name(base), VARIABLE, value=np.array(value), trainable=t.trainable,
                        watched=not tape._watch_accessed_variables or not t.trainable)
        else:
            node = Node(name("x"), CONSTANT, value=np.array(value), watched=t._id in tracked)
        doc.add(node)
        ports[t._id] = Port(node.id, 0)
        return ports[t._id]

    for op in entries:
        spec = _BY_ENGINE.get(op.type)
        if spec is None:
            raise DocumentError(f"the tape recorded a {op.type} op, which a document cannot "
                                "hold yet", where=op.name)
        srcs = [ports.get(t._id) or leaf(t, value) for t, value in zip(op.inputs, op._in_values)]
        node = doc.add(Node(name(spec.name.replace("nn.", "").replace("linalg.", "")), OP,
                            op=spec.name, attrs=_attrs(spec, op.attrs, op.type)))
        doc.edges += [Edge(src, Port(node.id, i)) for i, src in enumerate(srcs)]
        for k, t in enumerate(op.outputs):
            ports[t._id] = Port(node.id, k)
    for t in targets:
        if t._id not in ports:
            leaf(t, t._value)
        doc.targets.append(ports[t._id])
    for s in sources:
        doc.sources.append(ports[s._id] if s._id in ports else leaf(s, s._value))
    if output_gradients is not None:
        for p, g in zip(doc.targets, gv.nest.flatten(output_gradients)):
            if g is not None:
                doc.output_gradients[p] = np.array(getattr(g, "_value", g))
    return doc


def trace_script(path, call=-1):
    """Run the script at `path` (the user chose to run it) and capture one gradient call."""
    calls = []
    original = _tape_module.GradientTape.gradient

    def recording_gradient(self, target, sources, output_gradients=None, *args, **kwargs):
        state = (list(self._entries), set(self._tracked))
        result = original(self, target, sources, output_gradients, *args, **kwargs)
        calls.append((self, target, sources, output_gradients) + state)
        return result

    path = os.fspath(path)
    if not os.path.isfile(path):
        raise DocumentError("no such script", where=path)
    saved_argv, saved_path = sys.argv, list(sys.path)
    _tape_module.GradientTape.gradient = recording_gradient
    try:
        sys.argv = [path]
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise DocumentError(f"the script exited with status {e.code}", where=path) from None
    except Exception as e:
        if not calls:
            raise DocumentError(f"the script failed: {type(e).__name__}: {e}"[:300],
                                where=path) from None
    finally:
        _tape_module.GradientTape.gradient = original
        sys.argv = saved_argv
        sys.path[:] = saved_path
    if not calls:
        raise DocumentError("the script computed no tape.gradient(...)", where=path)
    tape, target, sources, output_gradients, entries, tracked = calls[call]
    title = os.path.splitext(os.path.basename(path))[0]
    return from_tape(tape, target, sources, output_gradients, title=f"Traced {title}",
                     entries=entries, tracked=tracked)
