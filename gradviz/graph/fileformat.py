"""The .gradviz.json file: read with `json` only (nothing in a file is ever executed),
checked field by field, written byte-stable so save(load(save(doc))) == save(doc).

The format is described in docs/file-format.md.
"""
import errno
import json
import math
import os
import re
import stat

import numpy as np

from ..engine.optimizers import OPTIMIZERS, hyper_parameters, make_optimizer
from . import catalog
from .atomic import remove_stale_parts, write_file
from .document import (CONSTANT, CUSTOM_GRADIENT, KINDS, LAYER, OP, VARIABLE, Document, Edge,
                       Node, TapeSettings, json_kind, text_problem)
from .errors import DocumentError
from .names import file_ids
from .ports import ID, parse_port, port_text
from .tensors import MAX_ELEMENTS, data_texts, tensor_from_json
from .skim import holds_infinity, numbers_read, outline
from .validate import planned_problems, validate

FORMAT = "gradviz"
VERSION = 1
TOP_KEYS = {"format", "version", "title", "lesson", "nodes", "edges", "targets", "sources",
            "output_gradients", "tape", "studies", "training"}
NODE_KEYS = {"id", "kind", "op", "label", "attrs", "value", "watched", "trainable", "weights",
             "position"}
MAX_TRAINING_STEPS = 1_000_000   # the Train dock's Run N goes this far
STUDIES = {"jacobian": ("target", "source"), "batch_jacobian": ("target", "source"),
           "hessian": ("target", "source", "newton_eps"),
           "higher_order": ("target", "source", "order"),
           "gradient_check": ("source", "index", "steps")}
PORTS = "a list of ports such as 'node' or 'node:1'"
MAX_CHECK_STEPS = 20     # step sizes of a gradient check (each costs two forward passes)


# -- reading ----------------------------------------------------------------------------------
def loads(text, strict=True):
    """A Document from JSON text. `strict`: also run `validate` and raise its first problem.

    The file's outline is checked first (skim.py): a file of millions of values whose
    declared shapes, sizes or (when `strict`) op shapes are wrong is refused in a second or
    less, before its values are read (a 2000 x 2000 tensor took 3-7 s to read)."""
    skimmed = outline(text)
    if skimmed is not None:
        refusal = _refusal(skimmed, strict)
        if refusal is not None and numbers_read(skimmed):   # else json's words: the full read's
            raise refusal
    doc = from_json(read_json(text))
    if strict:
        problems = validate(doc)
        if problems:
            raise DocumentError.from_problem(problems[0])
    return doc


def _refusal(skimmed, strict):
    """The DocumentError the checks that need no value find in a file's outline, or None."""
    try:
        sketch = from_json(skimmed)
    except DocumentError as e:
        return e
    problems = planned_problems(sketch) if strict else ()
    return DocumentError.from_problem(problems[0]) if problems else None


def read_json(text):
    """The JSON value of `text`, every value read; its slips said in words."""
    try:
        obj = json.loads(text, parse_constant=_no_constant, parse_int=_int, parse_float=float)
        if holds_infinity(obj):   # a number too large for a float: read again to name it
            json.loads(text, parse_constant=_no_constant, parse_int=_int, parse_float=_float)
    except json.JSONDecodeError as e:
        raise DocumentError(_not_json(text, e)) from None
    except RecursionError:
        raise DocumentError("the file is not valid JSON: nested too deeply", where="file") from None
    except _BadNumber as e:
        raise DocumentError(e.args[0], where=_position(text, e.args[1])) from None
    except ValueError as e:
        raise DocumentError(f"the file is not valid JSON: {e}", where="file") from None
    return obj


