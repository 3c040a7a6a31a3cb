"""What a document may contain: the ops (TF's names), the layers and the custom-gradient rules.

Everything a file can name is declared here with its inputs and attributes, so
loading can check a file without running it, and a custom gradient is a rule
with parameters, never code.
"""
import math
import re
from dataclasses import dataclass, field

import numpy as np

import gradviz as gv
from gradviz.engine.ops import windows as _windows

from .errors import shown
from .tensors import MAX_ELEMENTS, amount


@dataclass(frozen=True)
class OpSpec:
    name: str
    group: str
    inputs: tuple          # input names; a name ending in '*' takes one or more tensors
    attrs: dict            # attribute -> default
    n_outputs: int | None  # None: decided by attributes (see `outputs`)
    call: object           # call(tensors, attrs) -> Tensor | list[Tensor]
    doc: str = ""
    kinds: dict = field(default_factory=dict)  # attribute -> kind (see ATTR_KINDS)
    engine: str = ""       # engine op type this op records (for capture)

    @property
    def variadic(self):
        return bool(self.inputs) and self.inputs[-1].endswith("*")

    def outputs(self, attrs):
        """How many outputs a node of this op has, given its attributes (1 while the
        attribute is invalid: that is reported on the node)."""
        if self.n_outputs is not None:
            return self.n_outputs
        num = attrs.get("num", 1)
        return num if _is_int(num) and attr_problem(self.name, "num", num) is None else 1


ATTR_KINDS = ("bool", "int", "float", "axis", "ints", "str", "index", "paddings", "dtype")


def _kind_of(default):
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    return "axis"


OPS = {}


def _op(name, group, inputs, call, doc="", attrs=None, kinds=None, n_outputs=1, engine=""):
    attrs = dict(attrs or {})
    all_kinds = {k: _kind_of(v) for k, v in attrs.items()}
    all_kinds.update(kinds or {})
    OPS[name] = OpSpec(name, group, tuple(inputs), attrs, n_outputs, call, doc, all_kinds, engine)


def _axis(a):
    return tuple(a) if isinstance(a, list) else a


def _key(index):
    key = []
    for k in index:
        if k == "...":
            key.append(Ellipsis)
        elif isinstance(k, list):
            key.append(slice(*k))
        else:
            key.append(k)
    return tuple(key)


# -- math ---------------------------------------------------------------------------------
# What an op computes, as the inspector and the palette say it beside its call: never the
# op's own name again ("nn.relu(x): max(x, 0)", not "nn.relu(x): nn.relu(x)").
WHAT_IT_COMPUTES = {
    "negative": "−x", "exp": "eˣ", "log": "ln x, the natural logarithm", "sin": "sine of x (radians)",
    "cos": "cosine of x (radians)", "sqrt": "√x", "square": "x²", "abs": "|x|",
    "tanh": "(eˣ − e⁻ˣ) / (eˣ + e⁻ˣ)", "reciprocal": "1 / x",
    "reduce_sum": "Σ x", "reduce_mean": "the mean of x", "reduce_max": "the largest x",
    "reduce_min": "the smallest x", "reduce_prod": "Π x (the product)",
    "reduce_logsumexp": "log Σ exp(x)",
    "nn.relu": "max(x, 0)", "nn.sigmoid": "1 / (1 + e⁻ˣ)", "nn.elu": "x where x > 0, else eˣ − 1",
    "nn.softplus": "ln(1 + eˣ)",
}
for _name, _fn, _doc, _eng in [
        ("add", gv.add, "x + y", "AddV2"), ("subtract", gv.subtract, "x - y", "Sub"),
        ("multiply", gv.multiply, "x * y", "Mul"), ("divide", gv.divide, "x / y", "RealDiv"),
        ("pow", gv.pow, "x ** y", "Pow"), ("maximum", gv.maximum, "max(x, y)", "Maximum"),
        ("minimum", gv.minimum, "min(x, y)", "Minimum")]:
    _op(_name, "math", ("x", "y"), lambda t, a, f=_fn: f(t[0], t[1]), _doc, engine=_eng)

