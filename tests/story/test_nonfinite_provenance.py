"""An entry of a cotangent that is NaN or infinite says what made it, truly, by the
story's names: never "every product is 0" (products that are all 0 add up to 0).

The cases: a product 0 · ∞ (softmax after log, lesson nets_4_softmax_then_log), an
upstream entry that arrives NaN, a local factor infinite at the point, products +∞ and −∞
that cancel to NaN, and finite products whose sum overflows float32."""
import math

import numpy as np

import gradviz as tf
from gradviz import story
from gradviz.bundled import sample
from gradviz.graph import load


def _contribution(s, into):
    return next(st for st in s.of_kind("contribution") if st.tensor_name == into)


def _traced(fn, x, names):
    x = tf.constant(np.asarray(x, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return story.from_tape(tape, y, x, names={"x": x, **names(x, y)})


def test_softmax_then_log_names_the_product_zero_times_infinity():
    s = story.build(load(sample("nets_4_softmax_then_log")))
    step = _contribution(s, "logits")
    assert np.isnan(step.cotangent).all()
    for flat in range(step.cotangent.size):
        text = s.step_provenance(step, flat).text()
        assert "every product" not in text, text
        assert "grad p[0,0] is -inf" in text and "0 · (-∞) is NaN" in text, text
    log = s.step_provenance(_contribution(s, "p"), 0).text()
    assert log.endswith("(the local factor ∂log_p[0,0]/∂p[0,0] is inf: the derivative is "
                        "infinite at these values)"), log


def test_an_upstream_already_nan_is_said_to_be():
    s = _traced(lambda x: tf.reduce_sum(tf.exp(tf.sqrt(x) * 0.0 + x) * x),
                [-1.0, 2.0], lambda x, y: {"loss": y})
    texts = []
    for step in s.of_kind("contribution"):
        for flat, v in enumerate(np.asarray(step.cotangent).reshape(-1)):
            if math.isnan(v):
                texts.append(s.step_provenance(step, flat).text())
    assert texts and all("every product" not in t for t in texts), texts
    assert any("the upstream entry, is already NaN" in t for t in texts), texts


def test_infinities_of_both_signs_cancel_to_nan():
    x = tf.constant(np.array([1.0], np.float32))
    w = tf.constant(np.array([np.inf, -np.inf], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * w)
    s = story.from_tape(tape, y, x, names={"x": x, "w": w, "y": y})
    text = s.step_provenance(_contribution(s, "x"), 0).text()
    assert text.endswith("(the product grad multiply[0]·w[0] is ∞ and grad multiply[1]·w[1] "
                         "is -∞: ∞ - ∞ is NaN)"), text


def test_finite_products_that_overflow_say_so():
    big = np.float32(3e38)
    x = tf.constant(np.array([[1.0]], np.float32))
    w = tf.constant(np.array([[big, big]], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.matmul(x, w))
    s = story.from_tape(tape, y, x, names={"x": x, "w": w, "y": y})
    step = _contribution(s, "x")
    assert math.isinf(float(np.asarray(step.cotangent).reshape(-1)[0]))
    text = s.step_provenance(step, 0).text()
    assert "every product is finite, but their sum is beyond float32's largest number" in text, text


def test_an_infinite_product_among_the_more_is_said_never_every_product_finite():
    """A sum lists its first 12 nonzero products; an infinite one among the 'N more' is the
    cause, so 'every product is finite, but their sum is beyond float32's largest number'
    was false (it looked only at the listed terms)."""
    x = tf.constant(np.ones((1, 20), np.float32))
    w = np.ones((20, 20), np.float32)
    w[0, 15] = np.inf
    w = tf.constant(w)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.matmul(x, w))
    s = story.from_tape(tape, y, x, names={"x": x, "W": w, "y": y})
    p = s.step_provenance(_contribution(s, "x"), 0)
    text = p.text()
    assert p.more == 8 and "W[0,15]" not in text.split(" more")[0], text
    assert "every product is finite" not in text, text
    assert text.endswith("(among the 8 more, the local factor W[0,15] is inf: the derivative "
                         "is infinite at these values)"), text


def test_finite_products_that_overflow_beyond_the_listed_ones_still_say_so():
    """Overflow with more products than are listed: the rest is finite, so the overflow
    sentence stays true and is kept."""
    big = np.float32(3e37)
    x = tf.constant(np.array([[1.0]], np.float32))
    w = tf.constant(np.full((1, 20), big, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.matmul(x, w))
    s = story.from_tape(tape, y, x, names={"x": x, "w": w, "y": y})
    p = s.step_provenance(_contribution(s, "x"), 0)
    assert p.more == 8 and math.isinf(p.value), p.text()
    assert "every product is finite, but their sum is beyond float32's largest number" in p.text()
