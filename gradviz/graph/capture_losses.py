"""Capture's loss nodes: the ops a Keras loss runs with its default reduction (the mean over
the examples: a sum divided by their number) become one losses.* node."""
import numpy as np

# engine op starting a loss -> (node op, its attributes, the ops after it, before the sum)
_STARTS = {
    "SoftmaxCrossEntropyWithLogits": ("losses.CategoricalCrossentropy", {"from_logits": True}, ()),
    "SparseSoftmaxCrossEntropyWithLogits": ("losses.SparseCategoricalCrossentropy",
                                            {"from_logits": True}, ()),
    "Sub": ("losses.MeanSquaredError", {}, ("Square", "Mean")),
}


def keras_loss(items, i, only_next):
    """(node op, attrs, indices of the items folded after i, [y_true, y_pred], output) when
    items[i] starts the ops of a Keras loss, else None. `only_next(j, t)`: the one item
    after j consuming t, or None."""
    first = items[i].ops[0]
    start = _STARTS.get(first.type)
    if start is None:
        return None
    op_name, attrs, middle = start
    chain, end, summed = [], first.outputs[0], None
    for expected in middle + ("Sum", "RealDiv"):
        j = only_next(chain[-1] if chain else i, end)
        op = items[j].ops[0] if j is not None else None
        if op is None or op.type != expected or op.inputs[0] is not end or \
                not _fits(op, expected, summed):
            return None
        if expected == "Sum":
            summed = np.size(op._in_values[0])
        chain.append(j)
        end = op.outputs[0]
    y_pred, y_true = first.inputs  # Sub(y_pred, y_true); the fused ops take (logits, labels)
    return op_name, {**attrs, "reduction": "sum_over_batch_size"}, chain, [y_true, y_pred], end


def _fits(op, kind, summed):
    """The Mean is over the last axis only, the Sum over every axis, and the RealDiv divides
    by the number of summed values: Keras's 'sum_over_batch_size'."""
    if kind == "Mean":
        return tuple(op.attrs["axis"]) == (-1,) and not op.attrs["keepdims"]
    if kind == "Sum":
        return len(op.attrs["axis"]) == np.ndim(op._in_values[0]) and not op.attrs["keepdims"]
    if kind == "RealDiv":
        divisor = np.asarray(op._in_values[1])
        return divisor.ndim == 0 and float(divisor) == float(summed)
    return True
