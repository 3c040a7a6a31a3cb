"""The player bar's story: taken from each new result of the document (while editing, only
after the canvas shows the new numbers and at most every STORY_MS), the step shown kept
where it was across an edit that leaves it as it was, and put back by undo and redo.
"""
import time

from .timeline import KIND_WORDS

STORY_MS = 500          # edits in a burst (a training run's previews): the story at most this often


def _same_step(a, b):
    """Do two stories' steps show the same thing at the same place (the story assembled
    again after an edit that did not touch it)?"""
    return (a.index, a.kind, a.node, a.port, a.input_index, a.title) == \
        (b.index, b.kind, b.node, b.port, b.input_index, b.title)


class BarStory:
    """The story PlayerBar shows (a part of it): its steps, taken from the controller's results."""

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
        self._computing = False
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
        """A new file: back to editing, and the previous document's steps gone at once. Its
        story is assembled after the canvas shows it (seconds for a long chain): until then
        the bar says so, not the old document's '1 Seed y … 14 steps'."""
        if self.controller.undo_stack.count() == 0:
            self.pause()
            self._opened_anew = True    # its bar as tall as its own story needs, whatever came before
            self._index = -1
            self._story, self._story_steps, self._computing = None, [], True
            self.timeline.set_steps([], [])
            self._show()
