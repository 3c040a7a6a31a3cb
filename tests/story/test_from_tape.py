"""The story of a tape, step by step, against the numbers of seeds 004 and 003."""
import re

import numpy as np
import pytest

import gradviz as tf
from gradviz import story
from gradviz.story.text import explain

T = [[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
     [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]]
B = [[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
     [1.4204658, 1.2609464, -0.43640924]]
ROW = [-0.17307831, 1.1900724, 2.245003]


@pytest.fixture
def seed004():
    t, b = tf.Variable(tf.convert_to_tensor(T)), tf.Variable(tf.convert_to_tensor(B))
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = tf.matmul(t, b)
    return story.from_tape(tape, y, t, names={"t": t, "b": b, "y": y})


def test_seed004_story_step_by_step(seed004):
    kinds = [s.kind for s in seed004.steps]
    assert kinds == ["seed", "visit", "contribution", "accumulate"]
    seed, visit, contribution, accumulate = seed004.steps
    assert seed.port.node == "y" and not seed.given
    np.testing.assert_array_equal(seed.cotangent, np.ones((5, 3)))
    assert "sum over the elements of y" in seed.caption
    assert visit.op_type == "MatMul"
    np.testing.assert_array_equal(visit.cotangent, np.ones((5, 3)))
    assert contribution.port.node == "t" and contribution.input_index == 0
    assert contribution.formula == "grad_t = grad @ bᵀ"   # the rule in the names given
    np.testing.assert_allclose(contribution.cotangent, [ROW] * 5, rtol=1e-6)
    np.testing.assert_allclose(contribution.operands["b"], B)
    assert accumulate.port.node == "t"
    np.testing.assert_allclose(accumulate.total, [ROW] * 5, rtol=1e-6)
    assert seed004.gradients[accumulate.port] is accumulate.total


def test_seed004_provenance_of_dy_dx_00(seed004):
    p = seed004.provenance("t", 0)
    assert [t.label for t in p.terms] == ["grad[0,0]·b[0,0]", "grad[0,1]·b[0,1]",
                                          "grad[0,2]·b[0,2]"]
    assert [t.upstream for t in p.terms] == [1, 1, 1]
    np.testing.assert_allclose([t.local for t in p.terms], B[0], rtol=1e-6)
    # A sum of 3 float32s: its last digit depends on the order the BLAS kernel adds in
    # (-0.17307831 or -0.1730783), so the value is checked to 2 ulps; the text writes it
    # as the cards do, to three decimals.
    np.testing.assert_array_max_ulp(np.float32(p.value), np.float32(ROW[0]), maxulp=2)
    assert p.total == pytest.approx(p.value, abs=1e-6)
    # the seed's ones in the story's format (Story.number_spec), as its cards write them
    assert p.text() == f"grad t[0,0] = 1.000·b[0,0] + 1.000·b[0,1] + 1.000·b[0,2] = {p.value:.3f}"
    upstream, local, product, label = p.terms[1]
    assert (upstream, label) == (1.0, "grad[0,1]·b[0,1]")


def test_single_element_target_gives_column_of_b():
    """tape.gradient(y[0,0], t): the seed is 1 on y[0,0] only (seed 004's second question)."""
    t, b = tf.Variable(T), tf.constant(B)
    with tf.GradientTape() as tape:
        y = tf.matmul(t, b)
        y00 = y[0, 0]
    s = story.from_tape(tape, y00, t, names={"t": t})
    grad = s.of_kind("accumulate")[0].total
    np.testing.assert_allclose(grad[0], np.array(B)[:, 0], rtol=1e-6)
    p = s.provenance("t", 1)  # t[0,1] gets grad[0,0]·b[1,0] only; b, unnamed, is TF's const
    assert [x.label for x in p.terms] == ["grad[0,0]·const[1,0]"]


def seed003():
    a = tf.constant([[1., 2.], [3., 4.]])
    b = tf.constant([[6., 7., 8.], [9., 10., 11.]])
    with tf.GradientTape() as tape:
        tape.watch(a)
        c = tf.matmul(a, b)
        cc = c * tf.stop_gradient(c)
    return story.from_tape(tape, cc, a, names={"a": a, "b": b, "c": c, "cc": cc}), c


def test_seed003_stop_gradient_story():
    s, c = seed003()
    kinds = [x.kind for x in s.steps]
    assert kinds == ["seed", "visit", "contribution", "contribution", "visit", "cut", "visit",
                     "contribution", "accumulate"]
    seed, mul = s.steps[0], s.steps[1]
    np.testing.assert_array_equal(seed.cotangent, np.ones((2, 3)))
    assert mul.op_type == "Mul"
    to_c = s.steps[2]
    assert to_c.port.node == "c" and to_c.formula == "grad_c = grad · stop_gradient"
    np.testing.assert_array_equal(to_c.cotangent, c.numpy())
    cut = s.steps[5]
    assert cut.op_type == "StopGradient" and cut.port.node == "c" and "stops" in cut.caption
    matmul = s.steps[6]
    assert matmul.op_type == "MatMul"
    np.testing.assert_array_equal(matmul.cotangent, c.numpy())
    to_a = s.steps[7]
    assert to_a.port.node == "a"
    np.testing.assert_array_equal(to_a.cotangent, [[573, 816], [1295, 1844]])
    p = s.provenance("a", 0)  # 573 = 24·6 + 27·7 + 30·8
    assert [x.label for x in p.terms] == ["grad[0,0]·b[0,0]", "grad[0,1]·b[0,1]",
                                          "grad[0,2]·b[0,2]"]
    assert [x.product for x in p.terms] == [144, 189, 240]


def test_fan_in_sums_the_contributions_and_names_them():
    x = tf.Variable([1., 2.])
    with tf.GradientTape() as tape:
        y = x * x + tf.sin(x)
    s = story.from_tape(tape, y, x, names={"x": x})
    (fan,) = s.of_kind("fan_in")
    assert fan.port.node == "x" and len(fan.contributions) == 3
    np.testing.assert_allclose(sum(fan.contributions), fan.total)
    np.testing.assert_allclose(fan.total, 2 * np.array([1, 2]) + np.cos([1, 2]), rtol=1e-6)
    assert [label for label, _ in fan.terms] == [s.steps[i].title for i in fan._sources]
    assert all(s.steps[i].kind == "contribution" for i in fan._sources)
    p = s.provenance("x", 1)
    assert p.kind == "fan_in" and len(p.terms) == 3
    assert p.total == pytest.approx(p.value, rel=1e-6)
    # provenance of one contribution: x*x's input 0 at x[1] is grad[1]·x[1] = 1·2
    mul_to_x = [st for st in s.of_kind("contribution") if st.op_type == "Mul"][0]
    q = s.step_provenance(mul_to_x, 1)
    assert [(t.label, t.product) for t in q.terms] == [("grad[1]·x[1]", 2.0)]
    assert s.step_provenance(s.of_kind("accumulate")[0], 1).value == p.value


def test_unconnected_source_says_none_or_zeros():
    x, z = tf.Variable([1., 2.]), tf.Variable([3.])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(x * 2.0)
    s = story.from_tape(tape, y, [x, z], names={"x": x, "z": z})
    (un,) = s.of_kind("unconnected")
    assert un.port.node == "z" and un.cotangent is None and "None" in un.caption
    assert s.gradients[un.port] is None
    s0 = story.from_tape(tape, y, [x, z], names={"x": x, "z": z}, unconnected_gradients="zero")
    (un,) = s0.of_kind("unconnected")
    np.testing.assert_array_equal(un.cotangent, [0.0])
    assert "zeros" in un.caption


def test_output_gradients_seed_is_given():
    x = tf.Variable([1., 2., 3.])
    with tf.GradientTape() as tape:
        y = x * x
    s = story.from_tape(tape, y, x, output_gradients=tf.constant([1., 0., -1.]),
                        names={"x": x, "y": y})
    seed = s.steps[0]
    assert seed.given and "output_gradients" in seed.caption
    np.testing.assert_allclose(s.of_kind("accumulate")[0].total, [2, 0, -6])


def test_generic_local_factor_and_capped_terms():
    x = tf.Variable(np.linspace(0.1, 1.0, 30).astype("float32"))
    with tf.GradientTape() as tape:
        y = tf.nn.softmax(x)
    s = story.from_tape(tape, y, x, output_gradients=tf.constant(np.arange(30.0, dtype="float32")),
                        names={"x": x})
    p = s.provenance("x", 0, max_terms=5)
    assert len(p.terms) == 5 and p.more > 0
    assert p.terms[0].label.startswith("grad[") and "J[" in p.terms[0].label
    assert p.total == pytest.approx(p.value, abs=1e-5)
    assert "more" in p.text()


def test_custom_gradient_local_jacobian_follows_the_rule():
    @tf.custom_gradient
    def scale(x):
        return tf.identity(x), lambda g: g * 3.0
    x = tf.Variable([1., 2.])
    with tf.GradientTape() as tape:
        y = scale(x)
    s = story.from_tape(tape, y, x, names={"x": x})
    p = s.provenance("x", 1)
    assert [(t.upstream, t.local) for t in p.terms] == [(1.0, 3.0)]


def test_explain_prints_every_step_with_numbers(seed004):
    text = explain(seed004)
    assert "sum over the elements of y" in text
    assert "grad_t = grad @ bᵀ" in text
    value = seed004.steps[2].cotangent[0, 0]  # the contribution to t, as computed here
    np.testing.assert_array_max_ulp(value, np.float32(ROW[0]), maxulp=2)
    assert f"t[0,0] = 1.000·b[0,0] + 1.000·b[0,1] + 1.000·b[0,2] = {value:.3f}" in text
    assert "[ -0.173   1.190   2.245 ]" in text and text.count("[seed]") == 1   # as the cards write t


def test_a_source_the_tape_never_watched_is_told_as_such():
    """x * c with only x watched: TF gives c no gradient although Mul read it; the step
    says why (not 'no path', which would be false here)."""
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    s = story.from_tape(tape, y, [x, c], names={"x": x, "c": c, "y": y})
    (step,) = [st for st in s.steps if st.kind == "unconnected"]
    assert step.title == "c is not watched"
    assert "never watched it" in step.caption and "even where a recorded op read it" \
        in step.caption and step.caption.endswith("its gradient is None "
                                                  "(unconnected_gradients='zero' gives zeros).")
    other = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch([x, other])
        y = x * c
    s = story.from_tape(tape, y, [other], names={"x": x, "other": other, "y": y})
    (step,) = [st for st in s.steps if st.kind == "unconnected"]
    assert step.title == "other is unconnected"


def _recorded_script():
    """A script's tape: the same code gives the same story, however many ops ran before."""
    x = tf.Variable([[1.0, 2.0]])
    w = tf.Variable([[0.5, 1.0], [-0.3, 2.0]])
    labels = tf.constant([[0.0, 1.0]])
    with tf.GradientTape() as tape:
        h = tf.matmul(x, w)
        logits = tf.matmul(h, w) * h + tf.constant([[0.5, -0.5]])
        loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    return story.from_tape(tape, loss, [x, w], names={"x": x, "w": w})


def _texts(s):
    return [t for st in s.steps for t in (st.title, st.caption, st.formula or "",
                                          str(st.port), str(st.node), st.tensor_name or "")]


def test_unnamed_tensors_are_named_as_tf_names_them_counted_per_story():
    """Not the engine's global names (SoftmaxCrossEntropyWithLogits_1342, MatMul_5): TF's
    Python names with a counter per story, in the order the code made them."""
    first = _recorded_script()
    tf.matmul(tf.ones((3, 3)), tf.ones((3, 3)))       # more ops: the engine's counter moves on
    second = _recorded_script()
    assert _texts(first) == _texts(second)
    titles = [st.title for st in first.steps]
    assert titles[:3] == ["Seed reduce_sum", "Visit reduce_sum",
                          "reduce_sum → softmax_cross_entropy_with_logits"]
    assert "matmul → x" in titles and "matmul_1 → w" in titles and "Visit add" in titles
    engine_style = re.compile(r"\b[A-Z][A-Za-z0-9]*_\d+\b")   # an op type and a global count
    assert not [t for t in _texts(first) if engine_style.search(t)]


def _unnamed_leaves():
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(a * b)
    return tape, y, [a, b]


def test_unnamed_variables_get_a_name_each():
    """Two unnamed Variables were both 'Variable' (TF's eager default): one step each now."""
    s = story.from_tape(*_unnamed_leaves())
    got = [st.port.node for st in s.steps if st.kind == "accumulate"]
    assert got == ["Variable", "Variable_1"]


SCRIPT = '''
import gradviz as tf
x = tf.constant([[1.0, -2.0, 0.5]])
layer = tf.keras.layers.Dense(2, activation="relu")
labels = tf.constant([[0.0, 1.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    logits = layer(x) * 2.0 + tf.sin(x[:, :2])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
g = tape.gradient(loss, [x] + layer.trainable_variables)
'''


def test_a_traced_scripts_story_has_no_engine_names(tmp_path):
    """`gradviz trace`: the script's document, explained, names every tensor as the script
    or TF's API does (xent, mul, sin, getitem, layer's matmul), never MatMul_12."""
    from gradviz.graph import load
    from gradviz.graph.cli_commands import trace_command
    script, out = tmp_path / "net.py", tmp_path / "net.json"
    script.write_text(SCRIPT, encoding="utf-8")
    assert trace_command(str(script), str(out))[0] == 0
    text = explain(story.build(load(out)), studies=False)   # (the studies write J_1, J_L)
    assert "Local rule of nn.softmax_cross_entropy_with_logits for its input logits" in text
    assert not re.findall(r"\b[A-Z][A-Za-z0-9]*_\d+\b", text)
