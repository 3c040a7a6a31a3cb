"""Training a document: each step's numbers against closed forms, Newton against the
Hessian study, the caller's document untouched, cancel, and the refusals in words."""
import numpy as np
import pytest

from gradviz.graph import CONSTANT, OP, VARIABLE, Document, Node, Port, load
from gradviz.graph.errors import DocumentError
from gradviz.graph.evaluate import evaluate
from gradviz.graph.training import (Trainer, hyper_parameters, loss_of, loss_text, make_optimizer,
                                    trainable_parameters, with_values)
from gradviz.story.studies import hessian_study

from graph_samples import SAMPLES

C = np.array([1.0, -2.0, 0.5], np.float32)
W0 = np.array([3.0, 1.0, -1.0], np.float32)


def bowl(w0=W0, sources=("w",), label=""):
    """loss = Σ (w − c)², so g = 2(w − c)."""
    doc = Document()
    doc.add(Node("w", VARIABLE, value=np.array(w0), label=label))
    doc.add(Node("c", CONSTANT, value=C))
    squared_distance(doc, "w", "d", "sq")
    doc.add(Node("loss", OP, op="reduce_sum", attrs={"axis": None, "keepdims": False}))
    doc.connect("sq", "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port(s) for s in sources]
    return doc


def squared_distance(doc, w, d, sq):
    """Nodes d = w − c and sq = d²."""
    doc.add(Node(d, OP, op="subtract"))
    doc.add(Node(sq, OP, op="square"))
    doc.connect(w, d, dst_index=0)
    doc.connect("c", d, dst_index=1)
    doc.connect(d, sq)


def test_sgd_steps_follow_the_closed_form():
    lr = 0.1
    trainer = Trainer(bowl(), make_optimizer("sgd", learning_rate=lr))
    trainer.run(5)
    for k, record in enumerate(trainer.history):
        w_k = C + (1 - 2 * lr) ** k * (W0 - C)          # w ← w − lr·2(w − c)
        g_k = 2 * (w_k - C)
        assert record.index == k + 1
        assert record.loss == pytest.approx(float(np.sum((w_k - C) ** 2)), rel=1e-5)
        assert record.gradient_norms[0] == pytest.approx(float(np.linalg.norm(g_k)), rel=1e-5)
        assert record.update_norms[0] == pytest.approx(lr * float(np.linalg.norm(g_k)), rel=1e-5)
    w5 = C + (1 - 2 * lr) ** 5 * (W0 - C)
    np.testing.assert_allclose(trainer.values()[Port("w")], w5, rtol=1e-5)
    assert trainer.losses[-1] == pytest.approx(float(np.sum((w5 - C) ** 2)), rel=1e-4)
    assert len(trainer.losses) == 6


def test_the_callers_document_is_not_changed():
    doc = bowl()
    trainer = Trainer(doc, make_optimizer("adam", learning_rate=0.5))
    trainer.run(3)
    np.testing.assert_array_equal(doc.nodes["w"].value, W0)
    trained = trainer.document()
    np.testing.assert_array_equal(trained.nodes["w"].value, trainer.values()[Port("w")])
    assert trained.nodes["w"].value.dtype == np.float32
    assert not np.allclose(trained.nodes["w"].value, W0)
    assert trained.sources == doc.sources                # only the values change


def test_run_stops_when_told():
    trainer = Trainer(bowl(), make_optimizer("sgd"))
    heard = []
    records = trainer.run(100, should_stop=lambda: len(heard) >= 3, on_step=heard.append)
    assert len(records) == 3 == len(trainer.history) and heard == records


@pytest.mark.parametrize("name", ["sgd", "newton"])
def test_a_step_is_never_cut_short_by_a_cancelled_workers_checkpoint(name):
    """A worker that is cancelled stops at the engine's next checkpoint; inside a step that
    would leave the Variables updated and the history not (the Train dock then showed
    values one step behind the trainer's)."""
    from gradviz.engine.interrupt import checkpoints

    class Stop(Exception):
        pass

    def stop():
        raise Stop()
    trainer = Trainer(bowl(), make_optimizer(name))
    with checkpoints(stop):
        record = trainer.step()
        with pytest.raises(Stop):              # the hook is back once the step is over
            hessian_study(bowl())
    assert trainer.history == [record] and trainer.last_update.index == 1
    after = trainer.last_update.after[0]
    np.testing.assert_array_equal(trainer.values()[Port("w")], after)
    assert trainer.loss == pytest.approx(record.loss_after)
    assert record.loss_after == pytest.approx(
        loss_of(trainer.document(), evaluate(trainer.document()).values))


def test_newton_step_is_the_hessian_studys():
    """Seed 001's Newton update on its sample: w − (H + 0.001·I)⁻¹ g, as the Hessian view shows."""
    doc = load(SAMPLES / "001_hessian_newton.json")
    study = hessian_study(doc)
    trainer = Trainer(doc, make_optimizer("newton", damping=study.epsilon))
    assert trainer.parameters == [Port("layer1", 1)]
    trainer.step()
    np.testing.assert_allclose(trainer.values()[Port("layer1", 1)], study.x_new,
                               rtol=1e-4, atol=1e-5)


def test_newton_over_two_parameters_solves_the_quadratic():
    """loss = Σ (w − c)² + Σ (u − c)²: H = 2I, so an undamped step lands on c for both."""
    doc = bowl(sources=("w", "u"))
    doc.add(Node("u", VARIABLE, value=-W0))
    squared_distance(doc, "u", "e", "sq2")
    doc.add(Node("add", OP, op="add"))
    doc.add(Node("total", OP, op="reduce_sum", attrs={"axis": None, "keepdims": False}))
    doc.connect("sq", "add", dst_index=0)
    doc.connect("sq2", "add", dst_index=1)
    doc.connect("add", "total")
    doc.targets = [Port("total")]
    trainer = Trainer(doc, make_optimizer("newton", damping=0.0))
    trainer.step()
    for p in (Port("w"), Port("u")):
        np.testing.assert_allclose(trainer.values()[p], C, atol=1e-6)
    assert trainer.losses[-1] == pytest.approx(0.0, abs=1e-10)


def test_a_seeded_target_is_the_loss_the_tape_differentiates():
    """Seed 002's black box: loss = ❬v, y❭ = Σ v·y is linear in the weights, so one SGD step
    lowers it by exactly lr·Σ‖g‖²."""
    doc = load(SAMPLES / "002_black_box_gradient.json")
    assert trainable_parameters(doc) == [Port("net", 1), Port("net", 2)]
    assert loss_text(doc) == ("minimising ❬v, net❭ (❬v, net❭ = Σ v·net, where v is the "
                              "output_gradients given for net)")
    lr = 0.01
    trainer = Trainer(doc, make_optimizer("sgd", learning_rate=lr))
    x = doc.nodes["x"].value.astype(np.float64)
    seed = doc.output_gradients[Port("net")].astype(np.float64)
    kernel = doc.nodes["net"].weights["kernel"].astype(np.float64)
    assert trainer.loss == pytest.approx(float(np.sum(seed * (x @ kernel))), rel=1e-5)
    record = trainer.step()
    g_kernel, g_bias = x.T @ seed, seed.sum(axis=0)
    assert record.gradient_norms == pytest.approx(
        [np.linalg.norm(g_kernel), np.linalg.norm(g_bias)], rel=1e-5)
    drop = lr * (np.sum(g_kernel ** 2) + np.sum(g_bias ** 2))
    assert record.loss_after - record.loss == pytest.approx(-drop, rel=1e-3)


def test_a_vector_target_is_summed():
    doc = bowl()
    doc.targets = [Port("sq")]
    trainer = Trainer(doc, make_optimizer("sgd"))
    assert trainer.loss == pytest.approx(float(np.sum((W0 - C) ** 2)), rel=1e-6)
    values = trainer.evaluation.values
    assert loss_text(doc, values) == ("minimising Σsq (Σsq: the sum of sq's elements, which "
                                      "tape.gradient differentiates for a target that is not a "
                                      "scalar)")
    doc.targets = [Port("loss")]      # (the trainer evaluated only what sq needs)
    assert loss_text(doc, evaluate(doc, persistent=False).values) == "minimising loss"


def test_with_values_copies():
    doc = bowl()
    new = with_values(doc, {Port("w"): [0.0, 0.0, 0.0]})
    np.testing.assert_array_equal(doc.nodes["w"].value, W0)
    assert new.nodes["w"].value.dtype == np.float32 and not new.nodes["w"].value.any()
    assert new.nodes["c"] is doc.nodes["c"]


@pytest.mark.parametrize("change, message", [
    (lambda d: setattr(d, "sources", [Port("c")]), "no source is a Variable"),
    (lambda d: setattr(d, "targets", []), "no target"),
])
def test_refusals_in_words(change, message):
    doc = bowl()
    change(doc)
    with pytest.raises(DocumentError, match=message):
        Trainer(doc, make_optimizer("sgd"))


def test_a_chosen_parameter_must_be_a_connected_variable():
    doc = bowl()
    with pytest.raises(DocumentError, match="'c' is not a Variable"):
        Trainer(doc, make_optimizer("sgd"), parameters=[Port("c")])
    doc.add(Node("lonely", VARIABLE, value=np.ones(2, np.float32)))
    with pytest.raises(DocumentError, match="does not depend on lonely"):
        Trainer(doc, make_optimizer("sgd"), parameters=[Port("lonely")])


def test_newton_is_refused_for_many_parameters():
    doc = bowl(w0=np.zeros(2000, np.float32))
    doc.nodes["c"].value = np.zeros(2000, np.float32)
    with pytest.raises(DocumentError, match="2,000 parameters"):
        Trainer(doc, make_optimizer("newton"))


def test_hyper_parameters_are_keras_defaults():
    assert hyper_parameters("adam") == {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999,
                                        "epsilon": 1e-7, "amsgrad": False}
    assert hyper_parameters("sgd") == {"learning_rate": 0.01, "momentum": 0.0, "nesterov": False}
    with pytest.raises(ValueError, match="unknown optimizer 'lbfgs'"):
        make_optimizer("lbfgs")
    with pytest.raises(ValueError, match="sgd has no hyper-parameter rho"):
        make_optimizer("sgd", rho=0.5)


def test_a_training_preset_round_trips_and_old_files_have_none():
    from gradviz import graph
    doc = bowl()
    assert '"training"' not in graph.dumps(doc)        # old files' text is unchanged
    doc.training = {"optimizer": "adam", "learning_rate": 0.05, "amsgrad": True, "steps": 200}
    text = graph.dumps(doc)
    assert graph.loads(text).training == doc.training and graph.dumps(graph.loads(text)) == text


@pytest.mark.parametrize("training, message", [
    ([], "the training preset must be an object with an optimizer, its hyper-parameters and "
         "steps, not a list"),
    ({"learning_rate": 0.1}, "'optimizer' must be one of sgd, rmsprop, adam, newton"),
    ({"optimizer": "lbfgs"}, "'optimizer' must be one of"),
    ({"optimizer": []}, "'optimizer' must be one of"),      # was TypeError: unhashable (fuzz)
    ({"optimizer": {"name": "sgd"}}, "'optimizer' must be one of"),
    ({"optimizer": "sgd", "beta_1": 0.9}, "sgd has no hyper-parameter 'beta_1' (it has "
                                          "learning_rate, momentum, nesterov)"),
    ({"optimizer": "adam", "beta_1": 1.5}, "beta_1 must be a number in [0, 1), got 1.5"),
    ({"optimizer": "adam", "learning_rate": "fast"}, "learning_rate must be a number"),
    ({"optimizer": "sgd", "nesterov": 1}, "nesterov must be true or false"),
    ({"optimizer": "sgd", "momentum": True}, "momentum must be a number"),
    ({"optimizer": "sgd", "steps": 0}, "steps must be an integer from 1 to 1,000,000"),
    ({"optimizer": "sgd", "steps": 2.5}, "steps must be an integer"),
])
def test_a_bad_training_preset_is_refused_in_words(training, message):
    import json

    from gradviz import graph
    obj = json.loads(graph.dumps(bowl()))
    obj["training"] = training
    with pytest.raises(DocumentError) as refused:
        graph.loads(json.dumps(obj))
    assert message in str(refused.value) and "training" in str(refused.value)


@pytest.mark.parametrize("name, hyper", [("sgd", {"learning_rate": 0.05, "momentum": 0.9}),
                                         ("adam", {"learning_rate": 0.1, "amsgrad": True}),
                                         ("rmsprop", {"centered": True}), ("newton", {})])
def test_any_step_of_a_run_is_replayed_with_its_numbers(name, hyper):
    """Step k's values before the update, its gradient, the optimizer's state and the new
    values: the run's own numbers (compared with the path the run kept, and a Trainer
    stopped at step k)."""
    trainer = Trainer(bowl(), make_optimizer(name, **hyper))
    trainer.run(3)
    trainer.run(4)                                    # two runs: one optimizer throughout
    assert len(trainer.path) == 8
    for k in (1, 5, 7):
        before, update = trainer.replay(k)
        assert update.index == k and update.t == k
        np.testing.assert_array_equal(before[Port("w")], trainer.path[k - 1][1][Port("w")])
        np.testing.assert_array_equal(update.after[0], trainer.path[k][1][Port("w")])
        stopped = Trainer(bowl(), make_optimizer(name, **hyper))
        stopped.run(k)
        np.testing.assert_array_equal(update.gradients[0], stopped.last_update.gradients[0])
        for slot, value in stopped.last_update.slots_after[0].items():
            np.testing.assert_array_equal(update.slots_after[0][slot], value)
    assert trainer.replay(7)[1] is trainer.last_update
    with pytest.raises(ValueError, match="step 8 is not in this run"):
        trainer.replay(8)


@pytest.mark.parametrize("name, hyper", [("sgd", {"learning_rate": 0.05, "momentum": 0.9}),
                                         ("adam", {"learning_rate": 0.1, "amsgrad": True}),
                                         ("rmsprop", {"centered": True, "momentum": 0.5}),
                                         ("newton", {"damping": 0.5})])
def test_a_run_rewound_to_a_checkpoint_goes_on_with_the_same_numbers(name, hyper):
    """Rewound to the end of its first run (the app's Undo of the second), a trainer has
    that run's records, values, loss and optimizer state, and its next steps are those of a
    trainer that never went further; rewound forward (Redo) it is where it was."""
    trainer = Trainer(bowl(), make_optimizer(name, **hyper))
    trainer.run(3)
    first = trainer.checkpoint()
    trainer.run(4)
    second = trainer.checkpoint()
    after_seven = (trainer.values()[Port("w")], trainer.losses, trainer.path)
    trainer.rewind(first)
    three = Trainer(bowl(), make_optimizer(name, **hyper))
    three.run(3)
    assert len(trainer.history) == 3 and trainer.history == three.history
    assert trainer.losses == three.losses and trainer.loss == three.loss
    assert len(trainer.path) == 4 and int(trainer.optimizer.iterations._value) == 3
    np.testing.assert_array_equal(trainer.gradient(Port("w")), three.gradient(Port("w")))
    trainer.run(2)
    three.run(2)                                      # the optimizer's state came back too
    np.testing.assert_array_equal(trainer.values()[Port("w")], three.values()[Port("w")])
    assert trainer.losses == three.losses and trainer.last_update.index == 5
    trainer.rewind(second)
    np.testing.assert_array_equal(trainer.values()[Port("w")], after_seven[0])
    assert trainer.losses == after_seven[1] and trainer.path == after_seven[2]
    assert trainer.replay(7)[1] is trainer.last_update


def _eager_and_replayed(monkeypatch, doc, eager_name, optimizer, steps):
    """Two runs of `steps` steps, with graph.compiled.REPLAY off then on: ((trainer, how
    often it called training.`eager_name`) of each)."""
    from gradviz.graph import compiled, training
    eager = getattr(training, eager_name)
    runs = []
    for replay in (False, True):
        monkeypatch.setattr(compiled, "REPLAY", replay)
        calls = []
        monkeypatch.setattr(training, eager_name, lambda *a, **k: calls.append(1) or eager(*a, **k))
        name, hyper = optimizer
        trainer = Trainer(doc, make_optimizer(name, **hyper))
        trainer.run(steps)
        runs.append((trainer, len(calls)))
    return runs


def _assert_same_run(replayed, eager):
    """float32 to 1e-5, float64 to 1e-12."""
    for port, value in eager.values().items():
        tol = 1e-12 if value.dtype == np.float64 else 1e-5
        np.testing.assert_allclose(replayed.values()[port], value, rtol=tol, atol=tol)
        np.testing.assert_allclose(replayed.gradient(port), eager.gradient(port), rtol=tol, atol=tol)
    np.testing.assert_allclose(replayed.losses, eager.losses, rtol=1e-5)


@pytest.mark.parametrize("sample", ["train_4_inverse", "nets_5_tiny_cnn", "nets_3_wrong_gradient",
                                    "002_black_box_gradient", "nets_8_embedding"])
def test_a_run_replays_the_compiled_evaluation_with_the_eager_numbers(sample, monkeypatch):
    """From the second evaluation on a step replays the document's compiled program (one
    eager evaluation, at the start): its losses, gradients and values are the eager run's."""
    doc = load(SAMPLES / f"{sample}.json")
    (eager, eager_count), (replayed, replayed_count) = _eager_and_replayed(
        monkeypatch, doc, "evaluate", ("adam", {"learning_rate": 0.05}), 12)
    assert eager_count == 13 and replayed_count == 1
    assert replayed.evaluation.replayed
    _assert_same_run(replayed, eager)


@pytest.mark.parametrize("sample", ["train_3_newton", "nets_3_wrong_gradient", "train_2_valley"])
def test_newtons_steps_replay_the_traced_hessian_with_the_eager_numbers(sample, monkeypatch):
    """From its second step Newton's gradient and Hessian (nested tapes, a jacobian) are
    replayed from their trace; every step's values are the eager run's."""
    doc = load(SAMPLES / f"{sample}.json")
    (eager, eager_count), (replayed, replayed_count) = _eager_and_replayed(
        monkeypatch, doc, "gradient_and_hessian", ("newton", {"damping": 0.5}), 6)
    assert eager_count == 6 and replayed_count == 1
    _assert_same_run(replayed, eager)


@pytest.mark.parametrize("name", ["sgd", "adam", "newton"])
def test_a_trainer_starts_from_an_optimizer_that_took_no_step(name):
    """A used optimizer would carry its t (Adam's bias corrections) and slots into another
    run: the Train dock's Reset gave other numbers than the first run that way."""
    from gradviz.graph.training import fresh_optimizer, same_optimizer
    optimizer = make_optimizer(name, learning_rate=0.1)
    Trainer(bowl(), optimizer).run(2)
    with pytest.raises(ValueError, match="took 2"):
        Trainer(bowl(), optimizer)
    fresh = fresh_optimizer(optimizer)
    assert same_optimizer(optimizer, fresh) and int(fresh.iterations._value) == 0
    assert not same_optimizer(optimizer, make_optimizer(name, learning_rate=0.2))
    assert not same_optimizer(make_optimizer("sgd"), make_optimizer("rmsprop"))


def test_training_and_the_landscape_run_the_part_of_the_graph_the_loss_needs():
    """Walk-through: a lone matmul added to an MLP stopped training ("node 'matmul': input
    0 (a) is not connected") while the story went on; a node the loss needs that is not
    connected is named by its label."""
    from gradviz.graph.document import Document, Node
    from gradviz.graph.landscape import coordinates, landscape, local_model
    from gradviz.graph.errors import DocumentError
    clean = load("samples/001_hessian_newton.json")
    doc = load("samples/001_hessian_newton.json")
    doc.nodes["matmul"] = Node("matmul", "op", "matmul")
    trained, expected = (Trainer(d, make_optimizer("sgd", learning_rate=0.1)) for d in (doc, clean))
    trained.run(3)
    expected.run(3)
    assert trained.losses == expected.losses and "matmul" in trained.document().nodes
    x, y = coordinates(doc, trained.parameters)[:2]
    np.testing.assert_array_equal(landscape(doc, x, y, (-1, 1), (-1, 1), n=4).losses,
                                  landscape(clean, x, y, (-1, 1), (-1, 1), n=4).losses)
    np.testing.assert_array_equal(local_model(doc, x, y).gradient, local_model(clean, x, y).gradient)
    broken = Document()
    broken.add(Node("W", "variable", value=np.ones((2, 2), np.float32)))
    broken.add(Node("mm", "op", "matmul", label="hidden"))
    broken.add(Node("s", "op", "reduce_sum"))
    broken.connect("W", "mm", 0, 1)
    broken.connect("mm", "s")
    broken.targets, broken.sources = [Port("s")], [Port("W")]
    with pytest.raises(DocumentError, match=r"'hidden': input 1 \(a\) is not connected"):
        Trainer(broken, make_optimizer("sgd"))


def _relu_layer():
    """y = Σ relu(x @ W + b), the student's graph: linear in W and b between relu's kinks,
    so its Hessian over them is 0."""
    doc = Document(title="relu layer")
    doc.add(Node("x", CONSTANT, value=np.array([[1.0, 2.0, -1.0], [0.5, 1.0, 2.0]], np.float32)))
    doc.add(Node("W", VARIABLE, value=np.array([[0.5, 1.0], [0.3, -0.2], [0.1, 0.4]], np.float32)))
    doc.add(Node("b", VARIABLE, value=np.array([0.1, -0.2], np.float32)))
    doc.add(Node("mm", OP, op="matmul"))
    doc.add(Node("plus", OP, op="add"))
    doc.add(Node("act", OP, op="nn.relu"))
    doc.add(Node("y", OP, op="reduce_sum", attrs={"axis": None, "keepdims": False}))
    for src, dst, k in [("x", "mm", 0), ("W", "mm", 1), ("mm", "plus", 0), ("b", "plus", 1),
                        ("plus", "act", 0), ("act", "y", 0)]:
        doc.connect(src, dst, dst_index=k)
    doc.targets, doc.sources = [Port("y")], [Port("W"), Port("b")]
    return doc


def test_a_newton_step_with_a_zero_hessian_says_it_is_a_gradient_step_where_it_is_taken(tmp_path):
    """With H = 0 the damped step (H + λI)⁻¹ g is g/λ = 1000·g: the loss went 5.65 → 6994.9
    while the Train card and `gradviz train` said nothing (only the Hessian study did)."""
    from gradviz.graph import save
    from gradviz.graph.cli_commands import train_command
    from gradviz.story.update_text import update_lines
    doc = _relu_layer()
    optimizer = make_optimizer("newton")
    trainer = Trainer(doc, optimizer)
    trainer.step()
    g, hessian = optimizer.last_terms
    assert not np.any(hessian) and np.allclose(optimizer.last_step, g / optimizer.damping)
    length = float(np.linalg.norm(g)) / optimizer.damping
    said = (f"H is zero here: the loss has no curvature at this point in these parameters, so "
            f"(H + λI)⁻¹ g is g/λ, a plain gradient step of length |g|/λ = {length:.6g}, not a "
            "Newton step.")
    card = update_lines(trainer.last_update, optimizer, ["W", "b"], "y")
    assert said in card[0][1] and sum(said in lines for _, lines in card) == 1
    path = tmp_path / "relu.json"
    save(_relu_layer(), path)
    warned = []
    code, text = train_command(str(path), make_optimizer("newton"), 3, warn=warned.append)
    assert code == 0 and warned == [f"{path}: step 1: {said}"]


def test_a_newton_step_the_hessian_shapes_says_nothing_more():
    doc = load(SAMPLES / "001_hessian_newton.json")
    optimizer = make_optimizer("newton")
    Trainer(doc, optimizer).step()
    from gradviz.graph.flat_newton import flat_newton_words
    g, hessian = optimizer.last_terms
    assert np.any(hessian)
    assert flat_newton_words(hessian, g, optimizer.last_step, optimizer.damping, str) == ""
    singular = np.diag([2.0, 0.0])                        # flat along the second axis
    step = np.linalg.solve(singular + 1e-3 * np.eye(2), [1.0, 1.0])
    words = flat_newton_words(singular, [1.0, 1.0], step, 1e-3, str)
    assert words.startswith("H is singular (1 eigenvalue ≈ 0)") and "λ alone sets (100% of |step|)" in words
