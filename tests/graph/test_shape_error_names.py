"""A shape error names each input by the node that feeds it, with the user's names (issue
20 §2): 'matmul shapes do not match: a has shape 2×4, b has shape 5×2' left the reader
to find which node is a; it reads 'hidden (operand a) has shape 2×4, W2 (operand b) has
shape 5×2'. An input named by its role keeps TF's word first: 'input (images) must be of
rank 4'."""
import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import catalog
from gradviz.graph.document import CONSTANT, OP, Document, Node


def _doc(op, shapes, names, **attrs):
    doc = Document(title="shapes")
    for name, shape in zip(names, shapes):
        doc.add(Node(name, CONSTANT, label=name, value=np.ones(shape, np.float32)))
    doc.add(Node("out", OP, op=op, attrs={**catalog.OPS[op].attrs, **attrs}))
    for k, name in enumerate(names):
        doc.connect(name, "out", dst_index=k)
    return doc


@pytest.mark.parametrize("op, shapes, names, attrs, words", [
    ("matmul", [(2, 4), (5, 2)], ["hidden", "W2"], {},
     "matmul shapes do not match: hidden (operand a) has shape 2×4, W2 (operand b) has "
     "shape 5×2; inner dimensions 4 and 5 differ"),
    ("matmul", [(4,), (4, 2)], ["v", "W"], {},
     "matmul needs tensors of rank 2 or more: v (operand a) has shape 4, W (operand b) "
     "has shape 4×2"),
    ("multiply", [(2, 3), (4, 5)], ["x", "w"], {},
     "the input shapes do not broadcast together: x (operand a) has shape 2×3, w (operand "
     "b) has shape 4×5"),
    ("add_n", [(2, 3), (2, 3), (4, 5)], ["p", "q", "r"], {},
     "p (operand a) has shape 2×3, q (operand b) has shape 2×3, r (operand c) has "
     "shape 4×5"),
    ("concat", [(2, 3), (2, 3, 1)], ["left", "right"], {},
     "concat needs tensors of one rank: left (operand a) has shape 2×3, right (operand b) "
     "has shape 2×3×1"),
    ("stack", [(2, 3), (3, 2)], ["left", "right"], {},
     "stack needs tensors of one shape: left (operand a) has shape 2×3, right (operand b) "
     "has shape 3×2"),
    ("linalg.inv", [(2, 3)], ["M"], {}, "linalg.inv needs square matrices: "),
    ("nn.conv2d", [(6, 5, 2), (2, 2, 2, 3)], ["images", "k"], {},
     "input (images) must be of rank 4 [batch, height, width, channels], got shape 6×5×2"),
])
def test_a_shape_error_names_the_nodes_that_feed_the_op(op, shapes, names, attrs, words):
    (problem,) = [p for p in graph.evaluate(_doc(op, shapes, names, **attrs)).problems
                  if not p.warning]
    assert problem.node == "out"
    assert words in problem.message, problem.message
    assert "\x00" not in problem.message
    for bare in (" a has shape", " b has shape", "got shapes"):
        assert bare not in problem.message, problem.message


def test_without_the_feeding_names_an_input_is_named_by_its_slot():
    """The engine's words where no document gives names (a script's shapes)."""
    from gradviz.graph.shape_error import ShapeError
    from gradviz.graph.shapes import infer
    node = catalog.with_defaults(Node("m", OP, op="matmul", attrs=dict(catalog.OPS["matmul"].attrs)))
    with pytest.raises(ShapeError) as info:
        infer(node, [(2, 4), (5, 2)])
    assert str(info.value).startswith("matmul shapes do not match: a has shape 2×4, b has "
                                      "shape 5×2")


def _typed_doc(op, values, names):
    doc = Document(title="dtypes")
    for name, value in zip(names, values):
        doc.add(Node(name, CONSTANT, label=name, value=value))
    doc.add(Node("out", OP, op=op, label="product", attrs=dict(catalog.OPS[op].attrs)))
    for k, name in enumerate(names):
        doc.connect(name, "out", dst_index=k)
    return doc


@pytest.mark.parametrize("op, values, names, words", [
    ("multiply", [np.ones((2, 3), np.float32), np.ones((2, 3), np.float64)], ["x", "w"],
     "x (operand a) is float32 (2, 3), w (operand b) is float64 (2, 3): inputs must have"),
    ("matmul", [np.ones((2, 2), np.int32), np.ones((2, 2), np.float32)], ["counts", "W"],
     "counts (operand a) is int32 (2, 2), W (operand b) is float32 (2, 2): "),
    ("nn.dropout", [np.ones((2, 2), np.int32)], ["counts"],
     "x (counts) is int32 (2, 2): "),
    ("nn.softmax_cross_entropy_with_logits", [np.ones((2, 3), np.float32), np.ones((2, 3), np.int32)],
     ["onehot", "scores"], "labels (onehot) is float32 (2, 3), logits (scores) is int32 (2, 3): "),
])
def test_an_engine_refusal_names_the_nodes_that_feed_the_op(op, values, names, words):
    """The shapes agree, so the graph layer's checks pass, and the engine refuses the node
    for its dtypes in its own words, which know the inputs only as 'x' or by their dtypes
    ('got float32 and float64'): the card's problem line then names each input by the node
    that feeds it, as a shape error does, with its dtype and shape, first (a card shows the
    first lines of its problem)."""
    (problem,) = [p for p in graph.evaluate(_typed_doc(op, values, names)).problems
                  if not p.warning]
    assert problem.node == "out"
    assert problem.message.startswith(words), problem.message
