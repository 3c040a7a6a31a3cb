"""Convolution and pooling nodes (nn.conv2d, nn.conv1d, nn.max_pool2d, nn.avg_pool2d) through
every layer of the document: catalog and attribute checks, file format, shape plan,
evaluation, node problems in words, codegen (the script gives the same gradients) and
capture (a traced script gives back the nodes with their attributes)."""
import contextlib
import io

import numpy as np
import pytest

import gradviz as gv
from gradviz import graph
from gradviz.graph import CONSTANT, OP, VARIABLE, Document, Node, Port, catalog
from gradviz.graph.build import build
from gradviz.graph.codegen import to_python
from gradviz.graph.errors import DocumentError

EXPLICIT = [[0, 0], [1, 0], [0, 2], [0, 0]]


def normal(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def conv_net(padding="SAME", explicit=None, strides=(2, 1), channels=2):
    """x -> conv2d(w) -> relu -> max_pool2d -> avg_pool2d -> reduce_sum; sources x and w."""
    doc = Document(title="conv net")
    doc.add(Node("x", CONSTANT, value=normal((2, 6, 5, channels), 1), watched=True))
    doc.add(Node("w", VARIABLE, value=normal((3, 2, 2, 3), 2)))
    attrs = {"strides": list(strides), "padding": padding, "dilations": [1, 1]}
    if explicit is not None:
        attrs["explicit_paddings"] = explicit
    doc.add(Node("conv", OP, op="nn.conv2d", attrs=attrs))
    doc.add(Node("act", OP, op="nn.relu"))
    doc.add(Node("pool", OP, op="nn.max_pool2d", attrs={"ksize": [2, 2], "strides": [1, 1],
                                                        "padding": "SAME"}))
    doc.add(Node("avg", OP, op="nn.avg_pool2d", attrs={"ksize": [2, 3], "strides": [2, 2],
                                                       "padding": "SAME"}))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "conv", dst_index=0)
    doc.connect("w", "conv", dst_index=1)
    for a, b in (("conv", "act"), ("act", "pool"), ("pool", "avg"), ("avg", "loss")):
        doc.connect(a, b)
    doc.targets = [Port("loss")]
    doc.sources = [Port("x"), Port("w")]
    return doc


def engine_gradients(doc):
    x, w = doc.nodes["x"].value, doc.nodes["w"].value
    a = catalog.full_attrs(doc.nodes["conv"])
    padding = a["explicit_paddings"] if a["padding"] == "EXPLICIT" else a["padding"]
    xt, wt = gv.constant(x), gv.Variable(w)
    with gv.GradientTape() as tape:
        tape.watch(xt)
        y = gv.nn.relu(gv.nn.conv2d(xt, wt, a["strides"], padding))
        y = gv.nn.avg_pool2d(gv.nn.max_pool2d(y, 2, 1, "SAME"), [2, 3], 2, "SAME")
        loss = gv.reduce_sum(y)
    return [g.numpy() for g in tape.gradient(loss, [xt, wt])]


def test_the_catalog_knows_the_ops_by_tfs_names():
    for name, engine in (("nn.conv2d", "Conv2D"), ("nn.max_pool2d", "MaxPool"),
                         ("nn.avg_pool2d", "AvgPool")):
        assert catalog.OPS[name].engine == engine and catalog.OPS[name].group == "nn"
    assert catalog.OPS["nn.conv2d"].inputs == ("input", "filters")
    assert catalog.OPS["nn.conv1d"].inputs == ("input", "filters")


@pytest.mark.parametrize("padding, explicit", [("SAME", None), ("VALID", None),
                                               ("EXPLICIT", EXPLICIT)])
def test_evaluation_and_the_plan_agree_with_the_engine(padding, explicit):
    doc = conv_net(padding, explicit)
    built = build(doc)
    assert built.problems == []
    for port, t in built.tensors.items():
        assert built.plan.shapes[port] == tuple(t.shape), port
    ev = graph.evaluate(doc)
    for port, expected in zip(doc.sources, engine_gradients(doc)):
        np.testing.assert_allclose(ev.gradients[port], expected, rtol=1e-6)


