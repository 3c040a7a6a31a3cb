"""The story as text: `explain(story)` is what `gradviz explain FILE` prints."""
import numpy as np


def number(x, digits=6):
    """Compact: 1, -0.17307831, 1.19e+07."""
    x = float(x)
    if abs(x) < 1e9 and x == int(x):  # (false for NaN and infinity, which int() refuses)
        return str(int(x))
    return f"{x:.{digits}g}"


def grid(a, digits=5, max_rows=8, max_cols=8, indent="    "):
    """A small right-aligned grid of an array (2-D shown as is, others flattened to 2-D)."""
    if a is None:
        return indent + "None"
    a = np.asarray(a)
    if a.ndim == 0:
        return indent + number(a, digits)
    m = a.reshape(-1, a.shape[-1]) if a.ndim != 1 else a.reshape(1, -1)
    rows, cols = m.shape
    shown = m[:max_rows, :max_cols]
    cells = [[number(v, digits) for v in row] for row in shown]
    width = max((len(c) for row in cells for c in row), default=1)
    lines = []
    for row in cells:
        line = "  ".join(c.rjust(width) for c in row)
        if cols > max_cols:
            line += f"  … ({cols - max_cols} more)"
        lines.append(indent + "[ " + line + " ]")
    if rows > max_rows:
        lines.append(indent + f"… ({rows - max_rows} more rows)")
    return "\n".join(lines)


def _shape(a):
    return "×".join(str(d) for d in np.shape(a)) or "scalar"


def _step_text(story, step, provenance_entries):
    head = f"{step.index + 1:>3}. [{step.kind}] {step.title}"
    lines = [head, "     " + step.caption]
    if step.formula:
        lines.append(f"     rule: {step.formula}")
    if step.kind == "fan_in":
        for label, a in step.terms:
            lines.append(f"     + from {label}:")
            lines.append(grid(a, indent="       "))
        lines.append("     = sum:")
        lines.append(grid(step.total, indent="       "))
    elif step.cotangent is not None:
        lines.append(f"     cotangent ({_shape(step.cotangent)}):")
        lines.append(grid(step.cotangent, indent="       "))
    if step.kind == "contribution" and provenance_entries and step.cotangent is not None:
        p = story.step_provenance(step, 0, max_terms=6)
        lines.append("     e.g. " + p.text(digits=8))
        if p.terms:
            lines.append("          = " + p.numbers(digits=8))
    return "\n".join(lines)


def explain(story, provenance_entries=True):
    """Readable text of every step, with numbers, for a terminal or a handout."""
    out = []
    if story.title:
        out += [story.title, "=" * len(story.title), ""]
    out.append("Backpropagation, step by step (reverse mode: cotangents flow from the "
               "target back to the sources).")
    out.append("")
    for problem in getattr(story, "problems", []):
        where = getattr(problem, "node", None) or getattr(problem, "where", None)
        out.append(f"Problem{f' at {where}' if where else ''}: {getattr(problem, 'message', problem)}")
    if getattr(story, "problems", None):
        out.append("")
    for step in story.steps:
        out.append(_step_text(story, step, provenance_entries))
        out.append("")
    return "\n".join(out).rstrip() + "\n"