for _name, _fn, _eng in [
        ("negative", gv.negative, "Neg"), ("exp", gv.exp, "Exp"), ("log", gv.log, "Log"),
        ("sin", gv.sin, "Sin"), ("cos", gv.cos, "Cos"), ("sqrt", gv.sqrt, "Sqrt"),
        ("square", gv.square, "Square"), ("abs", gv.abs, "Abs"), ("tanh", gv.tanh, "Tanh"),
        ("reciprocal", gv.reciprocal, "Reciprocal")]:
    _op(_name, "math", ("x",), lambda t, a, f=_fn: f(t[0]), WHAT_IT_COMPUTES[_name], engine=_eng)

_op("add_n", "math", ("inputs*",), lambda t, a: gv.add_n(list(t)), "sum of all inputs")
_op("clip_by_value", "math", ("x",),
    lambda t, a: gv.clip_by_value(t[0], a["clip_value_min"], a["clip_value_max"]),
    "x clipped to [min, max]", {"clip_value_min": 0.0, "clip_value_max": 1.0},
    engine="ClipByValue")

# -- linalg -------------------------------------------------------------------------------
_op("matmul", "linalg", ("a", "b"),
    lambda t, a: gv.matmul(t[0], t[1], transpose_a=a["transpose_a"], transpose_b=a["transpose_b"]),
    "a @ b", {"transpose_a": False, "transpose_b": False}, engine="MatMul")
_op("einsum", "linalg", ("inputs*",), lambda t, a: gv.einsum(a["equation"], *t),
    "Einstein summation", {"equation": "ij,jk->ik"})
_op("linalg.solve", "linalg", ("matrix", "rhs"),
    lambda t, a: gv.linalg.solve(t[0], t[1], adjoint=a["adjoint"]), "matrix⁻¹ @ rhs",
    {"adjoint": False}, engine="MatrixSolve")
_op("linalg.inv", "linalg", ("matrix",), lambda t, a: gv.linalg.inv(t[0]), "matrix⁻¹",
    engine="MatrixInverse")

# -- reduce -------------------------------------------------------------------------------
for _name, _fn, _eng in [
        ("reduce_sum", gv.reduce_sum, "Sum"), ("reduce_mean", gv.reduce_mean, "Mean"),
        ("reduce_max", gv.reduce_max, "Max"), ("reduce_min", gv.reduce_min, "Min"),
        ("reduce_prod", gv.reduce_prod, "Prod"),
        ("reduce_logsumexp", gv.reduce_logsumexp, "")]:
    _op(_name, "reduce", ("x",),
        lambda t, a, f=_fn: f(t[0], axis=_axis(a["axis"]), keepdims=a["keepdims"]),
        f"{WHAT_IT_COMPUTES[_name]} over axis (all axes when not set)",
        {"axis": None, "keepdims": False}, engine=_eng)
_op("norm", "reduce", ("x",),
    lambda t, a: gv.norm(t[0], axis=_axis(a["axis"]), keepdims=a["keepdims"]),
    "√(Σ x²) over axis (all axes when not set): the Euclidean length",
    {"axis": None, "keepdims": False}, engine="EuclideanNorm")
_op("clip_by_norm", "reduce", ("x",), lambda t, a: gv.clip_by_norm(t[0], a["clip_norm"]),
    "x scaled down so that its norm is at most clip_norm", {"clip_norm": 1.0})
for _name, _fn, _eng in [("math.argmax", gv.math.argmax, "ArgMax"),
                         ("math.argmin", gv.math.argmin, "ArgMin")]:
    _op(_name, "reduce", ("input",),
        lambda t, a, f=_fn: f(t[0], axis=a["axis"], output_type=a["output_type"]),
        f"index of the {_name[8:]} along an axis (integers; no gradient)",
        {"axis": 0, "output_type": "int64"}, {"output_type": "dtype"}, engine=_eng)