def test_file_round_trip_keeps_every_attribute():
    doc = conv_net("EXPLICIT", EXPLICIT)
    doc.add(Node("c1", OP, op="nn.conv1d", attrs={"stride": 2, "padding": "SAME"}))
    text = graph.dumps(doc)
    again = graph.loads(text, strict=False)  # c1 is a draft: its inputs are not connected
    assert graph.dumps(again) == text
    assert catalog.full_attrs(again.nodes["conv"])["explicit_paddings"] == EXPLICIT
    assert catalog.full_attrs(again.nodes["c1"]) == {"stride": 2, "padding": "SAME",
                                                     "dilations": 1}


@pytest.mark.parametrize("op, key, value, words", [
    ("nn.conv2d", "padding", "same", "padding must be one of SAME, VALID, EXPLICIT"),
    ("nn.conv2d", "strides", [1, 2, 3], "strides should be of length 1, 2 or 4 but was 3"),
    ("nn.conv2d", "dilations", [0, 1], "dilations must be positive integers"),
    ("nn.conv2d", "explicit_paddings", [[1, 0], [0, 0], [0, 0], [0, 0]],
     "Nonzero explicit padding in the batch or depth dimensions"),
    ("nn.max_pool2d", "ksize", [2, 2, 2], "ksize should be of length 1, 2 or 4"),
    ("nn.avg_pool2d", "padding", "EXPLICIT", "padding must be one of SAME, VALID"),
    ("nn.conv1d", "stride", 0, "stride must be at least 1"),
])
def test_a_file_with_bad_attributes_is_refused_in_words(op, key, value, words):
    doc = Document()
    doc.add(Node("n", OP, op=op, attrs={key: value}))
    with pytest.raises(DocumentError) as info:
        graph.loads(graph.dumps(doc), strict=False)
    assert words in str(info.value)


@pytest.mark.parametrize("change, words", [
    (lambda d: d.nodes["x"].__setattr__("value", normal((2, 6, 5, 3))),
     # each input by its port's word and its node, not TF's fixed 'input', 'filter' (a port
     # reads 'a' beside a node named input; H42r's review of 98aaf15)
     "input (x) has 3 channels, but the in_channels of filters (w) is 2: they must be equal"),
    (lambda d: d.nodes["x"].__setattr__("value", normal((2, 2, 5, 2))),
     "larger than the padded input (2) along the height"),
    (lambda d: d.nodes["x"].__setattr__("value", normal((6, 5, 2))),
     "input (x) must be of rank 4 [batch, height, width, channels]"),   # x: the node feeding it
    (lambda d: d.nodes["pool"].attrs.update(padding="EXPLICIT",
                                            explicit_paddings=[[0, 0], [2, 0], [0, 0], [0, 0]]),
     "must be smaller than the window (2)"),
])
def test_bad_input_is_a_problem_on_the_node(change, words):
    doc = conv_net("VALID")
    change(doc)
    problems = build(doc).problems
    assert problems, "a problem was expected"
    assert words in problems[0].message
    assert problems[0].node in ("conv", "pool")


def test_the_plan_counts_the_convolutions_multiply_adds():
    built = build(conv_net("VALID", strides=(1, 1)))
    # output 2x4x4x3, each the sum over a 3x2x2 window: 2·4·4·3·3·2·2 multiply-adds
    assert built.plan.multiply_adds["conv"] == 2 * 4 * 4 * 3 * 3 * 2 * 2


def _run(code):
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<generated>", "exec"), namespace)  # our own generated code
    return namespace


def assert_the_script_gives_the_gradients(doc, code):
    namespace = _run(code)
    grads = namespace["grads"] if len(doc.sources) > 1 else [namespace["grad"]]
    ev = graph.evaluate(doc)
    for g, port in zip(grads, doc.sources):
        np.testing.assert_array_equal(g.numpy(), ev.gradients[port])
    return ev


