"""Whether a study applies to the document, apart from whether it fails.

A study needs choices the document may not have made yet: a target, a source, a path from
one to the other (a fresh graph has none). Then the study does not apply: the view says
what to choose, and the status bar counts no warning, for nothing is wrong with the
document. A study that applies and fails (the graph does not run, a NaN, an op without a
gradient) is a real problem and stays one.
"""

def missing_roles(*roles):
    """'it needs a target and a source: …' for the (words, chosen) pairs not chosen, where
    `words` names the role ('a target', 'a loss (a target)') and `chosen` is the port or
    the ports chosen for it; '' when every role is chosen."""
    missing = [words for words, chosen in roles if chosen is None or chosen == []]
    if not missing:
        return ""
    menu = " / ".join(f"Mark as {role}" for role in ("target", "source")
                      if any(role in words for words in missing))
    return (f"it needs {' and '.join(missing)}: mark {'them' if len(missing) > 1 else 'one'} "
            f"(right-click a node ▸ {menu}, or Inspector ▸ tape.gradient).")


def graph_error(controller):
    """The graph's own first error that stops it running, in words ('' when it runs)."""
    errors = [p for p in controller.result.problems if not p.warning]
    if not errors:
        return ""
    where = f"{controller.name(errors[0].node)}: " if errors[0].node else ""
    return f"the graph does not run ({where}{errors[0].message})"


def no_backward_pass(controller, what):
    """Why the document has no backward pass for `what` ('chain of Jacobians'): (error,
    not applicable), one of them ''. A target or a source not marked, or a target that does
    not depend on any source, is a choice not made; a graph that does not run is an error."""
    doc = controller.doc
    missing = missing_roles(("a target", doc.targets), ("a source", doc.sources))
    if missing:
        return "", missing
    error = graph_error(controller)
    if error:
        return f"{error}, so it has no {what}", ""
    return "", (f"the target does not depend on any source (no path leads back from it to a "
                f"source), so the backward pass carries nothing and there is no {what}: mark "
                f"a source the target is computed from.")
