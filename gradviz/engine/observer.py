"""What a backward pass tells an observer, step by step: the protocol the story's
recorder and the graph's passes implement (backward.py calls it)."""


class Observer:
    """Receives each step of a backward pass. Subclass and override what you need.

    The backward pass calls these only when an observer is attached.
    """

    def seed(self, target, cotangent, given):
        """The cotangent a target starts with (`given`: from output_gradients)."""

    def fan_in(self, tensor, contributions, total):
        """Several consumers' contributions to one tensor, and their sum."""

    def visit(self, op, upstream):
        """An op is reached with the (summed) upstream cotangent of its output(s)."""

    def contribution(self, op, index, cotangent):
        """The op's local VJP gave `cotangent` for input `index` (None: no gradient)."""

    def summed(self, op, index, shape):
        """The rule gave input `index` of `op` a contribution of `shape` (the op's broadcast
        output shape), summed over the broadcast axes to the input's shape (TF's
        BroadcastGradientArgs and reduce_sum). Called before that input's `contribution`; it
        belongs to the contribution of the same (op, index), not to whichever call comes next."""

    def cut(self, op, index):
        """Input `index` of op gets nothing because the op stops gradients."""

    def off_tape(self, source):
        """`source` is on no tape (never watched, not made by a recorded op): TF keeps no
        gradient for it, whatever read it. Called before its accumulate."""

    def accumulate(self, source, total):
        """A source's final gradient (None when unconnected)."""
