"""Capture: what a GradientTape recorded becomes a document.

`from_tape` keeps the recorded ops that lie on a path to a target (a custom
gradient's own forward ops, which TF also records, lie off it), names each op by its
catalog entry and folds what the file format holds as one node: a Dense or Conv2D
layer (MatMul or Conv2D + bias + activation on 'name/kernel' and 'name/bias'
variables; a Flatten layer records one Reshape and stays a reshape node), a
BatchNormalization layer in training mode, a softmax along any axis, a custom gradient
whose rule is one of the declarative rules. The tensors the tape did not produce become
constant or variable nodes holding the values the ops saw.

`tracing.trace_script` runs a script and captures one of its `tape.gradient(...)` calls
through `from_tape`; capture_custom.py recognises a custom gradient's rule.
"""
from dataclasses import dataclass, field

import numpy as np

import gradviz as gv
from gradviz.engine.tensor import Tensor

from . import catalog
from .document import (CONSTANT, CUSTOM_GRADIENT, OP, VARIABLE, Document, Edge, Node,
                       Port, TapeSettings, clean_text, fresh)
from .capture_layers import (_ACTIVATIONS, batchnorm_node, dense_node, embedding_node,
                             layernorm_folds, layernorm_node)
from .capture_custom import declarative_rule
from .capture_losses import keras_loss
from .errors import DocumentError
from .fileformat import too_many_nodes
from .ports import ID, ID_LENGTH

_BY_ENGINE = {spec.engine: spec for spec in catalog.OPS.values() if spec.engine}
_BY_ENGINE.update({t: catalog.OPS[name] for t, name in (
    ("Softmax", "nn.softmax"), ("LogSoftmax", "nn.log_softmax"), ("Cast", "cast"),
    ("Einsum", "einsum"), ("GatherV2", "gather"))})
# Engine ops taking (logits, labels), as TF's kernels; their nodes take (labels, logits), as
# TF's Python functions.
_LABELS_FIRST = {"SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits"}
_STEMS = {"multiply": "mul", "subtract": "sub", "divide": "div", "negative": "neg",
          "nn.softmax_cross_entropy_with_logits": "xent",
          "nn.sparse_softmax_cross_entropy_with_logits": "sparse_xent",
          "math.argmax": "argmax", "math.argmin": "argmin", "nn.embedding_lookup": "lookup"}


@dataclass
class InnerGradient:
    """A `tape.gradient` computed while the captured tape recorded its ops."""

    target: object
    sources: list
    results: list
    ops: set                      # ids of the ops the captured tape recorded during the call
    given_seed: bool = False      # called with output_gradients


@dataclass
class Recording:
    """What a traced run noticed beyond the tape's own entries."""

    inner: list = field(default_factory=list)      # [InnerGradient]
    stopped: list = field(default_factory=list)    # ops run inside tape.stop_recording()
    names: dict = field(default_factory=dict)      # tensor id -> the script's name for it
    layers: dict = field(default_factory=dict)     # variable id -> (keras layer, script name)
    watched: set | None = None                     # ids passed to tape.watch (None: unknown)


