"""A local rule's operands never take a name the canvas gives another tensor (issue 20 §1):
in `y = x * x` the rule 'grad_x = grad · y' would say y = 3 beside the node y showing 9."""
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz import story
from gradviz.graph import catalog, load
from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port
from gradviz.graph.operands import rename, words
from gradviz.graph.slots import input_names

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def op(node_id, name, **attrs):
    return Node(node_id, OP, op=name, attrs={**catalog.OPS[name].attrs, **attrs})


def square_doc():
    """y = x * x with x = 3: the rule's operand y is the node x."""
    doc = Document(title="y = x * x")
    doc.add(Node("x", VARIABLE, value=np.float32(3.0), watched=True))
    doc.add(op("y", "multiply"))
    doc.connect("x", "y", dst_index=0)
    doc.connect("x", "y", dst_index=1)
    doc.targets, doc.sources = [Port("y")], [Port("x")]
    return doc


def softmax_doc():
    """p = softmax(y): softmax's rule names its output y, here the node p."""
    doc = Document(title="softmax of y")
    doc.add(Node("y", VARIABLE, value=np.array([1.0, 2.0, 0.5], np.float32), watched=True))
    doc.add(op("p", "nn.softmax"))
    doc.add(Node("w", CONSTANT, value=np.array([1.0, -2.0, 3.0], np.float32)))
    doc.add(op("q", "multiply"))
    doc.connect("y", "p")
    doc.connect("p", "q", dst_index=0)
    doc.connect("w", "q", dst_index=1)
    doc.targets, doc.sources = [Port("q")], [Port("y")]
    return doc


def assert_no_clash(doc):
    s = story.build(doc)
    names = {n.label or n.id for n in doc.nodes.values()}
    checked = 0
    for step in s.of_kind("contribution"):
        bound = step.operand_nodes
        for operand, node in bound.items():
            # An operand either is the node of that name or is no node's name at all.
            assert operand == node or operand not in names, (step.title, operand, node)
        for token in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", step.formula):   # layer.kernel, pool.shape
            word = token if token in bound else token.split(".")[0]
            if word in names:
                assert bound.get(word) == word, (step.title, step.formula, word)
        for operand, value in step.operands.items():
            if operand != "grad" and operand in names and value is not None:
                node = doc.nodes.get(operand)
                shown = s.evaluation.values.get(Port(node.id)) if node is not None else None
                if shown is not None:
                    np.testing.assert_array_equal(np.asarray(value), np.asarray(shown))
        checked += 1
    return s, checked


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_no_sample_gives_a_node_name_another_value(path):
    assert_no_clash(load(path))


def test_y_equals_x_times_x_writes_the_rule_with_the_node_x():
    """Was 'grad_x = grad · y' (y = 3 beside the node y showing 9), then 'grad_x = grad · a.
    Here a is x'; the rule reads in the reader's names: grad_x = grad · x, twice."""
    s, checked = assert_no_clash(square_doc())
    assert checked == 2
    first, second = s.of_kind("contribution")
    assert first.formula == second.formula == "grad_x = grad · x"
    assert first.operand_nodes == {"x": "x"} and float(first.operands["x"]) == 3.0
    assert " ".join(first.caption.split()) == "Local rule of multiply for its input x: grad_x = grad · x."
    assert "y" not in words(first.caption)   # y is the node showing 9


def test_softmax_rule_names_its_output_and_input_by_their_nodes():
    s, checked = assert_no_clash(softmax_doc())
    step = next(st for st in s.of_kind("contribution") if st.op_type == "Softmax")
    assert step.formula == "grad_y = p · (grad - Σ grad·p)"
    assert step.caption.endswith("for its input y: grad_y = p · (grad - Σ grad·p).")
    assert step.operand_nodes == {"y": "y", "p": "p"}
    np.testing.assert_allclose(step.operands["p"], s.evaluation.values[Port("p")])
    np.testing.assert_allclose(step.operands["y"], s.evaluation.values[Port("y")])


