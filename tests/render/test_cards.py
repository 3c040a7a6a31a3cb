"""Node cards: every text fits its card (elided with "…" only when it must), layer weights
show their gradients, x̂ keeps its hat on the x, a pending gradient reads as a placeholder.
Tables of numbers: test_card_tables.py; heat pictures: test_card_heatmaps.py."""
import copy
import re
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from samples_util import NAMES, image_pixels, renderer

from gradviz.graph.document import Document, Node, Port
from gradviz.graph.tensors import dims
from gradviz.render import Renderer, preview, text
from gradviz.render.cards import MAX_TEXT_W, PAD


def _card_texts(card):
    """[(font, text as painted, room)] of one card."""
    f_body, f_label = text.sans(9), text.sans(8.5, True)
    inner = card.width - 2 * PAD
    out = [(f_body, line, inner) for line in card.lines + ([card.mark] if card.mark else [])]
    out += [(f_label, s.text, inner) for s in card.sections]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_card_text_fits_and_nothing_is_elided(name):
    """Every text of every sample's cards fits its card and is shown whole: the shape and
    the attributes wrap onto more lines (this test allowed "…" at the 300 px cap, and the
    BatchNormalization lesson's bn card showed 'training=…'; issue 20 §3 asks for the
    attributes whole)."""
    r = renderer(name)
    for nid, card in r.cards.items():
        head = text.width(text.sans(11, True), card.title_text) + text.width(text.sans(8.5), card.subtitle_text)
        assert head + 3 * PAD <= card.width + 0.5, nid
        for font, shown, room in _card_texts(card):
            assert text.width(font, shown) <= room + 0.5, (nid, shown)
        assert (card.title_text, card.subtitle_text) == (card.title, card.subtitle), nid
        assert [s.text for s in card.sections] == [s.label for s in card.sections], nid
        assert not card.mark.endswith("…"), (nid, card.mark)
        shown = " ".join(card.lines)
        for whole in (card.info, card.attrs):
            assert whole.replace(" ", "") in shown.replace(" ", ""), (nid, whole, card.lines)
        for s in card.sections:
            if s.preview is not None:
                assert s.preview.width + 2 * PAD <= card.width + 0.5, nid


def test_dense_attributes_are_shown_whole():
    r = renderer("001_input_gradient_regularization")
    assert "units=10, activation=relu, use_bias=True" in r.cards["layer"].lines


def test_a_huge_label_is_elided_and_does_not_blow_up_the_picture():
    doc = Document(title="long")
    doc.add(Node("a", "constant", value=np.ones(3, np.float32), label="L" * 20000))
    r = Renderer(doc)
    card = r.cards["a"]
    assert card.width <= MAX_TEXT_W and card.title_text.endswith("…")
    assert r.bounds().width() < 400


def test_gradient_label_names_the_target_and_the_node_not_the_op():
    r = renderer("003_stop_gradient_product")
    labels = [s.label for s in r.cards["a"].sections if s.colour == "gradient"]
    assert labels == ["gradient  ∂Σcc/∂a"]      # cc is 2 x 3: tape.gradient sums it


@pytest.mark.parametrize("name, node, label", [
    ("002_vjp_output_gradients", "x", "gradient  ∂❬v, y❭/∂x"),   # output_gradients v: vᵀJ
    ("003_matmul_gradient", "a", "gradient  ∂Σc/∂a"),            # a 2-D target: its sum
    ("003_stop_gradient_product", "a", "gradient  ∂Σcc/∂a"),     # cc is 2 x 3
    ("001_stop_gradient", "x", "gradient  ∂z/∂x"),               # a scalar: itself
])
def test_gradient_label_says_what_tape_gradient_differentiates(name, node, label):
    """A card never writes ∂y/∂x for what is ∂(Σy)/∂x or vᵀ∂y/∂x (walk-through finding)."""
    r = renderer(name)
    assert [s.label for s in r.cards[node].sections if s.colour == "gradient"] == [label]


def test_a_seeded_gradient_label_has_no_bracket_read_as_a_parenthesis():
    """∂⟨v, y⟩/∂input image read as ∂(v, y)/∂input image at card size (DejaVu's ⟨ is a
    narrow, shallow glyph): the seed's inner product is written ❬v, y❭ on every card."""
    r = renderer("nets_1_conv_transpose")
    labels = [s.label for card in r.cards.values() for s in card.sections if s.colour == "gradient"]
    assert labels and all(label.startswith("gradient  ∂❬v, y❭/∂") for label in labels), labels
    assert not any(c in label for label in labels for c in "()⟨⟩")


