"""The story as text: `explain(story)` is what `gradviz explain FILE` prints.

The title and lesson first, then every step with its numbers (and, where it is cheap,
one entry's provenance as a sum of products), then the studies the document asks for
and the forward-vs-reverse cost of the chain.
"""
import numpy as np

from ..graph.structure import filter_ports
from ..graph.tensors import dims
from .formatting import grid, wrap
from .local import cost
from .model import number_spec
from ..graph.operands import caption
from .study_text import study_sections

# Explain shows one entry's sum of products only when it touches at most this many
# local factors (a 200×200 matmul: 200; a broadcast of a scalar to 7000×7000: 49 million).
EXAMPLE_COST = 100_000


def _example_entry(step):
    """The first nonzero entry of a contribution (entry 0 when all are zero)."""
    nz = np.flatnonzero(np.asarray(step.cotangent))
    return int(nz[0]) if nz.size else 0


def _provenance_lines(story, step):
    if np.size(step.cotangent) == 0:
        return [f"     (no entry to follow: {step.tensor_name or 'the cotangent'} is empty)"]
    n = cost(step._op, step.input_index)
    if n > EXAMPLE_COST:
        return [wrap(f"(no entry-by-entry example here: each entry of {step.tensor_name} sums "
                     f"{n:,} products; the app computes one when you click it)", "     ")]
    p = story.step_provenance(step, _example_entry(step), max_terms=6)
    lines = ["     e.g. " + p.text()]
    if p.says_more():
        lines.append(("          = " if p.terms else "          with ") + p.numbers())
    return lines


# A step's tag in the printed story: a source's None is not always 'unconnected' (an argmax
# on every path cuts it); the title says which.
TAGS = {"unconnected": "None"}


def _step_text(story, step, provenance_entries, filters=frozenset()):
    head = f"{step.index + 1:>3}. [{TAGS.get(step.kind, step.kind)}] {step.title}"
    conv_filter = step.port in filters
    shared = number_spec(story)   # the story's tensors as its cards write them
    lines = [head, wrap(step.caption, "     ")]
    if step.formula:
        lines.append(f"     rule: {step.formula}")
    if step.kind == "fan_in":
        for label, a in step.terms:
            lines.append(f"     + from {label}:")
            lines.append(grid(a, indent="       ", conv_filter=conv_filter, shared=shared))
        lines.append(f"     = {caption('sum', step.shown_names)}:")
        lines.append(grid(step.total, indent="       ", conv_filter=conv_filter, shared=shared))
    elif step.cotangent is not None:
        lines.append(f"     {caption('cotangent', step.shown_names)} ({dims(np.shape(step.cotangent))}):")
        lines.append(grid(step.cotangent, indent="       ", conv_filter=conv_filter, shared=shared))
    if step.kind == "contribution" and provenance_entries and step.cotangent is not None \
            and step._op is not None:
        lines += _provenance_lines(story, step)
    return "\n".join(lines)


def explain(story, provenance_entries=True, studies=True):
    """Readable text of every step, with numbers, for a terminal or a handout."""
    out = []
    doc = getattr(story, "document", None)
    if story.title:
        out += [story.title, "=" * len(story.title), ""]
    if doc is not None and doc.lesson:
        out += [wrap(doc.lesson), ""]
    out.append("Backpropagation, step by step (reverse mode: cotangents flow from the "
               "target back to the sources).")
    out.append("")
    for problem in getattr(story, "problems", []):
        where = (getattr(problem, "name", None) or getattr(problem, "node", None)  # its name,
                 or getattr(problem, "where", None))                              # not its id
        out.append(f"Problem{f' at {where}' if where else ''}: {getattr(problem, 'message', problem)}")
    if getattr(story, "problems", None):
        out.append("")
    filters = filter_ports(doc) if doc is not None else frozenset()
    for step in story.steps:
        out.append(_step_text(story, step, provenance_entries, filters))
        out.append("")
    if studies and story.steps and not getattr(story, "problems", None):
        out += study_sections(story)
    return "\n".join(out).rstrip() + "\n"
