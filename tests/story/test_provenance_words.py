"""An entry's provenance writes its operands as the rule card does (issue 20 §1): beside
multiply's card 'grad_upstream = g · b' with 'where b (grad) =', the sum read
'grad upstream[0,0] = 1·grad[0,0]' (grad, the node, in a sum whose own 'grad' is the
gradient) and the Provenance dock listed 'operand b'. Over every op of the catalog and the
normalisation layers, with nodes named after the rules' words and with names that are no
term (spaces): every entry a sum writes is one the card shows, under the card's name, with
the card's value."""
import re

import numpy as np
import pytest
from op_cases import KINDS, inputs, op_doc
from test_reserved_names import RESERVED, tokens

from gradviz import story
from gradviz.graph.operands import UPSTREAM_WORDS, is_number
from gradviz.story.text import explain

ENTRY = re.compile(r"^\(?(.+?)\)?(?:\[([\d,]*)\])?$")   # 'b[0,1]', 'x', '(input 2)[0,1]'


def _names(kind, shift):
    n = len(inputs(kind)[0])
    if shift is None:     # names that are no term: the card keeps its letters and says which node
        return [f"input {i + 1}" for i in range(n)], "the output"
    names = [RESERVED[(shift + i) % len(RESERVED)] for i in range(n + 1)]
    return names[:n], names[n]


def _first_nonzero(step):
    nz = np.flatnonzero(np.asarray(step.cotangent))
    return int(nz[0]) if nz.size else 0


def _rhs_words(formula):
    return tokens(formula.split("=", 1)[-1])


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_a_sum_writes_is_the_cards(kind):
    checked = 0
    for shift in (None, *range(0, len(RESERVED), max(1, len(RESERVED) // 3))):
        names, output = _names(kind, shift)
        s = story.build(op_doc(kind, names, output))
        for step in s.of_kind("contribution"):
            if not step.formula or step.cotangent is None or not np.size(step.cotangent):
                continue
            prov = s.step_provenance(step, _first_nonzero(step), max_terms=4)
            shown = _rhs_words(step.formula)
            where = (kind, names, step.title, step.formula)
            # the sum's word for the upstream is the card's, and no node's name
            labels = {node.label or node.id for node in s.document.nodes.values()}
            assert prov.grad_word not in labels, where
            assert {w for w in UPSTREAM_WORDS if w in shown and w not in labels} <= {prov.grad_word}, where
            for term in prov.terms:
                if term.upstream is None:
                    continue
                up = ENTRY.match(term.label.split("·", 1)[0]).group(1)
                assert re.fullmatch(rf"{re.escape(prov.grad_word)}\d*", up), (where, term.label)
                m = ENTRY.match(term.factor)
                operand = m.group(1) if m else None
                if operand is None or operand == "grad" or operand not in step.operands:
                    # a number, J[..], ∂y/∂x, '1 (max of window ...)': no operand of the card;
                    # never a node's name that the card does not show as this operand
                    assert operand not in step.operand_nodes.values() \
                        or step.operand_nodes.get(operand) == operand, (where, term.factor)
                    continue
                assert operand in shown or is_number(operand), (where, term.factor)
                index = tuple(int(i) for i in m.group(2).split(",")) if m.group(2) else ()
                value = np.asarray(step.operands[operand])
                assert term.local == pytest.approx(float(value[index] if index else value.flat[0]),
                                                   rel=1e-6, abs=1e-12), (where, term.factor)
                checked += 1
    if kind in ("multiply", "matmul", "nn.conv2d"):
        assert checked, kind


def test_a_node_called_grad_is_written_as_the_card_writes_it():
    """The auditor's graph: y = upstream * grad. The card: 'grad_upstream = g · b', where
    b (grad) = its values; the sum says b[0,0], and the card's g."""
    s = story.build(op_doc("multiply", ["upstream", "grad"], "y"))
    first = s.of_kind("contribution")[0]
    assert first.formula == "grad_upstream = g · b" and first.operand_nodes["b"] == "grad"
    prov = s.step_provenance(first, 0)
    assert prov.text() == "grad upstream[0,0] = 1.000·b[0,0] = 1.000"
    assert [t.label for t in prov.terms] == ["g[0,0]·b[0,0]"] and prov.grad_word == "g"
    assert "e.g. grad upstream[0,0] = 1.000·b[0,0] = 1.000" in explain(s, studies=False)


def test_a_sum_s_numbers_read_as_their_cards_write_them():
    """The provenance wrote 0.066 as 6.596×10⁻² and -0.006 as (-6.286×10⁻³) beside cards
    showing 0.066 and -0.006 (issue 20 §5): the more digits a sum needs to check, in its
    card's notation (fixed point), and the printed operands give the printed result."""
    from gradviz.story.local import Provenance, Term
    from gradviz.story.numbers import number_format, printed_value

    card = number_format(None, spec="%.3f")
    upstreams = (np.float32(-0.006286), np.float32(0.06596))
    locals_ = (np.float32(1.304), np.float32(-1.265))
    terms = [Term(float(u), float(x), float(u) * float(x), f"grad[{k},0]·x[{k + 2},0]",
                  factor=f"x[{k + 2},0]", upstream_text=card(u), local_text=card(x))
             for k, (u, x) in enumerate(zip(upstreams, locals_))]
    p = Provenance(value=sum(t.product for t in terms), terms=terms, where="W1[0,0]",
                   kind="contribution", write=card)
    text, numbers = p.text(), p.numbers()
    assert "×10" not in text + numbers, (text, numbers)
    operands, result = numbers.rsplit(" = ", 1)
    printed = [[printed_value(f) for f in term.split("·")] for term in operands.split(" + ")]
    assert printed_value(result) == pytest.approx(sum(a * b for a, b in printed), abs=0.0005)
    assert [round(a, 3) for a, _ in printed] == [round(float(u), 3) for u in upstreams]
