"""A corpus of hostile and clumsy documents, each a few KB at most, from issue 25's hunt
(21,800 CLI runs, 3,421 documents opened in the app): the shapes of what broke. Used by
tests/test_hostile_corpus.py (the CLI) and tests/app/window/test_hostile_corpus_app.py
(File ▸ Open); CI runs both in about a minute.

`make(name, folder)` writes case `name` into `folder` and returns its path; a few cases
are not files at all (a pipe, a device, a folder, a symlink loop)."""
import json
import math
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
# -- absurd dimensions: each refused with the place (node, field) and the dimension named,
# never numpy's words ("Maximum allowed dimension exceeded", "array is too big") ----------

def _shaped(shape, data=()):
    return {"dtype": "float32", "shape": shape, "data": list(data)}


def _one_op(op, attrs, value=None):
    x = _const("x", value or {"dtype": "float32", "shape": [2], "data": [1.0, 2.0]})
    return _doc([x, {"id": "r", "kind": "op", "op": op, "attrs": attrs}], [{"from": "x", "to": "r"}])


ABSURD = {  # name: (document, words the one-line refusal must hold)
    "dims_0_by_1e100": (_doc([_const("x", _shaped([0, 10**100]))]),
                        "node 'x' value: dimension 1 of the shape is an integer of 101 digits"),
    "dims_0_by_1e6_x7": (_doc([_const("x", _shaped([0] + [10**6] * 7))]),
                         "node 'x' value: shape [0, 1000000, 1000000, 1000000, 1000000, 1000000, "
                         "1000000, 1000000] is empty, but its other dimensions multiply to 1e42"),
    "dims_negative": (_doc([_const("x", _shaped([-1, 3]))]),
                      "node 'x' value: shape [-1, 3]: dimension 0 is -1; a dimension cannot be "
                      "negative"),
    "dims_float": (_doc([_const("x", _shaped([2.0, 1], [0, 0]))]),
                   "node 'x' value: shape [2.0, 1]: dimension 0 is 2.0, not an integer"),
    "dims_bool": (_doc([_const("x", _shaped([True], [0]))]),
                  "node 'x' value: shape [True]: dimension 0 is True, not an integer"),
    "dims_weight": (_doc([_const("x", _shaped([0, 3])),
                          {"id": "d", "kind": "layer", "op": "Dense", "attrs": {"units": 2},
                           "weights": {"kernel": _shaped([0, 10**30]),
                                       "bias": _shaped([2], [0, 0])}}],
                         [{"from": "x", "to": "d"}]),
                    "node 'd' weight kernel: dimension 1 of the shape is an integer of 31 digits"),
    "dims_output_gradients": ({**_doc([_const("x", _shaped([0, 3]))]),
                               "output_gradients": {"x": _shaped([0, 10**40])}},
                              "output_gradients['x']: dimension 1 of the shape is an integer"),
    "dims_broadcast_0_by_1e6_x7": (_one_op("broadcast_to", {"shape": [0] + [10**6] * 7},
                                           _shaped([1], [1.0])),
                                   "node 'r': the output's shape [0, 1000000, 1000000, 1000000, "
                                   "1000000, 1000000, 1000000, 1000000] is empty, but"),
    "dims_reshape_1e100": (_one_op("reshape", {"shape": [10**100, 0]}),
                           "node 'r': attribute 'shape': an entry is an integer of 101 digits"),
    "dims_pad_1e100": (_one_op("pad", {"paddings": [[10**100, 0]]}),
                       "node 'r': attribute 'paddings': an entry is an integer of 101 digits"),
    "dims_gather_1e100": (_one_op("gather", {"indices": [10**100]}),
                          "node 'r': attribute 'indices': an entry is an integer of 101 digits"),
    "dims_strides_1e100": (_one_op("nn.max_pool2d", {"strides": [10**100, 1]},
                                   _shaped([1, 2, 2, 1], [0] * 4)),
                           "node 'r': attribute 'strides': an entry is an integer of 101 digits"),
    "dims_axis_1e100": (_one_op("expand_dims", {"axis": 10**100}),
                        "node 'r': axis (an integer of 101 digits) is out of range"),
    "dims_gather_negative": (_one_op("gather", {"indices": [0, -1]}),
                             "node 'r': gather along axis 0: indices[1] = -1 is not in [0, 2)"),
    "dims_softmax_axis": (_one_op("nn.softmax", {"axis": 1}),
                          "node 'r': axis 1 is out of range for a tensor of rank 1"),
}


