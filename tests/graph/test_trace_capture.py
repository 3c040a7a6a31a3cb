"""`trace` in the graph layer (issue 25 §3): names in linear time and always loadable, a custom
gradient's recognised rule checked on more upstream values than the probes that found it."""
import textwrap

import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import capture
from gradviz.graph.cli_commands import trace_command
from gradviz.graph.ports import ID


class _CountingSet(set):
    """A set that counts membership probes."""

    probes = 0

    def __contains__(self, item):
        _CountingSet.probes += 1
        return set.__contains__(self, item)


def test_naming_n_nodes_of_one_stem_probes_linearly(monkeypatch):
    _CountingSet.probes = 0
    name = capture._Namer()
    name.used = _CountingSet()
    n = 3000
    got = [name("mul") for _ in range(n)]
    # TF's unique names (issue 20 §2: 'sum2' was not TF's 'sum_1'), as a fresh canvas node's
    assert len(set(got)) == n and got[:3] == ["mul", "mul_1", "mul_2"] and got[-1] == f"mul_{n - 1}"
    assert _CountingSet.probes <= 3 * n   # probing from 1 each time made n²/2 = 4.5 million


def test_naming_skips_names_taken_by_another_stem():
    """TF's rule (tf.Graph.unique_name): sum, sum_1, sum_2; a name ending in _N takes its own
    suffix (const_3 is the constant 3: its second is const_3_1, never const_1)."""
    name = capture._Namer()
    assert [name("x"), name("x_1"), name("x"), name("x")] == ["x", "x_1", "x_2", "x_3"]
    assert [name("c_3"), name("c_3")] == ["c_3", "c_3_1"]
    assert [name("sum"), name("sum"), name("sum")] == ["sum", "sum_1", "sum_2"]


def _script(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


LONG_A = "a" * 70 + "_first"
LONG_B = "a" * 70 + "_second"
WEIGHT = "w" * 90


def test_names_longer_than_an_id_trace_to_a_document_that_loads(tmp_path):
    script = _script(tmp_path, f"""
        import gradviz as tf
        {LONG_A} = tf.Variable([1.0, 2.0])
        {LONG_B} = tf.Variable([3.0, 4.0], name={WEIGHT!r})
        größe = tf.Variable(2.0)
        @tf.custom_gradient
        def {"f" * 100}(y):
          return tf.identity(y), lambda dy: dy * 3.0
        with tf.GradientTape() as t:
          product = {LONG_A} * {LONG_B} * größe
          out = tf.reduce_sum({"f" * 100}(product))
        print(t.gradient(out, [{LONG_A}, {LONG_B}, größe]))
    """)
    out = tmp_path / "doc.json"
    code, message = trace_command(str(script), str(out))
    assert code == 0, message
    doc = graph.load(out)   # strict: every id and label within the format's limits
    assert all(ID.fullmatch(nid) for nid in doc.nodes)
    labels = {n.label or n.id for n in doc.nodes.values()}
    assert LONG_A in labels and LONG_B not in labels and "größe" in labels
    assert WEIGHT[:80] in labels   # the variable's own name wins; cut to the label limit
    assert "f" * 80 in labels
    grads = graph.evaluate(doc).gradients
    np.testing.assert_allclose(grads[doc.sources[0]], [3.0 * 3 * 2, 3.0 * 4 * 2])
    np.testing.assert_allclose(grads[doc.sources[2]], 3.0 * (1 * 3 + 2 * 4))


def test_two_long_names_alike_in_their_first_64_characters_stay_apart():
    name = capture._Namer()
    a, b = name(LONG_A), name(LONG_B)
    assert a != b and ID.fullmatch(a) and ID.fullmatch(b)
    assert name.full[a] == LONG_A and name.full[b] == LONG_B


IMPOSTORS = {
    # positive upstreams see 2 * dy: recorded as "scale 2" before; the script's -x gets 0
    "relu_twice": "2.0 * tf.nn.relu(dy)",
    # positive upstreams see 0: recorded as "zero" before
    "negative_part": "tf.nn.relu(-dy)",
    # the same, by a Python branch on the upstream's sign
    "branchy": "dy * 2.0 if float(tf.reduce_sum(dy)) > 0 else dy * 0.0",
}


@pytest.mark.parametrize("fn", sorted(IMPOSTORS))
def test_a_custom_gradient_that_only_looks_declarative_on_positive_upstreams_is_refused(
        tmp_path, fn):
    script = _script(tmp_path, f"""
        import gradviz as tf
        @tf.custom_gradient
        def {fn}(y):
          return tf.identity(y), lambda dy: {IMPOSTORS[fn]}
        x = tf.Variable(3.0)
        with tf.GradientTape() as t:
          out = -{fn}(x)
        print("script gradient", float(t.gradient(out, x)))
    """, name=f"{fn}.py")
    out = tmp_path / "out.json"
    code, message = trace_command(str(script), str(out))
    assert code == 2 and "\n" not in message, message
    assert f"the custom gradient {fn} cannot be saved in a document" in message
    assert "upstream" in message and "-1" in message
    assert not out.exists()


def test_a_declarative_rule_still_traces_after_the_wider_check(tmp_path):
    script = _script(tmp_path, """
        import gradviz as tf
        @tf.custom_gradient
        def clip(y):
          return tf.identity(y), lambda dy: tf.clip_by_norm(dy, 0.5)
        @tf.custom_gradient
        def halve(y):
          return tf.identity(y), lambda dy: dy * 0.5
        x = tf.Variable([3.0, -4.0])
        with tf.GradientTape() as t:
          out = tf.reduce_sum(-halve(clip(x * x)))
        print(t.gradient(out, x))
    """)
    out = tmp_path / "out.json"
    code, message = trace_command(str(script), str(out))
    assert code == 0, message
    doc = graph.load(out)
    rules = sorted(n.op for n in doc.nodes.values() if n.kind == "custom_gradient")
    assert rules == ["clip_by_norm", "scale"]
    upstream = np.array([-0.5, -0.5])   # -1 through halve
    upstream *= 0.5 / np.linalg.norm(upstream)   # through clip
    np.testing.assert_allclose(graph.evaluate(doc).gradients[doc.sources[0]],
                               upstream * 2 * np.array([3.0, -4.0]), rtol=1e-6)


def test_a_traced_script_shows_the_last_call_of_a_compiled_function(tmp_path):
    """tf.function's replays make no gradient call: trace runs functions eagerly, so the
    document is the last step's, not the first's."""
    from gradviz.graph.tracing import trace_script
    import gradviz as tf
    path = _script(tmp_path, """
        import gradviz as tf
        w = tf.Variable([1.0, 2.0])

        @tf.function
        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w)
            g = tape.gradient(loss, w)
            w.assign_sub(0.25 * g)
            return loss

        for _ in range(3):
            step()
    """)
    doc = trace_script(path)
    values = [np.asarray(n.value) for n in doc.nodes.values() if n.value is not None]
    # w after two steps: w · 0.5² = [0.25, 0.5]; the first step would show [1, 2]
    assert any(v.shape == (2,) and np.allclose(v, [0.25, 0.5]) for v in values), values
    assert not tf.config.functions_run_eagerly()