def _plain(v):
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _attrs(spec, op):
    """Catalog attributes from the engine's recorded attributes."""
    attrs, optype = op.attrs, op.type
    if spec.name == "getitem":
        index = []
        for k in attrs["key"]:
            if isinstance(k, slice):
                index.append([k.start, k.stop, k.step])
            elif k is Ellipsis:
                index.append("...")
            elif isinstance(k, (int, np.integer)):
                index.append(int(k))
            else:
                raise DocumentError(f"cannot capture the index {k!r} (new axes are not supported)",
                                    where=optype)
        return {"index": index}
    if spec.name == "split":
        sizes = list(attrs["sizes"])
        if len(set(sizes)) != 1:
            raise DocumentError("cannot capture a split into unequal parts", where=optype)
        return {"num": len(sizes), "axis": int(attrs["axis"])}
    if spec.name in ("nn.softmax", "nn.log_softmax"):
        return {"axis": -1}  # the engine op works on the last axis (see _softmax_axis)
    if spec.name == "cast":
        return {"dtype": np.dtype(attrs["dtype"]).name}
    if spec.name == "clip_by_value":
        bounds = [np.asarray(v) for v in op._in_values[1:]]
        if any(b.ndim for b in bounds):
            raise DocumentError("cannot capture clip_by_value with tensor bounds: a "
                                "clip_by_value node holds one number for each bound",
                                where=catalog.api_name(op.type))
        # float32 bounds as their shortest text (0.2, not 0.20000000298023224)
        lo, hi = (float(str(b)) if b.dtype == np.float32 else float(b) for b in bounds)
        return {"clip_value_min": lo, "clip_value_max": hi}
    if spec.name == "nn.dropout":
        shape = list(attrs["noise_shape"])
        return {"rate": float(attrs["rate"]), "seed": int(attrs["seed"]),
                "noise_shape": None if shape == list(np.shape(op._in_values[0])) else shape}
    if spec.name == "gather":
        return {"indices": [int(i) for i in np.asarray(op._in_values[1]).reshape(-1)],
                "axis": int(attrs["axis"])}
    if spec.name in ("nn.conv2d", "nn.max_pool2d", "nn.avg_pool2d"):
        return _window_attrs(spec, attrs)
    out = {}
    for key in spec.attrs:
        if key in attrs:
            v = _plain(attrs[key])
            out[key] = float(v) if spec.kinds.get(key) == "float" else v
    if spec.group == "reduce" and isinstance(out.get("axis"), list):
        ndim = np.ndim(op._in_values[0])
        if sorted(a % ndim for a in out["axis"]) == list(range(ndim)):
            out["axis"] = None  # every axis: the catalog's default, as a script writes it
    return out


def _window_attrs(spec, attrs):
    """TF's [1, h, w, 1] forms and flat explicit_paddings -> the catalog's [h, w] and rows."""
    out = {key: [int(v) for v in attrs[key][1:3]] for key in ("ksize", "strides", "dilations")
           if key in spec.attrs}
    out["padding"] = attrs["padding"]
    if "explicit_paddings" in spec.attrs:
        flat = [int(v) for v in attrs.get("explicit_paddings") or (0,) * 8]
        out["explicit_paddings"] = [flat[i:i + 2] for i in range(0, 8, 2)]
    return out


class _Namer:
    """Unique node ids from the script's names as TF makes op names unique: mul, mul_1,
    mul_2 … (document.fresh), in linear time (each stem remembers where its count stopped). A name the id format cannot hold (longer than an
    id, or not ASCII) is shortened or spelled in ASCII; `full` keeps it for the label."""

    def __init__(self):
        self.used = set()
        self.next = {}      # stem -> the next suffix to try
        self.full = {}      # id -> the name it stands for, where the id had to differ

    def __call__(self, stem):
        given = stem or "n"
        stem = "".join(c if (c.isascii() and c.isalnum()) or c in "_.-" else "_" for c in given)
        if not stem[0].isalpha() and stem[0] != "_":
            stem = "n_" + stem
        stem = stem[:ID_LENGTH]
        name = fresh(stem, self.used, self.next, count_on=False)
        while len(name) > ID_LENGTH:       # a long name's suffix: shorten the name to hold it
            stem = stem[:ID_LENGTH - (len(name) - len(stem))]
            name = fresh(stem, self.used, self.next, count_on=False)
        self.used.add(name)
        if name != given and ID.fullmatch(given) is None:
            self.full[name] = given
        return name

    def label(self, node_id):
        """The label of a node whose id had to shorten or respell its name ('' otherwise)."""
        full = self.full.get(node_id)
        return clean_text("label", full) if full else ""