def test_layer_weight_gradients_are_drawn_for_weight_sources():
    r = renderer("001_input_gradient_regularization")
    card = r.cards["layer"]
    grads = [s for s in card.sections if s.colour == "gradient"]
    assert [s.port for s in grads] == [Port("layer", 1), Port("layer", 2)]
    assert [s.label for s in grads] == ["gradient  ∂g1_mag/∂layer.kernel", "gradient  ∂g1_mag/∂layer.bias"]
    kernel = r.story.evaluation.gradients[Port("layer", 1)]
    np.testing.assert_array_equal(grads[0].array, kernel)
    # in the format of the card's value (its 7 x 10 output in corners and ellipses): 5 x 10
    # is no full grid, so corners and ellipses too, not the heatmap it was beside numbers
    assert card.sections[0].preview.kind == grads[0].preview.kind == "ellipsis"
    assert r.source_badge("layer") == "sources: kernel, bias"


def test_unconnected_source_says_none_within_its_card():
    r = renderer("001_stop_gradient")
    card = r.cards["y"]
    section = next(s for s in card.sections if s.colour == "gradient")
    assert section.array is None and section.preview is None
    words = r.none_text(section.port)   # y's path passes stop_gradient: cut, not 'no path'
    assert words.startswith("None (cut at ") and "no path" not in words
    assert text.width(preview.mono_font(9), words) + 2 * PAD <= card.width


