"""The code view's script: running it gives exactly the gradients graph.evaluate gives."""
import contextlib
import io
import json
import keyword
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz.graph import evaluate, load, save
from gradviz.graph.catalog import full_attrs
from gradviz.graph.cli_commands import run_command
from gradviz.graph.codegen import _RESERVED, to_python
from gradviz.graph.document import Port
from gradviz.graph.names import identifier, identifiers, port_names

SAMPLES = sorted((Path(__file__).parents[2] / "samples").glob("*.json"))


def run(code):
    namespace, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<generated>", "exec"), namespace)  # our own generated code
    return namespace, out.getvalue()


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_script_reproduces_the_gradients(path):
    doc = load(str(path))
    code = to_python(doc)
    assert "import gradviz as tf" in code and "GradientTape" in code
    namespace, printed = run(code)
    expected = [evaluate(doc).gradients[p] for p in doc.sources]
    got = [namespace["grad"]] if len(doc.sources) == 1 else list(namespace["grads"])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if e is None:
            assert g is None
        else:
            np.testing.assert_array_equal(np.asarray(g.numpy()), e)
    assert printed.startswith("∂") and "d(" not in printed   # ∂Σy / ∂x, as the cards write it


def _names_agree(doc, tmp_path):
    """The code view's name for each source is the key `gradviz run` gives its gradient (a
    valid identifier made of it where the key is none: 'tokens x' -> tokens_x), and it holds
    the value `gradviz run` gives under that key."""
    path = tmp_path / "doc.gradviz.json"
    save(doc, path)
    doc = load(str(path))
    status, text = run_command(path)
    assert status == 0, text
    out = json.loads(text)
    namespace, printed = run(to_python(doc))
    refs = re.findall(r"^∂.*? / ∂(.*?) =", printed, re.M)
    keys = port_names(doc, doc.sources)
    assert len(refs) == len(doc.sources) and set(keys.values()) == set(out["gradients"])
    for port, ref in zip(doc.sources, refs):
        key = keys[port]
        if "." not in key and ":" not in key:       # a node's own output, not a layer's kernel
            assert ref == (key if key.isidentifier() and not keyword.iskeyword(key) else identifier(key))
        value = eval(ref, namespace)                 # our own generated expression
        np.testing.assert_allclose(np.asarray(value.numpy(), float), np.asarray(out["values"][key]["value"], float).reshape(out["values"][key]["shape"]),
                                   rtol=1e-6)
    return namespace, refs


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_the_code_names_each_source_as_gradviz_run_keys_it(path, tmp_path):
    _names_agree(load(str(path)), tmp_path)


# The script's own variables, a builtin it never calls, and the layer object of the
# sample's Dense node 'layer1': names a node keeps in the code as everywhere else
SCRIPT_WORDS = ["grad", "grads", "name", "g", "tape", "jacobian", "batch_jacobian", "sum",
                "input", "layer1_layer"]


@pytest.mark.parametrize("sample", ["002_gradient_by_parts", "001_batch_jacobian", "001_clip_gradient"])
@pytest.mark.parametrize("word", SCRIPT_WORDS)
def test_a_node_named_like_the_scripts_own_variables_keeps_its_name(sample, word, tmp_path):
    """Issue 20 §2: a source labelled grad was grad_1 in the code view (the script kept the
    name for its gradient) and grad in `gradviz run`; one named layer1_layer was overwritten
    by the Dense node's layer object."""
    doc = load(str(SAMPLES[0].parent / f"{sample}.json"))
    expected = [evaluate(doc).gradients[p] for p in doc.sources]
    doc.nodes[doc.sources[0].node].label = word
    namespace, refs = _names_agree(doc, tmp_path)
    assert refs[0] == word
    got = re.findall(r"^(\w+) = tape\w*\.gradient\(", to_python(doc), re.M)[-1]
    grads = namespace[got] if len(doc.sources) > 1 else [namespace[got]]
    for g, e in zip(grads, expected):
        np.testing.assert_array_equal(np.asarray(g.numpy()), e)


def test_script_for_the_seed_reads_like_tensorflow():
    code = to_python(load(str(SAMPLES[0].parent / "004_matmul_sum.json")))
    assert "with tf.GradientTape() as tape:" in code
    assert "tape.watch(tf_t)" in code
    assert "y_tf = tf.matmul(tf_t, tf_b)" in code
    assert "grad = tape.gradient(y_tf, tf_t)" in code


def test_stop_recording_and_output_gradients_are_written():
    samples = {p.stem: load(str(p)) for p in SAMPLES}
    assert "with tape.stop_recording():" in to_python(samples["001_stop_recording"])
    assert "output_gradients=" in to_python(samples["002_vjp_output_gradients"])


def test_an_incomplete_graph_still_gives_a_script():
    from gradviz.graph import Document, Node
    doc = Document()
    doc.add(Node("x", "constant", value=np.ones((2,), np.float32)))
    doc.add(Node("m", "op", op="matmul"))
    code = to_python(doc)
    run(code)
    assert "not all inputs are connected" in code


def on_a_path_to_a_target(doc):
    """The nodes a trace keeps (graph.capture: the recorded ops on a path to a target and
    their inputs). A side branch no target reads (a lesson's card beside the loss) is not."""
    keep, todo = set(), [p.node for p in doc.targets]
    while todo:
        n = todo.pop()
        if n not in keep:
            keep.add(n)
            todo += [e.src.node for e in doc.edges if e.dst.node == n]
    return keep


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_codegen_then_trace_gives_back_the_document(path, tmp_path):
    """Every sample's script, traced, is the same graph with the same numbers."""
    from gradviz.graph.tracing import trace_script
    doc = load(str(path))
    script = tmp_path / f"{path.stem}.py"
    script.write_text(to_python(doc), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        again = trace_script(script)
    # The script names every tensor by its node's label (issue 20 §2): the traced ids are
    # those names, so ids map through them.
    name = identifiers(doc, _RESERVED)

    def port(p):
        return Port(name[p.node], p.index)
    kept = on_a_path_to_a_target(doc)
    assert set(again.nodes) == {name[n] for n in kept}
    for nid, node in doc.nodes.items():
        if nid not in kept:
            continue
        other = again.nodes[name[nid]]
        assert (other.kind, other.op) == (node.kind, node.op), nid
        assert other.label in (node.label, "") or other.label == name[nid], nid
        assert full_attrs(other) == full_attrs(node), nid
        assert (other.watched, other.trainable) == (node.watched, node.trainable), nid
    assert {(e.src, e.dst) for e in again.edges} == {(port(e.src), port(e.dst)) for e in doc.edges
                                                     if e.dst.node in kept}
    assert again.targets == [port(p) for p in doc.targets]
    assert again.sources == [port(p) for p in doc.sources]
    assert again.tape.stop_recording == [name[n] for n in doc.tape.stop_recording]
    before, after = evaluate(doc), evaluate(again)
    assert [(p.node, p.severity) for p in after.problems] == \
        [(name[p.node], p.severity) for p in before.problems]     # a NaN lesson's warning
    for p in doc.targets:
        np.testing.assert_array_equal(after.values[port(p)], before.values[p])
    for p in doc.sources:
        if before.gradients[p] is None:
            assert after.gradients[port(p)] is None
        else:
            np.testing.assert_allclose(after.gradients[port(p)], before.gradients[p], rtol=1e-6,
                                       atol=1e-7)
