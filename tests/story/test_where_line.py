"""Every symbol a rule card uses is defined on the card (issue 20 §1): BatchNorm's card
wrote γ/σ · (... â ...) with a where line of a and γ only. Over every op of the catalog and
both normalisation layers: each name of the rule is an operand shown in the where line, the
upstream (the array labelled so), defined in the rule itself (', p = softmax(u)'), or a
function or word of the rule."""
import re

import numpy as np
import pytest
from op_cases import KINDS, NO_RULE, inputs, op_doc
from test_reserved_names import ENGLISH, tokens

from gradviz import story
from gradviz.story.formula_parts import formula_parts
from gradviz.graph.operands import UPSTREAM_WORDS


def defined_inline(formula):
    """'p' in 'grad_u = grad · (p − t0), p = softmax(u)'; 'ĝ' in '..., ĝ = grad · γ'."""
    return {m.group(1) for m in re.finditer(r",\s*(\S+?)[\u0300-\u036f]?\s*=", formula)}


def undefined(step):
    parts = formula_parts(step)
    where = {p[2] for p in parts if p[0] == "array" and len(p) > 3}
    where |= {p[2].split(" ")[0] for p in parts if p[0] == "picture"}   # 'filters (t1) flipped'

    words = " ".join(p[1] for p in parts if p[0] == "word")
    upstream = any(p[0] == "array" and p[2] == "upstream" for p in parts) \
        or "upstream" in " ".join(str(p[2]) for p in parts if p[0] == "picture")
    rhs = step.equation.split("=", 1)[1]     # (not the words of a sum's axes after it)
    # indices a sum binds ('Σ_j grad[i,j]') or the rule's words ('per row i') define
    bound = set(re.findall(r"Σ_(\w)", step.formula)) | set(re.findall(r"per row (\w)", step.formula))
    missing = set()
    for m in re.finditer(r"(?<![A-Za-z0-9_.'’\u0391-\u03c9])([A-Za-z_][A-Za-z0-9_]*|[\u0391-\u03c9])"
                         r"([\u0300-\u036f]?)", rhs):
        name, accent = m.group(1), m.group(2)
        if name not in tokens(rhs) or name in ENGLISH - {"grads"} or name in bound:
            continue
        symbol = name + accent
        if symbol in where or name in where and not accent or symbol in defined_inline(step.formula) \
                or name in UPSTREAM_WORDS and upstream or f"{symbol} =" in words \
                or f"{name}(" in words:
            continue
        missing.add(symbol)
    return missing


@pytest.mark.parametrize("kind", KINDS)
def test_every_symbol_of_a_card_is_defined_on_it(kind):
    n = len(inputs(kind)[0])
    for names in ([f"t{i}" for i in range(n)], ["x", "y", "a", "b"][:n]):
        s = story.build(op_doc(kind, names))
        shown = 0
        for step in s.of_kind("contribution"):
            if step.formula and step._op is not None and not step.internal:
                assert undefined(step) == set(), (kind, names, step.title, step.formula)
                shown += 1
        assert shown or kind in NO_RULE, kind


def test_batch_norm_card_shows_sigma_and_x_hat():
    from gradviz.story.formula_parts import operand_title
    s = story.build(op_doc("BatchNormalization", ["a"]))
    step = s.of_kind("contribution")[0]
    titles = [operand_title(p) for p in formula_parts(step) if p[0] == "array" and len(p) > 3]
    # x keeps its letter (a hat on 'a' would do, but on a longer name it would not) and
    # says which node it is; x̂ is defined by its formula
    # σ is √(var + ε), not the batch's standard deviation (an auditor checked the printed
    # numbers against numpy's std: they differ in the third digit with ε = 0.001)
    assert titles == ["x (a) =", "γ (out.gamma) =", "σ (√(batch var + ε)) ="], titles
    sigma = next(p for p in formula_parts(step) if p[0] == "array" and len(p) > 3
                 and operand_title(p).startswith("σ"))
    x = np.asarray(step._op._in_values[0])
    eps = step._op.attrs["epsilon"]
    np.testing.assert_allclose(np.ravel(sigma[1]), np.ravel(np.sqrt(x.var(axis=0) + eps)), rtol=1e-5)
    assert ("word", "x̂ = (x − mean) / σ") in formula_parts(step)
