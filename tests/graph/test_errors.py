"""Each class of bad input is a DocumentError naming the place; nothing runs from a file."""
import json

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import DocumentError
from gradviz.graph.document import Port
from gradviz.graph.structure import structure_problems

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
    assert message.startswith("the file is not valid JSON at line 2, column 15: ")


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
    assert e.node == "c" and "input 2 (b) is not connected" in message
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
    # the file's c:5 is named as the file writes it: 'no input 6' read as an off-by-one
    assert "has 2 inputs, ports c:0 and c:1 (a file counts them from 0); there is no port c:5" \
        in error_of(d)[1]
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
                       "attrs": {"shape": [10000, 10000, 2, 2]}})
    d["edges"].append({"from": "a", "to": "big"})
    e, message = error_of(d)
    assert e.node == "big" and "more than the limit" in message
    # [2, 2] cannot become [..., 10]: that is said first, whatever the size
    d["nodes"][-1]["attrs"]["shape"] = [10000, 10000, 10]
    e, message = error_of(d)
    assert e.node == "big" and "cannot broadcast shape 2×2 to 10000×10000×10" in message


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


# -- text, numbers, ports and attributes that would break something later ----------------
def test_text_that_cannot_be_written_everywhere_is_refused_on_load():
    d = base()
    d["title"] = "\ud800 title"
    assert error_of(d)[1] == ("title: the title holds an unpaired surrogate '\\ud800' at "
                              "character 0, which is not valid Unicode text")
    d = base()
    d["nodes"][0]["label"] = "a\u0000b"
    assert error_of(d)[1] == "node 'a': the label holds the control character '\\x00' at character 1"
    d = base()
    d["nodes"][0]["label"] = "x" * 20000
    assert error_of(d)[1] == "node 'a': the label has 20000 characters; at most 80 are allowed"
    d = base()
    d["title"] = "t" * 201
    assert error_of(d)[1] == "title: the title has 201 characters; at most 200 are allowed"
    d = base()
    d["lesson"] = "one\n\ttwo ünïcödé ✓"
    assert graph.loads(json.dumps(d)).lesson == "one\n\ttwo ünïcödé ✓"
    d["lesson"] = "bell\a"
    assert error_of(d)[1] == ("lesson: the lesson holds the control character '\\x07' at "
                              "character 4; only line breaks and tabs are allowed")


def test_numbers_no_field_can_hold_are_refused_in_words():
    d = base()
    d["nodes"][2]["op"] = "clip_by_value"
    d["nodes"][2]["attrs"] = {"clip_value_min": 10 ** 400}
    d["edges"] = [{"from": "a", "to": "c"}]
    assert error_of(d)[1] == ("node 'c': attribute 'clip_value_min': expected a finite "
                              "number, got an integer of 401 digits")
    text = json.dumps(base()).replace('"version": 1', '"version": 1' + "0" * 4400)
    assert error_of(text)[1].endswith("an integer of 4401 digits is too long (at most 4300)")
    assert error_of(text)[1].startswith("line 1, column ")
    text = json.dumps(base()).replace('"data": [1.0', '"data": [1e999', 1)
    assert error_of(text)[1].endswith('the number 1e999 is too large for a float (in tensor '
                                      'data, write "inf" for infinity)')
    for version in (1.0, True, "1"):
        d = base()
        d["version"] = version
        assert "unknown version" in error_of(d)[1]


def test_ports_take_ascii_digits_and_node_names_only():
    for port in ("a:\u0661", "a: 1", "a:-1", "a:1234567", "a:", "\u0000a", "a b"):
        d = base()
        d["edges"][0]["from"] = port
        e, message = error_of(d)
        assert e.where == "edges[0]" and repr(port) in message, message