# Python's json messages in words, by how they begin (several end in 'at', their position
# cut off: 'Unterminated string starting at.'); the place is said as line and column.
JSON_SLIPS = (
    ("Expecting value", "a value is expected there (a number, text in double quotes, true, "
                        "false, null, a list or an object)"),
    ("Expecting property name", "a key in double quotes is expected there (JSON allows no "
                                "comma before a closing brace, and no single quotes)"),
    ("Expecting ':'", "a ':' is expected there, between a key and its value"),
    ("Expecting ','", "a ',' is expected there, between two items"),
    ("Invalid control character", "a text in double quotes holds a tab or a line break there: "
                                  "write it as \\t or \\n"),
    ("Invalid \\uXXXX", "a \\u there is not followed by four hexadecimal digits"),
    ("Invalid \\escape", "a backslash there starts no escape JSON knows (write \\\\ for a "
                         "backslash)"),
    ("Extra data", "the document ends before the file does: more follows it there"),
    ("Illegal trailing comma", "a comma there is followed by a closing bracket: JSON allows no "
                               "trailing comma"),
)


def _not_json(text, e):
    """Where the JSON breaks, in words: a file that ends before its JSON does was cut short
    (a copy or a save interrupted), anything else has a slip at that place."""
    if not text.strip():
        return "the file is empty: a document is a JSON object (open a .gradviz.json file)"
    where = f"line {e.lineno}, column {e.colno}"
    if e.msg.startswith("Unterminated string"):     # no closing quote before the file's end
        return (f"the file seems cut short: it ends inside a text in double quotes that starts "
                f"at {where}")
    words = next((w for start, w in JSON_SLIPS if e.msg.startswith(start)),
                 re.sub(r"\s+at$", "", e.msg))
    if not text[e.pos:].strip():
        return f"the file seems cut short: it is not valid JSON at {where} (its end): {words}"
    return f"the file is not valid JSON at {where}: {words}"


def _no_constant(name):
    raise _BadNumber(f"{name} is not JSON; write non-finite values as \"nan\", \"inf\", \"-inf\"",
                     name)


class _BadNumber(ValueError):
    """(message, the number's text) for a number no field of a document can hold."""


MAX_DIGITS = 4300  # Python's own limit for reading integers


