"""The Train dock follows the document: another document clears every plot, axis and
choice; the landscape's point, −∇L and Newton's star follow Undo, Redo and Reset; a run
draws its own path."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
import pytest

from train_dock_util import KERNEL, choose, draw, finish

VALLEY = "samples/train_2_valley.json"
BOWL = "samples/train_1_gd_bowl.json"


def contours_on_screen(view):
    return [i for i in view.plot.scene().items() if isinstance(i, pg.IsocurveItem)]


def point(view):
    x, y = view.point.getData()
    return float(x[0]), float(y[0])


def arrow_start(view):
    x, y = view.arrow_line.getData()
    return float(x[0]), float(y[0])


def test_another_document_leaves_no_contour_parameter_or_axis_of_the_last(qtbot, panel):
    """Walk-through: after the valley's landscape, File ▸ New kept its contours and 'x, y'
    ticked; lesson 21 then showed the valley's contours, and its run drew no path."""
    w, p = panel(VALLEY)
    view = draw(qtbot, p)
    assert len(contours_on_screen(view)) > 5
    x_range = view.plot.getPlotItem().getViewBox().viewRange()[0]
    w.new_document()
    assert contours_on_screen(view) == [] and view.image.image is None
    assert p.parameter_list.count() == 0 and p._ports == []
    assert view.x_box.count() == 0 and view.chosen() == (None, None)
    assert view.plot.getPlotItem().getViewBox().autoRangeEnabled() == [True, True]
    # no 0..1 axes around nothing (their top label was cut): words over the plot
    assert view.empty.isVisibleTo(view) and view.empty.geometry() == view.holder.rect()
    assert "this document has no Variable" in view.empty.text()
    w.controller.open(BOWL)
    assert contours_on_screen(view) == [] and p.parameter_list.count() == 2
    assert view.empty.isVisibleTo(view) and view.empty.text().startswith("Choose x and y, then Draw")
    p.parameter_list.item(1).setCheckState(Qt.CheckState.Unchecked)       # x alone: one entry
    assert "tick Variables with two entries or more" in view.empty.text()
    p.parameter_list.item(1).setCheckState(Qt.CheckState.Checked)
    assert view.plot.getPlotItem().getViewBox().viewRange()[0] != x_range
    choose(p, "sgd", learning_rate="0.1")
    p.run(20)
    finish(qtbot, p)
    xs, ys = view.path_curve.getData()           # the run's own path, without a surface
    assert len(xs) == 21 and (xs[0], ys[0]) == (2.0, 1.0)
    assert point(view) == pytest.approx((xs[-1], ys[-1]))
    box = view.plot.getPlotItem().getViewBox()
    box.updateAutoRange()                         # as the view fits its items when painted
    (x0, x1), (y0, y1) = box.viewRange()
    assert -2 < x0 <= min(xs) and max(xs) <= x1 < 5 and -2 < y0 <= min(ys) and max(ys) <= y1 < 3
    assert not view.empty.isVisibleTo(view)
    view = draw(qtbot, p)                         # a redraw replaces the contours
    first = len(contours_on_screen(view))
    draw(qtbot, p)
    assert len(contours_on_screen(view)) == first


def test_point_gradient_arrow_and_star_follow_undo_redo_and_reset(qtbot, panel):
    """Walk-through: after 100 steps on the valley Undo put x, y back at (−4, 1) but the
    −∇L arrow still started at the run's end."""
    w, p = panel(VALLEY)                        # loss = 0.5·x² + 25·y²
    p.run(100)
    finish(qtbot, p)
    view = draw(qtbot, p)
    end = point(view)
    assert arrow_start(view) == pytest.approx(end)

    def settled_at(where):
        qtbot.waitUntil(lambda: view.model_at == pytest.approx(where), timeout=20000)
        assert point(view) == pytest.approx(where)
        assert arrow_start(view) == pytest.approx(where)
        x, y = where
        np.testing.assert_allclose(view.model.gradient, [x, 50 * y], rtol=1e-4, atol=1e-6)
        direction = np.subtract(*reversed([np.array(c) for c in zip(*view.arrow_line.getData())]))
        np.testing.assert_allclose(direction / np.linalg.norm(direction),
                                   -view.model.gradient / np.linalg.norm(view.model.gradient),
                                   atol=1e-6)
        star = view.newton.getData()
        np.testing.assert_allclose([star[0][0], star[1][0]], [0, 0],
                                   atol=1e-2 * max(abs(x), abs(y)))
    land = view.land
    stack = w.controller.undo_stack
    stack.undo()
    settled_at((-4.0, 1.0))
    assert view.land is land                # x and y are all it has: the same surface
    assert "At the point: loss 33," in view.caption.text()
    assert len(view.path_curve.getData()[0]) == 1       # the run's path went with it
    stack.redo()
    settled_at(end)
    assert len(view.path_curve.getData()[0]) == 101
    assert view.kept.curves == []      # Redo brought the run back: it is the run's own path
    p.reset_button.click()
    settled_at((-4.0, 1.0))
    _the_three_runs_of_the_lesson(qtbot, w, p, view)


