"""Numbers on cards (issue 20 §5): one format per card, chosen from all of its values (a
node's value and gradients, a rule card's upstream, operands and contribution), and never
a negative zero such as "-0.000". Over every sample, every node card and every rule card."""
import re

import numpy as np
import pytest

from gradviz.render import preview
from gradviz.render.formula import FormulaLayout

from samples_util import NAMES, renderer, sample

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:e[-+]\d+)?|nan|inf)(?![\w.])")
MINUS_ZERO = re.compile(r"(?<![\w.])-0(?:\.0+)?(?:e[-+]0+)?(?![\d.])")


def texts(shown):
    """The numbers' text a preview draws."""
    if shown is None:
        return []
    if shown.kind == "scalar":
        return [shown.text]
    if shown.kind == "heatmap":
        return [shown.caption.split()[0].lstrip("±")]
    if shown.kind == "tiles":
        return [cell for r in shown.rows if r is not None for c in shown.cols if c is not None
                for row in shown.number_texts(r, c) for cell in row]
    return [cell for row in shown.table for cell in row if cell not in preview.ELLIPSES]


def signature(number):
    """How a number is written: scientific or fixed, and with how many decimals."""
    if number in ("nan", "inf", "-inf", "T", "F"):
        return None
    mantissa, _, exponent = number.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return ("e" if exponent else "f", decimals)


def check(previews, where):
    check_texts([t for shown in previews for t in texts(shown)], where)


def check_texts(numbers, where):
    assert not [n for n in numbers if MINUS_ZERO.fullmatch(n.strip())], (where, numbers)
    kinds = {signature(n.strip()) for n in numbers} - {None}
    assert len(kinds) <= 1, (where, numbers)


@pytest.mark.parametrize("name", NAMES)
def test_every_card_prints_its_numbers_in_one_format(name):
    r = renderer(name)
    for nid, card in r.cards.items():
        check([s.preview for s in card.sections if s.preview is not None
               and s.array is not None and np.asarray(s.array).dtype.kind != "b"],
              f"{name}: card {nid}")
    steps = r.story.steps if r.story is not None else []
    for step in steps:
        layout = FormulaLayout(step, len(steps))
        shown = [picture for part, _, _, picture in layout._items(layout.fonts)[0]
                 if part[0] in ("array", "picture") and np.asarray(part[1]).dtype.kind != "b"]
        check(shown, f"{name}: rule card of step {step.index + 1} {step.title}")


def test_a_value_that_rounds_to_zero_prints_without_a_sign():
    fmt = preview.number_format(np.array([0.5, -1e-6]))
    assert fmt(-1e-6) == "0.000" and fmt(-0.0) == "0.000" and fmt(-0.25) == "-0.250"
    shown = preview.Preview(np.array([[0.5, -1e-6], [-0.0, -0.4]], np.float32))
    assert [c.strip() for row in shown.table for c in row] == ["0.500", "0.000", "0.000", "-0.400"]
    text = shown._number_text()
    assert "-0.000" not in text and len(text) == 4 * (shown._chars + 1)   # widths kept
    assert preview.Preview(np.float32(-1e-9), spec="%.3f").text == "0.000"


def test_a_card_never_prints_a_nonzero_array_as_zeros():
    """The card's format comes from its largest number, unless that would write a whole
    array that is not zero as 0.000: then every number of the card is in e-notation."""
    assert preview.card_spec([np.array([12.5, 3.0]), np.array([0.25, -0.5])]) == "%.2f"
    assert preview.card_spec([np.array([1.5]), np.array([2e-5, -1e-5])]) == "%.2e"
    assert preview.card_spec([np.array([1, 2]), np.array([3])]) == "%d"
    assert preview.card_spec([np.array([True]), None]) is None


@pytest.mark.parametrize("name", NAMES)
def test_every_steps_provenance_table_and_sum_have_one_format_and_no_minus_zero(name):
    """The provenance dock's table of each step (its cotangent, upstream, operands, paths)
    is written in one format (preview.number_format, as the dock's TensorGrid writes it),
    and the sum of products it explains an entry with holds no negative zero."""
    from gradviz.story.local import provenance
    _, story = sample(name)
    for step in story.steps:
        arrays = [step.cotangent, step.total, *(step.contributions or [])]
        arrays += [v for v in (step.operands or {}).values() if not isinstance(v, list)]
        for array in arrays:
            if array is None or np.asarray(array).dtype.kind not in "fi" or not np.size(array):
                continue
            a2 = preview.as_2d(np.asarray(array))
            fmt = preview.number_format(a2)
            numbers = [fmt(v) for v in a2.reshape(-1)[:400].tolist()]
            check_texts(numbers, f"{name}: provenance table of step {step.index + 1} {step.title}")
        if step.kind in ("seed", "contribution", "fan_in") and np.size(step.cotangent):
            explained = provenance(story, step, 0)
            for text in (explained.text(), explained.numbers()):
                assert not MINUS_ZERO.search(text), (name, step.title, text)