# -- shape --------------------------------------------------------------------------------
_op("reshape", "shape", ("x",), lambda t, a: gv.reshape(t[0], a["shape"]), "x's entries in a new shape",
    {"shape": [-1]}, {"shape": "ints"}, engine="Reshape")
_op("transpose", "shape", ("x",), lambda t, a: gv.transpose(t[0], a["perm"]),
    "permute axes (reversed when not set)", {"perm": None}, engine="Transpose")
_op("expand_dims", "shape", ("x",), lambda t, a: gv.expand_dims(t[0], a["axis"]),
    "insert an axis", {"axis": 0}, engine="ExpandDims")
_op("squeeze", "shape", ("x",), lambda t, a: gv.squeeze(t[0], _axis(a["axis"])),
    "drop size-1 axes", {"axis": None}, engine="Squeeze")
_op("broadcast_to", "shape", ("x",), lambda t, a: gv.broadcast_to(t[0], a["shape"]),
    "x repeated along its size-1 (or missing) axes to `shape`", {"shape": [1]}, {"shape": "ints"}, engine="BroadcastTo")
_op("tile", "shape", ("x",), lambda t, a: gv.tile(t[0], a["multiples"]), "x repeated `multiples` times along each axis",
    {"multiples": [1]}, {"multiples": "ints"}, engine="Tile")
_op("pad", "shape", ("x",),
    lambda t, a: gv.pad(t[0], a["paddings"], constant_values=a["constant_values"]),
    "x with `paddings` entries of constant_values added before and after along each axis",
    {"paddings": [[0, 0]], "constant_values": 0.0},
    {"paddings": "paddings"}, engine="PadV2")
_op("concat", "shape", ("values*",), lambda t, a: gv.concat(list(t), a["axis"]),
    "join along an axis", {"axis": 0}, engine="ConcatV2")
_op("stack", "shape", ("values*",), lambda t, a: gv.stack(list(t), a["axis"]),
    "the inputs placed side by side along a new axis", {"axis": 0}, engine="Pack")
_op("split", "shape", ("x",), lambda t, a: gv.split(t[0], a["num"], axis=a["axis"]),
    "`num` equal parts of x along an axis", {"num": 2, "axis": 0}, n_outputs=None,
    engine="SplitV")
_op("slice", "shape", ("x",), lambda t, a: gv.slice(t[0], a["begin"], a["size"]),
    "the block of x that starts at `begin`, `size` entries along each axis (-1: to the end)",
    {"begin": [0], "size": [-1]}, {"begin": "ints", "size": "ints"})
_op("getitem", "shape", ("x",), lambda t, a: t[0][_key(a["index"])],
    "x[index]: ints, [start, stop, step] slices and '...'", {"index": [0]}, {"index": "index"},
    engine="StridedSlice")
_op("gather", "shape", ("params",),
    lambda t, a: gv.gather(t[0], np.asarray(a["indices"], np.int64), axis=a["axis"]),
    "the entries of params at `indices` along an axis", {"indices": [0], "axis": 0}, {"indices": "ints"})
_op("cast", "shape", ("x",), lambda t, a: gv.cast(t[0], a["dtype"]), "x's values in another dtype",
    {"dtype": "float32"}, {"dtype": "dtype"})

# -- nn -----------------------------------------------------------------------------------
for _name, _fn, _eng in [("nn.relu", gv.nn.relu, "Relu"), ("nn.sigmoid", gv.nn.sigmoid, "Sigmoid"),
                         ("nn.elu", gv.nn.elu, "Elu"), ("nn.softplus", gv.nn.softplus, "Softplus")]:
    _op(_name, "nn", ("x",), lambda t, a, f=_fn: f(t[0]), WHAT_IT_COMPUTES[_name], engine=_eng)
_op("nn.softmax", "nn", ("logits",), lambda t, a: gv.nn.softmax(t[0], axis=a["axis"]),
    "exp(logits) / Σ exp(logits) along an axis", {"axis": -1})
