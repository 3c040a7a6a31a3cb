"""The deep-learning ops in documents, through every layer: the file format, the shape
plan, evaluation (values and gradients against closed forms), the generated script and
the trace of that script; bad input is a problem on its node, in words."""
import contextlib
import io

import numpy as np
import pytest

import gradviz as gv
from gradviz import graph
from gradviz.graph import CONSTANT, LAYER, OP, VARIABLE, Document, Node, Port
from gradviz.graph.build import build
from gradviz.graph.catalog import full_attrs
from gradviz.graph.codegen import to_python

RNG = np.random.default_rng(7)
LOGITS = RNG.standard_normal((3, 4)).astype(np.float32)
LABELS = np.exp(RNG.standard_normal((3, 4))).astype(np.float32)
LABELS /= LABELS.sum(axis=1, keepdims=True)
CLASSES = np.array([3, 0, 2], np.int64)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _doc(nodes, edges, target, sources):
    doc = Document(title="t")
    for n in nodes:
        doc.add(n)
    for src, dst, slot in edges:
        doc.connect(src, dst, 0, slot)
    doc.targets = [Port(target)]
    doc.sources = [graph.parse_port(s, "test") for s in sources]
    return doc


def xent_doc(labels=LABELS, logits=LOGITS, axis=-1):
    return _doc([Node("y", CONSTANT, value=labels, watched=True),
                 Node("x", CONSTANT, value=logits, watched=True),
                 Node("xent", OP, op="nn.softmax_cross_entropy_with_logits",
                      attrs={} if axis == -1 else {"axis": axis})],
                [("y", "xent", 0), ("x", "xent", 1)], "xent", ["x", "y"])


def sparse_doc(labels=CLASSES, logits=LOGITS):
    return _doc([Node("y", CONSTANT, value=labels),
                 Node("x", CONSTANT, value=logits, watched=True),
                 Node("sparse_xent", OP, op="nn.sparse_softmax_cross_entropy_with_logits")],
                [("y", "sparse_xent", 0), ("x", "sparse_xent", 1)], "sparse_xent", ["x"])


def argmax_doc(op="math.argmax", **attrs):
    """x → argmax → gather of a flattened x at those indices: the gradient reaches x
    through the gather only."""
    return _doc([Node("x", CONSTANT, value=LOGITS, watched=True),
                 Node(op[5:], OP, op=op, attrs=attrs),
                 Node("mul", OP, op="multiply")],
                [("x", op[5:], 0), ("x", "mul", 0), ("x", "mul", 1)], "mul", ["x"])


TABLE = RNG.standard_normal((5, 3)).astype(np.float32)
IDS = np.array([[0, 4], [4, 2]], np.int64)


def lookup_doc(ids=IDS):
    return _doc([Node("table", VARIABLE, value=TABLE),
                 Node("ids", CONSTANT, value=ids),
                 Node("lookup", OP, op="nn.embedding_lookup"),
                 Node("sq", OP, op="square")],
                [("table", "lookup", 0), ("ids", "lookup", 1), ("lookup", "sq", 0)],
                "sq", ["table"])


def dropout_doc(**attrs):
    return _doc([Node("x", CONSTANT, value=LOGITS, watched=True),
                 Node("dropout", OP, op="nn.dropout", attrs=attrs)],
                [("x", "dropout", 0)], "dropout", ["x"])


GAMMA = RNG.standard_normal(4).astype(np.float32)
BETA = RNG.standard_normal(4).astype(np.float32)
WEIGHTS = RNG.standard_normal((3, 4)).astype(np.float32)


def layernorm_doc(**attrs):
    weights = {"gamma": GAMMA, "beta": BETA}
    weights = {k: v for k, v in weights.items()
               if attrs.get({"gamma": "scale", "beta": "center"}[k], True)}
    return _doc([Node("x", CONSTANT, value=LOGITS, watched=True),
                 Node("w", CONSTANT, value=WEIGHTS),
                 Node("ln", LAYER, op="LayerNormalization", attrs=attrs, weights=weights),
                 Node("mul", OP, op="multiply")],
                [("x", "ln", 0), ("ln", "mul", 0), ("w", "mul", 1)], "mul",
                ["x"] + [f"ln:{i + 1}" for i in range(len(weights))])


