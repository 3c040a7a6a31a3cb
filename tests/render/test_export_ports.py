"""A static export (PNG, SVG, PDF, every GIF frame) draws the ports the window draws, and
every story arrow ends on one of them (issue 20 §6: lesson 14's step-22 PNG drew the
fan-in arrow into layer's edge, where the window has its kernel port, and no port at all
for kernel and bias)."""
import math

import pytest
from samples_util import NAMES, renderer
from test_story_overlay import canvas_renderer

from gradviz.render.cards import PORT_R

ON_PORT = 2 * PORT_R   # an edge leaves its port's rim, or stops short of it for its arrowhead


def _near(point, ports):
    return min((math.hypot(point.x() - p.x(), point.y() - p.y()) for p in ports), default=math.inf)


@pytest.mark.parametrize("name", NAMES)
def test_export_cards_have_the_windows_ports(name):
    exported, window = renderer(name), canvas_renderer(name)
    for nid in exported.doc.nodes:
        a, b = exported.cards[nid], window.cards[nid]
        assert (a.n_inputs, a.n_outputs) == (b.n_inputs, b.n_outputs), nid
        assert [text for _, text, _ in exported.port_labels(nid)] == \
            [text for _, text, _ in window.port_labels(nid)], nid


@pytest.mark.parametrize("name", NAMES)
def test_every_arrow_of_every_step_ends_on_a_drawn_port_and_every_label_is_drawn(name):
    r = renderer(name)
    for step in r.story.steps:
        where = (step.index + 1, step.title)
        for edge, track in r.step_tracks(step):
            start, end = track.at(0)[0], track.at(track.length)[0]
            receiver = r.cards[edge.src.node]      # the cotangent travels back to the producer
            outputs = [r.output_pos(edge.src.node, i) for i in range(receiver.n_outputs)]
            inputs = [r.input_pos(edge.dst.node, i) for i in range(r.cards[edge.dst.node].n_inputs)]
            assert _near(end, outputs) <= ON_PORT, (where, edge)
            assert _near(start, inputs) <= ON_PORT, (where, edge)
        bounds = r.bounds(step)
        placed = r.pill_rects(step)
        assert {text for text, _ in placed} >= set(r._pill_texts(step) if step.kind != "cut" else []), where
        for text, rect in r.label_rects(step):
            assert bounds.contains(rect), (where, text)
