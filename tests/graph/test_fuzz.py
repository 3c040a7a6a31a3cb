"""Mutated sample files give a clean DocumentError or a document that evaluates (or
reports problems): never another exception. Mutations reach anywhere in the file, and
aim at attribute values, labels and port strings with hostile values."""
import json
import os

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from gradviz import graph
from gradviz.graph import DocumentError
from gradviz.graph.build import build

from graph_samples import SAMPLE_FILES

MAX_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 200))  # raise it for a longer hunt
SAMPLES = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in SAMPLE_FILES}

# Text that has broken something before: control characters, lone surrogates, digits that
# are not ASCII, very long strings.
hostile_text = st.one_of(
    st.text(max_size=8),
    st.text(alphabet=st.characters(codec=None), max_size=8),
    st.sampled_from(["\x00", "\ud800", "a\u0007b", "</text>", "x" * 20000, "\u0661",
                     "\n\t", "\ufffe"]))
ports = st.one_of(
    st.sampled_from(["a", "x", "c:1", "y:0", "layer:2", "x:\u0661", "x: 1", "x:-1", "x:",
                     ":1", "x:99999999999", "x:1:2"]),
    st.builds(lambda n, i: f"{n}:{i}", st.sampled_from(["a", "b", "x", "y", "layer"]),
              st.text(max_size=3)))
numbers = st.one_of(st.sampled_from([0, -1, 1, 2, 3, 77, 10**9, 10**400, 0.5, -0.0, 1e308]),
                    st.integers(-10, 10))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                    st.floats(allow_nan=False), hostile_text, ports, numbers,
                    st.sampled_from(["nan", "...", "float32", "ij,jk->ik", "i,j,k,l"]))
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


ATTR_VALUES = st.one_of(numbers, st.lists(st.integers(-3, 3), max_size=4),
                       st.lists(numbers, max_size=4), hostile_text, st.none(), st.booleans(),
                       st.lists(st.one_of(numbers, st.just("..."), st.lists(
                           st.one_of(st.none(), numbers), min_size=3, max_size=3)), max_size=3))


def mutate(doc, data):
    """One random change: anywhere in the file, or aimed at an attribute, a label or a port."""
    nodes = doc.get("nodes") if isinstance(doc.get("nodes"), list) else []
    nodes = [n for n in nodes if isinstance(n, dict)]
    target = data.draw(st.sampled_from(["anywhere", "attr", "label", "port"]))
    with_attrs = [n for n in nodes if isinstance(n.get("attrs"), dict) and n["attrs"]]
    if target == "attr" and with_attrs:
        attrs = data.draw(st.sampled_from(with_attrs))["attrs"]
        attrs[data.draw(st.sampled_from(sorted(attrs)))] = data.draw(ATTR_VALUES)
        return
    if target == "label" and nodes:
        data.draw(st.sampled_from(nodes))["label"] = data.draw(hostile_text)
        return
    if target == "port" and isinstance(doc.get("edges"), list) and doc["edges"]:
        edge = data.draw(st.sampled_from(doc["edges"]))
        if isinstance(edge, dict):
            edge[data.draw(st.sampled_from(["from", "to"]))] = data.draw(ports)
            return
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
    text2.encode("utf-8")  # whatever loads can be saved
    assert graph.dumps(graph.loads(text2)) == text2
    built = build(loaded)
    for port, t in built.tensors.items():  # the plan knew every shape before running
        assert built.plan.shapes[port] == tuple(t.shape), port
    with np.errstate(all="raise"):  # NaN is reported in words, numpy stays quiet
        ev = graph.evaluate(loaded)
    assert ev.errors == [] or all(p.where == "gradient" for p in ev.errors)
    for p in ev.problems:
        assert p.message and "\n" not in str(p)
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
