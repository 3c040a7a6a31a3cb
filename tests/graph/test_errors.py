"""Each class of bad input is a DocumentError naming the place; nothing runs from a file."""
import json

import pytest

from gradviz import graph
from gradviz.graph import DocumentError

from graph_samples import SAMPLES


def base():
    return json.loads((SAMPLES / "003_matmul_gradient.json").read_text(encoding="utf-8"))


def error_of(obj_or_text):
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    with pytest.raises(DocumentError) as info:
        graph.loads(text)
    message = str(info.value)
    assert "\n" not in message
    return info.value, message


def test_malformed_json_names_line_and_column():
    e, message = error_of('{"format": "gradviz",\n "version": 1,,}')
    assert "malformed JSON" in message and "line 2" in message


def test_unknown_version_and_format():
    d = base()
    d["version"] = 99
    assert "unknown version 99" in error_of(d)[1]
    d = base()
    d["format"] = "pickle"
    assert "not a gradviz document" in error_of(d)[1]


def test_unknown_op_kind_and_attribute_name_the_node():
    d = base()
    d["nodes"][2]["op"] = "os.system"
    e, message = error_of(d)
    assert e.node == "c" and "unknown op 'os.system'" in message
    d = base()
    d["nodes"][2]["attrs"]["exec"] = "print(1)"
    e, _ = error_of(d)
    assert e.node == "c" and "unknown attribute" in e.message
    d = base()
    d["nodes"][2]["attrs"]["transpose_a"] = "yes"
    assert error_of(d)[0].node == "c"
    d = base()
    d["nodes"][0]["kind"] = "python"
    assert error_of(d)[0].node == "a"


def test_missing_and_dangling_edges():
    d = base()
    d["edges"] = [e for e in d["edges"] if e["to"] != "c:1"]
    e, message = error_of(d)
    assert e.node == "c" and "input 1 (b) is not connected" in message
    d = base()
    d["edges"].append({"from": "ghost", "to": "c:1"})
    e, message = error_of(d)
    assert "missing node 'ghost'" in message and e.edge == "ghost -> c:1"
    d = base()
    d["edges"][0]["from"] = "a:3"
    e, message = error_of(d)
    assert "has no output 3" in message and e.edge.startswith("a:3")
    d = base()
    d["edges"].append({"from": "a", "to": "c:5"})
    assert "there is no input 5" in error_of(d)[1]
    d = base()
    d["targets"] = ["nowhere"]
    assert "missing node 'nowhere'" in error_of(d)[1]


def test_cycle_names_a_node():
    d = base()
    d["nodes"].append({"id": "d", "kind": "op", "op": "negative"})
    d["edges"] = [{"from": "a", "to": "c"}, {"from": "d", "to": "c:1"}, {"from": "c", "to": "d"}]
    e, message = error_of(d)
    assert "cycle" in message and e.node in ("c", "d")


def test_value_data_not_matching_shape():
    d = base()
    d["nodes"][0]["value"]["shape"] = [3, 2]
    e, message = error_of(d)
    assert "data has 4 values but shape [3, 2] needs 6" in message and "'a'" in message
    d = base()
    d["nodes"][0]["value"]["data"][1] = "__import__('os')"
    assert "is not a float32 value" in error_of(d)[1]
    d = base()
    d["nodes"][0]["value"]["dtype"] = "object"
    assert "unknown dtype" in error_of(d)[1]


def test_declared_shape_too_large_is_refused_before_allocating():
    d = base()
    d["nodes"][0]["value"] = {"dtype": "float64", "shape": [100000, 100000, 100000], "data": []}
    e, message = error_of(d)
    assert "more than the limit" in message and "'a'" in message


def test_op_output_too_large_is_refused_before_allocating():
    d = base()
    d["nodes"].append({"id": "big", "kind": "op", "op": "broadcast_to",
                       "attrs": {"shape": [10000, 10000, 10]}})
    d["edges"].append({"from": "a", "to": "big"})
    e, message = error_of(d)
    assert e.node == "big" and "more than the limit" in message


def test_shape_mismatch_is_reported_on_the_node():
    d = base()
    d["nodes"][1]["value"] = {"dtype": "float32", "shape": [3], "data": [1.0, 2.0, 3.0]}
    e, message = error_of(d)
    assert e.node == "c" and "matmul" in message.lower()


def test_output_gradient_of_wrong_shape():
    d = base()
    d["output_gradients"] = {"c": {"dtype": "float32", "shape": [2], "data": [1.0, 1.0]}}
    e, message = error_of(d)
    assert "output_gradients 'c'" in message and "shape" in message


def test_non_strict_load_keeps_the_document_and_lists_problems():
    d = base()
    d["edges"] = d["edges"][:1]
    doc = graph.loads(json.dumps(d), strict=False)
    problems = graph.validate(doc)
    assert problems and problems[0].node == "c"


def test_layer_weight_shape_mismatch():
    text = (SAMPLES / "000_layer_hessian.json").read_text(encoding="utf-8")
    d = json.loads(text)
    layer = next(n for n in d["nodes"] if n["id"] == "layer")
    layer["weights"]["kernel"] = {"dtype": "float32", "shape": [3, 3], "data": [0.0] * 9}
    e, message = error_of(d)
    assert e.node == "layer" and "kernel" in message


def test_layer_without_weights_loads_as_a_draft_with_a_problem_on_the_node():
    d = json.loads((SAMPLES / "000_layer_hessian.json").read_text(encoding="utf-8"))
    layer = next(n for n in d["nodes"] if n["id"] == "layer")
    del layer["weights"]["kernel"]
    doc = graph.loads(json.dumps(d), strict=False)
    assert set(doc.nodes["layer"].weights) == {"bias"}
    problems = graph.validate(doc)
    assert [(p.node, p.message) for p in problems] == [("layer", "the layer's weight 'kernel' is missing")]
    e, message = error_of(d)
    assert e.node == "layer" and "'kernel' is missing" in message
