"""The backprop player: step through the story of the backward pass on the canvas.

What is shown is a function of the step index alone (`index` -> story.steps[index],
drawn by the canvas overlay and framed by `step_view`), never the sum of effects
replayed so far, so stepping back is exact. Index -1 is the editing view (no step).
Playing advances on a QTimer; within a step a QVariantAnimation drives the overlay's
progress 0 -> 1 (the cotangent travelling along its edge).
"""
from PySide6.QtCore import QEasingCurve, QEvent, QTimer, QVariantAnimation, Signal
from PySide6.QtWidgets import QWidget

from ...render import painter as render_painter
from ...render.involved import step_groups
from ...render.legible import READABLE_PX
from ..kept_state import unchanged
from . import fit_dock, steady_zoom, step_view
from .bar_story import BarStory
from .bar_widgets import SPEEDS, BarWidgets
from .pinned_names import PinnedNames

STEP_MS = 1800          # one step at 1x while playing
TRAVEL_MS = 900         # the cotangent's travel at 1x


class PlayerBar(BarStory, BarWidgets, QWidget):
    """First / back / play-pause / step / last, speed, the timeline of named steps, the caption."""

    stepChanged = Signal(int)       # the step index; -1 = the editing view

    def __init__(self, controller, canvas, parent=None):
        super().__init__(parent)
        self.setObjectName("backpropPlayer")
        self.controller = controller
        self.canvas = canvas
        self._index = -1
        self._opened_anew = True     # the bar fits the next story afresh (show_opened)
        self._story_steps = []
        self._story = None           # the story taken last
        self._waiting = None         # a result whose story the player has not taken yet
        self.speed = 1.0
        self.framing = {}               # step_view.frame_step options (presentation mode)
        self._pan = None                # (step, start, frame's centre): the view follows the cotangent
        self._formula_at = None         # (step, its formula card's rect, its size) as last placed
        self._whole = False             # a document just opened: shown whole (show_opened)
        self._restoring = None          # (step index, formula card) an undo or redo puts back
        self._computing = False         # a document just opened: its story not taken yet
        self.zoom_cap = None            # the most the step shown may be zoomed in: steady_zoom
        self._zoom_memo = None          # (what it holds for, {step index: zoom}): _neighbour_zooms
        self._framed_as = None          # (the state the last frame left, what it returned): frame
        self._laid_out_as = None        # the state the last layout that moved nothing left: lay_out

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
        self.pinned = PinnedNames(canvas)   # the names of cards the view's edge cuts
        self.pinned.follow_viewport()
        canvas.viewport().installEventFilter(self)   # a new size frames the step anew
        canvas.fitted.connect(self._fitted)
        controller.evaluated.connect(self._evaluated)
        controller.documentReplaced.connect(self._document_replaced)
        controller.keep_view(self)      # undo and redo put back the step shown
        self._evaluated(controller.result)

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
        self._opened_anew = True        # the bar fits this document's story afresh
        self.set_index(0 if self._steps else -1)
        if self.step is not None and not self.framing:
            self._whole = True
            self._frame_timer.start()       # after the canvas's own fit, and after a resize

    @property
    def just_opened(self):
        """Step 1 shown as the document opened (or as Home shows it), no step taken since."""
        return self._whole and self._index == 0

    def frame(self):
        """Zoom and scroll the canvas to the current step (a function of the index only: its
        zoom bounded by its neighbouring steps', `steady_zoom`; a document just opened: Fit to
        Window's view, `show_opened`)."""
        step = self.step
        if step is None:
            return None
        if self._whole and not self.framing:
            self.canvas.fit()
            return self.canvas.transform().m11()
        kept = self._framed_as
        if kept is not None and unchanged(kept[0], self._framing_state()):
            framed = kept[1]    # nothing it weighs changed since: it would frame the step as it is
        else:
            weighed = self._weighed()
            framed = self._frame_anew(step)
            self._framed_as = (self._framing_state(), framed) if unchanged(weighed, self._weighed()) else None
        self._pan = None
        if framed is not None and self.animation.state() == QVariantAnimation.State.Running:
            start = step_view.pan_start(self.canvas, self.canvas.renderer, step, *framed)
            if start is not None:     # the senders are out of the frame: start on them
                self._pan = (step, start, framed[1])
                self._follow(self.progress)
        return None if framed is None else framed[0]

    def _frame_anew(self, step):
        """(zoom, centre) of `step` framed: its layout, zoom cap, view, rule card and overlay."""
        self.lay_out()
        self.zoom_cap = steady_zoom.zoom_cap(self.canvas, self.canvas.renderer, self._steps, self._index,
                                             **self.framing, known=self._neighbour_zooms())
        framing = dict(self.framing, max_zoom=self.zoom_cap)
        framed = step_view.frame_step(self.canvas, self.canvas.renderer, step, **framing)
        overlay = getattr(self.canvas, "step_overlay", None)
        if overlay is not None and overlay.step is step:
            overlay.relayout()     # the formula card may have docked elsewhere
        self._note_formula()
        return framed

    def _weighed(self):
        """(what `frame` weighs of the view it starts from and changes, by identity; ... by
        value): the renderer, its layout, the arrow labels' scale at the zoom shown, the size
        the cards read at. A frame that changed none of them starts the next from where it
        started: framed again in the state it left, the step is framed as it is."""
        c = self.canvas
        return (c.renderer,), (c.label_scale(), c.readable_px, tuple(c.renderer.positions.items()),
                               c.compact_layout, c.shortened_at)

    def _framing_state(self):
        """(what `frame` weighs and leaves, compared by identity; ... compared by value): the
        step, story, renderer, its layout and docked rule card, the view's size, zoom, scroll
        and label bounds, the framing. Where a frame finds the state a frame left that changed
        nothing it weighs (`_weighed`), it would frame the step as it is (the player frames
        each step 2 to 4 times as it is shown: on the step, after the canvas's fit, on
        presentation mode's fit and resizes)."""
        c = self.canvas
        r, overlay = c.renderer, getattr(c, "step_overlay", None)
        same = (self.step, self._steps, r, *r.cards.values(), None if overlay is None else overlay.step)
        equal = (self._index, self._whole, dict(self.framing), tuple(r.positions.items()), r.docked_formula(),
                 c.viewport().size(), c.transform(), c.sceneRect(), c.horizontalScrollBar().value(),
                 c.verticalScrollBar().value(), c.label_bounds, c.readable_px, c.numbers_px,
                 list(getattr(c, "edge_markers", None) or []), c.compact_layout, c.shortened_at, c._dirty,
                 self.zoom_cap, self._formula_at)
        return same, equal

    def _neighbour_zooms(self):
        """{step index: its zoom} as steady_zoom weighs the steps beside the one framed, kept
        while the renderer, its layout, the view's size and the framing stay (a step is
        framed several times as it is shown: each weighing took 35 ms)."""
        c = self.canvas
        same, equal = (c.renderer, self._steps), (dict(c.renderer.positions), c.viewport().size(), dict(self.framing))
        memo = self._zoom_memo
        if memo is None or any(a is not b for a, b in zip(memo[0], same)) or memo[1] != equal:
            memo = self._zoom_memo = (same, equal, {})
        return memo[2]

    def lay_out(self):
        """The canvas's own layout, as the steps are shown: unfolded where Fit to Window folded
        it to show it whole compact (at the framing's size: the same for every step), folded
        where that lets a step's cards be framed together at the legible size; the cards drawn
        in full. Laid out again only where something it weighs changed since a layout that
        moved nothing (`_layout_state`): each step is framed 2 to 4 times, each layout ~5 ms."""
        steps = self.steps
        before, kept = self._layout_state(), self._laid_out_as
        if unchanged(kept, before):
            return
        self.canvas.relayout_unplaced(self.framing.get("readable_px", READABLE_PX), overview=False,
                                      steps=step_groups(self.canvas.renderer, steps))
        after = self._layout_state()
        self._laid_out_as = after if unchanged(before, after) else None

    def _layout_state(self):
        """(what `lay_out` weighs, by identity; ... by value): the document, its renderer (its
        cards' sizes and problems), the story, the cards' places, the view's size, the size
        the layout reads at, the canvas's compact layout and its pending edit."""
        c = self.canvas
        return (c.controller.doc, c.renderer, self._story_steps), \
            (tuple(c.positions.items()), c.viewport().size(), c.logicalDpiY(), self.framing.get("readable_px"),
             c.compact_layout, c.shortened_at, c._dirty)

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

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Resize and obj is self.canvas.viewport():
            self.pinned.follow_viewport()
            if self.step is not None:
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
