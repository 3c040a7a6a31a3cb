"""A document as a runnable TensorFlow-style script (`import gradviz as tf`).

The script builds the same tensors in the same order as `evaluate` does, inside a
real GradientTape (plus an inner tape when the document has 'gradient' nodes),
and prints the gradients of the targets with respect to the sources. It is what
the app's Code view shows; the app never runs code, the user may.
"""
import textwrap

import numpy as np

from . import catalog
from .document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Port
from .budget import make_plan
from .names import identifiers, objective_name, objective_note
from .ports import parse_port, port_text
from .structure import input_slots, partial_order, topological_order

# The names the script itself calls: no node may take one. The script's own variables
# (tape, grad, grads, jacobian, a layer object ...) take names no node has, so that a node
# keeps its name in the code as everywhere else (a node called grad was grad_1 here while
# `gradviz run` and the canvas called it grad).
_RESERVED = {"tf", "print", "zip"}
_OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}
_WIDTH = 96


def to_python(doc):
    """The document as a script whose printed gradients equal `graph.evaluate(doc)`'s."""
    return _Writer(doc).script()


class _Writer:
    def __init__(self, doc):
        self.doc = doc
        self.names = identifiers(doc, _RESERVED)   # node id -> Python name, from its label
        used = set(_RESERVED) | set(self.names.values())
        self.tape = _fresh("tape", used)
        self.inner = _fresh("inner_tape", used) if self._gradient_nodes() else None
        self.grad, self.grads, self.each, self.g = (_fresh(stem, used) for stem in ("grad", "grads", "name", "g"))
        self.study_vars = {name: _fresh(name, used) for name in ("jacobian", "batch_jacobian")}
        self.used = used
        self.layer_names = {}    # layer node id -> its layer object's name
        self.skipped = set()     # nodes that cannot be written yet (missing inputs)
        self.custom_names = {}   # custom-gradient node id -> its function's name

    # -- names ------------------------------------------------------------------------
    def _gradient_nodes(self):
        return [n for n in self.doc.nodes.values() if n.kind == OP and n.op == "gradient"]

    def layer_name(self, nid):
        """The layer object's name; its output tensor takes the node's own name."""
        if nid not in self.layer_names:
            name = self.names[nid]
            self.layer_names[nid] = _fresh(name + "_" if name.endswith("layer") else name + "_layer",
                                           self.used)
        return self.layer_names[nid]

    def ref(self, port):
        """The Python expression for a node output."""
        node = self.doc.nodes[port.node]
        name = self.names[port.node]
        if node.kind == LAYER:
            if port.index == 0:
                return name
            weights = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
            return f"{self.layer_name(port.node)}.{weights[port.index - 1]}"
        if node.kind == OP and catalog.OPS[node.op].outputs(catalog.full_attrs(node)) > 1:
            return f"{name}[{port.index}]"
        return name

    def custom_name(self, node):
        """The custom-gradient function: '<name>_fn', the tensor it returns takes the
        node's own name (its label)."""
        if node.id not in self.custom_names:
            self.custom_names[node.id] = _fresh(f"{self.names[node.id]}_fn", self.used)
        return self.custom_names[node.id]

    def tapes(self):
        return [self.tape] + ([self.inner] if self.inner else [])

    # -- the script -------------------------------------------------------------------
    def script(self):
        doc = self.doc
        order = topological_order(doc)
        out = [self.header(), "import gradviz as tf", ""]
        inputs = [nid for nid in order if doc.nodes[nid].kind in (CONSTANT, VARIABLE)]
        layers = [nid for nid in order if doc.nodes[nid].kind == LAYER]
        if inputs:
            out.append("# Inputs")
            out += [self.input_line(doc.nodes[nid]) for nid in inputs]
            out.append("")
        for nid in layers:
            out += self.layer_lines(doc.nodes[nid]) + [""]
        for nid in order:
            if doc.nodes[nid].kind == CUSTOM_GRADIENT:
                out += self.custom_lines(doc.nodes[nid]) + ["", ""]
        studies = self.study_lines()
        persistent = doc.tape.persistent or bool(studies)
        args = []
        if persistent:
            args.append("persistent=True")
        if not doc.tape.watch_accessed_variables:
            args.append("watch_accessed_variables=False")
        out.append(f"with tf.GradientTape({', '.join(args)}) as {self.tape}:")
        indent = "    "
        if self.inner:
            out.append(f"{indent}# 'gradient' nodes differentiate inside the outer tape, "
                       "so it records their backward ops")
            out.append(f"{indent}with tf.GradientTape(persistent=True) as {self.inner}:")
            indent += "    "
        body = self.watch_lines(order)
        stopped = set(doc.tape.stop_recording)
        ops = [nid for nid in order if doc.nodes[nid].kind not in (CONSTANT, VARIABLE)]
        i = 0
        while i < len(ops):
            if ops[i] in stopped:
                block = []
                while i < len(ops) and ops[i] in stopped:
                    block.append(ops[i])
                    i += 1
                pauses = ", ".join(f"{t}.stop_recording()" for t in self.tapes())
                body.append(f"with {pauses}:")
                for nid in block:
                    body += ["    " + line for line in self.op_lines(doc.nodes[nid])]
            else:
                body += self.op_lines(doc.nodes[ops[i]])
                i += 1
        if not any(line and not line.lstrip().startswith("#") for line in body):
            body.append("pass")
        out += [indent + line if line else "" for line in body]
        out.append("")
        out += self.gradient_lines()
        if studies:
            out += [""] + studies
        return "\n".join(out).rstrip() + "\n"

    def header(self):
        doc = self.doc
        lines = [doc.title or "Untitled", ""]
        if doc.lesson:
            lines += textwrap.wrap(doc.lesson, 72) + [""]
        lines.append("Written by gradviz from the graph document; run it with gradviz installed.")
        body = "\n".join(lines).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        return f'"""{body}\n"""'

    def input_line(self, node):
        name = self.names[node.id]
        value = node.value if node.value is not None else np.zeros((), np.float32)
        if node.kind == CONSTANT:
            return f"{name} = tf.constant({_value_args(value)})"
        extra = "" if node.trainable else ", trainable=False"
        literal, nested = _literal(value)
        if nested:
            return (f"{name} = tf.Variable({literal}, dtype=tf.{value.dtype.name}{extra}, "
                    f"name={name!r})")
        return f"{name} = tf.Variable(tf.constant({_value_args(value)}){extra}, name={name!r})"

    def layer_lines(self, node):
        attrs = catalog.full_attrs(node)
        layer = self.layer_name(node.id)
        weights = catalog.LAYERS[node.op].weight_names(attrs)
        first = next((node.weights[w] for w in weights if w in node.weights), None)
        n = first.shape[0] if first is not None and first.ndim else 1
        dtype = first.dtype.name if first is not None else "float32"
        defaults = catalog.LAYERS[node.op].attrs
        if node.op == "Dense":
            args = [repr(attrs["units"])]
        elif node.op == "Conv2D":
            args = [repr(attrs["filters"]), _py(attrs["kernel_size"])]
            args += [f"{k}={_py(attrs[k])}" for k in ("strides", "padding", "dilation_rate")
                     if attrs[k] != defaults[k]]
            n = first.shape[-2] if first is not None and first.ndim == 4 else 1
        elif node.op == "Flatten":
            args = []
        elif node.op == "BatchNormalization":
            args = [f"epsilon={attrs['epsilon']!r}", f"momentum={attrs['momentum']!r}"]
        elif node.op == "LayerNormalization":
            args = [f"epsilon={attrs['epsilon']!r}"] + [
                f"{k}=False" for k in ("center", "scale") if not attrs[k]]
        else:  # Embedding
            args = [repr(attrs["input_dim"]), repr(attrs["output_dim"])]
        if node.op in ("Dense", "Conv2D"):
            if attrs["activation"] != "linear":
                args.append(f"activation={attrs['activation']!r}")
            if not attrs["use_bias"]:
                args.append("use_bias=False")
        if not node.trainable:
            args.append("trainable=False")
        if dtype != "float32":
            args.append(f"dtype={dtype!r}")
        args.append(f"name={self.names[node.id]!r}")
        lines = [f"{layer} = tf.keras.layers.{node.op}({', '.join(args)})"]
        if node.op == "Conv2D":
            lines.append(f"{layer}.build((None, None, None, {n}))  # creates its weights "
                         f"for {n} input channels")
        elif node.op == "Embedding":
            lines.append(f"{layer}.build()  # creates its weights")
        elif node.op != "Flatten":
            lines.append(f"{layer}(tf.zeros((1, {n}), dtype=tf.{dtype}))  # calling it once "
                         "creates its weights")
        for w in weights:
            if w in node.weights:
                lines.append(f"{layer}.{w}.assign(tf.constant({_value_args(node.weights[w])}))")
        return lines

    def custom_lines(self, node):
        attrs = catalog.full_attrs(node)
        rule = {
            "clip_by_norm": f"tf.clip_by_norm(dy, {attrs.get('clip_norm')!r})",
            "scale": f"dy * tf.constant({attrs.get('factor')!r}, dtype=dy.dtype)",
            "zero": "tf.zeros_like(dy)",
            "identity": "dy",
        }[node.op]
        fn = self.custom_name(node)
        return ["@tf.custom_gradient",
                f"def {fn}(y):",
                f'    """Identity forward; backward: {catalog.CUSTOM_RULES[node.op][1]}."""',
                "    def grad(dy):",
                f"        return {rule}",
                "    return tf.identity(y), grad"]

    def watch_lines(self, order):
        """tape.watch for watched inputs, inner_tape.watch for the sources of 'gradient' nodes."""
        doc = self.doc
        lines = []
        grad_watch = set()
        for n in self._gradient_nodes():
            grad_watch |= {e.src.node for e in doc.inputs_of(n.id) if e.dst.index == 1}
        for nid in order:
            node = doc.nodes[nid]
            if node.kind in (CONSTANT, VARIABLE):
                tapes = self.tapes() if node.watched else []
                if nid in grad_watch and self.inner and self.inner not in tapes:
                    tapes = tapes + [self.inner]
                lines += [f"{t}.watch({self.names[nid]})" for t in tapes]
            elif node.kind == LAYER and node.watched:
                weights = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
                for t in self.tapes():
                    lines += [f"{t}.watch({self.layer_name(nid)}.{w})" for w in weights]
        return lines

    def op_lines(self, node):
        ins = [self.ref(e.src) for e in self.doc.inputs_of(node.id)]
        name = self.names[node.id]
        needed, variadic = input_slots(node)
        known = node.kind != OP or node.op in catalog.OPS
        upstream = [e.src.node for e in self.doc.inputs_of(node.id)]
        if not known or len(ins) < max(needed, 1 if variadic else 0) or \
                any(n not in self.doc.nodes or n in self.skipped for n in upstream):
            self.skipped.add(node.id)
            return [f"# {name} = {node.op or node.kind}(...): not all inputs are connected yet"]
        if node.kind == LAYER:
            training = ""
            if node.op == "BatchNormalization":
                training = f", training={catalog.full_attrs(node)['training']!r}"
            return [f"{name} = {self.layer_name(node.id)}({ins[0]}{training})"]
        if node.kind == CUSTOM_GRADIENT:
            return [f"{name} = {self.custom_name(node)}({ins[0]})"]
        return [f"{name} = {self.op_expression(node, ins)}"]

    def op_expression(self, node, ins):
        op, a = node.op, catalog.full_attrs(node)
        spec = catalog.OPS[op]

        def kw(*keys, skip_defaults=True):
            return "".join(f", {k}={_py(a[k])}" for k in keys
                           if not (skip_defaults and a[k] == spec.attrs[k]))
        if op in _OPERATORS:
            return f"{ins[0]} {_OPERATORS[op]} {ins[1]}"
        if op == "gradient":
            return f"{self.inner}.gradient({ins[0]}, {ins[1]})"
        if spec.group == "math" and len(spec.inputs) == 2:
            return f"tf.{op}({ins[0]}, {ins[1]})"
        if op == "add_n":
            return f"tf.add_n([{', '.join(ins)}])"
        if op == "clip_by_value":
            return f"tf.clip_by_value({ins[0]}, {a['clip_value_min']!r}, {a['clip_value_max']!r})"
        if op == "matmul":
            return f"tf.matmul({ins[0]}, {ins[1]}{kw('transpose_a', 'transpose_b')})"
        if op == "einsum":
            return f"tf.einsum({a['equation']!r}, {', '.join(ins)})"
        if op == "linalg.solve":
            return f"tf.linalg.solve({ins[0]}, {ins[1]}{kw('adjoint')})"
        if op.startswith("losses."):
            args = (["from_logits=True"] if a.get("from_logits") else []) + [
                f"reduction={a['reduction']!r}"] * (a["reduction"] != "sum_over_batch_size")
            return f"tf.{op}({', '.join(args)})({ins[0]}, {ins[1]})"
        if op == "nn.embedding_lookup":
            return f"tf.nn.embedding_lookup({ins[0]}, {ins[1]})"
        if op == "nn.dropout":
            return (f"tf.nn.dropout({ins[0]}, rate={a['rate']!r}"
                    f"{kw('noise_shape')}, seed={a['seed']!r})")
        if op in ("math.argmax", "math.argmin"):
            out_type = "" if a["output_type"] == "int64" else f", output_type=tf.{a['output_type']}"
            return f"tf.{op}({ins[0]}, axis={_py(a['axis'])}{out_type})"
        if op in ("nn.softmax_cross_entropy_with_logits",
                  "nn.sparse_softmax_cross_entropy_with_logits"):
            return f"tf.{op}(labels={ins[0]}, logits={ins[1]}{kw(*spec.attrs)})"
        if spec.group == "reduce" and op not in ("clip_by_norm",):
            return f"tf.{op}({ins[0]}{kw('axis', 'keepdims')})"
        if op == "clip_by_norm":
            return f"tf.clip_by_norm({ins[0]}, {a['clip_norm']!r})"
        if op in ("reshape", "broadcast_to"):
            return f"tf.{op}({ins[0]}, {_py(a['shape'])})"
        if op == "transpose":
            return f"tf.transpose({ins[0]}{kw('perm')})"
        if op == "expand_dims":
            return f"tf.expand_dims({ins[0]}, {_py(a['axis'])})"
        if op == "squeeze":
            return f"tf.squeeze({ins[0]}{kw('axis')})"
        if op == "tile":
            return f"tf.tile({ins[0]}, {_py(a['multiples'])})"
        if op == "pad":
            return f"tf.pad({ins[0]}, {_py(a['paddings'])}{kw('constant_values')})"
        if op in ("concat", "stack"):
            return f"tf.{op}([{', '.join(ins)}], axis={_py(a['axis'])})"
        if op == "split":
            return f"tf.split({ins[0]}, {a['num']!r}, axis={_py(a['axis'])})"
        if op == "slice":
            return f"tf.slice({ins[0]}, {_py(a['begin'])}, {_py(a['size'])})"
        if op == "getitem":
            return f"{ins[0]}[{_subscript(a['index'])}]"
        if op == "gather":
            return f"tf.gather({ins[0]}, {_py(a['indices'])}{kw('axis')})"
        if op == "cast":
            return f"tf.cast({ins[0]}, tf.{a['dtype']})"
        if op in ("nn.softmax", "nn.log_softmax"):
            return f"tf.{op}({ins[0]}{kw('axis')})"
        if op in _WINDOW_OPS:
            return _window_call(op, ins, a, spec.attrs)
        # one-input ops without attributes: math, nn, linalg.inv, stop_gradient, identity
        return f"tf.{op}({', '.join(ins)})"

    def gradient_lines(self):
        doc = self.doc
        if any(p.node in self.skipped for p in doc.targets + doc.sources):
            return ["# The gradient follows once every input is connected."]
        targets = [self.ref(p) for p in doc.targets if p.node in doc.nodes]
        sources = [self.ref(p) for p in doc.sources if p.node in doc.nodes]
        if not targets or not sources:
            written = [nid for nid in doc.nodes if nid not in self.skipped]
            shown = targets or [self.ref(Port(nid, 0)) for nid in written[-1:]]
            return ["# Choose targets and sources to differentiate; the values so far:"] + \
                [f"print({t!r}, {t})" for t in shown]
        target = targets[0] if len(targets) == 1 else f"[{', '.join(targets)}]"
        args = [target, sources[0] if len(sources) == 1 else f"[{', '.join(sources)}]"]
        if doc.output_gradients:
            seeds = [f"tf.constant({_value_args(doc.output_gradients[p])})"
                     if p in doc.output_gradients else f"tf.ones_like({self.ref(p)})"
                     for p in doc.targets]
            args.append("output_gradients=" + (seeds[0] if len(seeds) == 1
                                               else f"[{', '.join(seeds)}]"))
        call = f"{self.tape}.gradient({', '.join(args)})"
        shapes = self._target_shapes()
        of = objective_name(doc, shapes, lambda _, p: self.ref(p))
        note = objective_note(doc, shapes, lambda _, p: self.ref(p))
        said = [f"# {line}" for line in textwrap.wrap(note, _WIDTH - 2)] if note else []
        if len(sources) == 1:
            return [*said, f"{self.grad} = {call}",
                    f'print("∂{of} / ∂{sources[0]} =", {self.grad})']
        return [*said, f"{self.grads} = {call}",
                f"for {self.each}, {self.g} in zip({sources!r}, {self.grads}):",
                f'    print(f"∂{of} / ∂{{{self.each}}} =", {self.g})']

    def _target_shapes(self):
        """{target port: an array of its shape}: what tells a scalar target (itself) from a
        tensor (its sum), predicted without running anything."""
        plan = make_plan(self.doc, partial_order(self.doc)[0])
        return {p: np.broadcast_to(np.float32(0), plan.shapes[p])
                for p in self.doc.targets if p in plan.shapes}

    def study_lines(self):
        """Jacobian studies as tape calls; the nested-tape studies are named in a comment."""
        doc = self.doc
        lines = []
        for name in ("jacobian", "batch_jacobian"):
            if name not in doc.studies:
                continue
            study = doc.studies[name]
            try:
                t = self._study_port(study.get("target"), doc.targets)
                s = self._study_port(study.get("source"), doc.sources)
            except ValueError:
                continue
            var = self.study_vars[name]
            lines += [f"{var} = {self.tape}.{name}({t}, {s})",
                      f'print("{name} of {t} w.r.t. {s}: shape", {var}.shape)']
        for name in ("hessian", "higher_order"):
            if name in doc.studies:
                settings = ", ".join(self._setting(k, v) for k, v in doc.studies[name].items())
                lines.append(f"# The document also studies the {name.replace('_', ' ')} "
                             f"({settings}); it needs nested tapes, see the app's study view.")
        return lines

    def _setting(self, key, value):
        """'target=loss': a study's setting, a port named as the code names it (not its id)."""
        if key in ("target", "source"):
            try:
                value = self._study_port(value, ())
            except ValueError:   # DocumentError too: a port that names no node
                pass
        return f"{key}={value}"

    def _study_port(self, given, default):
        if given:
            port = parse_port(given, "study") if isinstance(given, str) else given
        elif default:
            port = default[0]
        else:
            raise ValueError("no port")
        if port.node not in self.doc.nodes:
            raise ValueError(port_text(port))
        return self.ref(port)