def test_combining_hat_stays_on_its_line():
    """DejaVu Sans, shaped, floats the hat of x̂ far above the line (seen in the audit)."""
    for font in (text.sans(9), text.sans(10, True), text.mono(9.5), text.mono(9.5, True)):
        image = QImage(200, 90, QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.setFont(font)
        painter.setPen(QColor("black"))
        painter.drawText(QRectF(10, 40, 180, 20), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         "x\u0302 x\u0302")
        painter.end()
        a = image_pixels(image)[..., :3]
        ink = np.argwhere(a.min(axis=2) < 160)
        assert ink[:, 0].min() >= 36, font.family()        # nothing above the line box
        # the hat sits over its x, not after it (unshaped DejaVu Sans Mono): "x̂ x̂" is as wide as "x x"
        assert ink[:, 1].max() - 10 <= text.width(font, "x x") + 2, font.family()


def test_previews_agree_between_measure_and_draw():
    for array in (np.float32(3.5), np.arange(6.0).reshape(2, 3), np.ones((8, 8)), np.ones((30, 30))):
        shown = preview.Preview(array)
        assert preview.measure(array) == shown.size
        assert preview.kind(array) == shown.kind


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4)])
def test_an_empty_tensor_shows_its_shape_in_words(shape):
    """A tensor with a 0 in its shape has no numbers to draw: it says so and which shape
    (a (3, 0) array made the export fail with numpy's 'cannot reshape array of size 0')."""
    shown = preview.Preview(np.zeros(shape, np.float32))
    assert shown.kind == "empty" and shown.text == f"empty, shape {dims(shape)}"   # 0×3, as the cards write shapes
    assert shown.width > 0 and shown.height > 0 and shown.cell_rect(0, 0, 0) is None
    image = QImage(int(shown.width) + 4, int(shown.height) + 4, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    shown.draw(painter, 2, 2, "#000000", None)
    painter.end()
    assert (image_pixels(image)[..., :3].min(axis=2) < 128).any()   # the words are drawn


def test_pending_text_fits_a_narrow_source_card():
    doc = Document(title="tiny")
    doc.add(Node("v", "variable", value=np.float32(1.0)))
    doc.add(Node("y", "op", op="square"))
    doc.connect("v", "y")
    doc.targets, doc.sources = [Port("y")], [Port("v")]
    ev = SimpleNamespace(values={Port("v"): np.float32(1), Port("y"): np.float32(1)},
                         gradients={Port("v"): np.float32(2)})
    r = Renderer(doc, evaluation=ev)
    from gradviz.render.cards import PENDING_TEXT
    assert text.width(text.sans(8.5), PENDING_TEXT) + 2 * PAD <= r.cards["v"].width


def test_a_relu_card_marks_its_dead_units_and_a_value_edit_updates_the_mark():
    r = renderer("nets_2_relu_chain")
    doc = r.doc
    for k in range(1, 7):
        value = r.evaluation.values[Port(f"layer{k}")]
        dead = [int(u) for u in np.flatnonzero((value == 0).all(axis=0))]
        units = ", ".join(map(str, dead))
        which = f"unit{'s' if len(dead) != 1 else ''} {units}"
        assert r.cards[f"layer{k}"].mark == f"✕ relu off for this example: {which} (of 6)"
    assert r.cards["x"].mark == "" and r.cards["loss"].mark == ""
    # a frame's height makes room for the mark's line
    plain = renderer("nets_2_sigmoid_chain").cards["layer1"]
    assert plain.mark == "" and r.cards["layer1"].height > plain.height
    # the same shapes, other numbers: the card is measured again when its dead units change
    from gradviz import graph
    edited = copy.deepcopy(doc)
    edited.nodes["layer1"].weights["bias"] = np.full(6, 10.0, np.float32)   # every unit on
    after = Renderer(edited, evaluation=graph.evaluate(edited))
    assert after._renumbered(r.cards["layer1"], edited.nodes["layer1"]) is None
    assert after.cards["layer1"].mark == ""


def test_a_six_unit_layer_shows_every_unit_on_its_card_and_in_its_rule():
    """The chain lessons' layers have 6 units and their point is which units are dead (0):
    a 1×6 row and a 6×6 kernel are written whole, not with a unit hidden under '↔'."""
    r = renderer("nets_2_relu_chain")
    for k in range(1, 7):
        shown = r.cards[f"layer{k}"].sections[0].preview
        assert shown.kind == "grid" and shown.array.shape == (1, 6)
        assert all(shown.cell_rect(0, 0, u) is not None for u in range(6)), k
    relu = next(s for s in r.story.steps if s.kind == "contribution" and s.formula == "grad_a = grad where a > 0")
    parts = [(part, shown) for part, shown, *_ in r.formula_layout(relu).placed if part[0] == "array"]
    assert parts and all(shown.kind == "grid" for _, shown in parts)
    matmul = next(s for s in r.story.steps if s.kind == "contribution"      # layer{k}'s matmul →
                  and re.fullmatch(r"grad_layer\d = grad @ layer\d\.kernelᵀ", s.formula))   # layer{k-1}
    kernel = next(shown for part, shown, *_ in r.formula_layout(matmul).placed if part[0] == "array"
                  and np.shape(part[1]) == (6, 6))
    assert kernel.kind == "grid" and all(kernel.cell_rect(0, 0, i) is not None for i in range(36))
    assert preview.kind(np.zeros((1, 7))) == "ellipsis" and preview.kind(np.zeros((7, 6))) == "ellipsis"


@pytest.mark.parametrize("name, nid", [("nets_1_conv_transpose", "input_image"),
                                       ("001_batchnorm_pitfall", "x"),
                                       ("nets_8_embedding", "embedding_table")])
def test_a_pending_gradient_reads_as_a_placeholder(name, nid):
    """Issue 20 §5 (auditor): a source's gradient not yet accumulated kept the box of the
    whole gradient (the card does not jump when it arrives: test_stable_layout) filled with
    the gradient's tint, 'pending: not yet accumulated' at its top-left: a large pink block
    that read as an error (lesson 25's input image, 19's x, 36's table). The box keeps its
    size and reads as a placeholder: the card's own light colour, its words centred."""
    from gradviz.render.cards import LINE_H, PENDING_TEXT
    r = renderer(name)
    pending = r.pending_ports(0)
    assert any(p.node == nid for p in pending)
    card = r.cards[nid]
    section = next(s for s in card.sections if s.colour == "gradient" and s.port in pending)
    body = section.preview.height
    assert body >= 3 * LINE_H, (nid, body)            # the case: a box for a whole gradient
    x, y = r.positions[nid]
    image = QImage(int(card.width), int(card.height), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(r.theme.background))
    painter = QPainter(image)
    painter.translate(-x, -y)
    r._paint_card(painter, nid, 0)
    painter.end()
    pixels = image_pixels(image)[..., :3][..., ::-1].astype(int)      # BGRA -> RGB
    top, left = int(section.y + LINE_H), int(PAD)
    box = pixels[top + 2:top + int(body) - 2, left + 2:int(card.width) - left - 2]
    light, tint = (np.array(QColor(c).getRgb()[:3]) for c in (r.theme.card, r.theme.gradient_fill))
    is_light = (np.abs(box - light).sum(axis=2) <= 6)
    is_tint = (np.abs(box - tint).sum(axis=2) <= 6)
    assert is_light.mean() > 0.8 and is_tint.mean() < 0.05, (nid, is_light.mean(), is_tint.mean())
    ink = np.argwhere(np.abs(box - light).sum(axis=2) > 150)     # the words' glyphs
    centre = ink.mean(axis=0)
    assert abs(centre[0] - box.shape[0] / 2) <= 4 and abs(centre[1] - box.shape[1] / 2) <= 6, \
        (nid, centre, box.shape)
    assert text.width(text.sans(8.5), PENDING_TEXT) < card.width


def _sigmoid_student():
    """A student's y = reduce_sum(sigmoid(x @ W + b)), x watched: three sources whose
    gradients are a row (x), a matrix (W) and a vector (b)."""
    doc = Document(title="y = reduce_sum(sigmoid(x @ W + b))")
    doc.add(Node("x", "constant", value=np.array([[0.5, -1.0, 2.0]], np.float32), watched=True))
    doc.add(Node("W", "variable", value=np.array([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]], np.float32)))
    doc.add(Node("b", "variable", value=np.array([0.1, -0.2], np.float32)))
    doc.add(Node("matmul", "op", op="matmul"))
    doc.add(Node("add", "op", op="add"))
    doc.add(Node("sigmoid", "op", op="nn.sigmoid"))
    doc.add(Node("y", "op", op="reduce_sum"))
    for src, dst, slot in [("x", "matmul", 0), ("W", "matmul", 1), ("matmul", "add", 0), ("b", "add", 1),
                           ("add", "sigmoid", 0), ("sigmoid", "y", 0)]:
        doc.connect(src, dst, 0, slot)
    doc.targets = [Port("y")]
    doc.sources = [Port("x"), Port("W"), Port("b")]
    return doc


