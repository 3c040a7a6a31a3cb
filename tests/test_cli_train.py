"""`gradviz train`: the trained document and the loss log hold the Trainer's numbers,
bad options exit 2 with one line, the progress bar only on a terminal."""
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gradviz.cli import _ProgressBar, main
from gradviz.graph import Port, load
from gradviz.graph.training import Trainer, make_optimizer
from gradviz.story.studies import hessian_study

from hidden_ids import file_with_memory_ids

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

ROOT = Path(__file__).resolve().parents[1]
NEWTON = ROOT / "samples" / "001_hessian_newton.json"


def test_adam_writes_the_trained_document_and_the_losses(tmp_path, capsys):
    out, log = tmp_path / "trained.json", tmp_path / "losses.csv"
    code = main(["train", str(NEWTON), "--optimizer", "adam", "--lr", "0.01", "--steps", "20",
                 "--beta2", "0.99", "-o", str(out), "--log", str(log)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    expected = Trainer(load(NEWTON), make_optimizer("adam", learning_rate=0.01, beta_2=0.99))
    expected.run(20)
    trained = load(out)
    np.testing.assert_array_equal(trained.nodes["layer1"].weights["kernel"],
                                  expected.values()[Port("layer1", 1)])
    np.testing.assert_array_equal(trained.nodes["layer2"].weights["kernel"],
                                  load(NEWTON).nodes["layer2"].weights["kernel"])
    rows = list(csv.reader(log.open()))
    assert rows[0] == ["step", "loss"] and len(rows) == 22
    assert [int(r[0]) for r in rows[1:]] == list(range(21))
    assert [float(r[1]) for r in rows[1:]] == expected.losses
    assert f"{expected.losses[-1]:.6g}" in captured.out and "\r" not in captured.err


def test_newton_with_damping_is_the_hessian_studys_step(tmp_path, capsys):
    out = tmp_path / "newton.json"
    assert main(["train", str(NEWTON), "--optimizer", "newton", "--damping", "0.001",
                 "--steps", "1", "-o", str(out)]) == 0
    np.testing.assert_allclose(load(out).nodes["layer1"].weights["kernel"],
                               hessian_study(load(NEWTON)).x_new, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("args, words", [
    (["--beta1", "0.5"], "--beta1 is not an option of sgd (it takes --lr, --momentum, --nesterov)"),
    (["--optimizer", "adam", "--nesterov"], "--nesterov is not an option of adam"),
    (["--momentum", "2"], "--momentum must be a number in [0, 1], got 2.0"),
    (["--lr", "-1"], "--lr must be a number > 0"),
    (["--lr", "nan"], "--lr must be a number > 0"),
    (["--optimizer", "lbfgs"], "--optimizer lbfgs: choose sgd, rmsprop, adam or newton"),
    (["--steps", "0"], "--steps 0: choose a number of steps from 1 to 1000000"),
    (["--steps", "many"], "invalid int value: 'many'"),
    (["--param", "x"], "'x' is not a Variable, so it cannot be trained"),
    (["--param", "layer1:7"], "'layer1:7' is not a Variable"),
])
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, args, words):
    out = tmp_path / "out.json"
    assert main(["train", str(NEWTON), "-o", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gradviz: error: ") and words in err
    assert not out.exists()


def test_a_document_without_a_variable_source_is_refused(capsys):
    path = ROOT / "samples" / "002_vjp_output_gradients.json"
    assert main(["train", str(path)]) == 2
    assert "no source is a Variable" in capsys.readouterr().err


def test_a_diverging_loss_is_a_warning_said_once(capsys):
    assert main(["train", str(NEWTON), "--lr", "100", "--steps", "40"]) == 0
    err = capsys.readouterr().err
    assert err.count("gradviz: warning:") == 1 and "learning rate may be too large" in err


def test_the_progress_bar_draws_in_place():
    stream = io.StringIO()
    bar = _ProgressBar(stream, width=10)
    bar(5, 10, 0.25)
    bar(10, 10, 0.125)
    bar.close()
    text = stream.getvalue()
    assert text.startswith("\r[#####.....] 5/10  loss 0.25")
    assert "\r[##########] 10/10  loss 0.125" in text and text.endswith("\n")


def test_no_progress_bar_when_piped(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gradviz", "train", str(NEWTON), "--steps", "5"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.startswith("SGD: loss ")


def test_param_names_a_variable_by_its_label_and_by_its_id_when_unambiguous(tmp_path, capsys,
                                                                          labelled_mlp):
    """Walk-through: `--param W1` answered "'W1' is not a Variable" when W1 is the label the
    user gave a Variable; only the internal id worked. The file is written with ids unlike
    its labels (by hand: gradviz writes the labels as ids)."""
    path, out = tmp_path / "mlp.json", tmp_path / "out.json"
    doc = labelled_mlp()
    path.write_text(json.dumps(file_with_memory_ids(doc)), encoding="utf-8")
    for param in ("W1", "w2"):                         # the label, the id
        assert main(["train", str(path), "--param", param, "--steps", "2", "-o", str(out)]) == 0
        trained = load(out)                            # written by gradviz: W1, W2 are ids
        assert not np.array_equal(trained.nodes["W1"].value, doc.nodes["w2"].value)
        np.testing.assert_array_equal(trained.nodes["W2"].value, doc.nodes["w5"].value)
    capsys.readouterr()
    assert main(["train", str(path), "--param", "x"]) == 2
    assert "'x' is not a Variable, so it cannot be trained (the Variables: W1, W2)" \
        in capsys.readouterr().err
    doc.nodes["w2"].label = "w5"                       # the label of one, the id of the other
    path.write_text(json.dumps(file_with_memory_ids(doc)), encoding="utf-8")
    assert main(["train", str(path), "--param", "w5"]) == 2
    err = capsys.readouterr().err
    assert "'w5' names the Variable labelled w5 (id w2) and is the id of W2" in err


def test_a_documents_training_preset_gives_the_defaults_options_override(tmp_path, capsys):
    """Walk-through: `gradviz train samples/train_3_newton.json` ran SGD 0.01 while the app
    takes the lesson's preset (Newton, damping 0.001, 1 step)."""
    lesson = ROOT / "samples" / "train_3_newton.json"
    preset = dict(load(lesson).training)
    assert preset["optimizer"] == "newton" and preset["steps"] == 1
    out = tmp_path / "out.json"
    for args, name, hyper, steps in (
            ([], "newton", {"damping": preset["damping"]}, 1),
            (["--lr", "0.5", "--steps", "2"], "newton", {"damping": preset["damping"],
                                                         "learning_rate": 0.5}, 2),
            (["--optimizer", "sgd"], "sgd", {}, 1)):
        assert main(["train", str(lesson), "-o", str(out), *args]) == 0
        expected = Trainer(load(lesson), make_optimizer(name, **hyper))
        expected.run(steps)
        said = capsys.readouterr().out
        assert f"after {steps} step" in said and said.startswith(expected.optimizer.name)
        for port, value in expected.values().items():
            np.testing.assert_allclose(load(out).nodes[port.node].weights["kernel"], value,
                                       rtol=1e-5, atol=1e-7)
    assert main(["train", "--help"]) == 0
    assert "training preset" in " ".join(capsys.readouterr().out.split())


def test_the_summary_names_every_setting_and_where_it_came_from(capsys):
    """Walk-through: `train train_2_valley --lr 0.035` kept the lesson's momentum 0.9 and
    said only 'SGD: loss 33 -> 0.000599'."""
    valley = str(ROOT / "samples" / "train_2_valley.json")
    assert main(["train", valley, "--lr", "0.035", "--steps", "3"]) == 0
    expected = Trainer(load(valley), make_optimizer("sgd", learning_rate=0.035, momentum=0.9))
    expected.run(3)
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"SGD: loss {expected.losses[0]:.6g} -> {expected.losses[-1]:.6g} "
                           "after 3 steps with --lr 0.035, --steps 3 (given); --momentum 0.9 "
                           "(the document's training preset); --nesterov off (Keras' default)")
    assert main(["train", str(NEWTON), "--optimizer", "adam", "--beta1", "0.8"]) == 0
    assert ("with --beta1 0.8 (given); --lr 0.001, --beta2 0.999, --amsgrad off, --epsilon 1e-07 "
            "(Keras' default); --steps 100 (the command's default)") in capsys.readouterr().out
    # Keras has no Newton step (walk-through: its lr and damping were called Keras' defaults)
    assert main(["train", str(NEWTON), "--optimizer", "newton", "--steps", "1"]) == 0
    said = capsys.readouterr().out
    assert "Keras' default" not in said
    assert "--lr 1, --damping 0.001 (gradviz's Newton default, as Keras has no Newton step)" in said
