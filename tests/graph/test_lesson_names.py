"""Every name a lesson's title or text writes as a node's is a node of that lesson (issue 20
§2, the user's names everywhere): lesson 18 said "the full Jacobian of y (7, 6)" where the
node is layer2, lesson 2's title "the gradient of y[0, 0]" where the nodes are y_tf, y_t0.

A name is written as a node's where it is indexed, `name[…]` (not an attribute,
layer.kernel[…]), or follows "of" as a code-like name: one with a digit or an underscore,
a single letter (not the article a), or one followed by a shape '(7, 6)' or an index. It is a
node's when it is a node's id or label, or the last word of a label of several words (the
card 'filter w' is w) or a letter the text puts right after a card's name ('the input
image x' names the card input image x); a lesson may also name a value it defines itself
('z = layer1's output', 'the upstream cotangent g'), and the rule card's grad and the studies' J and H are
the app's own names. Math words (log, exp, softmax(…), Σ_j) are neither indexed nor after
"of" in code form, so they are not read as names."""
import re

import pytest

from gradviz.bundled import sample_paths
from gradviz.graph import load

INDEXED = re.compile(r"(?<![\w.'’])([A-Za-z_]\w*)\[")
AFTER_OF = re.compile(r"\bof ([A-Za-z_]\w*)\b")
DEFINED = re.compile(r"(?<![\w.])([A-Za-z_]\w*) = |\bcotangent ([A-Za-z])\b")
APP_NAMES = {"grad", "J", "H"}


def written_as_nodes(text):
    names = {m.group(1) for m in INDEXED.finditer(text)}
    for m in AFTER_OF.finditer(text):
        name, after = m.group(1), text[m.end():m.end() + 4]
        if re.match(r"\s*\(\d|\[", after) or re.search(r"[_\d]", name) \
                or (len(name) == 1 and name not in "aA"):
            names.add(name)
    return names


def known_names(doc, text):
    labels = {n.label for n in doc.nodes.values() if n.label}
    last_words = {label.split()[-1] for label in labels if len(label.split()) > 1}
    defined = {g for m in DEFINED.finditer(text) for g in m.groups() if g}
    defined |= {m.group(1) for label in labels
                for m in re.finditer(rf"\b{re.escape(label)} ([A-Za-z]\w*)\b", text)}
    return set(doc.nodes) | labels | last_words | defined | APP_NAMES


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.stem)
def test_every_name_a_lesson_writes_as_a_node_is_one(path):
    doc = load(path)
    text = f"{doc.title}\n{doc.lesson or ''}"
    assert written_as_nodes(text) <= known_names(doc, text), \
        sorted(written_as_nodes(text) - known_names(doc, text))


def test_the_check_reads_names_not_math_words():
    text = ("softmax's rule p · (grad - Σ_j grad[i,j]·p[i,j]), log(0) = −inf, the sum of "
            "a vector of ones, the Jacobian of layer2 (7, 6), the gradient of y[0, 0]")
    assert written_as_nodes(text) == {"grad", "p", "layer2", "y"}
