"""Exports of a training run: the plots as PNG, SVG or PDF (as on screen, through the
study views' exporter), and the run replayed as a GIF or an APNG through render's
writers: each frame is the graph with that step's values beside the curves grown to
that step (and the landscape's path, when it is drawn)."""
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ...graph.evaluate import evaluate
from ...graph.training import loss_of, with_values
from ...story.numbers import significant
from ...render import Renderer, animation, animation_files, legible, text as render_text
from ..export_dialog import export_widget, frame_progress
from ..studies.choosers import port_label
from ..folders import document_stem, remember_folder, start_folder

MAX_FRAMES = 60
FRAME_WIDTH, FRAME_HEIGHT = 1280, 720     # a slide's 16:9 (was a 3266 x 508 strip of 6 MB)
# Larger 16:9 frames, for a graph whose cards' digits would be drawn less than
# SLIDE_DIGIT_PX tall in the first (the inverse lesson's were 7 px): the smallest where
# they read on a projected slide.
FRAME_SIZES = ((FRAME_WIDTH, FRAME_HEIGHT), (1600, 900), (1920, 1080))
SLIDE_DIGIT_PX = 9.0     # the digits' own height as drawn (a font's size counts more)
HEADER = 44
NAME_ROOM = 34                            # px beside the landscape for its axis names
GRAPH_SHARE = 0.55                        # of the frame, beside or above the plots
WIDE = 1.8                                # a graph wider than this by its height goes on top


def export_plots(panel, path, scale=2.0):
    """The tab on screen (curves or landscape) to .png / .svg / .pdf."""
    return export_widget(panel.tabs.currentWidget(), path, scale)


def frame_steps(path_steps, count=MAX_FRAMES):
    """Up to `count` indices into the recorded path, evenly spread, first and last kept."""
    n = len(path_steps)
    if n <= count:
        return list(range(n))
    return sorted(set(np.linspace(0, n - 1, count).round().astype(int).tolist()))


def run_frames(panel, theme="light", progress=None):
    """FRAME_WIDTH x FRAME_HEIGHT QImages: the run replayed over its recorded path (which
    ends at the run's last step), the graph with each step's values beside the loss curve
    and the landscape's path (the gradient norms without a landscape). `progress(i,
    total)` returning False cancels (animation.Cancelled)."""
    trainer = panel.session.trainer
    if trainer is None or not trainer.path:
        raise ValueError("there is no run to export: train first (the path of a run with "
                         "more than 4,096 parameter entries is not kept)")
    path = list(trainer.path)
    chosen = frame_steps([step for step, _ in path])
    losses = trainer.losses
    history = list(trainer.history)
    curves, view = panel.curves, panel.landscape
    lower = view.plot if view.land is not None else curves.gradient_plot
    names = None if view.land is None else tuple(
        c.text(port_label(trainer.original, c.port)) for c in (view.land.x, view.land.y))
    title = run_title(trainer.optimizer.get_config())
    try:
        for i, k in enumerate(chosen):
            if progress is not None and progress(i, len(chosen)) is False:
                raise animation.Cancelled()
            step, values = path[k]
            doc = with_values(trainer.original, values)
            ev = evaluate(doc, persistent=False)
            curves.show_history(losses[:step + 1], history[:step])
            view.refresh_overlay(upto=step)
            yield _frame(Renderer(doc, evaluation=ev, theme=theme), curves.loss_plot, lower,
                         step_words(step, len(history), loss_of(doc, ev.values)),
                         title, names)
    finally:
        curves.show_history(losses, history)
        view.refresh_overlay()


def run_title(config):
    """'SGD, η = 0.1': the optimizer and its learning rate, as the dock writes numbers."""
    return f"{config['name']}, η = {significant(config['learning_rate'])}"


def step_words(step, steps, loss):
    """A frame's caption, 'step 23 of 23   loss 1.23457×10⁻⁵': its numbers written as the
    dock and the cards write them (story.numbers.significant), never .6g's 1.23457e-05."""
    return f"step {step} of {steps}   loss {significant(loss)}"


def frame_layout(bounds):
    """((width, height), graph rect, plots rect, orientation of the plots' split, scale of
    the graph) for a graph of `bounds`: the first of FRAME_SIZES where its cards' digits
    are drawn SLIDE_DIGIT_PX tall (the largest when none does). A graph
    wider than WIDE across the top, the plots side by side below; else the graph on the
    left, the plots stacked on the right."""
    for width, height in FRAME_SIZES:
        body = QRectF(8, HEADER, width - 16, height - HEADER - 8)
        if bounds.width() > WIDE * bounds.height():
            graph, plots = _split(body, Qt.Orientation.Vertical, GRAPH_SHARE)
            across = Qt.Orientation.Horizontal
        else:
            graph, plots = _split(body, Qt.Orientation.Horizontal, GRAPH_SHARE)
            across = Qt.Orientation.Vertical
        scale = min(graph.width() / max(1.0, bounds.width()),
                    graph.height() / max(1.0, bounds.height()), 2.0)
        if digit_px(scale) >= SLIDE_DIGIT_PX:
            break
    return (width, height), graph, plots, across, scale


def digit_px(scale):
    """How tall the cards' digits are drawn (px, their ink) in a frame, at `scale`."""
    font = render_text.mono(legible.NUMBER_PT)
    return QFontMetricsF(font).tightBoundingRect("0123456789").height() * scale