_op("nn.log_softmax", "nn", ("logits",), lambda t, a: gv.nn.log_softmax(t[0], axis=a["axis"]),
    "logits − log Σ exp(logits) along an axis", {"axis": -1})
_op("nn.softmax_cross_entropy_with_logits", "nn", ("labels", "logits"),
    lambda t, a: gv.nn.softmax_cross_entropy_with_logits(labels=t[0], logits=t[1], axis=a["axis"]),
    "−Σ labels · log softmax(logits) along an axis (each row of labels a distribution)",
    {"axis": -1}, engine="SoftmaxCrossEntropyWithLogits")
_op("nn.sparse_softmax_cross_entropy_with_logits", "nn", ("labels", "logits"),
    lambda t, a: gv.nn.sparse_softmax_cross_entropy_with_logits(labels=t[0], logits=t[1]),
    "−log softmax(logits)[label] over the last axis (integer labels)",
    engine="SparseSoftmaxCrossEntropyWithLogits")

_op("nn.embedding_lookup", "nn", ("params", "ids"),
    lambda t, a: gv.nn.embedding_lookup(t[0], t[1]),
    "rows `ids` (integers) of the table `params`", engine="ResourceGather")
_op("nn.dropout", "nn", ("x",),
    lambda t, a: gv.nn.dropout(t[0], a["rate"], noise_shape=a["noise_shape"], seed=a["seed"])
    if a["rate"] else gv.identity(t[0]),  # TF returns x itself at rate 0: a port needs its own
    "zero each element with probability rate, scale the rest by 1/(1 − rate); the seed "
    "fixes the mask", {"rate": 0.5, "seed": 0, "noise_shape": None}, engine="Dropout")

# -- losses (keras) --------------------------------------------------------------------------
LOSS_REDUCTIONS = ("sum_over_batch_size", "sum", "none")
for _name, _doc in [
        ("MeanSquaredError", "mean((y_pred − y_true)²) over the last axis, then reduced"),
        ("CategoricalCrossentropy", "−Σ y_true · log p, p = softmax(y_pred) from logits, "
                                    "else y_pred normalised; then reduced"),
        ("SparseCategoricalCrossentropy", "−log p[y_true] for integer labels, p = "
                                          "softmax(y_pred) from logits; then reduced")]:
    _defaults = {"reduction": "sum_over_batch_size"}
    if _name != "MeanSquaredError":
        _defaults = {"from_logits": True, **_defaults}
    _op(f"losses.{_name}", "losses", ("y_true", "y_pred"),
        lambda t, a, n=_name: getattr(gv.keras.losses, n)(**a)(t[0], t[1]),
        _doc + " (reduction: the mean over the examples by default)", _defaults)


def _padding(a):
    """TF's padding argument from a node's attributes: the explicit list when EXPLICIT."""
    return a["explicit_paddings"] if a["padding"] == "EXPLICIT" else a["padding"]


NO_PADDING = [[0, 0], [0, 0], [0, 0], [0, 0]]
_WINDOW_KINDS = {"ksize": "ints", "strides": "ints", "dilations": "ints",
                 "explicit_paddings": "paddings"}
_op("nn.conv2d", "nn", ("input", "filters"),
    lambda t, a: gv.nn.conv2d(t[0], t[1], a["strides"], _padding(a), dilations=a["dilations"]),
    "2-D convolution (NHWC input, [KH, KW, C_in, C_out] filters)",
    {"strides": [1, 1], "padding": "VALID", "explicit_paddings": NO_PADDING,
     "dilations": [1, 1]}, _WINDOW_KINDS, engine="Conv2D")
_op("nn.conv1d", "nn", ("input", "filters"),
    lambda t, a: gv.nn.conv1d(t[0], t[1], a["stride"], a["padding"], dilations=a["dilations"]),
    "1-D convolution (NWC input, [KW, C_in, C_out] filters), built from conv2d as in TF",
    {"stride": 1, "padding": "VALID", "dilations": 1})
