"""Stepping through a story moves no card without a need (issue 20 §4: the camera shows
what the step is about; the cards stay where the teacher saw them). Measured on c41acfa at
1280 x 800: 18 of the 36 lessons rearranged their cards between step 1, shown as the lesson
opened (Fit to Window's layout), and step 2 (the player's layout for the story), no card
having grown (003_stop_gradient_product's two rows became one); no lesson moved a card
between any later steps. Then 12, the opened layout kept where it served the story as
well; now 9, a lesson opening in the player's layout where Fit shows it as large.
Re-measured for issue 20 (H39f): no card of any lesson changes its size (measured in full)
from step 1 to the story's end, so no rearrangement is a card's growth that the opening
layout could reserve room for (a gradient still pending has its section from the start);
the nine below rearrange for the reasons given, each still true at 1280 x 800."""
import pytest

import shared_walks


# The lessons whose cards still rearrange at step 2 at 1280 x 800, and why: opening in the
# player's layout would show the whole graph smaller than Fit's layout does.
# (Measured again for issue 20: Fit's layouts of the first four 668-927 x 552-688 scene
# units, one step's rule card crowded in each; the player's 662-927 x 829-988; the chains'
# rows 3326-3606 units; attention's player layout still leaves two rule cards crowded.)
STILL_REARRANGED = {
    # Fit's layout reads whole (zoom 0.80-0.96) but leaves one step's rule card no free place
    # beside its cards; the player's opens a lane for it and is taller than a view at the
    # legible size (829-988 scene units for 696): whole, its cards would be compact (0.56-0.67).
    "001_hessian_newton", "train_3_newton", "001_batchnorm_pitfall", "nets_7_layernorm_independent",
    # The player lays the chain in one row, 3300-3600 units wide (folded, the edge from a row's
    # end to the next row's start crosses the canvas), whole at zoom 0.23-0.25 only; Fit folds
    # it into rows drawn compact at 0.66-0.79.
    "nets_2_sigmoid_chain", "nets_2_relu_chain", "nets_2_bad_init",
    # The player's layout is whole at zoom 0.24 (one row, 3410 units) where Fit's compact
    # rows are at 0.47.
    "nets_5_tiny_cnn",
    # Drawn compact either way: the player's layout (957 x 1369 units) whole at 0.41, Fit's at 0.54.
    "nets_6_attention",
}


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.walk("lessons 1280 x 800")
def test_the_cards_stay_where_they_are_from_step_to_step(walks, open_window):
    """Every lesson opened from the Lessons menu in the window at 1280 x 800, played step by
    step to its end and back to step 1: between two steps no card moves unless a card grew
    (measured in full), or the layout shown as the lesson opened was drawn compact (its
    cards as tall as their compact form), or it serves the story worse than the player's
    layout for it (a step's cards too far apart to frame together, an edge across the
    canvas, a rule card with no free place: render.layout.frames_as_well). The lessons that
    rearrange at step 2 are those of STILL_REARRANGED: 002_gradient_by_parts,
    train_1_gd_bowl and train_2_valley opened drawn compact in Fit's layout and rearranged,
    where the player's layout, drawn compact where it stands, fits the view as large. No
    card grows while a story plays: each is laid out from step 1 at the largest size it
    takes (its gradient's section there while pending), so a card's growth moves none.
    Checked in the walk that test_labels_off_cards and test_player_view's step names take
    too (shared_walks.stepped_lessons: painted, as a teacher sees it)."""
    moves, kept, rearranged, grew = [], 0, set(), []
    for walk in shared_walks.stepped_lessons(walks, open_window):
        if walk["serves"] is None:          # fewer than two steps
            continue
        stem, opened, serves, sizes = walk["stem"], walk["opened"], walk["serves"], walk["sizes"]
        before = opened
        for index, visit in walk["visits"][:-1]:        # (the last: the editing view)
            now, grown = visit["positions"], visit["sizes"]
            grew += [(stem, index + 1, n) for n in grown if grown[n] != sizes.get(n)]
            first = before is opened
            if now != before and grown == sizes and not (first and not serves):
                moves.append((stem, index + 1, visit["title"]))
            kept += first and now == before
            if first and now != before:
                rearranged.add(stem)
            before, sizes = now, grown
    assert moves == [], "\n".join(map(str, moves))
    assert grew == [], grew     # every card laid out from step 1 at the largest size it takes
    assert rearranged <= STILL_REARRANGED, sorted(rearranged - STILL_REARRANGED)
    assert kept >= 27       # (on c41acfa, 18 of 36; 24 where the opened layout served as well)