def _int(literal):
    digits = len(literal.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _BadNumber(f"an integer of {digits} digits is too long (at most {MAX_DIGITS})",
                         literal)
    return int(literal)


def _float(literal):
    value = float(literal)
    if not math.isfinite(value):
        raise _BadNumber(f"the number {literal[:40]} is too large for a float (in tensor data, "
                         "write \"inf\" for infinity)", literal)
    return value


def _position(text, literal):
    """'line 3, column 14': where `literal` first stands in `text` as a value, not inside a
    text in quotes (a lesson that mentions NaN) nor as part of a longer number."""
    token = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.+-])(' + re.escape(literal) + r")(?![\w.])")
    at = next((m.start(1) for m in token.finditer(text) if m.group(1)), max(0, text.find(literal)))
    line = text.count("\n", 0, at) + 1
    return f"line {line}, column {at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def load(path, strict=True):
    """The document at `path`; the temporary files that killed saves of it left are removed
    (see atomic.remove_stale_parts)."""
    doc = loads(read_text(path), strict=strict)
    remove_stale_parts(path)
    return doc


MAX_FILE_BYTES = 1 << 30
# Nodes in one document. Opening and editing grow with the node count (300,000 small
# nodes: 135 s to open, 8 s per edit); at 10,000 the app stays usable.
MAX_NODES = 10_000


def too_many_nodes(count):
    return (f"the document has {count} nodes; gradviz opens documents of at most "
            f"{MAX_NODES} nodes, beyond which the editor becomes too slow to use")   # above the text of MAX_ELEMENTS values at a dozen digits each


def read_text(path):
    """The text of the document file at `path`: only a regular file, and at most
    MAX_FILE_BYTES of it (a pipe, a device such as /dev/zero or a huge file is refused
    before it is read, not read until memory runs out)."""
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    # O_NONBLOCK: opening a pipe with no writer would otherwise wait for ever.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DocumentError("not a document file (it is a pipe, a device or a socket); "
                                "open a .gradviz.json file", where="file")
        if info.st_size > MAX_FILE_BYTES:
            raise DocumentError(_too_large(info.st_size), where="file")
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:   # it grew while being read
        raise DocumentError(_too_large(len(data)), where="file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DocumentError("the file is not UTF-8 text") from None


def _too_large(size):
    return (f"the file is {size / 2**20:.0f} MiB; a document may be at most "
            f"{MAX_FILE_BYTES // 2**20} MiB")


KIND_WORDS = {dict: "an object", list: "a list", str: "text", bool: "true or false"}


def _expect(obj, types, where, what, node=None, expected=None):
    """`obj`, if it is of `types`; else an error that says what `what` must be (`expected`,
    or the kind of `types` in JSON's words) and what the file holds: 'nodes must be a list
    of nodes, not text' (it said 'nodes has the wrong type (str)')."""
    if not isinstance(obj, types) or (types is not bool and isinstance(obj, bool)):
        raise DocumentError(f"{what} must be {expected or KIND_WORDS[types]}, not {json_kind(obj)}",
                            where=None if node else where, node=node)
    return obj


def _text(value, what, node=None):
    problem = text_problem(what, value)
    if problem:
        raise DocumentError(problem, node=node, where=None if node else what)
    return value


def from_json(obj):
    _expect(obj, dict, "file", "the document", expected="a JSON object ({ … })")
    if obj.get("format") != FORMAT:
        raise DocumentError(f"not a gradviz document (format is {obj.get('format')!r})"[:200],
                            where="format")
    version = obj.get("version")
    if type(version) is not int or version != VERSION:
        raise DocumentError(f"unknown version {version!r}; this gradviz reads version {VERSION}"
                            [:200], where="version")
    unknown = sorted(set(obj) - TOP_KEYS)
    if unknown:
        raise DocumentError(f"unknown key {unknown[0]!r}"[:200], where="top level")
    doc = Document(title=_text(obj.get("title", "Untitled"), "title"),
                   lesson=_text(obj.get("lesson", ""), "lesson"))
    budget = [MAX_ELEMENTS]
    nodes = _expect(obj.get("nodes", []), list, "nodes", "nodes", expected="a list of nodes")
    if len(nodes) > MAX_NODES:
        raise DocumentError(too_many_nodes(len(nodes)), where="nodes")
    for i, n in enumerate(nodes):
        node = _node(n, f"nodes[{i}]", budget)
        if node.id in doc.nodes:
            raise DocumentError(f"two nodes have the id '{node.id}'", node=node.id,
                                name=node.label or None)
        doc.nodes[node.id] = node
    for i, e in enumerate(_expect(obj.get("edges", []), list, "edges", "edges",
                                         expected="a list of edges")):
        where = f"edges[{i}]"
        if not isinstance(e, dict) or set(e) != {"from", "to"}:
            holds = "" if isinstance(e, dict) else f", not {json_kind(e)}"
            raise DocumentError(f"an edge must be an object with exactly 'from' and 'to'{holds}",
                                where=where)
        doc.edges.append(Edge(parse_port(e["from"], where), parse_port(e["to"], where)))
    doc.targets = [parse_port(p, "targets") for p in _expect(obj.get("targets", []), list,
                                                             "targets", "targets", expected=PORTS)]
    doc.sources = [parse_port(p, "sources") for p in _expect(obj.get("sources", []), list,
                                                             "sources", "sources", expected=PORTS)]
    og = _expect(obj.get("output_gradients", {}), dict, "output_gradients", "output_gradients",
                 expected="an object from ports to tensors")
    for key, value in og.items():
        where = f"output_gradients[{key!r}]"
        doc.output_gradients[parse_port(key, where)] = _tensor(value, where, budget)
    doc.tape = _tape(obj.get("tape", {}))
    doc.studies = _studies(obj.get("studies", {}))
    doc.training = _training(obj.get("training", {}))
    return doc


def _tensor(value, where, budget):
    array = tensor_from_json(value, where)
    budget[0] -= array.size
    if budget[0] < 0:
        raise DocumentError(f"the file holds more than {MAX_ELEMENTS} values in total",
                            where=where)
    return array


def _node(n, where, budget):
    _expect(n, dict, where, "a node", expected="an object with an id and a kind")
    nid = n.get("id")
    if not isinstance(nid, str) or not ID.fullmatch(nid):
        raise DocumentError(f"node id {nid!r} must be a name (letters, digits, _ . -)"[:200],
                            where=where)
    label = n.get("label", "")
    name = label if isinstance(label, str) and label and not text_problem("label", label) else nid
    try:
        return _node_fields(n, nid, name, budget)
    except DocumentError as e:   # named as the canvas will name the node: by its label
        if e.node != nid or e.problem.name is not None or name == nid:
            raise
        raise DocumentError(e.message, node=nid, edge=e.edge, where=e.where, name=name) from None


def _node_fields(n, nid, name, budget):
    unknown = sorted(set(n) - NODE_KEYS)
    if unknown:
        raise DocumentError(f"unknown key {unknown[0]!r}"[:200], node=nid)
    kind = n.get("kind")
    if kind not in KINDS:
        raise DocumentError(f"unknown kind {kind!r}; use one of {', '.join(KINDS)}"[:200], node=nid)
    node = Node(id=nid, kind=kind, op=_expect(n.get("op", ""), str, None, "op", nid),
                label=_text(n.get("label", ""), "label", nid),
                watched=_expect(n.get("watched", False), bool, None, "watched", nid),
                trainable=_expect(n.get("trainable", True), bool, None, "trainable", nid))
    if kind in (CONSTANT, VARIABLE):
        if "value" not in n:
            raise DocumentError(f"a {kind} needs a value", node=nid)
        node.value = _tensor(n["value"], f"node '{name}' value", budget)
    elif "value" in n:
        raise DocumentError(f"a {kind} node has no value", node=nid)
    specs = {OP: catalog.OPS, LAYER: catalog.LAYERS, CUSTOM_GRADIENT: catalog.CUSTOM_RULES}
    if kind in specs and node.op not in specs[kind]:
        raise DocumentError(f"unknown {kind} {node.op!r}"[:200], node=nid)
    node.attrs = _attrs(node, _expect(n.get("attrs", {}), dict, None, "attrs", nid,
                                              expected="an object of attribute names and values"))
    weights = _expect(n.get("weights", {}), dict, None, "weights", nid,
                      expected="an object of weight names and tensors")
    if weights and kind != LAYER:
        raise DocumentError("only a layer has weights", node=nid)
    if kind == LAYER:
        names = catalog.LAYERS[node.op].weight_names(node.attrs)
        for weight in weights:
            if weight not in names:
                raise DocumentError(f"{node.op} has no weight {weight!r}"[:200], node=nid)
        # A layer placed but not yet given weights is a valid draft; validation reports
        # each missing weight on the node.
        for weight in names:
            if weight in weights:
                node.weights[weight] = _tensor(weights[weight], f"node '{name}' weight {weight}",
                                               budget)
    if "position" in n:
        p = n["position"]
        if not (isinstance(p, list) and len(p) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in p)):
            raise DocumentError("position must be [x, y]", node=nid)
        node.position = (float(p[0]), float(p[1]))
    return node


