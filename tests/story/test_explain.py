"""`explain`: the lesson first, every step named by document nodes, the studies with numbers."""
import re
from pathlib import Path

import numpy as np
import pytest

from gradviz import story
from gradviz.graph import Document, Node, Port, catalog, load
from gradviz.story import studies as story_studies
from gradviz.story.local import Provenance
from gradviz.story.numbers import alone
from gradviz.story.text import explain

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))


def told(name):
    doc = load(SAMPLES / f"{name}.json")
    s = story.build(doc)
    return doc, s, explain(s)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_step_names_a_document_node_and_no_engine_name_leaks(path):
    doc = load(path)
    s = story.build(doc)
    text = explain(s)
    assert text.startswith(f"{doc.title}\n{'=' * len(doc.title)}\n\n")
    first = " ".join(doc.lesson.split()[:8])
    assert first in " ".join(text.split()[:80])  # the lesson comes right after the title
    for step in s.steps:
        assert step.node in doc.nodes, (step.index, step.title)
    steps = text.split("step by step")[1].split("\nStudies\n")[0]
    assert not re.search(r"[A-Za-z]+_\d+:\d", steps)     # engine tensor names (AddV2_31:0)
    assert "[]" not in steps and "[; ]" not in steps and "· =" not in steps
    assert "J[" not in steps                                 # a factor is named ∂out/∂in


def test_operands_are_named_by_the_document_001_stop_recording():
    _, s, text = told("001_stop_recording")
    assert "e.g. grad x = 1·x = 2" in text
    assert "y[" not in text.split("Backpropagation")[1]   # y (the node) gets no gradient
    (fan,) = s.of_kind("fan_in")
    assert fan.caption.startswith("x is used twice (both inputs of x_sq, a multiply)")
    assert [label for label, _ in fan.terms] == ["x_sq → x (input a)", "x_sq → x (input b)"]


def test_operands_are_named_by_the_document_002_vjp():
    _, _, text = told("002_vjp_output_gradients")
    assert "e.g. grad x[0] = 2·x[0] = 2" in text
    # Mul's operand y is the node x; the node y is the product: the rule names the node x.
    assert "for its input x: grad_x = grad · x." in " ".join(text.split())
    assert "grad · y" not in text


def test_the_custom_rule_is_the_declared_one_001_clip_gradient():
    _, s, text = told("001_clip_gradient")
    (custom,) = [st for st in s.of_kind("contribution") if st.op_type == "CustomGradient"]
    assert custom.formula == "grad_vv = clip_by_norm(grad, 0.5)"
    assert custom.title == "clip_gradients → vv"
    # the upstream 1 as the story's cards write it (Story.number_spec: one format per tensor)
    assert "e.g. grad vv = clip_by_norm(1.000, 0.5) = 0.500" in text
    assert "grad_fn" not in text


def test_higher_order_steps_say_which_op_inside_the_gradient_node():
    """Each op of the inner pass is named by the cotangent it makes, inside the node: no
    card shows "t1.gradient(y, x)'s multiply 4" (walk-through, lesson 14).
    A title names an inner op as its caption does, without 'inside …', which it says once
    at its end. (The short titles named it by a counter, 'the multiply 4', which no caption
    says; issue 20 §1: test_no_step_title_names_an_op_by_a_counter.) Its one name is the
    cotangent alone, where the captions said 'the multiply for …' and the titles did not
    (issue 20: one name per node, test_one_name_per_node); the visit says its kind."""
    doc, s, text = told("001_higher_order")
    visits = s.of_kind("visit")
    titles = [st.title for st in visits]
    assert len(titles) == len(set(titles)) == 7
    assert titles[0] == "Visit t1.gradient(y, x)"
    captions = [st.caption for st in visits]
    for name in ("∂y/∂x via xx (input b)", "∂y/∂x via y"):
        k = next(k for k, c in enumerate(captions)
                 if c.startswith(f"{name}, a multiply inside t1.gradient(y, x), receives"))
        assert titles[k] == f"Visit {name}, inside t1.gradient(y, x)"
    assert "'s multiply" not in text
    fans = s.of_kind("fan_in")
    assert [f.node for f in fans] == ["t1_gradient_y_x", "x"]
    assert fans[0].title == "Fan-in at ∂y/∂xx, inside t1.gradient(y, x)"
    assert fans[0].caption.startswith("∂y/∂xx inside t1.gradient(y, x) is used twice")
    # its rule is the add's that ends the node's inner pass, not a 'gradient' rule
    first = s.of_kind("contribution")[0]
    assert "Local rule of add, the op that ends t1.gradient(y, x), for its input" in first.caption
    # the seed of the inner pass, a constant: named as the cotangent it is
    assert "Here a is '∂y/∂y (a constant) inside t1.gradient(y, x)'" in " ".join(text.split())
    assert fans[1].caption.startswith("x is used 5 times (")
    assert "sum of the paths of None" not in text
    np.testing.assert_array_equal(s.gradients[Port("x")], 9.0)   # 6x at x = 1.5


