"""The Train dock's layout at 1280 x 800 and 1920 x 1080: a tab beside the study docks,
never squeezed below readable; every status the dock says whole, wrapped; plots
that leave out tick labels rather than write them over each other; the landscape's axes
span the window it computed, its key shown whole."""
import ast
import inspect

import numpy as np
import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from app_ui import tick_labels

from gradviz.app import training
from gradviz.app.dock_room import in_front
from gradviz.app.training.landscape_view import MAX_ASPECT
from gradviz.app.window.main_window import CANVAS_MIN_HEIGHT
from gradviz.graph import load
from gradviz.graph.fileformat import save

from train_dock_util import draw, finish


def labels_drawn(axis):
    """The rectangles of the tick labels the axis writes, as it would paint them."""
    return [rect for rect, _ in tick_labels(axis)]


def overlapping(rects):
    return [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:] if a.intersects(b)]


def whole_on_screen(label):
    """True when `label` draws all its text: wrapped, as tall as its words at its width,
    and not cut by the dock around it."""
    need = label.heightForWidth(label.width())
    return label.wordWrap() and QLabel.text(label) == label.text() and label.height() >= need \
        and label.visibleRegion().boundingRect().height() >= need


FILL = "Redo Training run (10000 RMSprop steps)"     # longer than any value a message holds


def _template(node):
    """The words of a string literal or f-string, each value in it as FILL."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_template(part) if isinstance(part, ast.Constant) else FILL
                       for part in node.values)
    return None


def messages_in(module, calls):
    """Every string literal or f-string given to a call named in `calls` in `module`'s
    source, or assigned to `now` (the Train dock's status after an Undo or Redo)."""
    found = []
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in calls:
            found += [_template(arg) for arg in node.args]
        elif isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "now":
            found.append(f"{FILL}: {_template(node.value)}.")
    return [" ".join(text.split()) for text in found if text]


def test_every_message_the_dock_can_show_is_whole_at_1280_x_800(qtbot, panel):
    """Walk-through: on a document whose path passes argmax, Step said 'training: the loss
    does not depend on x through recorded ops (its gradient is None): choose parameters the
    …', and after an Undo '… a run starts from them, its …': the status showed two lines
    and '…', which cut the advice. (Before, this file asserted that '…' in a narrow dock.)
    Every message the dock says, from its own code and the refusals of the trainer and the
    optimizers (each value in it as a long FILL), is drawn whole, wrapped."""
    from gradviz.app.training import panel as panel_module
    from gradviz.engine import optimizers
    from gradviz.graph import training as graph_training
    w, p = panel("samples/train_2_valley.json")
    said = messages_in(panel_module, {"_say"})
    refusals = messages_in(graph_training, {"DocumentError", "ValueError"}) \
        + messages_in(optimizers, {"ValueError"})
    assert any("choose parameters the target depends on" in m for m in refusals)
    assert any("a run starts from them, its curves from step 0" in m for m in said)
    assert len(said) >= 8 and len(refusals) >= 10, (said, refusals)
    for kind, text in [("info", m) for m in said] + [("error", f"training step 100: {m}")
                                                     for m in refusals]:
        p.status.say(kind, text)
        qtbot.waitUntil(lambda: whole_on_screen(p.status), timeout=3000)
        assert p.status.text() == text and p.status.toolTip() == ""
        for plot in p.curves.plots:
            assert plot.height() >= 100, (text, [c.height() for c in p.curves.plots])


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_train_opened_beside_a_study_is_a_tab_never_a_squeezed_column(qtbot, panel, open_window,
                                                                      size):
    """Walk-through: Train opened beside the Jacobian (1280 x 800) or the Hessian (1920 x
    1080) split the bottom between them: titles and checks cut, ticks '0.20.40.60.8', the
    status a tall narrow column, curves 40 px high. At 1280 x 800 a study is now a tab
    beside the palette (dock_room.STORY_HEIGHT): Train is alone along the bottom there."""
    w = open_window("samples/train_2_valley.json", size=size)
    study = w.study_docks["Jacobian" if size[0] < 1500 else "Hessian"]
    study.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: study.isVisible())
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    p = w.train_dock.panel
    qtbot.waitUntil(lambda: not study.visibleRegion().isEmpty() or w.train_dock.width() > 0.9 * w.width())
    qtbot.wait(50)
    if size[0] < 1500:
        assert w.dockWidgetArea(study) == w.dockWidgetArea(w.palette_dock) and in_front(study)
    else:
        assert study in w.tabifiedDockWidgets(w.train_dock) and study.visibleRegion().isEmpty()
    assert w.train_dock.width() >= 0.9 * w.width()
    assert p.width() >= training.MIN_SIZE[0] and p.height() >= training.MIN_SIZE[1]
    assert (p.minimumWidth(), p.minimumHeight()) == training.MIN_SIZE
    assert w.canvas.height() >= CANVAS_MIN_HEIGHT
    p.run(100)
    finish(qtbot, p)
    p.pause_button.setEnabled(False)
    qtbot.wait(50)
    text = p.status.text()
    assert text.startswith("step 100, loss ") and text.endswith("Undo puts the Variables back.")
    # Walk-through 42: 'Undo puts the Variables ba…' at 1280 x 800. Whole, in two lines.
    assert p.status.text() == text and whole_on_screen(p.status)
    one_line = p.status.fontMetrics().lineSpacing()
    assert p.status.height() < 3.2 * one_line, (p.status.height(), one_line)
    for plot in p.curves.plots:
        assert plot.height() >= 120, [c.height() for c in p.curves.plots]
        for name in ("left", "bottom"):
            assert not overlapping(labels_drawn(plot.getPlotItem().getAxis(name)))


