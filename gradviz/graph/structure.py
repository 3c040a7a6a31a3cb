"""A document's structure, read without running anything: each node's input slots and
outputs, the order nodes run in, and the problems in the nodes, edges, inputs, references
and cycles.

`analyse` also says which nodes cannot run, so evaluation can still run the rest: a node
the targets do not need never hides their gradients. Below build.py (which skips those
nodes) and validate.py (which adds what running finds).
"""
import collections
from dataclasses import dataclass, field

from . import catalog, slots
from .document import CONSTANT, CUSTOM_GRADIENT, KINDS, LAYER, OP, VARIABLE, Port, text_problem
from .errors import DocumentError, Problem
from .ports import parse_port, port_text
from .tensors import MAX_RANK

GRADIENT_PLACES = ("targets", "sources", "output_gradients")
MAX_VARIADIC_INPUTS = 1000   # inputs of one variadic op (add_n, concat, stack ...)


def filter_ports(doc):
    """The ports whose tensor is a convolution's filter (HWIO, read as in x out images):
    those fed to conv2d's `filters`, and a Conv2D layer's kernel."""
    ports = {e.src for e in doc.edges
             if e.dst.index == 1 and getattr(doc.nodes.get(e.dst.node), "kind", None) == OP
             and doc.nodes[e.dst.node].op == "nn.conv2d"}
    ports.update(Port(nid, 1) for nid, node in doc.nodes.items() if node.kind == LAYER and node.op == "Conv2D")
    return ports


def n_outputs(node):
    """How many output ports a node has (a layer: its output, then its weights)."""
    if node.kind == OP:
        return catalog.OPS[node.op].outputs(catalog.full_attrs(node))
    if node.kind == LAYER:
        return 1 + len(catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node)))
    return 1


def input_slots(node):
    """(fixed number of inputs, variadic?) for a node."""
    if node.kind == OP:
        spec = catalog.OPS[node.op]
        return len(spec.inputs), spec.variadic
    if node.kind in (LAYER, CUSTOM_GRADIENT):
        return 1, False
    return 0, False


def topological_order(doc):
    """Node ids, each after its inputs; raises DocumentError naming a node on a cycle."""
    order, stuck = partial_order(doc)
    if stuck:
        raise DocumentError(_cycle(doc, stuck), node=stuck[0])
    return order


def _cycle(doc, stuck):
    """'the graph has a cycle through a, b', the nodes named as the canvas names them."""
    return "the graph has a cycle through " + ", ".join(catalog.port_name(doc, Port(nid))
                                                         for nid in stuck[:6])


def partial_order(doc):
    """(order, stuck): the nodes that can be ordered, each after its inputs, and the nodes
    on a cycle or after one (in document order)."""
    indegree = {nid: 0 for nid in doc.nodes}
    consumers = {nid: [] for nid in doc.nodes}
    for e in doc.edges:
        if e.src.node in doc.nodes and e.dst.node in doc.nodes:
            indegree[e.dst.node] += 1
            consumers[e.src.node].append(e.dst.node)
    ready = collections.deque(nid for nid, d in indegree.items() if d == 0)
    order = []
    while ready:
        nid = ready.popleft()
        order.append(nid)
        for c in consumers[nid]:
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    return order, [nid for nid in doc.nodes if indegree[nid] > 0]


@dataclass
class Structure:
    problems: list = field(default_factory=list)   # every structural error, in file order
    broken: set = field(default_factory=set)       # nodes that cannot run

    def blocking(self, places=GRADIENT_PLACES):
        """The problems in the fields at `places` (those stop the gradient, or a study)."""
        return [p for p in self.problems if p.where and p.where.startswith(places)]


def _edge_text(e):
    return f"{port_text(e.src)} -> {port_text(e.dst)}"


def node_problems(node):
    """What stops one node from running, on its own (an editor may hold anything)."""
    if node.kind not in KINDS:
        return [Problem(f"unknown kind {node.kind!r}"[:200], node=node.id)]
    if node.kind in (CONSTANT, VARIABLE):
        if node.value is None:
            return [Problem("has no value", node=node.id)]
        if node.value.ndim > MAX_RANK:
            return [Problem(f"the value has rank {node.value.ndim}; at most {MAX_RANK} is "
                            "allowed", node=node.id)]
        return []
    table = {"op": catalog.OPS, "layer": catalog.LAYERS, "custom_gradient": catalog.CUSTOM_RULES}
    if node.op not in table[node.kind]:
        return [Problem(f"unknown {node.kind} {node.op!r}"[:200], node=node.id)]
    problems = [Problem(message, node=node.id) for key, value in node.attrs.items()
                for message in [catalog.attribute_problem(node, key, value)] if message]
    if node.kind == "layer" and not problems:
        names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        problems += [Problem(f"the layer's weight {n!r} is missing", node=node.id)
                     for n in names if n not in node.weights]
    return problems


def text_problems(doc):
    """The title's, the lesson's and the labels' problems (too long, control characters):
    they stop nothing from running."""
    found = [Problem(message, where=what) for what in ("title", "lesson")
             for message in [text_problem(what, getattr(doc, what))] if message]
    return found + [Problem(message, node=node.id) for node in doc.nodes.values()
                    for message in [text_problem("label", node.label)] if message]


