"""A story calls an op by the name the user wrote (the node's op: nn.embedding_lookup,
multiply), not the kernel TF records for it (ResourceGather, Mul); an op among several
that a node records (a layer's MatMul) keeps the engine's name, as nothing else names it."""
import re
from pathlib import Path

from gradviz import graph, story
from gradviz.graph.document import OP

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _word(name, text):
    return re.search(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def test_every_sample_names_its_ops_as_the_user_wrote_them():
    renamed = set()
    for path in sorted(SAMPLES.glob("*.json")):
        doc = graph.load(path)
        s = story.build(doc)
        for step in s.steps:
            op = step._op
            node = doc.nodes.get(step.node) if step.node is not None else None
            if op is None or node is None or node.kind != OP or s.naming.op_name(op) != node.op \
                    or len(s.evaluation.entries.get(node.id, ())) != 1:   # a 'gradient' node's ops
                continue
            words = step.title + " " + step.caption
            if op.type.lower() != node.op.lower():
                renamed.add((op.type, node.op))
                assert not _word(op.type, words), (path.stem, step.title, op.type, step.caption)
            if step.kind == "contribution":
                assert f"Local rule of {node.op} " in step.caption, (path.stem, step.caption)
            if step.kind == "visit":   # one name where the node is named as its op
                assert f"{node.op} ({node.op})" not in step.caption, (path.stem, step.caption)
    assert ("ResourceGather", "nn.embedding_lookup") in renamed
    assert ("Mul", "multiply") in renamed


def test_the_embedding_lesson_names_its_lookup_rule_as_written():
    s = story.build(graph.load(SAMPLES / "nets_8_embedding.json"))
    step = next(x for x in s.steps if x.kind == "contribution" and x.op_type == "ResourceGather")
    assert step.caption.startswith("Local rule of nn.embedding_lookup for its input")
    assert "ResourceGather" not in step.caption


def test_a_layers_inner_op_is_named_as_tfs_api_names_it():
    """A Dense layer's MatMul and AddV2 are its 'matmul' and 'add' (walk-through: 'Local rule
    of AddV2' inside layer6), named once where the part says it ("layer6's matmul")."""
    s = story.build(graph.load(SAMPLES / "nets_2_sigmoid_chain.json"))
    inner = [x for x in s.steps if x.kind in ("contribution", "visit") and x._op is not None
             and "'s " in s.naming.op_label(x._op)]
    assert inner and not [x.caption for x in inner if re.search(r"AddV2|MatMul|Sigmoid\b", x.caption)]
    assert any(x.caption.startswith("Local rule of add for its input") for x in inner)
    assert any(x.caption.startswith("layer6's matmul receives") for x in inner)
    assert any(x.caption.startswith("layer6's bias add (add) receives") for x in inner)


def test_a_tape_story_calls_an_op_by_its_name_in_tfs_api():
    """A story told from code says what the code called: 'Local rule of
    nn.softmax_cross_entropy_with_logits', not SoftmaxCrossEntropyWithLogits (walk-through)."""
    import gradviz as tf
    logits = tf.Variable([[1.0, 2.0, 0.5]])
    labels = tf.constant([[0.0, 1.0, 0.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    s = story.from_tape(tape, loss, logits, names={"logits": logits, "loss": loss})
    captions = " ".join(x.caption for x in s.steps)
    assert "Local rule of nn.softmax_cross_entropy_with_logits" in captions, captions
    assert not re.search(r"of (SoftmaxCrossEntropyWithLogits|Sum)\b|\((SoftmaxCrossEntropyWithLogits|Sum)\)",
                         captions), captions
