"""No symbol on a rule card names something the canvas shows with another value (issue 20
§1): a node called grad beside multiply's card 'grad_b = grad · a' read as grad · a = [3 10]
where the card meant the upstream [1 1]. Over every op of the catalog and the normalisation
layers, with nodes named after every word the rule texts use (grad, upstream, the port
letters, x, y, a, b, σ, n, mask ...)."""
import re

import numpy as np
import pytest
from op_cases import KINDS, NO_RULE, inputs, op_doc

from gradviz import story
from gradviz.engine import registry
from gradviz.graph import Port, catalog
from gradviz.graph.operands import UPSTREAM_WORDS


def _rule_texts():
    texts = []
    for op in map(registry.get_op, registry.op_types()):
        f = op.formulas
        if callable(f):
            try:
                f = f({})
            except Exception:       # a text that needs its op's attributes
                continue
        texts += [t for t in f or () if t]
    return texts


TOKEN = re.compile(r"(?<![A-Za-z0-9_.'’\u0391-\u03c9])([A-Za-z_][A-Za-z0-9_]*|[\u0391-\u03c9])"
                   r"[\u0300-\u036f]?(?![A-Za-z0-9_\u0391-\u03c9])")
CALLED = re.compile(r"[\u0300-\u036f]?[²³⁻¹ᵀ]*\(")
# The rules' words that say something and name nothing: English, and functions written
# without parentheses ('log x', 'where x = max').
ENGLISH = {"where", "elsewhere", "not", "None", "among", "ties", "split", "have", "no",
           "integer", "selects", "only", "inverse", "indices", "of", "with", "the", "to",
           "at", "over", "sent", "largest", "input", "each", "window", "first", "on", "size",
           "shared", "real", "unpadded", "inputs", "placed", "zeros", "slice", "matching",
           "scatter", "add", "transposed", "convolution", "correlation", "summed", "batch",
           "product", "others", "tiles", "sum", "broadcast", "axes", "padding", "without",
           "gradient", "labels", "log", "max", "min", "shape", "and", "or", "is", "grads",
           "other", "operands", "einsum", "Σ",
           "even", "if", "NaN"}   # a zero guard's words: 0 where grad = 0 even if x is ±∞ or NaN


def tokens(text):
    """Every word and Greek letter of `text` that is not a function it calls."""
    return {m.group(1) for m in TOKEN.finditer(text or "")
            if not CALLED.match(text, m.end(1))}


RESERVED = sorted({w for t in _rule_texts() for w in tokens(t.split("=", 1)[-1])}
                  | set(UPSTREAM_WORDS) | set("abcdxy"))


def shown_symbols(equation):
    """The words of a card's rule a reader could take for a node's name: its equation's (the
    words after it, over what a Σ runs, 'summed over the 3 rows q was broadcast along', are
    prose, as ENGLISH is, where a node may be called 'rows')."""
    lhs, _, rhs = equation.partition("=")
    lhs = lhs.strip()
    found = {w for w in tokens(rhs) if w not in ENGLISH or w in ("labels", "input", "grads")}
    return found | ({lhs[5:]} if lhs.startswith("grad_") else set())


def test_the_reserved_words_are_the_rules():
    assert {"grad", "upstream", "x", "y", "a", "b", "σ", "γ", "n", "mask", "p"} <= set(RESERVED)


@pytest.mark.parametrize("kind", KINDS)
def test_no_card_gives_a_node_name_another_value(kind):
    n = len(inputs(kind)[0])
    checked = 0
    for shift in range(0, len(RESERVED), max(1, len(RESERVED) // 3)):
        names = [RESERVED[(shift + i) % len(RESERVED)] for i in range(n + 1)]
        others = [w for w in RESERVED if w not in names]
        doc = op_doc(kind, names[:n], names[n], others)
        s = story.build(doc)
        titles = {(node.label or node.id): node.id for node in doc.nodes.values()}
        for step in s.of_kind("contribution"):
            if not step.formula:
                continue
            for word in shown_symbols(step.equation):
                if word not in titles:
                    continue
                where = (kind, names, step.title, step.formula, word)
                assert step.operand_nodes.get(word) == word, where
                value = step.operands.get(word)
                shown = s.evaluation.values.get(Port(titles[word]))
                assert value is not None and shown is not None, where
                np.testing.assert_array_equal(np.asarray(value), np.asarray(shown), err_msg=str(where))
            checked += 1
    assert checked or kind in NO_RULE, kind


def test_a_node_called_grad_is_not_the_upstream():
    """The auditor's document: y = grad * a with grad = [1 2], a = [3 5]."""
    s = story.build(op_doc("multiply", ["grad", "a"], "y"))
    first, second = s.of_kind("contribution")
    assert first.formula == "grad_b = upstream · a" and second.formula == "grad_a = upstream · b"
    assert first.operand_nodes == {"b": "grad", "a": "a"}
    assert "Here b is 'grad'." in second.caption
    np.testing.assert_array_equal(first.operands["grad"], [[1, 1], [1, 1]])
