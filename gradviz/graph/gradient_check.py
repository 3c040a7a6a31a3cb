"""The gradient check: the backward pass's number for one entry of a source beside the
definition of a derivative, central differences of the forward pass at several step sizes.

    fd(h) = (L(x + h·eᵢ) − L(x − h·eᵢ)) / 2h,   L = Σ seed·target (what the tape differentiates)

Central differences are off by about h²/6 · L''' (truncation), so the error falls 100 times
for each 10 times smaller h, until rounding takes over (an error like ε·|L| / h): the check
passes when the smallest relative error is small, and a wrong rule shows as an error that
does not fall with h at all. The forward runs in the document's dtype (a float32 document
can never agree to better than about 1e-3; float64 is why gradient checks use float64).
"""
import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ..engine.interrupt import checkpoint
from .document import CONSTANT, Port
from .errors import DocumentError
from .evaluate import evaluate
from .names import port_names
from .operands import unclash
from .ports import parse_port
from .slots import node_names
from .training import (is_variable_port, loss_graph, loss_name, loss_of, port_value,
                       with_values)

STEPS = {np.dtype(np.float64): tuple(10.0 ** -k for k in range(1, 11)),
         np.dtype(np.float32): tuple(10.0 ** -k for k in range(1, 6))}
# The smallest relative error a correct rule reaches at the best step (the lesson's rule of
# thumb: float64 checks agree to about 1e-9, float32 ones to about 1e-4).
TOLERANCE = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-2}
EXPECTED_SLOPE = 2.0     # central differences: error ∝ h² while truncation dominates
# The forward pass rounds at each op: its loss is off by up to about ROUNDING·ε·|L|, so a
# central difference is off by about that over 2h (its rounding part).
ROUNDING = 4
# The letters the words give the central difference, the backward pass's number, a loss
# named by a formula and the step; GradientCheck.letters renames one that is a node's name
# on the canvas (no 'at h = 10⁻³' beside a node h).
LETTERS = ("c", "b", "L", "h")
# The step's letter beside a node h: a letter steps are written with (the rule cards' spare
# a read 'at a = 10⁻³' as English)
STEP_SPARES = ("δ", "k", "s")


@dataclass
class CheckRow:
    h: float
    plus: float                  # L(x + h·eᵢ)
    minus: float                 # L(x − h·eᵢ)
    difference: float            # (plus − minus) / 2h
    error: float                 # |difference − backward|
    relative: float              # relative_error(): error / max(|difference|, |backward|), 0 / 0 = 0

    @property
    def agreeing_digits(self):
        """How many significant digits of the difference agree with the backward number."""
        if self.relative == 0:
            return 17
        if not math.isfinite(self.relative):
            return 0
        return max(0, int(math.floor(-math.log10(self.relative))))