def test_a_name_that_is_no_term_keeps_the_letter_and_the_card_says_which_node():
    """A label with spaces would not read inside a formula: the rule keeps its letter and the
    caption says which node it is; a letter that would clash is still renamed apart."""
    doc = square_doc()
    doc.nodes["x"].label = "input x"
    doc.add(Node("a", CONSTANT, value=np.float32(5.0)))     # a node called a: no rule's a
    s, _ = assert_no_clash(doc)
    first = s.of_kind("contribution")[0]
    # the ports' letters a, b in order; a is a node's name, so both move on: b, c
    assert first.formula == "grad_b = grad · c", first.formula
    assert "for its input input x (b in the rule): grad_b = grad · c. Here c is 'input x'." \
        in " ".join(first.caption.split())
    assert input_names(doc.nodes["y"], 2, doc) == ["b", "c"]


def test_rename_reaches_the_gradient_name_and_digit_products():
    assert rename("grad_y = grad · dy · (-2y)", {"y": "a"}) == "grad_a = grad · dy · (-2a)"
    assert rename("grad_x = grad · y, 0 where y = 0", {"x": "a", "y": "b"}) == \
        "grad_a = grad · b, 0 where b = 0"
    assert rename("grad_a = grad @ bᵀ + x̂ · x", {"b": "c", "x": "d"}) == "grad_a = grad @ cᵀ + d̂ · d"


def test_a_letter_of_the_rule_that_is_no_operand_takes_no_node_name():
    """Mean's rule divides by n, the count; MatrixSolve's names its solution x; softmax
    cross-entropy's p is the softmax. A node called n, x or p keeps its own value."""
    doc = Document(title="rule letters")
    doc.add(Node("n", VARIABLE, value=np.array([1.0, 2.0, 4.0], np.float32), watched=True))
    doc.add(op("m", "reduce_mean"))
    doc.connect("n", "m")
    doc.add(Node("x", VARIABLE, value=np.array([[2.0, 0.0], [1.0, 3.0]], np.float32)))
    doc.add(Node("p", CONSTANT, value=np.array([[1.0], [2.0]], np.float32)))
    doc.add(op("s", "linalg.solve"))
    doc.connect("x", "s", dst_index=0)
    doc.connect("p", "s", dst_index=1)
    doc.add(op("t", "reduce_sum"))
    doc.connect("s", "t")
    doc.add(op("u", "add"))
    doc.connect("m", "u", dst_index=0)
    doc.connect("t", "u", dst_index=1)
    doc.targets, doc.sources = [Port("u")], [Port("n"), Port("x")]
    s, checked = assert_no_clash(doc)
    mean = next(st for st in s.of_kind("contribution") if st.op_type == "Mean")
    assert "/ n" not in mean.formula and "/ n" not in mean.caption, mean.caption
    solve = next(st for st in s.of_kind("contribution") if st.op_type == "MatrixSolve")
    assert "x" not in words(solve.formula.split("=", 1)[1]), solve.formula


def test_every_rule_of_every_sample_reads_in_the_readers_names():
    """Each contribution step of each sample: the rule is written with the nodes' own names
    where they are one term; a name with spaces never goes inside a formula; a letter that
    stands for a node is said to be that node; the caption says the rule for the input by
    its name; no coefficient runs into a name ('2diff')."""
    from gradviz.story.assemble import mentioned
    checked = 0
    for path in sorted(SAMPLES.glob("*.json")):
        s, _ = assert_no_clash(load(path))
        for step in s.of_kind("contribution"):
            if not step.formula:
                continue
            where = (path.stem, step.title, step.formula, step.caption)
            caption = " ".join(step.caption.split())
            assert f": {step.formula}." in caption, where
            assert re.match(r"(Local rule of|The custom gradient rule of) .* for its input "
                            + re.escape(step.tensor_name), caption) \
                or f"for its input: {step.formula}. Here input is '{step.tensor_name}'" in caption, where
            rhs = step.formula.split("=", 1)[1]
            assert not re.search(r"(?<![A-Za-z0-9_.])[0-9]+[A-Za-z_]{2,}", rhs), where
            for letter, node in step.operand_nodes.items():
                if not mentioned(step.formula, letter) and letter != step._slot:
                    continue
                assert not re.search(r"\s", letter), where         # one term in a formula
                if letter != node:                                  # a letter: which node
                    assert f"'{node}'" in caption or f"{node} ({letter} in the rule)" in caption, where
            checked += 1
    assert checked > 100
