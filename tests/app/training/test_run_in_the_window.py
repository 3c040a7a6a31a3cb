"""What a run costs the window (issue 22 §5: the edit → repaint under 50 ms during a run),
counted, not timed: the worker waits while the window draws an edit, and a preview keeps
every card's size, so no card is measured again and no edge takes a new route."""
import time

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
import pytest

from gradviz.app.canvas import edges, syncing
from gradviz.app.training import session as session_module
from gradviz.graph import Port
from gradviz.render.painter import Renderer

from gated_steps import gate_steps, steps_taken

BOWL = "samples/train_1_gd_bowl.json"


def train_dock(qtbot, open_window, optimizer="sgd", **fields):
    w = open_window(BOWL)
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    p = w.train_dock.panel
    p.optimizer_box.setCurrentIndex(p.optimizer_box.findData(optimizer))
    for key, text in fields.items():
        p.fields[key].setText(text)
    return w, p


def test_previews_keep_card_sizes_so_no_edge_takes_a_new_route(qtbot, open_window, monkeypatch):
    """η = 0.3 on the bowl: y flips its sign every step (1, −0.8, 0.64, ...), so its card's
    numbers are one character wider every other step. A card keeps the wider size while
    the run goes on (before, every other preview measured the card again and re-routed
    its edges), and fits its numbers again when the run ends."""
    gate, waiting = gate_steps(monkeypatch)
    measured, rerouted = [], []
    make_renderer = syncing.make_renderer

    def counted_renderer(*args, **kwargs):
        renderer = make_renderer(*args, **kwargs)
        measured.append(set(renderer.measured))
        return renderer
    monkeypatch.setattr(syncing, "make_renderer", counted_renderer)
    geometry = edges.EdgeItem.update_geometry
    monkeypatch.setattr(edges.EdgeItem, "update_geometry",
                        lambda item: rerouted.append(item.edge) or geometry(item))
    w, p = train_dock(qtbot, open_window, learning_rate="0.3")
    p.run(1000)
    trainer = p.session.trainer
    qtbot.waitUntil(waiting.is_set, timeout=20000)
    counts = []
    for n in range(1, 9):        # one step a preview
        del measured[:], rerouted[:]
        gate.release()
        steps_taken(trainer, n)
        qtbot.waitUntil(lambda: p.session._shown == n, timeout=20000)
        qtbot.waitUntil(lambda: not w.canvas.waiting_for_paint, timeout=20000)
        y = float(w.controller.result.evaluation.values[Port("y")])
        assert y == pytest.approx((-0.8) ** n, rel=1e-5)
        counts.append((sorted(set().union(*measured)), len(rerouted)))
    # The first previews may grow a card (−0.8 needs a character more than 1.0), as may a
    # number that comes to need more room (x² below 0.001 is written 4.19e-04); y's card
    # keeps its size, and no edge takes a new route.
    assert all("y" not in cards and not routes for cards, routes in counts[2:]), counts
    assert "y" in w.canvas.renderer.held
    p.pause_button.click()
    gate.release(1000)
    qtbot.waitUntil(lambda: not p.session.running, timeout=20000)
    qtbot.waitUntil(lambda: not w.canvas.renderer.held, timeout=20000)
    fitted = Renderer(w.controller.doc, w.controller.result.evaluation)
    assert w.canvas.renderer.cards["y"].width == fitted.cards["y"].width


def test_the_worker_waits_while_the_window_draws_an_edit(qtbot, open_window, monkeypatch):
    monkeypatch.setattr(session_module, "WINDOW_WAIT_S", 60.0)   # no step at all, however slow
    gate, waiting = gate_steps(monkeypatch)
    w, p = train_dock(qtbot, open_window, learning_rate="0.01")
    session = p.session
    p.run(1000)
    trainer = session.trainer
    qtbot.waitUntil(waiting.is_set, timeout=20000)
    moved = w.canvas.positions["x"]
    assert session.window_free.is_set()
    w.controller.move_nodes({"x": (moved[0] + 5.0, moved[1])})   # the user's edit
    assert not session.window_free.is_set()
    gate.release(3)
    steps_taken(trainer, 1)          # the step it was in ends; no other begins ...
    time.sleep(0.3)
    assert len(trainer.history) == 1
    qtbot.waitUntil(session.window_free.is_set, timeout=20000)     # ... until it is painted
    assert not w.canvas.waiting_for_paint
    steps_taken(trainer, 3)
    # a press on the canvas holds the worker too (a drag, a click that selects)
    viewport = w.canvas.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(5, 5))
    assert not session.window_free.is_set()
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       QPoint(5, 5))
    qtbot.waitUntil(session.window_free.is_set, timeout=20000)
    w.controller.move_nodes({"x": moved})
    p.pause_button.click()           # Pause does not wait for the paint
    assert session.window_free.is_set()
    gate.release(1000)
    qtbot.waitUntil(lambda: not session.running, timeout=20000)
    np.testing.assert_array_equal(w.controller.doc.nodes["x"].value, trainer.values()[Port("x")])


def test_the_worker_rests_while_the_ui_thread_is_busy(qtbot, open_window):
    """The worker steps while the UI thread keeps time, and rests while it is busy (pace.py):
    a compiled run took 600-700 steps a second beside a busy UI thread, whose 10 ms timer
    then ticked every 29-62 ms. The steps taken while the UI thread works for 0.4 s without
    coming back to the event loop (Python, and calls that let the lock go as a paint's
    calls into Qt do) are counted against those of 0.4 s with the window idle."""
    w, p = train_dock(qtbot, open_window, learning_rate="0.001")
    session = p.session
    p.run(1_000_000)
    trainer = session.trainer
    qtbot.waitUntil(lambda: len(trainer.history) > 20, timeout=20000)

    def steps_in(wait):
        before = len(trainer.history)
        wait()
        return len(trainer.history) - before

    def busy():
        qtbot.waitUntil(session.window_free.is_set)     # no edit holds the worker (hold_worker)
        end = time.perf_counter() + 0.4
        while time.perf_counter() < end:
            sum(range(300))
            time.sleep(0)
    idle = [steps_in(lambda: qtbot.wait(400)) for _ in range(2)]
    worked = [steps_in(busy) for _ in range(2)]
    p.pause_button.click()
    qtbot.waitUntil(lambda: not session.running, timeout=20000)
    assert min(idle) > 20, idle
    assert max(worked) < 0.2 * min(idle), (worked, idle)
