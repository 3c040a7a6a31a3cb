"""What File ▸ Open says about a malformed file (issue 20 §5, auditor): a truncated file said
'… Unterminated string starting at.' (Python's words, their position cut off), a file whose
nodes were text said 'nodes: nodes has the wrong type (str)' (a Python type, and not what
was expected). Over a set of malformed files: a slip in the JSON is said in words with its
line and column, which are where the slip is; a field of the wrong kind says what it must
be and what the file holds, in JSON's words (text, a number, a list, an object, true or
false, null), never a Python type's name."""
import json
import re

import pytest

from gradviz import graph
from gradviz.graph import DocumentError

from graph_samples import SAMPLES

# a Python type's name: '(str)', 'got int' ('a list' is JSON's word too)
PYTHON_TYPES = re.compile(r"\((?:str|int|float|dict|list|bool|NoneType|tuple)\)"
                          r"|\b(?:str|int|float|dict|bool|NoneType|tuple)\b")


def base():
    return json.loads((SAMPLES / "003_matmul_gradient.json").read_text(encoding="utf-8"))


def message_of(text):
    with pytest.raises(DocumentError) as info:
        graph.loads(text, strict=False)
    return str(info.value)


def line_column(text, at):
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


PRETTY = json.dumps(base(), indent=2)


def _slips():
    """(name, text, index of the slip in text) for JSON that does not parse."""
    lesson = PRETTY.index('"lesson": "') + len('"lesson": ')
    yield "cut inside a string", PRETTY[:lesson + 40], lesson
    cut = PRETTY[:PRETTY.index('"kind"') + 6]
    yield "cut after a key", cut, len(cut)
    at = PRETTY.index('"edges": [') + len('"edges": [')
    yield "a stray comma", PRETTY[:at] + "," + PRETTY[at:], at
    at = PRETTY.index('"format"')
    yield "a key without quotes", PRETTY[:at] + "format" + PRETTY[at + 8:], at
    at = PRETTY.index('"format": ') + len('"format"')
    yield "no colon", PRETTY[:at] + PRETTY[at + 1:], at + 1       # (where its value starts)
    at = PRETTY.index('"gradviz"') + len('"gradviz"')
    text = PRETTY[:at] + PRETTY[at + 1:]
    yield "no comma", text, text.index('"', at)                  # (where the next key starts)
    yield "more after the end", PRETTY + "\n{}", len(PRETTY) + 1
    at = PRETTY.index("1.0", PRETTY.index('"data": ['))
    yield "NaN", PRETTY[:at] + "NaN" + PRETTY[at + 3:], at
    yield "Infinity", PRETTY[:at] + "-Infinity" + PRETTY[at + 3:], at
    yield "a float too large", PRETTY[:at] + "1e999" + PRETTY[at + 3:], at
    at = PRETTY.index('"title": "') + len('"title": "')
    yield "a tab in a string", PRETTY[:at] + "\t" + PRETTY[at:], at
    yield "a bad escape", PRETTY[:at] + "\\q" + PRETTY[at:], at
    yield "a trailing comma", PRETTY.replace('"version": 1\n}', '"version": 1,\n}'), \
        PRETTY.index('"version": 1\n}') + len('"version": 1,\n') + 0


@pytest.mark.parametrize("name, text, at", list(_slips()), ids=[s[0] for s in _slips()])
def test_a_slip_in_the_json_is_said_in_words_with_its_line_and_column(name, text, at):
    message = message_of(text)
    line, column = line_column(text, at)
    assert f"line {line}, column {column}" in message, (name, message, (line, column))
    assert not re.search(r"\bat\.?$", message), message      # no position cut off
    for jargon in ("Expecting", "delimiter", "Unterminated", "Extra data", "Invalid"):
        assert jargon not in message, (name, message)


# (what to spoil, a wrong value) for every field the loader checks the kind of
WRONG_KINDS = [
    (("nodes",), "nodes"), (("edges",), {"from": "a"}), (("targets",), "c"),
    (("sources",), {"a": 1}), (("output_gradients",), []), (("tape",), True),
    (("tape", "stop_recording"), "a"), (("tape", "persistent"), "no"),
    (("tape", "watch_accessed_variables"), 1), (("studies",), []),
    (("studies", "jacobian"), 3), (("training",), []),
    (("nodes", 0), "a"), (("nodes", 2, "op"), 5), (("nodes", 0, "watched"), "yes"),
    (("nodes", 2, "attrs"), []), (("nodes", 0, "weights"), "w"), (("title",), 3),
    (("lesson",), ["a"]), (("nodes", 0, "label"), None), (("edges", 0), "a->c"),
]


@pytest.mark.parametrize("path, wrong", WRONG_KINDS, ids=[".".join(map(str, p)) for p, _ in WRONG_KINDS])
def test_a_field_of_the_wrong_kind_says_what_it_must_be(path, wrong):
    d = base()
    holder = d
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = wrong
    message = message_of(json.dumps(d))
    assert not PYTHON_TYPES.search(message), message
    assert "wrong type" not in message, message
    assert re.search(r"\bmust be\b|\bexpected\b", message), message
    found = {str: "text", int: "a number", bool: "true or false", list: "a list",
             dict: "an object", type(None): "null"}[type(wrong)]
    assert found in message, (found, message)


def test_the_nodes_say_they_must_be_a_list_of_nodes():
    d = base()
    d["nodes"] = "nodes"
    assert message_of(json.dumps(d)) == "nodes: nodes must be a list of nodes, not text"


@pytest.mark.parametrize("root, kind", [("null", "null"), ("0", "a number"), ("-2.5", "a number"),
                                        ('"abc"', "text"), ("[]", "a list"), ("[[1, 2]]", "a list"),
                                        ("true", "true or false")])
def test_a_document_that_is_not_an_object_says_what_it_is(root, kind):
    """A file whose whole content is null or a number crashed (TypeError) once the check for
    too-large numbers began looking inside the JSON before the check that it is an object."""
    assert message_of(root) == f"file: the document must be a JSON object ({{ … }}), not {kind}"