# -- zero-size tensors: every op of the catalog with an empty input where the op allows it --

E = (0, 3)


def _t(shape, dtype="float32"):
    fill = 0.5 if dtype.startswith("float") else 1
    return {"dtype": dtype, "shape": list(shape), "data": [fill] * math.prod(shape)}


def _variants():
    """op -> [(variant, input tensors, attrs)]."""
    v = {}
    for op in ("add", "subtract", "multiply", "divide", "pow", "maximum", "minimum"):
        v[op] = [("", [_t(E), _t((3,))], {})]
    for op in ("negative", "exp", "log", "sin", "cos", "sqrt", "square", "abs", "tanh",
               "reciprocal", "nn.relu", "nn.sigmoid", "nn.elu", "nn.softplus", "stop_gradient",
               "identity", "clip_by_norm", "clip_by_value", "nn.dropout"):
        v[op] = [("", [_t(E)], {})]
    for op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
               "reduce_logsumexp", "norm"):
        v[op] = [("all", [_t(E)], {}), ("axis0", [_t(E)], {"axis": 0}),
                 ("axis1", [_t(E)], {"axis": 1})]
    for op in ("math.argmax", "math.argmin"):   # over the empty axis TF refuses: see REFUSED
        v[op] = [("axis1", [_t(E)], {"axis": 1}), ("axis0", [_t(E)], {"axis": 0})]
    v.update({
        "cast": [("", [_t(E)], {"dtype": "float64"})],
        "add_n": [("", [_t(E), _t(E)], {})],
        "matmul": [("rows", [_t((0, 3)), _t((3, 2))], {}), ("inner", [_t((2, 0)), _t((0, 3))], {})],
        "einsum": [("inner", [_t((2, 0)), _t((0, 3))], {"equation": "ij,jk->ik"})],
        "linalg.solve": [("", [_t((0, 0)), _t((0, 2))], {})],
        "linalg.inv": [("", [_t((0, 0))], {})],
        "reshape": [("", [_t(E)], {"shape": [3, -1]}), ("flat", [_t(E)], {"shape": [-1]})],
        "transpose": [("", [_t(E)], {})],
        "expand_dims": [("", [_t(E)], {"axis": 1})],
        "squeeze": [("", [_t((0, 1))], {"axis": 1})],
        "broadcast_to": [("", [_t((3,))], {"shape": [0, 3]}),
                         ("empty", [_t(E)], {"shape": [2, 0, 3]})],
        "tile": [("", [_t(E)], {"multiples": [2, 1]}), ("zero", [_t((2, 3))], {"multiples": [0, 1]})],
        "pad": [("", [_t(E)], {"paddings": [[1, 1], [0, 0]]})],
        "concat": [("", [_t(E), _t((2, 3))], {"axis": 0})],
        "stack": [("", [_t(E), _t(E)], {"axis": 0})],
        "split": [("", [_t((0, 4))], {"num": 2, "axis": 1})],
        "slice": [("", [_t((2, 3))], {"begin": [1, 0], "size": [0, -1]})],
        "getitem": [("", [_t((2, 3))], {"index": [[1, 1, 1]]})],
        "gather": [("", [_t(E)], {"indices": [], "axis": 0}),
                   ("cols", [_t(E)], {"indices": [0, 2], "axis": 1})],
        "nn.softmax": [("rows", [_t(E)], {}), ("cols", [_t((3, 0))], {}),
                       ("axis0", [_t(E)], {"axis": 0})],
        "nn.log_softmax": [("rows", [_t(E)], {}), ("cols", [_t((3, 0))], {})],
        "nn.softmax_cross_entropy_with_logits": [("", [_t(E), _t(E)], {})],
        "nn.sparse_softmax_cross_entropy_with_logits": [("", [_t((0,), "int32"), _t(E)], {})],
        "nn.embedding_lookup": [("", [_t((3, 2)), _t((0,), "int32")], {})],
        "losses.MeanSquaredError": [("", [_t(E), _t(E)], {})],
        "losses.CategoricalCrossentropy": [("", [_t(E), _t(E)], {})],
        "losses.SparseCategoricalCrossentropy": [("", [_t((0,), "int32"), _t(E)], {})],
        "nn.conv2d": [("", [_t((0, 4, 4, 1)), _t((2, 2, 1, 1))], {})],
        "nn.conv1d": [("", [_t((0, 4, 1)), _t((2, 1, 1))], {})],
        "nn.max_pool2d": [("", [_t((0, 4, 4, 1))], {})],
        "nn.avg_pool2d": [("", [_t((0, 4, 4, 1))], {})],
    })
    return v