def embedding_layer_doc():
    return _doc([Node("ids", CONSTANT, value=IDS),
                 Node("emb", LAYER, op="Embedding", attrs={"input_dim": 5, "output_dim": 3},
                      weights={"embeddings": TABLE}),
                 Node("sq", OP, op="square")],
                [("ids", "emb", 0), ("emb", "sq", 0)], "sq", ["emb:1"])


def loss_doc(name, y_true, y_pred=LOGITS, **attrs):
    return _doc([Node("y_true", CONSTANT, value=y_true),
                 Node("y_pred", CONSTANT, value=y_pred, watched=True),
                 Node("loss", OP, op=f"losses.{name}", attrs=attrs)],
                [("y_true", "loss", 0), ("y_pred", "loss", 1)], "loss", ["y_pred"])


CASES = {
    "softmax_xent": xent_doc,
    "softmax_xent_axis_0": lambda: xent_doc(LABELS.T.copy(), LOGITS.T.copy(), axis=0),
    "sparse_softmax_xent": sparse_doc,
    "embedding_lookup": lookup_doc,
    "dropout": lambda: dropout_doc(rate=0.25, seed=3),
    "dropout_noise_shape": lambda: dropout_doc(rate=0.5, seed=-8, noise_shape=[3, 1]),
    "LayerNormalization": layernorm_doc,
    "LayerNormalization_no_scale": lambda: layernorm_doc(scale=False, epsilon=0.01),
    "Embedding": embedding_layer_doc,
    "MeanSquaredError": lambda: loss_doc("MeanSquaredError", LABELS),
    "CategoricalCrossentropy": lambda: loss_doc("CategoricalCrossentropy", LABELS),
    "SparseCategoricalCrossentropy": lambda: loss_doc("SparseCategoricalCrossentropy", CLASSES),
}


@pytest.mark.parametrize("name", CASES)
def test_file_format_round_trip(name):
    doc = CASES[name]()
    text = graph.dumps(doc)
    again = graph.loads(text)
    assert graph.dumps(again) == text
    assert {n.op for n in again.nodes.values()} == {n.op for n in doc.nodes.values()}


@pytest.mark.parametrize("name", CASES)
def test_the_plan_predicts_the_engines_shapes(name):
    built = build(CASES[name]())
    assert built.problems == []
    for port, t in built.tensors.items():
        assert built.plan.shapes[port] == tuple(t.shape), port


def test_softmax_xent_document_gives_the_closed_forms():
    ev = graph.evaluate(xent_doc())
    assert ev.problems == []
    np.testing.assert_allclose(ev.values[Port("xent")],
                               -(LABELS * np.log(softmax(LOGITS))).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(ev.gradients[Port("x")], softmax(LOGITS) - LABELS, atol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("y")], -np.log(softmax(LOGITS)), rtol=1e-5)
    ev0 = graph.evaluate(CASES["softmax_xent_axis_0"]())
    np.testing.assert_allclose(ev0.gradients[Port("x")], (softmax(LOGITS) - LABELS).T,
                               atol=1e-6)


def test_sparse_xent_document_gives_the_closed_forms():
    ev = graph.evaluate(sparse_doc())
    assert ev.problems == []
    np.testing.assert_allclose(ev.gradients[Port("x")], softmax(LOGITS) - np.eye(4)[CLASSES],
                               atol=1e-6)


def test_argmax_node_is_integer_and_passes_no_gradient():
    doc = argmax_doc(axis=1)
    ev = graph.evaluate(doc)
    assert ev.problems == []
    assert ev.values[Port("argmax")].dtype == np.int64
    np.testing.assert_array_equal(ev.values[Port("argmax")], LOGITS.argmax(axis=1))
    doc.targets = [Port("argmax")]
    assert graph.evaluate(doc).gradients[Port("x")] is None
    ev = graph.evaluate(argmax_doc("math.argmin", output_type="int32"))
    assert ev.values[Port("argmin")].dtype == np.int32
    np.testing.assert_array_equal(ev.values[Port("argmin")], LOGITS.argmin(axis=0))


