"""Static shape inference (shapes.py) against the engine: for random shapes and
attributes, the shapes predicted before running are the shapes the engine produces, and
nothing the engine accepts is refused, except axes out of range (the engine wraps them
around, TF refuses them) and slices that do not fit (the engine would clip them)."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import gradviz as gv
from gradviz.graph import CONSTANT, OP, Document, Node, Port, catalog
from gradviz.graph.build import build
from gradviz.graph.shape_error import ShapeError
from gradviz.graph.shapes import infer

from graph_samples import SAMPLE_FILES

MAX_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 200))
DELIBERATE = ("out of range", "names an axis twice", "does not fit shape", "begin and size need",
              "is not a permutation")

dims = st.integers(0, 4)
shapes = st.lists(dims, max_size=4).map(tuple)
small_ints = st.integers(-5, 5)
axis = st.one_of(st.none(), small_ints, st.lists(small_ints, max_size=3))

ATTRS = {
    "reduce_sum": {"axis": axis, "keepdims": st.booleans()},
    "norm": {"axis": axis, "keepdims": st.booleans()},
    "reshape": {"shape": st.lists(st.integers(-1, 6), max_size=4)},
    "transpose": {"perm": st.one_of(st.none(), st.lists(small_ints, max_size=4))},
    "expand_dims": {"axis": small_ints},
    "squeeze": {"axis": axis},
    "broadcast_to": {"shape": st.lists(dims, max_size=4)},
    "tile": {"multiples": st.lists(st.integers(0, 3), max_size=4)},
    "pad": {"paddings": st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2),
                                 max_size=4)},
    "concat": {"axis": small_ints},
    "stack": {"axis": small_ints},
    "split": {"num": st.integers(1, 4), "axis": small_ints},
    "slice": {"begin": st.lists(st.integers(0, 4), max_size=4),
              "size": st.lists(st.integers(-1, 4), max_size=4)},
    "getitem": {"index": st.lists(st.one_of(
        small_ints, st.just("..."),
        st.lists(st.one_of(st.none(), small_ints), min_size=3, max_size=3).filter(
            lambda k: k[2] != 0)), max_size=4)},
    "gather": {"indices": st.lists(small_ints, max_size=4), "axis": small_ints},
    "matmul": {"transpose_a": st.booleans(), "transpose_b": st.booleans()},
    "einsum": {"equation": st.sampled_from(
        ["ij,jk->ik", "ij,jk", "i,i->", "ii->i", "ij->ji", "...i,...i->...", "bij,bjk->bik",
         "i,j,k->ijk", "ij,jk,kl->il", "ij", "i,j"])},
    "nn.softmax": {"axis": small_ints},
    "nn.softmax_cross_entropy_with_logits": {"axis": small_ints},
    "nn.sparse_softmax_cross_entropy_with_logits": {},
    "math.argmax": {"axis": small_ints},
    "nn.embedding_lookup": {},
    "losses.MeanSquaredError": {"reduction": st.sampled_from(["sum_over_batch_size", "none"])},
    "losses.CategoricalCrossentropy": {"reduction": st.sampled_from(["sum", "none"]),
                                       "from_logits": st.booleans()},
    "losses.SparseCategoricalCrossentropy": {"reduction": st.sampled_from(["sum", "none"])},
    "nn.dropout": {"rate": st.sampled_from([0.0, 0.5]), "seed": small_ints,
                   "noise_shape": st.one_of(st.none(), st.lists(st.integers(1, 3), max_size=4))},
    "add": {}, "exp": {}, "add_n": {}, "linalg.solve": {"adjoint": st.booleans()},
    "linalg.inv": {},
}
_window = st.lists(st.integers(0, 3), min_size=1, max_size=4)
_padding = st.sampled_from(["SAME", "VALID", "EXPLICIT"])
_explicit = st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2), min_size=4,
                     max_size=4).map(lambda rows: [[0, 0]] + rows[1:3] + [[0, 0]])
ATTRS.update({
    "nn.conv2d": {"strides": _window, "padding": _padding, "dilations": _window,
                  "explicit_paddings": _explicit},
    "nn.max_pool2d": {"ksize": _window, "strides": _window, "padding": _padding,
                      "explicit_paddings": _explicit},
    "nn.avg_pool2d": {"ksize": _window, "strides": _window, "padding": _padding.filter(
        lambda p: p != "EXPLICIT")},
    "nn.conv1d": {"stride": st.integers(1, 3), "padding": _padding.filter(lambda p: p != "EXPLICIT"),
                  "dilations": st.integers(1, 3)},
})
N_INPUTS = {"add": 2, "matmul": 2, "linalg.solve": 2, "nn.conv2d": 2, "nn.conv1d": 2,
            "nn.softmax_cross_entropy_with_logits": 2,
            "nn.sparse_softmax_cross_entropy_with_logits": 2, "nn.embedding_lookup": 2,
            "losses.MeanSquaredError": 2, "losses.CategoricalCrossentropy": 2,
            "losses.SparseCategoricalCrossentropy": 2}
VARIADIC = {"concat", "stack", "add_n", "einsum"}


def _engine(op, attrs, values):
    node = Node("n", OP, op=op, attrs=attrs)
    tensors = [gv.constant(v) for v in values]
    out = catalog.OPS[op].call(tensors, catalog.full_attrs(node))
    return [tuple(t.shape) for t in (out if isinstance(out, (list, tuple)) else [out])]


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(ATTRS)), st.data())
def test_predicted_shapes_are_the_engines(op, data):
    n = data.draw(st.integers(1, 3)) if op in VARIADIC else N_INPUTS.get(op, 1)
    first = data.draw(shapes)
    in_shapes = [first if data.draw(st.booleans()) else data.draw(shapes) for _ in range(n)]
    attrs = {k: data.draw(v) for k, v in ATTRS[op].items()}
    if op == "slice" and data.draw(st.booleans()):  # mostly slices that fit
        attrs["begin"] = [data.draw(st.integers(0, d)) for d in first]
        attrs["size"] = [data.draw(st.integers(-1, d - b)) for d, b in zip(first, attrs["begin"])]
    if op == "einsum" and data.draw(st.booleans()):  # operands that match the equation
        sizes = {c: data.draw(st.integers(1, 3)) for c in "ijklb"}
        subs = attrs["equation"].split("->")[0].split(",")
        in_shapes = [tuple(sizes[c] for c in s.replace("...", "b")) for s in subs]
    if op in ("nn.sparse_softmax_cross_entropy_with_logits",
              "losses.SparseCategoricalCrossentropy") and data.draw(st.booleans()):
        in_shapes[0] = tuple(in_shapes[1][:-1])  # mostly labels that fit the logits
    if op in ("nn.conv2d", "nn.conv1d", "nn.max_pool2d", "nn.avg_pool2d") and data.draw(
            st.booleans()):  # operands of the ranks and channels the op takes
        rank = 3 if op == "nn.conv1d" else 4
        x = tuple(data.draw(st.integers(1, 5)) for _ in range(rank))
        in_shapes = [x]
        if n == 2:
            k = tuple(data.draw(st.integers(1, 3)) for _ in range(rank - 2))
            in_shapes.append(k + (x[-1], data.draw(st.integers(1, 3))))
    node = catalog.with_defaults(Node("n", OP, op=op, attrs=attrs))
    values = [np.arange(1, 1 + np.prod(s, dtype=int), dtype=np.float64).reshape(s)
              for s in in_shapes]
    if op in ("nn.sparse_softmax_cross_entropy_with_logits",
              "losses.SparseCategoricalCrossentropy"):
        values[0] = np.zeros(in_shapes[0], np.int64)  # class 0: in range when there is one
    if op == "nn.embedding_lookup":
        values[1] = np.zeros(in_shapes[1], np.int64)  # row 0: in range when there is one
    try:
        predicted, _ = infer(node, in_shapes)
    except ShapeError as e:
        predicted, refusal = None, str(e)
    try:
        actual = _engine(op, attrs, values)
    except (ValueError, TypeError, IndexError, LookupError, ArithmeticError,
            np.linalg.LinAlgError):
        actual = None
    if predicted is not None and actual is not None:
        assert [tuple(p) for p in predicted] == actual
    if predicted is None and actual is not None:
        assert any(word in refusal for word in DELIBERATE), (op, in_shapes, attrs, refusal)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_sample_runs_with_the_shapes_the_plan_predicted(path):
    from gradviz import graph
    doc = graph.load(path)
    built = build(doc)
    assert built.problems == []
    assert set(built.plan.shapes) == set(built.tensors)
    for port, t in built.tensors.items():
        assert built.plan.shapes[port] == tuple(t.shape), port


def test_every_op_of_the_catalog_has_a_shape_rule():
    doc = Document()
    doc.add(Node("x", CONSTANT, value=np.ones((2, 2), np.float32)))
    for op, spec in catalog.OPS.items():
        node = catalog.with_defaults(Node(op, OP, op=op))
        try:
            infer(node, [(2, 2)] * max(1, len(spec.inputs)))
        except ShapeError:
            pass  # a refusal in words is a rule too
    assert Port("x") in build(doc).plan.shapes


def test_with_defaults_is_a_copy_with_every_attribute_and_leaves_the_node_alone():
    node = Node("m", OP, op="matmul", label="product", attrs={"transpose_a": True}, position=(1.0, 2.0))
    view = catalog.with_defaults(node)
    assert type(view) is Node and view is not node and view.attrs is not node.attrs
    assert view.attrs == {**catalog.OPS["matmul"].attrs, "transpose_a": True}
    assert (view.id, view.op, view.label, view.position) == ("m", "matmul", "product", (1.0, 2.0))
    assert node.attrs == {"transpose_a": True}
