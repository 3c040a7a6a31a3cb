"""Capture a tape as a document; `gradviz run` and `gradviz trace` as functions."""
import json
import textwrap

import numpy as np

import gradviz as gv
from gradviz import graph
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
    assert ops == ["matmul", "getitem"]
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
    assert json.loads(out)["studies"]["higher_order"][1]["value"] == 6.0


def test_run_command_bad_input_is_status_2_and_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "gradviz", "version": 1, "nodes": [{"id": "a"', encoding="utf-8")
    code, message = run_command(str(bad))
    assert code == 2 and "malformed JSON" in message and "\n" not in message
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
