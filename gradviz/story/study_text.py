"""The studies as text, after the story in `gradviz explain`: each check with its numbers.

For a document: the studies it asks for (Jacobian, batch Jacobian, Hessian with its
Newton step, higher order), then the forward-vs-reverse cost of the story's chain.
"""
import numpy as np

from ..engine.errors import counted
from ..graph.catalog import port_name
from ..graph.cut_paths import cut_reason, joined
from ..graph.errors import ENGINE_ERRORS, DocumentError
from ..graph.evaluate import evaluate, higher_order
from ..graph.gradient_check import difference_text, gradient_check, relative_error
from ..graph.names import objective_term
from ..graph.nan_origin import study_nan_warning
from ..graph.tensors import dims
from . import studies
from .formatting import grid, number, wrap
from .numbers import alone, h_text


def _g(x):
    """A computed number as the study views and cards write it: 1.190×10⁻⁷, not 1.19e-07."""
    return alone(x)


def _mark(ok):
    return "✓" if ok else "✗"


def _ports(doc, study):
    s = studies._subject(doc, study=study)
    return s.target, s.source


def _tolerance(a):
    return 1e-5 * max(1.0, float(np.abs(a).max(initial=0)))


def jacobian_lines(doc):
    target, source = _ports(doc, "jacobian")
    t, x = port_name(doc, target), port_name(doc, source)
    j = studies.jacobian_study(doc)
    t_shape = j.jacobian.shape[:j.jacobian.ndim - j.gradient.ndim]
    tol = _tolerance(j.jacobian)
    given = target in doc.output_gradients
    v_text = ("the document's output_gradients" if given else
              f"a ramp from -1 to 1 over the target's {counted(int(np.prod(t_shape, dtype=int)), 'element')}")
    return [
        f"Jacobian of {t} with respect to {x}: shape {dims(j.jacobian.shape)} "
        f"(target {dims(t_shape)} + source {dims(j.gradient.shape)})",
        wrap(f"{_mark(j.max_difference <= tol)} summed over the target's axes it is "
             f"tape.gradient({t}, {x}), the gradient of the sum of {t}: "
             f"max |ΣJ − gradient| = {_g(j.max_difference)}", "  "),
        wrap(f"{_mark(j.vjp_difference <= tol)} contracted with a vector v it is the VJP "
             f"tape.gradient({t}, {x}, output_gradients=v): max |Jᵀv − VJP| = "
             f"{_g(j.vjp_difference)} (v: {v_text})", "  "),
    ] + _warning_lines(j.problem)


def _warning_lines(problem):
    """A study's NaN or infinity, with the node and rule where it starts."""
    return [wrap("✗ Warning: " + problem, "  ")] if problem else []


def batch_jacobian_lines(doc):
    target, source = _ports(doc, "batch_jacobian")
    t, x = port_name(doc, target), port_name(doc, source)
    b = studies.batch_jacobian_study(doc)
    tol = _tolerance(b.jacobian)
    lines = [
        f"batch_jacobian of {t} with respect to {x}: shape {dims(b.batch_jacobian.shape)}, "
        f"from the full Jacobian {dims(b.jacobian.shape)}",
        wrap(f"{_mark(b.engine_difference <= tol)} it equals the full Jacobian summed over the "
             f"target's batch axis, Σ_b J[b, …, c, …]: max |difference| = "
             f"{_g(b.engine_difference)}", "  "),
    ]
    if b.independent:
        where = "" if np.isfinite(b.off_diagonal).all() else " where it is a number"
        lines.append(wrap(f"✓ the examples are independent (every off-diagonal block "
                          f"J[b, …, c, …], b ≠ c, is 0{where}), so it is also the per-example Jacobian "
                          f"J[b, …, b, …]: max |difference| = {_g(b.block_difference)}", "  "))
    else:
        b_, c_ = b.location
        lines.append(wrap(f"✗ it is not the per-example Jacobian J[b, …, b, …]: max |difference| "
                          f"= {_g(b.block_difference)}", "  "))
        lines.append(wrap(f"Warning: the examples are not independent. The largest off-diagonal "
                          f"block is ∂{t}[{b_}] / ∂{x}[{c_}], with norm {_g(b.largest)}. "
                          f"{_coupling(doc)}Use jacobian, not batch_jacobian, here.", "  "))
    return lines + _warning_lines(b.problem)


def _coupling(doc):
    bn = [n.label or n.id for n in doc.nodes.values()
          if n.kind == "layer" and n.op == "BatchNormalization" and n.attrs.get("training", True)]
    if bn:
        return (f"{', '.join(bn)} (BatchNormalization in training mode) normalises with the "
                f"batch's own mean and variance, so every example depends on every other. ")
    return ""


