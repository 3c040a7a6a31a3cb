"""The sums a rule text leaves unsaid, said with the shapes of the step it is applied at.

An op's rule text is written for equal shapes: Add's 'grad_y = grad'. Where y was
broadcast (a scalar added to a 201-vector), the engine sums the rule's output over the
broadcast axes (TF's BroadcastGradientArgs and reduce_sum), so the rule as written would be
false: its right side is 201 numbers, the contribution one. `broadcast_sum` writes that sum
and the axes it runs over; `per_row` says that softmax's Σ is taken in each row. Both give a
`Rule`: its equation and, apart, the words that say over what its Σ runs.
"""
from dataclasses import dataclass

import numpy as np

from ..engine.errors import counted
from ..graph.operands import rename


@dataclass(frozen=True)
class Rule:
    """A rule as a card writes it: its equation `lhs` = `rhs` ('grad_delta', 'Σ grad'), whose
    names are values the rule uses (the card's where line lists those; its middle part,
    upstream ⊗ local rule, is `rhs`), and its `scope`, the words that say over what its Σ
    runs ('summed over the 201 entries delta was broadcast to', 'per row i'), whose names
    are no terms ('delta' there multiplies nothing); '' where the equation says all. A
    rule text with no '=' ('indices: no gradient') is all `rhs`."""

    lhs: str
    rhs: str
    scope: str = ""

    @classmethod
    def parse(cls, text):
        """The Rule of an op's rule text ('grad_a = grad @ bᵀ'): where a rule text is split."""
        if not text or "=" not in text:
            return cls("", text or "")
        lhs, rhs = text.split("=", 1)
        return cls(lhs.strip(), rhs.strip())

    @property
    def equation(self):
        """'grad_delta = Σ grad'."""
        return f"{self.lhs} = {self.rhs}" if self.lhs else self.rhs

    @property
    def right(self):
        """The right side with its scope after it: 'A · (grad - Σ_j grad[i,j]·A[i,j]), per
        row i', as a lesson quotes the rule."""
        return f"{self.rhs}, {self.scope}" if self.scope else self.rhs

    @property
    def text(self):
        """The rule in one line: 'grad_delta = Σ grad, summed over the 201 entries delta
        was broadcast to'."""
        return f"{self.lhs} = {self.right}" if self.lhs else self.right

    def renamed(self, mapping):
        """The rule with its equation's letters renamed (operands.rename): its scope's words
        name none."""
        return Rule(rename(self.lhs, mapping), rename(self.rhs, mapping), self.scope)


def broadcast_axes(out_shape, in_shape):
    """The axes of `out_shape` (longer than 1) along which an input of `in_shape` was
    broadcast, by numpy's rules: the leading axes it lacks and the axes where it has 1."""
    lead = len(out_shape) - len(in_shape)
    return [d for d, n in enumerate(out_shape)
            if n != 1 and (d < lead or in_shape[d - lead] == 1)]


def _over(out_shape, axes, name):
    """'the 201 entries delta was broadcast to', 'the 3 columns b was broadcast along'."""
    count = int(np.prod([out_shape[d] for d in axes]))
    if len(axes) == sum(n != 1 for n in out_shape):
        return f"the {counted(count, 'entry', 'entries')} {name} was broadcast to"
    if len(out_shape) == 2:
        return f"the {counted(count, 'row' if axes == [0] else 'column')} {name} was broadcast along"
    if len(axes) == 1:
        return f"axis {axes[0]} ({count} long), which {name} was broadcast along"
    listed = ", ".join(str(d) for d in axes[:-1]) + f" and {axes[-1]}"
    sizes = "×".join(str(out_shape[d]) for d in axes)
    return f"axes {listed} ({sizes}), which {name} was broadcast along"


def _summed(rhs):
    """'Σ grad', 'Σ grad · x', 'Σ (grad where x ≥ y)', 'Σ (-grad)'."""
    plain = not (rhs.startswith(("-", "−")) or "," in rhs or " where " in rhs
                 or " + " in rhs or " - " in rhs or " − " in rhs)
    return f"Σ {rhs}" if plain else f"Σ ({rhs})"


# A rule that says its sum without the axes, which the shapes tell: broadcast_to's
# 'grad_x = sum of grad over the broadcast axes' is written 'Σ grad, summed over axis 0 (…)'.
_VAGUE = ("sum of ", " over the broadcast axes")


def broadcast_sum(rule, out_shape, in_shape, summed_from=None):
    """`rule` (a Rule: 'grad_delta = grad') with the sum over the broadcast axes that makes
    it true for an input of `in_shape` read into an output of `out_shape`: 'grad_delta = Σ
    grad' summed over 'the 201 entries delta was broadcast to'. `summed_from`: the shape the
    engine summed the rule's output from (the broadcast output's), None when it summed
    nothing; a rule that sums by itself ('grad_γ = Σ grad · x̂') is told its axes too.
    Unchanged where nothing was summed (equal shapes, or only axes of length 1), and where
    the rule says its scope already (softmax's per row: its one input is never broadcast)."""
    if not rule.lhs or rule.scope:
        return rule
    lhs, rhs = rule.lhs, rule.rhs
    if rhs.startswith(_VAGUE[0]) and rhs.endswith(_VAGUE[1]):    # broadcast_to's: which axes, here
        rhs = rhs[len(_VAGUE[0]):-len(_VAGUE[1])]
    own_sum = rhs.startswith("Σ ") and tuple(in_shape) != tuple(out_shape)
    if summed_from is None and not own_sum:
        return rule
    shape = tuple(summed_from) if summed_from is not None else tuple(out_shape)
    axes = broadcast_axes(shape, tuple(in_shape))
    if not axes:
        return rule
    name = lhs[5:] if lhs.startswith("grad_") else lhs
    return Rule(lhs, rhs if own_sum else _summed(rhs), f"summed over {_over(shape, axes, name)}")


_PER_ROW = {   # the Σ of a last-axis op's rule, per row
    "Softmax": ("Σ grad·y", "Σ_j grad[i,j]·y[i,j]"),
    "LogSoftmax": ("Σ grad", "Σ_j grad[i,j]"),
}


def per_row(formula, op_type, shape):
    """The Rule of `formula` (an op's rule text, in its registry's letters) with softmax's Σ
    taken in each row, as the op takes it along the last axis: 'grad_x = y · (grad - Σ_j
    grad[i,j]·y[i,j])' 'per row i' for a matrix; the rule as written for a vector (its Σ
    is over all of it); 'the Σ along the last axis' beyond."""
    rule = Rule.parse(formula)
    if op_type not in _PER_ROW or len(shape) < 2:
        return rule
    plain, indexed = _PER_ROW[op_type]
    if plain not in rule.rhs:
        return rule
    if len(shape) == 2:
        return Rule(rule.lhs, rule.rhs.replace(plain, indexed), "per row i")
    return Rule(rule.lhs, rule.rhs, f"the Σ along the last axis ({shape[-1]} long), separately at "
                                    f"each index of the others ({'×'.join(str(n) for n in shape[:-1])})")
