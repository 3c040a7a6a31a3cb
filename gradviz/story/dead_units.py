"""Dead relu units: a unit whose relu output is 0 for every example of the batch (and every
position, for a feature map) passes no gradient back, because relu's rule keeps the
cotangent only where its input is positive. The card marks them and the story says why.

With one example a unit is only seen to be off for that input, not dead (dead means off for
every input): the mark and the sentence say "off for this example" then.
"""
import numpy as np

from ..engine.errors import counted

RELU_ACTIVATIONS = ("relu",)


def dead_units(output):
    """Indices along the last axis (the units, or a feature map's channels) where a relu's
    output is 0 everywhere in the batch. An output without a batch axis has none."""
    a = np.asarray(output)
    if a.ndim < 2 or a.size == 0:
        return []
    flat = a.reshape(-1, a.shape[-1])
    return [int(u) for u in np.flatnonzero(~np.any(flat != 0, axis=0))]


def is_relu_node(node):
    """An nn.relu op, or a layer whose activation is relu: its output is a relu's."""
    if node.kind == "op":
        return node.op == "nn.relu"
    return node.kind == "layer" and (node.attrs or {}).get("activation") in RELU_ACTIVATIONS


def listed(units):
    return ", ".join(map(str, units))


def _batch(output):
    """'1 example', '7 examples' or '36 positions' (a feature map's batch and pixels)."""
    a = np.asarray(output)
    m = int(np.prod(a.shape[:-1]))
    word = "example" if a.ndim == 2 else "position"
    return counted(m, word)


def _one_example(output):
    return np.asarray(output).shape[0] == 1


def _positions(output):
    """', all 36 positions' for one example's feature map, '' for a vector of units."""
    a = np.asarray(output)
    m = int(np.prod(a.shape[1:-1]))
    return f", all {m} positions" if a.ndim > 2 else ""


def card_mark(output, short=False):
    """The card's line for a relu node's dead (or, with one example, off) units, or ''.
    `short`: the few words a compact card has room for ('off: units 0, 1')."""
    units = dead_units(output)
    if not units:
        return ""
    n, k = np.asarray(output).shape[-1], len(units)
    # "units 1, 2, 3 of 6", not "1, 2, 3 of 6 units": that read as a count of 3
    which = f"unit{'s' if k != 1 else ''} {listed(units)}"
    if _one_example(output):
        return f"off: {which}" if short else f"relu off for this example: {which} (of {n}{_positions(output)})"
    return f"dead: {which}" if short else f"dead relu: {which} (of {n}; {_batch(output)})"


def warning(output):
    """The card's mark where it is a warning, else '': units dead for the whole batch get no
    gradient again (the status bar counts it beside the card's mark); one example's off
    units are relu at work."""
    return "" if _one_example(output) else card_mark(output)


def story_sentence(output):
    """Why a dead unit's cotangent is 0, for the caption of relu's step (or '')."""
    units = dead_units(output)
    if not units:
        return ""
    many = len(units) > 1
    state = ("off for this example" if _one_example(output)
             else f"dead for this batch ({_batch(output)})")
    return (f" Unit{'s' if many else ''} {listed(units)} {'are' if many else 'is'} {state}: "
            f"relu's output is 0 all along "
            f"{'their columns' if many else 'its column'} because its input is ≤ 0 there, so "
            f"the rule keeps none of the cotangent in {'them' if many else 'it'}: it is 0, and "
            f"no gradient passes back through {'them' if many else 'it'} to what feeds "
            f"{'them' if many else 'it'}.")


def in_words(name, output):
    """What the card's mark says, as a sentence that names the node (its label) for the
    inspector, or '': 'layer1: 2 of its 6 relu units are dead for this batch (7 examples),
    units 0 and 1: their output is 0 for every example, so relu passes no gradient back
    through them to what feeds them.' With one example, the units are off for that input."""
    units = dead_units(output)
    if not units:
        return ""
    a = np.asarray(output)
    n, k = a.shape[-1], len(units)
    many = k > 1
    which = (f"units {', '.join(map(str, units[:-1]))} and {units[-1]}" if many
             else f"unit {units[0]}")
    if _one_example(output):
        state = "off for this example"
        where = f" at all {int(np.prod(a.shape[1:-1]))} positions" if a.ndim > 2 else ""
    else:
        state = f"dead for this batch ({_batch(output)})"
        where = " for every example" if a.ndim == 2 else " at every position of every example"
    them = "them" if many else "it"
    return (f"{name}: {k} of its {counted(n, 'relu unit')} {'are' if many else 'is'} {state}, "
            f"{which}: {'their' if many else 'its'} output is 0{where}, so relu passes no "
            f"gradient back through {them} to what feeds {them}.")
