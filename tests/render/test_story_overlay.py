"""The story-step overlay: which edges animate, where the labels go, what the cards show
before a source's gradient has arrived, and the formula card's numbers."""
import re

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from leader_lines import leader_crossings
from samples_util import NAMES, edge, renderer, sample

from gradviz.graph.document import Port
from gradviz.render.cards import BADGE_H
from gradviz.render.formula import FORMULA_MAX_W
from gradviz.story.formula_parts import formula_parts, operand_title
from gradviz.render.painter import formula_arrays, formula_entry_text, formula_pictures
from gradviz.render.story_overlay import cotangent_label


def _step(story, kind, node):
    return next(s for s in story.steps if s.kind == kind and s.node == node)


def test_003_only_edges_that_carry_a_cotangent_animate():
    r = renderer("003_stop_gradient_product")
    doc, story = r.doc, r.story
    c_to_cc, cut = edge(doc, "c", "cc", 0), edge(doc, "c", "c_stopped", 0)
    assert r.is_cut(cut) and not r.is_cut(c_to_cc)
    want = {
        ("contribution", "cc", 0): [c_to_cc],
        ("contribution", "cc", 1): [edge(doc, "c_stopped", "cc", 1)],
        ("visit", "c_stopped", None): [edge(doc, "c_stopped", "cc", 1)],
        ("cut", "c_stopped", 0): [cut],
        ("visit", "c", None): [c_to_cc],          # not along the cut edge to c_stopped
        ("contribution", "c", 0): [edge(doc, "a", "c", 0)],
        ("accumulate", "a", None): [edge(doc, "a", "c", 0)],
        ("seed", "cc", None): [],
        ("visit", "cc", None): [],                # the seed arrives from outside the graph
    }
    got = {(s.kind, s.node, s.input_index): r._step_edges(s) for s in story.steps}
    assert got == want


def test_unconnected_and_stop_steps_draw_no_cotangent():
    r = renderer("001_stop_gradient")
    doc, story = r.doc, r.story
    assert r._step_edges(_step(story, "unconnected", "y")) == []
    assert r._step_edges(_step(story, "visit", "y_sq_stopped")) == [edge(doc, "y_sq_stopped", "z", 1)]
    assert r._step_edges(_step(story, "accumulate", "x")) == [edge(doc, "x", "x_sq", 0)]

    r = renderer("001_stop_recording")
    doc, story = r.doc, r.story
    assert r._step_edges(_step(story, "fan_in", "x")) == [edge(doc, "x", "x_sq", 0), edge(doc, "x", "x_sq", 1)]
    assert r._step_edges(_step(story, "cut", "y_sq")) == [edge(doc, "y", "y_sq", 0), edge(doc, "y", "y_sq", 1)]
    assert r._step_edges(_step(story, "unconnected", "y")) == []


@pytest.mark.parametrize("name", NAMES)
def test_no_cut_edge_ever_carries_a_cotangent(name):
    r = renderer(name)
    for step in r.story.steps:
        if step.kind != "cut":
            assert not any(r.is_cut(e) for e in r._step_edges(step)), (step.index, step.title)


def canvas_renderer(name):
    """The canvas's Renderer of a sample: its cards grown to show every port (a layer's
    output, kernel and bias, named beside them), laid out as the render layer does."""
    from types import SimpleNamespace

    from gradviz.app.canvas.renderer import make_renderer
    from gradviz.render.layout import layout
    doc, story = sample(name)
    problems = {}
    for p in story.evaluation.problems:
        problems.setdefault(p.node, []).append(p)
    r = make_renderer(doc, SimpleNamespace(evaluation=story.evaluation, story=story, node_problems=problems),
                      "light", {})
    r.positions = layout(doc, {n: (c.width, c.height) for n, c in r.cards.items()}, r.label_room())
    return r


