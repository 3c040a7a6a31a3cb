"""execute._record_on_two is recording.record written out for two tapes and one output
(a Hessian's nested tapes pass there for every op). Run with it and run with record()
in its place, the same programs give both tapes the same entries (the same op types in
the same order), watch the same Variables and give the same gradients: over both tapes
watching accessed Variables or not, the outer tape persistent or not, with a watched
constant, a non-trainable and an integer Variable, an integer output, and ops recorded while the inner tape
stops recording."""
import itertools

import pytest

import gradviz as tf
from gradviz.engine import execute


def _run(watch_outer, watch_inner, persistent):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    fixed = tf.Variable([[1.0, 0.0], [0.0, 1.0]], trainable=False, name="fixed")
    whole = tf.Variable([1, 2], name="whole")
    c = tf.constant([[0.5, 1.0], [2.0, 3.0]])
    with tf.GradientTape(persistent=persistent, watch_accessed_variables=watch_outer) as t1:
        t1.watch(c)
        with tf.GradientTape(watch_accessed_variables=watch_inner) as t2:
            y = v * v
            z = y @ fixed
            w = c + fixed
            q = tf.reduce_sum(z * w)
            whole * 2
            tf.cast(tf.argmax(z, axis=1), tf.float32) + 1.0  # an integer output between
            with t2.stop_recording():
                s = v * 3.0
            s * v
        inner = t2.gradient(q, v)
    outer = t1.gradient(q, [v, c, fixed])
    return {
        "entries": [[e.type for e in t._entries] for t in (t1, t2)],
        "watched": [[x.name for x in t._watched_variables] for t in (t1, t2)],
        "gradients": [None if g is None else g.numpy().tolist() for g in [inner, *outer]],
    }


@pytest.mark.parametrize("watch_outer, watch_inner, persistent",
                         list(itertools.product([True, False], repeat=3)))
def test_two_tapes_record_what_record_does(watch_outer, watch_inner, persistent,
                                           monkeypatch):
    calls = []
    inlined = execute._record_on_two

    def counted(*args):
        calls.append(args[1].type)
        return inlined(*args)
    monkeypatch.setattr(execute, "_record_on_two", counted)
    got = _run(watch_outer, watch_inner, persistent)
    assert calls  # the programs pass through the inlined copy

    def general(recording, opdef, inputs, values, result, attrs):
        execute._record(recording, opdef, inputs, values, [result], attrs)
    monkeypatch.setattr(execute, "_record_on_two", general)
    assert got == _run(watch_outer, watch_inner, persistent)
    assert got["entries"][0]  # the outer tape recorded something in every case
