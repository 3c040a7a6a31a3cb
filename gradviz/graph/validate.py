"""Checking a document: structure first (nodes, edges, inputs, cycles, references; see
structure.py), then shapes and sizes (the plan, before anything runs), then the engine on
the values.

Every problem is attached to the node, edge or field that caused it.
"""
from . import budget
from .build import build, document_plan
from .catalog import port_name
from .errors import Problem, errors, named
from .ports import parse_port
from .structure import analyse


def output_gradient_problems(doc, tensors):
    """A seed whose shape or dtype differs from its target's."""
    problems = []
    for p, g in doc.output_gradients.items():
        t = tensors.get(p)
        where = f"output_gradients '{port_name(doc, p)}'"
        if t is not None and tuple(g.shape) != tuple(t.shape):
            problems.append(Problem(f"the output gradient has shape {list(g.shape)} but the "
                                    f"target has shape {list(t.shape)}", where=where))
        elif t is not None and g.dtype != t._value.dtype:
            problems.append(Problem(f"the output gradient has dtype {g.dtype.name} but the "
                                    f"target has {t._value.dtype.name}", where=where))
    return problems


def study_problems(doc, plan):
    """What stops each study the document asks for, from the plan's shapes alone: a study
    that is malformed or too large is refused on load, before anything computes it."""
    problems = []
    for study, spec in doc.studies.items():
        where = f"studies.{study}"
        ports = []
        for key, fallback in (("target", doc.targets), ("source", doc.sources)):
            if key in spec:
                ports.append(parse_port(spec[key], where))
            elif fallback:
                ports.append(fallback[0])
            else:
                problems.append(Problem(f"no {key} to study: name one here or give the "
                                        f"document {key}s", where=where))
        if len(ports) == 2 and study != "gradient_check":   # two forward passes a step: no budget
            message = budget.study_problem(plan, doc, study, *ports,
                                           order=spec.get("order", 2),
                                           newton="newton_eps" in spec)
            if message:
                problems.append(Problem(message, where=where))
    return problems


def validate(doc):
    """Every error found, structural ones first; empty when the whole document can run.
    (Warnings, such as a NaN, come from evaluation.)"""
    structure = analyse(doc)
    built = build(doc, skip=structure.broken)
    return named(errors(structure.problems + built.problems
                        + output_gradient_problems(doc, built.tensors)
                        + study_problems(doc, built.plan)), doc)


def planned_problems(doc):
    """The errors found before any op runs (structure, shapes, sizes): the first of them is
    the first that `validate` finds, since those come first in its list. They need no
    value, only the shapes, so a file's outline (skim.py) can be checked for them."""
    structure = analyse(doc)
    plan = document_plan(doc, structure.broken)
    return named(errors(structure.problems + plan.problems), doc)


def infer_shapes(doc):
    """{Port: (shape, dtype name)} for every node output that can be computed."""
    return {p: (tuple(t.shape), t._value.dtype.name) for p, t in build(doc).tensors.items()}


__all__ = ["validate", "infer_shapes", "structure_problems", "analyse", "node_problems"]
