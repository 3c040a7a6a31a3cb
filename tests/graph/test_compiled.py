"""A document's evaluation replayed from its compiled program (graph/compiled.py) gives the
eager evaluation's values, gradients and problems, for every sample and the 100-node
benchmark document, after value edits too; any change of structure is evaluated eagerly
(and traced again), and what the program cannot replay falls back to the eager path."""
import copy
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import CONSTANT, OP, VARIABLE, Document, Node, Port, compiled
from gradviz.graph.compiled import DocumentProgram, Replayer, Uncompilable, form, same_form
from gradviz.graph.evaluate import evaluate

from graph_samples import SAMPLE_FILES

# The samples whose evaluation cannot be traced, and why (they are evaluated eagerly).
UNCOMPILABLE = {"001_batchnorm_pitfall": "BatchNormalization's moving averages"}


def _bench_document(dtype="float32"):
    path = Path(__file__).resolve().parents[2] / "bench" / "bench_story.py"
    spec = importlib.util.spec_from_file_location("bench_story", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    doc = bench.generated_document(100)
    for node in doc.nodes.values():
        if node.value is not None:
            node.value = node.value.astype(dtype)
    return doc


DOCUMENTS = [(f.stem, f) for f in SAMPLE_FILES] + [("bench_100_float32", "float32"),
                                                    ("bench_100_float64", "float64")]


def _load(source):
    return _bench_document(source) if isinstance(source, str) else graph.load(source)


def _tolerance(array):
    return 1e-12 if array.dtype == np.float64 else 1e-5


def assert_same(replayed, eager):
    """Replay and eager evaluation agree: float64 to 1e-12, float32 to 1e-5."""
    assert replayed is not None and replayed.replayed
    assert [(str(p), p.warning) for p in replayed.problems] == \
        [(str(p), p.warning) for p in eager.problems]
    assert replayed.values.keys() == eager.values.keys()
    assert replayed.gradients.keys() == eager.gradients.keys()
    pairs = list(zip(replayed.values.values(), eager.values.values()))
    pairs += [(replayed.gradients[p], g) for p, g in eager.gradients.items()]
    for r, e in pairs:
        assert (r is None) == (e is None)
        if e is None:
            continue
        assert r.shape == e.shape and r.dtype == e.dtype
        if e.dtype.kind == "f":
            np.testing.assert_allclose(r, e, rtol=_tolerance(e), atol=_tolerance(e))
        else:
            np.testing.assert_array_equal(r, e)


def _leaf_arrays(doc):
    """(setter, array) for every tensor an edit of numbers may change."""
    for node in doc.nodes.values():
        if node.value is not None:
            yield (lambda a, n=node: setattr(n, "value", a)), node.value
        for name, w in node.weights.items():
            yield (lambda a, n=node, k=name: n.weights.__setitem__(k, a)), w


def _edited(doc, rng, integers=False):
    """A copy of `doc` with new numbers in its float tensors (or its integer ones)."""
    doc = copy.deepcopy(doc)
    for put, array in _leaf_arrays(doc):
        if array.dtype.kind == "f" and not integers:
            put((array * rng.uniform(0.5, 1.5, array.shape) + rng.normal(0, 0.1, array.shape))
                .astype(array.dtype))
        elif array.dtype.kind in "iu" and integers:
            put(rng.integers(-2, int(array.max(initial=0)) + 3, array.shape).astype(array.dtype))
    return doc


def _compiled(doc):
    """A Replayer holding `doc`'s program: a form is traced the second time it is seen."""
    replayer = Replayer()
    assert replayer.evaluation(doc) is None   # seen once: eager
    return replayer, replayer.evaluation(doc, evaluate(doc))


@pytest.mark.parametrize("name,source", DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_replay_gives_the_eager_numbers_for_every_sample_after_value_edits(name, source):
    doc = _load(source)
    eager = evaluate(doc)
    replayer, replayed = _compiled(doc)
    if name in UNCOMPILABLE:
        assert replayed is None and replayer.program is None
        assert UNCOMPILABLE[name] in replayer.refusal
        assert replayer.evaluation(doc) is None   # and it is not traced again
        return
    assert_same(replayed, eager)
    rng = np.random.default_rng(len(name))
    for _ in range(3):
        edited = _edited(doc, rng)
        assert same_form(form(edited), form(doc))
        assert_same(replayer.evaluation(edited), evaluate(edited))
    if any(a.dtype.kind in "iu" for _, a in _leaf_arrays(doc)):
        for _ in range(4):   # ids, indices: out of range makes the engine refuse
            edited = _edited(doc, rng, integers=True)
            eager = evaluate(edited)
            replayed = replayer.evaluation(edited)
            if eager.errors:
                assert replayed is None   # the eager path says what is wrong, on its node
            else:
                assert_same(replayed, eager)


def _small():
    doc = Document()
    doc.add(Node("x", CONSTANT, value=np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), watched=True))
    doc.add(Node("w", VARIABLE, value=np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)))
    doc.add(Node("m", OP, op="matmul"))
    doc.add(Node("t", OP, op="tanh"))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "m", dst_index=0)
    doc.connect("w", "m", dst_index=1)
    doc.connect("m", "t")
    doc.connect("t", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("x"), Port("w")]
    return doc


