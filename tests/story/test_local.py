"""Provenance is lazy and per element, and every column it uses is the engine's Jacobian.

For each op, the column the story computes for one input entry (closed form or one
extra backward pass) must equal that column of tape.jacobian, for every entry.
"""
import numpy as np
import pytest

import gradviz as tf
from gradviz import story
from gradviz.graph import Document, Node, Port, catalog
from gradviz.story import local

RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.normal(size=shape).astype(np.float32)


CASES = {
    "matmul": (lambda a, b: tf.matmul(a, b), [rand(3, 4), rand(4, 2)]),
    "matmul_ta_tb": (lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
                     [rand(4, 3), rand(2, 4)]),
    "batched_matmul": (lambda a, b: tf.matmul(a, b), [rand(2, 3, 4), rand(2, 4, 2)]),
    "mul_broadcast": (lambda a, b: a * b, [rand(3, 4), rand(4)]),
    "add_broadcast": (lambda a, b: a + b, [rand(3, 1), rand(1, 4)]),
    "sub_scalar": (lambda a, b: a - b, [rand(3, 2), rand()]),
    "div": (lambda a, b: a / b, [rand(3, 2), rand(3, 2) + 3]),
    "broadcast_to": (lambda a: tf.broadcast_to(a, [3, 2, 4]), [rand(2, 1)]),
    "softmax": (lambda a: tf.nn.softmax(a), [rand(2, 5)]),
    "tanh": (lambda a: tf.tanh(a), [rand(3, 3)]),
    "reduce_sum_axis": (lambda a: tf.reduce_sum(a, axis=0), [rand(3, 4)]),
    "batch_norm": (lambda x: tf.keras.layers.BatchNormalization()(x, training=True),
                   [rand(5, 3)]),
}


def _op_and_upstream(fn, values, k):
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = fn(*xs)
    op = [e for e in tape._entries if e.outputs[0] is y][0] if y._op is None else y._op
    u = rand(*y.shape)
    J = tape.jacobian(y, xs)
    return op, u, J, xs, y


@pytest.mark.parametrize("name", CASES)
def test_each_column_is_the_column_of_the_jacobian(name):
    fn, values = CASES[name]
    for k in range(len(values)):
        op, u, J, xs, y = _op_and_upstream(fn, values, k)
        op_k = [i for i, t in enumerate(op.inputs) if t is xs[k]]
        if not op_k:
            continue  # e.g. a cast or an inner op in between
        full = np.asarray(J[k]).reshape(u.size, -1)
        for flat in range(xs[k].numpy().size):
            (col,) = local.columns(op, op_k[0], flat, [u])
            js, factors, _, _ = col.entries(col.count)
            dense = np.zeros(u.size)
            dense[js] = factors
            np.testing.assert_allclose(dense, full[:, flat], rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name}, input {k}, entry {flat}")


def test_matmul_provenance_touches_one_row_of_b_not_the_local_jacobian():
    """200×200 @ 200×200: one entry of the gradient is 200 products, never a 40000² matrix."""
    doc = Document(title="mm200")
    doc.add(Node("a", "constant", value=rand(200, 200), watched=True))
    doc.add(Node("b", "constant", value=rand(200, 200)))
    doc.add(Node("c", "op", op="matmul", attrs=dict(catalog.OPS["matmul"].attrs)))
    doc.connect("a", "c")
    doc.connect("b", "c", dst_index=1)
    doc.targets, doc.sources = [Port("c")], [Port("a")]
    s = story.build(doc)
    (step,) = s.of_kind("contribution")
    assert local.cost(step._op, 0) == 200
    p = s.provenance(Port("a"), 200 * 3 + 7, max_terms=5)
    b = doc.nodes["b"].value
    assert p.value == pytest.approx(float(b[7].sum()), rel=1e-4)
    assert p.more == 195 and p.total == pytest.approx(p.value, rel=1e-4)
    assert [t.factor for t in p.terms] == [f"b[7,{c}]" for c in range(5)]