def _attrs(node, given):
    defaults, kinds = catalog.defaults_and_kinds(node)
    attrs = dict(defaults)
    for key, value in given.items():
        problem = catalog.attribute_problem(node, key, value)
        if problem:
            raise DocumentError(problem, node=node.id)
        attrs[key] = float(value) if kinds[key] == "float" else value
    return attrs


def _tape(t):
    _expect(t, dict, "tape", "tape", expected="an object of tape settings")
    unknown = sorted(set(t) - {"persistent", "watch_accessed_variables", "stop_recording"})
    if unknown:
        raise DocumentError(f"unknown key {unknown[0]!r}"[:200], where="tape")
    stop = _expect(t.get("stop_recording", []), list, "tape.stop_recording", "stop_recording",
                   expected="a list of node ids")
    if not all(isinstance(s, str) for s in stop):
        raise DocumentError("stop_recording must list node ids", where="tape.stop_recording")
    return TapeSettings(
        persistent=_expect(t.get("persistent", False), bool, "tape.persistent", "persistent"),
        watch_accessed_variables=_expect(t.get("watch_accessed_variables", True), bool,
                                         "tape.watch_accessed_variables",
                                         "watch_accessed_variables"),
        stop_recording=list(stop))


def _studies(s):
    _expect(s, dict, "studies", "studies", expected="an object of studies by name")
    out = {}
    for name, spec in s.items():
        where = f"studies.{name}"[:80]
        if name not in STUDIES:
            raise DocumentError(f"unknown study {name!r}; use one of {', '.join(STUDIES)}"[:200],
                                where="studies")
        _expect(spec, dict, where, "a study", expected="an object of its settings")
        for key, value in spec.items():
            if key not in STUDIES[name]:
                raise DocumentError(f"unknown key {key!r}"[:200], where=where)
            if key in ("target", "source"):
                parse_port(value, where)
            elif key == "order" and not (type(value) is int and 1 <= value <= 4):
                raise DocumentError("order must be an integer from 1 to 4", where=where)
            elif key == "newton_eps" and not (type(value) in (int, float) and value >= 0
                                              and math.isfinite(value)):
                raise DocumentError("newton_eps must be a non-negative number", where=where)
            elif key == "index" and not _is_index(value):
                raise DocumentError("index must be a list of non-negative integers, one per "
                                    "axis of the source (or one integer)", where=where)
            elif key == "steps" and not _are_steps(value):
                raise DocumentError(f"steps must be a list of 1 to {MAX_CHECK_STEPS} step sizes, "
                                    f"each greater than 0 and at most 1000", where=where)
        out[name] = dict(spec)
    return out


