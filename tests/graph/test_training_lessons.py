"""The training lessons (samples/train_*.json): every number they quote, derived again here
from closed forms of the update rules or from the documents' own evaluation, independently
of the Trainer that wrote them; and the Trainer's runs agree with those closed forms.

`lesson_checks(name)` feeds tests/graph/test_samples.py's check that no number in a
lesson goes unchecked."""
import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import Port
from gradviz.graph.training import Trainer, loss_of, make_optimizer, with_values
from gradviz.story.studies import hessian_study

from graph_samples import SAMPLES

STEPS_BOWL, STEPS_VALLEY, STEPS_INVERSE = 20, 100, 200


def load(name):
    return graph.load(SAMPLES / f"{name}.json")


def sig3(v):
    return float(f"{v:.3g}")


def scalar(doc, nid):
    return float(doc.nodes[nid].value)


def quadratic_path(doc, rule, steps):
    """loss = a·x² + b·y² under `rule(w, g, state, t)`, per coordinate in float64."""
    a, b = scalar(doc, "a"), scalar(doc, "b")
    w = np.array([scalar(doc, "x"), scalar(doc, "y")])
    curvature = np.array([2 * a, 2 * b])
    state = {}
    for t in range(1, steps + 1):
        w = rule(w, curvature * w, state, t)
    return w, float(a * w[0] ** 2 + b * w[1] ** 2)


def sgd(lr, momentum=0.0):
    def rule(w, g, s, t):
        if not momentum:
            return w - lr * g
        s["v"] = momentum * s.get("v", 0.0) - lr * g
        return w + s["v"]
    return rule


def adam(lr, b1=0.9, b2=0.999, eps=1e-7):
    def rule(w, g, s, t):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        m_hat, v_hat = s["m"] / (1 - b1 ** t), s["v"] / (1 - b2 ** t)
        return w - lr * m_hat / (np.sqrt(v_hat) + eps / np.sqrt(1 - b2 ** t))
    return rule


def newton_and_sgd(doc):
    """Newton's step from the Hessian study, and plain gradient descent by evaluation."""
    kernel = Port("layer1", 1)
    study = hessian_study(doc)
    newton = loss_of(doc, graph.evaluate(with_values(doc, {kernel: study.x_new})).values)
    w = doc.nodes["layer1"].weights["kernel"].astype(np.float32)
    losses = []
    for _ in range(200):
        trial = with_values(doc, {kernel: w})
        ev = graph.evaluate(trial)
        losses.append(loss_of(trial, ev.values))
        if losses[-1] <= newton:
            break
        w = w - np.float32(0.1) * ev.gradients[kernel]
    return study, newton, losses


