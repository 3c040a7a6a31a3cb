"""A card's title is the node's name, the one the story and every message use (its label,
else its id); its corner says what it computes (the op), never an internal id. Walk-through:
the softmax-then-log lesson titled its cards 'negative', 'multiply' while the story spoke
of 'ce' and 'labels_log_p' (the grey corner); the node labelled out showed 'matmul_1'."""
import re

import numpy as np
import pytest
from samples_util import NAMES, renderer, sample

from gradviz.graph.document import Document, Node
from gradviz.render import Renderer

KIND_PREFIX = re.compile(r"^(Visit |Seed |Gradient of |Fan-in at |Cut: )")
SUFFIXES = re.compile(r" \(input [^()]+\)$| not recorded$| is unconnected$| is not watched$|'s paths are cut$")


def story_names(step):
    """The node names a step's title speaks of: 'Visit ce' -> ce; 'a → b' -> a, b. A title
    that ends ', inside t1.gradient(out, x)' names its ops inside that node by their short
    names ('the relu grad → the multiply 2, inside …': DocumentNaming.step_title), or by
    the cotangent an op makes ('∂y/∂x via xx (input b) → ∂y/∂xx, inside …'): each is
    taken as 'the relu grad inside t1.gradient(out, x)'."""
    title = KIND_PREFIX.sub("", step.title)
    title, _, node = title.partition(", inside ")
    pieces = [SUFFIXES.sub("", piece) for piece in re.split(r" → | passes no gradient to ", title)]
    return [f"{piece} inside {node}" if node and piece.startswith(("the ", "∂")) else piece
            for piece in pieces]


def _is_card_title(name, titles, parted=None):
    """`name` is a card's title, or a port or part of the node so titled ('layer.kernel',
    'split:1', "layer6's bias add": of a layer or custom-gradient node, whose card says what
    it holds), or says in words that it is inside a node ("the multiply for ∂out/∂layer
    inside t1.gradient(out, x)"), never "t1.gradient(out, x)'s multiply 1" (no card shows
    that multiply: walk-through, lesson 14). `parted`: the titles whose parts may be named
    "title's part" (default: all)."""
    parted = titles if parted is None else parted
    return any(name == t or name.startswith((t + ".", t + ":")) or name.endswith(f" inside {t}")
               or t in parted and name.startswith(t + "'s ") for t in titles)


@pytest.mark.parametrize("name", NAMES)
def test_every_name_the_story_uses_is_a_card_title(name):
    doc, story = sample(name)
    cards = renderer(name).cards
    titles = {card.title for card in cards.values()}
    for nid, card in cards.items():
        node = doc.nodes[nid]
        assert card.title == (node.label or node.id), nid
        if node.kind in ("op", "layer") and node.op != card.title:
            assert card.subtitle == node.op, (nid, card.subtitle)   # what it computes
    for step in story.steps:
        if step.node is not None:
            assert cards[step.node].title in step.title or step.kind == "update", step.title
        unknown = [n for n in story_names(step) if not _is_card_title(n, titles)]
        assert not unknown, (step.index + 1, step.title)


def test_the_corner_shows_the_op_not_an_internal_id():
    doc = Document()
    doc.add(Node("x", "constant", value=np.ones((2, 2), np.float32)))
    doc.add(Node("matmul_1", "op", op="matmul", label="out"))
    doc.add(Node("matmul_2", "op", op="matmul"))
    doc.add(Node("layer1", "layer", op="Dense", attrs={"units": 2}))
    for nid in ("matmul_1", "matmul_2"):
        doc.connect("x", nid, 0, 0)
        doc.connect("x", nid, 0, 1)
    doc.connect("x", "layer1")
    cards = Renderer(doc).cards
    assert (cards["matmul_1"].title, cards["matmul_1"].subtitle) == ("out", "matmul")
    assert (cards["matmul_2"].title, cards["matmul_2"].subtitle) == ("matmul_2", "matmul")
    assert (cards["layer1"].title, cards["layer1"].subtitle) == ("layer1", "Dense")
    assert "Dense" not in cards["layer1"].attrs   # said once, in the corner
    painted = [c.title_text + " " + c.subtitle_text for c in cards.values()]
    assert not any("matmul_1" in text for text in painted), painted


def test_the_corner_says_what_the_node_computes_under_one_rule():
    """`matmul` and `reduce_sum` said 'op' while `matmul_1` said 'matmul' (issue 20 §1, a
    student's graph): the corner is graph.names.node_kind for every op node of the catalog,
    named after its op or not."""
    from gradviz.graph import catalog
    from gradviz.graph.names import node_kind
    doc = Document()
    for op in catalog.OPS:
        doc.add(Node(op, "op", op=op))                  # named as its op
        doc.add(Node(op + "_1", "op", op=op))           # a counter after it
    doc.add(Node("Dense", "layer", op="Dense", attrs={"units": 2}))
    cards = Renderer(doc).cards
    for nid, node in doc.nodes.items():
        assert cards[nid].subtitle == node_kind(node), (nid, cards[nid].subtitle)
    assert cards["matmul"].subtitle == cards["matmul_1"].subtitle == "matmul"


def step_texts(step):
    """Every text a step shows: its title, caption, rule and the labels on its fan-in terms."""
    return [step.title, step.caption, step.formula or "", *(label for label, _ in step.terms),
            *step.paths]


@pytest.mark.parametrize("name", NAMES)
def test_the_op_word_after_a_node_name_is_the_one_its_card_shows(name):
    """"t1.gradient(out, x) (matmul) receives..." beside a card whose corner says 'gradient'
    (walk-through, lesson 14 step 4): a "(word)" after a node's name in any step's text is
    the op its card shows; so is "a multiply" in "both inputs of x_sq, a multiply"."""
    _, story = sample(name)
    cards = renderer(name).cards
    kinds = {card.title: card.subtitle.split(" · ")[0] for card in cards.values()}
    checked = 0
    for step in story.steps:
        for text in step_texts(step):
            for title, kind in kinds.items():
                pattern = (rf"(?<![\w.'])(?<!'s ){re.escape(title)} \(([\w.]+)\)"
                           rf"|of {re.escape(title)}, an? ([\w.]+)")
                for m in re.finditer(pattern, text):
                    checked += 1
                    assert (m.group(1) or m.group(2)) == kind, (step.index + 1, text)
    if name == "001_input_gradient_regularization":
        assert checked >= 2   # g1_mag (norm), t1.gradient(out, x) (gradient)


@pytest.mark.parametrize("name", NAMES)
def test_every_name_a_step_uses_is_on_the_canvas_or_said_to_be_inside_a_node(name):
    """Every name a step's title, caption, rule card or fan-in terms use for a tensor or an
    op (its tensor, its op, the operands its rule names) is a card's title or port, a part
    of a layer (its card says units, activation), or a phrase that says which node it is
    inside; a number (a constant written as its value) also reads."""
    doc, story = sample(name)
    cards = renderer(name).cards
    titles = {card.title for card in cards.values()}
    parted = {card.title for nid, card in cards.items()
              if doc.nodes[nid].kind in ("layer", "custom_gradient")}
    naming = story.naming
    for step in story.steps:
        names = [step.tensor_name, *step.operand_nodes.values(), *story_names(step)]
        if step._op is not None:
            names.append(naming.op_label(step._op))
        names += [p.removeprefix("from ").split(", input ")[0] for p in step.paths if p != "the seed"]
        unknown = [n for n in names if n and not _is_card_title(n, titles, parted)
                   and not re.fullmatch(r"-?[\d.]+(e[-+]\d+)?", n)]
        assert not unknown, (step.index + 1, step.title, unknown)
