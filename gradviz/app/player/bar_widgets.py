"""The player bar's widgets: its actions and buttons, the speed box, the timeline, the
current step's name and its caption, each sized to its text, and what they say about the
step shown (or why no story is told).
"""
import math

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QTextDocument
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStyle, QToolButton, QVBoxLayout

from ...engine.errors import counted
from ...story.build import no_backward_pass_sentence
from ..literal import kept_whole
from .timeline import KIND_WORDS, StepStrip, set_caption

SPEEDS = (0.5, 1.0, 2.0, 4.0)
CAPTION_LINES = (2, 4)  # the caption is this many lines tall, at least and at most
STEP_LABEL_W = 380      # the current step's name wraps beyond this width (pixels), never cut


def wrapped_height(label):
    """How tall (pixels) `label`'s text is wrapped at its width (QLabel.heightForWidth
    answers with a fixed height once one is set)."""
    return label.fontMetrics().boundingRect(QRect(0, 0, label.width(), 100000),
                                            Qt.TextFlag.TextWordWrap, label.text()).height()


class BarWidgets:
    """The widgets of PlayerBar (a part of it): built once, then told the step shown (`_show`)."""

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

    # -- showing ------------------------------------------------------------------------
    def step_name(self, step):
        title = step.title or KIND_WORDS.get(step.kind, step.kind)
        return f"{step.index + 1}/{len(self._steps)}  {title}"

    def _why_no_story(self):
        """Why there is no backward pass, in the study views' words (story.build.no_backward_pass):
        what is missing, the error that stops the target or a source (not a stray node's)."""
        return no_backward_pass_sentence(self.controller.doc, getattr(self.controller.result, "problems", ()),
                                         "show")

    def _show(self):
        n = len(self._steps)
        self.timeline.set_current(self._index)
        self.timeline.setEnabled(n > 0)
        step = self.step
        a = self.actions_by_name
        coming = self._computing   # a key takes the new story at once (`_steps`)
        a["first"].setEnabled(n > 0 or coming)
        a["back"].setEnabled(self._index > 0)
        a["step"].setEnabled(self._index < n - 1 or coming)
        a["last"].setEnabled(n > 0 and self._index != n - 1 or coming)
        a["play"].setEnabled(n > 0 or coming)
        a["edit"].setEnabled(self._index >= 0)
        sp = QStyle.StandardPixmap
        playing = self.is_playing
        a["play"].setIcon(self.style().standardIcon(sp.SP_MediaPause if playing else sp.SP_MediaPlay))
        a["play"].setText("&Pause" if playing else "&Play")
        if step is None and self._computing:
            self.step_label.setText("Computing")
            set_caption(self.caption, "Computing the story of this document's backward pass…")
        elif step is None:
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
