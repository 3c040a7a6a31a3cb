"""ShapeError, in words that name each input as its port reads, and the checks that raise it."""
import re

import numpy as np

from gradviz.engine.axes import axis_index
from gradviz.engine.errors import InvalidArgumentError

from . import catalog, slots
from .document import LAYER, OP
from .input_names import by_place, plain_names, slot_letter
from .tensors import dims


class ShapeError(ValueError):
    """What is wrong with a node's input shapes or attributes, in words. A message names an
    input by `in_(k)`; `worded` names it by the node that feeds it and the letter its port
    shows on the canvas, where the caller gives the document ('hidden (operand a) has shape
    (2, 4)'); str() by its slot alone ('a', 'filters'), as TF's words do."""

    node = None          # the node whose inputs do not fit, and their shapes: set by infer
    shapes = ()

    def __str__(self):
        return self.worded()

    def worded(self, doc=None, edges=()):
        """The message with each input named as `inputs_named` names it, for the node's
        input `edges` in `doc`; by its slot alone without them."""
        return self._named(inputs_named(self.node, doc, edges, len(self.shapes))
                           if self.node is not None else [])

    def brief(self, doc=None, edges=()):
        """The essentials first, for a card drawn compact (three short lines): each input by
        its node and port with its shape, then what is wrong: the message's clauses before
        the first that names an input ('x (c) 2×4, W (d) 5×2: matmul shapes do not match'),
        else the message whole ('input (images) 6×5×2, filters (k) 2×2×2×3: input (images)
        must be of rank 4 …'), never words cut off mid-clause."""
        if self.node is None:
            return str(self)
        names = inputs_named(self.node, doc, edges, len(self.shapes), short=True)
        head = (str(self.args[0]) if self.args else "").split("\x00", 1)[0].rstrip()
        head = head.rstrip(":;").rstrip() if head.endswith((":", ";")) else ""
        said = ", ".join(f"{name} {dims(shape)}" for name, shape in zip(names, self.shapes))
        return f"{said}: {head or self._named(names)}"

    def _named(self, names):
        def name(match):
            k = int(match.group(1))
            return names[k] if k < len(names) else slot_letter(k)
        return _INPUT.sub(name, str(self.args[0]) if self.args else "")


def inputs_named(node, doc=None, edges=(), count=None, short=False):
    """Each input of `node` (its `count`, else one per edge) as a message names it: by the
    node that feeds it (its user's name) beside the name its port shows on the canvas
    (graph.slots, which the canvas draws: 'hidden (operand c)' beside a node named b where
    inputs go by place, 'filters (W)' by role); the port's name alone where no `edges` in
    `doc` feed it. `short`: 'hidden (c)', for a compact card's few words."""
    count = len(edges) if count is None else count
    feeds = {e.dst.index: catalog.port_name(doc, e.src) for e in edges} if doc is not None else {}
    if node.kind == LAYER:       # a layer: its input, then its first weight
        names, placed = ["input", "kernel"], False
    else:
        names = slots.input_names(node, count, doc, list(edges)) if doc is not None \
            else plain_names(node, count)
        placed = node.kind == OP and by_place(node, count)
    return [_fed(names[k] if k < len(names) else slot_letter(k), feeds.get(k), placed, short)
            for k in range(count)]


def _fed(slot, feed, placed, short=False):
    """An input named by the node that feeds it beside its slot: 'hidden (operand a)' where
    inputs go by place ('hidden (a)' `short`), 'labels (y)' by role; the slot alone where no
    name is known."""
    if feed is None or feed == slot:
        return slot
    if placed:
        return f"{feed} ({slot})" if short else f"{feed} (operand {slot})"
    return f"{slot} ({feed})"


_INPUT = re.compile("\x00(\\d+)\x00")


def in_(k):
    """Input k as a message names it (ShapeError.worded writes the name)."""
    return f"\x00{k}\x00"


def text(shape):
    """A shape as the cards write it (2×3, scalar): one notation on screen."""
    return dims(tuple(shape))


def checked_axis(axis, rank, what="axis", new=False):
    """`axis` normalised to 0..rank-1; an error in words when it is out of range (the
    engine's own check, engine/axes.py, so both say the same)."""
    try:
        return axis_index(axis, rank, what, new)
    except InvalidArgumentError as e:
        raise ShapeError(str(e)) from None


def broadcast(shapes, named=False):
    """The shape `shapes` broadcast to; `named`: they are the node's inputs, in order (not
    their batch axes), and the message names them."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        if named:
            raise ShapeError("the input shapes do not broadcast together: " + shapes_of(shapes)) \
                from None
        raise ShapeError("the input shapes " + ", ".join(map(text, shapes))
                         + " do not broadcast together") from None


def shapes_of(shapes):
    """'a has shape (2, 4), b has shape (5, 2)', each input named by in_."""
    return ", ".join(f"{in_(k)} has shape {text(s)}" for k, s in enumerate(shapes))
