"""An engine Observer that writes down each step of a backward pass as it happens.

The events keep the engine's own objects (ops, tensors) and numpy copies of the
cotangents; `assemble.py` turns them into the story's steps with names a reader knows.
"""
from dataclasses import dataclass, field

import numpy as np

from ..engine.observer import Observer


def _array(t):
    return None if t is None else np.asarray(t._value if hasattr(t, "_value") else t)


@dataclass
class Event:
    """One observer call. `kind` is the Observer method's name."""

    kind: str                      # seed | visit | contribution | fan_in | cut | off_tape | accumulate
    op: object = None              # engine Operation (visit, contribution, cut)
    tensor: object = None          # engine Tensor (seed, fan_in, off_tape, accumulate)
    index: int | None = None       # input index (contribution, cut)
    cotangent: np.ndarray | None = None
    upstream: list = field(default_factory=list)       # visit: one array (or None) per output
    contributions: list = field(default_factory=list)  # fan_in: the summed arrays, in order
    given: bool = False            # seed: from output_gradients
    summed_from: tuple | None = None   # contribution: the rule's (broadcast) shape, summed to the input's


class Recorder(Observer):
    """Records raw events; pass it as `tape.gradient(..., observer=Recorder())`."""

    def __init__(self):
        self.events = []
        # (op, input index) -> the shape its contribution was summed from. The op itself,
        # not id(op): Operations hash by identity, and an id can be reused once its op is gone.
        self._summed = {}

    def summed(self, op, index, shape):
        self._summed[op, index] = shape

    def seed(self, target, cotangent, given):
        self.events.append(Event("seed", tensor=target, cotangent=_array(cotangent), given=given))

    def visit(self, op, upstream):
        self.events.append(Event("visit", op=op, upstream=[_array(u) for u in upstream],
                                 cotangent=_array(upstream[0]) if upstream else None))

    def contribution(self, op, index, cotangent):
        self.events.append(Event("contribution", op=op, index=index, cotangent=_array(cotangent),
                                 summed_from=self._summed.pop((op, index), None)))

    def fan_in(self, tensor, contributions, total):
        self.events.append(Event("fan_in", tensor=tensor, cotangent=_array(total),
                                 contributions=[_array(c) for c in contributions]))

    def cut(self, op, index):
        self.events.append(Event("cut", op=op, index=index))

    def off_tape(self, source):
        self.events.append(Event("off_tape", tensor=source))

    def accumulate(self, source, total):
        self.events.append(Event("accumulate", tensor=source, cotangent=_array(total)))