def _the_three_runs_of_the_lesson(qtbot, w, p, view):
    """Lesson 22 says "Compare the three paths in the Landscape tab", but the tab showed only
    the run's own path, and Undo or Reset wiped it. Each earlier run's path stays, in its
    own colour, with its optimizer and settings in the key, until Clear paths. (Goes on
    from the test above: its momentum run of 100 steps, then Reset.)"""
    from gradviz.app.training.kept_paths import COLOURS
    from train_dock_util import choose
    runs = [("SGD (η = 2×10⁻², μ = 0.9)", 101), ("Adam (η = 0.1)", 21), ("SGD (η = 3.5×10⁻²)", 21)]
    choose(p, "adam", learning_rate="0.1")
    p.run(20)                                   # 20 steps draw a path as well as 100
    finish(qtbot, p)
    w.controller.undo_stack.undo()              # back to (−4, 1) for the next optimizer
    choose(p, "sgd", learning_rate="0.035", momentum="0")
    p.run(20)
    finish(qtbot, p)
    view.refresh_overlay()
    drawn = [view.path_curve, *view.kept.curves]
    assert [len(c.getData()[0]) for c in drawn] == [21, 101, 21]
    assert {(c.getData()[0][0], c.getData()[1][0]) for c in drawn} == {(-4.0, 1.0)}
    key = view.key.text()
    assert f"path of the run: {runs[2][0]}" in key and key.count("earlier run:") == 2
    for colour, (label, _) in zip(COLOURS, runs[:2]):
        assert f"color:{colour}'>━●━</span> earlier run: {label}" in key
    view.draw()                                 # the surface holds every path drawn
    qtbot.waitUntil(lambda: view.job is None, timeout=60000)
    xs, ys = np.concatenate([c.getData()[0] for c in drawn]), np.concatenate([c.getData()[1] for c in drawn])
    land = view.land
    assert land.xs[0] <= xs.min() and xs.max() <= land.xs[-1]
    assert land.ys[0] <= ys.min() and ys.max() <= land.ys[-1]
    p.reset_button.click()                      # Reset keeps the earlier runs' paths
    qtbot.waitUntil(lambda: len(view.kept.curves) == 3)
    assert view.key.text().count("earlier run:") == 3 and view.clear_button.isEnabled()
    view.clear_button.click()
    assert view.kept.curves == [] and "earlier run" not in view.key.text()
    assert not view.clear_button.isEnabled()


def test_a_node_the_loss_does_not_need_does_not_stop_training(qtbot, panel):
    """Walk-through: a lone matmul added to an MLP made Step answer "node 'matmul': input 0
    (a) is not connected" and blanked the parameter list, while the story went on."""
    from gradviz.graph import load
    from gradviz.graph.training import Trainer
    w, p = panel()                                   # samples/001_hessian_newton.json
    listed = [p.parameter_list.item(i).text() for i in range(p.parameter_list.count())]
    w.controller.add_node("op", "matmul")
    assert w.controller.result.evaluation.errors     # the stray node has its problem
    assert [p.parameter_list.item(i).text() for i in range(p.parameter_list.count())] == listed
    choose(p, "sgd", learning_rate="0.1")
    assert p.run(3), p.status.text()
    finish(qtbot, p)
    assert p.status.property("kind") != "error", p.status.text()
    expected = Trainer(load("samples/001_hessian_newton.json"), p.session.trainer.optimizer.__class__(
        learning_rate=0.1))
    expected.run(3)
    np.testing.assert_allclose(p.session.trainer.losses, expected.losses, rtol=1e-6)
    assert [p.parameter_list.item(i).text() for i in range(p.parameter_list.count())] == listed
    view = draw(qtbot, p)
    assert view.land is not None and "error" != view.note.property("kind"), view.note.text()


