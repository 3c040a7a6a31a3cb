"""The story's data: steps the app animates and the CLI prints, and element provenance."""
from dataclasses import dataclass, field

import numpy as np

KINDS = ("seed", "visit", "contribution", "fan_in", "accumulate", "cut", "unconnected")


@dataclass
class Step:
    """One frame of the backward pass.

    `node`/`port` say where it happens on the graph (port: the tensor whose cotangent
    this is; None for a tensor inside a layer node). `cotangent` is the array the step
    shows: the seed, the upstream of a visit, a contribution, a fan-in sum or a final
    gradient. `operands` holds the named numbers of `formula` ({'grad': .., 'b': ..}).
    """

    index: int
    kind: str
    node: str | None
    port: object = None
    title: str = ""
    caption: str = ""
    cotangent: np.ndarray | None = None
    formula: str | None = None
    terms: list = field(default_factory=list)          # fan_in: [(label, array)]
    contributions: list = field(default_factory=list)  # fan_in: the summed arrays
    total: np.ndarray | None = None                    # fan_in / accumulate
    input_index: int | None = None                     # contribution / cut
    op_type: str = ""
    upstream: list = field(default_factory=list)       # visit: per output
    operands: dict = field(default_factory=dict)
    given: bool = False                                # seed: from output_gradients
    internal: bool = False                             # inside a layer node
    tensor_name: str = ""        # the reader's name of the tensor whose cotangent this is
    operand_nodes: dict = field(default_factory=dict)  # rule operand -> reader's name
    _op: object = field(default=None, repr=False, compare=False)
    _tensor: object = field(default=None, repr=False, compare=False)
    _sources: list = field(default_factory=list, repr=False, compare=False)  # fan_in: steps
    _slot: str = field(default="", repr=False, compare=False)  # contribution: rule operand


@dataclass
class Term:
    """One summand of a cotangent entry: upstream × local = product."""

    upstream: float | None
    local: float | None
    product: float
    label: str               # rule names ('grad[0,1]·b[0,1]'): keys into Step.operands
    factor: str = ""         # the local factor in the reader's names ('b[0,1]', '∂y/∂x')

    def __iter__(self):  # (upstream, local, product, label), as the contract spells it
        return iter((self.upstream, self.local, self.product, self.label))


@dataclass
class Provenance:
    """Where one entry of a cotangent comes from: `value` = sum of the terms' products."""

    value: float
    terms: list
    where: str = ""          # e.g. 'dy_dx[0,0]'
    kind: str = ""           # 'seed' | 'contribution' | 'fan_in' | 'rule'
    more: int = 0            # nonzero terms left out (capped)
    rest: float = 0.0        # their sum
    rule: str = ""           # kind 'rule': the rule applied, when no sum of products exists
    detail: str = ""         # kind 'rule': the numbers the rule was applied to

    @property
    def total(self):
        return float(sum(t.product for t in self.terms) + self.rest)

    @property
    def subject(self):
        """What the sum is: an entry of a cotangent ('grad tf_t[0,0]'), never the tensor's
        value, which the canvas shows under the bare name."""
        return f"grad {self.where}"

    def text(self, digits=8):
        from .text import number
        if self.kind == "rule":
            return f"{self.subject} = {self.rule} = {number(self.value, digits)}"
        if not self.terms and self.kind == "contribution":
            return (f"{self.subject} = {number(self.value, digits)} (every product "
                    f"upstream · local factor is 0)")
        if not self.terms:
            return f"{self.subject} = {number(self.value, digits)} ({self.kind})"
        parts = []
        for t in self.terms:
            if t.upstream is None:
                parts.append(f"{number(t.product, digits)} [{t.label}]")
            else:
                factor = t.factor or t.label.split('·', 1)[-1]
                upstream = number(t.upstream, digits)
                parts.append(f"{f'({upstream})' if t.upstream < 0 else upstream}·{factor}")
        if self.more:
            parts.append(f"{self.more} more ({number(self.rest, digits)})")
        return f"{self.subject} = " + " + ".join(parts) + f" = {number(self.value, digits)}"

    def numbers(self, digits=8):
        """The same sum with every factor as a number: 1·0.43842274 + 1·(-0.53439844) ..."""
        from .text import number
        if self.kind == "rule":
            return self.detail

        def n(x):
            s = number(x, digits)
            return f"({s})" if s.startswith("-") else s
        parts = [n(t.product) if t.upstream is None else f"{n(t.upstream)}·{n(t.local)}"
                 for t in self.terms]
        if self.more:
            parts.append(n(self.rest))
        return " + ".join(parts) + f" = {number(self.value, digits)}"


@dataclass
class Story:
    steps: list
    title: str = ""
    targets: list = field(default_factory=list)   # ports (or names)
    sources: list = field(default_factory=list)
    gradients: dict = field(default_factory=dict)  # source port -> array or None
    problems: list = field(default_factory=list)   # why the story stops early (documents)
    document: object = None                        # the graph Document it tells (build)
    naming: object = field(default=None, repr=False)  # names engine objects for the reader
    _final: dict = field(default_factory=dict, repr=False)  # port -> defining step index

    def __len__(self):
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def of_kind(self, kind):
        return [s for s in self.steps if s.kind == kind]

    def provenance(self, port, flat_index, max_terms=12):
        """The terms that sum to entry `flat_index` of the cotangent at `port`."""
        key = port if port in self._final else _by_name(self._final, port)
        return self.step_provenance(self.steps[self._final[key]], flat_index, max_terms)

    def step_provenance(self, step, flat_index, max_terms=12):
        """Terms of one entry of a step's cotangent (a seed, contribution or fan-in)."""
        from .local import provenance
        return provenance(self, step, flat_index, max_terms)


def _by_name(final, name):
    for port in final:
        if getattr(port, "node", None) == name:
            return port
    raise KeyError(f"no cotangent recorded for {name!r}")