def hessian_lines(doc):
    subject = studies._subject(doc, study="hessian")
    target, source = subject.target, subject.source
    # the inner tape sums a target that is not a scalar: H is of Σt
    scalar = int(np.prod(subject.target_shape(), dtype=int)) == 1
    t = objective_term(port_name(doc, target), "scalar" if scalar else "sum")
    x = port_name(doc, source)
    h = studies.hessian_study(doc)
    n = h.hessian.shape[0]
    if n == 0:
        return [f"Hessian of {t} with respect to {x}: 0 × 0, empty: the source "
                f"{dims(h.newton_step.shape)} has no elements"]
    if not h.finite:
        return [f"Hessian of {t} with respect to {x}: {n} × {n}, holding NaN or infinity: "
                f"no eigenvalues, no Newton step",
                wrap("✗ Warning: " + h.warning, "  ")]
    eig = h.eigenvalues
    tol = _tolerance(h.hessian)
    lines = [
        f"Hessian of {t} with respect to {x}: {n} × {n} (the source {dims(h.newton_step.shape)}"
        f" flattened)",
        f"  {_mark(h.symmetry_error <= tol)} symmetric: max |H − Hᵀ| = {_g(h.symmetry_error)}",
        wrap(f"eigenvalues from {_g(eig[0])} to {_g(eig[-1])}: {h.definiteness} "
             f"(|λ| ≤ {_g(h.tolerance)}, 10⁻⁶ × the largest, counts as 0)", "  "),
        wrap(f"Newton step u = {_newton_formula(h)}: |u| = "
             f"{_g(np.linalg.norm(h.newton_step))}, |g| = {_g(np.linalg.norm(h.gradient))}, "
             f"max |(H + εI)u − g| = {_g(h.residual)}; the update is {x} − u:", "  "),
        grid(h.x_new, indent="    "),
    ]
    if h.warning:
        lines.append(wrap("Warning: " + h.warning, "  "))
    return lines


def _newton_formula(h):
    """How the study solved for u: solve(H + εI, g), or where H + εI is 0 within rounding
    (ε = 0 on a singular H) its pseudo-inverse over the directions where it is not."""
    shifted = f"H + {number(h.epsilon)}·I"
    if not h.left_out:
        return f"solve({shifted}, g)"
    return (f"({shifted})⁺ g, a pseudo-inverse: {h.left_out} of the {h.hessian.shape[0]} "
            f"directions have |λ + ε| ≤ {_g(h.tolerance)} and get no step")


def _why_none(doc, target, source, k, t, x):
    """Why the k-th derivative of `t` w.r.t. `x` is None, in a few words: the first is cut on
    every path (cut_paths: 'every path from y to x passes argmax, which …') or joined by no
    path; a later one is None where the derivative before it does not depend on x."""
    if k > 1:
        return f"the derivative of order {k - 1} does not depend on {x} on the tape"
    values = evaluate(doc).values
    return cut_reason(doc, values, source, [target]) or (
        f"the tape recorded no path from {t} to {x}" if joined(doc, source, [target]) else
        f"no path of edges leads from {x} to {t}")


def higher_order_lines(doc):
    spec = doc.studies.get("higher_order", {})
    order = spec.get("order", 2)
    target, source = _ports(doc, "higher_order")
    t, x = port_name(doc, target), port_name(doc, source)
    lines = [f"Higher order: derivatives of {t} with respect to {x}, one nested tape each"]
    derivatives = higher_order(doc, order)
    for k, d in enumerate(derivatives, start=1):
        power = "" if k == 1 else {2: "²", 3: "³"}.get(k, f"^{k}")
        head = f"  d{power}{t}/d{x}{power} ="
        if d is None:
            lines.append(f"{head} None ({_why_none(doc, target, source, k, t, x)})")
        elif np.ndim(d) == 0:
            lines.append(f"{head} {number(d)}")
        else:
            lines += [head, grid(d, indent="    ")]
    problem = study_nan_warning(doc, "higher_order", derivatives, target, source)
    return lines + _warning_lines(problem)


def gradient_check_lines(doc):
    c = gradient_check(doc)
    gap = f"|{c.letters['c']} − {c.letters['b']}|"      # the relative error's numerator
    lines = [f"Gradient check of ∂{c.loss_name} / ∂{c.entry_name} at {c.entry_name} = "
             f"{number(c.value)}, in {c.dtype}",
             f"  backward pass: {c.letters['b']} = {c.backward:.10g}",
             f"  central differences: {c.letters['c']} = {difference_text(c)}",
             f"  relative error = {relative_error(c)} (0 where both are 0)",
             f"    {c.letters['h']:>8}  {c.letters['c']:>17}  {gap:>13}  "
             f"{'relative':>13}"]
    for r in c.rows:
        lines.append(f"    {h_text(r.h):>8}  {r.difference:>17.10f}  {alone(r.error):>13}  "
                     f"{alone(r.relative):>13}")
    return lines + [wrap(c.verdict(h_text), "  ")]


def chain_lines(story):
    sizes = studies.chain_sizes(story)
    if len(sizes) < 3:  # one op: there is no product of Jacobians to order
        return []
    c = studies.chain_cost(sizes)
    return ["Forward vs reverse mode along one path, source to target",
            wrap("The gradient is a product of the ops' Jacobians. Forward mode multiplies "
                 "them from the source side, carrying a matrix with one column per source "
                 "element; reverse mode starts from the target's row and, with a scalar "
                 "target, only ever multiplies a vector by a matrix.", "  ")] + \
        ["  " + line for line in c.text().splitlines()]


SECTIONS = (("jacobian", jacobian_lines), ("batch_jacobian", batch_jacobian_lines),
            ("hessian", hessian_lines), ("higher_order", higher_order_lines),
            ("gradient_check", gradient_check_lines))


def study_sections(story):
    """Lines for the studies a document asks for and the chain cost (for any story)."""
    out = []
    doc = getattr(story, "document", None)
    if doc is not None:
        for name, lines in SECTIONS:
            if name not in doc.studies:
                continue
            try:
                out += lines(doc) + [""]
            except (DocumentError, *ENGINE_ERRORS) as e:
                out += [f"{name.replace('_', ' ').capitalize()} study: not computed "
                        f"({' '.join(str(e).split())[:200]})", ""]
    chain = chain_lines(story)
    if chain:
        out += chain + [""]
    if out:
        out = ["Studies", "-------", ""] + out
    return out
