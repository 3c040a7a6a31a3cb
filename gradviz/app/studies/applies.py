"""Whether a study applies to the document, apart from whether it fails.

A study needs choices the document may not have made yet: a target, a source, a path from
one to the other (a fresh graph has none). Then the study does not apply: the view says
what to choose, and the status bar counts no warning, for nothing is wrong with the
document. A study that applies and fails (the graph does not run, a NaN, an op without a
gradient) is a real problem and stays one.
"""

from ...story.build import missing_roles  # noqa: F401  (the views' import: a study's own roles)
from ...story.build import graph_error as document_error
from ...story.build import no_backward_pass as why_no_pass


def graph_error(controller, ports=None):
    """The graph's first error that stops what `ports` (default: the targets and sources)
    are computed from, in words ('' when none does): story.build.graph_error."""
    doc = controller.doc
    return document_error(doc, controller.result.problems,
                          [*doc.targets, *doc.sources] if ports is None else ports)


def no_backward_pass(controller, what):
    """Why the document has no backward pass for `what` ('chain of Jacobians'): (error,
    not applicable), one of them ''. A target or a source not marked, or a target that does
    not depend on any source, is a choice not made; a graph that does not run is an error
    (story.build.no_backward_pass, which the player's caption says too)."""
    kind, words = why_no_pass(controller.doc, controller.result.problems)
    if kind == "error":
        return f"{words}, so it has no {what}", ""
    if kind == "missing":
        return "", words
    return "", (f"{words.removesuffix('.')}, so the backward pass carries nothing and there is "
                f"no {what}: mark a source the target is computed from.")
