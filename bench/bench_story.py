"""Benchmark: the story of a 100-node document (target: <= 50 ms, median).

Builds a generated document (constants, variables, matmul/add/tanh/relu/multiply
chains with some fan-in) and times `story.build(doc)`; when graph/evaluate.py is not
available it times `story.from_tape` over the same computation written with the engine.
Run: .venv/bin/python bench/bench_story.py
"""
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gradviz as tf  # noqa: E402
from gradviz import story  # noqa: E402
from gradviz.graph import catalog  # noqa: E402
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port  # noqa: E402

TARGET_MS = 50.0
UNARY = ("tanh", "nn.relu", "sin")


def op(node_id, name):
    return Node(node_id, OP, op=name, attrs=dict(catalog.OPS[name].attrs))


def generated_document(n_nodes=100, seed=0):
    """x (watched) and a few weight variables feeding a chain of ops with fan-in."""
    rng = np.random.default_rng(seed)
    doc = Document(title=f"generated {n_nodes}-node document")
    doc.add(Node("x", CONSTANT, value=rng.normal(size=(4, 4)).astype("float32"), watched=True))
    weights = [f"w{i}" for i in range(4)]
    for w in weights:
        doc.add(Node(w, VARIABLE, value=rng.normal(size=(4, 4)).astype("float32") * 0.5))
    previous, older = "x", "x"
    while len(doc.nodes) < n_nodes - 1:
        i = len(doc.nodes)
        nid = f"n{i}"
        kind = i % 4
        if kind == 0:
            doc.add(op(nid, "matmul"))
            doc.connect(previous, nid, dst_index=0)
            doc.connect(weights[(i // 4) % len(weights)], nid, dst_index=1)
        elif kind == 2:
            doc.add(op(nid, "add"))
            doc.connect(previous, nid, dst_index=0)
            doc.connect(older, nid, dst_index=1)  # fan-in on `older`
        else:
            doc.add(op(nid, UNARY[i % len(UNARY)]))
            doc.connect(previous, nid)
        older, previous = previous, nid
    doc.add(op("loss", "reduce_sum"))
    doc.connect(previous, "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port("x")] + [Port(w) for w in weights]
    return doc


def tape_equivalent(doc):
    """The same computation run directly on a tape (for when graph.evaluate is missing)."""
    fns = {"matmul": tf.matmul, "add": tf.add, "tanh": tf.tanh, "nn.relu": tf.nn.relu,
           "sin": tf.sin, "reduce_sum": tf.reduce_sum}
    values = {}
    with tf.GradientTape() as tape:
        for nid, node in doc.nodes.items():
            if node.kind == CONSTANT:
                values[nid] = tf.constant(node.value)
                tape.watch(values[nid])
            elif node.kind == VARIABLE:
                values[nid] = tf.Variable(node.value)
            else:
                args = [values[e.src.node] for e in doc.inputs_of(nid)]
                values[nid] = fns[node.op](*args)
    return tape, values


def time_ms(fn, repeat=30):
    fn()  # warm up (numba, imports)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    doc = generated_document()
    try:
        from gradviz.graph import evaluate  # noqa: F401
        how = "story.build(doc)"
        run = lambda: story.build(doc)  # noqa: E731
    except ImportError:
        how = "story.from_tape (graph.evaluate not available)"

        def run():
            tape, values = tape_equivalent(doc)
            return story.from_tape(tape, values["loss"],
                                   [values[p.node] for p in doc.sources])
    first = run()
    if getattr(first, "problems", None):
        raise SystemExit(f"the generated document does not evaluate: {first.problems[0].message}")
    steps = len(first.steps)
    ms = time_ms(run)
    verdict = "OK" if ms <= TARGET_MS else "SLOW"
    print(f"{how}: {len(doc.nodes)} nodes, {steps} steps, median {ms:.1f} ms "
          f"(target <= {TARGET_MS:.0f} ms) {verdict}")
    return 0 if ms <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
