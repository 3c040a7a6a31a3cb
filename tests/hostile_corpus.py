"""A corpus of hostile and clumsy documents, each a few KB at most, from issue 25's hunt
(21,800 CLI runs, 3,421 documents opened in the app): the shapes of what broke. Used by
tests/test_hostile_corpus.py (the CLI) and tests/app/window/test_hostile_corpus_app.py
(File ▸ Open); CI runs both in about a minute.

`make(name, folder)` writes case `name` into `folder` and returns its path; a few cases
are not files at all (a pipe, a device, a folder, a symlink loop)."""
import json
import os

VALUE = {"dtype": "float32", "shape": [], "data": [1.0]}


def _doc(nodes, edges=(), **rest):
    return {"format": "gradviz", "version": 1, "title": "hostile", "nodes": list(nodes),
            "edges": list(edges), **rest}


def _const(nid, value=VALUE, **rest):
    return {"id": nid, "kind": "constant", "value": value, **rest}


def _chain(n):
    nodes = [_const("x0000")] + [{"id": f"x{i:04d}", "kind": "op", "op": "sin"}
                                 for i in range(1, n + 1)]
    edges = [{"from": f"x{i - 1:04d}", "to": f"x{i:04d}"} for i in range(1, n + 1)]
    return _doc(nodes[::-1], edges, targets=[f"x{n:04d}"], sources=["x0000"])


def _broadcasts(count, shape):
    nodes = [_const("s")] + [{"id": f"b{i}", "kind": "op", "op": "broadcast_to",
                              "attrs": {"shape": shape}} for i in range(count)]
    return _doc(nodes, [{"from": "s", "to": f"b{i}"} for i in range(count)])


def _zero_size():
    empty = {"dtype": "float32", "shape": [0, 3], "data": []}
    return _doc([_const("e", empty, watched=True),
                 {"id": "s", "kind": "op", "op": "reduce_sum"},
                 {"id": "m", "kind": "op", "op": "reduce_max"}],
                [{"from": "e", "to": "s"}, {"from": "e", "to": "m"}],
                targets=["s"], sources=["e"])


DOCUMENTS = {
    "port_999999": _doc([_const("x")] + [{"id": f"y{i}", "kind": "op", "op": "sin"}
                                         for i in range(4)],
                        [{"from": f"x:{999999 - i}", "to": f"y{i}"} for i in range(4)]),
    "broadcast_bomb": _broadcasts(3, [7000, 7000]),
    "chain_1000_backwards": _chain(1000),
    "too_many_nodes": _doc([_const(f"c{i}") for i in range(10_001)]),
    "lesson_6000": {**_doc([_const("x")]), "lesson": "a long lesson. " * 400},
    "title_250": {**_doc([_const("x")]), "title": "t" * 250},
    "label_81": _doc([_const("x", label="l" * 81)]),
    "label_tab": _doc([_const("x", label="tab\there")]),
    "rank_9": _doc([_const("x", {"dtype": "float32", "shape": [1] * 9, "data": [1.0]})]),
    "dims_0_by_1e100": _doc([_const("x", {"dtype": "float32", "shape": [0, 10**100],
                                          "data": []})]),
    "dims_0_by_1e6_x7": _doc([_const("x", {"dtype": "float32", "shape": [0] + [10**6] * 7,
                                           "data": []})]),
    "duplicate_ids": _doc([_const("x"), _const("x")]),
    "cycle": _doc([{"id": "a", "kind": "op", "op": "sin"}, {"id": "b", "kind": "op", "op": "sin"}],
                  [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]),
    "zero_size_tensors": _zero_size(),
    "unknown_op": _doc([{"id": "x", "kind": "op", "op": "__import__"}]),
    "edge_to_missing_node": _doc([_const("x")], [{"from": "x", "to": "ghost"}]),
    "wrong_types": {"format": "gradviz", "version": 1, "nodes": {"x": 1}, "edges": "none"},
}
TEXTS = {
    "empty_file": b"",
    "json_null": b"null",
    "json_list": b"[]",
    "not_utf8": b'{"format": "gradviz", "title": "\xff\xfe"}',
    "bom_then_document": b"\xef\xbb\xbf" + json.dumps(_doc([_const("x")])).encode(),
    "nan_literal": json.dumps(_doc([])).replace('"nodes": []', '"nodes": [NaN]').encode(),
    "huge_integer": ('{"format": "gradviz", "version": ' + "9" * 5000 + "}").encode(),
    "nested_100000": b"[" * 100_000 + b"]" * 100_000,
    "truncated": json.dumps(_chain(20)).encode()[:-40],
}
SPECIAL = ("fifo", "dev_zero", "folder", "symlink_loop")
NAMES = sorted(DOCUMENTS) + sorted(TEXTS) + list(SPECIAL)


def make(name, folder):
    """Write case `name` in `folder`; its path."""
    path = os.path.join(str(folder), f"{name}.gradviz.json")
    if name in DOCUMENTS:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(DOCUMENTS[name], f)
    elif name in TEXTS:
        with open(path, "wb") as f:
            f.write(TEXTS[name])
    elif name == "fifo":
        os.mkfifo(path)
    elif name == "dev_zero":
        return "/dev/zero"
    elif name == "folder":
        os.mkdir(path)
    elif name == "symlink_loop":
        os.symlink(path, path)
    return path