def lesson_checks(name):
    """[(snippet, the values its numbers must equal, or None for notation)]."""
    doc = load(name)
    if name == "train_1_gd_bowl":
        b = scalar(doc, "b")
        out = [("x² + 3·y²", [b]), ("from (2, 1)", [scalar(doc, "x"), scalar(doc, "y")]),
               ("(2x, 6y)", [2, 2 * b]), ("(1 − 2η)", None), ("(1 − 6η)", None),
               ("for 20 steps", [STEPS_BOWL]),
               ("η = 0.1: both factors (0.8 and 0.4) lie in (0, 1)",
                [0.1, 1 - 2 * 0.1, 1 - 2 * b * 0.1, 0, 1]),
               ("falls from 7 to 0.000532",
                [quadratic_path(doc, sgd(0.1), 0)[1], sig3(quadratic_path(doc, sgd(0.1), 20)[1])]),
               ("η = 0.3: y's factor is 1 − 1.8 = −0.8", [0.3, 1, 2 * b * 0.3, -(1 - 2 * b * 0.3)]),
               ("ends at 0.000399", [sig3(quadratic_path(doc, sgd(0.3), 20)[1])]),
               ("η = 0.35: y's factor is −1.1, larger than 1", [0.35, -(1 - 2 * b * 0.35), 1]),
               ("grows to 136", [sig3(quadratic_path(doc, sgd(0.35), 20)[1])]),
               ("(y, curvature 6)", [2 * b]), ("below 2/6 ≈ 0.33", [2, 2 * b, round(1 / b, 2)])]
        return out
    if name == "train_2_valley":
        a, b = scalar(doc, "a"), scalar(doc, "b")
        w_sgd, l_sgd = quadratic_path(doc, sgd(0.035), STEPS_VALLEY)
        return [("0.5·x² + 25·y²", [a, b]), ("from (−4, 1)", [-scalar(doc, "x"), scalar(doc, "y")]),
                ("are 1 and 50", [2 * a, 2 * b]), ("below 2/50 = 0.04", [2, 2 * b, 2 / (2 * b)]),
                ("with η = 0.035, 100 steps", [0.035, STEPS_VALLEY]),
                ("loss at 0.00644 (x still −0.1134)", [sig3(l_sgd), round(-w_sgd[0], 4)]),
                ("(μ = 0.9, η = 0.02)", [0.9, 0.02]),
                ("100 steps reach 0.000189", [STEPS_VALLEY, sig3(quadratic_path(
                    doc, sgd(0.02, 0.9), STEPS_VALLEY)[1])]),
                ("Adam (η = 0.1)", [0.1]),
                ("100 steps reach 0.000445", [STEPS_VALLEY, sig3(quadratic_path(
                    doc, adam(0.1), STEPS_VALLEY)[1])])]
    if name == "train_3_newton":
        study, newton, losses = newton_and_sgd(doc)
        reach = len(losses) - 1
        assert abs(reach - 129) <= 1      # a crossing may move a step with the BLAS kernel
        return [("(40 numbers)", [study.x_new.size]),
                ("(H + 0.001·I)", [study.epsilon]), ("λ = 0.001", [study.epsilon]),
                ("from 0.1914 to 0.0238", [round(losses[0], 4), sig3(newton)]),
                ("(SGD, η = 0.1) only to 0.1752", [0.1, round(losses[1], 4)]),
                ("needs 129 steps", [129]),
                ("the 40 × 40 Hessian", list(study.hessian.shape)),
                ("a 40 × 40 linear solve", list(study.hessian.shape))]
    if name == "train_4_inverse":
        target = doc.nodes["wanted_output"].value.ravel()
        kernel = doc.nodes["net"].weights["kernel"].astype(np.float64)
        bias = doc.nodes["net"].weights["bias"].astype(np.float64)
        loss0 = float(np.sum((np.tanh(bias) - target) ** 2))
        trainer = Trainer(doc, make_optimizer("adam", learning_rate=0.05))
        trainer.run(STEPS_INVERSE)
        y = np.tanh(trainer.values()[Port("input_x")].astype(np.float64) @ kernel + bias).ravel()
        assert trainer.losses[-1] < 1e-8
        return [("(0.5, −0.3)", np.abs(target)),
                ("Adam (η = 0.05) from x = 0", [0.05, 0]),
                ("from 0.34 to below 1e-8 in 200 steps", [round(loss0, 4), 1e-8, STEPS_INVERSE]),
                ("then (0.5000, −0.3000)", np.abs(np.round(y, 4)))]
    raise AssertionError(f"no lesson checks for {name}")


# -- the Trainer follows the closed forms the lessons are written from --------------------

@pytest.mark.parametrize("lr", [0.1, 0.3, 0.35])
def test_the_bowls_three_learning_rates(lr):
    doc = load("train_1_gd_bowl")
    trainer = Trainer(doc, make_optimizer("sgd", learning_rate=lr))
    trainer.run(STEPS_BOWL)
    w, loss = quadratic_path(doc, sgd(lr), STEPS_BOWL)
    got = [float(trainer.values()[Port(c)]) for c in "xy"]
    np.testing.assert_allclose(got, w, rtol=1e-4)
    assert trainer.losses[-1] == pytest.approx(loss, rel=1e-4)
    ys = [float(v[Port("y")]) for _, v in trainer.path]
    signs = np.sign(ys)
    if lr == 0.1:
        assert (signs > 0).all() and trainer.losses[-1] < trainer.losses[0]
    elif lr == 0.3:                                   # zig-zag, shrinking
        assert (signs[1:] == -signs[:-1]).all() and abs(ys[-1]) < abs(ys[0])
    else:                                             # zig-zag, growing
        assert (signs[1:] == -signs[:-1]).all() and trainer.losses[-1] > trainer.losses[0]


