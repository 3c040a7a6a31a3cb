"""The update card (the Step tab, and the story's last step after the backward pass when a
training step is opened in the player): every equation holds with the numbers it prints."""
import math
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz.graph import Port, load
from gradviz.graph.training import Trainer, loss_name, make_optimizer, with_values
from gradviz.story.formula_parts import formula_parts
from gradviz.story.build import build
from gradviz.story.update_step import with_update
from gradviz.story.update_text import update_lines

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
KERNEL = Port("layer1", 1)
POWER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def printed(number):
    """The float a printed number ('−4.34504×10⁻²') reads as."""
    return float(re.sub(r"×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", lambda m: "e" + m.group(1).translate(POWER), number)
                 .replace("−", "-"))


def holds(line):
    """'name ← formula = numbers = result': evaluate the numbers as printed; they give the
    result to within one unit of its last printed digit (a student's check by hand)."""
    line = re.sub(r"×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", lambda m: "e" + m.group(1).translate(POWER), line)
    parts = line.split(" = ")
    numbers, result = parts[-2], parts[-1].replace("−", "-")
    expression = (numbers.replace("−", "-").replace("×", "*").replace("√(", "sqrt(")
                  .replace("²", "**2"))
    value = eval(expression, {"sqrt": math.sqrt, "__builtins__": {}})  # our own text
    mantissa = result.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0 ** (-decimals) * (10.0 ** int(result.lower().split("e")[1]) if "e" in result.lower() else 1)
    assert abs(value - float(result)) <= unit * 1.0001 + 1e-12, line


def test_an_update_that_cancels_prints_its_operand_with_the_digits_it_needs():
    """Newton from w = −4 to −0.0039959 printed 'u = −3.996' (walk-through): −4 − 1 × −3.996
    is −0.004, not the result shown. The operand now carries the digits the result needs."""
    from types import SimpleNamespace

    w, u = np.float32(-4.0), np.float32(-3.9960041)
    w_new = np.float32(w - u)
    for name, hyper, slots in (("newton", {"learning_rate": 1.0, "damping": 0.001}, {}),
                               ("sgd", {"learning_rate": 1.0}, {})):
        update = SimpleNamespace(gradients=[np.array([u])], before=[np.array([w])],
                                 after=[np.array([w_new])], slots_before=[slots], slots_after=[slots],
                                 t=1)
        (_, lines), = update_lines(update, make_optimizer(name, **hyper), ["x"])
        holds(lines[-1])
        assert "3.996 " not in lines[-1] + " ", lines[-1]


def test_a_tiny_number_is_written_with_its_power_of_ten_as_every_card_writes_it():
    """The Step card wrote '4.64905e−10' where the rest of the app writes ×10⁻¹⁰ (issue 20
    §5): one notation, and the equation still holds with the numbers it prints."""
    from types import SimpleNamespace

    w, g = np.float32(0.5), np.float32(4.64905e-10)
    update = SimpleNamespace(gradients=[np.array([g])], before=[np.array([w])],
                             after=[np.array([np.float32(w - 0.1 * g)])], slots_before=[{}],
                             slots_after=[{}], t=1)
    (_, lines), = update_lines(update, make_optimizer("sgd", learning_rate=0.1), ["x"])
    text = "\n".join(lines)
    assert "4.64905×10⁻¹⁰" in text and not re.search(r"\de[−+-]?\d", text), text
    holds(lines[-1])


def test_significant_switches_to_a_power_of_ten_where_the_cards_do():
    """significant switched at .6g's limits (0.0001234 read 0.0001234 on the Step card
    where a card writes 1.234×10⁻⁴): both sides of ORDINARY, as `alone` writes them."""
    from gradviz.story.numbers import ORDINARY, alone, significant

    low, high = ORDINARY
    assert significant(0.0001234) == "1.234×10⁻⁴" and significant(-0.0001234) == "−1.234×10⁻⁴"
    assert significant(0.09) == "9×10⁻²" and significant(low) == "0.1"
    assert significant(9999.5) == "9999.5" and significant(12345.6) == "1.23456×10⁴"
    assert significant(high) == "1×10⁴" and significant(0) == "0"
    for x in (0.0001234, 0.0999, low, 0.5, 9999.5, high, 123456.0, 4.64905e-10):
        assert ("×10" in significant(x)) == ("×10" in alone(x)), x


@pytest.mark.parametrize("name, hyper", [
    ("sgd", {"learning_rate": 0.1}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("rmsprop", {"learning_rate": 0.01}),
    ("rmsprop", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}),
    ("adam", {"learning_rate": 0.01}),
    ("adam", {"learning_rate": 0.01, "amsgrad": True}),
    ("newton", {"damping": 0.001}),
])
def test_every_equation_holds_with_its_numbers(name, hyper):
    doc = load(SAMPLES / "001_hessian_newton.json")
    trainer = Trainer(doc, make_optimizer(name, **hyper))
    trainer.run(3)
    cards = update_lines(trainer.last_update, trainer.optimizer, ["layer1.kernel"])
    (title, lines), = cards
    g = trainer.last_update.gradients[0]
    index = np.unravel_index(np.argmax(np.abs(g)), g.shape)
    assert title == f"layer1.kernel[{index[0]}, {index[1]}] (its largest |g|)"
    checked = 0
    for line in lines:
        if line.startswith("t = "):
            m_hat, v_hat = [printed(x) for x in re.findall(r"= (\S+?)(?:,|$)", line)]
            assert m_hat == pytest.approx(trainer.optimizer.slots(trainer.variables[0])["m"][index]
                                          / (1 - 0.9 ** 3), rel=1e-5)
            continue
        if line.startswith(("u = ", "vmax", "g = ")):
            continue
        holds(line)
        checked += 1
    assert checked >= 1
    last = lines[-1].split(" = ")[-1]
    assert printed(last) == pytest.approx(float(trainer.values()[Port("layer1", 1)][index]), rel=1e-5)


