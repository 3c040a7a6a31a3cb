"""The saved file names nodes by the user's names (issue 20 §2): a teacher who opens the
.gradviz.json in a text editor reads x, W1, W2 where the editor's ids were x1, w2, w5, in
every place the file names a node; an unlabelled node keeps its TF-like id (matmul_1).
Ids in memory stay internal; reading the file back gives the same graph."""
import json
import re

import numpy as np

from gradviz.graph import dumps, load, loads, save
from gradviz.graph.cli_commands import run_command
from gradviz.graph.document import OP, VARIABLE, Document, Node, Port
from gradviz.graph.evaluate import evaluate
from gradviz.graph.names import identifier
from gradviz.graph.ports import ID, ID_LENGTH

from graph_samples import SAMPLES

MLP_IDS = {"x1": "x", "w2": "W1", "matmul3": "matmul3", "relu4": "hidden", "w5": "W2",
           "matmul6": "matmul6", "reduce_sum7": "loss"}


def mlp(labelled_mlp):
    """x @ W1 -> relu (hidden) -> @ W2 -> reduce_sum (loss), with every reference a file
    has: a seed, stop_recording, studies and a training preset."""
    doc = labelled_mlp()
    doc.nodes["relu4"].label = "hidden"
    doc.nodes["reduce_sum7"].label = "loss"
    doc.output_gradients[Port("reduce_sum7")] = np.float32(2.0)
    doc.tape.stop_recording = ["relu4"]
    doc.studies = {"hessian": {"target": "reduce_sum7", "source": "w5", "newton_eps": 0.01},
                   "gradient_check": {"source": "w2", "index": [1, 2], "steps": [0.1]}}
    doc.training = {"optimizer": "sgd", "learning_rate": 0.1, "steps": 3}
    return doc


def test_the_saved_mlp_names_its_nodes_x_w1_w2_everywhere(tmp_path, labelled_mlp):
    doc = mlp(labelled_mlp)
    path = tmp_path / "mlp.gradviz.json"
    save(doc, path)
    text = path.read_text(encoding="utf-8")
    obj = json.loads(text)
    assert [n["id"] for n in obj["nodes"]] == list(MLP_IDS.values())
    for editor_id in ("x1", "w2", "w5", "relu4", "reduce_sum7"):
        assert f'"{editor_id}' not in text, editor_id          # in no reference either
    assert obj["edges"] == [{"from": "x", "to": "matmul3"}, {"from": "W1", "to": "matmul3:1"},
                            {"from": "matmul3", "to": "hidden"}, {"from": "hidden", "to": "matmul6"},
                            {"from": "W2", "to": "matmul6:1"}, {"from": "matmul6", "to": "loss"}]
    assert obj["targets"] == ["loss"] and obj["sources"] == ["W1", "W2"]
    assert list(obj["output_gradients"]) == ["loss"]
    assert obj["tape"]["stop_recording"] == ["hidden"]
    assert obj["studies"] == {"hessian": {"target": "loss", "source": "W2", "newton_eps": 0.01},
                              "gradient_check": {"source": "W1", "index": [1, 2], "steps": [0.1]}}
    assert obj["training"] == doc.training
    back = load(path)                                   # the same graph, under the names
    ev, again = evaluate(doc), evaluate(back)
    assert not ev.problems and not again.problems
    for nid, name in MLP_IDS.items():
        node, read = doc.nodes[nid], back.nodes[name]
        assert (read.kind, read.op, read.label, read.attrs) == (node.kind, node.op, node.label, node.attrs)
        np.testing.assert_array_equal(again.values[Port(name)], ev.values[Port(nid)])
    for nid in ("w2", "w5"):
        np.testing.assert_array_equal(again.gradients[Port(MLP_IDS[nid])], ev.gradients[Port(nid)])
    assert back.tape.stop_recording == ["hidden"] and back.output_gradients[Port("loss")] == 2
    assert dumps(back) == text                          # saving again writes the same bytes
    assert doc.nodes.keys() == MLP_IDS.keys()           # the document in memory keeps its ids


def test_run_and_explain_on_the_saved_file_speak_the_users_names(tmp_path, labelled_mlp):
    doc = mlp(labelled_mlp)
    doc.tape.stop_recording = []
    path = tmp_path / "mlp.gradviz.json"
    save(doc, path)
    status, text = run_command(str(path))
    out = json.loads(text)
    assert status == 0 and set(out["gradients"]) == {"W1", "W2"}
    assert set(out["values"]) == {"x", "W1", "matmul3", "hidden", "W2", "matmul6", "loss"}
    np.testing.assert_allclose(out["gradients"]["W2"]["value"], evaluate(doc).gradients[Port("w5")],
                               rtol=1e-6)
    from gradviz.story import build
    from gradviz.story.text import explain
    told = build(load(path))
    assert sorted(s.port.node for s in told.steps if s.kind == "accumulate") == ["W1", "W2"]
    text = explain(told)
    assert "∂loss/∂W1" in text.replace(" ", "") or "W1" in text
    assert not {"w2", "w5", "x1", "reduce_sum7"} & set(text.replace("[", " ").split())