def _frame(renderer, upper, lower, text, title, names=None):
    """The graph and two plots, the step's words on top, all drawn at the frame's size (not
    pixels scaled), so they stay crisp (frame_layout). names: the lower plot's (x, y) axis
    names, written beside it (the landscape's plot on screen has them in its choosers)."""
    (width, height), graph, plots, across, scale = frame_layout(renderer.bounds(None))
    first, second = _split(plots, across, 0.5)
    frame = QImage(width, height, QImage.Format.Format_RGB32)
    frame.fill(QColor("white"))
    painter = QPainter(frame)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        _draw_graph(painter, renderer, graph, scale)
        _draw_widget(painter, upper, first)
        painter.setPen(QColor("#202020"))
        font = painter.font()
        font.setPixelSize(22)
        painter.setFont(font)
        if names:
            _draw_named(painter, lower, second, names)
        else:
            _draw_widget(painter, lower, second)
        header = QRectF(14, 0, width - 28, HEADER)
        painter.drawText(header, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        painter.drawText(header, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, title)
    finally:
        painter.end()
    return frame


def _split(rect, orientation, share, gap=8):
    """`rect` cut in two across `orientation`: the first part `share` of it."""
    if orientation == Qt.Orientation.Horizontal:
        cut = rect.width() * share
        return (QRectF(rect.left(), rect.top(), cut - gap / 2, rect.height()),
                QRectF(rect.left() + cut + gap / 2, rect.top(), rect.width() - cut - gap / 2,
                       rect.height()))
    cut = rect.height() * share
    return (QRectF(rect.left(), rect.top(), rect.width(), cut - gap / 2),
            QRectF(rect.left(), rect.top() + cut + gap / 2, rect.width(),
                   rect.height() - cut - gap / 2))


def _draw_graph(painter, renderer, rect, scale):
    """The graph drawn at `scale`, centred in `rect`."""
    bounds = renderer.bounds(None)
    painter.save()
    painter.translate(rect.center().x() - bounds.width() * scale / 2,
                      rect.center().y() - bounds.height() * scale / 2)
    painter.scale(scale, scale)
    painter.translate(-bounds.left(), -bounds.top())
    renderer.paint(painter, None, background=False)
    painter.restore()


def _draw_widget(painter, plot, rect):
    """A pyqtgraph plot drawn into `rect`, its aspect kept: the view paints its scene
    through the painter, so lines and text are drawn at that scale, not stretched pixels."""
    if plot.size().isEmpty():
        return
    plot.render(painter, rect, plot.viewport().rect(), Qt.AspectRatioMode.KeepAspectRatio)


def named_rects(plot, rect):
    """(plot, x name, y name) rectangles: the plot as large as its aspect allows in `rect`
    less NAME_ROOM at its left and below, the x name under it, the y name left of it."""
    inner = rect.adjusted(NAME_ROOM, 0, 0, -NAME_ROOM)
    size = plot.viewport().size()
    ratio = size.width() / max(1, size.height())
    w = min(inner.width(), inner.height() * ratio)
    h = w / ratio
    drawn = QRectF(inner.center().x() - w / 2, inner.center().y() - h / 2, w, h)
    return (drawn, QRectF(drawn.left(), drawn.bottom(), w, NAME_ROOM),
            QRectF(drawn.left() - NAME_ROOM, drawn.top(), NAME_ROOM, h))


def _draw_named(painter, plot, rect, names):
    """`plot` with its axis names (x below it, y left of it, turned), in `rect`."""
    if plot.size().isEmpty():
        return
    drawn, below, left = named_rects(plot, rect)
    plot.render(painter, drawn, plot.viewport().rect(), Qt.AspectRatioMode.KeepAspectRatio)
    centre = Qt.AlignmentFlag.AlignCenter
    painter.drawText(below, centre, names[0])
    painter.save()
    painter.translate(left.center())
    painter.rotate(-90)
    painter.drawText(QRectF(-left.height() / 2, -left.width() / 2, left.height(), left.width()),
                     centre, names[1])
    painter.restore()


def export_run(panel, path, fps=6.0, theme="light", progress=None):
    """The run as .gif or .png (APNG); returns the frames written."""
    return animation_files.write_animation(run_frames(panel, theme, progress), path, fps)


def export_plots_dialog(panel):
    """Ask where, then write the tab on screen; returns the path or None."""
    name = "training_landscape" if panel.tabs.currentWidget() is panel.landscape else "training_curves"
    path, _ = QFileDialog.getSaveFileName(panel, "Export plots", _start(panel, f"{document_stem(panel.controller)}_{name}.png"),
                                          "PNG picture (*.png);;SVG drawing (*.svg);;PDF (*.pdf)")
    if not path:
        return None
    remember_folder(panel.window(), "export", path)
    try:
        return export_plots(panel, path)
    except (OSError, ValueError) as e:
        QMessageBox.warning(panel, "Cannot export", f"{path}\n\n{e}")
        return None


def export_run_dialog(panel):
    """Ask where, then replay the run into a GIF or APNG behind a progress dialog with
    Cancel (a cancelled export leaves no file); returns the frames written or None."""
    path, _ = QFileDialog.getSaveFileName(panel, "Export run", _start(panel, f"{document_stem(panel.controller)}_training_run.gif"),
                                          "Animated GIF (*.gif);;Animated PNG (*.png)")
    if not path:
        return None
    remember_folder(panel.window(), "export", path)
    try:
        with frame_progress(panel, "Export run") as report:
            return export_run(panel, path, progress=report)
    except animation.Cancelled:
        return None
    except (OSError, ValueError) as e:
        QMessageBox.warning(panel, "Cannot export", f"{path}\n\n{e}")
        return None


def _start(panel, name):
    """`name` in the folder every export dialog last used (one setting for all), else the
    document's folder, else home."""
    document = panel.controller.path
    fallback = os.path.dirname(document) if document else str(Path.home())
    return os.path.join(start_folder(panel.window(), "export", fallback), name)
