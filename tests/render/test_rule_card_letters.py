"""Every operand letter on a rule card is tied, on the card, to the node it stands for
(issue 20 §1): lesson 34 step 19's card read 'grad_a = grad @ w_qᵀ' for the tokens x and
lesson 13 step 10's 'where a = 1.500' for ∂y/∂xx; only the caption said which node a was.
The card now heads the operand 'a (x)' or says 'a is tokens x' on a row of its own."""
from pathlib import Path

import pytest

from gradviz import story
from gradviz.graph import load
from gradviz.render.formula import formula_parts, operand_title
from gradviz.story.operands import mentions, operand_heading

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))


def card_words(parts):
    """What a card writes beside its numbers: its words, operand headings and picture labels."""
    out = []
    for part in parts:
        if part[0] == "word":
            out.append(part[1])
        elif part[0] == "array" and len(part) > 3 and part[3] == "operand":
            out.append(operand_title(part))
        elif part[0] == "picture":
            out.append(str(part[2]))
    return " | ".join(out)


def letters(step):
    """[(letter, node)] the card's equation writes: its grad_<letter> and its rule's letters
    that stand for a node of another name."""
    equation = step.equation or step.formula or ""
    if "=" not in equation:
        return []
    lhs, rhs = equation.split("=", 1)
    own = lhs.strip().removeprefix("grad_")
    return [(name, node) for name, node in (step.operand_nodes or {}).items()
            if node and node != name and (name == own or mentions(rhs, name))]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_letter_on_a_card_says_its_node(path):
    s = story.build(load(path))
    loose = []
    for step in s.of_kind("contribution"):
        words = card_words(formula_parts(step))
        for name, node in letters(step):
            heading = operand_heading(name, node)     # 'a (x)', or the node that says a
            said = (f"{name} ({node})", f"{name} is {node}", *([f"{heading} ="] if heading != name else []))
            if not any(w in words for w in said):
                loose.append((step.index + 1, step.equation, name, node, words))
    assert not loose, loose[:4]


def test_the_auditors_cards():
    steps = {p.stem: story.build(load(p)).steps for p in SAMPLES
             if p.stem in ("001_higher_order", "nets_6_attention")}
    words = card_words(formula_parts(steps["001_higher_order"][9]))
    assert "a is ∂y/∂xx inside t1.gradient(y, x)" in words, words
    attention = next(st for st in steps["nets_6_attention"]
                     if st.kind == "contribution" and st.title == "Q → tokens x")
    assert "a is tokens x" in card_words(formula_parts(attention))
