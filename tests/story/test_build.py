"""story.build(doc): the same stories told on graph documents, named by node ids and ports."""
import numpy as np
import pytest

from gradviz import story
from gradviz.graph import catalog
from gradviz.graph.document import CONSTANT, LAYER, OP, VARIABLE, Document, Node, Port
from gradviz.story.text import explain

pytest.importorskip("gradviz.graph.evaluate")

T = [[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
     [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]]
B = [[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
     [1.4204658, 1.2609464, -0.43640924]]
ROW = [-0.17307831, 1.1900724, 2.245003]


def f32(x):
    return np.asarray(x, dtype=np.float32)


def op(node_id, name, **attrs):
    """An op node with the catalog's default attributes (as the editor makes them)."""
    return Node(node_id, OP, op=name, attrs={**catalog.OPS[name].attrs, **attrs})


def seed004_doc():
    doc = Document(title="seed 004")
    doc.add(Node("t", VARIABLE, value=f32(T), watched=True))
    doc.add(Node("b", VARIABLE, value=f32(B)))
    doc.add(op("y", "matmul"))
    doc.connect("t", "y", dst_index=0)
    doc.connect("b", "y", dst_index=1)
    doc.targets, doc.sources = [Port("y")], [Port("t")]
    return doc


def test_seed004_document_story():
    s = story.build(seed004_doc())
    assert [x.kind for x in s.steps] == ["seed", "visit", "contribution", "accumulate"]
    seed, visit, contribution, accumulate = s.steps
    assert seed.port == Port("y") and not seed.given
    np.testing.assert_array_equal(seed.cotangent, np.ones((5, 3)))
    assert visit.node == "y" and visit.op_type == "MatMul"
    assert contribution.node == "y" and contribution.port == Port("t")
    assert contribution.formula == "grad_t = grad @ bᵀ"   # the rule in the document's names
    np.testing.assert_allclose(contribution.cotangent, [ROW] * 5, rtol=1e-6)
    assert accumulate.port == Port("t")
    p = s.provenance(Port("t"), 0)
    # A sum of 3 float32s: its last digit depends on the order the BLAS kernel adds in
    # (-0.17307831 or -0.1730783), so the value is checked to 2 ulps; the text writes it
    # as the cards do, to three decimals.
    np.testing.assert_array_max_ulp(np.float32(p.value), np.float32(ROW[0]), maxulp=2)
    # the seed's ones in the story's format (Story.number_spec), as its cards write them
    assert p.text() == f"grad t[0,0] = 1.000·b[0,0] + 1.000·b[0,1] + 1.000·b[0,2] = {p.value:.3f}"
    assert "sum over the elements of y" in explain(s)


def test_seed003_document_story_with_stop_gradient():
    doc = Document(title="seed 003")
    doc.add(Node("a", CONSTANT, value=f32([[1, 2], [3, 4]]), watched=True))
    doc.add(Node("b", CONSTANT, value=f32([[6, 7, 8], [9, 10, 11]])))
    doc.add(op("c", "matmul"))
    doc.add(op("s", "stop_gradient"))
    doc.add(op("cc", "multiply"))
    doc.connect("a", "c", dst_index=0)
    doc.connect("b", "c", dst_index=1)
    doc.connect("c", "s")
    doc.connect("c", "cc", dst_index=0)
    doc.connect("s", "cc", dst_index=1)
    doc.targets, doc.sources = [Port("cc")], [Port("a")]
    s = story.build(doc)
    assert [x.kind for x in s.steps] == ["seed", "visit", "contribution", "contribution", "visit",
                                         "cut", "visit", "contribution", "accumulate"]
    c = np.array([[24, 27, 30], [54, 61, 68]])
    assert s.steps[1].node == "cc"
    assert s.steps[2].port == Port("c")
    np.testing.assert_array_equal(s.steps[2].cotangent, c)
    assert s.steps[5].node == "s" and s.steps[5].port == Port("c")
    assert s.steps[6].node == "c"
    np.testing.assert_array_equal(s.steps[6].cotangent, c)
    np.testing.assert_array_equal(s.steps[7].cotangent, [[573, 816], [1295, 1844]])
    assert s.steps[7].port == Port("a")


def test_layer_ops_are_grouped_under_the_layer_node_and_unconnected_says_none():
    doc = Document(title="dense")
    doc.add(Node("x", CONSTANT, value=f32(np.linspace(-1, 1, 8).reshape(4, 2)), watched=True))
    doc.add(Node("z", CONSTANT, value=f32([1.0]), watched=True))
    doc.add(Node("dense", LAYER, op="Dense",
                 attrs={**catalog.LAYERS["Dense"].attrs, "units": 3, "activation": "tanh"},
                 weights={"kernel": f32([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6]]),
                          "bias": f32([0.1, 0.0, -0.1])}))
    doc.add(op("loss", "reduce_sum"))
    doc.connect("x", "dense")
    doc.connect("dense", "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port("x"), Port("dense", 1), Port("z")]
    s = story.build(doc)
    visits = s.of_kind("visit")
    assert {v.op_type for v in visits} >= {"MatMul", "Tanh"}
    assert all(v.node in ("dense", "loss") for v in visits)
    assert any(st.internal for st in s.steps)
    kernel = [st for st in s.of_kind("accumulate") if st.port == Port("dense", 1)]
    assert len(kernel) == 1 and kernel[0].total.shape == (2, 3)
    (un,) = s.of_kind("unconnected")
    assert un.port == Port("z") and "None" in un.caption
    assert s.gradients[Port("z")] is None
    explain(s)


def test_stop_recording_nodes_are_reported_as_cut():
    doc = seed004_doc()
    doc.add(op("u", "tanh"))
    doc.add(op("sum", "add"))
    doc.connect("t", "u")
    doc.connect("y", "sum", dst_index=0)
    doc.connect("u", "sum", dst_index=1)
    doc.tape.stop_recording = ["u"]
    doc.targets = [Port("sum")]
    s = story.build(doc)
    cuts = s.of_kind("cut")
    assert [c.node for c in cuts] == ["u"] and "stop_recording" in cuts[0].caption
    np.testing.assert_allclose(s.of_kind("accumulate")[0].total, [ROW] * 5, rtol=1e-6)


def test_studies_on_documents():
    from gradviz.story import studies
    j = studies.jacobian_study(seed004_doc())
    assert j.jacobian.shape == (5, 3, 5, 3) and j.max_difference < 1e-5 and j.ok
    doc = seed004_doc()
    doc.output_gradients = {Port("y"): f32(np.arange(15).reshape(5, 3))}
    j = studies.jacobian_study(doc)
    np.testing.assert_array_equal(j.v, np.arange(15).reshape(5, 3))
    assert j.vjp_difference < 1e-4
    h = studies.hessian_study(seed004_doc())
    assert h.hessian.shape == (15, 15) and h.symmetry_error == 0  # linear in t: H = 0


def test_generated_100_node_document_story_matches_the_evaluation():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "bench" / "bench_story.py"
    spec = importlib.util.spec_from_file_location("bench_story", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    doc = bench.generated_document()
    s = story.build(doc)
    assert not s.problems and len(doc.nodes) == 100
    for port in doc.sources:
        np.testing.assert_allclose(s.gradients[port], s.evaluation.gradients[port], rtol=1e-6)
    assert s.of_kind("fan_in")


@pytest.mark.parametrize("seed, scalar, words", [
    (None, False, "how much the sum of y's elements changes"),
    (np.ones((5, 3), np.float32) * 2, False, "how much ❬v, y❭ (the output_gradients v times y, summed)"),
    (None, True, "how much the target s changes"),
])
def test_a_visit_says_what_the_cotangent_is_a_derivative_of(seed, scalar, words):
    """'How much the target changes' was false for a tensor target (its sum) and for a
    seeded one (❬v, y❭): a visit's caption names what tape.gradient differentiates."""
    doc = seed004_doc()
    if scalar:
        doc.add(op("s", "reduce_sum"))
        doc.connect("y", "s")
        doc.targets = [Port("s")]
    if seed is not None:
        doc.output_gradients = {Port("y"): seed}
    visit = next(x for x in story.build(doc).steps if x.kind == "visit")
    assert words in visit.caption


def test_no_step_title_names_an_op_by_a_counter():
    """Lesson 14 step 11's title said 'the multiply 2 → the multiply 1, inside
    t1.gradient(out, x)' while its caption called the op 'the multiply in y_sq's rule': a
    counter no caption says. Over every sample, a title names an op inside a node as the
    captions name it and never as 'the <kind> <number>'. (An inner op has one name since
    issue 20's 'one name per node', so every inner name a title gives is counted, where this
    test counted the long 'the <kind> for …' names a title kept whole.)"""
    import re
    from pathlib import Path

    from gradviz.graph import load
    from gradviz.story.build import build as build_story

    counter = re.compile(r"\bthe [a-z_.]+(?: grad)? \d+\b")
    prefix = re.compile(r"^(Visit |Fan-in at |Cut: )")
    named = 0
    for path in sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json")):
        story = build_story(load(path))
        captions = " ".join(s.caption for s in story.steps)
        inner = {label.rsplit(" inside ", 1)[0] for label in story.naming._op_labels.values()
                 if " inside " in label}
        for step in story.steps:
            assert not counter.search(step.title), (path.stem, step.index + 1, step.title)
            if ", inside " in step.title:
                title, where = step.title.rsplit(", inside ", 1)
                for name in prefix.sub("", title).split(" → "):
                    if name in inner:
                        named += 1
                        assert f"{name} inside {where}" in captions, (path.stem, step.title)
    assert named >= 10


def test_a_one_element_target_is_seeded_with_1_in_words_a_person_says():
    """The tiny CNN's loss (shape (1,)) read 'starts at loss with ones over its 1 element
    (1)'. Over every sample, a target of one element is 'seeded with 1'; only a target of
    several elements gets 'ones over its n elements'."""
    from pathlib import Path

    from gradviz.graph import load
    from gradviz.story.build import build as build_story

    ones = []
    for path in sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json")):
        story = build_story(load(path))
        for step in story.of_kind("seed"):
            n = int(np.size(step.cotangent))
            assert "over its 1 element" not in step.caption, (path.stem, step.caption)
            if n == 1 and np.ndim(step.cotangent) > 0:
                ones.append(path.stem)
                assert ", seeded with 1: " in step.caption and "holds one element" in step.caption
            elif n > 1 and not step.given:
                assert f"with ones over its {n} elements (" in step.caption
    assert "nets_5_tiny_cnn" in ones, ones
