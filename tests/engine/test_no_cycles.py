"""Recording makes no reference cycles: a tape's tensors and arrays are freed as soon as
the last reference goes, without waiting for the cyclic garbage collector.

A tensor refers to the op that made it only weakly (Tensor._op); a strong reference
back would make one cycle per recorded op, and with it intermediate arrays that stay
alive until a collection and collections that take a large share of a long tape's time.
"""
import gc
import weakref

import numpy as np
import pytest

import gradviz as tf

pytestmark = pytest.mark.cpu_independent("which objects are freed, and when")


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def test_a_dropped_tape_frees_its_tensors_without_the_gc(no_gc):
    x = tf.constant(np.linspace(0.0, 1.0, 5, dtype=np.float32))
    v = tf.Variable([1.0, 2.0, 3.0, 4.0, 5.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = tf.sin(x) * 2.0 + v
        y = tf.reduce_sum(tf.nn.relu(h) ** 2)
    gx, gv = tape.gradient(y, [x, v])
    refs = [weakref.ref(t) for t in (h, y)]
    op_ref = weakref.ref(y.op)
    del tape, h, y
    assert all(r() is None for r in refs)
    assert op_ref() is None
    assert gx.shape == (5,) and gv.shape == (5,)


def test_op_stays_available_while_its_tape_lives():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(a)
        c = tf.matmul(a, a)
    assert c.op.type == "MatMul"
    assert c.op.outputs[0] is c
    assert c.op.inputs[0] is a
    del g
    gc.collect()
    with pytest.raises(AttributeError):
        c.op


def test_the_live_tape_registry_forgets_dead_tapes_and_keeps_live_ones():
    """Thousands of short-lived tapes (a training loop) leave a registry of about the
    live ones' size, and a tape made among them still answers `tensor.op`.
    Counted from a registry pruned of dead tapes, beyond the tapes alive when it starts: in
    the whole suite earlier tests' kept Evaluations hold their tapes (17 after
    tests/app/training), and a registry is pruned when it outgrows twice what it held at
    its last pruning, so CI's run found 149 refs against a bound written for none."""
    from gradviz.engine.tensor import _live_tapes
    gc.collect()
    _live_tapes._prune()
    before = len(_live_tapes.alive())
    a = tf.constant([1.0, 2.0])
    with tf.GradientTape() as kept:
        kept.watch(a)
        b = a * 3.0
    for _ in range(1000):
        with tf.GradientTape() as t:
            t.watch(a)
            a * 2.0
    del t
    assert b.op.type == "Mul" and b.op.inputs[0] is a
    assert len(_live_tapes._refs) <= 130 + 2 * before
    assert kept in _live_tapes.alive()