@pytest.mark.parametrize("geometry", ["export", "canvas"])
@pytest.mark.parametrize("name", NAMES)
def test_overlay_labels_cover_no_card_no_port_name_no_formula_card_nor_each_other(name, geometry):
    """The seed's label and the cotangent pills, at every step of every sample, as exported
    and on the canvas: the seed's label once covered the target's 'output' port name
    (batchnorm lesson, step 1, on the canvas). A card's badge line counts where it writes a
    badge (source, target): above a card without one a label may come as near as beside it
    (BatchNorm's step 9 in presentation had no room in view but there).

    No leader line (the rule card's to its port, a label's to its arrow) crosses a text
    drawn outside the cards: a port's name, a badge, another label, the problem written
    under a card (the rule card's leader ran through log_p's '⚠ produced NaN or infinity',
    lesson 32, step 9); the rule card's leader no card either, its own but where it ends at
    its port (lesson 14's sum card's ran under layer's card to its output, and seemed to
    point at its corner)."""
    r = renderer(name) if geometry == "export" else canvas_renderer(name)
    cards = [r.rect(n).adjusted(0, -BADGE_H - 4 if r._has_badge(n) else 0, 0, 0) for n in r.doc.nodes]
    ports = [(rect, f"{n}'s port name {port}") for n in r.doc.nodes for rect, port, _ in r.port_labels(n)]
    seeds = 0
    for step in r.story.steps:
        labels = r.label_rects(step)
        seeds += any(text == "seed" for text, _ in labels)
        blocked = [(c, "a card") for c in cards] + ports
        card = r._formula_rect(step)
        if card is not None:
            blocked.append((card, "the formula card"))
        for i, (text, a) in enumerate(labels):
            hit = [what for b, what in blocked if a.intersects(b)]
            assert not hit, (step.index + 1, step.title, text, hit)
            assert not any(a.intersects(b) for _, b in labels[i + 1:]), (step.index + 1, step.title, text)
        crossed = leader_crossings(r, step)
        assert not crossed, (step.index + 1, step.title, crossed)
    assert seeds == sum(s.kind == "seed" and s.node in r.doc.nodes for s in r.story.steps)


@pytest.mark.parametrize("geometry", ["export", "canvas"])
@pytest.mark.parametrize("name", NAMES)
def test_a_pill_on_its_own_arrow_lies_on_no_other_edge(name, geometry):
    """A pill lying over its own arrow counted as 'no edge nearer than its own' even where
    another edge ran through it too: lesson 5's step 3 put "cotangent (2,)" over the edge
    into y's b as well as the arrow into a (the spot above the arrow was free), and 30 more
    steps (attention, softmax cross-entropy, higher order, ...) did the same."""
    r = renderer(name) if geometry == "export" else canvas_renderer(name)
    for step in r.story.steps:
        own = set(r._step_edges(step))
        others = [(e, t) for e, t in r._edge_tracks().items() if e not in own]
        for label, rect, anchor in r.placed_pills(step):
            if not (hasattr(anchor, "crosses") and anchor.crosses(rect)):
                continue
            hit = [f"{e.src.node} -> {e.dst.node}" for e, t in others if t.crosses(rect)]
            assert not hit, (step.index + 1, step.title, label, hit)


def test_the_seed_label_leaves_the_targets_port_names_readable():
    """Batchnorm lesson, step 1: the target layer2 names its ports output, kernel, bias; the
    seed's label goes where none of them is (and the moving part's bounds hold it)."""
    r = canvas_renderer("001_batchnorm_pitfall")
    step = r.story.steps[0]
    assert step.kind == "seed" and [name for _, name, _ in r.port_labels(step.node)][:1] == ["output"]
    tail, tip, label = r.seed_marks(step)
    assert tip.x() < tail.x() and tip.y() == tail.y() == r.output_pos(step.node, 0).y()
    assert not any(label.intersects(rect) for rect, _, _ in r.port_labels(step.node))
    assert r.moving_rect(step).contains(label) and r.bounds(step).contains(label)


def test_pill_labels_say_shape_not_value():
    r = renderer("003_stop_gradient_product")
    step = _step(r.story, "contribution", "cc")
    assert [label for label, _ in r.pill_rects(step)] == ["cotangent 2×3"]     # as its card writes it
    r = renderer("001_stop_recording")
    assert [label for label, _ in r.pill_rects(_step(r.story, "fan_in", "x"))] == ["from x_sq, input a",
                                                                                  "from x_sq, input b"]
    assert [label for label, _ in r.pill_rects(_step(r.story, "contribution", "z"))] == ["cotangent · scalar"]
    # a vector's shape is one number: "cotangent 2" read as the cotangent's value
    r = renderer("001_sigmoid_jacobian")
    labels = {label for s in r.story.steps for label, _ in r.pill_rects(s)}
    assert "cotangent shape 201" in labels
    assert all(not re.fullmatch(r"cotangent [\d.]+", label) for label in labels), labels
    assert cotangent_label(np.ones(2)) == "cotangent shape 2"
    assert cotangent_label(np.ones(1)) == "cotangent shape 1"
    assert cotangent_label(np.float32(2.0)) == "cotangent · scalar"
    assert cotangent_label(np.ones((3, 2))) == "cotangent 3×2"
    assert cotangent_label(np.ones((2, 1, 4))) == "cotangent 2×1×4"


