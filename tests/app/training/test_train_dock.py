"""The Train dock: a run on the worker updates the document as one undoable entry, Pause
stops it, Reset and Undo put every Variable back, refusals are said in words."""
import re
import sys

import numpy as np
from PySide6.QtCore import QPointF, QRectF
import pytest

from gradviz.app.player.bar_story import STORY_MS
from gradviz.app.training import session
from gradviz.app.training.curves import MIN_STEPS
from gradviz.graph import Port, load
from gradviz.graph.training import Trainer, make_optimizer
from gradviz.story.numbers import significant

from gated_steps import gate_steps, steps_taken
from train_dock_util import KERNEL, SAMPLE, choose, draw, finish, kernel


# Not marked numeric: the dock's numbers are compared with a Trainer's run in the same
# process (equal by construction); tests/graph/test_training.py checks the numbers on other CPUs.


def test_a_run_is_the_trainers_numbers_and_one_undo_entry(qtbot, panel):
    w, p = panel()
    start = kernel(w).copy()
    choose(p, "adam", learning_rate="0.01")
    assert p.run(20)
    finish(qtbot, p)
    expected = Trainer(load(SAMPLE), make_optimizer("adam", learning_rate=0.01))
    expected.run(20)
    np.testing.assert_array_equal(kernel(w), expected.values()[KERNEL])
    stack = w.controller.undo_stack
    assert stack.count() == 1 and stack.text(0) == "Training run (20 Adam steps)"
    assert p.curves.loss_curve.getData()[1].size == 21
    np.testing.assert_allclose(p.curves.loss_curve.getData()[1], expected.losses)
    # the cards show the trained values: the window's evaluation is of the trained document
    loss = w.controller.result.evaluation.values[Port("loss")]
    assert float(loss) == pytest.approx(expected.losses[-1], rel=1e-6)
    x0, x1 = fitted_x(p.curves.loss_plot)
    assert x0 <= 0 and 20 <= x1 < 25
    stack.undo()
    np.testing.assert_array_equal(kernel(w), start)
    assert p.session.trainer.history == []     # the run was undone: its curves go
    says_where_the_variables_are(p, "Undo Training run (20 Adam steps)", expected.losses[0])
    assert not p.reset_button.isEnabled()      # nothing to reset
    stack.redo()                               # and come back
    np.testing.assert_array_equal(kernel(w), expected.values()[KERNEL])
    np.testing.assert_allclose(p.curves.loss_curve.getData()[1], expected.losses)
    assert p.status.text().startswith("Redo Training run (20 Adam steps): back at step 20, loss ")


def says_where_the_variables_are(p, what, loss):
    """After the trainer went the status names why and the loss now (not the run's last
    step), and the curves hold that one point, the axes around it (not the run's 0..N): the
    step axis of one point runs to curves.MIN_STEPS (it ran to 1 before the axis of a lone
    point was given whole steps, issue 20 §5), short of the 20 steps the run had."""
    assert p.status.text().startswith(f"{what}: loss ")
    shown = float(re.search(r": loss (\S+) ", p.status.text()).group(1))
    assert shown == pytest.approx(loss, rel=1e-5)
    x, y = p.curves.loss_curve.getData()
    assert list(x) == [0] and y[0] == pytest.approx(loss, rel=1e-6)
    for plot in p.curves.plots:
        x0, x1 = fitted_x(plot)
        assert x0 <= 0 <= x1 < MIN_STEPS + 1, (x0, x1)


def fitted_x(plot):
    """The x range as drawn: the view fits its items when it is painted."""
    box = plot.getPlotItem().getViewBox()
    box.updateAutoRange()
    return tuple(box.viewRange()[0])


def test_two_runs_are_two_entries_and_continue_the_optimizer(qtbot, panel):
    w, p = panel()
    choose(p, "sgd", learning_rate="0.1", momentum="0.9")
    p.run(5)
    finish(qtbot, p)
    p.run(7)
    finish(qtbot, p)
    expected = Trainer(load(SAMPLE), make_optimizer("sgd", learning_rate=0.1, momentum=0.9))
    expected.run(12)                           # one optimizer: the velocity carries over
    np.testing.assert_allclose(kernel(w), expected.values()[KERNEL], rtol=1e-6, atol=1e-7)
    stack = w.controller.undo_stack
    assert [stack.text(i) for i in range(stack.count())] == [
        "Training run (5 SGD steps)", "Training run (7 SGD steps)"]


