"""The user's names everywhere (issue 20 §2): a node's label is its name in code, JSON keys
and lists; its id is internal. Fresh ids follow TF: matmul, matmul_1."""
import contextlib
import io
import json

import numpy as np
import pytest

from gradviz.graph import save
from gradviz.graph.codegen import to_python
from gradviz.graph.document import CONSTANT, OP, Document, Node, Port
from gradviz.graph.names import identifier, identifiers, port_names

evaluate = __import__("importlib").import_module("gradviz.graph.evaluate").evaluate


def test_the_code_view_names_tensors_by_their_labels(labelled_mlp):
    doc = labelled_mlp()
    code = to_python(doc)
    assert "W1 = tf.Variable(" in code and "name='W1'" in code
    assert "W2 = tf.Variable(" in code and "w2 =" not in code and "w5" not in code
    assert "tape.gradient(reduce_sum7, [W1, W2])" in code
    namespace, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<generated>", "exec"), namespace)  # our own generated code
    np.testing.assert_array_equal(namespace["grads"][0].numpy(),
                                  evaluate(doc).gradients[Port("w2")])
    assert "∂reduce_sum7 / ∂W1" in out.getvalue()


def test_gradviz_run_keys_by_labels(tmp_path, labelled_mlp):
    from gradviz.graph.cli_commands import run_command
    path = tmp_path / "mlp.json"
    save(labelled_mlp(), path)
    status, text = run_command(str(path))
    assert status == 0
    out = json.loads(text)
    assert set(out["gradients"]) == {"W1", "W2"}
    assert {"x", "W1", "W2", "reduce_sum7"} <= set(out["values"])


def test_names_are_unique_valid_identifiers():
    doc = Document()
    for nid, label in [("a1", "x"), ("a2", "x"), ("a3", "y (old)"), ("a4", "class"), ("a5", "2nd")]:
        doc.add(Node(nid, CONSTANT, label=label, value=np.float32(1)))
    names = identifiers(doc, {"tf"})
    assert list(names.values()) == ["x", "x_1", "y_old", "class_", "n_2nd"]
    assert all(n.isidentifier() for n in names.values())
    assert identifier("W1") == "W1"
    shown = port_names(doc, [Port("a1"), Port("a2")])
    assert shown == {Port("a1"): "x", Port("a2"): "x_1"}
    doc = Document()      # a node labelled W_1 keeps W_1: the second W counts on past it
    for nid, label in [("a1", "W"), ("a2", "W"), ("a3", "W_1"), ("a4", "θ"), ("a5", "∂L/∂W")]:
        doc.add(Node(nid, CONSTANT, label=label, value=np.float32(1)))
    assert list(identifiers(doc).values()) == ["W", "W_2", "W_1", "theta", "dL_dW"]


def test_fresh_ids_are_named_like_tensorflow():
    doc = Document()
    ids = []
    for _ in range(3):
        ids.append(doc.new_id("matmul"))
        doc.add(Node(ids[-1], OP, op="matmul"))
    assert ids == ["matmul", "matmul_1", "matmul_2"]
    assert doc.new_id("matmul_1") == "matmul_3"


class _Counting:
    """A view of a set that counts membership probes."""

    probes = 0

    def __init__(self, names):
        self.names = names

    def __contains__(self, item):
        _Counting.probes += 1
        return item in self.names


@pytest.mark.cpu_independent("names and a count of probes")
def test_unique_names_of_many_alike_labels_probe_linearly(monkeypatch):
    """5,000 nodes labelled 'x': probing from x_1 for each took 12.5 million probes (7 s)."""
    from gradviz.graph import names
    real = names.fresh
    monkeypatch.setattr(names, "fresh",
                        lambda stem, taken, *rest: real(stem, _Counting(taken), *rest))
    doc = Document()
    n = 5000
    for i in range(n):
        doc.add(Node(f"n{i}", CONSTANT, label="x" if i % 5 else "x_2", value=np.array(1.0)))
    _Counting.probes = 0
    got = list(names.unique_names(doc).values())
    assert _Counting.probes <= 4 * n
    # the same names as probing from 1 each time: each name wanted as it is kept by the
    # first node that wants it, then the smallest free suffix in document order
    used, expected = set(), []
    for node in doc.nodes.values():
        expected.append(node.label if node.label not in used else None)
        used.add(node.label)
    for k, node in enumerate(doc.nodes.values()):
        if expected[k] is None:
            expected[k] = real(node.label, used)
            used.add(expected[k])
    assert got == expected and len(set(got)) == n
    assert got[:4] == ["x_2", "x", "x_1", "x_3"]      # x_2 is n0's: it wants x_2 as it is