def test_embedding_lookup_document_scatter_adds_into_the_table():
    ev = graph.evaluate(lookup_doc())
    assert ev.problems == []
    np.testing.assert_array_equal(ev.values[Port("lookup")], TABLE[IDS])
    counts = np.bincount(IDS.ravel(), minlength=5)[:, None]
    np.testing.assert_allclose(ev.gradients[Port("table")], 2 * counts * TABLE, rtol=1e-6)


def test_dropout_document_is_the_engines_mask():
    ev = graph.evaluate(CASES["dropout_noise_shape"]())
    expected = gv.nn.dropout(gv.constant(LOGITS), 0.5, noise_shape=[3, 1], seed=-8).numpy()
    np.testing.assert_array_equal(ev.values[Port("dropout")], expected)
    np.testing.assert_array_equal(ev.gradients[Port("x")], (expected != 0) * np.float32(2))
    ev = graph.evaluate(dropout_doc(rate=0.0))
    np.testing.assert_array_equal(ev.values[Port("dropout")], LOGITS)
    assert ev.problems == []


def layer_norm(x, gamma, beta, epsilon=1e-3):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon) * gamma + beta


def test_layer_normalization_document_values_and_weight_gradients():
    ev = graph.evaluate(layernorm_doc())
    assert ev.problems == []
    x64 = LOGITS.astype(np.float64)
    np.testing.assert_allclose(ev.values[Port("ln")], layer_norm(x64, GAMMA, BETA), rtol=1e-5,
                               atol=1e-6)
    x_hat = layer_norm(x64, 1.0, 0.0)
    np.testing.assert_allclose(ev.gradients[Port("ln", 1)], (WEIGHTS * x_hat).sum(0), rtol=1e-5)
    np.testing.assert_allclose(ev.gradients[Port("ln", 2)], WEIGHTS.sum(0), rtol=1e-6)
    ev = graph.evaluate(layernorm_doc(scale=False, epsilon=0.01))
    np.testing.assert_allclose(ev.values[Port("ln")], layer_norm(x64, 1.0, BETA, 0.01),
                               rtol=1e-5, atol=1e-6)


def test_embedding_layer_document_scatter_adds_into_its_table():
    ev = graph.evaluate(embedding_layer_doc())
    assert ev.problems == []
    np.testing.assert_array_equal(ev.values[Port("emb")], TABLE[IDS])
    counts = np.bincount(IDS.ravel(), minlength=5)[:, None]
    np.testing.assert_allclose(ev.gradients[Port("emb", 1)], 2 * counts * TABLE, rtol=1e-6)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
def test_loss_documents_give_kerass_values_and_gradients(reduction):
    p = softmax(LOGITS.astype(np.float64))
    n = len(LOGITS)
    scale = {"sum_over_batch_size": 1 / n, "sum": 1.0, "none": 1.0}[reduction]
    per_example = {
        "MeanSquaredError": (LABELS, ((LOGITS - LABELS) ** 2).mean(-1),
                             2 * (LOGITS - LABELS) / LOGITS.shape[1]),
        "CategoricalCrossentropy": (LABELS, -(LABELS * np.log(p)).sum(-1), p - LABELS),
        "SparseCategoricalCrossentropy": (CLASSES, -np.log(p[range(n), CLASSES]),
                                          p - np.eye(4)[CLASSES]),
    }
    for name, (y_true, values, gradient) in per_example.items():
        ev = graph.evaluate(loss_doc(name, y_true, reduction=reduction))
        assert ev.problems == []
        expected = values if reduction == "none" else values.sum() * scale
        np.testing.assert_allclose(ev.values[Port("loss")], expected, rtol=1e-5)
        np.testing.assert_allclose(ev.gradients[Port("y_pred")], gradient * scale, rtol=1e-5,
                                   atol=1e-6)


