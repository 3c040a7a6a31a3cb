"""Words a reader meets: no JSON jargon in op descriptions and attribute messages, a cut-short
file said to be cut short (walk-through: 'all axes when null'; a truncated file gave only
'line 50 column 16: malformed JSON: Expecting ':' delimiter')."""
import json
import re

import pytest

from gradviz import graph
from gradviz.graph import DocumentError, catalog

from graph_samples import SAMPLES

FILE_NULL = "(null in a file)"


def test_op_descriptions_and_attribute_messages_say_not_set_not_null():
    docs = [spec.doc for spec in catalog.OPS.values()]
    assert "Σ x over axis (all axes when not set)" in docs   # reduce_sum
    assert not [d for d in docs if re.search(r"\bnull\b", d)], docs
    node = graph.Node("r", "op", op="reduce_sum")
    message = catalog.attribute_problem(node, "axis", "rows")
    assert "expected an integer, a list of integers, or not set (null in a file)" in message
    node = graph.Node("d", "op", op="nn.dropout")
    message = catalog.attribute_problem(node, "noise_shape", 3)
    assert re.sub(re.escape(FILE_NULL), "", message).count("null") == 0, message


def _load_error(text):
    with pytest.raises(DocumentError) as info:
        graph.loads(text)
    return str(info.value)


def test_a_file_cut_short_is_said_to_be_cut_short_with_where_it_ends():
    text = (SAMPLES / "003_matmul_gradient.json").read_text(encoding="utf-8")
    cut = text[:text.rindex('"kind"') + 6]        # ends inside a node
    line = cut.count("\n") + 1
    column = len(cut) - (cut.rfind("\n") + 1) + 1
    message = _load_error(cut)
    assert message.startswith(f"the file seems cut short: it is not valid JSON at line {line}, "
                              f"column {column} (its end): "), message
    assert message.endswith("a ':' is expected there, between a key and its value")
    broken = text.replace('"edges": [', '"edges": [,', 1)   # a slip near the top
    at = broken.index("[,") + 1
    message = _load_error(broken)
    line = broken.count("\n", 0, at) + 1
    assert message.startswith(f"the file is not valid JSON at line {line}, column "), message
    assert "cut short" not in message
    assert _load_error("").startswith("the file is empty")
