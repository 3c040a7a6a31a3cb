"""A rule card's leader line points at what its step is about (issue 20 §1): lesson 14's
fan-in at layer drew it to the layer's centre, where it met the card's edge beside the bias
port, not at the output whose cotangent the step sums."""
import pytest
from samples_util import NAMES, renderer

from gradviz.render.story_overlay import FAN_SPREAD


@pytest.mark.parametrize("name", NAMES)
def test_every_leader_points_at_its_steps_port(name):
    r = renderer(name)
    for step in r.story.steps:
        if step.node not in r.doc.nodes:
            continue
        target = r.leader_target(step)
        if step.kind == "fan_in" and step.port is not None and step.port.node == step.node:
            assert target == r.output_pos(step.node, step.port.index), (name, step.index + 1)
        elif step.kind == "contribution" and r.carrying_edges(step):   # where its arrow leaves
            assert target in [r.input_pos(e.dst.node, e.dst.index) for e in r.carrying_edges(step)], \
                (name, step.index + 1)
        else:
            assert r.rect(step.node).adjusted(-1, -1, 1, 1).contains(target), (name, step.index + 1)


def test_lesson_14s_fan_in_at_layer_points_at_its_output_not_the_bias():
    r = renderer("001_input_gradient_regularization")
    step = r.story.steps[13]
    assert step.kind == "fan_in" and step.title == "Fan-in at layer"
    target = r.leader_target(step)
    assert target == r.output_pos("layer", 0)
    assert (target - r.output_pos("layer", 2)).manhattanLength() > 20
    six = r.story.steps[5]      # into layer.kernel through t1.gradient's target, not its source
    assert r.leader_target(six) == r.input_pos(six.node, 0)


@pytest.mark.parametrize("name", NAMES)
def test_a_fan_in_shows_each_of_its_paths(name):
    """Lesson 14's fan-ins drew one arrow for two paths: both contributions at layer come back
    through t1.gradient(out, x) ('from t1.gradient(out, x), twice'), and one at layer.kernel
    from the layer's own matmul, inside it, with no edge. Each path has its own arrow, apart
    from the others along the way and meeting them at the port where they are summed, with
    its own label (the path as the card names it), or for one inside the node, a label at
    its port."""
    r = renderer(name)
    for step in r.story.of_kind("fan_in"):
        if step.node not in r.doc.nodes or step.port is None:   # inside a node's inner pass
            continue
        tracks = r.step_tracks(step)
        labels = [label for label, _ in r.pill_rects(step)]
        where = (name, step.index + 1, labels)
        seeds = sum(r.story.steps[i].kind == "seed" for i in step._sources)
        assert len(tracks) + len(r._inside_paths(step)) + seeds == len(step.contributions), where
        assert len(labels) == len(set(labels)) == len(tracks) + len(r._inside_paths(step)), where
        assert not any(label.endswith((", twice", " times")) for label in labels), where
        for i, (edge, track) in enumerate(tracks):
            for other_edge, other in tracks[i + 1:]:
                if other_edge != edge:
                    continue
                start, end = track.at(0)[0], track.at(track.length)[0]
                assert (start, end) == (other.at(0)[0], other.at(other.length)[0]), where
                a, b = track.at(track.length / 2)[0], other.at(other.length / 2)[0]
                assert (a - b).manhattanLength() >= 0.9 * FAN_SPREAD, where


def test_a_path_inside_its_node_says_where_it_is_and_why_it_has_no_arrow():
    """Lesson 14's fan-in at layer.kernel: the path from the layer's own matmul has no edge,
    so no arrow; its label read "from layer's matmul, inside" (inside what, and where is its
    arrow?). It names the node the use is inside and says that no edge brings it, beside
    that node's card: beside the card as drawn when active, its ring round the card and its
    badges (the ring grew round the badges' row, 41aa0eb, and pills keep out of it)."""
    r = renderer("001_input_gradient_regularization")
    step = next(s for s in r.story.of_kind("fan_in") if s.title == "Fan-in at layer.kernel")
    assert r._inside_paths(step) == ["from layer's matmul, inside layer (no edge)"]
    (label, rect, card), = [p for p in r.placed_pills(step) if p[0] == r._inside_paths(step)[0]]
    assert card == r.rect("layer")
    assert rect.adjusted(-30, -30, 30, 30).intersects(r.ring_rect("layer"))


@pytest.mark.parametrize("name", ["001_input_gradient_regularization", "001_higher_order", "001_stop_recording",
                                  "nets_6_attention"])
def test_a_sum_cards_leader_runs_into_its_output_port_from_outside_its_card(name):
    """A fan-in's sum card says which node's cotangent it sums by a leader into that node's
    output port, its last stretch outside the card, so that it shows drawn under the cards
    (lesson 14's ran from the card's middle under layer's card: it seemed to point at its
    corner). (test_story_overlay: no leader crosses a card on the way.)"""
    r = renderer(name)
    seen = 0
    for step in r.story.of_kind("fan_in"):
        if step.node not in r.doc.nodes or step.port is None or step.port.node != step.node \
                or r._formula_rect(step) is None:
            continue
        path, port, card = r.leader_path(step), r.output_pos(step.node, step.port.index), r.rect(step.node)
        where = (name, step.index + 1)
        assert path[-1] == port, where
        assert path[-2].x() > card.right() + 2, where          # comes in from the right
        seen += 1
    assert seen