def script_names(namespace):
    """tensor id -> the script's global name; variable id -> the keras layer holding it."""
    names, layers = {}, {}
    for key, value in namespace.items():
        if key.startswith("_"):
            continue
        if isinstance(value, Tensor):
            names.setdefault(value._id, key)
        elif isinstance(value, gv.keras.layers.Layer):
            for v in value.variables:
                layers.setdefault(v._id, (value, key))
    return names, layers


def _const_stem(value):
    if np.ndim(value) != 0:
        return "const"
    text = f"{float(value):g}".replace("-", "m").replace(".", "_").replace("+", "")
    return f"const_{text}"


def literal_text(value):
    """A scalar constant as the script wrote it ('3', '0.5', '1e-08'; a float32 by its
    shortest text, 0.1 not 0.100000001): the name of a literal the script gave no name, so a
    rule card reads 'grad · 3', never the internal 'const_3'. '' for a tensor."""
    if np.ndim(value) != 0 or np.asarray(value).dtype.kind not in "biuf":
        return ""
    v = np.asarray(value)[()]
    if v.dtype.kind == "b":
        return str(bool(v))
    if v.dtype.kind in "iu":
        return str(int(v))
    if not np.isfinite(v):
        return ""
    if v == 0 or 1e-4 <= abs(v) < 1e6:
        return np.format_float_positional(v, trim="-")
    return np.format_float_scientific(v, trim="-")


# -- which recorded ops belong in the document -----------------------------------------------

@dataclass
class _Item:
    """One future node: an op, a fold of ops (a layer, a softmax), or an inner gradient."""

    kind: str                      # 'op' | 'dense' | 'batchnorm' | 'softmax' | 'gradient'
    ops: list
    inputs: list                   # tensors feeding the node, in slot order
    outputs: list                  # tensors the node's ports 0.. produce
    stopped: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def key(self):
        return min(op._id for op in self.ops) if self.ops else 0


def _items(entries, recording):
    inner_ops = set()
    items = []
    for call in recording.inner:
        inner_ops |= call.ops
        ops = [op for op in entries if id(op) in call.ops]
        if not ops:
            continue
        if not isinstance(call.target, Tensor):
            raise DocumentError("an inner tape.gradient call has several targets; a 'gradient' "
                                "node differentiates the sum of one target", where="gradient")
        if call.given_seed:
            raise DocumentError("an inner tape.gradient call uses output_gradients; a 'gradient' "
                                "node differentiates the sum of one target", where="gradient")
        for s, r in zip(call.sources, call.results):
            if r is not None:
                items.append(_Item("gradient", ops, [call.target, s], [r]))
    stopped = {id(op) for op in recording.stopped}
    for op in list(entries) + list(recording.stopped):
        if id(op) not in inner_ops:
            # A gather's list of indices and clip_by_value's bounds are node attributes.
            one = _gather_with_a_list(op) or op.type == "ClipByValue"
            inputs = list(op.inputs[:1] if one else op.inputs)
            if op.type in _LABELS_FIRST:
                inputs.reverse()
            items.append(_Item("op", [op], inputs, list(op.outputs), stopped=id(op) in stopped))
    items.sort(key=lambda it: it.key)
    return items


def _gather_with_a_list(op):
    """A GatherV2 whose indices are one list: a 'gather' node holds them as an attribute.
    Other indices along axis 0 are the ids of an embedding lookup (an input port)."""
    return op.type == "GatherV2" and np.ndim(op._in_values[1]) == 1


def _spec(op):
    if op.type == "GatherV2" and not _gather_with_a_list(op):
        if op.attrs["axis"] != 0:
            raise DocumentError(f"cannot capture a gather along axis {op.attrs['axis']} with "
                                f"indices of rank {np.ndim(op._in_values[1])}: a 'gather' node "
                                "holds a list of indices, an embedding lookup works on axis 0",
                                where=catalog.api_name(op.type))
        return catalog.OPS["nn.embedding_lookup"]
    return _BY_ENGINE.get(op.type)


