"""The backprop player: step through the story of the backward pass on the canvas.

What is shown is a function of the step index alone (`index` -> story.steps[index],
drawn by the canvas overlay), never the sum of effects replayed so far, so stepping
back is exact. Index -1 is the editing view (no step). Playing advances on a QTimer;
within a step a QVariantAnimation drives the overlay's progress 0 -> 1 (the cotangent
travelling along its edge).
"""
from PySide6.QtCore import QEasingCurve, QSize, Qt, QTimer, QVariantAnimation, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSlider, QStyle,
                               QToolButton, QVBoxLayout, QWidget)

SPEEDS = (0.5, 1.0, 2.0, 4.0)
STEP_MS = 1800          # one step at 1x while playing
TRAVEL_MS = 900         # the cotangent's travel at 1x

KIND_WORDS = {"seed": "seed", "visit": "visit", "contribution": "local rule", "fan_in": "fan-in sum",
              "accumulate": "gradient", "cut": "cut", "unconnected": "unconnected"}


class PlayerBar(QWidget):
    """First / back / play-pause / step / last, speed, a timeline of step names, the caption."""

    stepChanged = Signal(int)       # the step index; -1 = the editing view

    def __init__(self, controller, canvas, parent=None):
        super().__init__(parent)
        self.setObjectName("backpropPlayer")
        self.controller = controller
        self.canvas = canvas
        self._index = -1
        self._steps = []
        self.speed = 1.0

        self.animation = QVariantAnimation(self)
        self.animation.setStartValue(0.0)
        self.animation.setEndValue(1.0)
        self.animation.setEasingCurve(QEasingCurve.Type.InOutCubic)
        self.animation.valueChanged.connect(self._progress)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)

        self._build()
        controller.evaluated.connect(self._evaluated)
        controller.documentReplaced.connect(self._document_replaced)
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
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("playerTimeline")
        self.slider.setMinimumWidth(220)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1)
        self.slider.setPageStep(1)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrows belong to the player
        self.slider.setToolTip("Timeline: drag to any step of the backward pass")
        self.slider.valueChanged.connect(self._slider_moved)
        top.addWidget(self.slider, 1)
        top.addSpacing(8)
        self.step_label = QLabel(self)
        self.step_label.setObjectName("playerStepName")
        self.step_label.setMinimumWidth(260)
        font = self.step_label.font()
        font.setPointSizeF(font.pointSizeF() + 1.5)
        font.setBold(True)
        self.step_label.setFont(font)
        top.addWidget(self.step_label)

        self.caption = QLabel(self)
        self.caption.setObjectName("playerCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.caption.font()
        font.setPointSizeF(font.pointSizeF() + 1.0)
        self.caption.setFont(font)
        self.caption.setContentsMargins(8, 0, 8, 4)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    # -- state ---------------------------------------------------------------------------
    @property
    def steps(self):
        return self._steps

    @property
    def index(self):
        return self._index

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
        self.animation.stop()
        step = self.step
        if step is not None and animate:
            self.canvas.set_step(step, 0.0)
            self.animation.setDuration(int(TRAVEL_MS / self.speed))
            self.animation.start()
        else:
            self.canvas.set_step(step, 1.0)
        if i < 0 and self.is_playing:
            self.pause()
        self._show()
        if changed:
            self.stepChanged.emit(i)

    def finish_animation(self):
        """Jump to the end of the current step's animation."""
        if self.animation.state() == QVariantAnimation.State.Running:
            self.animation.stop()
            self.canvas.set_step(self.step, 1.0)

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
        self.set_index(0 if self._steps else -1, animate=True)

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

    def _slider_moved(self, value):
        if value != self._index and not self._updating:
            self.set_index(value)

    _updating = False

    # -- the document --------------------------------------------------------------------
    def _evaluated(self, result):
        story = getattr(result, "story", None)
        self._steps = list(getattr(story, "steps", None) or [])
        old = self._index
        self._index = -2  # force the redraw with the new story's step
        self.animation.stop()
        self.set_index(min(old, len(self._steps) - 1))  # emits stepChanged: a new Step

    def _document_replaced(self):
        if self.controller.undo_stack.count() == 0:  # a new file: back to editing
            self.pause()
            self._index = -1

    # -- showing ------------------------------------------------------------------------
    def step_name(self, step):
        title = step.title or KIND_WORDS.get(step.kind, step.kind)
        return f"{step.index + 1}/{len(self._steps)}  {title}"

    def _show(self):
        n = len(self._steps)
        self._updating = True
        try:
            self.slider.setRange(-1, max(-1, n - 1))
            self.slider.setValue(self._index)
        finally:
            self._updating = False
        self.slider.setEnabled(n > 0)
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
            self.caption.setText(
                f"{n} steps in the story of this backward pass: press Space to play, → to step."
                if n else "No backward pass to show: mark a target and a source, and fix the "
                          "problems the status bar lists.")
        else:
            self.step_label.setText(self.step_name(step))
            self.caption.setText(step.caption)
        tip = "\n".join(self.step_name(s) for s in self._steps[:60])
        self.slider.setToolTip("Timeline: drag to any step\n" + tip if tip else "Timeline")
