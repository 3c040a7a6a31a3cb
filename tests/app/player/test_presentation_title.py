"""A title slide tells no gradient before the steps do (issue 20 §4: a teacher called the
finished gradients on F5's first slide a spoiler). The story reveals each source's gradient
at its accumulate step, its card saying 'pending: not yet accumulated' until then, and an
exported animation's intro already drew the cards so (render.animation: 'no answer yet');
presentation mode's title slide drew every gradient finished (the tiny CNN's filters w and
dense). It now draws the forward values only, every source's gradient pending, as step 1
does; back in the window, with no step shown, the cards show the gradients again."""
from app_ui import settle_presentation
from gradviz.app.player.canvas_entries import gradient_boxes
from gradviz.app.player.lessons import lesson_entries, open_lesson


def test_the_title_slide_shows_the_forward_values_only(open_window, qtbot):
    w = open_window(None)
    entry = next(e for e in lesson_entries() if e.path.stem == "nets_5_tiny_cnn")
    assert open_lesson(w, entry, ask=False)
    r = w.canvas.renderer
    sources = frozenset(r.reveal_steps())
    assert {p.node for p in sources} == {"filters_w", "dense"}
    w.presentation.enter()                 # a lesson just opened: F5 starts at its title slide
    settle_presentation(w)
    r = w.canvas.renderer
    assert w.presentation.index == -1 and r.story_index == -1
    assert r.pending_ports() == sources
    assert [gradient_boxes(r, n) for n in ("filters_w", "dense")] == [[], []]
    w.presentation.next()
    settle_presentation(w)
    assert w.presentation.index == 0 and w.canvas.renderer.pending_ports() == sources
    w.presentation.previous()
    settle_presentation(w)
    assert w.canvas.renderer.pending_ports() == sources
    w.presentation.exit()
    w.player.set_index(-1)                 # the window, no step shown: the story's answers
    r = w.canvas.renderer
    assert r.pending_ports() == frozenset()
    assert all(gradient_boxes(r, n) for n in ("filters_w", "dense"))
