"""The last step's card: every equation holds with the numbers it prints."""
import math
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz.graph import Port, load
from gradviz.graph.training import Trainer, make_optimizer
from gradviz.story.update_text import update_lines

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def holds(line):
    """'name ← formula = numbers = result': evaluate the numbers, compare to the result."""
    parts = line.split(" = ")
    numbers, result = parts[-2], parts[-1]
    expression = (numbers.replace("−", "-").replace("×", "*").replace("√(", "sqrt(")
                  .replace("²", "**2"))
    value = eval(expression, {"sqrt": math.sqrt, "__builtins__": {}})  # our own text
    assert value == pytest.approx(float(result.replace("−", "-")), rel=2e-5, abs=1e-9), line


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
            m_hat, v_hat = [float(x.replace("−", "-")) for x in re.findall(r"= (\S+?)(?:,|$)", line)]
            assert m_hat == pytest.approx(trainer.optimizer.slots(trainer.variables[0])["m"][index]
                                          / (1 - 0.9 ** 3), rel=1e-5)
            continue
        if line.startswith(("u = ", "vmax")):
            continue
        holds(line)
        checked += 1
    assert checked >= 1
    last = lines[-1].split(" = ")[-1].replace("−", "-")
    assert float(last) == pytest.approx(float(trainer.values()[Port("layer1", 1)][index]), rel=1e-5)