def analyse(doc):
    """Every structural problem, and the nodes that cannot run because of one."""
    s = Structure()
    texts = text_problems(doc)
    s.problems += [p for p in texts if p.node is None]
    labels = {p.node: p for p in texts if p.node is not None}
    for node in doc.nodes.values():
        found = node_problems(node)
        if found:
            s.broken.add(node.id)
        s.problems += found + ([labels[node.id]] if node.id in labels else [])
    known = {nid for nid in doc.nodes if nid not in s.broken}
    _edge_problems(doc, known, s)
    incoming = doc.input_index()
    for nid in doc.nodes:
        if nid not in known:
            continue
        node = doc.nodes[nid]
        fixed, variadic = input_slots(node)
        have = {e.dst.index for e in incoming[nid]}
        need = range(max(fixed, max(have) + 1 if variadic and have else fixed))
        missing = [i for i in need if i not in have]
        if missing:
            s.broken.add(nid)
            s.problems.append(_unconnected_problem(doc, nid, missing[0], incoming[nid]))
    s.problems += _reference_problems(doc)
    _, stuck = partial_order(doc)
    if stuck:
        s.broken.update(stuck)
        s.problems.append(Problem(_cycle(doc, stuck), node=stuck[0]))
    return s


def _edge_problems(doc, known, s):
    slots = set()
    for e in doc.edges:
        where = _edge_text(e)
        src, dst = doc.nodes.get(e.src.node), doc.nodes.get(e.dst.node)
        if src is None or dst is None:
            missing = e.src.node if src is None else e.dst.node
            s.problems.append(Problem(f"{'comes from' if src is None else 'goes to'} a missing "
                                      f"node '{missing}'", edge=where))
            if dst is not None:
                s.broken.add(dst.id)
            continue
        if e.src.node in known and e.src.index >= n_outputs(src):
            s.problems.append(Problem(f"node '{src.label or src.id}' has no output {e.src.index} (it has "
                                      f"{n_outputs(src)})", edge=where))
            s.broken.add(dst.id)
        if e.dst.node in known:
            fixed, variadic = input_slots(dst)
            if e.dst.index >= fixed and not (variadic and e.dst.index < MAX_VARIADIC_INPUTS):
                s.problems.append(Problem(f"node '{dst.label or dst.id}' has "
                                          f"{_inputs_in_file(dst.id, fixed)}; there is no port "
                                          f"{e.dst.node}:{e.dst.index}", edge=where))
                s.broken.add(dst.id)
        if e.dst in slots:
            s.problems.append(Problem(f"input {e.dst.index + 1} (port {e.dst.node}:{e.dst.index}) of node "
                                      f"'{dst.label or dst.id}' is connected twice", edge=where))
            s.broken.add(dst.id)
        slots.add(e.dst)


def _inputs_in_file(nid, count):
    """'2 inputs, ports m:0 and m:1 (a file counts them from 0)': how many inputs a node has,
    as a file's edges write them, for an edge whose port is none of them (the words count
    inputs from 1, a file's ports from 0: 'matmul:9' is no 'input 10' to the reader)."""
    if count == 0:
        return "no inputs"
    ports = (f"port {nid}:0" if count == 1 else f"ports {nid}:0 and {nid}:1" if count == 2
             else f"ports {nid}:0 to {nid}:{count - 1}")
    return f"{count} input{'s' if count > 1 else ''}, {ports} (a file counts them from 0)"


def unconnected(index, name):
    """The message of input `index` (0-based, as a file's port) left unconnected: 'input 1
    (a) is not connected', counted from 1 as a reader counts (a file's ports count from 0), with
    `name` the input's name as its port shows it (graph.slots), in the app and the CLI alike."""
    return f"input {index + 1} ({name}) is not connected"


def _unconnected_problem(doc, nid, index, incoming):
    """Input `index` of node `nid` left unconnected, as a Problem whose words a rename says
    anew (Problem.words): its port's letter moves on when another node takes it."""
    def words(now, incoming=None):
        node = now.nodes.get(nid)
        if node is None:
            return message, None
        names = slots.input_names(node, max(input_slots(node)[0], index + 1), now, incoming)
        return unconnected(index, names[index]), None
    message, _ = words(doc, incoming)
    return Problem(message, node=nid, words=words)


def _port_problem(doc, port, where):
    node = doc.nodes.get(port.node)
    if node is None:
        return Problem(f"names a missing node '{port.node}'", where=where)
    if not node_problems(node) and port.index >= n_outputs(node):
        return Problem(f"node '{node.label or node.id}' has no output {port.index}", where=where)
    return None


def _reference_problems(doc):
    problems = []
    for name, ports in (("targets", doc.targets), ("sources", doc.sources),
                        ("output_gradients", list(doc.output_gradients))):
        for p in ports:
            problem = _port_problem(doc, p, f"{name} '{catalog.port_name(doc, p)}'")
            if problem:
                problems.append(problem)
    for p in doc.output_gradients:
        if p not in doc.targets:
            problems.append(Problem("an output gradient is given for a port that is not a "
                                    "target", where=f"output_gradients '{catalog.port_name(doc, p)}'"))
    for nid in doc.tape.stop_recording:
        if nid not in doc.nodes:
            problems.append(Problem(f"names a missing node '{nid}'", where="tape.stop_recording"))
        elif doc.nodes[nid].kind in (CONSTANT, VARIABLE):
            problems.append(Problem("an input node cannot be in a stop_recording region "
                                    "(only ops are recorded)", node=nid))
    for study, spec in doc.studies.items():
        for key in ("target", "source"):
            if key in spec:
                where = f"studies.{study}.{key}"
                problem = _port_problem(doc, parse_port(spec[key], where), where)
                if problem:
                    problems.append(problem)
    return problems


def structure_problems(doc):
    """Problems found without running anything: nodes, edges, inputs, references, cycles."""
    return analyse(doc).problems