def test_every_axis_attribute_is_checked_against_the_rank():
    cases = [("nn.softmax", {"axis": 77}, "axis 77 is out of range for a tensor of rank 2 "
              "(valid: -2..1)"),
             ("reduce_sum", {"axis": [0, 0]}, "axis [0, 0] names an axis twice"),
             ("transpose", {"perm": [0, 5]}, "perm entry 5 is out of range for a tensor of rank "
              "2 (valid: -2..1)"),
             ("expand_dims", {"axis": 9}, "axis 9 is out of range for a new axis of a tensor "
              "of rank 2 (valid: -3..2)"),
             ("gather", {"indices": [0, 7]}, "gather along axis 0: indices[1] = 7 is not in "
              "[0, 2)"),
             ("gather", {"indices": [-1]}, "gather along axis 0: indices[0] = -1 is not in "
              "[0, 2)"),
             ("squeeze", {"axis": 0}, "cannot squeeze axis 0 of shape 2×2: its size is not 1"),
             ("slice", {"begin": [0, 1], "size": [1, 5]}, "slice begin [0, 1] size [1, 5] does "
              "not fit shape 2×2")]
    for op, attrs, expected in cases:
        d = base()
        d["nodes"][2]["op"] = op
        d["nodes"][2]["attrs"] = attrs
        d["edges"] = [{"from": "a", "to": "c"}]
        assert error_of(d)[1] == f"node 'c': {expected}", op


def test_attribute_values_out_of_their_range():
    cases = [("op", "split", {"num": 0}, "attribute 'num': num must be from 1 to 1000, got 0"),
             ("custom_gradient", "clip_by_norm", {"clip_norm": -1.0},
              "attribute 'clip_norm': clip_norm must be more than 0.0, got -1.0"),
             ("layer", "Dense", {"units": 0}, "attribute 'units': units must be from 1 to "
              "1000000, got 0"),
             ("layer", "Dense", {"activation": "gelu"}, "attribute 'activation': activation "
              "must be one of linear, relu, elu, sigmoid, tanh, softmax, softplus, got 'gelu'")]
    for kind, op, attrs, expected in cases:
        d = base()
        d["nodes"][2].update(kind=kind, op=op, attrs=attrs)
        d["edges"] = [{"from": "a", "to": "c"}]
        assert error_of(d)[1] == f"node 'c': {expected}", op


def test_a_file_that_is_not_utf8_says_so_once(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00{")
    with pytest.raises(DocumentError) as info:
        graph.load(path)
    assert str(info.value) == "the file is not UTF-8 text"


def test_an_editor_label_problem_is_reported_but_does_not_stop_the_node():
    doc = graph.loads(json.dumps(base()))
    doc.nodes["c"].label = "bad\u0007label"
    ev = graph.evaluate(doc)
    assert [str(p) for p in ev.problems] == [
        "node 'c': the label holds the control character '\\x07' at character 3"]
    assert ev.gradients and all(g is not None for g in ev.gradients.values())


def test_a_broken_edge_names_the_node_by_its_label():
    """The edge keeps the file's reference (ids); the node is named as the canvas names it."""
    d = base()
    node = next(n for n in d["nodes"] if n["id"] == "a")
    node["label"] = "weights A"
    d["edges"][0]["from"] = "a:3"
    e, message = error_of(d)
    assert "node 'weights A' has no output 3" in message and e.edge.startswith("a:3")


def test_problems_count_inputs_from_1_as_the_story_does():
    """Walk-through: "input 0 (a) is not connected" in the inspector while the story said
    "x_sq → x (input 1)". One count on screen, from 1; the file's 'node:1' stays 0-based.
    The story now names the input by its port's label, as the canvas does (issue 20 §2:
    'x_sq → x (input a)'), and a problem says both: 'input 1 (a)'. (It said the catalog's
    'input 1 (x)' here, in the CLI, while the app's problem and the port read a: the graph
    layer now names it by graph.slots, the canvas's letters, for the CLI and the app alike.)"""
    from gradviz.graph.document import Document, Node
    from gradviz.story import build
    doc = Document()
    doc.add(Node("x", "constant", value=np.float32(3.0), watched=True))
    doc.add(Node("x_sq", "op", op="multiply"))
    doc.connect("x", "x_sq", 0, 0)
    doc.connect("x", "x_sq", 0, 1)
    doc.targets, doc.sources = [Port("x_sq")], [Port("x")]
    titles = [s.title for s in build(doc).of_kind("contribution")]
    assert titles == ["x_sq → x (input a)", "x_sq → x (input b)"]
    for missing, said in ((0, "input 1 (a)"), (1, "input 2 (b)")):   # its ports a, b
        doc.edges = [e for e in doc.edges if e.dst.index != missing]
        messages = [p.message for p in structure_problems(doc)]
        assert messages == [f"{said} is not connected"], messages
        doc.connect("x", "x_sq", 0, missing)