ZERO_LAYERS = {
    "Dense": ([_t(E)], {"kernel": _t((3, 2)), "bias": _t((2,))}, {"units": 2}),
    "LayerNormalization": ([_t(E)], {"gamma": _t((3,)), "beta": _t((3,))}, {}),
    "BatchNormalization": ([_t(E)], {w: _t((3,)) for w in ("gamma", "beta", "moving_mean",
                                                          "moving_variance")}, {}),
    "Flatten": ([_t((0, 2, 2))], {}, {}),
    "Conv2D": ([_t((0, 4, 4, 1))], {"kernel": _t((3, 3, 1, 1)), "bias": _t((1,))}, {}),
    "Embedding": ([_t((0,), "int32")], {"embeddings": _t((4, 2))},
                  {"input_dim": 4, "output_dim": 2}),
}


def _zero_doc(inputs, node, extra=()):
    """Constants c0, c1, ... into `node` (id "op"), whose output a reduce_sum "loss" sums:
    the target; the float constants are the sources; a Jacobian of op and a Hessian of
    loss w.r.t. c0 are asked for."""
    nodes, edges, sources = [], [], []
    for i, value in enumerate(inputs):
        is_float = value["dtype"].startswith("float")
        nodes.append({"id": f"c{i}", "kind": "constant", "value": value, "watched": is_float})
        edges.append({"from": f"c{i}", "to": f"{node['id']}:{i}" if i else node["id"]})
        if is_float:
            sources.append(f"c{i}")
    nodes += [node, *extra, {"id": "loss", "kind": "op", "op": "reduce_sum"}]
    edges.append({"from": "op", "to": "loss"})
    studies = {"jacobian": {"target": "op", "source": sources[0]},
               "hessian": {"target": "loss", "source": sources[0]}} if sources else {}
    return _doc(nodes, edges, title="zero-size", targets=["loss"], sources=sources,
                studies=studies)


def _zero_size_documents():
    out = {}
    for op, variants in _variants().items():
        for variant, inputs, attrs in variants:
            name = f"zero_{op}" + (f"_{variant}" if variant else "")
            out[name] = _zero_doc(inputs, {"id": "op", "kind": "op", "op": op, "attrs": attrs})
    for layer, (inputs, weights, attrs) in ZERO_LAYERS.items():
        out[f"zero_layer_{layer}"] = _zero_doc(inputs, {"id": "op", "kind": "layer", "op": layer,
                                                        "weights": weights, "attrs": attrs})
    # Every study of a batch of none: batch_jacobian (0, 2, 3), the higher derivatives.
    out["zero_layer_Dense"]["studies"].update({"batch_jacobian": {"target": "op", "source": "c0"},
                                               "higher_order": {"order": 3}})
    for rule in ("clip_by_norm", "scale", "zero", "identity"):
        out[f"zero_custom_{rule}"] = _zero_doc([_t(E)], {"id": "op", "kind": "custom_gradient",
                                                         "op": rule})
    # d sum(square(c0)) / d c0 inside the tape: the gradient op on an empty source.
    g = _zero_doc([_t(E)], {"id": "sq", "kind": "op", "op": "square"},
                  [{"id": "op", "kind": "op", "op": "gradient"}])
    g["edges"][1:1] = [{"from": "sq", "to": "op"}, {"from": "c0", "to": "op:1"}]
    out["zero_gradient"] = g
    return out


ZERO_SIZE = _zero_size_documents()
# Zero-size documents TF refuses too (argmax over an empty axis: "Reduction axis 0 is
# empty"): each is refused in words, never run.
REFUSED = {"zero_math.argmax_axis0", "zero_math.argmin_axis0"}


SPECIAL = ("fifo", "dev_zero", "folder", "symlink_loop")
DOCUMENTS.update({name: doc for name, (doc, _) in ABSURD.items()})
NAMES = sorted(DOCUMENTS) + sorted(TEXTS) + list(SPECIAL)
DOCUMENTS.update(ZERO_SIZE)


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
