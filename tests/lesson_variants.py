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


def sibling_doc():
    """y = upstream * grad: two sources, both inputs of one op, named after the words the
    rule cards and captions use themselves (issue 20 §1)."""
    from gradviz.graph import catalog
    from gradviz.graph.document import CONSTANT, OP, Document, Node, Port
    doc = Document(title="y = upstream * grad")
    doc.add(Node("n0", CONSTANT, value=np.array([[2, 1], [1, 3]], np.float32), watched=True,
                 label="upstream"))
    doc.add(Node("n1", CONSTANT, value=np.array([[1, 2], [0.5, 1]], np.float32), watched=True,
                 label="grad"))
    doc.add(Node("out", OP, op="multiply", attrs=dict(catalog.OPS["multiply"].attrs), label="y"))
    doc.connect("n0", "out", 0, 0)
    doc.connect("n1", "out", 0, 1)
    doc.targets, doc.sources = [Port("out")], [Port("n0"), Port("n1")]
    return doc


def partly_nan_hessian_doc():
    """loss = Σ x^1.5 with x holding zeros: H = diag(0.75 / √x) is ∞ where x is 0, and NaN
    (0 · ∞) in those two columns in every other row, as TF's per-row jacobian gives: 12 of
    its 36 entries are not numbers, the other 24 are."""
    from gradviz.graph import catalog
    from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port
    doc = Document(title="x to the 1.5 at zero")
    doc.add(Node("x", VARIABLE, value=np.array([[1.0, 0.0, 4.0], [0.25, 9.0, 0.0]], np.float32)))
    doc.add(Node("p", CONSTANT, value=np.float32(1.5), label="power"))
    doc.add(Node("y", OP, op="pow", attrs=dict(catalog.OPS["pow"].attrs)))
    doc.add(Node("loss", OP, op="reduce_sum", attrs=dict(catalog.OPS["reduce_sum"].attrs)))
    doc.connect("x", "y")
    doc.connect("p", "y", dst_index=1)
    doc.connect("y", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("x")]
    doc.studies = {"hessian": {"target": "loss", "source": "x"}}
    return doc


def argmax_cut_doc(cut="math.argmax", attrs=None):
    """Issue 20 §1 (auditor H39x): x (constant 2x3) @ W (Variable 3x2) → relu → argmax →
    reduce_sum, target reduce_sum, source W: the path W → … → reduce_sum is on the canvas,
    but argmax returns integer indices and has no gradient, so TF's gradient for W is None.
    `cut`/`attrs`: another node in argmax's place (a cast to int32, tf.stop_gradient)."""
    from gradviz.graph import Port, catalog
    from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node
    doc = Document(title="argmax on the path")
    doc.add(Node("x", CONSTANT, value=np.array([[1, -2, 3], [.5, 4, -1]], np.float32)))
    doc.add(Node("W", VARIABLE, value=np.array([[.5, -1], [2, .25], [-.5, 1]], np.float32)))
    doc.add(Node("matmul", OP, op="matmul", attrs=dict(catalog.OPS["matmul"].attrs)))
    doc.add(Node("relu", OP, op="nn.relu"))
    doc.add(Node("cut", OP, op=cut, label=cut.rpartition(".")[2],
                 attrs={**catalog.OPS[cut].attrs, **(attrs or {})}))
    doc.add(Node("reduce_sum", OP, op="reduce_sum", attrs=dict(catalog.OPS["reduce_sum"].attrs)))
    doc.connect("x", "matmul")
    doc.connect("W", "matmul", dst_index=1)
    doc.connect("matmul", "relu")
    doc.connect("relu", "cut")
    doc.connect("cut", "reduce_sum")
    doc.targets, doc.sources = [Port("reduce_sum")], [Port("W")]
    return doc