def test_loss_nodes_are_written_as_keras_losses():
    code = to_python(loss_doc("SparseCategoricalCrossentropy", CLASSES, reduction="sum"))
    assert "tf.losses.SparseCategoricalCrossentropy(from_logits=True, reduction='sum')" \
        "(y_true, y_pred)" in code
    assert "tf.losses.MeanSquaredError()(y_true, y_pred)" in \
        to_python(loss_doc("MeanSquaredError", LABELS))


def _run(code):
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<generated>", "exec"), namespace)  # our own generated code
    return namespace


@pytest.mark.parametrize("name", CASES)
def test_generated_script_gives_the_same_gradients(name):
    doc = CASES[name]()
    code = to_python(doc)
    namespace = _run(code)
    expected = [graph.evaluate(doc).gradients[p] for p in doc.sources]
    got = [namespace["grad"]] if len(doc.sources) == 1 else list(namespace["grads"])
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e)


def test_generated_script_reads_like_tensorflow():
    assert "tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x, axis=0)" in \
        to_python(CASES["softmax_xent_axis_0"]())
    assert "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)" in \
        to_python(sparse_doc())
    assert "tf.nn.embedding_lookup(table, ids)" in to_python(lookup_doc())
    assert "tf.nn.dropout(x, rate=0.5, noise_shape=[3, 1], seed=-8)" in \
        to_python(CASES["dropout_noise_shape"]())
    code = to_python(argmax_doc("math.argmin", axis=1, output_type="int32"))
    assert "tf.math.argmin(x, axis=1, output_type=tf.int32)" in code
    _run(code)


