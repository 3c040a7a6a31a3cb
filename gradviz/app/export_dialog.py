"""File ▸ Export Step…, Export View… and Export Animation…: pictures for slides.

Export Step writes what the canvas shows (the current story step, or the plain graph
before the first step) as PNG, SVG or PDF through `render.export`. Export View writes a
study dock (Jacobian, Hessian …) as it is on screen, banners and plots together: PNG at
twice the screen's resolution, SVG and PDF as vector drawings. Export Animation writes
the whole backward pass as an animated GIF, an APNG or a numbered PNG sequence through
`render.animation`, behind a progress dialog with Cancel (a cancelled export leaves no
file behind).
"""
import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QPoint, QRect, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPalette, QPdfWriter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QMessageBox,
                               QProgressDialog, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from ..engine.errors import counted
from ..graph.atomic import write_bytes
from ..render import Renderer, animation, animation_files, export
from ..story.build import no_backward_pass_sentence
from .folders import document_stem, file_stem, remember_folder, start_folder

THEMES = (("contrast", "High contrast (projector and print)"), ("light", "Light"), ("dark", "Dark"))
STEP_FORMATS = (("png", "PNG picture"), ("svg", "SVG drawing"), ("pdf", "PDF document"))
ANIMATION_FORMATS = (("gif", "Animated GIF (.gif)"), ("apng", "Animated PNG (.png)"),
                     ("sequence", "Numbered PNG pictures (folder)"))


def _renderer(window, theme):
    result, doc = window.controller.result, window.controller.doc
    positions = window.canvas.reading_positions() or None
    return Renderer(doc, evaluation=result.evaluation, story=result.story, theme=theme,
                    positions=positions)


def current_step(window):
    """The index of the step the window shows, or None before the first step."""
    player = getattr(window, "player", None)
    index = getattr(player, "index", -1) if player is not None else -1
    return index if index is not None and index >= 0 else None


def export_step(window, path, theme="contrast", scale=2.0, step="current", warn=None):
    """Write the current step (or `step`, None for the plain graph) as PNG / SVG / PDF;
    returns the path. `warn(message)` hears of a PNG drawn smaller than asked. A step of a
    graph the canvas laid out is laid out for a slide, as the GIF frames it
    (`animation.slide_renderer`): a 16-node MLP was one row of 6640 x 1836 px."""
    if step == "current":
        step = current_step(window)
    renderer = _renderer(window, theme)
    if step is not None:
        renderer = animation.slide_renderer(renderer)
    return export(window.controller.doc, path, step=step, theme=theme, scale=scale, renderer=renderer,
                  warn=warn)


def report_export(window, path, notes):
    """The status bar line after an export, with any note (a PNG drawn smaller) in full."""
    window.show_message(" ".join([f"Exported {path}", *notes]))
    if notes:
        QMessageBox.information(window, "Exported", "\n\n".join(notes))


@dataclass
class Slide:
    """A picture made of widgets, each drawn as it is on screen at its place on the slide
    (a view's plots and words without its controls: StudyView.slide)."""
    size: QSize
    pieces: list = field(default_factory=list)     # (widget, QPoint where it goes)
    background: QColor = field(default_factory=lambda: QColor("white"))
    dpi: int = 96
    title: str = "gradviz view"
    owner: object = None      # a widget made only to be drawn (deleted once it is)


def whole(widget):
    """`widget` as it is on screen, all of it."""
    return Slide(widget.size(), [(widget, QPoint())], widget.palette().color(QPalette.ColorRole.Window),
                 widget.logicalDpiX(), widget.windowTitle() or "gradviz view")


def export_widget(widget, path, scale=2.0):
    """Write `widget` to `path` (.png at `scale` × its size, .svg, .pdf): its slide() where
    it has one (a study view), else the widget as it is on screen."""
    slide = widget.slide() if callable(getattr(widget, "slide", None)) else whole(widget)
    try:
        return export_slide(slide, path, scale)
    finally:
        if slide.owner is not None:
            slide.owner.deleteLater()


def _draw(slide, painter):
    painter.fillRect(QRect(QPoint(), slide.size), slide.background)
    flags = QWidget.RenderFlag.DrawWindowBackground | QWidget.RenderFlag.DrawChildren
    for widget, at in slide.pieces:
        painter.save()
        painter.translate(at)
        # QWidget's render: a plot's QGraphicsView.render would draw its scene, not the widget
        QWidget.render(widget, painter, QPoint(), QRegion(QRect(QPoint(), widget.size())), flags)
        painter.restore()