_WINDOW_OPS = ("nn.conv2d", "nn.conv1d", "nn.max_pool2d", "nn.avg_pool2d")


def _window_call(op, ins, a, defaults):
    """tf.nn.conv2d(x, w, strides=..., padding=...) and the pools: strides and padding
    always written (TF requires them), dilations only when not the default."""
    padding = a["explicit_paddings"] if a["padding"] == "EXPLICIT" else a["padding"]
    args = list(ins)
    if "ksize" in a:
        args.append(f"ksize={_py(a['ksize'])}")
    stride = "stride" if op == "nn.conv1d" else "strides"
    args += [f"{stride}={_py(a[stride])}", f"padding={_py(padding)}"]
    if "dilations" in a and a["dilations"] != defaults["dilations"]:
        args.append(f"dilations={_py(a['dilations'])}")
    return f"tf.{op}({', '.join(args)})"


def _fresh(stem, used):
    name = stem
    while name in used:
        name += "_"
    used.add(name)
    return name


def _py(value):
    return repr(value)


def _subscript(index):
    parts = []
    for k in index:
        if k == "...":
            parts.append("...")
        elif isinstance(k, list):
            start, stop, step = ("" if v is None else str(v) for v in k)
            parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        else:
            parts.append(str(k))
    return ", ".join(parts)


