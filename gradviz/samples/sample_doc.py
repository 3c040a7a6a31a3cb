"""A sample document written in a few lines (shared by build_samples.py and build_nets.py).

Values are stored as float32 unless a dtype is given (integer ids, float64 checks); random
inputs come from fixed numpy seeds and are saved as values, so a file never needs code.
"""
import os
import sys

import numpy as np

# The repository root (this file is gradviz/samples/sample_doc.py; samples/ links here).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))

from gradviz.bundled import lesson_entries  # noqa: E402
from gradviz.graph import (CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Document,  # noqa: E402
                           Node, save)
from gradviz.graph.fileformat import parse_port  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = np.float32


class Doc:
    def __init__(self, title, lesson):
        self.doc = Document(title=title, lesson=" ".join(lesson.split()))

    def const(self, nid, value, watched=False, label="", dtype=F32):
        self.doc.add(Node(nid, CONSTANT, value=np.asarray(value, dtype), watched=watched,
                          label=label))

    def var(self, nid, value, watched=False, label="", trainable=True):
        self.doc.add(Node(nid, VARIABLE, value=np.asarray(value, F32), watched=watched,
                          label=label, trainable=trainable))

    def _connect(self, nid, inputs):
        for i, src in enumerate(inputs):
            p = parse_port(src, nid)
            self.doc.connect(p.node, nid, p.index, i)

    def op(self, nid, op, *inputs, label="", **attrs):
        self.doc.add(Node(nid, OP, op=op, attrs=attrs, label=label))
        self._connect(nid, inputs)

    def layer(self, nid, kind, x, weights, label="", **attrs):
        self.doc.add(Node(nid, LAYER, op=kind, attrs=attrs, label=label,
                          weights={k: np.asarray(v, F32) for k, v in weights.items()}))
        self._connect(nid, [x])

    def custom(self, nid, rule, x, label="", **attrs):
        self.doc.add(Node(nid, CUSTOM_GRADIENT, op=rule, attrs=attrs, label=label))
        self._connect(nid, [x])

    def finish(self, name, targets, sources, output_gradients=None, persistent=False,
               watch_accessed_variables=True, stop_recording=(), studies=None, training=None):
        d = self.doc
        d.targets = [parse_port(t, "t") for t in targets]
        d.sources = [parse_port(s, "s") for s in sources]
        for t, v in (output_gradients or {}).items():
            d.output_gradients[parse_port(t, "og")] = np.asarray(v, F32)
        d.tape.persistent = persistent
        d.tape.watch_accessed_variables = watch_accessed_variables
        d.tape.stop_recording = list(stop_recording)
        d.studies = studies or {}
        d.training = training or {}
        save(d, os.path.join(HERE, name + ".json"))
        return name


def lesson(name, start=False):
    """Another lesson as a student finds it in the Lessons menu, by its number and title:
    'lesson 26, “Vanishing gradients: a deep chain of sigmoid layers”', never its file name;
    'Lesson 26, …' to `start` a sentence."""
    entry = next(e for e in lesson_entries(HERE) if e.path.stem == name)
    return f"{'Lesson' if start else 'lesson'} {entry.number}, “{entry.title}”"


def glorot(rng, n_in, n_out):
    limit = np.sqrt(6.0 / (n_in + n_out))
    return rng.uniform(-limit, limit, (n_in, n_out)).astype(F32)


def dense(rng, n_in, n_out):
    return {"kernel": glorot(rng, n_in, n_out), "bias": np.zeros(n_out, F32)}
