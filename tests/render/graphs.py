"""Documents and duck-typed evaluation/story objects for the render tests (no graph layer needed)."""
from types import SimpleNamespace

import numpy as np

from gradviz.graph.document import Document, Node, Port

T = np.array([[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
              [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]], np.float32)
B = np.array([[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
              [1.4204658, 1.2609464, -0.43640924]], np.float32)


def seed004():
    """t (5x3) @ b (3x3) -> y, the target; gradient on t (seed 004)."""
    doc = Document(title="seed 004: dy/dt of a matmul")
    doc.add(Node("t", "variable", value=T.copy()))
    doc.add(Node("b", "variable", value=B.copy()))
    doc.add(Node("y", "op", op="matmul"))
    doc.connect("t", "y", 0, 0)
    doc.connect("b", "y", 0, 1)
    doc.targets = [Port("y")]
    doc.sources = [Port("t")]
    return doc


def seed004_evaluation():
    y = T @ B
    return SimpleNamespace(values={Port("t"): T, Port("b"): B, Port("y"): y},
                           gradients={Port("t"): np.ones_like(y) @ B.T})


def seed004_story():
    g = np.ones((5, 3), np.float32)
    step = dict(port=None, formula=None, contributions=[], total=None, input_index=None)
    steps = [
        SimpleNamespace(index=0, **{**step, "kind": "seed", "node": "y", "port": Port("y"),
                        "title": "Seed", "caption": "ones like y", "cotangent": g}),
        SimpleNamespace(index=1, **{**step, "kind": "contribution", "node": "y", "port": Port("t"),
                        "title": "matmul → t", "caption": "upstream @ bᵀ", "cotangent": g,
                        "formula": "grad_a = grad @ bᵀ", "contributions": [g @ B.T],
                        "input_index": 0}),
    ]
    return SimpleNamespace(steps=steps)


def mlp(width=4, extra=()):
    """x @ W1 + b1 -> relu -> @ W2 -> loss, with a stop_gradient branch; `extra` adds nodes."""
    doc = Document(title="mlp")
    rng = np.random.default_rng(0)
    doc.add(Node("x", "constant", value=rng.normal(size=(3, width)).astype(np.float32)))
    doc.add(Node("W1", "variable", value=rng.normal(size=(width, 5)).astype(np.float32)))
    doc.add(Node("b1", "variable", value=np.zeros(5, np.float32)))
    doc.add(Node("h", "op", op="matmul"))
    doc.add(Node("z", "op", op="add"))
    doc.add(Node("a", "op", op="nn.relu"))
    doc.add(Node("W2", "variable", value=rng.normal(size=(5, 2)).astype(np.float32)))
    doc.add(Node("o", "op", op="matmul"))
    doc.add(Node("sg", "op", op="stop_gradient"))
    doc.add(Node("m", "op", op="multiply"))
    doc.add(Node("loss", "op", op="reduce_sum"))
    for src, dst, slot in [("x", "h", 0), ("W1", "h", 1), ("h", "z", 0), ("b1", "z", 1),
                           ("z", "a", 0), ("a", "o", 0), ("W2", "o", 1), ("o", "m", 0),
                           ("o", "sg", 0), ("sg", "m", 1), ("m", "loss", 0)]:
        doc.connect(src, dst, 0, slot)
    for node_id, src, slot in extra:
        if node_id not in doc.nodes:
            doc.add(Node(node_id, "op", op="square"))
        doc.connect(src, node_id, 0, slot)
    doc.targets = [Port("loss")]
    doc.sources = [Port("W1"), Port("b1"), Port("W2")]
    return doc


def chain(n, seed=0, branches=4):
    """A generated document of about `n` nodes: `branches` parallel stacks of
    matmul -> relu/tanh blocks (with skip connections) summed into one loss."""
    rng = np.random.default_rng(seed)
    doc = Document(title=f"generated {n}")
    doc.add(Node("x", "constant", value=rng.normal(size=(4, 4)).astype(np.float32)))
    heads = [["x"] for _ in range(branches)]
    budget = n - 1 - 2 * branches   # leave room for the final sums and the loss
    i = 0
    while len(doc.nodes) + 3 <= budget:
        i += 1
        prev = heads[i % branches]
        w = doc.add(Node(f"w{i}", "variable", value=rng.normal(size=(4, 4)).astype(np.float32))).id
        mm = doc.add(Node(f"mm{i}", "op", op="matmul")).id
        doc.connect(prev[-1], mm, 0, 0)
        doc.connect(w, mm, 0, 1)
        act = doc.add(Node(f"r{i}", "op", op="nn.relu" if i % 2 else "tanh")).id
        doc.connect(mm, act, 0, 0)
        if len(prev) > 1 and i % 3 == 0 and len(doc.nodes) < budget:
            add = doc.add(Node(f"s{i}", "op", op="add")).id
            doc.connect(act, add, 0, 0)
            doc.connect(prev[-2], add, 0, 1)
            act = add
        prev.append(act)
    total = heads[0][-1]
    for k in range(1, branches):
        add = doc.add(Node(f"sum{k}", "op", op="add")).id
        doc.connect(total, add, 0, 0)
        doc.connect(heads[k][-1], add, 0, 1)
        total = add
    while len(doc.nodes) < n - 1:
        extra = doc.add(Node(f"t{len(doc.nodes)}", "op", op="tanh")).id
        doc.connect(total, extra)
        total = extra
    loss = doc.add(Node("loss", "op", op="reduce_sum")).id
    doc.connect(total, loss)
    doc.targets = [Port(loss)]
    doc.sources = [Port("w1")]
    return doc


def numpy_values(doc):
    """Forward values by numpy for the few ops the generated documents use (fake evaluation)."""
    fns = {"matmul": np.matmul, "add": np.add, "multiply": np.multiply, "nn.relu": lambda x: np.maximum(x, 0),
           "tanh": np.tanh, "square": np.square, "stop_gradient": lambda x: x,
           "reduce_sum": lambda x: np.sum(x)}
    values = {}

    def value(nid):
        if nid not in values:
            node = doc.nodes[nid]
            if node.value is not None:
                values[nid] = node.value
            else:
                values[nid] = fns[node.op](*[value(e.src.node) for e in doc.inputs_of(nid)])
        return values[nid]

    return {Port(n): value(n) for n in doc.nodes}
