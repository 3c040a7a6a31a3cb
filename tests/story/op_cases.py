"""One small document per op of the catalog (and per normalisation layer), its inputs and
output named as a test chooses: the rule cards of every op, in any names."""
import numpy as np
from test_port_names import OPS as SEVERAL_INPUTS

from gradviz.graph import catalog
from gradviz.graph.document import CONSTANT, LAYER, OP, Document, Edge, Node, Port

M = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
IMAGE = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
BATCH = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-1.0, 2.5, 1.0]], np.float32)
SPECIAL = {
    "nn.max_pool2d": ([IMAGE], {}), "nn.avg_pool2d": ([IMAGE], {}),
    "nn.conv1d": ([np.ones((1, 4, 1), np.float32), np.ones((2, 1, 1), np.float32)], {}),
    "nn.sparse_softmax_cross_entropy_with_logits": ([np.array([1, 0], np.int32), M], {}),
    "losses.SparseCategoricalCrossentropy": ([np.array([1, 0], np.int32), M], {}),
    "gather": ([M], {"indices": [1, 0]}),
    "broadcast_to": ([M], {"shape": [3, 2, 2]}), "tile": ([M], {"multiples": [2, 1]}),
    "pad": ([M], {"paddings": [[1, 0], [0, 1]]}), "slice": ([M], {"begin": [0, 1], "size": [2, 1]}),
}
# ops whose rule no card shows: a cast of float32 to float32 records nothing; argmax has no
# gradient; stop_gradient cuts; a gradient node's inner pass differentiates, its own card shows no rule
NO_RULE = {"cast", "math.argmax", "math.argmin", "stop_gradient", "gradient"}
LAYERS = {"BatchNormalization": {"training": True}, "LayerNormalization": {}}
KINDS = [*catalog.OPS, *LAYERS]


def inputs(kind):
    """(input values, attrs) of a small valid call of `kind`."""
    if kind in SPECIAL:
        return SPECIAL[kind]
    if kind in SEVERAL_INPUTS:
        return SEVERAL_INPUTS[kind]
    if kind in LAYERS:
        return [BATCH], LAYERS[kind]
    return [M + i for i in range(max(1, len(catalog.OPS[kind].inputs)))], {}


def op_doc(kind, names, output="out", others=()):
    """output = kind(inputs named `names`), beside constants named `others` (100, 101, ...)
    that feed nothing but show their values on the canvas."""
    values, attrs = inputs(kind)
    doc = Document(title=kind)
    for i, v in enumerate(values):
        doc.nodes[f"n{i}"] = Node(f"n{i}", CONSTANT, value=v, watched=True, label=names[i])
    if kind in LAYERS:     # γ and β not 1 and 0, so that the rule's γ reads as a value
        n = values[0].shape[-1]
        weights = {"gamma": np.linspace(0.5, 2.0, n).astype(np.float32),
                   "beta": np.linspace(-1.0, 1.0, n).astype(np.float32)}
        if kind == "BatchNormalization":
            weights.update(moving_mean=np.zeros(n, np.float32), moving_variance=np.ones(n, np.float32))
        doc.nodes["out"] = Node("out", LAYER, op=kind, attrs=dict(attrs), label=output, weights=weights)
    else:
        doc.nodes["out"] = Node("out", OP, op=kind, attrs={**catalog.OPS[kind].attrs, **attrs},
                                label=output)
    for k, name in enumerate(others):
        doc.nodes[f"other{k}"] = Node(f"other{k}", CONSTANT, value=np.float32(100 + k), label=name)
    doc.edges = [Edge(Port(f"n{i}"), Port("out", i)) for i in range(len(values))]
    doc.targets = [Port("out")]
    doc.sources = [Port(f"n{i}") for i, v in enumerate(values) if v.dtype.kind == "f"]
    if kind in LAYERS:
        doc.sources += [Port("out", 1), Port("out", 2)]
    return doc