@pytest.mark.parametrize("name", CASES)
def test_trace_of_the_script_gives_back_the_document(name, tmp_path):
    doc = CASES[name]()
    script = tmp_path / "s.py"
    script.write_text(to_python(doc), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        again = graph.trace_script(script)
    ops = {n.op: full_attrs(n) for n in doc.nodes.values() if n.kind in (OP, LAYER)}
    traced = {n.op: full_attrs(n) for n in again.nodes.values() if n.kind in (OP, LAYER)}
    for node in doc.nodes.values():
        if node.kind == LAYER:
            assert again.nodes[node.id].kind == LAYER
            for w, value in node.weights.items():
                np.testing.assert_array_equal(again.nodes[node.id].weights[w], value)
    for op, attrs in ops.items():
        if op == "nn.softmax_cross_entropy_with_logits":
            attrs = {"axis": -1}  # another axis is traced as transposes around the op
        assert traced[op] == attrs
    before, after = graph.evaluate(doc), graph.evaluate(again)
    assert after.problems == []
    for p, q in zip(doc.sources, again.sources):
        np.testing.assert_allclose(after.gradients[q], before.gradients[p], rtol=1e-6)


def test_trace_keeps_labels_and_logits_in_their_ports(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import gradviz as tf\n"
        "logits = tf.constant([[1.0, 2.0, 0.5]])\n"
        "labels = tf.constant([[0.2, 0.3, 0.5]])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(logits)\n"
        "    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)\n"
        "grad = tape.gradient(loss, logits)\n", encoding="utf-8")
    doc = graph.trace_script(script)
    edges = {(e.src.node, e.dst.index) for e in doc.edges if e.dst.node == "loss"}
    assert edges == {("labels", 0), ("logits", 1)}
    assert doc.nodes["loss"].op == "nn.softmax_cross_entropy_with_logits"


@pytest.mark.parametrize("ids, op", [(IDS, "nn.embedding_lookup"),
                                     (np.array(4, np.int64), "nn.embedding_lookup"),
                                     (np.array([4, 1], np.int64), "gather")],
                         ids=["matrix", "scalar", "list"])
def test_a_lookup_in_a_constant_table_is_traced_with_its_shape(ids, op, tmp_path):
    """A constant table records GatherV2, as in TF: a list of ids becomes a 'gather' node,
    other ids an embedding lookup (a 'gather' node's flat list would lose their shape)."""
    doc = lookup_doc(ids)
    doc.nodes["table"] = Node("table", CONSTANT, value=TABLE, watched=True)
    script = tmp_path / "s.py"
    script.write_text(to_python(doc), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        again = graph.trace_script(script)
    assert again.nodes["lookup"].op == op
    before, after = graph.evaluate(doc), graph.evaluate(again)
    assert after.problems == []
    np.testing.assert_array_equal(after.values[Port("sq")], before.values[Port("sq")])
    np.testing.assert_allclose(after.gradients[Port("table")], before.gradients[Port("table")])


def test_a_gather_of_a_matrix_of_indices_along_another_axis_is_refused_in_words():
    table = gv.constant(TABLE)
    with gv.GradientTape() as tape:
        tape.watch(table)
        rows = gv.gather(table, [[0, 1]], axis=1)
    with pytest.raises(graph.DocumentError, match="cannot capture a gather along axis 1"):
        graph.from_tape(tape, rows, table)


# -- bad input is a problem on its node --------------------------------------------------

def _with(doc, node_id, value):
    doc.nodes[node_id].value = value
    return doc


def _attrs(doc, node_id, **attrs):
    doc.nodes[node_id].attrs.update(attrs)
    return doc


def _problems(doc):
    return [(p.node, p.message) for p in graph.evaluate(doc).problems if not p.warning]


@pytest.mark.parametrize("doc, node, words", [
    (lambda: xent_doc(labels=LABELS[:, :3].copy()), "xent",
     # each input by its port's word and its node (TF's fixed 'logits', 'labels' named a
     # node of that name beside it, H42r's review of 98aaf15)
     "the input shapes do not broadcast together: labels (y) has shape 3×3, logits (x) "
     "has shape 3×4"),
    (lambda: sparse_doc(labels=np.array([0, 1], np.int64)), "sparse_xent",
     "labels (y) has shape 2, logits (x) has shape 3×4: the shape of labels (y) should "
     "equal the shape of logits (x)"),
    (lambda: sparse_doc(labels=np.array([0, 4, 1], np.int64)), "sparse_xent",
     "Received a label value of 4 which is outside the valid range of [0, 4)"),
    (lambda: sparse_doc(labels=np.array([0.0, 1.0, 1.0], np.float32)), "sparse_xent",
     "integer labels"),
    (lambda: argmax_doc(axis=2), "argmax", "axis 2 is out of range for a tensor of rank 2"),
    (lambda: lookup_doc(np.array([[0, 5]], np.int64)), "lookup",
     "indices[0,1] = 5 is not in [0, 5)"),
    (lambda: lookup_doc(np.array([0.0, 1.0], np.float32)), "lookup", "integer ids"),
    (lambda: dropout_doc(rate=1.0), "dropout", "rate must be at least 0 and less than 1"),
    (lambda: dropout_doc(noise_shape=[3, 2]), "dropout", "noise_shape [3, 2] does not fit"),
    (lambda: dropout_doc(noise_shape=3), "dropout", "noise_shape must be a list of integers or not set"),
    (lambda: _with(embedding_layer_doc(), "ids", np.array([5], np.int64)), "emb",
     "indices[0] = 5 is not in [0, 5)"),
    (lambda: _attrs(embedding_layer_doc(), "emb", input_dim=4), "emb",
     "weight 'embeddings' has shape 5×3, an input of shape 2×2 needs 4×3"),
    (lambda: _attrs(layernorm_doc(), "ln", epsilon=-1.0), "ln", "epsilon must be at least 0"),
    (lambda: _with(layernorm_doc(), "x", np.ones((3, 5), np.float32)), "ln",
     "weight 'gamma' has shape 4, an input of shape 3×5 needs 5"),
    (lambda: loss_doc("CategoricalCrossentropy", LABELS[:, :3].copy()), "loss",
     "y_true and y_pred must have the same shape, got 3×3 and 3×4"),
    (lambda: loss_doc("SparseCategoricalCrossentropy", np.array([0, 9, 1], np.int64)), "loss",
     "Received a label value of 9 which is outside the valid range of [0, 4)"),
    (lambda: loss_doc("MeanSquaredError", LABELS, reduction="mean"), "loss",
     "reduction must be one of sum_over_batch_size, sum, none"),
], ids=["xent-shapes", "sparse-shapes", "sparse-range", "sparse-float", "argmax-axis",
        "lookup-range", "lookup-float", "dropout-rate", "dropout-noise", "dropout-noise-int",
        "embedding-range", "embedding-table", "layernorm-epsilon", "layernorm-width",
        "loss-shapes", "loss-label-range", "loss-reduction"])
def test_bad_input_is_a_problem_on_the_node_in_words(doc, node, words):
    problems = _problems(doc())
    assert any(n == node and words in m for n, m in problems), problems


def test_argmax_output_type_must_be_an_integer_type():
    doc = argmax_doc(output_type="float32")
    with pytest.raises(graph.DocumentError, match="output_type must be one of int32, int64"):
        graph.loads(graph.dumps(doc))


def test_new_ops_are_in_the_engine_under_tfs_names():
    from gradviz.graph.catalog import OPS
    assert OPS["nn.softmax_cross_entropy_with_logits"].engine == "SoftmaxCrossEntropyWithLogits"
    assert OPS["nn.sparse_softmax_cross_entropy_with_logits"].engine == \
        "SparseSoftmaxCrossEntropyWithLogits"
    assert (OPS["math.argmax"].engine, OPS["math.argmin"].engine) == ("ArgMax", "ArgMin")
    for spec in OPS.values():
        if spec.engine:
            gv.engine.registry.get_op(spec.engine)


# -- keras losses are recorded as the ops they run -----------------------------------------

LOSS_SCRIPT = """import gradviz as tf
logits = tf.constant([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])
with tf.GradientTape() as tape:
    tape.watch(logits)
    a = tf.keras.losses.CategoricalCrossentropy(from_logits=True)([[1.0, 0, 0], [0, 1.0, 0]], logits)
    b = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)([0, 1], logits)
    c = tf.keras.losses.MeanSquaredError()([[1.0, 0, 0], [0, 1.0, 0]], logits)
    d = tf.keras.losses.CategoricalCrossentropy()([[1.0, 0, 0], [0, 1.0, 0]], tf.nn.softmax(logits))
    e = tf.reduce_sum(tf.clip_by_value(logits, 0.2, 2.0))
    loss = a + b + c + d + e
grad = tape.gradient(loss, logits)
"""


def test_a_script_with_keras_losses_and_clip_by_value_traces_to_a_working_document(tmp_path):
    """clip_by_value's bounds are inputs of the engine op and attributes of the node: the
    trace used to connect them to ports the node does not have (the file did not load)."""
    script = tmp_path / "losses.py"
    script.write_text(LOSS_SCRIPT, encoding="utf-8")
    namespace = {}
    exec(compile(LOSS_SCRIPT, "<losses>", "exec"), namespace)  # our own test script
    with contextlib.redirect_stdout(io.StringIO()):
        doc = graph.trace_script(script)
    doc = graph.loads(graph.dumps(doc))
    ops = {n.op for n in doc.nodes.values()}
    assert {"losses.CategoricalCrossentropy", "losses.SparseCategoricalCrossentropy",
            "losses.MeanSquaredError", "clip_by_value"} <= ops  # d (from probabilities): its ops
    clips = [n for n in doc.nodes.values() if n.op == "clip_by_value"]
    assert {(n.attrs["clip_value_min"], n.attrs["clip_value_max"]) for n in clips} == \
        {(0.2, 2.0), (1e-7, 0.9999999)}  # float32 bounds as their shortest text
    ev = graph.evaluate(doc)
    assert ev.errors == []
    np.testing.assert_allclose(ev.gradients[doc.sources[0]], namespace["grad"].numpy(),
                               rtol=1e-6)


def test_clip_by_value_with_tensor_bounds_is_refused_in_words():
    x = gv.constant([1.0, 2.0, 3.0])
    with gv.GradientTape() as tape:
        tape.watch(x)
        y = gv.clip_by_value(x, [0.0, 1.0, 2.0], 2.5)
    with pytest.raises(graph.DocumentError, match="clip_by_value node holds one number"):
        graph.from_tape(tape, y, x)
