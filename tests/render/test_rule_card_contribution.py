"""A rule card's "upstream ⊗ rule = contribution" shows the contribution readably, like its
operands (issue 20 §5), over every sample's every rule step: its numbers, or a picture that
says its scale and its shape. In presentation mode the tiny CNN's step 17 drew the filters'
gradient as four 36-pixel tiles under the word "contribution" beside filters w's card in
numbers; its steps 8 and 9 drew dense's 1×36 and 36×3 contributions as heat strips with no
shape beside the upstream's numbers [-0.926 0.311 0.615]. (In numbers, the filters' 36 need
cells of 45 px at the player's zoom: the card grew from 730 x 229 to 780 x 417 and covered
filters w's card in the window at 1280 x 800, tests/app/player/test_step_framing.)"""
import numpy as np
import pytest

from samples_util import NAMES, renderer
from test_rule_card_truth import _numbered    # writes its numbers at the player's zoom


def _contributions(name):
    """(step, layout, contribution part, its picture) of every rule step of sample `name`."""
    r = renderer(name)
    for step in r.story.steps:
        if step.kind != "contribution":
            continue
        layout = r.formula_layout(step)      # as the canvas lays it out (filters read as in → out)
        for part, shown, *_ in layout.placed:
            if part[0] == "array" and len(part) <= 3 and part[2] == "contribution":
                yield step, layout, part, shown


@pytest.mark.parametrize("name", NAMES)
def test_a_contribution_drawn_as_a_picture_says_its_scale_and_shape(name):
    """Where the contribution does not write its numbers, its picture's caption gives its
    scale (±max) and the words under it its shape as the cards write it (1×36)."""
    unlabelled = []
    for step, layout, part, shown in _contributions(name):
        if _numbered(shown):
            continue
        shape = "×".join(map(str, np.shape(part[1])))
        label = layout.part_label(part, shown)
        if not (shown.caption_lines[0].startswith("±") and label.endswith(f" · {shape}")):
            unlabelled.append((step.index + 1, step.title, label))
    assert unlabelled == []


def test_the_tiny_cnn_s_contributions_say_their_shapes():
    """Steps 8, 9 and 17 (dense's 1×36 and 36×3, the filters' 3×3×1×4), as the card writes
    them under their pictures, beside the scale (max |entry|, in the card's format) that the
    picture writes."""
    said = {}
    for step, layout, part, shown in _contributions("nets_5_tiny_cnn"):
        if step.index + 1 in (8, 9, 17):
            scale = layout.spec_of(part[1]) % np.abs(part[1]).max()
            said[step.index + 1] = (layout.part_label(part, shown), shown.caption_lines[0].replace(scale, "S"))
    assert said == {8: ("contribution · 1×36", "±S heatmap, 36 values, 20 per row"),
                    9: ("contribution · 36×3", "±S heatmap"),
                    17: ("contribution · 3×3×1×4", "±S · one tile per in → out")}