OPTIMIZERS = [
    ("sgd", {"learning_rate": 0.1}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("rmsprop", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}),
    ("rmsprop", {"learning_rate": 0.01}),
    ("adam", {"learning_rate": 0.01}),
    ("adam", {"learning_rate": 0.01, "amsgrad": True}),
    ("newton", {"damping": 0.001}),
]


def told_step(name, hyper, step=3, edit=None):
    """(story of step `step` of a 4-step run, with its update; the Update; the trainer)."""
    doc = load(SAMPLES / "001_hessian_newton.json")
    trainer = Trainer(doc, make_optimizer(name, **hyper))
    trainer.run(4)
    before, update = trainer.replay(step)
    shown = with_values(doc, before)
    if edit is not None:
        edit(shown)
    story = build(shown)
    loss = loss_name(trainer.doc, trainer.evaluation.values)
    return story, with_update(story, update, trainer.optimizer, trainer.parameters,
                              ["layer1.kernel"], loss), update


@pytest.mark.parametrize("name, hyper", OPTIMIZERS)
def test_the_update_card_follows_the_backward_pass_with_true_numbers(name, hyper):
    story, told, update = told_step(name, hyper)
    assert told.steps[:-1] == story.steps and len(told.steps) == len(story.steps) + 1
    card = told.steps[-1]
    assert (card.kind, card.node, card.port, card.index) == ("update", "layer1", KERNEL,
                                                            len(story.steps))
    assert card.title.endswith("update of layer1.kernel")
    # the gradient on the card is the one the backward pass just gave (its last step's)
    np.testing.assert_allclose(card.cotangent, story.gradients[KERNEL], rtol=1e-5, atol=1e-7)
    lines = card.formula.split("\n")
    g = update.gradients[0]
    index = np.unravel_index(np.argmax(np.abs(g)), g.shape)
    entry = f"layer1.kernel[{index[0]}, {index[1]}]"
    assert lines[0].startswith(f"g = ∂loss/∂{entry} = ")
    assert printed(lines[0].split(" = ")[-1]) == pytest.approx(g[index], rel=1e-5)
    updates = [line for line in lines if line.startswith(f"{entry} ← {entry} ")]
    assert len(updates) == 1          # the update is written with the user's name
    for line in lines[1:]:
        if not line.startswith(("t = ", "u = ", "vmax")):
            holds(line)
    assert printed(updates[0].split(" = ")[-1]) == pytest.approx(
        float(update.after[0][index]), rel=1e-5)
    # the card's pictures: the whole gradient, the Variable before and after the update
    arrays = {p[2]: p[1] for p in formula_parts(card) if p[0] == "array"}
    np.testing.assert_array_equal(arrays["before"], update.before[0])
    np.testing.assert_array_equal(arrays["after"], update.after[0])
    np.testing.assert_array_equal(arrays["gradient"], g)


def test_no_update_card_where_the_story_did_not_give_its_gradient():
    def other_input(doc):
        doc.nodes["x"].value = doc.nodes["x"].value + 1     # another gradient: the card would lie
    story, told, _ = told_step("adam", {"learning_rate": 0.01}, edit=other_input)
    assert told is story
    story, told, _ = told_step("sgd", {"learning_rate": 0.1}, step=2)
    assert told.steps[-1].kind == "update"


@pytest.mark.parametrize("name, hyper", OPTIMIZERS)
def test_the_first_step_writes_its_card(name, hyper):
    """The Step button's first press (walk-through: Adam's card raised KeyError 'm', and
    momentum's and RMSProp's 'velocity'): before the first update the optimizer's slots are
    the zeros Keras builds them with, and the card's equations hold with them."""
    doc = load(SAMPLES / "001_hessian_newton.json")
    trainer = Trainer(doc, make_optimizer(name, **hyper))
    trainer.step()
    update = trainer.last_update
    assert update.t == 1
    for before, after in zip(update.slots_before, update.slots_after):
        assert set(before) == set(after)
        assert all(not np.any(v) for v in before.values())
    (title, lines), = update_lines(update, trainer.optimizer, ["layer1.kernel"])
    for line in lines:
        if not line.startswith(("t = ", "u = ", "vmax", "g = ")):
            holds(line)
    last = lines[-1].split(" = ")[-1].replace("−", "-")
    g = update.gradients[0]
    index = np.unravel_index(np.argmax(np.abs(g)), g.shape)
    assert float(last) == pytest.approx(float(trainer.values()[KERNEL][index]), rel=1e-5)
