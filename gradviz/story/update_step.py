"""A training step told as a story: the backward pass that gave the gradient g at the
values before the step, then one more step per trained Variable whose card is the
optimizer's update of it, with the numbers (update_text writes the equations; the card
shows the whole gradient, and the Variable before and after the update).
"""
import copy

import numpy as np

from ..engine.optimizers import Newton
from ..graph.training import port_value
from .model import Step
from .update_text import derivative, update_lines


def with_update(story, update, optimizer, parameters, names, loss):
    """A copy of `story` (the backward pass at the values before `update`, a
    graph.training.Update) that ends with one 'update' step per parameter (graph Ports,
    in the trainer's order; `names` as the user knows them, `loss` graph.training's
    loss_name)."""
    if story is None or not story.steps:
        return story
    steps = list(story.steps)
    lines = update_lines(update, optimizer, names, loss)
    rule = ("Newton's step solves for every trained entry at once" if isinstance(optimizer, Newton)
            else "every entry follows the same rule")
    for k, (port, name, (entry, text)) in enumerate(zip(parameters, names, lines)):
        if not _told_by(story, port, update.before[k], update.gradients[k]):
            continue
        g = update.gradients[k]
        said = "its gradient is None" if g is None else \
            f"g = {derivative(loss, name)} is the gradient the backward pass just gave"
        steps.append(Step(
            index=len(steps), kind="update", node=port.node, port=port,
            title=f"{optimizer.name} update of {name}",
            caption=f"Step {update.index} of the training run: {said}, and {optimizer.name} "
                    f"moves {name} from its value before the update to the one after. The "
                    f"lines write out {entry}; {rule}.",
            formula="\n".join(text),
            cotangent=None if g is None else np.asarray(g),
            operands={"before": np.asarray(update.before[k]), "after": np.asarray(update.after[k])},
            tensor_name=name, shown_names=story.steps[0].shown_names))
    if len(steps) == len(story.steps):
        return story
    told = copy.copy(story)      # (keeps what build() set beside the fields: evaluation)
    told.steps = steps
    return told


def _told_by(story, port, before, gradient):
    """Whether `story` is the backward pass that gave `gradient` at value `before` of
    `port`: the document holds that value and the story's gradient is that one (up to
    float32 rounding: the trainer's copy of the document sums in its own order). Else the
    card would not be true: another value was edited, or the port is not a source."""
    try:
        value = port_value(story.document, port)
    except (KeyError, IndexError, AttributeError):
        return False
    if value is None or not np.array_equal(np.asarray(value), np.asarray(before)):
        return False
    told = getattr(story, "evaluation", None)
    told = None if told is None else told.gradients.get(port)
    if gradient is None or told is None:
        return gradient is None and told is None and port in story.sources
    return np.shape(told) == np.shape(gradient) and bool(
        np.allclose(told, gradient, rtol=1e-5, atol=1e-7))
