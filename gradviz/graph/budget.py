"""How much one evaluation may compute, decided before anything runs.

A document of a few hundred bytes can ask for gigabytes (a scalar broadcast to
[7000, 7000], forty times) or for hours (a chain of 5000 x 5000 matrix products).
Shape inference (shapes.py) knows every node's outputs before it runs, so the plan
adds up what the evaluation will hold and do, node by node, and the first node that
goes over a limit gets the problem, with the numbers; it and the nodes after it do
not run. The limits:

- MAX_ELEMENTS values and MAX_RANK axes in any one tensor;
- MAX_VALUES values held by one evaluation: every node output, and a cotangent for
  each output on a path from a source to a target (the backward pass);
- MAX_MULTIPLY_ADDS for the matrix products, einsums, solves and inverses of one
  evaluation, counted three times on the gradient path (forward, and two products
  back per product forward);
- a study (jacobian, hessian, ...) repeats a backward pass once per row: at most
  MAX_STUDY_VALUES values processed and MAX_MULTIPLY_ADDS multiply-adds in all.

On a laptop each limit is a few seconds of work; a 600 x 600 Hessian of a small
network is far below them.
"""
import math
from dataclasses import dataclass, field

from . import catalog
from .document import OP, Port
from .errors import Problem
from .shape_error import ShapeError
from .shapes import infer
from .tensors import MAX_ELEMENTS, amount, size_problem

MAX_RANK = 32  # axes of a computed tensor (numpy's limit is 64; a Jacobian adds axes)
MAX_VALUES = 100_000_000
MAX_MULTIPLY_ADDS = 50_000_000_000
MAX_STUDY_VALUES = 2_000_000_000


@dataclass
class Plan:
    """Predicted output shapes and costs of the nodes that may run, in running order."""

    order: list = field(default_factory=list)       # node ids that may run
    shapes: dict = field(default_factory=dict)      # Port -> shape
    values: dict = field(default_factory=dict)      # node id -> values of its outputs
    multiply_adds: dict = field(default_factory=dict)  # node id -> forward multiply-adds
    problems: list = field(default_factory=list)
    over_limit: bool = False   # a node breaks a size limit: nothing runs (as in the CLI)
    total_values: int = 0
    total_multiply_adds: int = 0


def make_plan(doc, order, skip=(), path=()):
    """Walk `order`, leaving out `skip` and every node whose input cannot be computed.
    `path`: the nodes a backward pass will go through (their cost counts again)."""
    plan = Plan()
    incoming = doc.input_index()
    for nid in order:
        node = doc.nodes[nid]
        if nid in skip:
            continue
        inputs = [plan.shapes.get(e.src) for e in incoming[nid]]
        if any(s is None for s in inputs):
            continue
        problem = _add(plan, doc, node, inputs, nid in path, incoming[nid])
        if problem:
            plan.problems.append(problem)
            plan.over_limit = plan.over_limit or not isinstance(problem, _ShapeProblem)
            continue
        plan.order.append(nid)
    return plan


class _ShapeProblem(Problem):
    """A node whose shapes do not fit: the nodes that do not depend on it may still run."""

    __slots__ = ()


def _shape_problem(e, node, doc, edges):
    """ShapeError `e` of `node` as a problem whose words a rename says anew (Problem.words)."""
    e.__traceback__ = None    # kept by the problem for its words, not the frames

    def words(now):
        return e.worded(now, edges), e.brief(now, edges)
    message, brief = words(doc)
    return _ShapeProblem(message, node=node.id, brief=brief, words=words)


def _add(plan, doc, node, inputs, on_path, edges):
    view = catalog.with_defaults(node)
    try:
        shapes, multiply_adds = infer(view, inputs)
    except ShapeError as e:       # each input named by the node that feeds it and its port
        return _shape_problem(e, node, doc, edges)
    if node.kind == OP and node.op == "gradient":
        multiply_adds = 2 * _backward_cost(plan, doc, node)
    for shape in shapes:
        if len(shape) > MAX_RANK:
            return Problem(f"the output would have {len(shape)} axes; at most {MAX_RANK} are "
                           "allowed", node=node.id)
        size = math.prod(shape)
        if size > MAX_ELEMENTS:
            return Problem(f"the output would have shape {tuple(shape)}: {amount(size)} "
                           f"elements, more than the limit of {amount(MAX_ELEMENTS)} for one "
                           "tensor", node=node.id)
        problem = size_problem(shape)
        if problem:   # empty, but numpy could not make it ("array is too big")
            return Problem(f"the output's {problem}", node=node.id)
    values = sum(math.prod(s) for s in shapes)
    held = values * (2 if on_path else 1)
    work = multiply_adds * (3 if on_path else 1)
    what = f"this {node.op or node.kind}"
    backward = " (forward, and twice that for its gradient)" if on_path else ""
    if work > MAX_MULTIPLY_ADDS:
        return Problem(f"{what} would take ~{amount(work)} multiply-adds{backward}; the limit "
                       f"for one evaluation is {amount(MAX_MULTIPLY_ADDS)}", node=node.id)
    if plan.total_multiply_adds + work > MAX_MULTIPLY_ADDS:
        return Problem(f"{what} (~{amount(work)} multiply-adds{backward}) would bring the "
                       f"evaluation to ~{amount(plan.total_multiply_adds + work)}; the limit "
                       f"is {amount(MAX_MULTIPLY_ADDS)}", node=node.id)
    if plan.total_values + held > MAX_VALUES:
        cotangents = " and as many for its gradient" if on_path else ""
        return Problem(f"{what} ({amount(values)} values{cotangents}) would bring the tensors "
                       f"of the evaluation to {amount(plan.total_values + held)} values; the "
                       f"limit is {amount(MAX_VALUES)}", node=node.id)
    plan.total_values += held
    plan.total_multiply_adds += work
    for i, shape in enumerate(shapes):
        plan.shapes[Port(node.id, i)] = tuple(shape)
    plan.values[node.id] = values
    plan.multiply_adds[node.id] = multiply_adds
    return None


