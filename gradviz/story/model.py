"""The story's data: the steps the app animates and the CLI prints; the Story answers an
entry's provenance through local.py."""
from dataclasses import dataclass, field

import numpy as np

from ..engine.errors import counted
from .local import provenance
from .numbers import shared_spec

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
    rule: object = None            # contribution: its rule_sums.Rule, `formula` in parts: the
                                   # equation, its right side, the words on over what its Σ runs
    terms: list = field(default_factory=list)          # fan_in: [(label, array)]
    contributions: list = field(default_factory=list)  # fan_in: the summed arrays
    paths: list = field(default_factory=list)          # fan_in: where each comes from ('from x_sq')
    total: np.ndarray | None = None                    # fan_in / accumulate
    input_index: int | None = None                     # contribution / cut
    op_type: str = ""
    upstream: list = field(default_factory=list)       # visit: per output
    operands: dict = field(default_factory=dict)
    given: bool = False                                # seed: from output_gradients
    internal: bool = False                             # inside a layer node
    tensor_name: str = ""        # the reader's name of the tensor whose cotangent this is
    operand_nodes: dict = field(default_factory=dict)  # rule operand -> reader's name
    operand_notes: dict = field(default_factory=dict)  # a rule's other value -> what it is ('σ': '√(batch var + ε)')
    _op: object = field(default=None, repr=False, compare=False)
    _tensor: object = field(default=None, repr=False, compare=False)
    _sources: list = field(default_factory=list, repr=False, compare=False)  # fan_in: steps
    _slot: str = field(default="", repr=False, compare=False)  # contribution: rule operand
    _path: str = field(default="", repr=False, compare=False)  # contribution: as a fan-in's path
    shown_names: frozenset = field(default=frozenset(), repr=False, compare=False)  # on the canvas:
                                                  # no caption of the card may be one (operands.caption)

    @property
    def equation(self):
        """A contribution's equation alone ('grad_delta = Σ grad'), its every name a term;
        after it `formula` says over what its Σ runs (rule_sums.Rule); None for other steps."""
        return None if self.rule is None else self.rule.equation


def path_name(step, i):
    """Path `i` into a fan-in, named by where it comes from ('from x_sq, input a')."""
    paths = getattr(step, "paths", None) or []
    return paths[i] if i < len(paths) else f"path {i + 1}"


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

    def index_of_step(self, k):
        """The index of the step the player shows as k/n: k counts from 1, as the player and
        `gradviz export --step` do; a negative k counts from the end (-1 is the last)."""
        n = len(self.steps)
        if not (1 <= k <= n or -n <= k <= -1):
            raise IndexError(f"step {k}: the story has {counted(n, 'step')} (1..{n}; -1 is the last)")
        return k - 1 if k > 0 else n + k

    def of_kind(self, kind):
        return [s for s in self.steps if s.kind == kind]

    def number_spec(self):
        """The format the story's float tensors share where it shows them (its rule cards at
        every step, the provenance's sums and grids, `gradviz explain`): '%.3f' when any
        tensor of its steps or of its document's evaluation is written with decimals, else
        None (numbers.shared_spec). So a tensor reads one way at every step: the seed's ones
        read 1.000 on its own card as beside a rule's decimals, not 1 there and 1.000 here,
        and on its node's card (render.cards) too."""
        key = (id(self.steps), len(self.steps))
        cached = self.__dict__.get("_number_spec")
        if cached is None or cached[0] != key:
            cached = (key, shared_spec(_shown_arrays(self)))
            self.__dict__["_number_spec"] = cached
        return cached[1]

    def provenance(self, port, flat_index, max_terms=12):
        """The terms that sum to entry `flat_index` of the cotangent at `port`."""
        key = port if port in self._final else _by_name(self._final, port)
        return self.step_provenance(self.steps[self._final[key]], flat_index, max_terms)

    def step_provenance(self, step, flat_index, max_terms=12):
        """Terms of one entry of a step's cotangent (a seed, contribution or fan-in)."""
        return provenance(self, step, flat_index, max_terms)


def number_spec(story):
    """`story.number_spec()`, None without a story (a picture of the graph alone)."""
    return story.number_spec() if isinstance(story, Story) else None


def evaluation_spec(evaluation):
    """The format an evaluation's float tensors (its values and gradients) share
    (numbers.shared_spec): what a story of it shares (Story.number_spec) unless its steps
    show a tensor with decimals where no value or gradient has any; the node cards' format
    before a story is told (the app tells it only when asked)."""
    if evaluation is None:
        return None
    return shared_spec(_evaluation_arrays(evaluation))


def events_spec(evaluation, events):
    """evaluation_spec, with the arrays of the backward pass's recorded `events`
    (story.recorder) that the story's steps show: what Story.number_spec will be, known
    before the story is told (lesson 001_clip_gradient: its values and gradients are whole,
    the clip rule's contributions are not)."""
    arrays = _evaluation_arrays(evaluation)
    for e in events or ():
        arrays += [e.cotangent, *(e.upstream or []), *(e.contributions or [])]
    return shared_spec(a for a in arrays if a is not None)


def _evaluation_arrays(evaluation):
    """An evaluation's values and gradients ([] for none)."""
    return [] if evaluation is None else [*evaluation.values.values(), *evaluation.gradients.values()]


def _shown_arrays(story):
    """Every array the story's cards and its document's cards show."""
    def flat(x):
        if isinstance(x, (list, tuple)):
            for item in x:
                yield from flat(item)
        elif x is not None:
            yield x
    for step in story.steps:
        yield from flat([step.cotangent, step.total, step.contributions, step.upstream,
                         [a for _, a in step.terms], list(step.operands.values())])
    yield from flat(_evaluation_arrays(getattr(story, "evaluation", None)))


def _by_name(final, name):
    for port in final:
        if getattr(port, "node", None) == name:
            return port
    raise KeyError(f"no cotangent recorded for {name!r}")