def _number(x, dtype):
    if dtype.kind == "b":
        return "True" if x else "False"
    if dtype.kind in "iu":
        return str(int(x))
    x = dtype.type(x)
    if not np.isfinite(x):
        return f'float("{float(x)}")'
    text = str(x) if dtype.itemsize < 8 else repr(float(x))
    return text if any(c in text for c in ".en") else text + ".0"


def _literal(value):
    """(Python literal, nested?): nested lists for small arrays of rank <= 2, else a flat list."""
    value = np.asarray(value)
    if value.ndim == 0:
        return _number(value.item(), value.dtype), True
    if value.ndim <= 2 and value.size <= 64:
        rows = ["[" + ", ".join(_number(x, value.dtype) for x in row) + "]"
                for row in (value if value.ndim == 2 else [value])]
        if value.ndim == 1:
            return rows[0], True
        if sum(map(len, rows)) <= 60:
            return "[" + ", ".join(rows) + "]", True
        return "[\n" + "".join(f"    {r},\n" for r in rows) + "]", True
    flat = ", ".join(_number(x, value.dtype) for x in value.ravel())
    return "[" + "\n    ".join(textwrap.wrap(flat, _WIDTH)) + "]", False


def _value_args(value):
    """Arguments of tf.constant reproducing `value` exactly (dtype and shape included)."""
    value = np.asarray(value)
    literal, nested = _literal(value)
    shape = "" if nested else f", shape={list(value.shape)}"
    return f"{literal}{shape}, dtype=tf.{value.dtype.name}"