def test_source_gradient_is_pending_until_its_accumulation_step():
    r = renderer("004_matmul_sum")
    story = r.story
    final = {s.port: s.index for s in story.steps if s.kind == "accumulate"}
    assert final
    for step in story.steps:
        pending = r.pending_ports(step.index)
        assert pending == {p for p, at in final.items() if at > step.index}
    assert r.pending_ports() == frozenset()          # plain editing / export without a step
    r.story_index = 0
    assert r.pending_ports() == frozenset(final)     # the player's current step


def _card_image(r, nid, step):
    rect = r.rect(nid).adjusted(-2, -2, 2, 2)
    image = QImage(round(rect.width()), round(rect.height()), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.translate(-rect.left(), -rect.top())
    r._paint_card(painter, nid, step)
    painter.end()
    return image


def test_pending_card_hides_the_numbers_and_keeps_its_size():
    r = renderer("004_matmul_sum")
    source = r.doc.sources[0].node
    seed, last = r.story.steps[0], r.story.steps[-1]
    before, after, plain = (_card_image(r, source, s) for s in (seed, last, None))
    assert before.size() == after.size()
    assert before != after and after == plain
    section = next(s for s in r.cards[source].sections if s.colour == "gradient")
    assert section.port in r.pending_ports(seed) and section.port not in r.pending_ports(last)


def test_formula_card_shows_every_operand_the_rule_uses_scalars_too():
    r = renderer("001_stop_gradient")
    step = next(s for s in r.story.steps if s.kind == "contribution" and s.node == "x_sq")
    # Pow's exponent is the node 'two', written by its name; the node y (= 3) keeps its own.
    assert step.formula == "grad_x = grad · two · x^(two-1)"
    arrays = {p[2]: p[1] for p in formula_parts(step) if p[0] == "array"}
    assert set(arrays) == {"upstream", "x", "two", "contribution"}
    assert float(arrays["x"]) == 2 and float(arrays["two"]) == 2 and float(arrays["contribution"]) == 4
    titles = [operand_title(p) for p in formula_parts(step) if len(p) > 3]
    assert titles == ["x =", "two ="]   # each operand is the node of its name
    placed = {label for label, _, _ in formula_arrays(r, step)}
    assert placed == set(arrays)


def test_formula_card_wraps_a_long_rule_and_keeps_every_line():
    r = renderer("001_batchnorm_pitfall")
    step = next(s for s in r.story.steps if s.kind == "contribution" and s.op_type == "FusedBatchNorm")
    layout = r.formula_layout(step)
    rule = next(extra for part, extra, *_ in layout.placed if part[0] == "text")
    assert len(rule) >= 2 and " ".join(rule).replace("  ", " ") == step.formula.split("=", 1)[1].strip()
    assert not any("…" in line for line in rule + layout.formula + layout.caption)
    assert layout.width <= FORMULA_MAX_W
    labels = {p[2] for p in layout.parts if p[0] == "array"}
    # Its input x is the node layer1 (the document has a node x): the rule calls it a.
    assert step.operand_nodes["a"] == "layer1" and "x" not in step.operand_nodes
    assert {"a", "γ"} <= labels


def test_step_picture_changes_while_the_cotangent_travels():
    from gradviz.render import render_image
    r = renderer("003_stop_gradient_product")
    step = _step(r.story, "contribution", "c").index
    start = render_image(r, step, scale=1.0)
    r_mid = renderer("003_stop_gradient_product")
    bounds = r_mid.bounds(step)
    image = QImage(start.size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.translate(-bounds.left(), -bounds.top())
    r_mid.paint(painter, step, progress=0.3, background=False)
    painter.end()
    assert image != start


def test_moving_rect_holds_the_arrows_and_pills():
    r = renderer("003_stop_gradient_product")
    step = _step(r.story, "visit", "c")
    moving = r.moving_rect(step)
    for _, path in r.step_paths(step):
        assert moving.contains(path.boundingRect())
    for _, rect in r.pill_rects(step):
        assert moving.contains(rect)
    assert isinstance(moving, QRectF) and not moving.isEmpty()


def test_accumulate_card_holds_the_final_gradient():
    r = renderer("003_stop_gradient_product")
    step = _step(r.story, "accumulate", "a")
    grad = r.story.evaluation.gradients[Port("a")]
    arrays = {p[2]: p[1] for p in formula_parts(step) if p[0] == "array"}
    np.testing.assert_array_equal(arrays["gradient"], grad)


def test_a_formula_card_docked_smaller_is_drawn_to_scale_and_its_entries_still_found():
    """The player may dock a formula card smaller than its layout (presentation mode: the
    card shown whole beside the step's cards): it is painted inside that rect, and each
    entry's cell, scaled with it, still finds that entry (element provenance clicks)."""
    r = renderer("nets_5_tiny_cnn")
    step = next(s for s in r.story.steps if s.kind == "contribution" and s.node == "pool")
    natural = r._formula_rect(step)
    layout = r.formula_layout(step)
    full = {label: (box, shown) for label, _, box, shown in formula_pictures(r, step)}
    box, shown = full["contribution"]
    said = formula_entry_text(r, step, shown.cell_rect(box.left(), box.top(), 5).center())
    assert said and said.startswith("contribution[")
    scale = 0.6
    docked = QRectF(-500, 40, layout.width * scale, layout.height * scale)
    r.dock_formula(step, docked)
    assert r._formula_rect(step) == docked and r.formula_scale(step) == pytest.approx(scale)
    small = {label: (box, shown) for label, _, box, shown in formula_pictures(r, step)}
    assert set(small) == set(full) and "contribution" in small
    for label, (box, shown) in small.items():
        big = full[label][0]
        assert box.width() == pytest.approx(big.width() * scale)
        assert box.height() == pytest.approx(big.height() * scale)
        assert box.left() - docked.left() == pytest.approx((big.left() - natural.left()) * scale)
        assert docked.contains(box)
        array = dict((lab, arr) for lab, arr, _ in formula_arrays(r, step))[label]
        for flat in range(0, int(np.size(array)), 7):
            cell = shown.cell_rect(box.left(), box.top(), flat)
            if cell is None:
                continue
            assert box.adjusted(-0.01, -0.01, 0.01, 0.01).contains(cell)
            assert shown.entry_at(box.left(), box.top(), cell.center()) == flat
    box, shown = small["contribution"]
    assert formula_entry_text(r, step, shown.cell_rect(box.left(), box.top(), 5).center()) == said
    # Painted: the card's ink lies inside the docked rect, none outside it.
    image = QImage(1400, 1000, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.translate(900, 100)
    r._paint_formula(painter, step)
    painter.end()
    inside = docked.translated(900, 100).adjusted(-2, -2, 2, 2)
    ink = [(x, y) for x in range(0, 1400, 4) for y in range(0, 1000, 4)
           if image.pixelColor(x, y) != QColor("white")]
    assert ink and all(inside.contains(x, y) for x, y in ink)
    assert max(y for _, y in ink) > inside.bottom() - 10   # the whole card, to its foot
    r.dock_formula(step, None)
    assert r._formula_rect(step) == natural and r.formula_scale(step) == 1.0


OPERAND_TITLE_MAX = 30   # characters of 'a (∂out/∂y_sq (a constant)) =' and less


def _words(text, name):
    return len(re.findall(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text))


def test_no_operand_title_says_a_name_twice_in_any_sample():
    """The CNN lesson's cross-entropy card wrote 'labels (labels (vertical)) =': the operand
    labels is the node 'labels (vertical)', whose name already says it. A node's name that
    has the letter inside as a word of its own ('a (∂y/∂y (a constant)) =', lesson 13 step
    15) is written whole after it: the letter is said once, the node's words as they are."""
    seen = 0
    for name in NAMES:
        _, story = sample(name)
        for step in story.steps:
            for part in formula_parts(step):
                if len(part) > 4 and part[3] == "operand":
                    title = operand_title(part)
                    node = part[4] or part[2]
                    if re.match(rf"{re.escape(part[2])}(?![A-Za-z0-9_])", node):
                        assert title == f"{node} =", (name, step.title, title)
                    else:
                        assert _words(title, part[2]) == 1 + _words(node, part[2]) * (node != part[2]), \
                            (name, step.title, title)
                    # which node it is, always beside it (issue 20 §1: the caption, in the
                    # player's bar, is not on the card)
                    assert node in title, (name, title)
                    # short enough to keep its matrix in place (see the test below)
                    assert len(title) <= OPERAND_TITLE_MAX, (name, step.index + 1, title)
                    seen += 1
    assert seen > 20
    _, cnn = sample("nets_5_tiny_cnn")
    ce = next(s for s in cnn.steps if s.kind == "contribution" and s.op_type.startswith("SoftmaxCross"))
    # the labels are written once, in the rule's own row (test_rule_card_truth), headed so
    assert ("word", "labels (vertical) =") in formula_parts(ce)


def test_no_operand_label_pushes_its_matrix_off_the_card():
    """Lesson 14 step 6: 'a (the relu grad for ∂out/∂(layer's matmul) inside t1.gradient(out,
    x)) =' put its matrix at the card's far right and made the card too wide to read at the
    player's zoom. Every operand label of every sample's every step is short: a node inside
    a gradient node that the step's title names is written without 'inside …' (every sample's
    labels are bounded above). Until issue 20 §1 the card wrote a bare 'a =' and left the node
    to the caption, which the player shows in its bar, not on the card."""
    _, lesson = sample("001_input_gradient_regularization")
    step = lesson.steps[5]
    titles = [operand_title(p) for p in formula_parts(step) if len(p) > 4 and p[3] == "operand"]
    assert titles == ["a (the relu grad) ="], titles
    # (the relu grad is the one op of its kind inside that node: its one name since issue 20)
    assert "Here a is 'the relu grad inside t1.gradient(out, x)'" in " ".join(step.caption.split())


def test_every_fan_in_names_its_paths_by_the_users_nodes():
    """A fan-in's card and arrows wrote 'path 1 + path 2' without saying where each comes
    from: each path is named by the node it comes back from, as the canvas names it."""
    fans = 0
    for name in NAMES:
        r = renderer(name)
        titles = {n.label or n.id for n in r.doc.nodes.values()}
        for step in r.story.of_kind("fan_in"):
            labels = [p[2] for p in formula_parts(step) if p[0] == "array" and p[2] != "sum"]
            assert len(labels) == len(step.contributions) == len(set(labels)), (name, labels)
            for label in labels:
                assert label == "the seed" or any(label.startswith(f"from {t}") for t in titles) \
                    or label.startswith("from ") and label[5:].split("/")[0] in titles \
                    or any(label.endswith(f" inside {t}") for t in titles), (name, label)   # a gradient node's op
            pills = [text for text, _ in r.pill_rects(step)]
            assert all(p.startswith("from ") and "path" not in p for p in pills), (name, pills)
            fans += bool(pills)
    assert fans >= 5


def test_every_contribution_between_two_nodes_draws_its_arrow_from_the_sender():
    """Lesson 14's fan-in at layer drew no arrow: its contributions come from inside
    t1.gradient(out, x), which reads layer's output without an edge from it; and the
    cross-entropy's step to the logits drew none (its op takes the logits first, its node
    second). Every contribution from one node to another draws an arrow from the port it
    delivers to into the node that sends, and a fan-in draws one from every sender."""
    implicit = 0
    for name in NAMES:
        r = renderer(name)
        steps = r.story.steps
        for step in steps:
            sender = step.node
            port = step.port
            if step.kind != "contribution" or sender not in r.doc.nodes or port is None \
                    or port.node == sender or port.node not in r.doc.nodes:
                continue
            edges = r._step_edges(step)
            assert [(e.src, e.dst.node) for e in edges] == [(port, sender)], (name, step.title)
            implicit += edges[0] not in r.doc.edges
        for step in r.story.of_kind("fan_in"):
            if step.port is None:       # inside a layer: no card of its own to arrive at
                continue
            senders = {steps[i].node for i in step._sources if steps[i].kind == "contribution"
                       and steps[i].node in r.doc.nodes and steps[i].node != step.port.node}
            assert {e.dst.node for e in r._step_edges(step)} == senders, (name, step.title)
            assert all(e.src == step.port for e in r._step_edges(step)), (name, step.title)
    assert implicit >= 4        # lesson 14's and the higher-order lesson's gradient nodes
    r = renderer("001_input_gradient_regularization")
    fan = next(s for s in r.story.of_kind("fan_in") if s.port == Port("layer", 0))
    (link,) = r._step_edges(fan)
    assert link.dst == Port("t1_gradient_out_x", 0)            # into the input that depends on layer: out
    # both of its paths come along that one edge, each on its own arrow with its own label
    # (issue 20 §1; one arrow said "from t1.gradient(out, x), twice")
    assert len(r.step_tracks(fan)) == 2
    assert [text for text, _ in r.pill_rects(fan)] == fan.paths == [
        "from the relu grad inside t1.gradient(out, x)",
        "from the multiply in y_sq's rule inside t1.gradient(out, x)"]


def test_a_link_drawn_for_a_step_reads_as_no_edge():
    """Lesson 14's fan-in at layer.kernel drew t1.gradient(out, x)'s contribution as a solid
    arrow from its target port, like a wire from the kernel into 'target' (auditor H37w): the
    inner gradient reads the kernel on out's tape, with no edge. The link is dotted and its
    label says so; an edge of the graph keeps its solid arrow."""
    from PySide6.QtCore import Qt
    r = renderer("001_input_gradient_regularization")
    fan = next(s for s in r.story.of_kind("fan_in") if s.port == Port("layer", 1))
    tracks = r.step_tracks(fan)
    texts = r._pill_texts(fan)
    links = [(e, text) for (e, _), text in zip(tracks, texts) if e not in r.doc.edges]
    assert len(links) == 1
    (link, text), = links
    assert text == "from t1.gradient(out, x), which reads layer.kernel (no edge)"
    assert r._arrow_pen(fan, link).style() == Qt.PenStyle.DotLine
    contribution = next(s for s in r.story.steps if s.kind == "contribution" and s.port == Port("layer", 1)
                        and s.node == link.dst.node)
    assert [r._arrow_pen(contribution, e).style() for e, _ in r.step_tracks(contribution)] == [Qt.PenStyle.DotLine]
    assert all(t.endswith(" (no edge)") for t in r._pill_texts(contribution))   # each step says so
    wired = next(s for s in r.story.steps if s.kind == "contribution" and r._step_edges(s)
                 and all(e in r.doc.edges for e in r._step_edges(s)))
    assert {r._arrow_pen(wired, e).style() for e, _ in r.step_tracks(wired)} == {Qt.PenStyle.SolidLine}


def test_a_label_moves_off_a_formula_card_docked_over_it():
    """The player docks a step's formula card where it frames with the step's cards (the tiny
    CNN's conv → filters w in presentation at 1280x800); the label of the cotangent's arrow
    was placed for the card's first place and stayed under the docked card."""
    r = renderer("nets_5_tiny_cnn")
    step = next(s for s in r.story.steps if s.kind == "contribution" and s.port == Port("filters_w"))
    (_, pill), = r.pill_rects(step)
    r.dock_formula(step, pill.adjusted(-40, -40, 300, 200))           # docked over the label
    (_, moved), = r.pill_rects(step)
    assert not moved.intersects(r._formula_rect(step))
    r.dock_formula(step, None)
    assert r.pill_rects(step)[0][1] == pill                            # back beside its node


@pytest.mark.parametrize("name", ["004_matmul_sum", "001_batchnorm_pitfall"])
def test_the_step_title_and_caption_are_on_an_exported_card_and_left_to_the_player_on_the_canvas(name):
    """An export (PNG, GIF) has no player bar: its formula card writes the step's title and
    caption. On the canvas the player bar (or presentation's band) writes them: the card
    wrote them a second time."""
    exported, canvas = renderer(name), canvas_renderer(name)
    steps = exported.story.steps
    for step in steps:
        if step.node not in exported.doc.nodes:
            continue
        card, shown = exported.formula_layout(step), canvas.formula_layout(step)
        assert card.title[0].startswith(f"{step.index + 1}/{len(steps)}  ")
        assert " ".join(card.caption).split() == step.caption.split()
        assert shown.title == [] and shown.caption == [], (step.index + 1, step.title)
        assert shown.formula == card.formula and shown.height < card.height


def test_a_card_with_nothing_left_to_write_is_not_drawn():
    """On the canvas a cut's card had only the title and caption the player shows: without
    them it was an empty box with a leader line (presentation, docs/app-presentation.png)."""
    empty = 0
    for name in NAMES:
        canvas = canvas_renderer(name)
        for step in canvas.story.steps:
            if canvas.formula_layout(step).empty:
                empty += 1
                assert canvas._formula_rect(step) is None, (name, step.index + 1, step.title)
            elif step.node in canvas.doc.nodes:
                assert canvas._formula_rect(step) is not None
    assert empty   # the cuts of the stop_gradient lessons


def _ring_pixels(r, nid, zoom=2):
    """The points (scene units) where the active card's ring is stroked: the theme's active
    colour, opaque (its glow is paler)."""
    ring = r.rect(nid).adjusted(-60, -60, 60, 60)
    image = QImage(int(ring.width() * zoom), int(ring.height() * zoom), QImage.Format.Format_ARGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.scale(zoom, zoom)
    painter.translate(-ring.topLeft())
    r._paint_highlight(painter, nid)
    painter.end()
    px = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)
    active = QColor(r.theme.active)
    near = (np.abs(px[:, :image.width(), 2].astype(int) - active.red()) < 24) \
        & (np.abs(px[:, :image.width(), 1].astype(int) - active.green()) < 24) \
        & (np.abs(px[:, :image.width(), 0].astype(int) - active.blue()) < 24)
    ys, xs = np.nonzero(near)
    return xs / zoom + ring.left(), ys / zoom + ring.top()


@pytest.mark.parametrize("name", ["001_hessian_newton", "001_batchnorm_pitfall", "001_stop_recording",
                                  "001_input_gradient_regularization"])
def test_the_ring_of_the_active_card_runs_clear_of_its_badges(name):
    """The ring round the step's card never runs through its badges (target, source, not
    recorded): it lay on 'target' and 'source' in lessons 17 and 19 (F5, 1920 x 1080), the
    badges 4 px above the card, the ring 6 px out of it."""
    r = renderer(name)
    seen = 0
    for nid in {s.node for s in r.story.steps if s.node in r.doc.nodes}:
        badges = r.badges(nid)
        if not badges:
            continue
        xs, ys = _ring_pixels(r, nid)
        assert len(xs) > 100, nid
        for label, _, rect in badges:
            inside = (xs > rect.left() - 1) & (xs < rect.right() + 1) & (ys > rect.top() - 1) & (ys < rect.bottom() + 1)
            assert not inside.any(), (name, nid, label)
        seen += 1
    assert seen


def test_a_label_for_a_path_inside_a_card_lies_nearer_its_card_than_any_other_edge():
    """A fan-in's label for a path inside a card (no arrow) tries spots from the card's
    left and centred under or over it too: lesson 14's step 22 after Auto Layout at 1280 x
    800 (these positions) had only spots from the card's right end, each beside another
    edge, and put 'from layer's matmul, inside layer (no edge)' 6.8 label units from x's
    edge into t1.gradient and 10.9 from layer's card."""
    from gradviz.render.track import Track, apart
    r = canvas_renderer("001_input_gradient_regularization")
    r.positions = {"x": (40.0, 185.2), "layer": (395.0, 0.0), "y_sq": (810.0, 87.5), "out": (40.0, 445.2),
                   "t1_gradient_out_x": (304.0, 445.2), "g1_mag": (659.0, 477.8)}
    r.zoom_labels = lambda: 1.2593        # the canvas's zoom then, and the view framed
    r.view_bounds = lambda: QRectF(-29.0, -23.9, 1151.0, 773.2)
    step = next(s for s in r.story.steps if s.kind == "fan_in" and s.title == "Fan-in at layer.kernel")
    r.dock_formula(step, QRectF(107.8, 627.2, 754.9, 121.0))
    own_edges = set(r._step_edges(step))
    others = [t for e, t in r._edge_tracks().items() if e not in own_edges]
    inside = [(label, rect, card) for label, rect, card in r.placed_pills(step) if not isinstance(card, Track)]
    assert inside
    for label, rect, card in inside:
        near = min(t.distance(rect) for t in others)
        assert near >= apart(rect, card), (label, near / r.label_scale, apart(rect, card) / r.label_scale)
