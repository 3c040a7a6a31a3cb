"""The reader's names of nodes: a node's label is its name in every list, header, code line
and JSON key; its id is internal (what edges and files refer to).

Two nodes may carry the same label, so a name that must be unique (a JSON key, a Python
variable) takes a TF-style suffix: x, x_1, x_2. A name that code needs is also made a
valid identifier: 'y_sq (before reset)' becomes y_sq_before_reset.
"""
import keyword
import re

from .catalog import api_name, port_name
from .document import fresh


def node_name(node):
    """What the canvas writes on the node: its label, else its id."""
    return node.label or node.id


def identifier(text):
    """A valid Python identifier that reads like `text` ('W1' stays W1, 'y (old)' -> y_old)."""
    name = re.sub(r"\W+", "_", str(text), flags=re.ASCII).strip("_") or "node"
    if name[0].isdigit():
        name = "n_" + name
    return name + "_" if keyword.iskeyword(name) else name


def op_stem(engine_type):
    """The name TF's Python API gives an op of this type, the public function's name
    without its module: MatMul -> matmul, SoftmaxCrossEntropyWithLogits ->
    softmax_cross_entropy_with_logits (a counter makes it unique: matmul_1)."""
    return identifier(api_name(engine_type).rsplit(".", 1)[-1])


def unique_names(doc, taken=(), make=node_name):
    """{node id: its name, made unique in document order}; `taken` names are avoided."""
    used, out, counters = set(taken), {}, {}
    for nid, node in doc.nodes.items():
        name = fresh(make(node), used, counters)
        used.add(name)
        out[nid] = name
    return out


def identifiers(doc, reserved=()):
    """{node id: a unique Python identifier from its label}."""
    return unique_names(doc, reserved, lambda node: identifier(node_name(node)))


def port_names(doc, ports):
    """{port: its unique reader's name} ('W1', 'layer.kernel', 'split:1')."""
    unique = unique_names(doc)
    out = {}
    for port in ports:
        node = doc.nodes.get(port.node)
        name = port_name(doc, port)
        if node is not None and unique[port.node] != node_name(node):
            name = unique[port.node] + name[len(node_name(node)):]
        out[port] = name
    return out