def _new_node(doc):
    doc.add(Node("e", OP, op="exp"))
    doc.connect("m", "e")


def _rewire(doc):
    doc.edges = [e for e in doc.edges if e.dst.node != "t"]
    doc.connect("x", "t")


def _attribute(doc):
    doc.nodes["m"].attrs["transpose_a"] = True


def _dtype(doc):
    doc.nodes["x"].value = doc.nodes["x"].value.astype(np.float64)
    doc.nodes["w"].value = doc.nodes["w"].value.astype(np.float64)


def _shape(doc):
    doc.nodes["w"].value = np.ones((2, 3), np.float32)


def _roles(doc):
    doc.sources = [Port("w")]


def _op(doc):
    doc.nodes["t"].op = "nn.sigmoid"


def _seed(doc):
    doc.targets = [Port("t")]
    doc.output_gradients = {Port("t"): np.full((2, 2), 2.0, np.float32)}


STRUCTURAL = [_new_node, _rewire, _attribute, _dtype, _shape, _roles, _op, _seed]


@pytest.mark.parametrize("change", STRUCTURAL, ids=[c.__name__.strip("_") for c in STRUCTURAL])
def test_a_structural_change_is_evaluated_eagerly_then_traced_again(change):
    doc = _small()
    replayer, replayed = _compiled(doc)
    assert_same(replayed, evaluate(doc))
    old = replayer.program
    changed = copy.deepcopy(doc)
    change(changed)
    assert not same_form(form(changed), form(doc))
    assert replayer.evaluation(changed) is None           # eager: the old program is not used
    again = replayer.evaluation(changed)                    # seen twice: traced for it
    assert replayer.program is not old
    assert_same(again, evaluate(changed))
    assert_same(replayer.evaluation(doc), evaluate(doc))   # back (an undo): the old program
    assert replayer.program is old


def test_a_seed_edit_is_replayed_with_the_new_seed():
    doc = _small()
    _seed(doc)
    replayer, _ = _compiled(doc)
    edited = copy.deepcopy(doc)
    edited.output_gradients[Port("t")] = np.array([[1.0, -3.0], [0.5, 0.0]], np.float32)
    replayed = replayer.evaluation(edited)
    assert_same(replayed, evaluate(edited))
    np.testing.assert_allclose(replayed.gradients[Port("x")], evaluate(edited).gradients[Port("x")])


def test_a_replay_the_engine_refuses_falls_back_to_the_eager_evaluation():
    """linalg.inv of a singular matrix: numpy raises inside the replay, the eager path
    reports it on its node."""
    doc = Document()
    doc.add(Node("a", VARIABLE, value=np.array([[2.0, 1.0], [1.0, 3.0]])))
    doc.add(Node("inv", OP, op="linalg.inv"))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("a", "inv")
    doc.connect("inv", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("a")]
    replayer, replayed = _compiled(doc)
    assert_same(replayed, evaluate(doc))
    singular = copy.deepcopy(doc)
    singular.nodes["a"].value = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert replayer.evaluation(singular) is None
    assert evaluate(singular).errors[0].node == "inv"
    assert replayer.program is not None   # still there for the next regular matrix
    assert_same(replayer.evaluation(doc), evaluate(doc))


def test_a_document_with_an_error_is_not_compiled():
    doc = _small()
    doc.nodes["w"].value = np.ones((3, 3), np.float32)   # matmul of 2x2 by 3x3
    assert evaluate(doc).errors
    with pytest.raises(Uncompilable, match="stops"):
        DocumentProgram(doc)
    replayer = Replayer()
    assert replayer.evaluation(doc) is None and replayer.evaluation(doc) is None


def test_replay_off_is_always_eager(monkeypatch):
    monkeypatch.setattr(compiled, "REPLAY", False)
    replayer = Replayer()
    doc = _small()
    assert all(replayer.evaluation(doc) is None for _ in range(3)) and replayer.program is None


def test_a_trace_in_the_background_keeps_the_caller_eager_until_it_is_done():
    doc = _small()
    replayer = Replayer(trace_at=2, background=True)
    assert replayer.evaluation(doc) is None
    assert replayer.evaluation(doc) is None   # traced on a thread: eager meanwhile
    replayer.wait(30)
    assert_same(replayer.evaluation(doc), evaluate(doc))