def test_broadcast_of_a_scalar_is_summed_without_enumerating_every_term():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.broadcast_to(x, [2000, 1000])
    s = story.from_tape(tape, y, x, names={"x": x, "y": y})
    (step,) = s.of_kind("contribution")
    assert local.cost(step._op, 0) == 2_000_000 > local.ENUMERATE_LIMIT
    p = s.step_provenance(step, 0, max_terms=3)
    assert p.value == 2_000_000 and len(p.terms) == 3 and p.more == 2_000_000 - 3
    assert p.total == pytest.approx(2_000_000)


def test_a_nonlinear_custom_rule_is_shown_as_the_rule_not_as_products():
    @tf.custom_gradient
    def clip(y):
        return tf.identity(y), lambda dy: tf.clip_by_norm(dy, 0.5)
    v = tf.Variable([3.0, 4.0])
    with tf.GradientTape() as tape:
        out = clip(v * 1.0)
    s = story.from_tape(tape, out, v, output_gradients=tf.constant([3.0, 4.0]),
                        names={"v": v, "out": out})
    step = [st for st in s.of_kind("contribution") if st.op_type == "CustomGradient"][0]
    p = s.step_provenance(step, 1)
    assert p.kind == "rule" and p.value == pytest.approx(0.4)
    assert p.text().endswith("[1] = (clip's grad_fn(grad))[1] = 0.400")   # as the cards write it
    # in the story's format (Story.number_spec): its cards write the upstream [3.000 4.000]
    assert p.numbers() == "grad[1] = 4.000, ‖grad‖ = 5.000"


def _provenances(name):
    """Provenances of the first entries of every step of samples/<name>.json with a sum."""
    from pathlib import Path
    from gradviz.graph import load
    doc = load(Path(__file__).resolve().parents[2] / "samples" / f"{name}.json")
    s = story.build(doc)
    return [s.step_provenance(step, flat) for step in s.steps
            if step.kind in ("contribution", "fan_in") and step.cotangent is not None
            for flat in range(min(int(np.size(step.cotangent)), 4))]


def _written(p):
    return p.text(), p.numbers(), p.says_more()


@pytest.mark.parametrize("name", ["nets_6_attention", "003_matmul_gradient", "nets_2_bad_init"])
def test_a_provenance_writes_its_sum_once_as_it_would_anew(name):
    """text(), numbers() and says_more() share one _printed per provenance: what they write
    from it, asked again and again, is what a fresh provenance (nothing remembered) writes,
    and each printed sum is the one _printing computes."""
    import dataclasses
    provs = [p for p in _provenances(name) if p.terms]
    assert provs
    for p in provs:
        first = _written(p)
        assert _written(p) == first == _written(dataclasses.replace(p))
        assert p._printed() == p._printing()


def test_a_provenance_writes_its_sum_anew_when_what_it_reads_changes():
    """The remembered sum is dropped when a number, a number's text, the cotangent's format,
    the left-out rest or the terms themselves change: it is then what a fresh provenance
    with those inputs writes."""
    import dataclasses
    p = next(p for p in _provenances("003_matmul_gradient") if p.kind == "contribution" and p.terms)
    changes = [
        lambda p: setattr(p.terms[0], "upstream_text", "7.25"),
        lambda p: (setattr(p.terms[0], "local", 6.5), setattr(p.terms[0], "local_text", "6.5")),
        lambda p: setattr(p, "write", lambda x: f"{x:.6f}"),
        lambda p: setattr(p, "value", p.value + 0.5),
        lambda p: (setattr(p, "more", 3), setattr(p, "rest", 0.125)),
        lambda p: p.terms.append(dataclasses.replace(p.terms[0])),
    ]
    for change in changes:
        before = _written(p)
        change(p)
        after = _written(p)
        assert after == _written(dataclasses.replace(p))
        assert after != before