def traced(tmp_path, code):
    script = tmp_path / "script.py"
    script.write_text(code, encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        return graph.trace_script(script)


@pytest.mark.parametrize("padding, explicit", [("SAME", None), ("EXPLICIT", EXPLICIT)])
def test_codegen_writes_tf_calls_that_give_the_same_gradients(padding, explicit):
    doc = conv_net(padding, explicit)
    code = to_python(doc)
    written = repr(EXPLICIT) if explicit else "'SAME'"
    assert f"conv = tf.nn.conv2d(x, w, strides=[2, 1], padding={written})" in code
    assert "pool = tf.nn.max_pool2d(act, ksize=[2, 2], strides=[1, 1], padding='SAME')" in code
    assert "avg = tf.nn.avg_pool2d(pool, ksize=[2, 3], strides=[2, 2], padding='SAME')" in code
    assert_the_script_gives_the_gradients(doc, code)


def test_codegen_of_conv1d_and_dilations():
    doc = Document()
    doc.add(Node("x", CONSTANT, value=normal((1, 7, 2)), watched=True))
    doc.add(Node("w", CONSTANT, value=normal((2, 2, 1), 3)))
    doc.add(Node("c", OP, op="nn.conv1d", attrs={"stride": 1, "padding": "SAME",
                                                 "dilations": 2}))
    doc.connect("x", "c", dst_index=0)
    doc.connect("w", "c", dst_index=1)
    doc.targets, doc.sources = [Port("c")], [Port("x")]
    code = to_python(doc)
    assert "c = tf.nn.conv1d(x, w, stride=1, padding='SAME', dilations=2)" in code
    assert_the_script_gives_the_gradients(doc, code)


def test_codegen_then_trace_gives_back_the_document(tmp_path):
    doc = conv_net("EXPLICIT", EXPLICIT)
    again = traced(tmp_path, to_python(doc))
    assert set(again.nodes) == set(doc.nodes)
    for nid, node in doc.nodes.items():
        assert again.nodes[nid].op == node.op
        assert catalog.full_attrs(again.nodes[nid]) == catalog.full_attrs(node), nid
    ev, ev_again = graph.evaluate(doc), graph.evaluate(again)
    for port in doc.sources:
        np.testing.assert_array_equal(ev_again.gradients[port], ev.gradients[port])


def test_trace_of_a_script_keeps_tfs_argument_forms_as_attributes(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "import numpy as np\n"
        "import gradviz as tf\n"
        "x = tf.constant(np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2))\n"
        "w = tf.Variable(np.ones((2, 2, 2, 1), np.float32))\n"
        "with tf.GradientTape() as tape:\n"
        "    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 1], [0, 1], [0, 0]],\n"
        "                     dilations=2)\n"
        "    m = tf.nn.max_pool2d(y, [1, 2, 1, 1], 1, 'VALID')\n"
        "    loss = tf.reduce_sum(tf.nn.avg_pool2d(m, 2, [2, 2], 'SAME'))\n"
        "g = tape.gradient(loss, w)\n", encoding="utf-8")
    doc = graph.trace_script(script)
    assert catalog.full_attrs(doc.nodes["y"]) == {
        "strides": [2, 2], "padding": "EXPLICIT", "dilations": [2, 2],
        "explicit_paddings": [[0, 0], [1, 1], [0, 1], [0, 0]]}
    assert catalog.full_attrs(doc.nodes["m"])["ksize"] == [2, 1]
    assert doc.nodes["loss"].op == "reduce_sum"
    avg = [n for n in doc.nodes.values() if n.op == "nn.avg_pool2d"]
    assert catalog.full_attrs(avg[0]) == {"ksize": [2, 2], "strides": [2, 2], "padding": "SAME"}
    x = np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2)
    w = gv.Variable(np.ones((2, 2, 2, 1), np.float32))
    with gv.GradientTape() as tape:
        y = gv.nn.conv2d(x, w, 2, [[0, 0], [1, 1], [0, 1], [0, 0]], dilations=2)
        loss = gv.reduce_sum(gv.nn.avg_pool2d(gv.nn.max_pool2d(y, [2, 1], 1, "VALID"), 2, 2,
                                              "SAME"))
    np.testing.assert_array_equal(graph.evaluate(doc).gradients[Port("w")],
                                  tape.gradient(loss, w).numpy())


# -- keras.layers.Conv2D and Flatten nodes ---------------------------------------------------

def layer_net(conv_attrs=None, x_shape=(2, 5, 5, 2)):
    """x -> Conv2D -> Flatten -> Dense -> reduce_sum; sources x and the conv layer's kernel."""
    from gradviz.graph import LAYER
    attrs = {"filters": 3, "kernel_size": [2, 3], "strides": [1, 2], "padding": "same",
             "activation": "relu", **(conv_attrs or {})}
    doc = Document(title="conv layers")
    doc.add(Node("x", CONSTANT, value=normal(x_shape, 1), watched=True))
    spec = catalog.LAYERS["Conv2D"]
    shapes = spec.weight_shapes(catalog.full_attrs(Node("c", LAYER, op="Conv2D", attrs=attrs)),
                                x_shape)
    doc.add(Node("conv", LAYER, op="Conv2D", attrs=attrs,
                 weights={k: normal(s, 2 + i) for i, (k, s) in enumerate(shapes.items())}))
    doc.add(Node("flat", LAYER, op="Flatten"))
    doc.add(Node("dense", LAYER, op="Dense", attrs={"units": 2},
                 weights={"kernel": normal((45, 2), 5), "bias": normal((2,), 6)}))
    doc.add(Node("loss", OP, op="reduce_sum"))
    for a, b in (("x", "conv"), ("conv", "flat"), ("flat", "dense"), ("dense", "loss")):
        doc.connect(a, b)
    doc.targets = [Port("loss")]
    doc.sources = [Port("x"), Port("conv", 1)]
    return doc