def entry_holds(plan, doc, node):
    """Would `plan` give `node` (another version of a node it planned, say with new
    attributes) the same entry: the same output shapes and multiply-adds from the same
    input shapes? Then no node after it, and no total, can tell the two apart. A 'gradient'
    node's cost is its tape's, so it is never taken as the same."""
    if node.id not in plan.multiply_adds or (node.kind == OP and node.op == "gradient"):
        return False
    inputs = [plan.shapes.get(e.src) for e in doc.inputs_of(node.id)]
    try:
        shapes, multiply_adds = infer(catalog.with_defaults(node), inputs)
    except ShapeError:
        return False
    return (multiply_adds == plan.multiply_adds[node.id]
            and Port(node.id, len(shapes)) not in plan.shapes
            and all(plan.shapes.get(Port(node.id, i)) == tuple(s) for i, s in enumerate(shapes)))


def _backward_cost(plan, doc, node):
    """Multiply-adds of the inner tape.gradient of a 'gradient' node (target, source)."""
    edges = {e.dst.index: e.src.node for e in doc.inputs_of(node.id)}
    between = doc.ancestors([edges[0]]) & doc.descendants([edges[1]])
    return sum(plan.multiply_adds.get(n, 0) for n in between)


def study_problem(plan, doc, study, target, source, order=2, newton=False):
    """What stops `study` ('jacobian', 'batch_jacobian', 'hessian', 'higher_order') of
    `target` w.r.t. `source` (Ports), from the plan's shapes alone; None when nothing does.
    `order`: of higher_order; `newton`: the Hessian is also solved (the Newton step)."""
    t, s = plan.shapes.get(target), plan.shapes.get(source)
    if t is None or s is None:
        return None  # the node that cannot run has the problem
    size_t, size_s = math.prod(t), math.prod(s)
    passes, extra = 1, 0
    if study == "jacobian":
        result, rows = size_t * size_s, size_t
    elif study == "batch_jacobian":
        if not t or not s or t[0] != s[0]:
            return (f"batch_jacobian needs a target and a source with the same first (batch) "
                    f"dimension, got shapes {tuple(t)} and {tuple(s)}")
        result, rows = size_t * math.prod(s[1:]), math.prod(t[1:])
    elif study == "hessian":
        # One backward pass over the gradient's graph (about 3x the forward) per element.
        result, rows, passes = size_s * size_s, size_s, 3
        extra = size_s ** 3 if newton else 0
    else:
        # Each derivative differentiates the graph of the one before: about 3x the work.
        result, rows, passes = size_s, 1, sum(3 ** i for i in range(order))
    if result > MAX_ELEMENTS:
        return (f"the {study} would have {amount(result)} elements, more than the limit of "
                f"{amount(MAX_ELEMENTS)} for one tensor")
    between = doc.ancestors([target.node]) & doc.descendants([source.node])
    values = rows * passes * sum(plan.values.get(n, 0) for n in between)
    multiply_adds = rows * passes * 2 * sum(plan.multiply_adds.get(n, 0) for n in between)
    multiply_adds += extra
    if multiply_adds > MAX_MULTIPLY_ADDS:
        return (f"the {study} would take ~{amount(multiply_adds)} multiply-adds ({amount(rows)} "
                f"backward passes); the limit is {amount(MAX_MULTIPLY_ADDS)}")
    if values > MAX_STUDY_VALUES:
        return (f"the {study} would compute ~{amount(values)} values ({amount(rows)} backward "
                f"passes); the limit is {amount(MAX_STUDY_VALUES)}")
    return None
