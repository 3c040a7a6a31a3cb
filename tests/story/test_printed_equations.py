"""Every sum of products the provenance dock and `gradviz explain` print is true at the
precision it is printed: the printed operands, multiplied and added, round to the printed
result (a student who redoes the sum gets the digits shown), and no operand is printed so
coarsely that its own rounding could move the result by more than one digit of the result
(or 1 %).

(Issue 20 §1: the check allowed the operands' own rounding on top of the result's, so
'(-0.334)·1.000 + (-0.334)·3.000 = -1.335' passed though its operands give -1.336; now the
shown arithmetic itself must reproduce the shown result.)

The sigmoid chain at step 29 printed '0.000·0.243 = -1.011×10⁻⁴' and
'(-0.001)·0.248 = -2.060×10⁻⁴' (the real upstream entry is -8.3×10⁻⁴): each number rounded
by its own tensor's format, the upstream's far coarser than the product's.
"""
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz import story
from gradviz.graph import load
from gradviz.story.local import cost
from gradviz.story.text import EXAMPLE_COST, explain

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))

_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
_NUMBER = re.compile(r"^\(?(-?\d+(?:\.(\d+))?)(?:×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?\)?$")


def parse(text):
    """(value, resolution) of one printed number: '-2.060×10⁻⁴' -> (-2.06e-4, 1e-7);
    a number without decimals ('1', '3') is exact."""
    m = _NUMBER.match(text.strip())
    assert m, f"not a printed number: {text!r}"
    power = int(m.group(3).translate(_SUPER)) if m.group(3) else 0
    decimals = len(m.group(2) or "")
    value = float(m.group(1)) * 10.0 ** power
    return value, (10.0 ** (power - decimals) if m.group(2) is not None else 0.0)


def check_equation(line):
    """`line`: 'a·b + c·d + e = r' (numbers only). Returns a reason when false, else None
    (also for a sum with an infinity or a NaN, which no rounding concerns)."""
    if re.search(r"inf|nan", line):
        return None
    # '≈': a float32 sum whose exact arithmetic no digits of its factors reproduce
    approx = " ≈ " in line
    lhs, _, rhs = line.rpartition(" ≈ " if approx else " = ")
    r, r_res = parse(rhs)
    total, spread = 0.0, 0.0
    for part in lhs.split(" + "):
        factors = [parse(f) for f in part.split("·")]
        product = float(np.prod([v for v, _ in factors]))
        total += product
        for k, (v, res) in enumerate(factors):   # first-order effect of each factor's rounding
            others = float(np.prod([abs(w) for j, (w, _) in enumerate(factors) if j != k]))
            spread += others * res / 2
    if spread > max(r_res, 0.01 * abs(r)) * (1 + 1e-9):
        return f"operands printed too coarsely ({spread:.3g} against the result's {r_res:.3g}): {line}"
    if abs(total - r) > r_res / 2 + (spread if approx else 0) + 1e-9 * max(1.0, abs(r)):
        return f"printed operands give {total:.6g}, not {rhs}: {line}"
    return None


def _entries(cotangent):
    """The first nonzero entry, the smallest nonzero and the largest |entry|."""
    a = np.abs(np.asarray(cotangent, np.float64)).reshape(-1)
    nz = np.flatnonzero(a)
    if not nz.size:
        return [0]
    return sorted({int(nz[0]), int(nz[np.argmin(a[nz])]), int(np.argmax(a))})


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_provenance_equation_is_true_as_printed(path):
    s = story.build(load(path))
    wrong = []
    for step in s.steps:
        if step.kind not in ("contribution", "fan_in") or step.cotangent is None \
                or not np.size(step.cotangent) or np.asarray(step.cotangent).dtype.kind != "f":
            continue
        if step.kind == "contribution" and cost(step._op, step.input_index) > EXAMPLE_COST:
            continue
        for flat in _entries(step.cotangent):
            prov = s.step_provenance(step, flat)
            numbers = prov.numbers()
            if not prov.terms or prov.kind == "rule" or not numbers:
                continue
            reason = check_equation(numbers)
            if reason:
                wrong.append(f"step {step.index + 1} {step.title!r} entry {flat}: {reason}")
    assert not wrong, "\n".join(wrong[:8])


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_explained_equation_is_true_as_printed(path):
    text = explain(story.build(load(path)), studies=False)
    wrong = [reason for line in text.splitlines() if line.startswith("          = ")
             if (reason := check_equation(line.removeprefix("          = ")))]
    assert not wrong, "\n".join(wrong[:8])


def test_the_sigmoid_chain_writes_its_tiny_upstream_with_its_digits():
    """The auditor's case: step 29 of the vanishing-gradients lesson, entry [0,1]. (Issue 20:
    the upstream's card now writes it with its digits, [-0.830 -0.416 ...] ×10⁻³, so the
    sum takes the card's number: true to half its last digit, which is a thousandth of
    the upstream's largest entry.)"""
    s = story.build(load(SAMPLES / "nets_2_sigmoid_chain.json"))
    step = s.steps[28]
    prov = s.step_provenance(step, 1)
    grad = np.asarray(step.operands["grad"])
    upstream = float(grad.flat[1])
    (u, res), _ = [parse(f) for f in prov.numbers().partition(" = ")[0].split("·")]
    assert abs(u - upstream) <= res / 2 and 0 < res <= 1e-3 * np.abs(grad).max()
    assert check_equation(prov.numbers()) is None


def test_the_shown_factors_reproduce_the_shown_sum():
    """The auditor's graph, x @ W1 -> relu -> @ W2 -> reduce_sum, grad W1[0,0]: the upstream
    -0.3337 written -0.334 gave '(-0.334)·1.000 + (-0.334)·3.000 = -1.335', whose terms give
    -1.336; every entry of every sum now checks out as shown."""
    import gradviz as tf

    x = tf.constant([[1.0, 0.0], [3.0, 0.5]])
    w1 = tf.Variable([[0.126, -0.132], [0.640, 0.105]])
    w2 = tf.Variable([[0.1893, -0.523], [-0.413, -2.441]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))
    s = story.from_tape(tape, y, [w1], names={"x": x, "W1": w1, "W2": w2, "reduce_sum": y})
    shown = []
    for step in s.of_kind("contribution"):
        for flat in range(int(np.size(step.cotangent))):
            prov = s.step_provenance(step, flat)
            if prov.terms and prov.kind != "rule" and prov.numbers():
                shown.append(prov.numbers())
    assert any(line.endswith(" = -1.335") for line in shown), shown
    wrong = [reason for line in shown if (reason := check_equation(line))]
    assert not wrong, "\n".join(wrong)