@pytest.mark.parametrize("optimizer, hyper, rule", [
    ("sgd", {"learning_rate": 0.035}, sgd(0.035)),
    ("sgd", {"learning_rate": 0.02, "momentum": 0.9}, sgd(0.02, 0.9)),
    ("adam", {"learning_rate": 0.1}, adam(0.1)),
])
def test_the_valleys_three_optimizers(optimizer, hyper, rule):
    doc = load("train_2_valley")
    trainer = Trainer(doc, make_optimizer(optimizer, **hyper))
    trainer.run(STEPS_VALLEY)
    w, loss = quadratic_path(doc, rule, STEPS_VALLEY)
    np.testing.assert_allclose([float(trainer.values()[Port(c)]) for c in "xy"], w,
                               rtol=1e-3, atol=1e-6)
    assert trainer.losses[-1] == pytest.approx(loss, rel=1e-3)


def test_newtons_first_step_is_the_hessian_studys():
    doc = load("train_3_newton")
    trainer = Trainer(doc, make_optimizer("newton", damping=0.001))
    trainer.step()
    study, newton, _ = newton_and_sgd(doc)
    assert trainer.losses[-1] == pytest.approx(newton, rel=1e-3)
    assert trainer.losses[-1] < 0.2 * trainer.losses[0]


def test_the_inverse_problem_trains_only_the_input():
    doc = load("train_4_inverse")
    trainer = Trainer(doc, make_optimizer("adam", learning_rate=0.05))
    assert trainer.parameters == [Port("input_x")]
    trainer.run(STEPS_INVERSE)
    trained = trainer.document()
    for name in ("kernel", "bias"):
        np.testing.assert_array_equal(trained.nodes["net"].weights[name],
                                      doc.nodes["net"].weights[name])


def preset_run(doc):
    """The run the Train dock opens the lesson with: the document's training preset."""
    preset = dict(doc.training)
    name, steps = preset.pop("optimizer"), preset.pop("steps")
    trainer = Trainer(doc, make_optimizer(name, **preset))
    trainer.run(steps)
    return trainer


def test_the_bowl_opens_with_its_good_learning_rate():
    doc = load("train_1_gd_bowl")
    assert doc.training == {"optimizer": "sgd", "learning_rate": 0.1, "steps": STEPS_BOWL}
    w, loss = quadratic_path(doc, sgd(0.1), STEPS_BOWL)
    assert preset_run(doc).losses[-1] == pytest.approx(loss, rel=1e-4)   # "falls … to 0.000532"


def test_the_valley_opens_with_momentum():
    doc = load("train_2_valley")
    assert doc.training == {"optimizer": "sgd", "learning_rate": 0.02, "momentum": 0.9,
                            "steps": STEPS_VALLEY}
    w, loss = quadratic_path(doc, sgd(0.02, 0.9), STEPS_VALLEY)
    assert preset_run(doc).losses[-1] == pytest.approx(loss, rel=1e-3)


def test_the_newton_lesson_opens_with_one_newton_step():
    doc = load("train_3_newton")
    assert doc.training == {"optimizer": "newton", "damping": 0.001, "steps": 1}
    study, newton, _ = newton_and_sgd(doc)
    assert study.epsilon == 0.001
    assert preset_run(doc).losses[-1] == pytest.approx(newton, rel=1e-3)


def test_the_inverse_problem_opens_with_adam():
    doc = load("train_4_inverse")
    assert doc.training == {"optimizer": "adam", "learning_rate": 0.05, "steps": STEPS_INVERSE}
    trainer = preset_run(doc)
    assert trainer.parameters == [Port("input_x")] and trainer.losses[-1] < 1e-8
