"""One notation for the seed's inner product on every surface: ❬v, y❭ (graph.names), never
⟨v, y⟩, whose brackets DejaVu draws like parentheses at a card's size (issue 20: the story's
captions wrote ⟨v, y⟩ while the cards wrote ❬v, y❭)."""
import re

import numpy as np

from gradviz import story as story_module
from gradviz.graph import fileformat
from gradviz.graph.codegen import to_python
from gradviz.render import Renderer
from gradviz.render.story_overlay import cotangent_label
from gradviz.story.text import explain
from hidden_ids import SAMPLES

OTHER = "⟨⟩"
TUPLE = re.compile(r"\(\d+,\)|\(\d+(, \d+)+\)")   # a shape as Python writes it: (2,), (3, 2)


def _texts(doc):
    """Every text the story, `gradviz explain`, the code view and the cards write."""
    story = story_module.build(doc)
    texts = [explain(story, studies=False), to_python(doc)]
    for s in story.steps:
        texts += [s.title, s.caption, s.formula or ""]
    r = Renderer(doc, evaluation=story.evaluation, story=story)
    texts += [s.label for card in r.cards.values() for s in card.sections]
    texts += [label for s in story.steps for label in r._pill_texts(s)]     # the edge pills, unplaced
    texts += [p.message for p in story.evaluation.problems]
    return texts


def test_no_text_writes_the_inner_product_another_way(qapp):
    found, seeded = {}, 0
    for sample in SAMPLES:
        doc = fileformat.load(sample)
        if not doc.targets:
            continue
        if not doc.output_gradients:   # every sample seeded too: its captions name ❬v, y❭
            docs = [doc, fileformat.load(sample)]
            port = docs[1].targets[0]
            value = story_module.build(docs[1]).evaluation.values.get(port)
            if value is None or np.asarray(value).dtype.kind != "f":
                docs.pop()
            else:
                docs[1].output_gradients = {port: np.ones_like(value)}
        else:
            docs = [doc]
        for d in docs:
            texts = _texts(d)
            bad = [t for t in texts if any(c in t for c in OTHER)]
            if bad:
                found[sample.name] = bad[:3]
            if d.output_gradients:
                seeded += 1
                assert any("❬v, " in t for t in texts), sample.name   # the seed is named
    assert seeded > 20 and not found, found


def test_training_names_the_loss_as_the_cards_name_what_the_tape_differentiates(qapp):
    """The Train dock said 'minimising Σ seed·net' where the cards wrote ∂❬v, net❭/∂…, and
    'Σ sq' where they wrote Σsq: one name for one thing (graph.names.objective_name)."""
    from gradviz.graph.training import loss_name, loss_text
    from gradviz.story.update_text import derivative
    for sample, expected in (("002_black_box_gradient", "❬v, net❭"),
                             ("004_matmul_sum", "Σy_tf"), ("001_hessian_newton", "loss")):
        doc = fileformat.load(next(p for p in SAMPLES if p.stem == sample))
        story = story_module.build(doc)
        r = Renderer(doc, evaluation=story.evaluation, story=story)
        cards = {s.label.split("∂", 2)[1].rsplit("/", 1)[0] for card in r.cards.values()
                 for s in card.sections if s.colour == "gradient"}
        values = story.evaluation.values
        assert cards == {expected} and loss_name(doc, values) == expected, (sample, cards)
        assert loss_text(doc, values).startswith(f"minimising {expected}")
        assert derivative(loss_name(doc, values), "w") == f"∂{expected}/∂w"


def test_no_text_a_user_reads_writes_a_shape_as_a_python_tuple(qapp):
    """Shapes read 3×2 on every card; the story's edge pills wrote 'cotangent (3, 2)', shape
    errors and `gradviz explain` '(2, 3)' (issue 20 §5). The code view is code: excluded."""
    from gradviz.graph.document import CONSTANT, OP, Document, Node
    found = {}
    for sample in SAMPLES:
        doc = fileformat.load(sample)
        bad = [t for t in _texts(doc)[2:] if TUPLE.search(t)] if doc.targets else []
        if bad:
            found[sample.name] = bad[:3]
    doc = Document(title="shapes")      # a shape error, as the canvas and explain write it
    for name, shape in (("x", (2, 3)), ("w", (2,))):
        doc.add(Node(name, CONSTANT, label=name, value=np.ones(shape, np.float32)))
    doc.add(Node("y", OP, op="matmul"))
    doc.connect("x", "y", dst_index=0)
    doc.connect("w", "y", dst_index=1)
    doc.targets = []
    story = story_module.build(doc)
    words = [p.message for p in story.evaluation.problems] + [explain(story, studies=False)]
    assert any("2×3" in w for w in words), words
    assert not found and not [w for w in words if TUPLE.search(w)], (found, words)
    assert cotangent_label(np.ones((3, 2))) == "cotangent 3×2"