STATEFUL = [("sgd", dict(learning_rate="0.1", momentum="0.9")),
            ("sgd", dict(learning_rate="0.1", momentum="0.9", nesterov=True)),
            ("rmsprop", dict(learning_rate="0.01")),
            ("rmsprop", dict(learning_rate="0.01", momentum="0.5", centered=True)),
            ("adam", dict(learning_rate="0.1")),
            ("adam", dict(learning_rate="0.1", amsgrad=True))]


def test_a_run_after_reset_undo_or_an_edit_starts_a_fresh_optimizer(qtbot, panel):
    """Walk-through: Adam's step counter t (and every slot) went on across Reset, so Reset,
    Run 100 gave other numbers than the first Run 100. Whenever the dock says 'a run starts
    from them, its curves from step 0', a run is a fresh optimizer's from the values now:
    after Reset, after Undo of the only run, after an edit that dropped the trainer."""
    from gradviz.app.snapshots import snapshot
    w, p = panel()
    stack = w.controller.undo_stack

    def run_matches_a_fresh_trainer(name, hyper):
        expected = Trainer(snapshot(w.controller.doc), make_optimizer(name, **hyper))
        expected.run(4)
        assert p.run(4), p.status.text()
        finish(qtbot, p)
        np.testing.assert_allclose(kernel(w), expected.values()[KERNEL], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(p.session.trainer.losses, expected.losses, rtol=1e-6)
        assert p.session.trainer.last_update.t == 4          # the step card's t
    for name, fields in STATEFUL:
        hyper = {k: (v if isinstance(v, bool) else float(v)) for k, v in fields.items()}
        choose(p, name, **{k: v for k, v in fields.items() if not isinstance(v, bool)})
        for key, on in fields.items():
            if isinstance(on, bool):
                p.fields[key].setChecked(on)
        run_matches_a_fresh_trainer(name, hyper)
        p.reset_button.click()
        assert "a run starts from them, its curves from step 0" in p.status.text()
        run_matches_a_fresh_trainer(name, hyper)
        stack.undo()                                   # the run after Reset
        assert "a run starts from them, its curves from step 0" in p.status.text()
        run_matches_a_fresh_trainer(name, hyper)
        w.controller.set_value("x", kernel_input(w))   # the same numbers, a new tensor
        assert p.session.trainer is None
        run_matches_a_fresh_trainer(name, hyper)
        p.reset_button.click()
        stack.clear()


def kernel_input(w):
    return np.array(w.controller.doc.nodes["x"].value)


def curves_of(p):
    """(x, y) of every curve: the loss, then the gradient and update norms."""
    return [tuple(np.asarray(a).tolist() for a in curve.getData())
            for curve in [p.curves.loss_curve] + p.curves.gradient_curves + p.curves.update_curves]


def test_undo_of_the_second_run_keeps_the_first_runs_curves_and_redo_the_second(qtbot, panel):
    w, p = panel()
    choose(p, "sgd", learning_rate="0.1", momentum="0.9")
    p.run(5)
    finish(qtbot, p)
    after_first, first_kernel = curves_of(p), kernel(w).copy()
    assert len(after_first[0][0]) == 6 and len(after_first[1][0]) == 5
    p.run(7)
    finish(qtbot, p)
    after_second, second_kernel = curves_of(p), kernel(w).copy()
    stack = w.controller.undo_stack
    stack.undo()
    np.testing.assert_array_equal(kernel(w), first_kernel)
    assert curves_of(p) == after_first
    loss = p.session.trainer.loss      # (the window's, to a float32 ulp)
    assert loss == pytest.approx(float(w.controller.result.evaluation.values[Port("loss")]),
                                 rel=1e-6)
    assert p.status.text() == (f"Undo Training run (7 SGD steps): back at step 5, loss {significant(loss)} "
                               f"(began at {significant(after_first[0][1][0])}); a run goes on from here.")
    assert p.reset_button.isEnabled()
    stack.redo()
    np.testing.assert_array_equal(kernel(w), second_kernel)
    assert curves_of(p) == after_second
    stack.undo()
    p.run(3)                    # from the end of the first run, its optimizer state with it
    finish(qtbot, p)
    expected = Trainer(load(SAMPLE), make_optimizer("sgd", learning_rate=0.1, momentum=0.9))
    expected.run(8)
    np.testing.assert_allclose(kernel(w), expected.values()[KERNEL], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(p.curves.loss_curve.getData()[1], expected.losses, rtol=1e-6)
    assert [stack.text(i) for i in range(stack.count())] == [
        "Training run (5 SGD steps)", "Training run (3 SGD steps)"]
    # an edit drops the trainer; its Undo brings the run back where it was
    w.controller.set_value("x", np.zeros((7, 5), np.float32))
    assert p.session.trainer is None
    stack.undo()
    assert len(p.session.trainer.history) == 8 and len(curves_of(p)[0][0]) == 9


def test_a_curve_of_one_point_is_drawn_as_a_dot(qtbot, panel):
    """A line through one point draws nothing: the loss before any step (after an Undo),
    and the norms after one step, are dots of their curve's colour, where the point is."""
    w, p = panel()
    p.tabs.setCurrentWidget(p.curves)
    choose(p, "sgd", learning_rate="0.1")
    p.run(1)
    finish(qtbot, p)
    for points in ([2, 1, 1], [1, 0, 0]):      # after the step, then after its Undo
        if points[0] == 1:
            w.controller.undo_stack.undo()
        curves = [p.curves.loss_curve] + p.curves.gradient_curves + p.curves.update_curves
        assert [len(c.getData()[0] if c.getData()[0] is not None else ()) for c in curves] == points
        assert [c.opts["symbol"] for c in curves] == ["o" if n == 1 else None for n in points]
        for curve, plot, n in zip(curves, p.curves.plots, points):
            if n == 1:
                assert dot_drawn(curve, plot)


def dot_drawn(curve, plot):
    """True when the curve's colour is on screen where its one point is."""
    x, y = curve.getData()
    image = plot.grab().toImage()
    box = plot.getPlotItem().getViewBox()
    centre = plot.mapFromScene(box.mapViewToScene(QPointF(x[0], y[0])))
    colour = curve.opts["pen"].color()
    near = [image.pixelColor(centre.x() + dx, centre.y() + dy)
            for dx in range(-2, 3) for dy in range(-2, 3)]
    return any(abs(c.red() - colour.red()) + abs(c.green() - colour.green())
               + abs(c.blue() - colour.blue()) < 60 for c in near)


def test_pause_stops_a_long_run_and_undo_puts_it_back(qtbot, panel, monkeypatch):
    """The worker takes a step only when the test lets it (gated_steps), so what the window
    shows is decided by the steps taken, not by how busy the machine is."""
    gate, waiting = gate_steps(monkeypatch)
    w, p = panel()
    start = kernel(w).copy()
    choose(p, "sgd", learning_rate="0.001")
    shown = []
    w.controller.evaluated.connect(lambda result: shown.append(
        float(result.evaluation.values[Port("loss")])))
    before_run = sys.getswitchinterval()
    p.run(1_000_000)
    assert p.pause_button.isEnabled() and not p.run_button.isEnabled()
    trainer = p.session.trainer
    qtbot.waitUntil(waiting.is_set, timeout=20000)   # the worker has started (from the loop)
    switch = sys.getswitchinterval()     # the worker gives the lock back to the window sooner
    assert switch == pytest.approx(session.RUN_SWITCH_S) and switch < before_run
    # the cards follow the run: five steps taken while the window is busy are one preview,
    # which shows the latest of them, not every step
    for taken in (5, 10, 15):
        gate.release(5)
        steps_taken(trainer, taken)
        qtbot.waitUntil(lambda: len(shown) == taken // 5, timeout=20000)
        assert shown[-1] == pytest.approx(trainer.losses[taken], rel=1e-6)
        np.testing.assert_array_equal(kernel(w), trainer.values()[KERNEL])
    # while the run goes on the player assembles no story: each would be stale at once
    painted = []
    w.canvas.after_repaint(lambda: painted.append(True))
    qtbot.waitUntil(lambda: bool(painted), timeout=20000)
    qtbot.wait(STORY_MS + 200)          # (before, the player took one STORY_MS after a paint)
    assert not w.controller.result.story_ready
    p.pause_button.click()      # while the worker waits at the gate inside step 16
    gate.release(1000)
    finish(qtbot, p)
    qtbot.waitUntil(lambda: w.controller.result.story_ready, timeout=20000)  # now it is
    assert sys.getswitchinterval() == before_run
    assert len(trainer.history) == 16            # it stopped after the step it was in
    np.testing.assert_array_equal(kernel(w), trainer.values()[KERNEL])   # the last step shown
    assert shown[-1] == pytest.approx(trainer.losses[16], rel=1e-6)
    assert "paused" in p.status.text() and p.run_button.isEnabled()
    # the entry names the 16 updates it undoes, in the menu and its status tip too
    undo, redo = w.actions_by_name["undo"], w.actions_by_name["redo"]
    label = "Training run (16 SGD steps)"
    assert (undo.text().replace("&", ""), undo.statusTip()) == (f"Undo {label}",) * 2
    undo.trigger()
    np.testing.assert_array_equal(kernel(w), start)
    assert (redo.text().replace("&", ""), redo.statusTip()) == (f"Redo {label}",) * 2


def test_reset_puts_the_variables_back_undoably(qtbot, panel):
    w, p = panel()
    start = kernel(w).copy()
    choose(p, "newton")
    p.step_button.click()
    finish(qtbot, p)
    trained = kernel(w).copy()
    assert not np.array_equal(trained, start)
    p.reset_button.click()
    np.testing.assert_array_equal(kernel(w), start)
    assert p.session.trainer is None and not p.reset_button.isEnabled()
    loss = float(w.controller.result.evaluation.values[Port("loss")])
    says_where_the_variables_are(p, "Reset training", loss)
    w.controller.undo_stack.undo()
    np.testing.assert_array_equal(kernel(w), trained)


def test_undo_of_reset_brings_back_the_run_its_curves_and_export(qtbot, panel):
    """Walk-through: Reset after 50 steps, then Ctrl+Z: the Variables came back but the loss
    plot showed one point at step 0 and 'Export run…' stayed disabled (Reset had dropped
    the trainer for good). Undo of Reset brings back the run as it was before Reset: its
    curves, Reset and Export run, and a run goes on from its step 50; Redo clears them."""
    w, p = panel()
    stack = w.controller.undo_stack
    start = kernel(w).copy()
    assert p.run(50), p.status.text()
    finish(qtbot, p)
    trained, before = kernel(w).copy(), curves_of(p)
    assert len(before[0][0]) == 51 and p.export_run_button.isEnabled()
    p.reset_button.click()
    np.testing.assert_array_equal(kernel(w), start)
    assert not p.export_run_button.isEnabled() and len(curves_of(p)[0][0]) == 1
    for _ in range(2):
        stack.undo()                                           # Ctrl+Z
        np.testing.assert_array_equal(kernel(w), trained)
        assert curves_of(p) == before
        assert p.export_run_button.isEnabled() and p.reset_button.isEnabled()
        assert p.status.text().startswith("Undo Reset training: back at step 50, loss ")
        stack.redo()
        np.testing.assert_array_equal(kernel(w), start)
        loss = float(w.controller.result.evaluation.values[Port("loss")])
        says_where_the_variables_are(p, "Redo Reset training", loss)
        assert not p.export_run_button.isEnabled() and not p.reset_button.isEnabled()
    stack.undo()
    assert p.run(5), p.status.text()                           # it goes on from step 50
    finish(qtbot, p)
    assert len(p.session.trainer.history) == 55 and curves_of(p)[0][1][:51] == before[0][1]


def test_an_edit_the_engine_sees_drops_the_trainer(qtbot, panel):
    w, p = panel()
    p.run(2)
    finish(qtbot, p)
    assert p.session.trainer is not None
    w.controller.move_nodes({"x": (0.0, 0.0)})             # a move: training goes on
    assert p.session.trainer is not None
    w.controller.set_value("x", np.zeros((7, 5), np.float32))
    assert p.session.trainer is None
    loss = float(w.controller.result.evaluation.values[Port("loss")])
    says_where_the_variables_are(p, w.controller.undo_stack.undoText(), loss)


def test_refusals_are_said_in_words(qtbot, panel):
    w, p = panel()
    choose(p, "adam", beta_1="fast")
    assert "β₁: 'fast' is not a number" in p.status.text()
    assert not p.run(3)
    choose(p, "adam", beta_1="1.5")
    assert "`beta_1` must be a number in [0, 1)" in p.status.text()
    choose(p, "sgd")
    for i in range(p.parameter_list.count()):
        p.parameter_list.item(i).setCheckState(p.parameter_list.item(i).checkState().Unchecked)
    assert not p.run(3)
    assert "no source is a Variable" in p.status.text()
    assert w.controller.undo_stack.count() == 0


def test_log_scale_leaves_out_what_it_cannot_draw(qtbot, panel):
    w, p = panel()
    choose(p, "sgd", learning_rate="0.1")
    p.run(3)
    finish(qtbot, p)
    p.log_box.setChecked(True)
    assert p.curves.loss_plot.getPlotItem().ctrl.logYCheck.isChecked()
    assert p.curves.hidden == 0
    p.curves.show_history([1.0, 0.0, -1.0], [])
    assert p.curves.hidden == 2 and p.curves.loss_curve.yData.tolist() == [1.0]


def test_closing_the_window_stops_a_run(qtbot, panel):
    w, p = panel("samples/train_2_valley.json")
    p.run(1_000_000)
    qtbot.waitUntil(lambda: len(p.session.trainer.history) >= 2, timeout=20000)
    job = p.session.job
    w.controller.undo_stack.setClean()
    w.close()
    assert job.wait(10)      # the worker ended
    assert len(p.session.trainer.history) < 1_000_000


def test_each_lesson_opens_the_dock_with_its_run(qtbot, panel):
    """The lesson's optimizer, hyper-parameters and steps (the document's training preset),
    from the first lesson opened and from each one opened after it."""
    from gradviz.graph.training import hyper_parameters
    w, p = panel("samples/train_1_gd_bowl.json")
    for lesson in ("train_1_gd_bowl", "train_2_valley", "train_3_newton", "001_hessian_newton",
                   "train_4_inverse"):
        w.controller.open(f"samples/{lesson}.json")
        preset = dict(load(f"samples/{lesson}.json").training)
        if not preset:                        # no preset: the dock keeps what it holds
            assert p.optimizer_name == "newton" and p.steps_box.value() == 1
            continue
        name, steps = preset.pop("optimizer"), preset.pop("steps")
        assert p.optimizer_name == name and p.steps_box.value() == steps
        assert p.run_button.text() == f"Run {steps}"
        assert p.hyper() == {**hyper_parameters(name), **preset}
    assert p.run(p.steps_box.value()), p.status.text()  # the inverse lesson's Adam run, as its text says
    finish(qtbot, p)
    assert p.session.trainer.losses[-1] < 1e-8


def test_any_step_of_the_run_is_written_out_with_that_steps_numbers(qtbot, panel):
    """Step 2 of 3 on the bowl x² + 3y² from (2, 1), SGD η = 0.1: x and y are multiplied by
    0.8 and 0.4 each step, so step 2 starts at x = 1.6, y = 0.4 with g = (3.2, 2.4)."""
    w, p = panel("samples/train_1_gd_bowl.json")
    choose(p, "sgd", learning_rate="0.1")
    p.run(3)
    finish(qtbot, p)
    view = p.step_view
    assert "Step 3 of the run" in view.text.text() and view.step_box.value() == 3
    view.step_box.setValue(2)
    text = view.text.text()
    assert "Step 2 of the run" in text and "The run has 3 steps" in text
    lines = [line for line in text.replace("<br>", "\n").replace("</p>", "\n").split("\n")
             if "←" in line]
    assert lines == ["x ← x − η·g = 1.6 − 0.1 × 3.2 = 1.28", "y ← y − η·g = 0.4 − 0.1 × 2.4 = 0.16"]
    for line in lines:                         # each equation holds as printed: w − η × g
        w_, lr, g, result = map(float, re.findall(r"\d+(?:\.\d+)?", line.split("=", 1)[1]))
        assert w_ - lr * g == pytest.approx(result, rel=1e-6)
    view.last_button.click()
    assert "Step 3 of the run" in view.text.text()
    p.run(1)                                   # the last step is followed again
    finish(qtbot, p)
    assert "Step 4 of the run" in view.text.text()


def test_a_step_opens_in_the_player_with_that_steps_values(qtbot, panel):
    """Step 2 of 3 (SGD η = 0.1 on x² + 3y² from (2, 1)): the document takes x = 1.6,
    y = 0.4, the player plays the backward pass from its first step, and its gradients are
    step 2's g = (3.2, 2.4); Undo puts the run's last values back and the run goes on."""
    w, p = panel("samples/train_1_gd_bowl.json")
    choose(p, "sgd", learning_rate="0.1")
    p.run(3)
    finish(qtbot, p)
    trained = {n: float(w.controller.doc.nodes[n].value) for n in "xy"}
    p.step_view.step_box.setValue(2)
    p.step_view.open_button.click()
    doc, stack = w.controller.doc, w.controller.undo_stack
    assert [float(doc.nodes[n].value) for n in "xy"] == pytest.approx([1.6, 0.4], rel=1e-6)
    assert stack.text(stack.count() - 1) == "Step 2 of the run, values before the update"
    assert "values before step 2 of the run" in p.status.text()
    assert w.player.index == 0
    gradients = w.controller.result.evaluation.gradients
    assert [float(gradients[Port(n)]) for n in "xy"] == pytest.approx([3.2, 2.4], rel=1e-6)
    accumulated = [s for s in w.player.steps if s.kind == "accumulate"]
    assert sorted(float(s.total) for s in accumulated) == pytest.approx([2.4, 3.2], rel=1e-6)
    # after the backward pass, the update of each Variable is one more card on the canvas
    updates = w.player.steps[-2:]
    assert [(s.kind, s.node, s.title) for s in updates] == [
        ("update", "x", "SGD update of x"), ("update", "y", "SGD update of y")]
    assert all(s.kind != "update" for s in w.player.steps[:-2])
    assert updates[0].formula.split("\n") == ["g = ∂loss/∂x = 3.2",
                                              "x ← x − η·g = 1.6 − 0.1 × 3.2 = 1.28"]
    assert updates[1].formula.split("\n")[1] == "y ← y − η·g = 0.4 − 0.1 × 2.4 = 0.16"
    w.player.last()
    assert w.canvas.step_overlay.step is updates[1]
    card = w.canvas.renderer._formula_rect(updates[1])
    assert card is not None
    assert w.canvas.viewport().rect().contains(w.canvas.mapFromScene(card.center()))
    # an entry of the card's g is explained as the gradient's: the sum the backward pass took
    assert w.provenance.subject.card_label == "gradient"
    assert w.provenance.select_entry(0).value == pytest.approx(2.4, rel=1e-6)
    assert p.session.trainer is not None and "Step 2 of the run" in p.last_step.text()
    stack.undo()
    assert {n: float(w.controller.doc.nodes[n].value) for n in "xy"} == trained
    assert all(s.kind != "update" for s in w.player.steps)  # not the values it was for
    assert not p.status.isVisible() or "before step 2" not in p.status.text()
    p.run(1)                                   # the run goes on from its own step 3
    finish(qtbot, p)
    assert float(w.controller.doc.nodes["x"].value) == pytest.approx(2 * 0.8 ** 4, rel=1e-6)


def test_the_train_lesson_keeps_one_formula_card_when_its_story_is_replaced(qtbot, panel):
    """Seen once: a stale '1/14 Seed loss' card beside the real one at the train lesson's
    open with the Train dock. The scene holds one step overlay, whichever order the lesson
    and the dock open in and however often the story is replaced, and it paints only inside
    its bounds (what it paints outside them is never erased: the view repaints bounds)."""
    from gradviz.app.canvas.overlay import StepOverlay
    from gradviz.app.player.lessons import lesson_entries, open_lesson
    lesson = next(e for e in lesson_entries() if e.path.name == "train_1_gd_bowl.json")
    w, p = panel(lesson.path)
    for replace in (lambda: open_lesson(w, lesson, ask=False),
                    lambda: w.controller.set_value("x", np.float32(1.5)),
                    lambda: open_lesson(w, lesson, ask=False)):
        replace()
        if w.player.index < 0:
            w.player.set_index(0)
        qtbot.wait(50)
        overlays = [i for i in w.canvas.scene().items() if isinstance(i, StepOverlay)]
        assert len(overlays) == 1 and overlays[0].step is w.player.step
        assert w.player.step_name(w.player.step).endswith("Seed loss")
        overlay = overlays[0]
        for picture in overlay.pictures():        # what it paints, recorded
            assert overlay.boundingRect().contains(QRectF(picture.boundingRect()))


def test_at_1280_by_800_the_dock_leaves_the_canvas_half_and_the_plots_their_height(qtbot, panel):
    """Walk-through at 1280 x 800: the dock opened at 58% of the window, the canvas was
    280 px high and the landscape plot 80 px under its choices and caption."""
    w, p = panel("samples/train_2_valley.json")
    assert (w.width(), w.height()) == (1280, 800)
    qtbot.waitUntil(lambda: w.train_dock.height() > 200)     # the dock claims its room
    qtbot.wait(20)
    canvas, dock = w.canvas.height(), w.train_dock.height()
    assert canvas >= dock and dock >= 250, (canvas, dock)
    p.tabs.setCurrentWidget(p.landscape)
    qtbot.wait(10)
    page = p.landscape.height()
    assert p.landscape.plot.height() >= page - 12 and page >= 120, (p.landscape.plot.height(), page)
    p.tabs.setCurrentWidget(p.curves)
    qtbot.wait(10)
    assert all(plot.height() >= 120 for plot in p.curves.plots), [x.height() for x in p.curves.plots]


def test_another_document_clears_the_run_its_status_curves_and_landscape(qtbot, panel):
    """Walk-through: after a run on train_2, opening train_3 left 'step 100, loss 0.000188581
    (began at 33). Undo puts the Variables back.' with Undo greyed."""
    w, p = panel("samples/train_2_valley.json")
    p.run(5)
    finish(qtbot, p)
    draw(qtbot, p)
    p.run(1_000_000)                       # and a run going on when the other one opens
    qtbot.waitUntil(lambda: len(p.session.trainer.history) >= 2, timeout=20000)
    w.controller.open("samples/train_3_newton.json")
    finish(qtbot, p)
    qtbot.wait(50)
    assert p.session.trainer is None and p.session._parked is None
    assert not p.status.isVisibleTo(p) and p.status.text() == ""
    assert not any(c[0] for c in curves_of(p))         # (None or [] for no points)
    assert p.landscape.land is None and p.landscape.path_curve.getData()[0] in (None, [])
    assert p.landscape.caption.text() == "" and "Take a step" in p.last_step.text()
    assert not p.reset_button.isEnabled() and not p.export_run_button.isEnabled()
    assert w.controller.undo_stack.count() == 0
    assert p.run(1), p.status.text()       # the new document trains from step 0
    finish(qtbot, p)
    assert len(p.session.trainer.history) == 1 and p.status.text().startswith("step 1, loss ")


def test_switching_optimizer_keeps_the_lessons_values_and_the_users(qtbot, panel):
    """Walk-through: switching to another optimizer and back reset η to Keras' default
    (Adam 0.001) while the lesson says 0.05. The preset's optimizer takes the preset's
    values, another Keras' defaults, and each keeps what the user typed into it until
    another document opens."""
    w, p = panel("samples/train_4_inverse.json")

    def pick(name):
        p.optimizer_box.setCurrentIndex(p.optimizer_box.findData(name))
    assert p.optimizer_name == "adam" and p.hyper()["learning_rate"] == 0.05
    assert "lesson" in p.fields["learning_rate"].toolTip()
    pick("sgd")
    assert p.hyper() == {"learning_rate": 0.01, "momentum": 0.0, "nesterov": False}
    p.fields["momentum"].setText("0.5")
    pick("adam")
    assert p.hyper()["learning_rate"] == 0.05 and p.hyper()["beta_1"] == 0.9
    p.fields["beta_1"].setText("0.8")
    pick("sgd")
    assert p.hyper()["momentum"] == 0.5
    pick("adam")
    assert (p.hyper()["learning_rate"], p.hyper()["beta_1"]) == (0.05, 0.8)
    assert "preset" in p.optimizer_box.toolTip() and "Keras" in p.optimizer_box.toolTip()
    w.controller.open("samples/train_4_inverse.json")     # a document afresh: its preset
    assert (p.hyper()["learning_rate"], p.hyper()["beta_1"]) == (0.05, 0.9)
    pick("sgd")
    assert p.hyper()["momentum"] == 0.0


def test_the_fields_and_the_kept_paths_write_numbers_as_the_dock_does(qtbot, panel):
    """H45 audit: Adam's ε field read '1e-07' and a kept path's key 'SGD (η 1e-05)' (Python's
    :g) where the dock's lines and the cards write 1×10⁻⁷. The fields, their tooltips and
    the key are written by story.numbers.significant, and a field reads back what it shows
    (as it reads what the user types: 1e-5, 0.01)."""
    from gradviz.app.training.kept_paths import settings_label
    from gradviz.graph.training import make_optimizer
    from gradviz.story.numbers import significant
    w, p = panel("samples/train_4_inverse.json")
    p.optimizer_box.setCurrentIndex(p.optimizer_box.findData("adam"))
    epsilon = p.hyper()["epsilon"]
    assert p.fields["epsilon"].text() == significant(epsilon) == "1×10⁻⁷"
    assert p.fields["learning_rate"].text() == significant(0.05)
    assert "e-" not in p.fields["learning_rate"].toolTip() + p.fields["epsilon"].toolTip()
    for typed, value in (("1e-5", 1e-5), ("0.01", 0.01), ("2.5×10⁻³", 2.5e-3), ("−0.5", -0.5)):
        p.fields["learning_rate"].setText(typed)
        assert p.hyper()["learning_rate"] == pytest.approx(value, rel=1e-12)
    p.fields["learning_rate"].setText("fast")
    with pytest.raises(ValueError, match="'fast' is not a number"):
        p.hyper()
    sgd = make_optimizer("sgd", learning_rate=1e-5, momentum=0.9)
    assert settings_label(sgd) == "SGD (η = 1×10⁻⁵, μ = 0.9)"


@pytest.mark.parametrize("name, fields", [("sgd", {"momentum": "0.9"}), ("rmsprop", {}),
                                          ("adam", {})])
def test_the_first_step_of_an_optimizer_with_state_writes_its_card(qtbot, panel, name, fields):
    """Walk-through: Step with Adam on a fresh dock raised KeyError 'm' while writing the
    Step tab, and the dock stayed 'running 1 step' with Step, Run and Reset disabled."""
    w, p = panel()
    choose(p, name, **fields)
    p.step_button.click()
    finish(qtbot, p)
    text = p.step_view.text.text()
    assert "Step 1 of the run" in text and ("m ←" in text or "v ←" in text or "s ←" in text)
    assert p.step_button.isEnabled() and p.run_button.isEnabled() and p.reset_button.isEnabled()
    assert not p.pause_button.isEnabled()


def test_a_run_leaves_the_steps_formula_card_where_the_player_docked_it(qtbot, panel):
    """Issue 20 §5 (auditor, lesson 23 at 1280 x 800): at the story's first step after Fit to
    Window, the seed card was docked at a readable size (1.5 times its layout) beside the
    compact cards; one Train ▸ Run step later it was drawn at its layout's size, 1.000 in
    7 px digits. The canvas' new renderer (the run's end measures the cards again) forgot
    where the player had docked the card of the step it still shows. It keeps it, as an
    edit's story does (PlayerBar._keep_view)."""
    from gradviz.render import painter as render_painter
    w, p = panel("samples/train_3_newton.json")
    w.player.set_index(0)
    qtbot.wait(100)
    w.actions_by_name["fit"].trigger()
    qtbot.wait(200)
    step = w.player.step

    def card():
        return render_painter.formula_rect(w.canvas.renderer, w.player.step)
    docked = card()
    layout = w.canvas.renderer.formula_layout(step)
    assert w.canvas.compact and docked.width() > 1.2 * layout.width    # the case: drawn larger
    p.steps_box.setValue(1)
    assert p.run(1)
    finish(qtbot, p)
    qtbot.wait(STORY_MS + 300)                   # the story taken again, the cards measured
    assert w.player.index == 0 and w.canvas.renderer.told_story() is not None
    assert card().size() == docked.size(), (card(), docked)
    overlay = w.canvas.step_overlay
    assert overlay.boundingRect().contains(card())


def test_the_update_rule_writes_its_numbers_as_the_fields_do(qtbot, panel):
    """The fields wrote η = 2×10⁻² while the update rule under them said (η = 0.02): one
    number in two notations on one dock. The rule writes its numbers as the fields do."""
    from gradviz.story.numbers import significant
    w, p = panel("samples/train_4_inverse.json")
    p.optimizer_box.setCurrentIndex(p.optimizer_box.findData("adam"))
    p.fields["learning_rate"].setText("0.02")
    p.fields["learning_rate"].editingFinished.emit()
    qtbot.waitUntil(lambda: "η = " in p.rule.text())
    hyper = p.hyper()
    rule = p.rule.text()
    for symbol, name in (("η", "learning_rate"), ("β₁", "beta_1"), ("β₂", "beta_2"), ("ε", "epsilon")):
        assert f"{symbol} = {significant(hyper[name])}" in rule, (symbol, rule)
    assert "e-" not in rule
