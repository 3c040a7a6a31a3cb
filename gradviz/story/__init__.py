"""The backprop story: the ordered steps of a backward pass, element provenance, studies.

`build(doc)` tells the story of a graph document; `from_tape(tape, target, sources)`
of engine objects. No Qt here: render/ and app/ draw what this computes.
"""
from .build import build, from_tape  # noqa: F401
from .local import Provenance, Term  # noqa: F401
from .model import KINDS, Step, Story  # noqa: F401
from .recorder import Event, Recorder  # noqa: F401
