"""A tensor reads one way on the canvas's node card and on its rule cards (issue 20 §5: one
format per tensor, node cards too), although the canvas measures its cards before the story
is told (it is told only when the player asks for it): where the story writes its tensors
with decimals and the evaluation alone would not (lesson 001_clip_gradient: every value and
gradient is whole, the clip rule's 0.5 is not), the cards are measured again once it is told."""
import numpy as np

from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render import tiles


def card_text(renderer, nid):
    return renderer.cards[nid].sections[0].preview.text


def test_a_node_card_takes_the_story_s_format_once_the_story_is_told(open_window, qtbot):
    w = open_window(SAMPLES_DIR / "001_clip_gradient.json")
    qtbot.waitUntil(lambda: w.controller.result.story_ready and w.player._story is not None, timeout=10000)
    story = w.controller.result.story
    assert story.number_spec() == "%.3f"
    step = next(s for s in story.steps if "v" in (s.operands or {}))
    written = tiles.picture(np.asarray(step.operands["v"]), spec=w.canvas.renderer.formula_layout(step)
                            .spec_of(step.operands["v"])).text
    qtbot.waitUntil(lambda: card_text(w.canvas.renderer, "v") == written, timeout=5000)
    assert written == "2.000"           # as the rule card writes v, not '2'