def test_compact_cards_show_the_runs_last_values(qtbot, panel):
    """Walk-through at 1920 x 1080: after a run on the inverse lesson the compact cards'
    thumbnails stayed blank (x = 0, net unpainted) until F repainted them: only the numbers'
    item was repainted, and a compact card draws its thumbnail in its own cached picture."""
    w, p = panel("samples/train_4_inverse.json")
    canvas = w.canvas
    for _ in range(30):                             # compact is decided as it paints
        if canvas.compact:
            break
        canvas.zoom_out()
        qtbot.wait(20)
    assert canvas.compact

    def shown():
        qtbot.wait(60)
        return canvas.viewport().grab().toImage()
    before = shown()
    p.run(30)
    finish(qtbot, p)
    after_run = shown()
    for item in canvas.node_items.values():        # what F's full repaint draws
        item.update()
    assert after_run != before and shown() == after_run


def test_the_run_export_draws_the_landscape_with_its_path_growing(qtbot, panel, monkeypatch):
    """Walk-through: after the valley's landscape and lesson 21 opened, its run's GIF had the
    curves and the cards but no landscape path (the view held no surface, only the last
    document's contours)."""
    from PySide6.QtGui import QColor
    from gradviz.app.training import export
    from gradviz.app.training.landscape_view import PATH_COLOUR
    w, p = panel(VALLEY)
    draw(qtbot, p)
    w.controller.open(BOWL)
    choose(p, "sgd", learning_rate="0.1")
    p.run(20)
    finish(qtbot, p)
    view = draw(qtbot, p)
    grown, frame = [], export._frame
    monkeypatch.setattr(export, "_frame", lambda renderer, upper, lower, *a: grown.append(
        (lower is view.plot, len(view.path_curve.getData()[0]))) or frame(renderer, upper, lower, *a))
    frames = list(export.run_frames(p))
    assert [shown for shown, _ in grown] == [True] * 21
    assert [n for _, n in grown] == list(range(1, 22))
    last = frames[-1]
    path = QColor(PATH_COLOUR)
    near = sum(1 for x in range(last.width() // 2, last.width(), 2) for y in range(0, last.height(), 2)
               if _close(QColor(last.pixel(x, y)), path))
    assert near > 30, near


def _close(a, b, tolerance=40):
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) < tolerance


def test_a_slice_is_drawn_again_when_a_held_fixed_entry_moves(qtbot, panel):
    """Walk-through: on a slice (two of the Newton lesson's kernel entries, every other
    weight held), Undo of a run moved the held weights back and only the point followed:
    the contours stayed those of the slice at the run's end. Now the surface is computed
    again whenever a held entry moves (Undo, Redo, Reset, an edit, a run's end), and only
    the overlay follows when x and y alone move."""
    from gradviz.graph.landscape import landscape
    w, p = panel("samples/train_3_newton.json")
    p.landscape.size_box.setValue(12)
    view = draw(qtbot, p)
    land = view.land
    assert land.held_fixed > 0 and (land.x.port, land.y.port) == (KERNEL, KERNEL)

    def drawn_again():
        nonlocal land
        qtbot.waitUntil(lambda: view.land is not land and view.job is None, timeout=20000)
        land = view.land
        now = landscape(w.controller.doc, land.x, land.y, land.xs[[0, -1]], land.ys[[0, -1]],
                        n=len(land.xs))
        np.testing.assert_allclose(land.losses, now.losses, rtol=1e-6)
        assert land.center == pytest.approx(view.current_point(land.x, land.y))

    def kernel_with(entry, change):
        value = w.controller.doc.nodes["layer1"].weights["kernel"].copy()
        value[entry] += change
        w.controller.set_value("layer1", value, weight="kernel")

    kernel_with(land.x.index, 0.25)              # x alone: the same surface, the point moves
    assert view.job is None and view.land is land
    assert point(view) == pytest.approx(view.current_point(land.x, land.y))
    kernel_with((1, 1), 0.5)                     # a held entry: another slice
    drawn_again()
    choose(p, "sgd", learning_rate="0.05")
    p.run(3)
    finish(qtbot, p)
    drawn_again()
    stack = w.controller.undo_stack
    stack.undo()
    drawn_again()
    stack.redo()
    drawn_again()
    p.reset_button.click()
    drawn_again()

