"""Checking a document: structure first (edges, inputs, cycles, references), then shapes.

Shapes are inferred by running the engine forward on the document's own values,
without a tape, after the size checks: the engine is the single authority on
what an op accepts, and every refusal becomes a problem on the node.
"""
from .build import build, input_slots, n_outputs, topological_order
from .document import CONSTANT, VARIABLE
from .errors import DocumentError, Problem
from .fileformat import port_text


def _edge_text(e):
    return f"{port_text(e.src)} -> {port_text(e.dst)}"


def node_problems(node):
    """What is wrong with one node on its own (an editor may hold anything)."""
    from . import catalog
    from .document import KINDS
    if node.kind not in KINDS:
        return [Problem(f"unknown kind {node.kind!r}", node=node.id)]
    if node.kind in (CONSTANT, VARIABLE):
        return [] if node.value is not None else [Problem("has no value", node=node.id)]
    table = {"op": catalog.OPS, "layer": catalog.LAYERS, "custom_gradient": catalog.CUSTOM_RULES}
    if node.op not in table[node.kind]:
        return [Problem(f"unknown {node.kind} {node.op!r}", node=node.id)]
    defaults, kinds = catalog.defaults_and_kinds(node)
    problems = []
    for key, value in node.attrs.items():
        problem = (f"unknown attribute {key!r}" if key not in defaults
                   else catalog.check_attr(kinds[key], value))
        if problem:
            problems.append(Problem(f"attribute {key!r}: {problem}"
                                    if key in defaults else problem, node=node.id))
    if node.kind == "layer":
        names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        problems += [Problem(f"the layer's weight {n!r} is missing", node=node.id)
                     for n in names if n not in node.weights]
    return problems


def structure_problems(doc):
    """Problems that make running the document meaningless, one per place."""
    problems = [p for node in doc.nodes.values() for p in node_problems(node)]
    if problems:
        return problems
    slots = {}
    for e in doc.edges:
        where = _edge_text(e)
        src = doc.nodes.get(e.src.node)
        dst = doc.nodes.get(e.dst.node)
        if src is None:
            problems.append(Problem(f"comes from a missing node '{e.src.node}'", edge=where))
            continue
        if dst is None:
            problems.append(Problem(f"goes to a missing node '{e.dst.node}'", edge=where))
            continue
        if e.src.index >= n_outputs(src):
            problems.append(Problem(f"node '{src.id}' has no output {e.src.index} (it has "
                                    f"{n_outputs(src)})", edge=where))
        fixed, variadic = input_slots(dst)
        if e.dst.index >= fixed and not (variadic and e.dst.index < 1000):
            what = "no inputs" if fixed == 0 else f"{fixed} input(s)"
            problems.append(Problem(f"node '{dst.id}' has {what}; there is no input "
                                    f"{e.dst.index}", edge=where))
        if e.dst in slots:
            problems.append(Problem(f"input {e.dst.index} of node '{dst.id}' is connected twice",
                                    edge=where))
        slots[e.dst] = e
    for node in doc.nodes.values():
        fixed, variadic = input_slots(node)
        have = {e.dst.index for e in doc.edges if e.dst.node == node.id}
        need = range(max(fixed, max(have) + 1 if variadic and have else fixed))
        missing = [i for i in need if i not in have]
        if missing:
            problems.append(Problem(f"input {missing[0]} ({_input_name(node, missing[0])}) is not "
                                    "connected", node=node.id))
    problems += _reference_problems(doc)
    if not problems:
        try:
            topological_order(doc)
        except DocumentError as e:
            problems.append(e.problem)
    return problems


def _input_name(node, i):
    from . import catalog
    if node.kind == "op":
        names = catalog.OPS[node.op].inputs
        return names[min(i, len(names) - 1)].rstrip("*")
    return "x"


def _port_problem(doc, port, where):
    node = doc.nodes.get(port.node)
    if node is None:
        return Problem(f"names a missing node '{port.node}'", where=where)
    if port.index >= n_outputs(node):
        return Problem(f"node '{node.id}' has no output {port.index}", where=where)
    return None


def _reference_problems(doc):
    problems = []
    for name, ports in (("targets", doc.targets), ("sources", doc.sources),
                        ("output_gradients", list(doc.output_gradients))):
        for p in ports:
            problem = _port_problem(doc, p, f"{name} '{port_text(p)}'")
            if problem:
                problems.append(problem)
    for p in doc.output_gradients:
        if p not in doc.targets:
            problems.append(Problem("an output gradient is given for a port that is not a "
                                    "target", where=f"output_gradients '{port_text(p)}'"))
    for nid in doc.tape.stop_recording:
        if nid not in doc.nodes:
            problems.append(Problem(f"names a missing node '{nid}'", where="tape.stop_recording"))
        elif doc.nodes[nid].kind in (CONSTANT, VARIABLE):
            problems.append(Problem("an input node cannot be in a stop_recording region "
                                    "(only ops are recorded)", node=nid))
    for study, spec in doc.studies.items():
        for key in ("target", "source"):
            if key in spec:
                from .fileformat import parse_port
                problem = _port_problem(doc, parse_port(spec[key], study), f"studies.{study}.{key}")
                if problem:
                    problems.append(problem)
    return problems


def _shape_problems(doc, built):
    problems = list(built.problems)
    for p, g in doc.output_gradients.items():
        t = built.tensors.get(p)
        if t is not None and tuple(g.shape) != tuple(t.shape):
            problems.append(Problem(f"the output gradient has shape {list(g.shape)} but the "
                                    f"target has shape {list(t.shape)}",
                                    where=f"output_gradients '{port_text(p)}'"))
        elif t is not None and g.dtype != t._value.dtype:
            problems.append(Problem(f"the output gradient has dtype {g.dtype.name} but the "
                                    f"target has {t._value.dtype.name}",
                                    where=f"output_gradients '{port_text(p)}'"))
    return problems


def validate(doc):
    """Every problem found, structural ones first; empty when the document can run."""
    problems = structure_problems(doc)
    if problems:
        return problems
    return _shape_problems(doc, build(doc))


def infer_shapes(doc):
    """{Port: (shape, dtype name)} for every node output that can be computed."""
    if structure_problems(doc):
        return {}
    return {p: (tuple(t.shape), t._value.dtype.name) for p, t in build(doc).tensors.items()}


__all__ = ["validate", "infer_shapes", "structure_problems"]