def _needed(items, targets):
    """The items on a path to a target, in order (a custom gradient's forward is not)."""
    needed = {t._id for t in targets}
    keep = []
    for item in reversed(items):
        if any(o._id in needed for o in item.outputs):
            keep.append(item)
            needed.update(t._id for t in item.inputs)
    return keep[::-1]


def _consumers(items):
    uses = {}
    for i, item in enumerate(items):
        for t in item.inputs:
            uses.setdefault(t._id, []).append(i)
    return uses


def _var_name(t):
    return t._name if isinstance(t, gv.Variable) else ""


def _fold(items, ends):
    """Fold Dense layers, BatchNormalization layers and transposed softmaxes into one item.

    `ends`: ids of tensors that must stay visible (targets, sources).
    """
    uses = _consumers(items)
    gone = set()

    def fresh(i, *weights):
        """No item before i uses these weights (they become the layer's ports)."""
        return all(min(uses.get(w._id, [i])) >= i for w in weights)

    def only_next(i, t):
        """The single item after i consuming t (None when t is also used elsewhere)."""
        if t._id in ends or len(uses.get(t._id, [])) != 1:
            return None
        j = uses[t._id][0]
        return j if j not in gone and not items[j].stopped and items[j].kind == "op" else None

    out = []
    for i, item in enumerate(items):
        if i in gone:
            continue
        op = item.ops[0] if item.kind == "op" else None
        if op is None or item.stopped:
            out.append(item)
            continue
        dense = op.type == "MatMul" and not op.attrs.get("transpose_a") \
            and not op.attrs.get("transpose_b") and op.inputs[1].ndim == 2
        conv = op.type == "Conv2D" and op.attrs["padding"] in ("SAME", "VALID")
        if (dense or conv) and _var_name(op.inputs[1]).endswith("/kernel") \
                and fresh(i, op.inputs[1]):
            prefix = _var_name(op.inputs[1])[:-len("/kernel")]
            ops, end = [op], op.outputs[0]
            j = only_next(i, end)
            if j is not None and items[j].ops[0].type == "AddV2" and \
                    items[j].ops[0].inputs[0] is end and \
                    _var_name(items[j].ops[0].inputs[1]) == prefix + "/bias" and \
                    fresh(i, items[j].ops[0].inputs[1]):
                gone.add(j)
                ops.append(items[j].ops[0])
                end = items[j].outputs[0]
                j = only_next(j, end)
            if j is not None and items[j].ops[0].type in _ACTIVATIONS:
                gone.add(j)
                ops.append(items[j].ops[0])
                end = items[j].outputs[0]
            out.append(_Item("dense" if dense else "conv2d", ops, [op.inputs[0]], [end],
                             extra={"prefix": prefix}))
            continue
        if op.type == "FusedBatchNorm":
            x, gamma, beta = op.inputs
            if not (isinstance(gamma, gv.Variable) and isinstance(beta, gv.Variable)
                    and fresh(i, gamma, beta)):
                raise DocumentError("this batch normalisation cannot be saved as a "
                                    "BatchNormalization layer: its gamma and beta must be the "
                                    "layer's own variables, not used before it",
                                    where=catalog.api_name(op.type))
            prefix = _var_name(gamma).rsplit("/", 1)[0] if "/" in _var_name(gamma) \
                else "batch_normalization"
            out.append(_Item("batchnorm", [op], [x], [op.outputs[0]], extra={"prefix": prefix}))
            continue
        if op.type == "LayerNorm" and layernorm_folds(op, fresh(i, *op.inputs[1:])):
            prefix = _var_name(op.inputs[1]) or _var_name(op.inputs[2]) or "layer_normalization/"
            out.append(_Item("layernorm", [op], [op.inputs[0]], [op.outputs[0]],
                             extra={"prefix": prefix.rsplit("/", 1)[0]}))
            continue
        if op.type == "ResourceGather" and _var_name(op.inputs[0]).endswith("/embeddings") \
                and fresh(i, op.inputs[0]):
            out.append(_Item("embedding", [op], [op.inputs[1]], [op.outputs[0]],
                             extra={"prefix": _var_name(op.inputs[0])[:-len("/embeddings")]}))
            continue
        loss = keras_loss(items, i, only_next)
        if loss is not None:
            name, attrs, chain, inputs, end = loss
            gone.update(chain)
            out.append(_Item("loss", [op] + [items[j].ops[0] for j in chain], inputs, [end],
                             extra={"op": name, "attrs": attrs}))
            continue
        if op.type == "Transpose":
            folded = _softmax_axis(items, i, only_next, gone)
            if folded is not None:
                out.append(folded)
                continue
        out.append(item)
    return out