_op("nn.max_pool2d", "nn", ("input",),
    lambda t, a: gv.nn.max_pool2d(t[0], a["ksize"], a["strides"], _padding(a)),
    "the largest value of each window (NHWC)",
    {"ksize": [2, 2], "strides": [2, 2], "padding": "VALID", "explicit_paddings": NO_PADDING},
    _WINDOW_KINDS, engine="MaxPool")
_op("nn.avg_pool2d", "nn", ("input",),
    lambda t, a: gv.nn.avg_pool2d(t[0], a["ksize"], a["strides"], a["padding"]),
    "the mean of each window's real elements (NHWC)",
    {"ksize": [2, 2], "strides": [2, 2], "padding": "VALID"}, _WINDOW_KINDS, engine="AvgPool")

# -- gradient -----------------------------------------------------------------------------
_op("stop_gradient", "gradient", ("x",), lambda t, a: gv.stop_gradient(t[0]),
    "x forward; no gradient flows back", engine="StopGradient")
_op("identity", "gradient", ("x",), lambda t, a: gv.identity(t[0]), "x, unchanged (a new tensor)",
    engine="Identity")


def _gradient_node(t, a):
    raise RuntimeError("the 'gradient' op is evaluated by graph.evaluate (it needs the tape)")


_op("gradient", "gradient", ("target", "source"), _gradient_node,
    "∂Σtarget / ∂source (the sum of the target's elements), computed inside the outer tape "
    "(higher-order derivatives)")

# -- layers -------------------------------------------------------------------------------
ACTIVATIONS = ("linear", "relu", "elu", "sigmoid", "tanh", "softmax", "softplus")


@dataclass(frozen=True)
class LayerSpec:
    name: str
    attrs: dict
    kinds: dict
    weights: tuple  # weight names, in port order (ports 1..)
    doc: str = ""

    def weight_shapes(self, attrs, input_shape):
        """Each weight's shape for an input of `input_shape` (None if it cannot be built).
        Only the input's last axis matters (a Conv2D kernel needs the channels)."""
        if self.name == "Embedding":  # the table's shape is its own; any ids fit
            return {"embeddings": (attrs["input_dim"], attrs["output_dim"])}
        if not input_shape:
            return None
        n = input_shape[-1]
        if self.name in ("Dense", "Conv2D"):
            units = attrs["units"] if self.name == "Dense" else attrs["filters"]
            window = () if self.name == "Dense" else tuple(attrs["kernel_size"])
            shapes = {"kernel": window + (n, units)}
            if attrs["use_bias"]:
                shapes["bias"] = (units,)
            return shapes
        return {w: (n,) for w in self.weights}

    def weight_names(self, attrs):
        if self.name in ("Dense", "Conv2D") and not attrs.get("use_bias", True):
            return ("kernel",)
        if self.name == "LayerNormalization":
            return tuple(w for w, on in (("gamma", attrs.get("scale", True)),
                                         ("beta", attrs.get("center", True))) if on)
        return self.weights


LAYERS = {
    "Dense": LayerSpec("Dense", {"units": 1, "activation": "linear", "use_bias": True},
                       {"units": "int", "activation": "str", "use_bias": "bool"},
                       ("kernel", "bias"), "activation(x @ kernel + bias)"),
    "BatchNormalization": LayerSpec(
        "BatchNormalization", {"epsilon": 0.001, "momentum": 0.99, "training": True},
        {"epsilon": "float", "momentum": "float", "training": "bool"},
        ("gamma", "beta", "moving_mean", "moving_variance"),
        "normalise the last axis (training: with the batch's own statistics)"),
    "LayerNormalization": LayerSpec(
        "LayerNormalization", {"epsilon": 0.001, "center": True, "scale": True},
        {"epsilon": "float", "center": "bool", "scale": "bool"}, ("gamma", "beta"),
        "normalise each example over its last axis, then · gamma + beta"),
    "Embedding": LayerSpec(
        "Embedding", {"input_dim": 1, "output_dim": 1}, {"input_dim": "int", "output_dim": "int"},
        ("embeddings",), "rows of the (input_dim, output_dim) table at the integer ids"),
    "Conv2D": LayerSpec(
        "Conv2D", {"filters": 1, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid",
                   "dilation_rate": [1, 1], "activation": "linear", "use_bias": True},
        {"filters": "int", "kernel_size": "ints", "strides": "ints", "padding": "str",
         "dilation_rate": "ints", "activation": "str", "use_bias": "bool"},
        ("kernel", "bias"), "activation(conv2d(x, kernel) + bias), channels last"),
    "Flatten": LayerSpec("Flatten", {}, {}, (), "(N, d1, d2, …) → (N, d1·d2·…)"),
}