@dataclass
class GradientCheck:
    source: Port
    index: tuple                 # the entry of the source that moves
    entry_name: str              # 'w[1]'
    loss_name: str               # 'loss', 'Σy', '❬v, y❭' (graph.names.objective_name)
    dtype: str
    value: float                 # x[index] where the check is made
    backward: float              # the backward pass's d L / d x[index]
    rows: list = field(default_factory=list)
    tolerance: float = 1e-6
    loss: float = math.nan       # L where the check is made
    eps: float = float(np.finfo(np.float64).eps)   # of the dtype the forward pass runs in
    letters: dict = field(default_factory=lambda: dict(zip(LETTERS, LETTERS)))   # as written

    @property
    def best(self):
        """The row of the smallest relative error (the best step size)."""
        finite = [r for r in self.rows if math.isfinite(r.relative)]
        return min(finite, key=lambda r: r.relative) if finite else None

    @property
    def passed(self):
        best = self.best
        return best is not None and best.relative <= self.tolerance

    def rounding(self, row):
        """About how far the forward pass's rounding moves `row`'s central difference."""
        return ROUNDING * self.eps * max(abs(row.plus), abs(row.minus)) / (2 * row.h)

    @property
    def measurable(self):
        """Whether some step h resolves the gradient to the tolerance: its difference's
        rounding below tolerance·max(|c|, |b|). Where none does (a change 2·|b|·h the
        loss's rounding ε·|L| swallows at every h), a relative error near 1 says nothing
        about the rule: a right gradient of 1e-10 beside a float32 loss of 136 reads so."""
        return any(self.rounding(r) <= self.tolerance * max(abs(r.difference), abs(self.backward))
                   for r in self.rows if math.isfinite(r.relative))

    @property
    def undecided(self):
        """No verdict: the check neither passes nor can tell a wrong rule (not measurable)."""
        return not self.passed and self.best is not None and not self.measurable

    @property
    def failed(self):
        """A failing check: a problem of the document (the status bar warns of it)."""
        return not self.passed and not self.undecided

    @property
    def typical_relative(self):
        """The median relative error over the finite rows: what an error that does not fall
        with h 'stays near' (the best row is the least, 0.488 at h = 0.1 beside 0.500 at
        the nine others in the wrong-rule lesson)."""
        finite = [r.relative for r in self.rows if math.isfinite(r.relative)]
        return float(np.median(finite)) if finite else math.nan

    @property
    def slope(self):
        """log10(error) against log10(h) over the steps from the largest to the best one
        (at least the two largest), before rounding takes over: about 2 for a correct rule
        (truncation ∝ h²), about 0 for a wrong one (its error stays whatever h is)."""
        best = self.best
        rows = [r for r in self.rows if best is not None and r.h >= best.h]
        rows = [r for r in (rows if len(rows) >= 2 else self.rows[:2])
                if r.error > 0 and math.isfinite(r.error)]
        if len(rows) < 2:
            return None
        return float(np.polyfit(np.log10([r.h for r in rows]),
                                np.log10([r.error for r in rows]), 1)[0])

    def summary(self):
        """A short line for the status bar."""
        best = self.best
        if best is None:
            return f"gradient check of {self.entry_name}: not made (NaN or infinity)"
        if self.undecided:
            return (f"gradient check of {self.entry_name}: no verdict (the gradient is below what "
                    f"central differences of this {self.dtype} loss can measure)")
        return (f"gradient check of {self.entry_name}: {'✓ passes' if self.passed else '✗ fails'} "
                f"(relative error {best.relative:.2g} at {self.letters['h']} = {best.h:g})")

    def verdict(self, number=lambda x: f"{x:.2g}"):
        """One sentence: did the check pass, and why it says so. `number` writes h, an
        error and the tolerance (the study view writes them as its cards do)."""
        best, h = self.best, self.letters["h"]
        if best is None:
            return "✗ The check could not be made: every difference is NaN or infinite."
        where = f"at {h} = {number(best.h)} the relative error is {number(best.relative)}"
        if self.passed:
            return (f"✓ The backward pass agrees with central differences: {where} "
                    f"(≤ {number(self.tolerance)} in {self.dtype}).")
        if self.undecided:
            loss = loss_symbol(self)
            return (f"No verdict: the gradient {number(self.backward)} is below what a finite "
                    f"difference of this {self.dtype} loss ({loss} ≈ {number(self.loss)}) can "
                    f"measure: at every {h} its rounding, about ε·|{loss}|/{h}, is above "
                    f"{number(self.tolerance)} of the gradient, so the errors say nothing of "
                    "the rule.")
        slope = self.slope
        if slope is not None and slope < 1.0:
            return (f"✗ The check fails: the relative error stays near "
                    f"{number(self.typical_relative)} "
                    f"whatever {h} is (above {number(self.tolerance)} in {self.dtype}). An error "
                    f"that does not fall with {h} is no rounding or truncation: the backward pass "
                    "computes the derivative of another function (a wrong rule).")
        return f"✗ The check fails: {where}, above {number(self.tolerance)} in {self.dtype}."


def loss_symbol(check):
    """The loss as a function is written: its name ('loss'), or L for a loss named by a
    formula ('Σy', '❬v, y❭'), where 'Σy(w + h)' would not read as a function."""
    loss = check.loss_name     # 'Σy' is a Python identifier too: Σ is a letter
    return loss if loss.isidentifier() and not loss.startswith("Σ") else check.letters["L"]


def relative_error(check):
    """A row's relative error as the words write it (c: the central difference, b: the
    backward pass's number, each renamed where a node has its name); CheckRow.relative
    computes exactly this, 0 where both are 0."""
    c, b = check.letters["c"], check.letters["b"]
    return f"|{c} − {b}| / max(|{c}|, |{b}|)"


def difference_text(check):
    """The central difference in the user's names: '(loss(w[1] + h) − loss(w[1] − h)) / 2h',
    or '(L(w + h) − L(w − h)) / 2h, L = Σy' for a loss named by a formula."""
    f, x, h = loss_symbol(check), check.entry_name, check.letters["h"]
    said = f", {f} = {check.loss_name}" if f != check.loss_name and check.loss_name else ""
    return f"({f}({x} + {h}) − {f}({x} − {h})) / 2{h}{said}"


def check_port(doc, source=None):
    """The source the check moves: the study's own, else the document's first source."""
    spec = doc.studies.get("gradient_check", {})
    if source is None and "source" in spec:
        source = parse_port(spec["source"], "studies.gradient_check.source") \
            if isinstance(spec["source"], str) else spec["source"]
    if source is None:
        if not doc.sources:
            raise DocumentError("the gradient check needs a source: mark a Variable or a "
                                "watched constant as a source in the inspector",
                                where="gradient_check")
        source = doc.sources[0]
    return source


