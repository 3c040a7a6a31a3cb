"""The player bar's widgets: its actions and buttons, the speed box, the timeline, the
current step's name and its caption, each sized to its text, and what they say about the
step shown (or why no story is told).
"""
import math

from PySide6.QtCore import QCoreApplication, QEvent, QRect, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QTextDocument
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStyle, QToolButton, QVBoxLayout

from ...engine.errors import counted
from ...story.build import no_backward_pass_sentence
from ..literal import kept_whole
from .timeline import KIND_WORDS, StepStrip, caption_html, set_caption

SPEEDS = (0.5, 1.0, 2.0, 4.0)
CAPTION_LINES = (2, 4)  # the caption is this many lines tall, at least and at most
STEP_LABEL_W = 380      # the current step's name wraps beyond this width (pixels), never cut


def wrapped_height(label, text=None, width=None):
    """How tall (pixels) `label`'s text (or `text` in its font) is wrapped at its width (or
    `width`) (QLabel.heightForWidth answers with a fixed height once one is set)."""
    return label.fontMetrics().boundingRect(QRect(0, 0, label.width() if width is None else width, 100000),
                                            Qt.TextFlag.TextWordWrap,
                                            label.text() if text is None else text).height()


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
        'insid…' at 1280), the caption the rest: the story's widest name held for every
        step put the caption at x 400 at 1280 beside 'Editing'. The caption is as tall as
        the story's tallest caption needs beside its own name, from two to four lines (the
        names' lines too): the same for every step, so stepping never moves the canvas
        (lesson 9's step 10, a caption of three lines, made the bar 16 px taller at 1280 x
        800 and the docks jumped). Set here, not by the toolbar's layout, which does not ask
        a label for its height at a width and can leave the bar many lines tall."""
        label = self.step_label
        names, captions = self._bar_texts()
        label.setFixedWidth(self._name_width(label.text()))
        margins = self._caption_row.contentsMargins()
        room = self.width() - self._caption_row.spacing() - margins.left() - margins.right()
        key = (room, names, captions, self.caption.font().key())
        held = getattr(self, "_fitted_for", None)
        if key != held:
            tallest = self._tallest(room, zip(names, captions))
            if held is not None and held[:1] + held[3:] == key[:1] + key[3:] and not self._opened_anew:
                # the same document's story told anew (an edit, its undo): the bar never
                # shrinks back, so undo and redo do not resize the canvas and reframe it
                tallest = max(tallest, self._fitted_height)
            self._fitted_for, self._fitted_height = key, tallest
        if not self._computing:     # (fitted afresh until the new document's story is in)
            self._opened_anew = False
        height = max(self._fitted_height, self._tallest(room, [(label.text(), self.caption.text())]))
        if height != self.caption.maximumHeight():
            self.caption.setFixedHeight(height)
            label.setFixedHeight(height)
            # the row's layout keeps its old size hint until the bar's posted relayout, and a
            # window laying out first (as it is shown) gave the bar its old height for an
            # event-loop turn: the canvas jumped on the first frames (16 px at 1280 x 800)
            self._caption_row.invalidate()
            self.layout().activate()
            # the window's layouts too, each in turn (the toolbar's, then the main window's
            # request it posts), so the canvas has its new height before it lays out: a
            # document opened after one with a taller bar was laid out and fitted for the
            # old, shorter canvas (nets_6_attention after nets_2_relu_chain at 1280 x 800:
            # zoom 0.36 where a new window fits it at 0.57)
            holder = self.parentWidget()
            while holder is not None:
                QCoreApplication.sendPostedEvents(holder, QEvent.Type.LayoutRequest)
                holder = holder.parentWidget()

    def _name_width(self, name):
        """The width (pixels) of the step's name label showing `name`: its text's, at most
        STEP_LABEL_W."""
        return min(STEP_LABEL_W, self.step_label.fontMetrics().horizontalAdvance(name) + 2)

    def _bar_texts(self):
        """(names, captions) the bar says before the first step and at every step of its
        story (kept while the story is the same), the name as its label shows it, the
        caption as rich text."""
        steps = self._steps
        held = getattr(self, "_story_texts", None)
        if held is None or held[0] is not steps:
            editing = self._editing_texts()
            held = self._story_texts = (steps, tuple(kept_whole(self.step_name(s)) for s in steps) + (editing[0],),
                                        tuple(caption_html(s.caption) for s in steps) + (caption_html(editing[1]),))
        return held[1], held[2]

    def _editing_texts(self):
        """(name, caption) the bar shows before the first step (or why there is none)."""
        n = len(self._steps)
        if self._computing:
            return "Computing", "Computing the story of this document's backward pass…"
        return ("Editing" if n else "No story",
                f"{counted(n, 'step')} in the story of this backward pass: press Space to play, → to "
                f"step, or click a step above." if n else self._why_no_story())

    def _tallest(self, room, shown):
        """The height (pixels) of the tallest of `shown`'s (name, caption) pairs: each caption
        laid out beside its name in the row's `room`, each name wrapped at its label's width,
        from two to four of the caption's lines."""
        def laid_out(html, width):
            doc = QTextDocument()
            doc.setDocumentMargin(0)
            doc.setDefaultFont(self.caption.font())
            doc.setHtml(html)
            doc.setTextWidth(max(width, 100))
            return doc.size().height()
        # A line as the label lays it out (the font's line spacing is a pixel shorter): one
        # line and two are as tall, and so are a name on one line and on two.
        line = laid_out("X", 100)
        low, high = CAPTION_LINES
        label = self.step_label
        tallest = low * max(line, label.fontMetrics().lineSpacing())
        for name, caption in set(shown):
            name_width = self._name_width(name)
            tallest = max(tallest, wrapped_height(label, name, name_width), laid_out(caption, room - name_width))
        return math.ceil(min(tallest, high * line)) + 2

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
        if step is None:
            name, caption = self._editing_texts()
            self.step_label.setText(name)
            set_caption(self.caption, caption)
        else:
            name = self.step_name(step)
            self.step_label.setText(kept_whole(name))   # wrapped at spaces, never inside ∂y/∂x
            self.step_label.setToolTip(name)
            set_caption(self.caption, step.caption)
        self._fit_caption()
