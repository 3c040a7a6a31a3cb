"""Capture a tape as a document; `gradviz run` and `gradviz trace` as functions."""
import json
import textwrap

import numpy as np
import pytest

import gradviz as gv
from gradviz import graph, story
from gradviz.graph import capture
from gradviz.graph.names import node_name
from gradviz.story.text import explain
from gradviz.graph.cli_commands import run_command, trace_command

from graph_samples import SAMPLES

MAT = [[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
       [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]]
ANOTHER = [[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
           [1.4204658, 1.2609464, -0.43640924]]


def test_from_tape_of_seed_004_evaluates_to_the_same_gradient():
    tf_t = gv.Variable(gv.convert_to_tensor(MAT))
    tf_b = gv.Variable(gv.convert_to_tensor(ANOTHER))
    with gv.GradientTape() as tape:
        tape.watch(tf_t)
        y_tf = gv.matmul(tf_t, tf_b)
        y_t0 = y_tf[0, 0]
    doc = graph.from_tape(tape, y_tf, tf_t)
    expected = tape.gradient(y_tf, tf_t).numpy()
    text = graph.dumps(doc)
    again = graph.loads(text)
    assert graph.dumps(again) == text
    ev = graph.evaluate(again)
    np.testing.assert_array_equal(ev.gradients[again.sources[0]], expected)
    ops = [n.op for n in again.nodes.values() if n.kind == "op"]
    assert ops == ["matmul"]  # y_t0 = y_tf[0, 0] lies on no path to the target y_tf
    single = graph.evaluate(graph.from_tape(tape, y_t0, tf_t))
    assert single.gradients[graph.Port(again.sources[0].node)][0, 0] == np.float32(0.43842274)


def test_port_of_maps_a_layers_internal_ops_to_the_layer():
    doc = graph.load(SAMPLES / "001_dense_jacobian.json")
    ev = graph.evaluate(doc)
    ops = ev.entries["layer"]
    assert [op.type for op in ops] == ["MatMul", "AddV2", "Relu"]
    for op in ops:
        assert ev.node_of_op(op) == "layer"
        assert ev.port_of(op.outputs[0]) == graph.Port("layer", 0)
    assert ev.port_of(ev.tensors[graph.Port("layer", 1)]) == graph.Port("layer", 1)


def test_evaluate_passes_the_observer_to_the_backward_pass():
    seen = []

    class Recorder(gv.Observer):
        def seed(self, target, cotangent, given):
            seen.append(("seed", given))

        def accumulate(self, source, total):
            seen.append(("accumulate", None if total is None else total.numpy().tolist()))

    doc = graph.load(SAMPLES / "002_vjp_output_gradients.json")
    graph.evaluate(doc, observer=Recorder())
    assert seen == [("seed", True), ("accumulate", [4.0, 12.0])]


def test_run_command_prints_values_and_gradients(tmp_path):
    code, out = run_command(str(SAMPLES / "003_stop_gradient_product.json"))
    assert code == 0
    result = json.loads(out)
    assert result["gradients"]["a"]["value"] == [[573.0, 816.0], [1295.0, 1844.0]]
    assert result["values"]["c"]["value"] == [[24.0, 27.0, 30.0], [54.0, 61.0, 68.0]]
    code, out = run_command(str(SAMPLES / "001_higher_order.json"))
    assert json.loads(out)["studies"]["higher_order"][1]["value"] == 9.0   # 6x at x = 1.5


def test_run_command_bad_input_is_status_2_and_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "gradviz", "version": 1, "nodes": [{"id": "a"', encoding="utf-8")
    code, message = run_command(str(bad))
    assert code == 2 and "the file seems cut short" in message and "\n" not in message
    code, message = run_command(str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in message


def test_trace_command_writes_a_document(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import gradviz as tf
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x
        print(g.gradient(y, x, output_gradients=tf.constant([2.0, 3.0])))
    """), encoding="utf-8")
    out = tmp_path / "graph.json"
    code, message = trace_command(str(script), str(out))
    assert code == 0, message
    doc = graph.load(out)
    ev = graph.evaluate(doc)
    np.testing.assert_array_equal(ev.gradients[doc.sources[0]], [4.0, 12.0])


def test_trace_command_reports_scripts_without_gradients(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("x = 1\n", encoding="utf-8")
    code, message = trace_command(str(script), str(tmp_path / "g.json"))
    assert code == 2 and "no tape.gradient" in message
    script.write_text("raise ValueError('boom')\n", encoding="utf-8")
    code, message = trace_command(str(script), str(tmp_path / "g.json"))
    assert code == 2 and "boom" in message and "\n" not in message


def test_trace_keeps_the_last_successful_gradient_call(tmp_path):
    script = tmp_path / "twice.py"
    script.write_text(textwrap.dedent("""
        import gradviz as tf
        x = tf.Variable(3.0)
        with tf.GradientTape() as t:
            y = x * x
        print(t.gradient(y, x))
        print(t.gradient(y, x))  # a non-persistent tape refuses a second call
    """), encoding="utf-8")
    doc = graph.trace_script(script)
    ev = graph.evaluate(doc)
    assert float(ev.gradients[doc.sources[0]]) == 6.0


def test_the_example_in_the_format_doc_loads():
    text = (SAMPLES.parent / "docs" / "file-format.md").read_text(encoding="utf-8")
    doc = graph.loads(text.split("```json")[1].split("```")[0])
    np.testing.assert_array_equal(graph.evaluate(doc).gradients[doc.sources[0]], [4.0, 12.0])


# -- tracing the seed's own scripts ---------------------------------------------------------

def trace(tmp_path, source, name="script.py"):
    script = tmp_path / name
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    return graph.trace_script(script)


def saved(tmp_path, name):
    return np.load(tmp_path / f"{name}.npy")


# TF's guide (Advanced automatic differentiation): clip the gradient, not the value
CLIP_GRADIENTS = """
        import gradviz as tf
        @tf.custom_gradient
        def clip_gradients(y):
          def backward(dy):
            return tf.clip_by_norm(dy, 0.5)
          return y, backward
"""


def test_trace_keeps_the_seeds_custom_gradient_as_its_declarative_rule(tmp_path):
    doc = trace(tmp_path, CLIP_GRADIENTS + """

        v = tf.Variable(2.0)
        with tf.GradientTape() as t:
          output = clip_gradients(v * v)
        print(t.gradient(output, v))  # calls "backward", which clips 4 to 2
    """)
    assert [(n.id, n.kind, n.op) for n in doc.nodes.values()] == [
        ("v", "variable", ""), ("mul", "op", "multiply"),
        ("output", "custom_gradient", "clip_by_norm")]
    assert doc.nodes["output"].attrs == {"clip_norm": 0.5}
    assert doc.nodes["output"].label == ""   # the script's name, output; not the function's
    assert float(graph.evaluate(doc).gradients[graph.Port("v")]) == 2.0


def test_trace_names_nodes_as_the_script_wrote_them(tmp_path):
    """The script's variable names, and a literal as the script wrote it (issue 20 §2): the
    traced custom gradient was named by its function (clip_gradients) beside the script's
    `clipped`, and the literals 2 and 0.1 by internal ids (const_2, const_0_1) on every card."""
    doc = trace(tmp_path, CLIP_GRADIENTS + """

        v = tf.Variable(2.0)
        with tf.GradientTape() as t:
          clipped = clip_gradients(v ** 2)
          scaled = clip_gradients(clipped * 0.1)
          output = scaled - 1e-8
        t.gradient(output, v)
    """)
    names = {node_name(n): n for n in doc.nodes.values()}
    assert set(names) == {"v", "2", "pow", "clipped", "0.1", "mul", "scaled", "1e-08",
                          "output"}
    assert [names[k].kind for k in ("clipped", "scaled")] == ["custom_gradient"] * 2
    assert [float(names[k].value) for k in ("2", "0.1", "1e-08")] == pytest.approx(
        [2, 0.1, 1e-8])
    text = explain(story.build(doc), studies=False)
    assert "grad_v = grad · 2 · v^(2-1)" in text and "grad_clipped = grad · 0.1" in text
    assert "const" not in text and "clip_gradients" not in text


def test_a_literal_reads_as_the_script_wrote_it():
    assert [capture.literal_text(np.float32(x)) for x in (3.0, -0.5, 0.1, 2.5e-5, 1e7, 0.0)] \
        == ["3", "-0.5", "0.1", "2.5e-05", "1e+07", "0"]
    assert capture.literal_text(np.ones(2)) == "" and capture.literal_text(np.int32(4)) == "4"


def test_custom_forward_ops_off_the_path_are_left_out(tmp_path):
    doc = trace(tmp_path, """
        import gradviz as tf
        @tf.custom_gradient
        def triple_grad(y):
          unused = tf.exp(y) * 2.0        # recorded (as TF does) but on no path to the output
          return tf.identity(y), lambda dy: dy * 3.0
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as t:
          out = tf.reduce_sum(triple_grad(x))
        t.gradient(out, x)
    """)
    assert sorted(n.op for n in doc.nodes.values() if n.kind == "op") == ["reduce_sum"]
    (custom,) = [n for n in doc.nodes.values() if n.kind == "custom_gradient"]
    assert custom.op == "scale" and custom.attrs == {"factor": 3.0}
    np.testing.assert_array_equal(graph.evaluate(doc).gradients[doc.sources[0]], [3.0, 3.0])


def test_zero_and_identity_rules_are_recognised(tmp_path):
    for rule, grad in (("zero", "tf.zeros_like(dy)"), ("identity", "dy")):
        doc = trace(tmp_path, f"""
            import gradviz as tf
            @tf.custom_gradient
            def f(y):
              return tf.identity(y), lambda dy: {grad}
            x = tf.Variable([1.0, 2.0, 3.0])
            with tf.GradientTape() as t:
              out = f(x * x)
            t.gradient(out, x)
        """)
        assert [n.op for n in doc.nodes.values() if n.kind == "custom_gradient"] == [rule]


def test_a_custom_gradient_without_a_declarative_rule_is_refused_in_one_line(tmp_path):
    script = tmp_path / "log1pexp.py"
    script.write_text(textwrap.dedent("""
        import gradviz as tf
        @tf.custom_gradient
        def log1pexp(x):
          e = tf.exp(x)
          def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
          return tf.math.log(1 + e), grad
        x = tf.constant(1.0)
        with tf.GradientTape() as t:
          t.watch(x)
          y = log1pexp(x)
        t.gradient(y, x)
    """), encoding="utf-8")
    code, message = trace_command(str(script), str(tmp_path / "out.json"))
    assert code == 2 and "\n" not in message
    assert "the custom gradient log1pexp cannot be saved in a document: its forward is not " \
           "the identity" in message
    assert "clip_by_norm" in message and "scale" in message and "zero" in message
    assert not (tmp_path / "out.json").exists()
    doc_error = None
    try:
        trace(tmp_path, """
            import gradviz as tf
            @tf.custom_gradient
            def weighted(y):
              return tf.identity(y), lambda dy: dy * tf.constant([1.0, 2.0])
            x = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as t:
              out = weighted(x)
            t.gradient(out, x)
        """)
    except graph.DocumentError as e:
        doc_error = str(e)
    assert doc_error and "weighted" in doc_error and "not a multiple of the upstream" in doc_error


def test_trace_keeps_the_stop_recording_region(tmp_path):
    doc = trace(tmp_path, """
        import gradviz as tf
        x = tf.Variable(2.0)
        y = tf.Variable(3.0)

        with tf.GradientTape() as t:
          x_sq = x * x
          with t.stop_recording():
            y_sq = y * y
          z = x_sq + y_sq

        grad = t.gradient(z, {'x': x, 'y': y})
    """)
    assert doc.tape.stop_recording == ["y_sq"]
    assert doc.nodes["y_sq"].kind == "op" and doc.nodes["y"].kind == "variable"
    ev = graph.evaluate(doc)
    assert [float(ev.gradients[p]) if ev.gradients[p] is not None else None
            for p in doc.sources] == [4.0, None]


def test_what_reset_forgot_becomes_a_named_constant(tmp_path):
    doc = trace(tmp_path, """
        import gradviz as tf
        x = tf.Variable(2.0)
        y = tf.Variable(3.0)
        with tf.GradientTape() as t:
          y_sq = y * y
          t.reset()
          z = x * x + y_sq
        grad = t.gradient(z, {'x': x, 'y': y})
    """)
    assert doc.nodes["y_sq"].kind == "constant" and float(doc.nodes["y_sq"].value) == 9.0
    assert doc.tape.stop_recording == []
    ev = graph.evaluate(doc)
    assert float(ev.gradients[graph.Port("x")]) == 4.0 and ev.gradients[graph.Port("y")] is None


def test_nodes_are_named_by_variable_names_script_names_and_ops(tmp_path):
    doc = trace(tmp_path, """
        import gradviz as tf
        w = tf.Variable(1.5, name="weight")
        b = tf.Variable(0.5)
        with tf.GradientTape() as t:
          loss = (w * 3.0 + b) * (w * 3.0)
        t.gradient(loss, [w, b])
    """)
    assert set(doc.nodes) == {"weight", "const_3", "const_3_1", "mul", "mul_1", "b", "add",
                              "loss"}
    assert doc.sources == [graph.Port("weight"), graph.Port("b")]


def test_softmax_keeps_its_axis(tmp_path):
    doc = trace(tmp_path, """
        import numpy as np
        import gradviz as tf
        logits = tf.Variable([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])
        with tf.GradientTape() as tape:
            p = tf.nn.softmax(logits, axis=0)
            q = tf.nn.log_softmax(logits, axis=1)
            loss = tf.reduce_sum(p * tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])) + \\
                tf.reduce_sum(q * q)
        np.save(__file__.replace("script.py", "g.npy"), tape.gradient(loss, logits).numpy())
    """)
    assert (doc.nodes["p"].op, doc.nodes["p"].attrs) == ("nn.softmax", {"axis": 0})
    assert (doc.nodes["q"].op, doc.nodes["q"].attrs) == ("nn.log_softmax", {"axis": -1})
    assert not any(n.op == "transpose" for n in doc.nodes.values())
    np.testing.assert_allclose(graph.evaluate(doc).gradients[graph.Port("logits")],
                               saved(tmp_path, "g"), rtol=1e-6)


def test_trace_of_the_seeds_batchnorm_pitfall_gives_layer_nodes(tmp_path):
    doc = trace(tmp_path, """
        import numpy as np
        import gradviz as tf
        x = tf.random.normal([7, 5])

        layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
        bn = tf.keras.layers.BatchNormalization()
        layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)

        with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
          tape.watch(x)
          y = layer1(x)
          y = bn(y, training=True)
          y = layer2(y)

        j = tape.jacobian(y, x)
        np.save(__file__.replace("script.py", "j.npy"), j.numpy())
        tape.gradient(y, x)
    """)
    assert [(n.id, n.kind, n.op) for n in doc.nodes.values()] == [
        ("x", "constant", ""), ("layer1", "layer", "Dense"),
        ("bn", "layer", "BatchNormalization"), ("layer2", "layer", "Dense")]
    assert doc.nodes["layer1"].attrs == {"units": 8, "activation": "elu", "use_bias": True}
    assert doc.nodes["bn"].attrs["training"] is True
    assert doc.nodes["x"].watched and not doc.tape.watch_accessed_variables
    np.testing.assert_allclose(graph.jacobian(doc), saved(tmp_path, "j"), rtol=1e-5, atol=1e-6)


def test_an_inner_gradient_becomes_a_gradient_node(tmp_path):
    doc = trace(tmp_path, """
        import numpy as np
        import gradviz as tf
        x = tf.random.normal([7, 5])

        layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
        with tf.GradientTape() as t2:
          with tf.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)
            out = tf.reduce_sum(layer(x)**2)
          g1 = t1.gradient(out, x)
          g1_mag = tf.norm(g1)

        dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)
        np.save(__file__.replace("script.py", "k.npy"), dg1_mag[0].numpy())
    """)
    assert (doc.nodes["g1"].op, [e.src.node for e in doc.inputs_of("g1")]) == \
        ("gradient", ["out", "x"])
    assert doc.nodes["layer"].kind == "layer" and not any(
        n.op and "Grad" in n.op for n in doc.nodes.values())
    assert doc.sources == [graph.Port("layer", 1), graph.Port("layer", 2)]
    ev = graph.evaluate(doc)
    np.testing.assert_allclose(ev.gradients[graph.Port("layer", 1)], saved(tmp_path, "k"),
                               rtol=1e-5, atol=1e-6)


def test_higher_order_trace_has_a_gradient_node(tmp_path):
    doc = trace(tmp_path, """
        import gradviz as tf
        x = tf.Variable(1.0)
        with tf.GradientTape() as t2:
          with tf.GradientTape() as t1:
            y = x * x * x
          dy_dx = t1.gradient(y, x)
        d2y_dx2 = t2.gradient(dy_dx, x)
    """)
    assert doc.nodes["dy_dx"].op == "gradient" and doc.targets == [graph.Port("dy_dx")]
    ev = graph.evaluate(doc)
    assert float(ev.values[graph.Port("dy_dx")]) == 3.0
    assert float(ev.gradients[graph.Port("x")]) == 6.0


def test_from_tape_without_a_trace_still_skips_a_custom_forward():
    @gv.custom_gradient
    def halve(y):
        gv.square(y)  # recorded, off the path
        return gv.identity(y), lambda dy: dy * 0.5
    x = gv.Variable([2.0])
    with gv.GradientTape() as tape:
        out = halve(x * x)
    doc = graph.from_tape(tape, out, x)
    assert sorted(n.kind for n in doc.nodes.values()) == ["custom_gradient", "op", "variable"]
    np.testing.assert_array_equal(graph.evaluate(doc).gradients[doc.sources[0]], [2.0])


def test_gather_and_cast_are_captured_with_their_attributes(tmp_path):
    doc = trace(tmp_path, """
        import gradviz as tf
        p = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        with tf.GradientTape() as t:
            g = tf.gather(p, [2, 0], axis=0)
            c = tf.cast(g, tf.float64)
            loss = tf.reduce_sum(c * c)
        t.gradient(loss, p)
    """)
    assert (doc.nodes["g"].op, doc.nodes["g"].attrs) == ("gather", {"indices": [2, 0], "axis": 0})
    assert doc.nodes["c"].attrs == {"dtype": "float64"}
    assert [e.src.node for e in doc.inputs_of("g")] == ["p"]
    np.testing.assert_array_equal(graph.evaluate(doc).gradients[graph.Port("p")],
                                  [[2, 4], [0, 0], [10, 12]])


def test_backward_ops_outside_a_trace_are_refused_with_a_hint():
    x = gv.constant([1.0, -1.0])
    with gv.GradientTape() as outer:
        outer.watch(x)
        with gv.GradientTape() as inner:
            inner.watch(x)
            y = gv.reduce_sum(gv.nn.relu(x))
        g = inner.gradient(y, x)
        z = gv.reduce_sum(g * x)
    try:
        graph.from_tape(outer, z, x)
    except graph.DocumentError as e:
        assert "ReluGrad" in str(e) and "'gradient' node" in str(e)
    else:
        raise AssertionError("a ReluGrad op cannot be held by a document")


def test_trace_keeps_a_stop_recording_region_over_watched_tensors(tmp_path):
    """The region's ops read a watched constant (not a Variable) and one watched inside
    the region; both stay ops of the region, and the gradient skips them."""
    doc = trace(tmp_path, """
        import gradviz as tf
        x = tf.constant([1.0, 2.0])
        u = tf.constant([5.0, 7.0])
        with tf.GradientTape() as tape:
          tape.watch(x)
          y = x * 3.0
          with tape.stop_recording():
            z = x * 2.0
            tape.watch(u)
            v = u * 4.0
          w = y + z + v
        g = tape.gradient(w, x)
    """)
    assert sorted(doc.tape.stop_recording) == ["v", "z"]
    assert doc.nodes["z"].kind == "op" and doc.nodes["v"].kind == "op"
    ev = graph.evaluate(doc)
    np.testing.assert_allclose(ev.gradients[doc.sources[0]], [3.0, 3.0])