def _softmax_axis(items, i, only_next, gone):
    """transpose(perm) → Softmax → transpose(perm), perm swapping `axis` and the last: softmax(axis)."""
    first = items[i].ops[0]
    perm = list(first.attrs.get("perm") or [])
    n = len(perm)
    if n < 2:
        return None
    moved = [k for k in range(n) if perm[k] != k]
    if len(moved) != 2 or moved[1] != n - 1:
        return None
    j = only_next(i, first.outputs[0])
    if j is None or items[j].ops[0].type not in ("Softmax", "LogSoftmax"):
        return None
    k = only_next(j, items[j].outputs[0])
    if k is None or items[k].ops[0].type != "Transpose" or \
            list(items[k].ops[0].attrs.get("perm") or []) != perm:
        return None
    gone.update((j, k))
    op = items[j].ops[0]
    return _Item("softmax", [first, op, items[k].ops[0]], [first.inputs[0]], [items[k].outputs[0]],
                 extra={"op": "nn.softmax" if op.type == "Softmax" else "nn.log_softmax",
                        "axis": moved[0]})


# -- the document ---------------------------------------------------------------------------

def from_tape(tape, targets, sources, output_gradients=None, title="Captured tape",
              entries=None, tracked=None, recording=None, progress=None, max_nodes=None):
    """A document reproducing what `tape` recorded for `tape.gradient(targets, sources)`.

    `progress(done, total)` hears the ops converted (about a hundred times); a tape of more
    than `max_nodes` nodes is refused before any node is made."""
    entries = list(tape._entries if entries is None else entries)
    tracked = set(tape._tracked if tracked is None else tracked)
    recording = recording or Recording()
    targets = gv.nest.flatten(targets)
    sources = gv.nest.flatten(sources)
    wav = tape._watch_accessed_variables
    doc = Document(title=title, tape=TapeSettings(
        persistent=tape._persistent, watch_accessed_variables=wav))
    ends = {t._id for t in targets + sources}
    items = _fold(_needed(_items(entries, recording), targets), ends)
    if max_nodes is not None and len(items) > max_nodes:
        raise DocumentError(too_many_nodes(f"at least {len(items)}"), where="trace")
    every = max(1, len(items) // 100)
    ports, name = {}, _Namer()

    def watched(t):
        if recording.watched is not None:
            return t._id in recording.watched
        return t._id in tracked and not (wav and isinstance(t, gv.Variable) and t.trainable)

    def named(t, fallback):
        return recording.names.get(t._id) or fallback

    def leaf(t, value):
        if t._id in ports:
            return ports[t._id]
        if isinstance(t, gv.Variable):
            given = t._name if t._name != "Variable" else ""
            stem = given.replace("/", "_") or named(t, "v")
            node = Node(name(stem), VARIABLE, value=np.array(value), trainable=t.trainable,
                        watched=watched(t))
        else:
            given = named(t, "")
            node = Node(name(given or _const_stem(value)), CONSTANT, value=np.array(value),
                        label="" if given else literal_text(value),
                        watched=t._id in tracked if recording.watched is None else watched(t))
        doc.add(node)
        ports[t._id] = Port(node.id, 0)
        return ports[t._id]

    def port_of(t, value):
        return ports.get(t._id) or leaf(t, value)

    for done, item in enumerate(items):
        if progress is not None and done % every == 0:
            progress(done, len(items))
        values = _input_values(item)
        srcs = [port_of(t, v) for t, v in zip(item.inputs, values)]
        node = _node(item, name, named, recording, watched)
        doc.add(node)
        doc.edges += [Edge(src, Port(node.id, i)) for i, src in enumerate(srcs)]
        if item.kind == "gradient" and doc.nodes[srcs[1].node].kind not in (CONSTANT, VARIABLE):
            raise DocumentError("an inner tape.gradient differentiates with respect to a "
                                "computed tensor; a 'gradient' node needs an input node "
                                "(a constant or a variable) as its source", where=node.id)
        for k, t in enumerate(item.outputs):
            ports[t._id] = Port(node.id, k)
        for k, w in enumerate(item.extra.get("weights", ()), start=1):
            ports[w._id] = Port(node.id, k)
        if item.stopped:
            doc.tape.stop_recording.append(node.id)
    if progress is not None:
        progress(len(items), len(items))
    for nid, node in doc.nodes.items():
        node.label = node.label or name.label(nid)
    for t in targets:
        if t._id not in ports:
            leaf(t, t._value)
        doc.targets.append(ports[t._id])
    for s in sources:
        doc.sources.append(ports[s._id] if s._id in ports else leaf(s, s._value))
    if output_gradients is not None:
        for p, g in zip(doc.targets, gv.nest.flatten(output_gradients)):
            if g is not None:
                doc.output_gradients[p] = np.array(getattr(g, "_value", g))
    return doc


def _input_values(item):
    """The values the node's inputs had when its first op ran (a Variable may change)."""
    if item.kind == "gradient":
        return [t._value for t in item.inputs]
    op = item.ops[0]
    slot = {id(t): v for t, v in zip(op.inputs, op._in_values)}
    return [slot.get(id(t), t._value) for t in item.inputs]


def _node(item, name, named, recording, watched):
    out = item.outputs[0]
    if item.kind == "gradient":
        return Node(name(named(out, "gradient")), OP, op="gradient", attrs={})
    if item.kind == "softmax":
        return Node(name(named(out, item.extra["op"][3:])), OP, op=item.extra["op"],
                    attrs={"axis": item.extra["axis"]})
    if item.kind == "loss":
        return Node(name(named(out, "loss")), OP, op=item.extra["op"], attrs=item.extra["attrs"])
    if item.kind in ("dense", "conv2d"):
        return dense_node(item, name, recording, watched)
    if item.kind == "batchnorm":
        return batchnorm_node(item, name, recording, watched)
    if item.kind == "layernorm":
        return layernorm_node(item, name, recording, watched)
    if item.kind == "embedding":
        return embedding_node(item, name, recording, watched)
    op = item.ops[0]
    if op.type == "CustomGradient":
        rule, attrs = declarative_rule(op)
        # The script's name for the result (clipped = clip_gradients(y)) is the node's
        # name; the function's name only stands for a result the script did not name.
        fn = str(op.attrs.get("function", ""))
        given = named(out, "")
        node_id = name(given or fn or "custom")
        label = clean_text("label", fn) if not given and fn and fn not in (
            node_id, f"{node_id}_fn") else ""
        return Node(node_id, CUSTOM_GRADIENT, op=rule, attrs=attrs, label=label)
    spec = _spec(op)
    if spec is None:
        hint = (" (the backward op of an inner tape.gradient: `gradviz trace` turns that call "
                "into a 'gradient' node)" if op.type.endswith("Grad") else "")
        raise DocumentError(f"the tape recorded a {op.type} op; the file format has no node "
                            f"for it{hint}", where=catalog.api_name(op.type))
    stem = spec.name.replace("nn.", "").replace("linalg.", "").replace("reduce_", "")
    return Node(name(named(out, _STEMS.get(spec.name, stem))), OP, op=spec.name,
                attrs=_attrs(spec, op))