def test_layer_internals_are_named_by_the_layer_001_batchnorm_pitfall():
    _, s, text = told("001_batchnorm_pitfall")
    titles = [st.title for st in s.steps]
    # a layer's ops by what they are to the reader, as Dense(activation='elu') says, not TF's
    # op types (layer2/Elu → AddV2; walk-through finding)
    assert "layer2's elu → layer2's bias add" in titles and "bn's fused batch norm → layer1" in titles
    assert "layer2's bias add → layer2's matmul" in titles
    assert not [t for t in titles if re.search(r"AddV2|MatMul|Elu|FusedBatchNorm|/", t)], titles
    assert "for its input bn: grad_bn = grad @ layer2.kernelᵀ." in " ".join(text.split())
    # The upstream of bn's row 0 is elu'(z) = 1 where z > 0 (exact) and exp(z) elsewhere;
    # exp(z)'s last float32 digits depend on the CPU, so the text is built from the value.
    to_bn = next(st for st in s.steps if st.title == "layer2's matmul → bn")
    z = next(st for st in s.steps if st.title == "layer2's elu → layer2's bias add").operands["a"]   # Elu's x: renamed, the document has a node x
    grad = to_bn.operands["grad"]
    assert grad[0, 0] == 1 and z[0, 0] > 0 and z[0, 1] < 0
    np.testing.assert_allclose(grad[0, 1], np.exp(np.float64(z[0, 1])), rtol=1e-6)
    np.testing.assert_allclose(grad[0, 1], 0.21086502, rtol=1e-6)  # as first recorded
    # Six products of 3-decimal factors could move the sum's last digit (-0.172) by 3: the
    # upstream factors are written with the 4 decimals the printed sum needs
    # (test_printed_equations), the cards keep 3.
    assert (f"e.g. grad bn[0,0] = 1.0000·layer2.kernel[0,0] + {grad[0, 1]:.4f}·layer2.kernel[0,1]"
            in text)


def test_explain_shows_the_batch_norm_pitfall_with_its_numbers():
    doc, _, text = told("001_batchnorm_pitfall")
    b = story_studies.batch_jacobian_study(doc)
    studies = text.split("Studies\n-------\n")[1]
    assert "Jacobian of layer2 with respect to x: shape 7×6×7×5" in studies
    assert re.search(r"✓ summed over the target's axes .* max \|ΣJ − gradient\| = \d",
                     " ".join(studies.split()))
    assert "max |Jᵀv − VJP| =" in " ".join(studies.split())
    flat = " ".join(studies.split())
    # The engine's batch_jacobian and the summed Jacobian differ by float32 rounding only,
    # whose digits depend on the CPU: the text shows the measured value as the cards do.
    assert 0 < b.engine_difference <= 1e-6 * np.abs(b.jacobian).max()
    assert ("✓ it equals the full Jacobian summed over the target's batch axis, "
            f"Σ_b J[b, …, c, …]: max |difference| = {alone(b.engine_difference)}" in flat)
    assert b.block_difference == pytest.approx(1.27, abs=0.005)
    assert ("✗ it is not the per-example Jacobian J[b, …, b, …]: max |difference| = "
            f"{alone(b.block_difference)}" in flat)
    assert b.location == (3, 6) and b.largest == pytest.approx(1.14, abs=0.005)
    assert ("Warning: the examples are not independent. The largest off-diagonal block is "
            f"∂layer2[3] / ∂x[6], with norm {alone(b.largest)}. bn (BatchNormalization in "
            "training mode)" in flat)


