"""What each op of a 'gradient' node's inner backward pass computes, for the reader.

The ops an inner tape.gradient makes are recorded by the outer tape, and the outer story
visits them. A student cannot find "multiply 1" on the canvas; told "∂out/∂layer inside
t1.gradient(out, x)" (the multiply that makes that cotangent), they can: each op is named by the cotangent of
the inner pass it makes, or by the forward op whose rule it is part of. The observer
notes, while the inner pass runs, which cotangent every tensor is and where in the outer
tape's record each step of the pass begins.
"""
from ..engine.observer import Observer


class InnerPass(Observer):
    """Attached to a 'gradient' node's tape.gradient call. `tape`: the outer tape that
    records the pass's ops (None: nothing is recorded, nothing to name)."""

    def __init__(self, tape, target):
        self.tape, self.target = tape, target
        self._start = len(tape._entries) if tape is not None else 0
        self.events = []     # (position in the node's ops, kind, op or tensor)
        self.roles = {}      # tensor id -> (tensor, role): ('upstream', op, i), ('sum', t), ('share', op, i)

    def _at(self):
        return len(self.tape._entries) - self._start if self.tape is not None else 0

    def _role(self, tensor, role, replace):
        if tensor is not None and (replace or id(tensor) not in self.roles):
            self.roles[id(tensor)] = (tensor, role)

    def visit(self, op, upstream):
        self.events.append((self._at(), "visit", op))
        for i, u in enumerate(upstream):   # the whole cotangent of the op's output i
            self._role(u, ("upstream", op, i), replace=True)

    def contribution(self, op, index, cotangent):
        self.events.append((self._at(), "contribution", op))
        self._role(cotangent, ("share", op, index), replace=False)

    def fan_in(self, tensor, contributions, total):
        self.events.append((self._at(), "fan_in", tensor))
        self._role(total, ("sum", tensor), replace=False)

    def accumulate(self, source, total):
        self.events.append((self._at(), "accumulate", source))

    def role(self, tensor):
        """What cotangent of the inner pass `tensor` is: ('upstream', op, i) the whole
        cotangent of op's output i; ('sum', t) the sum of t's contributions; ('share', op,
        i) op's contribution to its input i; None for none of these."""
        found = self.roles.get(id(tensor))
        return found[1] if found is not None and found[0] is tensor else None

    def made_in(self, position):
        """Where the op at `position` among the node's ops was made: ('rule', op) in op's
        rule, ('sum', t) in adding up t's contributions, or None (before the first step)."""
        following = next((e for e in self.events if e[0] > position), None)
        if following is not None and following[1] == "fan_in":
            return ("sum", following[2])
        visits = [e for e in self.events if e[0] <= position and e[1] == "visit"]
        return ("rule", visits[-1][2]) if visits else None