HARD_LABELS = [("a1", "W"), ("a2", "W"), ("a3", "W_1"), ("W_2", ""), ("a5", "hidden layer"),
               ("a6", "θ"), ("a7", "2nd"), ("a8", "class"), ("a9", "t1.gradient(y, x)"),
               ("a10", "x" * 80), ("a11", "x" * 80), ("a12", "∂L/∂W"), ("a13", "日本"),
               ("a14", "日本"), ("a15", "W"), ("x", "y"), ("y", "x")]


def hard_document():
    """Alike labels, labels that are not identifiers (spaces, Greek, a digit first, a Python
    keyword, an expression, 80 characters, symbols, no ASCII at all), an unlabelled node
    whose id is another's wanted name, and two nodes whose labels are each other's ids."""
    doc = Document()
    for nid, label in HARD_LABELS:
        doc.add(Node(nid, VARIABLE, label=label, value=np.float32(len(doc.nodes))))
    doc.add(Node("s", OP, op="add_n", label="sum"))
    for k, nid in enumerate(list(doc.nodes)[:-1]):
        doc.connect(nid, "s", dst_index=k)
    doc.targets, doc.sources = [Port("s")], [Port("y"), Port("a10"), Port("a11")]
    return doc


def test_labels_that_are_no_identifiers_and_alike_labels_get_unique_valid_ids():
    doc = hard_document()
    obj = json.loads(dumps(doc))
    ids = [n["id"] for n in obj["nodes"]]
    assert ids[:15] == ["W", "W_3", "W_1", "W_2", "hidden_layer", "theta", "n_2nd", "class_",
                        "t1_gradient_y_x", "x" * 57, "x" * 57 + "_1", "dL_dW", "node", "node_1",
                        "W_4"]   # a name wanted as it is (W_1, W_2) is kept; alike ones count on
    assert ids[15:] == ["y", "x", "sum"]           # swapped, as their labels say
    assert len(set(ids)) == len(ids) and all(ID.fullmatch(i) and len(i) <= ID_LENGTH for i in ids)
    assert all(i.isidentifier() for i in ids)
    assert obj["sources"] == ["x", "x" * 57, "x" * 57 + "_1"]    # y is labelled x
    back = loads(json.dumps(obj))                  # strict: a valid document
    assert [n.label for n in back.nodes.values()] == [n.label for n in doc.nodes.values()]
    assert evaluate(back).gradients[Port("x")] == evaluate(doc).gradients[Port("y")] == 1
    assert dumps(back) == dumps(doc)


def stem(name):
    """`name` without the suffix that made it unique (W_2 -> W)."""
    return re.sub(r"_[0-9]+$", "", name)


def test_saving_a_read_file_again_keeps_its_ids():
    """A fixed point: whatever labels and ids, a file read back writes the same ids (so the
    samples, a recovered autosave and a reopened file never change on a save)."""
    rng = np.random.default_rng(7)
    labels = ["W", "W_1", "W_2", "x", "x_1", "", "", "class", "a b", "θ", "1"]
    for _ in range(200):
        doc = Document()
        for k in range(int(rng.integers(1, 9))):
            nid = str(rng.choice(["W", "W_1", "x", "x_1", "n", "W_2"])) + ("" if rng.random() < .5 else f"_{k}")
            if nid not in doc.nodes:
                doc.add(Node(nid, VARIABLE, label=str(rng.choice(labels)), value=np.float32(k)))
        text = dumps(doc)
        assert dumps(loads(text, strict=False)) == text, text
        for node, written in zip(doc.nodes.values(), json.loads(text)["nodes"]):
            assert stem(written["id"]) == stem(identifier(node.label or node.id)), text


def test_the_samples_name_their_nodes_as_their_labels():
    """Every bundled lesson's file writes each node under its label's identifier: what a
    teacher reads in the file is what the canvas shows."""
    for path in sorted(SAMPLES.glob("*.json")):
        for n in json.loads(path.read_text(encoding="utf-8"))["nodes"]:
            if n.get("label"):
                assert n["id"].startswith(identifier(n["label"])), (path.name, n["id"], n["label"])