def test_explain_batch_jacobian_without_coupling_has_no_warning():
    _, _, text = told("001_batch_jacobian")
    flat = " ".join(text.split())
    assert "✓ the examples are independent" in flat and "Warning" not in flat


def test_explain_hessian_symmetry_definiteness_and_newton_step():
    _, _, text = told("001_hessian_newton")
    flat = " ".join(text.split())
    assert "Hessian of loss with respect to layer1.kernel: 40 × 40" in flat
    assert re.search(r"✓ symmetric: max \|H − Hᵀ\| = [\d.e-]+", flat)
    assert "positive semi-definite within rounding" in flat and "not positive" not in flat
    assert "Newton step u = solve(H + 0.001·I, g)" in flat


def test_explain_higher_order_and_chain_cost():
    _, _, text = told("001_higher_order")
    assert "  dy/dx = 6.75\n  d²y/dx² = 9\n" in text    # 3x² and 6x at x = 1.5
    _, _, text = told("000_layer_hessian")
    flat = " ".join(text.split())
    assert "Chain of 4 Jacobians, sizes 6 → 12 → 12 → 12 → 1" in flat
    assert "forward (J_k · (… J_1), each J_k · 6 columns): 1,800 multiply-adds" in flat
    assert "reverse (vᵀ J_L · … · J_1, each vector · J_k): 360 multiply-adds" in flat
    assert "reverse is 5.0× cheaper" in flat


@pytest.mark.cpu_independent("the text of sums of ones (600.000, 1.000): exact in any order on every CPU")
def test_explain_of_a_big_matmul_is_fast_and_a_huge_broadcast_shows_no_example():
    rng = np.random.default_rng(0)
    doc = Document(title="big")
    doc.add(Node("a", "constant", value=rng.normal(size=(200, 200)).astype("float32"),
                 watched=True))
    doc.add(Node("b", "constant", value=rng.normal(size=(200, 200)).astype("float32")))
    doc.add(Node("c", "op", op="matmul", attrs=dict(catalog.OPS["matmul"].attrs)))
    doc.add(Node("d", "op", op="broadcast_to", attrs={"shape": [600, 200, 200]}))
    doc.connect("a", "c")
    doc.connect("b", "c", dst_index=1)
    doc.connect("c", "d")
    doc.targets, doc.sources = [Port("d")], [Port("a")]
    text = explain(story.build(doc))
    # the upstream 600 in the story's format (Story.number_spec), as its cards write it
    assert "e.g. grad a[0,0] = 600.000·b[0,0] + 600.000·b[0,1]" in text
    assert "(no entry-by-entry example here: each entry of c sums 600 products" not in text
    assert "e.g. grad c[0,0] = 1.000·1 + 1.000·1" in text  # 600 terms: enumerated, capped in the text


