"""The animation's camera frames each held frame's cards whole and its picture centred,
whatever the layout's column gaps (the edge pills' widths set them), on what the frame
draws: the active card's ring included, no link that only another step draws."""
import pytest
from samples_util import sample
from test_animation_slides import _cut_cards, _off_centre

from gradviz.render import Renderer, animation, story_overlay


def _slides(name):
    doc, story = sample(name)
    return animation.slide_renderer(Renderer(doc, evaluation=story.evaluation, story=story))


@pytest.mark.parametrize("wider", [-10, 16])
def test_held_frames_stay_whole_and_centred_when_the_layouts_gaps_change(wider, monkeypatch, qapp):
    """The camera grew a view to take in each card its edge cut; taking one in, the view cut
    others, until it was too wide for the numbers to read, and it then cut three cards: the
    tiny CNN's step 4 with the pills 10 units narrower (image x, filters w, relu; the cards'
    '1×3' in its pills instead of '(1, 3)' did it), steps 8, 9 and 19 with them 16 units
    wider (image x, conv, relu). A view of a size it passed, moved off the cards it cut,
    cut none."""
    monkeypatch.setattr(story_overlay, "PILL_ROOM", story_overlay.PILL_ROOM + wider)
    renderer = _slides("nets_5_tiny_cnn")
    steps = renderer.story.steps
    plan = animation.frame_plan(len(steps), 1, 0)
    held = {f.shot[1]: v for f, v in zip(plan, animation.shots(renderer, plan)) if f.shot[0] == f.shot[1]}
    assert list(held) == [None] + list(range(len(steps)))
    for step, view in held.items():
        label = "graph" if step is None else (step + 1, steps[step].title)
        assert _cut_cards(renderer, step, view) == [], label
        x, y = _off_centre(view, animation.Drawn(renderer, renderer.step_at(step)).seen(view))
        assert x <= animation.CENTRED and y <= animation.CENTRED, (label, x, y)


def test_what_a_frame_draws_holds_the_active_cards_ring_and_glow(qapp):
    """The camera centres what a frame draws; the active card's ring and glow, 10 units out
    of the card, were not counted: lesson 14's step 17 (layer at the top of the graph) was
    framed 8 % off centre by its pieces and 9 % by its pixels."""
    renderer = _slides("001_input_gradient_regularization")
    for step in renderer.story.steps:
        if step.node in renderer.doc.nodes:
            drawn = animation.Drawn(renderer, step)
            ring = renderer.ring_rect(step.node).adjusted(-story_overlay.GLOW, -story_overlay.GLOW,
                                                          story_overlay.GLOW, story_overlay.GLOW)
            assert drawn.seen(drawn.whole).contains(ring), step.title