def _is_index(value):
    items = value if type(value) is list else [value]
    return len(items) <= 32 and all(type(i) is int and 0 <= i < 2 ** 31 for i in items)


def _are_steps(value):
    return (type(value) is list and 1 <= len(value) <= MAX_CHECK_STEPS
            and all(type(h) in (int, float) and 0 < h <= 1000 for h in value))


def _training(t):
    """The Train dock's preset: {"optimizer": name, "steps": n, hyper-parameter: value, …},
    each value checked as the optimizer itself checks it."""
    _expect(t, dict, "training", "the training preset",
            expected="an object with an optimizer, its hyper-parameters and steps")
    if not t:
        return {}
    name = t.get("optimizer")
    if type(name) is not str or name not in OPTIMIZERS:
        raise DocumentError(f"'optimizer' must be one of {', '.join(OPTIMIZERS)}",
                            where="training")
    defaults = hyper_parameters(name)
    hyper = {}
    for key, value in t.items():
        where = f"training.{key}"[:80]
        if key == "optimizer":
            continue
        if key == "steps":
            if type(value) is not int or not 1 <= value <= MAX_TRAINING_STEPS:
                raise DocumentError(f"steps must be an integer from 1 to {MAX_TRAINING_STEPS:,}",
                                    where=where)
        elif key not in defaults:
            raise DocumentError(f"{name} has no hyper-parameter {key!r} (it has "
                                f"{', '.join(defaults)})"[:200], where="training")
        elif isinstance(defaults[key], bool) != isinstance(value, bool) \
                or type(value) not in (bool, int, float):
            kind = "true or false" if isinstance(defaults[key], bool) else "a number"
            raise DocumentError(f"{key} must be {kind}", where=where)
        else:
            hyper[key] = value
    try:
        make_optimizer(name, **hyper)
    except ValueError as e:
        raise DocumentError(str(e).replace("`", "")[:200], where="training") from None
    return dict(t)