def test_narrow_plots_leave_out_tick_labels_rather_than_overlap(qtbot, panel):
    w, p = panel("samples/train_2_valley.json")
    plot = p.curves.loss_plot
    p.run(20)
    finish(qtbot, p)
    for width in (90, 140, 300):
        plot.setFixedWidth(width)
        plot.setFixedHeight(70)
        qtbot.wait(30)
        for name in ("left", "bottom"):
            rects = labels_drawn(plot.getPlotItem().getAxis(name))
            assert rects and not overlapping(rects), (width, name)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_landscape_spans_its_window_and_shows_its_key(qtbot, panel, open_window, size):
    """Walk-through at 1280 x 800: the valley's x axis ran from −18 to 16 while the
    contours filled −5 to 2.5 (a square window in a wide plot), the key's last line cut.
    Issue 20 §5 (auditor): the plot was a 170 x 170 px square beside a 700 px column of
    words, and its caption read 'Loss over x (x) and y (y)'. The window drawn now has the
    shape of the room beside the words (twice as wide as tall in a short dock), the view
    box that shape (it was square, as the window was), and the caption names the two
    coordinates once."""
    w = open_window("samples/train_2_valley.json", size=size)
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    p = w.train_dock.panel
    p.run(100)
    finish(qtbot, p)
    view = draw(qtbot, p)
    qtbot.wait(100)
    land = view.land
    shown = view.plot.getPlotItem().getViewBox().viewRange()
    for (low, high), grid in zip(shown, (land.xs, land.ys)):
        span = grid[-1] - grid[0]
        assert low == pytest.approx(grid[0], abs=0.02 * span) and \
            high == pytest.approx(grid[-1], abs=0.02 * span), (shown, grid[[0, -1]])
    box = view.plot.getPlotItem().getViewBox()
    aspect = (land.xs[-1] - land.xs[0]) / (land.ys[-1] - land.ys[0])
    assert box.height() >= (145 if size[1] < 1000 else 250)
    assert abs(box.width() - aspect * box.height()) <= 2 and 1 <= aspect <= MAX_ASPECT
    if size[1] < 1000:                                     # the short dock: a wide plot
        assert aspect == pytest.approx(MAX_ASPECT) and box.width() >= 290, (box.width(), aspect)
    assert "Loss over x and y, 100 × 100 points" in view.caption.text()
    assert "(x)" not in view.caption.text() and "over x and y." in view.caption.text()
    page = p.tabs.currentWidget()
    assert view.holder.height() >= page.height() - 4     # as tall as the tab allows
    key = view.key
    viewport = key.parentWidget().parentWidget()              # the scroll area's viewport
    bottom = key.mapTo(viewport, key.rect().bottomLeft()).y()
    assert 0 <= bottom <= viewport.height(), (bottom, viewport.height())
    xs, ys = view.path_curve.getData()
    assert np.all((xs >= shown[0][0]) & (xs <= shown[0][1]))