# -- custom-gradient rules: identity forward, declarative backward --------------------------
CUSTOM_RULES = {
    "clip_by_norm": ({"clip_norm": 1.0}, "upstream clipped to norm clip_norm",
                     lambda dy, a: gv.clip_by_norm(dy, a["clip_norm"])),
    "scale": ({"factor": 1.0}, "upstream times factor",
              lambda dy, a: dy * np.asarray(a["factor"], dy._value.dtype)),
    "zero": ({}, "no gradient flows (zeros)", lambda dy, a: gv.zeros_like(dy)),
    "identity": ({}, "upstream passes unchanged", lambda dy, a: dy),
}

GROUPS = ("inputs", "variables", "math", "linalg", "reduce", "shape", "nn", "losses", "layers",
          "gradient")


def defaults_and_kinds(node):
    """(defaults, kinds) of a node's attributes; empty for input nodes and unknown ops."""
    if node.kind == "op" and node.op in OPS:
        return OPS[node.op].attrs, OPS[node.op].kinds
    if node.kind == "layer" and node.op in LAYERS:
        return LAYERS[node.op].attrs, LAYERS[node.op].kinds
    if node.kind == "custom_gradient" and node.op in CUSTOM_RULES:
        d = CUSTOM_RULES[node.op][0]
        return d, {k: _kind_of(v) for k, v in d.items()}
    return {}, {}


def full_attrs(node):
    """Attributes with their defaults filled in (so a file reads back to the same text)."""
    defaults, kinds = defaults_and_kinds(node)
    attrs = {**defaults, **node.attrs}
    return {k: float(v) if kinds.get(k) == "float" and _is_int(v) and _finite(v) else v
            for k, v in attrs.items()}


def api_name(engine_type):
    """The name a user writes for an engine op type, as in TF's API: MatMul -> matmul, AddV2
    -> add, SoftmaxCrossEntropyWithLogits -> nn.softmax_cross_entropy_with_logits; a type
    no catalog op records, in words (ReluGrad -> relu grad)."""
    if not _API_NAMES:
        for name, spec in OPS.items():
            if spec.engine:
                _API_NAMES.setdefault(spec.engine, name)
    return _API_NAMES.get(engine_type) or re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", engine_type).lower()


_API_NAMES = {}   # engine op type -> the first catalog op that records it (filled on first use)
# A Dense layer's ops, by what each does for the reader (its activation says its own name)
DENSE_PARTS = {"MatMul": "matmul", "AddV2": "bias add", "BiasAdd": "bias add"}


def part_name(node, engine_type):
    """What an op inside a node is to the reader: a Dense layer's 'matmul', 'bias add' and
    its activation as its activation= says ('elu'); any other op by its API name."""
    if node is not None and node.kind == "layer" and node.op == "Dense":
        if engine_type in DENSE_PARTS:
            return DENSE_PARTS[engine_type]
        activation = full_attrs(node).get("activation")
        if isinstance(activation, str) and activation not in ("", "linear"):
            return activation
    return api_name(engine_type)