def test_the_explain_command_prints_the_pitfall(capsys):
    from gradviz import cli
    assert cli.main(["explain", str(SAMPLES / "001_batchnorm_pitfall.json")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("BatchNormalization breaks batch_jacobian's assumption")
    assert "Warning: the examples are not independent." in out


def test_provenance_writes_the_cotangent_not_the_value_004():
    """Lesson 1 step 3: the sum is ∂Σy/∂tf_t[0,0], the cotangent; tf_t[0,0] itself is 0.836."""
    doc, s, text = told("004_matmul_sum")
    step = s.steps[2]
    p = s.step_provenance(step, 0)
    b = doc.nodes["tf_b"].value
    value = f"{float(step.cotangent.flat[0]):.3f}"     # as the cards write it
    # the seed's ones as every card of the story writes them (Story.number_spec)
    assert p.text() == (f"grad tf_t[0,0] = 1.000·tf_b[0,0] + 1.000·tf_b[0,1] + 1.000·tf_b[0,2] = {value}")
    assert f"e.g. {p.text()}" in text
    assert p.value == pytest.approx(float(b[0].sum()), rel=1e-6)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_provenance_line_names_a_cotangent(path):
    """No 'name[i] = …' sum of products where the canvas shows name[i]'s value."""
    text = explain(story.build(load(path)), studies=False)
    examples = [line.strip() for line in text.splitlines() if line.strip().startswith("e.g. ")]
    for line in examples:
        assert line.startswith("e.g. grad "), line


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_no_example_line_is_an_empty_sum(path):
    """An entry whose every product is 0 has no sum to write out: no 'with  = 0' line."""
    text = explain(story.build(load(path)))
    assert not re.search(r"^\s*(with|=)\s+=", text, re.MULTILINE)


def test_a_contribution_without_terms_has_no_numbers_line():
    p = Provenance(value=0.0, terms=[], where="layer[0,0]", kind="contribution")
    assert p.numbers() == ""
    assert p.text() == "grad layer[0,0] = 0 (every product upstream · local factor is 0)"


E_NOTATION = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize("name", ["000_layer_hessian", "001_batchnorm_pitfall", "001_hessian_newton",
                                  "nets_3_gradient_check", "nets_3_wrong_gradient",
                                  "001_sigmoid_jacobian"])
def test_explain_writes_the_studies_numbers_as_the_cards_do(name):
    """The studies' numbers in `gradviz explain` follow the cards' rule (1.190×10⁻⁷, the
    gradient check's h as 10⁻⁶), never e-notation beside a card's 0.220 (issue 20 §5)."""
    _, _, text = told(name)
    studies = text.split("Studies\n-------\n")[1]
    assert not E_NOTATION.findall(studies), [line for line in studies.splitlines()
                                             if E_NOTATION.search(line)]


def test_a_hessian_holding_nan_is_computed_and_has_no_eigenvalues():
    """explain said 'not computable' of lesson 14's Hessian with pow, a 50 × 50 H it had
    computed: it holds NaN, so it is the eigenvalues and the Newton step that do not exist."""
    from gradviz.story.study_text import hessian_lines
    from lesson_variants import pow_pitfall_doc
    first, warning = hessian_lines(pow_pitfall_doc())
    assert first == ("Hessian of g1_mag with respect to layer.kernel: 50 × 50, holding NaN or "
                     "infinity: no eigenvalues, no Newton step")
    assert warning.startswith("  ✗ Warning: H holds NaN or infinity in 2500 of its entries")


def _x_times_x_minus_x():
    """y = x·x − x, built as a student builds it (the auditor's file)."""
    doc = Document(title="y = x·x − x")
    doc.add(Node("x", "variable", value=np.float32(1.0)))
    doc.add(Node("xx", "op", op="multiply", attrs=dict(catalog.OPS["multiply"].attrs)))
    doc.add(Node("y", "op", op="subtract", attrs=dict(catalog.OPS["subtract"].attrs)))
    doc.connect("x", "xx")
    doc.connect("x", "xx", dst_index=1)
    doc.connect("xx", "y")
    doc.connect("x", "y", dst_index=1)
    doc.targets, doc.sources = [Port("y")], [Port("x")]
    return doc


def _repeated_lines(text):
    """Each 'e.g.' line whose '= …' line under it writes the same sum again."""
    lines = text.splitlines()
    return [(said, again) for said, again in zip(lines, lines[1:])
            if said.startswith("     e.g. ") and again.startswith("          = ")
            and said.endswith(" = " + again.removeprefix("          = "))]


def test_a_sum_whose_factors_are_all_numbers_is_written_once():
    """y = x·x − x printed 'e.g. grad xx = 1·1 = 1' and then '= 1·1 = 1': subtract's local
    factors 1 and -1 name no tensor, so the sum with names already is the sum of numbers.
    A factor that is a number is written as its number, and the numbers line comes only
    when it says more (x's entry under the name x, in xx's rule)."""
    doc = _x_times_x_minus_x()
    s = story.build(doc)
    text = explain(s)
    assert not _repeated_lines(text)
    flat = " ".join(text.split())
    assert "e.g. grad xx = 1·1 = 1 4." in flat            # once, and the next step follows
    assert "e.g. grad x = 1·(-1) = -1 5." in flat
    assert "e.g. grad x = 1·x = 1 = 1·1 = 1" in flat       # x's value said under its name
    by_title = {st.title: st for st in s.steps}
    for title, more in (("y → xx", False), ("y → x", False), ("xx → x (input a)", True)):
        p = s.step_provenance(by_title[title], 0)
        assert p.says_more() is more, title
        assert p.numbers()                                 # the sum itself is still there


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_no_sample_writes_a_sum_twice(path):
    assert not _repeated_lines(explain(story.build(load(path)), studies=False))


def _same_step(a, b):
    return (a.kind, a.node, a.port, getattr(a, "_op", None), a.input_index) == \
        (b.kind, b.node, b.port, getattr(b, "_op", None), b.input_index)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_no_two_steps_read_the_same_and_no_fan_in_lists_a_path_twice(path):
    """Lesson 13 (higher order) titled steps 9 and 12 both 'the multiply → the multiply for
    ∂y/∂xx, inside t1.gradient(y, x)', and its fan-in (step 16, `explain`) listed its two
    contributions under that one label: a title's short names for the ops inside a
    'gradient' node dropped what told them apart ('the multiply' for four multiplies)."""
    s = story.build(load(path))
    seen = {}
    for step in s.steps:
        other = seen.setdefault(step.title, step)
        assert other is step or _same_step(other, step), \
            f"steps {other.index + 1} and {step.index + 1} are both titled {step.title!r}"
    for fan in s.of_kind("fan_in"):
        labels = [label for label, _ in fan.terms]
        assert len(labels) == len(set(labels)), (fan.index + 1, labels)


def test_higher_order_titles_and_captions_say_which_product_is_which():
    """The steps inside t1.gradient(y, x) (1 to 18) change nothing on the canvas but the highlight:
    each title names its ops apart, by the cotangent each makes, and each contribution's
    caption says which product the op is in the user's names (x, xx, ∂y/∂xx). Which input of
    xx a product goes through is its port's letter, as the canvas shows it ('(input b)';
    it said '(input 2)' beside ports a and b: test_port_words)."""
    _, s, text = told("001_higher_order")
    by_index = {st.index + 1: st for st in s.steps}
    assert by_index[9].title == "∂y/∂x via xx (input b) → ∂y/∂xx, inside t1.gradient(y, x)"
    assert by_index[12].title == "∂y/∂x via xx (input a) → ∂y/∂xx, inside t1.gradient(y, x)"
    assert by_index[9].caption.startswith(
        "Local rule of multiply, here ∂y/∂x via xx (input b) = ∂y/∂xx · x, "
        "for its input ∂y/∂xx inside t1.gradient(y, x) (a in the rule)")
    assert "here ∂y/∂x via y = ∂y/∂y (a constant) · xx," in by_index[15].caption
    flat = " ".join(text.split())
    assert ("+ from ∂y/∂x via xx (input b) → ∂y/∂xx, inside t1.gradient(y, x): 1.500 "
            "+ from ∂y/∂x via xx (input a) → ∂y/∂xx, inside t1.gradient(y, x): 1.500 = sum: 3.000") in flat
    inside = [st for st in s.steps if st.node == "t1_gradient_y_x"]
    assert [st.index + 1 for st in inside] == list(range(1, 19))
    assert all(len(st.title) <= 72 for st in inside)   # two lines of a slide at 1280 px
