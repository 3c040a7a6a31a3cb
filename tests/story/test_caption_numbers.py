"""One number format per step (issue 20 §5): the relu chain's step 10 said 'Its norm ‖grad
layer5‖ = 3.418 is 1.4 times ‖grad layer6‖', the norm as a card writes a scalar and the
factor in three significant digits beside it. Every number a caption computes is written as
a card writes a scalar (numbers.alone); a rule's own text (a custom rule's clip_norm 0.5,
as the document gives it) is the rule's, not a computed number."""
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz import story
from gradviz.graph import load
from gradviz.story.numbers import alone
from gradviz.story.studies import gradient_norms

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
# a number with decimals, with its power of ten as alone writes it ('5.863×10⁻²'), not a
# digit inside a name (layer5, ∂y/∂x2)
DECIMAL = re.compile(r"(?<![\w∂/.])-?\d+\.\d+(?:×10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?(?!\w|\.\d)")


def _value(text):
    mantissa, _, power = text.partition("×10")
    return float(mantissa) * 10.0 ** int(power.translate(SUPERSCRIPT) or 0)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_number_in_a_caption_is_written_as_a_card_writes_it(path):
    s = story.build(load(path))
    for step in s.steps:
        text = step.caption.replace(step.formula, "") if step.formula else step.caption
        for number in DECIMAL.findall(text):
            assert alone(_value(number)) == number, (step.index + 1, number, step.caption)


@pytest.mark.parametrize("name", ["nets_2_relu_chain", "nets_2_sigmoid_chain", "nets_2_bad_init"])
def test_a_norm_and_its_factor_read_alike(name):
    """The factor is computed from the two norms the Gradient norms study gives, and written
    in the norm's format: the relu chain's step 10 reads '3.418 is 1.395 times' (to the
    digits of this machine's norms)."""
    s = story.build(load(next(p for p in SAMPLES if p.stem == name)))
    norms = gradient_norms(s)
    said = 0
    for j, index in enumerate(norms.steps):
        caption = s.steps[index].caption
        before = [k for k, jj in norms.edges if jj == j]
        if " times ‖grad " not in caption and "‖ divided by " not in caption:
            continue
        ratio = norms.norms[j] / norms.norms[before[0]]
        factor = alone(ratio) if ratio >= 1 else alone(1 / ratio)
        assert f"= {alone(norms.norms[j])} is {factor} times" in caption or \
            f"divided by {factor}." in caption, caption
        assert np.isclose(_value(factor), max(ratio, 1 / ratio), rtol=1e-3)
        said += 1
    assert said == 6