# -- writing ----------------------------------------------------------------------------------
def to_json(doc):
    """The file's object: nodes named by the user's names (names.file_ids), not the
    editor's ids."""
    doc = doc.renamed(file_ids(doc))
    nodes = []
    for node in doc.nodes.values():
        n = {"id": node.id, "kind": node.kind}
        if node.op:
            n["op"] = node.op
        if node.label:
            n["label"] = node.label
        attrs = catalog.full_attrs(node)
        if attrs:
            n["attrs"] = attrs
        if node.value is not None:
            n["value"] = _tensor_json(node.value)
        if node.watched:
            n["watched"] = True
        if not node.trainable:
            n["trainable"] = False
        if node.weights:
            n["weights"] = {k: _tensor_json(v) for k, v in node.weights.items()}
        if node.position is not None:
            n["position"] = [float(node.position[0]), float(node.position[1])]
        nodes.append(n)
    return {
        "format": FORMAT, "version": VERSION, "title": doc.title, "lesson": doc.lesson,
        "nodes": nodes,
        "edges": [{"from": port_text(e.src), "to": port_text(e.dst)} for e in doc.edges],
        "targets": [port_text(p) for p in doc.targets],
        "sources": [port_text(p) for p in doc.sources],
        "output_gradients": {port_text(p): _tensor_json(v)
                             for p, v in doc.output_gradients.items()},
        "tape": {"persistent": doc.tape.persistent,
                 "watch_accessed_variables": doc.tape.watch_accessed_variables,
                 "stop_recording": list(doc.tape.stop_recording)},
        "studies": doc.studies,
    } | ({"training": doc.training} if doc.training else {})


def dumps(doc):
    """Canonical text: sorted keys, two-space indent, scalar lists on one line."""
    return "".join(pieces(doc))


def pieces(doc):
    """The canonical text of `doc` in pieces of bounded size: a tensor's data is written
    CHUNK values at a time, so saving a document of millions of values never holds
    them all as text (or as Python floats) at once."""
    yield from _emit(to_json(doc), "")
    yield "\n"


CHUNK = 65536


class _TensorData:
    """A tensor's flat data in to_json's output, turned into text only when written."""

    def __init__(self, array):
        self.array = np.asarray(array).reshape(-1)

    def pieces(self):
        flat = self.array
        yield "["
        for start in range(0, flat.size, CHUNK):
            text = ", ".join(data_texts(flat[start:start + CHUNK]))
            yield text if start == 0 else ", " + text
        yield "]"


def _tensor_json(array):
    array = np.asarray(array)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "data": _TensorData(array)}


def _emit(obj, pad):
    if isinstance(obj, dict):
        if not obj:
            yield "{}"
            return
        inner = pad + "  "
        yield "{\n"
        for i, k in enumerate(sorted(obj)):
            yield ",\n" + inner if i else inner
            yield f"{json.dumps(str(k), ensure_ascii=False)}: "
            yield from _emit(obj[k], inner)
        yield "\n" + pad + "}"
    elif isinstance(obj, _TensorData):
        yield from obj.pieces()
    elif isinstance(obj, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple, _TensorData)) for v in obj):
            yield "[" + ", ".join(_scalar(v) for v in obj) + "]"
            return
        inner = pad + "  "
        yield "[\n"
        for i, v in enumerate(obj):
            yield ",\n" + inner if i else inner
            yield from _emit(v, inner)
        yield "\n" + pad + "]"
    else:
        yield _scalar(obj)


def _scalar(obj):
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError("cannot write a non-finite number outside tensor data")
        return repr(obj)
    return json.dumps(obj, ensure_ascii=False)


def save(doc, path, verify=False):
    """Write atomically (see atomic.py): a crash or a full disk never leaves half a file.
    The text is written as it is made (`pieces`): memory stays bounded for any size.
    `verify`: read the written text back as `load` does before it replaces the file, so
    that a document made by a program (`trace`) is written only if it opens (else the
    DocumentError is raised and the old file stays)."""
    def write(f):
        for piece in pieces(doc):
            f.write(piece.encode("utf-8"))
        if verify:
            f.seek(0)
            loads(f.read().decode("utf-8"))
    write_file(path, write)