def test_the_run_gif_reads_on_a_slide(qtbot, panel, monkeypatch):
    """Walk-through (the inverse lesson, Adam): the exported run drew the cards' digits 7 px
    tall and its landscape without the names of its axes."""
    from gradviz.app.training import export
    from gradviz.graph import load
    from gradviz.render import Renderer
    for name in ("train_1_gd_bowl", "train_2_valley", "train_3_newton", "train_4_inverse"):
        bounds = Renderer(load(f"samples/{name}.json")).bounds(None)
        (width, height), _, _, _, scale = export.frame_layout(bounds)
        # 9 px tall where a 16:9 frame up to 1920 x 1080 holds the graph so (the inverse and
        # Newton lessons); the bowl's tall graph gets 8.6 px in the largest (they were 5.5)
        digits = export.digit_px(scale)
        assert digits >= 9 or (width, digits >= 8.5) == (1920, True), (name, width, digits)
        assert width * 9 == height * 16 and width <= 1920
    w, p = panel("samples/train_4_inverse.json")
    p.run(5)
    finish(qtbot, p)
    view = draw(qtbot, p)
    said = []
    frame = export._frame
    monkeypatch.setattr(export, "_frame", lambda *a: said.append(a) or frame(*a))
    last = list(export.run_frames(p))[-1]
    names = said[-1][5]
    assert names == (view.x_box.currentText(), view.y_box.currentText())
    (width, height), _, plots, across, _ = export.frame_layout(said[-1][0].bounds(None))
    assert (last.width(), last.height()) == (width, height)
    _, inset = export._split(plots, across, 0.5)
    for rect in export.named_rects(view.plot, inset)[1:]:    # ink where the names are written
        region = last.copy(rect.toRect())
        dark = sum(QColor(region.pixel(x, y)).lightness() < 100
                   for x in range(region.width()) for y in range(region.height()))
        assert dark >= 15, (names, rect)


def test_a_lesson_not_about_training_opens_without_the_train_dock(qtbot, open_window, app_env):
    """Issue 20 §5 (auditor, 1280 x 800): Train opened and run on lesson 22 stayed open over
    lesson 29, the gradient check, and kept the canvas at its least height (360 px): the
    lesson's vectors w, x, wx, t were drawn compact, colour strips with no numbers, in a
    lesson about checking a number. A lesson opens in its own layout: Train stays open only
    for a lesson with a training preset (lessons 21 to 24), the canvas gets back the
    height Train took, and the cards read. A file of the user's, opened, keeps the docks as
    the user left them; File ▸ New, nothing to train, closes Train as a lesson does."""
    w = open_window("samples/train_2_valley.json")
    w.train_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    p = w.train_dock.panel
    qtbot.waitUntil(lambda: w.canvas.height() <= CANVAS_MIN_HEIGHT + 2)   # Train took the rest
    squeezed = w.canvas.height()
    p.run(5)
    finish(qtbot, p)
    w.open_sample("samples/train_1_gd_bowl.json")         # about training: Train stays
    qtbot.wait(50)
    assert w.train_dock.isVisible() and in_front(w.train_dock)
    w.open_sample("samples/nets_3_gradient_check.json")   # lesson 29
    qtbot.waitUntil(lambda: w.train_dock.isHidden())
    qtbot.waitUntil(lambda: w.canvas.height() >= squeezed + training.MIN_SIZE[1])
    qtbot.waitUntil(lambda: not w.canvas.compact)        # once laid out and fitted
    w.canvas.fit()
    assert not w.canvas.compact
    w.train_dock.toggleViewAction().trigger()            # the user opens it again: it opens
    qtbot.waitUntil(lambda: w.train_dock.isVisible())
    w.open_sample("samples/train_4_inverse.json")         # lesson 24 has a training preset
    qtbot.wait(50)
    assert w.train_dock.isVisible()
    mine = app_env.tmp / "mine.gradviz.json"              # the user's own file, no preset
    save(load("samples/nets_3_gradient_check.json"), str(mine))
    assert w.open_file(str(mine))
    qtbot.wait(50)
    assert w.train_dock.isVisible()
    w.new_document()
    qtbot.waitUntil(lambda: w.train_dock.isHidden())