def test_conv2d_and_flatten_layers_evaluate_as_keras_layers_would():
    doc = layer_net()
    built = build(doc)
    assert built.problems == []
    assert built.plan.shapes[Port("conv")] == (2, 5, 3, 3)
    assert built.plan.shapes[Port("flat")] == (2, 45)
    ev = graph.evaluate(doc)
    conv = gv.keras.layers.Conv2D(3, (2, 3), strides=(1, 2), padding="same", activation="relu")
    conv.build((2, 5, 5, 2))
    conv.set_weights([doc.nodes["conv"].weights["kernel"], doc.nodes["conv"].weights["bias"]])
    dense = gv.keras.layers.Dense(2)
    dense.build((2, 45))
    dense.kernel.assign(doc.nodes["dense"].weights["kernel"])
    dense.bias.assign(doc.nodes["dense"].weights["bias"])
    x = gv.constant(doc.nodes["x"].value)
    with gv.GradientTape() as tape:
        tape.watch(x)
        loss = gv.reduce_sum(dense(gv.keras.layers.Flatten()(conv(x))))
    gx, gk = tape.gradient(loss, [x, conv.kernel])
    np.testing.assert_allclose(ev.gradients[Port("x")], gx.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("conv", 1)], gk.numpy(), rtol=1e-6)


def test_codegen_of_the_layers_gives_the_same_gradients_and_traces_back(tmp_path):
    doc = layer_net()
    code = to_python(doc)
    assert ("conv_layer = tf.keras.layers.Conv2D(3, [2, 3], strides=[1, 2], padding='same', "
            "activation='relu', name='conv')") in code
    assert "conv_layer.build((None, None, None, 2))" in code
    assert "flat_layer = tf.keras.layers.Flatten(name='flat')" in code
    ev = assert_the_script_gives_the_gradients(doc, code)
    again = traced(tmp_path, code)
    conv = again.nodes["conv"]
    assert (conv.kind, conv.op) == ("layer", "Conv2D")
    assert catalog.full_attrs(conv) == catalog.full_attrs(doc.nodes["conv"])
    # Flatten records one Reshape, as in Keras: a trace sees a reshape node.
    assert again.nodes["flat"].op == "reshape"
    assert catalog.full_attrs(again.nodes["flat"]) == {"shape": [2, 45]}
    ev_again = graph.evaluate(again)
    for port in doc.sources:
        np.testing.assert_array_equal(ev_again.gradients[port], ev.gradients[port])


@pytest.mark.parametrize("change, words", [
    (lambda d: d.nodes["x"].__setattr__("value", normal((2, 5, 2))),
     "Conv2D expects input (x) of rank 4"),     # the layer's input by its port and node
    (lambda d: d.nodes["conv"].attrs.update(strides=[2, 2], dilation_rate=[2, 1]),
     "`strides > 1` not supported in conjunction with `dilation_rate > 1`"),
    (lambda d: d.nodes["conv"].attrs.update(padding="valid", kernel_size=[6, 3]),
     "weight 'kernel' has shape 2×3×2×3"),
])
def test_bad_layer_input_is_a_problem_on_the_node(change, words):
    doc = layer_net()
    change(doc)
    problems = build(doc).problems
    assert problems and words in problems[0].message and problems[0].node == "conv"


def test_a_file_with_bad_layer_attributes_is_refused_in_words():
    from gradviz.graph import LAYER
    doc = Document()
    doc.add(Node("c", LAYER, op="Conv2D", attrs={"kernel_size": [3]}))
    with pytest.raises(DocumentError, match=r"kernel_size must be two positive integers"):
        graph.loads(graph.dumps(doc), strict=False)
    doc.nodes["c"].attrs = {"padding": "SAME"}
    with pytest.raises(DocumentError, match=r"padding must be one of valid, same"):
        graph.loads(graph.dumps(doc), strict=False)