def gradient_check(doc, source=None, index=None, steps=None, progress=None):
    """Check d L / d source[index] by central differences at each step size in `steps`.

    `index` defaults to the study's `index`, else the entry with the largest gradient
    (the most telling one). `progress(fraction)` is called after each step size.
    """
    source = check_port(doc, source)
    x = _value(doc, source)
    work = loss_graph(doc, [source])    # a stray node the loss does not need stops no check
    base = evaluate(work)
    if base.errors:
        raise DocumentError.from_problem(base.errors[0])
    if not doc.targets:
        raise DocumentError("the gradient check needs a target: mark the loss as a target "
                            "in the inspector", where="gradient_check")
    gradient = base.gradients.get(source)
    if gradient is None:
        gradient = np.zeros_like(x)
    index = _entry(doc, x, gradient, index)
    dtype = x.dtype if x.dtype in STEPS else np.dtype(np.float64)
    steps = tuple(float(h) for h in (steps or doc.studies.get("gradient_check", {}).get("steps")
                                     or STEPS[dtype]))
    name = port_names(doc, [source])[source]
    check = GradientCheck(source, index, name + (f"[{', '.join(map(str, index))}]" if index else ""),
                          loss_name(doc, base.values), str(x.dtype), float(x[index]),
                          float(np.asarray(gradient, np.float64)[index]),
                          tolerance=TOLERANCE.get(dtype, 1e-6), loss=loss_of(work, base.values),
                          eps=float(np.finfo(dtype).eps))
    taken = node_names(doc)
    check.letters.update(unclash(LETTERS[:3], [None] * 3, taken | {"h"}))
    others = {check.letters[k] for k in LETTERS[:3]}
    check.letters.update(unclash(["h"], [None], taken | others, spares=STEP_SPARES))
    for k, h in enumerate(steps):
        plus, minus = (_loss_at(work, base, source, x, index, float(x[index]) + s * h)
                       for s in (1, -1))
        with np.errstate(all="ignore"):
            difference = (plus - minus) / (2 * h)
            error = abs(difference - check.backward)
            scale = max(abs(difference), abs(check.backward))
            relative = error / scale if scale else 0.0
        check.rows.append(CheckRow(h, plus, minus, difference, error, relative))
        if progress is not None:
            progress((k + 1) / len(steps))
    return check


def _value(doc, port):
    node = doc.nodes.get(port.node)
    if node is None:
        raise DocumentError(f"the gradient check's source {port.node} is not in the document",
                            where="gradient_check")
    if node.kind == CONSTANT and port.index == 0:
        return np.asarray(node.value)
    if is_variable_port(doc, port):
        return np.asarray(port_value(doc, port))
    raise DocumentError(f"the gradient check moves a value the document holds: "
                        f"{port_names(doc, [port])[port]} is computed by an op (choose a "
                        f"Variable or a constant)", where="gradient_check")


def largest_entry(gradient, shape):
    """The entry of the largest |gradient| (NaN counted as 0): the most telling one to check;
    the first entry when there is no gradient."""
    if gradient is None or np.size(gradient) == 0:
        return (0,) * len(shape)
    g = np.abs(np.nan_to_num(np.asarray(gradient, np.float64)))
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(g)), shape))


def _entry(doc, x, gradient, index):
    given = doc.studies.get("gradient_check", {}).get("index") if index is None else index
    if given is None:
        if x.size == 0:
            raise DocumentError("the gradient check's source has no elements",
                                where="gradient_check")
        return largest_entry(gradient, x.shape)
    index = tuple(int(i) for i in np.atleast_1d(given)) if x.ndim else ()
    if len(index) != x.ndim or any(not 0 <= i < n for i, n in zip(index, x.shape)):
        raise DocumentError(f"the gradient check's index {list(index)} is not an entry of a "
                            f"source of shape {tuple(x.shape)}", where="gradient_check")
    return index


def _loss_at(doc, base, source, x, index, value):
    """L with source[index] set to `value` (stored in the source's dtype)."""
    checkpoint()
    moved = np.array(x, copy=True)
    moved[index] = value
    node = doc.nodes[source.node]
    if node.kind == CONSTANT:
        nodes = dict(doc.nodes)
        nodes[source.node] = dataclasses.replace(node, value=moved)
        work = dataclasses.replace(doc, nodes=nodes)
    else:
        work = with_values(doc, {source: moved})
    ev = evaluate(work, persistent=False, same_structure_as=base)
    if ev.errors:
        raise DocumentError.from_problem(ev.errors[0])
    return loss_of(work, ev.values)
