"""The backprop player: step through the story of the backward pass on the canvas.

What is shown is a function of the step index alone (`index` -> story.steps[index],
drawn by the canvas overlay and framed by `step_view`), never the sum of effects
replayed so far, so stepping back is exact. Index -1 is the editing view (no step).
Playing advances on a QTimer; within a step a QVariantAnimation drives the overlay's
progress 0 -> 1 (the cotangent travelling along its edge).
"""
import html
import math
import time

from PySide6.QtCore import QEasingCurve, QEvent, QRect, QSize, Qt, QTimer, QVariantAnimation, Signal
from PySide6.QtGui import QAction, QKeySequence, QTextDocument
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStyle, QToolButton, QVBoxLayout,
                               QWidget)

from ...engine.errors import counted
from ...render import painter as render_painter
from ...render.involved import step_groups
from ...render.legible import READABLE_PX
from ...story.build import no_backward_pass
from ..literal import kept_whole
from . import fit_dock, step_view
from .timeline import KIND_WORDS, StepStrip, set_caption

SPEEDS = (0.5, 1.0, 2.0, 4.0)
STEP_MS = 1800          # one step at 1x while playing
TRAVEL_MS = 900         # the cotangent's travel at 1x
CAPTION_LINES = (2, 4)  # the caption is this many lines tall, at least and at most
STEP_LABEL_W = 380      # the current step's name wraps beyond this width (pixels), never cut
STORY_MS = 500          # edits in a burst (a training run's previews): the story at most this often

def _same_step(a, b):
    """Do two stories' steps show the same thing at the same place (the story assembled
    again after an edit that did not touch it)?"""
    return (a.index, a.kind, a.node, a.port, a.input_index, a.title) == \
        (b.index, b.kind, b.node, b.port, b.input_index, b.title)


def wrapped_height(label):
    """How tall (pixels) `label`'s text is wrapped at its width (QLabel.heightForWidth
    answers with a fixed height once one is set)."""
    return label.fontMetrics().boundingRect(QRect(0, 0, label.width(), 100000),
                                            Qt.TextFlag.TextWordWrap, label.text()).height()


