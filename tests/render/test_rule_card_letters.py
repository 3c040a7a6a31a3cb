"""Every operand letter on a rule card is tied, on the card, to the node it stands for
(issue 20 §1): lesson 34 step 19's card read 'grad_a = grad @ w_qᵀ' for the tokens x and
lesson 13 step 10's 'where a = 1.500' for ∂y/∂xx inside t1.gradient(y, x); only the caption
(in the player's bar, not on the card) said which node a was. The card heads the letter
with its node where it writes it, 'grad_a (tokens x) = grad @ w_qᵀ', 'where a (∂y/∂xx) =',
and is no taller for it: a row of its own ('a is QKᵀ', 2cbdefc) made attention's step 10
card too tall to dock at 1280 x 800 beside the cards it is about."""
import dataclasses
import re
from pathlib import Path

import pytest

from gradviz import story
from gradviz.graph import load
from gradviz.render.formula import FormulaLayout
from gradviz.story.formula_parts import operand_title

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))


def card_text(layout):
    """What the card writes beside its numbers, as the app's canvas draws it: its equation
    line, its words, its operands' headings and the labels of its rule's pictures."""
    out = [" ".join(layout.formula)]
    for part in layout.parts:
        if part[0] == "word":
            out.append(part[1])
        elif part[0] == "array" and len(part) > 3 and part[3] == "operand":
            out.append(operand_title(part))
        elif part[0] == "picture":
            out.append(str(part[2]))
    return " | ".join(out)


def _mentions(text, name):
    return re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def letters(step):
    """[(letter, node)]: the letters the step's rule writes (its grad_<letter> and its right
    side's) for a node of another name."""
    formula = step.formula or ""
    if "=" not in formula:
        return []
    lhs, rhs = formula.split("=", 1)
    own = lhs.strip().removeprefix("grad_")
    return [(name, node) for name, node in (step.operand_nodes or {}).items()
            if node and node != name and (name == own or _mentions(rhs, name))]


def names_of(node, title):
    """How a card may name `node`: whole, or without an ' inside t1.gradient(y, x)' whose
    gradient node the step's title names."""
    names = [node]
    while " inside " in names[-1]:
        inner, parent = names[-1].rsplit(" inside ", 1)
        if parent not in title:
            break
        names.append(inner)
    return names


def tied(text, name, node, title):
    """'a (tokens x)', or 'labels (vertical) =' for the operand labels; not '∂y/∂y (a
    constant) =' for a."""
    return any(f"{name} ({n})" in text or (n.startswith(f"{name} (") and f"{n} =" in text)
               for n in names_of(node, title))


def layouts(path):
    s = story.build(load(path))
    for step in s.steps:
        if step.kind in ("contribution", "cut"):
            yield step, FormulaLayout(step, len(s.steps), heading=False)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_letter_on_a_card_says_its_node(path):
    loose = []
    for step, layout in layouts(path):
        text = card_text(layout)
        for name, node in letters(step):
            if not tied(text, name, node, step.title):
                loose.append((step.index + 1, step.formula, name, node, text))
    assert not loose, loose[:4]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_saying_its_nodes_makes_no_card_taller(path):
    """The same card with no node named for its letters (bare 'a =', 'grad_a = …') is as
    tall, and a little wider at most: the embedding's 'grad_params (embedding table) =
    scatter-add of grad at the indices', 68 px wider, is the most over every sample."""
    for step, layout in layouts(path):
        bare = FormulaLayout(dataclasses.replace(step, operand_nodes={}), 0, heading=False)
        assert layout.height == bare.height, (step.index + 1, step.title, layout.formula)
        assert layout.width - bare.width <= 72, (step.index + 1, step.title, layout.formula)


def test_the_auditors_cards():
    """Lesson 13 step 10 and lesson 34's steps 10 and 19, as the auditor read them."""
    steps = {p.stem: story.build(load(p)).steps for p in SAMPLES
             if p.stem in ("001_higher_order", "nets_6_attention")}
    l13 = steps["001_higher_order"][9]
    text = card_text(FormulaLayout(l13, 23, heading=False))
    assert text.startswith("grad_x = grad · a | where | a (∂y/∂xx) ="), text
    attention = {st.title: st for st in steps["nets_6_attention"] if st.kind == "contribution"}
    q = card_text(FormulaLayout(attention["Q → tokens x"], 21, heading=False))
    assert q.startswith("grad_a (tokens x) = grad @ w_qᵀ | where | w_q ="), q
    s = card_text(FormulaLayout(attention["S → QKᵀ"], 21, heading=False))
    assert s.startswith("grad_a (QKᵀ) = grad · b | where | b (1/√d) ="), s