def export_slide(slide, path, scale=2.0):
    path = str(path)
    kind = Path(path).suffix.lower().lstrip(".")
    if kind not in ("png", "svg", "pdf"):
        raise ValueError(f"{Path(path).name}: export a view as .png, .svg or .pdf")
    size = slide.size
    if size.isEmpty():
        raise ValueError("the view has no size yet: show it first")
    if kind == "png":
        image = QImage(int(size.width() * scale), int(size.height() * scale),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(scale)
        image.fill(QColor("white"))
        painter = QPainter(image)
        _draw(slide, painter)
        painter.end()
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):
            raise OSError(f"cannot encode {path}")
        write_bytes(path, bytes(buffer.data()))
        return path
    buffer = QBuffer()   # drawn in memory, then written atomically (write_bytes)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if kind == "svg":
        device = QSvgGenerator()
        device.setOutputDevice(buffer)
        device.setSize(size)
        device.setViewBox(QRect(QPoint(), size))
        # The widget lays its text out at the screen's dpi; at the generator's default 72
        # an 11 pt font would be written 11 px high, smaller than it was laid out, and text
        # drawn in pieces (‖, then Δ from another font) would show gaps: ‖  Δ w‖.
        device.setResolution(slide.dpi)
        device.setTitle(slide.title)
    else:
        device = QPdfWriter(buffer)
        device.setResolution(96)
        device.setPageLayout(QPageLayout(QPageSize(QSizeF(size.width() * 0.75, size.height() * 0.75),
                                                   QPageSize.Unit.Point, "view"),
                                         QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    painter = QPainter(device)
    if not painter.isActive():
        raise OSError(f"cannot draw {path}")
    _draw(slide, painter)
    painter.end()
    del device   # a PDF is complete once its writer is gone
    write_bytes(path, bytes(buffer.data()))
    return path


def study_view_on_screen(window):
    """The study view the user looks at: the one with the keyboard focus, else the first
    whose dock is shown and raised; None when no study dock is on screen."""
    shown = [d.view for d in getattr(window, "study_docks", {}).values()
             if getattr(d, "view", None) is not None and d.isVisible()
             and not d.visibleRegion().isEmpty()]
    focus = QApplication.focusWidget()
    for view in shown:
        if focus is not None and view.isAncestorOf(focus):
            return view
    return shown[0] if shown else None


def export_animation(window, path, kind=None, fps=animation.FPS, scale=animation.SCALE,
                     frames_per_step=animation.FRAMES_PER_STEP, hold=animation.HOLD, theme="contrast",
                     progress=None):
    """Write the backward pass as 'gif', 'apng' or a PNG 'sequence' (path is a folder).
    `frames_per_step`: frames of the cotangent's (eased) motion; `hold`: still frames after it;
    before each step the camera glides to it for animation.GLIDE_SECONDS at `fps`. A graph
    the canvas laid out (no card placed by the user) is laid out for the slide
    (`animation.slide_renderer`).

    `progress(i, total)` is called before each frame; returning False cancels
    (raises animation.Cancelled, nothing is left behind). Returns the frames written.
    """
    path = Path(path)
    kind = kind or {".gif": "gif", ".png": "apng", ".apng": "apng"}.get(path.suffix.lower(), "sequence")
    renderer = animation.slide_renderer(_renderer(window, theme), scale=scale)
    doc = window.controller.doc
    glide = animation.frames_for(animation.GLIDE_SECONDS, fps)
    total = animation.frame_count(renderer.story, frames_per_step, hold, glide=glide)

    def source():
        for i, image in enumerate(animation.frames(doc, renderer=renderer, scale=scale,
                                                   frames_per_step=frames_per_step, hold=hold, glide=glide)):
            if progress is not None and progress(i, total) is False:
                raise animation.Cancelled()
            yield image
        if progress is not None:
            progress(total, total)

    if kind == "gif":
        return animation_files.write_gif(source(), path, fps, keep=animation_files.theme_colours(theme))
    if kind == "apng":
        return animation_files.write_apng(source(), path, fps, keep=animation_files.theme_colours(theme))
    if kind == "sequence":
        return len(animation_files.write_png_sequence(source(), path, document_stem(window.controller)))
    raise ValueError(f"unknown animation kind {kind!r}")


def _start_dir(window):
    """The folder the last export went to, else the document's, else home."""
    path = window.controller.path
    return start_folder(window, "export", os.path.dirname(path) if path else str(Path.home()))


class _PathRow(QWidget):
    def __init__(self, text, browse):
        super().__init__()
        self.edit = QLineEdit(text)
        self.edit.setMinimumWidth(360)
        button = QPushButton("Browse…")
        button.clicked.connect(browse)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(button)


def _seconds_box(value, low, high, tip):
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(0.1)
    box.setDecimals(1)
    box.setValue(value)
    box.setSuffix(" s")
    box.setToolTip(tip)
    return box


def _theme_box(default="contrast"):
    box = QComboBox()
    for name, label in THEMES:
        box.addItem(label, name)
    box.setCurrentIndex(max(0, box.findData(default)))
    box.setToolTip("High contrast: white background, black type, colour-blind-safe colours")
    return box


class ExportStepDialog(QDialog):
    """Where to, which format, theme and (for PNG) resolution."""

    def __init__(self, window):
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Export Step")
        step = current_step(window)
        steps = len(getattr(window.controller.result.story, "steps", None) or [])
        what = (f"Step {step + 1} of {steps}" if step is not None else "The graph (before the first step)")
        stem = document_stem(window.controller) + (f"_step{step + 1:02d}" if step is not None else "")
        self.format = QComboBox()
        for name, label in STEP_FORMATS:
            self.format.addItem(label, name)
        self.path = _PathRow(os.path.join(_start_dir(window), stem + ".png"), self._browse)
        self.format.currentIndexChanged.connect(self._format_changed)
        self.theme = _theme_box()
        self.scale = QDoubleSpinBox()
        self.scale.setRange(0.5, 8.0)
        self.scale.setSingleStep(0.5)
        self.scale.setValue(2.0)
        self.scale.setSuffix(" ×")
        self.scale.setToolTip("PNG pixels per point: 2 is sharp on a projector, 4 for print")
        form = QFormLayout()
        form.addRow("Shows:", QLabel(what))
        form.addRow("Format:", self.format)
        form.addRow("File:", self.path)
        form.addRow("Colours:", self.theme)
        form.addRow("PNG scale:", self.scale)
        _save_cancel_layout(self, form)

    def _format_changed(self):
        fmt = self.format.currentData()
        path = Path(self.path.edit.text())
        self.path.edit.setText(str(path.with_suffix("." + fmt)))
        self.scale.setEnabled(fmt == "png")

    def _browse(self):
        fmt = self.format.currentData()
        path, _ = QFileDialog.getSaveFileName(self, "Export step", self.path.edit.text(),
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            self.path.edit.setText(path if path.lower().endswith("." + fmt) else f"{path}.{fmt}")

    def options(self):
        return dict(path=self.path.edit.text(), theme=self.theme.currentData(),
                    scale=self.scale.value())


class ExportViewDialog(QDialog):
    """Where to, which format and (for PNG) resolution, for one study view."""

    def __init__(self, window, view):
        super().__init__(window)
        self.setWindowTitle("Export View")
        stem = f"{document_stem(window.controller)}_{file_stem(view.title)}"
        self.format = QComboBox()
        for name, label in STEP_FORMATS:
            self.format.addItem(label, name)
        self.path = _PathRow(os.path.join(_start_dir(window), stem + ".png"), self._browse)
        self.format.currentIndexChanged.connect(self._format_changed)
        self.scale = QDoubleSpinBox()
        self.scale.setRange(1.0, 4.0)
        self.scale.setSingleStep(0.5)
        self.scale.setValue(2.0)
        self.scale.setSuffix(" ×")
        self.scale.setToolTip("PNG pixels per screen pixel: 2 is sharp on a slide")
        form = QFormLayout()
        form.addRow("Shows:", QLabel(f"The {view.title} view: its plots and all its words"))
        form.addRow("Format:", self.format)
        form.addRow("File:", self.path)
        form.addRow("PNG scale:", self.scale)
        _save_cancel_layout(self, form)

    _format_changed = ExportStepDialog._format_changed

    def _browse(self):
        fmt = self.format.currentData()
        path, _ = QFileDialog.getSaveFileName(self, "Export view", self.path.edit.text(),
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            self.path.edit.setText(path if path.lower().endswith("." + fmt) else f"{path}.{fmt}")

    def options(self):
        return dict(path=self.path.edit.text(), scale=self.scale.value())


# The hold is the least a finished step stays still: the picture also stands still through
# the last frame of its motion, and longer where nothing changes around it (the auditor
# timed 1.64, 2.4, 2.4 and 2.04 s beside a dialog that said 1.6 s).
HOLD_LABEL = "Hold each step at least:"
HOLD_TIP = ("The least time each finished step stays still, to read it. It stays longer where "
            "the picture does not change: the last frame of its motion, a camera that stays "
            "put before the next step, a step whose cotangent does not travel (GIF and APNG "
            "store a still stretch once, with its delay)")


class ExportAnimationDialog(QDialog):
    """GIF / APNG / PNG sequence, frame rate, how long the motion and the hold of each step
    last (in seconds: what a teacher plans a slide by), scale, theme."""

    def __init__(self, window):
        super().__init__(window)
        self.setWindowTitle("Export Animation")
        self.kind = QComboBox()
        for name, label in ANIMATION_FORMATS:
            self.kind.addItem(label, name)
        self.stem = document_stem(window.controller)
        self.path = _PathRow(os.path.join(_start_dir(window), self.stem + ".gif"), self._browse)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.fps = QSpinBox()
        self.fps.setRange(1, 60)
        self.fps.setValue(round(animation.FPS))
        self.fps.setSuffix(" frames/s")
        self.fps.setToolTip("Frames per second of the motion: 20 or more looks smooth")
        self.motion = _seconds_box(animation.MOTION_SECONDS, 0.1, 5.0,
                                   "How long the cotangent travels along its edge")
        self.hold = _seconds_box(animation.HOLD_SECONDS, 0.0, 10.0, HOLD_TIP)
        self.scale = QDoubleSpinBox()
        self.scale.setRange(0.25, 4.0)
        self.scale.setSingleStep(0.25)
        self.scale.setValue(animation.SCALE)
        self.scale.setSuffix(" ×")
        self.scale.setToolTip("Pixels per point: 2 is sharp on a projector, as Export Step's PNG")
        self.theme = _theme_box()
        self.estimate = QLabel()
        for w in (self.fps, self.motion, self.hold):
            w.valueChanged.connect(self._update_estimate)
        self.kind.currentIndexChanged.connect(self._update_estimate)
        self.story = window.controller.result.story
        form = QFormLayout()
        form.addRow("Format:", self.kind)
        form.addRow("Save to:", self.path)
        form.addRow("Frame rate:", self.fps)
        form.addRow("Motion of a step:", self.motion)
        form.addRow(HOLD_LABEL, self.hold)
        form.addRow("Scale:", self.scale)
        form.addRow("Colours:", self.theme)
        form.addRow("", self.estimate)
        _save_cancel_layout(self, form)
        self._update_estimate()

    def _frames(self):
        """(frames of motion, frames of hold) per step at the chosen rate."""
        fps = self.fps.value()
        return (max(1, animation.frames_for(self.motion.value(), fps)),
                animation.frames_for(self.hold.value(), fps))

    def _update_estimate(self):
        """How many steps and how long it plays; for a PNG sequence, how many pictures (each
        frame one). A GIF or APNG stores a held or unchanged stretch once, with its delay:
        how many frames it holds is known only once they are drawn (the dialog said 321
        for the 61 of lesson 1's GIF), so it is not claimed."""
        n = animation.frame_count(self.story, *self._frames(),
                                  glide=animation.frames_for(animation.GLIDE_SECONDS, self.fps.value()))
        steps = len(getattr(self.story, "steps", None) or [])
        pictures = f"{counted(n, 'picture')}, " if self.kind.currentData() == "sequence" else ""
        self.estimate.setText(f"{counted(steps, 'step')}, {pictures}plays {n / self.fps.value():.1f} s")

    def _kind_changed(self):
        kind = self.kind.currentData()
        path = Path(self.path.edit.text())
        if kind == "sequence":
            path = path.with_suffix("") if path.suffix else path
        else:
            path = path.with_suffix(".gif" if kind == "gif" else ".png")
        self.path.edit.setText(str(path))

    def _browse(self):
        kind = self.kind.currentData()
        if kind == "sequence":
            path = QFileDialog.getExistingDirectory(self, "Folder for the PNG pictures",
                                                    str(Path(self.path.edit.text()).parent))
        else:
            ext = "gif" if kind == "gif" else "png"
            path, _ = QFileDialog.getSaveFileName(self, "Export animation", self.path.edit.text(),
                                                  f"{ext.upper()} (*.{ext})")
            if path and not path.lower().endswith("." + ext):
                path += "." + ext
        if path:
            self.path.edit.setText(path)

    def options(self):
        frames_per_step, hold = self._frames()
        return dict(path=self.path.edit.text(), kind=self.kind.currentData(), fps=self.fps.value(),
                    scale=self.scale.value(), frames_per_step=frames_per_step, hold=hold,
                    theme=self.theme.currentData())


def export_step_dialog(window, options=None):
    """Ask (unless `options` are given), then export; returns the path or None."""
    if options is None:
        dialog = ExportStepDialog(window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        options = dialog.options()
    notes = []
    try:
        path = export_step(window, **options, warn=notes.append)
    except (OSError, ValueError) as e:
        QMessageBox.warning(window, "Cannot export", f"{options.get('path')}\n\n{e}")
        return None
    remember_folder(window, "export", path)
    report_export(window, path, notes)
    return path


def export_view_dialog(window, view=None, options=None):
    """Export `view` (default: the study view on screen); asks unless `options` are given.
    Returns the path written, or None."""
    view = view or study_view_on_screen(window)
    if view is None:
        QMessageBox.information(window, "Export View",
                                "No study view is on screen: show one from View ▸ Studies "
                                "(the Jacobian, the Hessian …), then export it. Export Step "
                                "saves the graph and the story step.")
        return None
    if options is None:
        dialog = ExportViewDialog(window, view)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        options = dialog.options()
    try:
        path = export_widget(view, **options)
    except (OSError, ValueError) as e:
        QMessageBox.warning(window, "Cannot export", f"{options.get('path')}\n\n{e}")
        return None
    remember_folder(window, "export", path)
    if hasattr(window, "show_message"):
        window.show_message(f"Exported the {view.title} view to {path}")
    return path


def export_animation_dialog(window, options=None):
    """Ask (unless `options` are given), then write the frames behind a progress dialog
    with Cancel; returns the number of frames written, or None."""
    if not getattr(window.controller.result.story, "steps", None):
        QMessageBox.information(window, "Export Animation", no_backward_pass_sentence(
            window.controller.doc, getattr(window.controller.result, "problems", ()), "animate"))
        return None
    if options is None:
        dialog = ExportAnimationDialog(window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        options = dialog.options()
    try:
        with frame_progress(window, "Export Animation") as report:
            count = export_animation(window, progress=report, **options)
    except animation.Cancelled:
        window.show_message("Export cancelled; nothing was written")
        return None
    except (OSError, ValueError) as e:
        QMessageBox.warning(window, "Cannot export", f"{options.get('path')}\n\n{e}")
        return None
    remember_folder(window, "export", options["path"])   # a sequence's folder: its parent
    window.show_message(f"Exported {counted(count, 'frame')} to {options['path']}")
    return count


@contextlib.contextmanager
def frame_progress(parent, title):
    """A modal progress dialog with Cancel while an animation's frames are written: yields
    `report(i, total)` for the writer, which returns False once Cancel is pressed (the
    writer then raises animation.Cancelled and leaves no file)."""
    progress = QProgressDialog("Drawing the frames…", "Cancel", 0, 100, parent)
    progress.setWindowTitle(title)
    progress.setWindowModality(Qt.WindowModality.WindowModal)
    progress.setMinimumDuration(200)
    progress.setAutoClose(False)
    progress.setAutoReset(False)

    def report(i, total):
        progress.setMaximum(total)
        progress.setValue(i)
        progress.setLabelText(f"Frame {min(i + 1, total)} of {total}"
                              + ("" if i < total else " — compressing"))
        QApplication.processEvents()
        return not progress.wasCanceled()
    try:
        yield report
    finally:
        progress.close()
        progress.deleteLater()


def _save_cancel_layout(dialog, form):
    """The dialog's layout: its form, then Save and Cancel."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                               | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addLayout(form)
    layout.addWidget(buttons)