def test_a_pending_gradient_has_one_look_on_every_card():
    """Mid-story in a student's y = reduce_sum(sigmoid(x @ W + b)), 'pending: not yet
    accumulated' was boxed on W (a gradient three rows tall) but plain words on the tint on
    x and b (one row): the box was drawn only round a body taller than two lines. Every
    pending gradient now reads the same: an outlined box in the card's light colour, its
    words whole on one line, centred in it."""
    from gradviz.graph import evaluate
    from gradviz.render.cards import LINE_H, PENDING_TEXT
    from gradviz.story import build

    doc = _sigmoid_student()
    story = build(doc)
    r = Renderer(doc, evaluation=evaluate(doc), story=story)
    step = 2                                           # y -> sigmoid: no gradient accumulated yet
    pending = r.pending_ports(step)
    assert {p.node for p in pending} == {"x", "W", "b"}
    light, tint = (np.array(QColor(c).getRgb()[:3]) for c in (r.theme.card, r.theme.gradient_fill))
    looks = {}
    for nid in ("x", "W", "b"):
        card = r.cards[nid]
        section = next(s for s in card.sections if s.colour == "gradient")
        x, y = r.positions[nid]
        image = QImage(int(card.width), int(card.height), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor(r.theme.background))
        painter = QPainter(image)
        painter.translate(-x, -y)
        r._paint_card(painter, nid, step)
        painter.end()
        pixels = image_pixels(image)[..., :3][..., ::-1].astype(int)
        top, bottom = int(section.y + LINE_H), int(section.y + LINE_H + section.preview.height)
        body = pixels[top:bottom, int(PAD) - 5:int(card.width - PAD) + 5]
        # across a row above the words: tint, the outline, light inside, the outline, tint
        row = body[2]
        inside = np.abs(row - light).sum(axis=1) <= 6
        assert inside.sum() > body.shape[1] / 2, (nid, "no light box")
        first, last = np.argmax(inside), len(inside) - 1 - np.argmax(inside[::-1])
        assert (np.abs(row[:2] - tint).sum(axis=1) <= 6).all(), (nid, "tint outside the box")
        assert (np.abs(row[1:first] - tint).sum(axis=1) > 6).any(), (nid, "no outline on the left")
        assert (np.abs(body[2:-2, 6:-6] - tint).sum(axis=2) <= 6).mean() < 0.05, (nid, "tint inside")
        ink = np.argwhere(np.abs(body[2:-2, 6:-6] - light).sum(axis=2) > 150)
        rows = body.shape[0] - 4
        centre = ink.mean(axis=0)
        assert abs(centre[0] - rows / 2) <= 3, (nid, centre, rows)
        assert abs(centre[1] - (body.shape[1] - 12) / 2) <= 6, (nid, centre, body.shape)
        # one line of words (not wrapped): the ink is no taller than a line of its font
        assert np.ptp(ink[:, 0]) < text.metrics(text.sans(8.5)).height(), (nid, np.ptp(ink[:, 0]))
        looks[nid] = (first, len(inside) - 1 - last)
    assert len(set(looks.values())) == 1, looks      # the box's edges as far in on every card
    assert text.width(text.sans(8.5), PENDING_TEXT) < min(r.cards[n].width for n in looks)


