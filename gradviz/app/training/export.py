"""Exports of a training run: the plots as PNG, SVG or PDF (as on screen, through the
study views' exporter), and the run replayed as a GIF or an APNG through render's
writers: each frame is the graph with that step's values beside the curves grown to
that step (and the landscape's path, when it is drawn)."""
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ...graph.evaluate import evaluate
from ...graph.training import loss_of, with_values
from ...render import Renderer, animation
from ...render.export import render_image
from ..export_dialog import export_widget, frame_progress

MAX_FRAMES = 60
FRAME_HEIGHT = 480


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
    """QImages of one size: the run replayed over its recorded path. `progress(i, total)`
    returning False cancels (animation.Cancelled)."""
    trainer = panel.session.trainer
    if trainer is None or not trainer.path:
        raise ValueError("there is no run to export: train first (the path of a run with "
                         "more than 4,096 parameter entries is not kept)")
    path = list(trainer.path)
    chosen = frame_steps([step for step, _ in path])
    losses = trainer.losses
    history = list(trainer.history)
    curves, view = panel.curves, panel.landscape
    size = None
    try:
        for i, k in enumerate(chosen):
            if progress is not None and progress(i, len(chosen)) is False:
                raise animation.Cancelled()
            step, values = path[k]
            doc = with_values(trainer.original, values)
            ev = evaluate(doc, persistent=False)
            graph = render_image(Renderer(doc, evaluation=ev, theme=theme), None, scale=1.0)
            curves.show_history(losses[:step + 1], history[:step])
            view.refresh_overlay(upto=step)
            shown = view.plot if panel.tabs.currentWidget() is view else curves
            plots = shown.grab().toImage()
            frame = _side_by_side(graph, plots, loss_of(doc, ev.values), step)
            size = size or frame.size()
            yield frame if frame.size() == size else frame.scaled(size)
    finally:
        curves.show_history(losses, history)
        view.refresh_overlay()


def _side_by_side(graph, plots, loss, step):
    h = FRAME_HEIGHT
    left = graph.scaledToHeight(h, Qt.TransformationMode.SmoothTransformation)
    right = plots.scaledToHeight(h, Qt.TransformationMode.SmoothTransformation)
    if left.width() > 2 * h:
        left = graph.scaledToWidth(2 * h, Qt.TransformationMode.SmoothTransformation)
    frame = QImage(left.width() + right.width(), h + 28, QImage.Format.Format_RGB32)
    frame.fill(QColor("white"))
    painter = QPainter(frame)
    try:
        painter.drawImage(0, 28 + (h - left.height()) // 2, left)
        painter.drawImage(left.width(), 28, right)
        painter.setPen(QColor("#202020"))
        font = painter.font()
        font.setPointSize(12)
        painter.setFont(font)
        painter.drawText(8, 20, f"step {step}   loss {loss:.6g}")
    finally:
        painter.end()
    return frame


def export_run(panel, path, fps=6.0, theme="light", progress=None):
    """The run as .gif or .png (APNG); returns the frames written."""
    return animation.write_animation(run_frames(panel, theme, progress), path, fps)


def export_plots_dialog(panel):
    """Ask where, then write the tab on screen; returns the path or None."""
    name = "training_landscape" if panel.tabs.currentWidget() is panel.landscape else "training_curves"
    path, _ = QFileDialog.getSaveFileName(panel, "Export plots", name + ".png",
                                          "PNG picture (*.png);;SVG drawing (*.svg);;PDF (*.pdf)")
    if not path:
        return None
    try:
        return export_plots(panel, path)
    except (OSError, ValueError) as e:
        QMessageBox.warning(panel, "Cannot export", f"{path}\n\n{e}")
        return None


def export_run_dialog(panel):
    """Ask where, then replay the run into a GIF or APNG behind a progress dialog with
    Cancel (a cancelled export leaves no file); returns the frames written or None."""
    path, _ = QFileDialog.getSaveFileName(panel, "Export run", "training_run.gif",
                                          "Animated GIF (*.gif);;Animated PNG (*.png)")
    if not path:
        return None
    try:
        with frame_progress(panel, "Export run") as report:
            return export_run(panel, path, progress=report)
    except animation.Cancelled:
        return None
    except (OSError, ValueError) as e:
        QMessageBox.warning(panel, "Cannot export", f"{path}\n\n{e}")
        return None
