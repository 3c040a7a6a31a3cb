"""Mutated sample files give a clean DocumentError or a document that evaluates (or
reports problems): never another exception."""
import json
import os

from hypothesis import HealthCheck, given, settings, strategies as st

from gradviz import graph
from gradviz.graph import DocumentError

from graph_samples import SAMPLE_FILES

MAX_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 200))  # raise it for a longer hunt
SAMPLES = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in SAMPLE_FILES}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                    st.floats(allow_nan=False), st.text(max_size=8),
                    st.sampled_from(["a", "x", "c:1", "y:0", "layer:2", "nan", "...", "float32"]))
values = st.recursive(scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=6), kids, max_size=3)),
    max_leaves=8)


def paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def ids(obj):
    return sorted({v for p in paths(obj) if p and p[-1] == "id"
                   for v in [get(obj, p)] if isinstance(v, str)})


def get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def mutate(doc, data):
    path = data.draw(st.sampled_from(list(paths(doc))[1:]))
    parent, key = get(doc, path[:-1]), path[-1]
    action = data.draw(st.sampled_from(["delete", "replace", "swap_id", "number", "duplicate"]))
    if action == "delete":
        del parent[key]
    elif action == "replace":
        parent[key] = data.draw(values)
    elif action == "swap_id" and ids(doc):
        parent[key] = data.draw(st.sampled_from(ids(doc)))
    elif action == "number":
        parent[key] = data.draw(st.sampled_from([0, -1, 1, 2, 3, 10**9, 0.5, -0.0, 1e308]))
    elif action == "duplicate" and isinstance(parent, list):
        parent.append(json.loads(json.dumps(parent[key])))


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_samples_fail_cleanly_or_run(name, data):
    doc = json.loads(json.dumps(SAMPLES[name]))
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(doc, data)
    text = json.dumps(doc)
    try:
        loaded = graph.loads(text)
    except DocumentError as e:
        assert str(e) and "\n" not in str(e)
        return
    assert graph.validate(loaded) == []
    text2 = graph.dumps(loaded)
    assert graph.dumps(graph.loads(text2)) == text2
    try:
        ev = graph.evaluate(loaded)
    except DocumentError:
        return
    for p in ev.problems:
        assert p.message
    try:
        graph.run_studies(loaded)
    except DocumentError as e:
        assert "\n" not in str(e)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_are_a_clean_error(blob):
    try:
        graph.loads(blob.decode("utf-8", errors="replace"))
    except DocumentError:
        pass