def port_name(doc, port):
    """A port in the reader's words: the node's name, a layer weight 'layer1.kernel', or
    'split:1'. Cards and study texts both say it this way."""
    node = doc.nodes.get(port.node)
    if node is None:   # a reference to a missing node, as the file wrote it
        return str(port.node) if port.index == 0 else f"{port.node}:{port.index}"
    name = node.label or node.id
    if port.index == 0:
        return name
    spec = LAYERS.get(node.op) if node.kind == "layer" else None
    if spec is not None:
        weights = spec.weight_names(full_attrs(node))
        if port.index - 1 < len(weights):
            return f"{name}.{weights[port.index - 1]}"
    return f"{name}:{port.index}"


def with_defaults(node):
    """A copy of the node whose attrs include the defaults (nodes made in code may omit them).
    (A shallow copy by hand: copy.copy's generic path costs more than the rest, and every
    evaluation makes two of these per node.)"""
    view = object.__new__(type(node))
    view.__dict__.update(node.__dict__)
    view.attrs = full_attrs(node)
    return view


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _finite(v):
    """A finite number that fits a float (an integer of 400 digits does not)."""
    if not (_is_int(v) or isinstance(v, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def check_attr(kind, value):
    """None when `value` fits attribute kind `kind`, else what is wrong (no code, no eval)."""
    is_int = _is_int
    ok = {
        "bool": lambda v: isinstance(v, bool),
        "int": is_int,
        "float": _finite,
        "str": lambda v: isinstance(v, str),
        "axis": lambda v: v is None or is_int(v) or (isinstance(v, list) and all(map(is_int, v))),
        "ints": lambda v: isinstance(v, list) and all(map(is_int, v)),
        "paddings": lambda v: isinstance(v, list) and all(
            isinstance(p, list) and len(p) == 2 and all(map(is_int, p)) and min(p) >= 0 for p in v),
        "index": lambda v: isinstance(v, list) and all(
            is_int(k) or k == "..." or (isinstance(k, list) and len(k) == 3
                                        and all(x is None or is_int(x) for x in k)) for k in v),
        "dtype": lambda v: v in ("float16", "float32", "float64", "int32", "int64"),
    }[kind]
    if ok(value):
        big = _largest_entry(value) if kind in ("axis", "ints", "paddings", "index") else None
        if big is None or abs(big) <= MAX_ELEMENTS:
            return None
        return (f"an entry is {shown(big)}; every entry must be from -{amount(MAX_ELEMENTS)} "
                f"to {amount(MAX_ELEMENTS)} (no tensor has a dimension that large)")
    expected = {"ints": "a list of integers", "float": "a finite number",
                "index": "a list of integers, [start, stop, step] slices and '...'",
                "paddings": "a list of [before, after] pairs of non-negative integers",
                "axis": "an integer, a list of integers, or not set (null in a file)"}.get(kind, kind)
    return f"expected {expected}, got {shown(value)}"


def _largest_entry(value):
    """The integer of largest magnitude in an attribute (a number or nested lists), or None."""
    if isinstance(value, list):
        found = [e for e in map(_largest_entry, value) if e is not None]
        return max(found, key=abs, default=None)
    return value if _is_int(value) else None


def _from_to(low, high):
    def check(key, v):
        return None if low <= v <= high else f"{key} must be from {low} to {high}, got {shown(v)}"
    return check


def _at_least(low, strictly=False):
    def check(key, v):
        if v > low or (v == low and not strictly):
            return None
        return f"{key} must be {'more than' if strictly else 'at least'} {low}, got {shown(v)}"
    return check


def _one_of(choices):
    def check(key, v):
        return None if v in choices else f"{key} must be one of {', '.join(choices)}, got {shown(v)}"
    check.choices = tuple(choices)
    return check


def _at_most_characters(n):
    def check(key, v):
        return None if len(v) <= n else f"{key} has {len(v)} characters; at most {n} are allowed"
    return check


def _rate(key, v):
    return None if 0 <= v < 1 else f"{key} must be at least 0 and less than 1, got {shown(v)}"


def _list_or_null(key, v):
    return None if v is None or isinstance(v, list) else \
        f"{key} must be a list of integers or not set (null in a file), got {shown(v)}"


def _window_sequence(n=2):
    """strides, dilations, ksize: TF's forms ([h, w], [1, h, w, 1] or one entry)."""
    def check(key, v):
        try:
            _windows.sequence(v, key, n)
        except (TypeError, ValueError) as e:
            return str(e)
        return None
    return check


def _explicit_paddings(key, v):
    try:
        _windows.padding_attrs(v)
    except ValueError as e:
        return str(e)
    return None


def _positive_pair(key, v):
    if len(v) == 2 and min(v) >= 1:
        return None
    return f"{key} must be two positive integers [height, width], got {shown(v)}"


MAX_SPLIT = 1000
# Values an attribute of the right kind may still not take, by (op, layer or rule; name).
# Checked on load, so nonsense never reaches the engine.
RANGES = {
    ("split", "num"): _from_to(1, MAX_SPLIT),
    ("Dense", "units"): _from_to(1, 1_000_000),
    ("Dense", "activation"): _one_of(ACTIVATIONS),
    ("Conv2D", "filters"): _from_to(1, 1_000_000),
    ("Conv2D", "kernel_size"): _positive_pair,
    ("Conv2D", "strides"): _positive_pair,
    ("Conv2D", "dilation_rate"): _positive_pair,
    ("Conv2D", "padding"): _one_of(("valid", "same")),
    ("Conv2D", "activation"): _one_of(ACTIVATIONS),
    ("BatchNormalization", "epsilon"): _at_least(0.0),
    ("BatchNormalization", "momentum"): _from_to(0.0, 1.0),
    ("LayerNormalization", "epsilon"): _at_least(0.0),
    ("Embedding", "input_dim"): _from_to(1, 1_000_000),
    ("Embedding", "output_dim"): _from_to(1, 1_000_000),
    ("clip_by_norm", "clip_norm"): _at_least(0.0, strictly=True),  # the op and the rule
    **{(f"losses.{n}", "reduction"): _one_of(LOSS_REDUCTIONS)
       for n in ("MeanSquaredError", "CategoricalCrossentropy", "SparseCategoricalCrossentropy")},
    ("nn.dropout", "rate"): _rate,
    ("nn.dropout", "noise_shape"): _list_or_null,
    ("math.argmax", "output_type"): _one_of(("int32", "int64")),
    ("math.argmin", "output_type"): _one_of(("int32", "int64")),
    ("einsum", "equation"): _at_most_characters(200),
    ("nn.conv1d", "stride"): _at_least(1),
    ("nn.conv1d", "dilations"): _at_least(1),
    ("nn.conv1d", "padding"): _one_of(("SAME", "VALID")),
    ("nn.avg_pool2d", "padding"): _one_of(("SAME", "VALID")),
}
for _window_op in ("nn.conv2d", "nn.max_pool2d", "nn.avg_pool2d"):
    for _window_attr in ("ksize", "strides", "dilations"):
        RANGES[(_window_op, _window_attr)] = _window_sequence()
    RANGES[(_window_op, "explicit_paddings")] = _explicit_paddings
    RANGES.setdefault((_window_op, "padding"), _one_of(("SAME", "VALID", "EXPLICIT")))


def choices(op, key):
    """The values attribute `key` of op or layer `op` may take when they are a short
    list (an editor offers them as a menu), else None."""
    return getattr(RANGES.get((op, key)), "choices", None)


def attr_problem(op, key, value):
    """What is wrong with `value` (already of the right kind) for attribute `key` of
    op, layer or rule `op`; None when nothing is."""
    check = RANGES.get((op, key))
    return None if check is None else check(key, value)


def attribute_problem(node, key, value):
    """What is wrong with attribute `key` = `value` of `node` (its name, kind or value), or
    None. The same words on load and in the editor."""
    defaults, kinds = defaults_and_kinds(node)
    if key not in defaults:
        return f"unknown attribute {shown(key)} for {node.op or node.kind}"
    problem = check_attr(kinds[key], value) or attr_problem(node.op, key, value)
    return f"attribute {key!r}: {problem}" if problem else None
