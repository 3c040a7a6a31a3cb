"""Documents the tests build from the samples to meet a pitfall (shared by graph, story
and app tests)."""
from pathlib import Path

import numpy as np

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def pow_pitfall_doc():
    """Lesson 14 with y_sq = layer ** 2 (Pow) and a Hessian study of g1_mag w.r.t.
    layer.kernel: the Hessian is NaN where relu's output is 0 (pow's rule differentiated
    again meets 0 · ∞, as TF's Pow gradient does)."""
    from gradviz.graph import catalog, load
    from gradviz.graph.document import CONSTANT, Node
    doc = load(SAMPLES / "001_input_gradient_regularization.json")
    doc.add(Node("two", CONSTANT, value=np.float32(2.0)))
    doc.nodes["y_sq"].op = "pow"
    doc.nodes["y_sq"].attrs = dict(catalog.OPS["pow"].attrs)
    doc.connect("two", "y_sq", dst_index=1)
    doc.studies = {"hessian": {"newton_eps": 0.001, "source": "layer:1", "target": "g1_mag"}}
    return doc