class PlayerBar(QWidget):
    """First / back / play-pause / step / last, speed, the timeline of named steps, the caption."""

    stepChanged = Signal(int)       # the step index; -1 = the editing view

    def __init__(self, controller, canvas, parent=None):
        super().__init__(parent)
        self.setObjectName("backpropPlayer")
        self.controller = controller
        self.canvas = canvas
        self._index = -1
        self._story_steps = []
        self._story = None           # the story taken last
        self._waiting = None         # a result whose story the player has not taken yet
        self.speed = 1.0
        self.framing = {}               # step_view.frame_step options (presentation mode)
        self._pan = None                # (step, start, frame's centre): the view follows the cotangent
        self._formula_at = None         # (step, its formula card's rect, its size) as last placed
        self._whole = False             # a document just opened: shown whole (show_opened)
        self._restoring = None          # (step index, formula card) an undo or redo puts back

        self.animation = QVariantAnimation(self)
        self.animation.setStartValue(0.0)
        self.animation.setEndValue(1.0)
        self.animation.setEasingCurve(QEasingCurve.Type.InOutCubic)
        self.animation.valueChanged.connect(self._progress)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self._frame_timer = QTimer(self)
        self._frame_timer.setSingleShot(True)
        self._frame_timer.setInterval(0)
        self._frame_timer.timeout.connect(self.frame)
        self._story_timer = QTimer(self)   # a story taken lately: the next one waits
        self._story_timer.setSingleShot(True)
        self._story_timer.timeout.connect(self._take_later)
        self._story_taken_at = float("-inf")
        self._held = False            # a training run's previews: no story until it ends

        self._build()
        canvas.viewport().installEventFilter(self)   # a new size frames the step anew
        canvas.fitted.connect(self._fitted)
        controller.evaluated.connect(self._evaluated)
        controller.documentReplaced.connect(self._document_replaced)
        controller.keep_view(self)      # undo and redo put back the step shown
        self._evaluated(controller.result)

    # -- widgets ------------------------------------------------------------------------
    def _make_action(self, name, text, tip, key, icon, slot):
        action = QAction(self.style().standardIcon(icon), text, self)
        action.setObjectName(f"player_{name}")
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        seq = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip} ({seq})")
        action.setStatusTip(tip)
        action.triggered.connect(lambda *_: slot())
        self.addAction(action)
        return action

    def _build(self):
        sp = QStyle.StandardPixmap
        self.actions_by_name = a = {}
        a["first"] = self._make_action("first", "&First Step", "First step: the seed", "Home",
                                       sp.SP_MediaSkipBackward, self.first)
        a["back"] = self._make_action("back", "Step &Back", "Previous step", "Left",
                                      sp.SP_MediaSeekBackward, self.previous)
        a["play"] = self._make_action("play", "&Play", "Play / pause the backward pass", "Space",
                                      sp.SP_MediaPlay, self.toggle_play)
        a["step"] = self._make_action("step", "&Step", "Next step", "Right",
                                      sp.SP_MediaSeekForward, self.next)
        a["last"] = self._make_action("last", "&Last Step", "Last step: the gradients", "End",
                                      sp.SP_MediaSkipForward, self.last)
        a["edit"] = QAction(self.style().standardIcon(sp.SP_MediaStop), "&Editing View", self)
        a["edit"].setToolTip("Leave the story: back to editing the graph")
        a["edit"].setStatusTip("Hide the story step and edit the graph")
        a["edit"].triggered.connect(lambda *_: self.set_index(-1))

        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 0)
        top.setSpacing(2)
        title = QLabel("<b>Backprop</b>")
        title.setToolTip("Play the backward pass step by step: the seed, each op's local "
                         "rule, fan-in sums and the final gradients")
        top.addWidget(title)
        top.addSpacing(6)
        self.buttons = {}
        for name in ("first", "back", "play", "step", "last", "edit"):
            button = QToolButton(self)
            button.setDefaultAction(a[name])
            button.setIconSize(QSize(20, 20))
            button.setAutoRaise(True)
            button.setObjectName(f"playerButton_{name}")
            self.buttons[name] = button
            top.addWidget(button)
        top.addSpacing(6)
        self.speed_box = QComboBox(self)
        for s in SPEEDS:
            self.speed_box.addItem(f"{s:g}×", s)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.setToolTip("Playback speed")
        self.speed_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed_box.currentIndexChanged.connect(lambda i: self.set_speed(SPEEDS[i]))
        top.addWidget(self.speed_box)
        top.addSpacing(8)
        self.timeline = StepStrip(self)
        self.timeline.setToolTip("The steps of the backward pass: click one to show it")
        self.timeline.stepClicked.connect(self._chip_clicked)
        top.addWidget(self.timeline, 1)

        self.step_label = QLabel(self)
        self.step_label.setObjectName("playerStepName")
        font = self.step_label.font()
        font.setPointSizeF(font.pointSizeF() + 1.0)   # the caption's: two lines of it as tall as two of that
        font.setBold(True)
        self.step_label.setFont(font)
        self.step_label.setWordWrap(True)
        self.step_label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.step_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.caption = QLabel(self)
        self.caption.setObjectName("playerCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.caption.font()
        font.setPointSizeF(font.pointSizeF() + 1.0)
        self.caption.setFont(font)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        bottom = QHBoxLayout()
        bottom.setContentsMargins(8, 0, 8, 4)
        bottom.setSpacing(12)
        bottom.addWidget(self.step_label)
        bottom.addWidget(self.caption, 1)
        self._caption_row = bottom

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addLayout(bottom)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    # -- state ---------------------------------------------------------------------------
    @property
    def steps(self):
        return self._steps

    @property
    def index(self):
        return self._index

    @property
    def shown_steps(self):
        """The steps on screen now: unlike `steps`, never assembles a waiting story (a
        panel that follows the player must not cost a story per edit)."""
        return self._story_steps

    @property
    def step(self):
        return self._steps[self._index] if 0 <= self._index < len(self._steps) else None

    @property
    def is_playing(self):
        return self.timer.isActive()

    @property
    def progress(self):
        if self.animation.state() == QVariantAnimation.State.Running:
            return float(self.animation.currentValue())
        return 1.0

    def set_index(self, i, animate=False):
        """Show step `i` (clamped; -1 = the editing view). Only the index decides the picture."""
        n = len(self._steps)
        i = max(-1, min(int(i), n - 1))
        changed = i != self._index
        self._index = i
        self._whole = False
        self.animation.stop()
        step = self.step
        if step is not None and animate:
            self.canvas.set_step(step, 0.0)
            self.animation.setDuration(int(TRAVEL_MS / self.speed))
            self.animation.start()
        else:
            self.canvas.set_step(step, 1.0)
        if step is not None:
            self.frame()
            self._frame_timer.start()   # again after a fit the canvas may have queued
        if i < 0 and self.is_playing:
            self.pause()
        self._show()
        if changed:
            self.stepChanged.emit(i)

    def show_opened(self):
        """A document just opened in the window shows step 1 (or the editing view) as Fit
        to Window shows it: every card and edge in view, drawn compact where the fitting zoom
        would draw their numbers under the legible size, the step's rule card docked in view
        (`_fitted`). Framed for itself, the seed's step showed one corner of the graph: lesson
        14 at 1280 x 800 cut x at the top, at 1440 x 900 the edge into out ran off the left.
        The next step is framed for itself; in presentation mode step 1 is too."""
        self.set_index(0 if self._steps else -1)
        if self.step is not None and not self.framing:
            self._whole = True
            self._frame_timer.start()       # after the canvas's own fit, and after a resize

    @property
    def just_opened(self):
        """Step 1 shown as the document opened (or as Home shows it), no step taken since."""
        return self._whole and self._index == 0

    def frame(self):
        """Zoom and scroll the canvas to the current step (a function of the index only;
        a document just opened: Fit to Window's view, `show_opened`)."""
        step = self.step
        if step is None:
            return None
        if self._whole and not self.framing:
            self.canvas.fit()
            return self.canvas.transform().m11()
        self.lay_out()
        framed = step_view.frame_step(self.canvas, self.canvas.renderer, step, **self.framing)
        self._pan = None
        if framed is not None and self.animation.state() == QVariantAnimation.State.Running:
            start = step_view.pan_start(self.canvas, self.canvas.renderer, step, *framed)
            if start is not None:     # the senders are out of the frame: start on them
                self._pan = (step, start, framed[1])
                self._follow(self.progress)
        overlay = getattr(self.canvas, "step_overlay", None)
        if overlay is not None and overlay.step is step:
            overlay.relayout()     # the formula card may have docked elsewhere
        self._note_formula()
        return None if framed is None else framed[0]

    def lay_out(self):
        """The canvas's own layout, as the steps are shown: unfolded where Fit to Window folded
        it to show it whole compact (at the framing's size: the same for every step), folded
        where that lets a step's cards be framed together at the legible size; the cards drawn
        in full."""
        self.canvas.relayout_unplaced(self.framing.get("readable_px", READABLE_PX), overview=False,
                                      steps=step_groups(self.canvas.renderer, self.steps))

    def _note_formula(self):
        """Remember where the step's formula card is (the canvas's renderer, and where it
        docked the card, is replaced on every edit: `_keep_view` puts it back)."""
        step, r = self.step, self.canvas.renderer
        if step is None:
            self._formula_at = None
            return
        layout = r.formula_layout(step)
        self._formula_at = (step, render_painter.formula_rect(r, step),
                            None if layout.empty else (layout.width, layout.height))

    def _fitted(self):
        """Fit to Window during the story: every card in view, the step's formula card
        docked in view at a readable size (`fit_dock`)."""
        step, overlay = self.step, getattr(self.canvas, "step_overlay", None)
        if step is None or overlay is None or overlay.step is not step:
            return
        self._pan = None             # the view no longer follows the cotangent
        fit_dock.dock_after_fit(self.canvas, self.canvas.renderer, step)
        overlay.relayout()
        self._note_formula()

    def _follow(self, progress):
        """While the cotangent travels from senders the step's frame does not show, the view
        follows it from them to the frame."""
        if self._pan is None or self._pan[0] is not self.step:
            return
        _, start, centre = self._pan
        step_view.look_at(self.canvas, start + (centre - start) * min(1.0, max(0.0, progress)))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_caption()

    def _fit_caption(self):
        """Give the step's name the width it needs, at most STEP_LABEL_W (a longer one wraps
        onto more lines: lesson 14's '… → layer, inside t1.gradient(out, x)' was cut at
        'insid…' at 1280), and the caption the height its wrapped text needs at the width
        left, from two to four lines (the name's lines too): set here, not by the toolbar's
        layout, which does not ask a label for its height at a width and can leave the bar
        many lines tall."""
        label = self.step_label
        label.setFixedWidth(min(STEP_LABEL_W, label.fontMetrics().horizontalAdvance(label.text()) + 2))
        margins = self._caption_row.contentsMargins()
        width = self.width() - label.width() - 12 - margins.left() - margins.right()
        def laid_out(html):
            doc = QTextDocument()
            doc.setDocumentMargin(0)
            doc.setDefaultFont(self.caption.font())
            doc.setHtml(html)
            doc.setTextWidth(max(width, 100))
            return doc.size().height()
        # A line as the label lays it out (the font's line spacing is a pixel shorter): one
        # line and two are as tall, and so are a name on one line and on two, so a caption or
        # a name that wraps anew never moves the canvas.
        line = laid_out("X")
        low, high = CAPTION_LINES
        name = max(wrapped_height(label), low * label.fontMetrics().lineSpacing())
        height = min(max(laid_out(self.caption.text()), low * line, name), high * line)
        self.caption.setFixedHeight(math.ceil(height) + 2)
        label.setFixedHeight(math.ceil(height) + 2)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Resize and obj is self.canvas.viewport() \
                and self.step is not None:
            self._frame_timer.start()
        return False

    def finish_animation(self):
        """Jump to the end of the current step's animation."""
        if self.animation.state() == QVariantAnimation.State.Running:
            self.animation.stop()
            self.canvas.set_step(self.step, 1.0)
            self._follow(1.0)

    def next(self):
        if self._index < len(self._steps) - 1:
            self.set_index(self._index + 1, animate=True)
            return True
        return False

    def previous(self):
        if self._index > 0:
            self.set_index(self._index - 1)
            return True
        return False

    def first(self):
        """Home: step 1 shown as the lesson opened (`show_opened`: every card in view, laid
        out as Fit to Window lays it out). Framed for itself, the seed's step cut lesson 14's
        x off at the top; fitted as the steps had laid it out, at 1280 x 800 after its
        fan-in steps, every card turned to a compact thumbnail under the class's eyes."""
        self.set_index(0 if self._steps else -1, animate=True)
        if self.step is not None and not self.framing:
            self._whole = True
            self._frame_timer.start()

    def last(self):
        self.set_index(len(self._steps) - 1)

    def play(self):
        if not self._steps:
            return
        if self._index >= len(self._steps) - 1 or self._index < 0:
            self.set_index(0, animate=True)
        self.timer.start(int(STEP_MS / self.speed))
        self._show()

    def pause(self):
        self.timer.stop()
        self._show()

    def toggle_play(self):
        if self.is_playing:
            self.pause()
        else:
            self.play()

    def set_speed(self, speed):
        self.speed = float(speed)
        if self.speed_box.currentData() != self.speed and self.speed in SPEEDS:
            self.speed_box.setCurrentIndex(SPEEDS.index(self.speed))
        if self.is_playing:
            self.timer.start(int(STEP_MS / self.speed))

    def _tick(self):
        if not self.next():
            self.pause()
        elif self._index >= len(self._steps) - 1:
            self.timer.stop()  # the last step stays on screen; its animation still runs
            self._show()

    def _progress(self, value):
        step = self.step
        if step is not None:
            self.canvas.set_step(step, float(value))
            self._follow(float(value))

    def _chip_clicked(self, index):
        if index != self._index:
            self.set_index(index, animate=index == self._index + 1)
        else:
            self._show()

    # -- the document --------------------------------------------------------------------
    @property
    def _steps(self):
        """The story's steps, taken from the latest result first if it is still waiting."""
        if self._waiting is not None:
            self._take_story()
        return self._story_steps

    def _evaluated(self, result):
        """A new result: while editing (no step on the canvas, nothing playing) its story is
        assembled only after the canvas has shown the new numbers, only while the player is
        on screen, and at most every STORY_MS (a burst of edits, such as a training run's
        previews, costs one story, not one per edit); a shown step follows now."""
        self._waiting = result
        back_to_step = self._restoring is not None and self._restoring[0] >= 0   # an undo, a redo
        if self._index < 0 and not self.is_playing and not getattr(result, "story_ready", True) \
                and not back_to_step:
            self._take_later()
        else:
            self._take_story()

    def hold_stories(self, held):
        """While held (a training run is updating the document several times a second), the
        editing view takes no story: each would be stale within the next preview, and
        assembling one cost the UI thread 100-230 ms at a time during a run (bench_train).
        A story is still taken when its steps are read (a key, a chip) or a step is on screen,
        and once the hold ends."""
        self._held = bool(held)
        if not self._held:
            self._take_later()

    def _take_later(self):
        if self._waiting is None or self._story_timer.isActive() or not self.isVisible() \
                or self._held:
            return      # (a hidden player takes it when shown, or when its steps are read)
        wait_ms = STORY_MS - 1000 * (time.monotonic() - self._story_taken_at)
        if wait_ms > 0:
            self._story_timer.start(int(wait_ms) + 1)
        else:
            self.canvas.after_repaint(self._take_story)

    def showEvent(self, event):
        """Shown: a story that waited while the player was hidden is taken now, not after
        a repaint, so the keys that step it work at once (→ right after a document opens
        in a new window did nothing: the step actions were still disabled)."""
        super().showEvent(event)
        if self._waiting is not None and not self._story_timer.isActive():
            self._take_story()

    def _take_story(self):
        result, self._waiting = self._waiting, None
        if result is None:
            return
        self._story_taken_at = time.monotonic()
        story = getattr(result, "story", None)
        restoring = self._restoring
        if story is not None and story is self._story and self._index == -1 and restoring is None:
            return   # a move or a new position: the editing view shows the same story
        shown, placed = self.step, self._formula_at
        self._story = story
        self.canvas.story_told(story)   # its cards in the story's number format
        self._story_steps = list(getattr(story, "steps", None) or [])
        self.timeline.set_steps([s.title or KIND_WORDS.get(s.kind, s.kind) for s in self._steps],
                                [s.kind for s in self._steps])
        old = self._index
        self._index = -2  # force the redraw with the new story's step
        self.animation.stop()
        if restoring is not None:
            i, placed = min(restoring[0], len(self._steps) - 1), restoring[1]
            if i >= 0:
                self._show_where_it_was(i, self._steps[i], None if placed is None else placed[1])
            else:
                self.set_index(-1)
            return
        i = min(old, len(self._steps) - 1)
        if shown is not None and placed is not None and placed[0] is shown \
                and self._keep_view(shown, placed, i):
            return
        self.set_index(i)  # emits stepChanged: a new Step

    def _keep_view(self, shown, placed, i):
        """An edit while step `i` is shown (a card added with Tab, a value typed) that leaves
        the step as it was: the new story's step is shown where the view is, its formula
        card where it was (`placed`: the step, the card's rect, its layout's size), so the
        teacher's view does not jump (the step framed anew moved it ~270 px, and the card
        just added out of it). False when the step or its card's size changed."""
        step = self._steps[i] if i >= 0 else None
        r = self.canvas.renderer
        if step is None or not _same_step(shown, step):
            return False
        _, rect, size = placed
        layout = r.formula_layout(step)
        if size != (None if layout.empty else (layout.width, layout.height)):
            return False
        self._show_where_it_was(i, step, rect)
        return True

    def _show_where_it_was(self, i, step, rect):
        """Show step `i` (`step`) where the view is, its formula card at `rect` (scene; None:
        where the renderer places it): not framed anew."""
        self._index = i
        self.canvas.set_step(step, 1.0)
        if rect is not None:
            self.canvas.renderer.dock_formula(step, rect)
        self._note_formula()
        if self.canvas.step_overlay is not None:
            self.canvas.step_overlay.relayout()
        self._pan = None
        self._show()
        self.stepChanged.emit(i)

    # -- what undo and redo put back (DocumentController.keep_view) ---------------------------
    def view(self):
        """The step shown (-1: the editing view) and where its formula card stands."""
        return self._index, self._formula_at

    def restore_view(self, shown):
        """The restored document's story shows that step again, its card where it stood, and
        the canvas's view is not framed anew (`_take_story`)."""
        self._restoring = shown

    def view_restored(self, shown):
        self._restoring = None

    def _document_replaced(self):
        if self.controller.undo_stack.count() == 0:  # a new file: back to editing
            self.pause()
            self._index = -1

    # -- showing ------------------------------------------------------------------------
    def step_name(self, step):
        title = step.title or KIND_WORDS.get(step.kind, step.kind)
        return f"{step.index + 1}/{len(self._steps)}  {title}"

    def _why_no_story(self):
        """Why there is no backward pass, in the study views' words (story.build.no_backward_pass):
        what is missing, the error that stops the target or a source (not a stray node's)."""
        kind, words = no_backward_pass(self.controller.doc, getattr(self.controller.result, "problems", ()))
        return f"No backward pass to show: {words}" + ("." if kind == "error" else "")

    def _show(self):
        n = len(self._steps)
        self.timeline.set_current(self._index)
        self.timeline.setEnabled(n > 0)
        step = self.step
        a = self.actions_by_name
        a["first"].setEnabled(n > 0)
        a["back"].setEnabled(self._index > 0)
        a["step"].setEnabled(self._index < n - 1)
        a["last"].setEnabled(n > 0 and self._index != n - 1)
        a["play"].setEnabled(n > 0)
        a["edit"].setEnabled(self._index >= 0)
        sp = QStyle.StandardPixmap
        playing = self.is_playing
        a["play"].setIcon(self.style().standardIcon(sp.SP_MediaPause if playing else sp.SP_MediaPlay))
        a["play"].setText("&Pause" if playing else "&Play")
        if step is None:
            self.step_label.setText("Editing" if n else "No story")
            set_caption(self.caption,
                        f"{counted(n, 'step')} in the story of this backward pass: press Space to play, → to "
                        f"step, or click a step above." if n else self._why_no_story())
        else:
            name = self.step_name(step)
            self.step_label.setText(kept_whole(name))   # wrapped at spaces, never inside ∂y/∂x
            self.step_label.setToolTip(name)
            set_caption(self.caption, step.caption)
        self._fit_caption()