def test_every_sample_s_card_writes_its_value_and_gradients_in_one_format():
    """Lesson 14's layer card wrote its 7×10 value in numbers and drew its kernel's 5×10
    gradient as a heatmap beside it (a layer weight's gradient had no corners-and-ellipses
    form; issue 20 §5): over every sample, a card that writes its value in numbers writes
    its gradients in numbers, unless one is too large for any (then a heatmap is the only
    form), and a card that draws its value as a heatmap draws no gradient in corners and
    ellipses."""
    from gradviz.bundled import samples_dir
    from gradviz.graph import evaluate, load
    from gradviz.render import Renderer, preview

    numbers = ("scalar", "grid", "ellipsis")
    checked = 0
    for path in sorted(samples_dir().glob("*.json")):
        doc = load(path)
        renderer = Renderer(doc, evaluation=evaluate(doc))
        for nid, card in renderer.cards.items():
            shown = [s for s in card.sections if s.preview is not None]
            if not shown or shown[0].colour != "value" or shown[0].preview.kind == "tiles":
                continue
            value = shown[0].preview.kind
            for s in shown[1:]:
                where = (path.name, nid, s.label, value, s.preview.kind)
                if value in numbers:
                    assert s.preview.kind in numbers or preview.kind(s.array) == "heatmap", where
                    checked += 1
                elif value == "heatmap":
                    assert s.preview.kind != "ellipsis", where
    assert checked > 20


def test_a_pending_gradient_says_what_has_arrived_at_each_step():
    """Issue 20 §1: 'pending: not yet accumulated' stayed on y's card from step 10 to 13 of
    train_1_gd_bowl, after its only contribution came (step 10; shown at step 14); x of
    001_reset has two, and the second comes one step after the first."""
    from gradviz.render.cards import PENDING_TEXT
    bowl, reset = renderer("train_1_gd_bowl"), renderer("001_reset")
    y, x = Port("y"), Port("x")
    steps = {s.title: s.index for s in bowl.story.steps}
    arrive, shown = steps["y2 → y"], steps["Gradient of y"]
    assert shown - arrive == 4
    words = {i: bowl.pending_text(y, i) for i in range(-1, shown)}
    assert {words[i] for i in range(-1, arrive)} == {PENDING_TEXT}
    assert {words[i] for i in range(arrive, shown)} == {f"complete: shown at step {shown + 1}"}
    assert y not in bowl.pending_ports(shown)
    first = next(s.index for s in reset.story.steps if s.title == "x_sq → x (input a)")
    assert [reset.pending_text(x, first + k) for k in (-1, 0, 1)] == [
        PENDING_TEXT, "pending: 1 of 2 arrived",
        f"complete: shown at step {reset.reveal_steps()[x] + 1}"]
    bowl.story_index = arrive        # what a card paints and repaints on: the step shown
    assert bowl.pending_words() == {y: f"complete: shown at step {shown + 1}",
                                    Port("x"): PENDING_TEXT}
    card = bowl.cards["y"]
    assert all(text.width(text.sans(8.5), w) + 2 * PAD <= card.width
               for w in bowl.pending_texts(y))
