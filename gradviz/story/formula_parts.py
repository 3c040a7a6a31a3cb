"""What a story step's rule card says, part by part: upstream ⊗ local rule = contribution
(or a fan-in's sum, an update, a seed) as a row of arrays, operators, words and pictures of
the rule, its operands after 'where', each part's caption and the formula line above the
row. No painting: render/formula.py lays these parts out and paints them; the tests read
them to check every card says what is true."""
import numpy as np

from ..graph.operands import brief, caption, is_number, mentions, operand_heading, told
from .model import path_name
from .rule_pictures import CONTRIBUTION, UPSTREAM
from .rule_pictures import pictures as rule_pictures


def operand_title(part):
    """The card's title of an operand part: 'b =', 'b (tf_b) =' (graph.operands.operand_heading)."""
    return f"{operand_heading(part[2], part[4] if len(part) > 4 else '')} ="


def _arrays(contributions):
    if contributions is None:
        return []
    items = contributions.values() if isinstance(contributions, dict) else contributions
    out = []
    for item in items:
        if isinstance(item, tuple):
            item = next((x for x in reversed(item) if isinstance(x, (np.ndarray, float, int, np.generic))), None)
        elif hasattr(item, "cotangent") and not isinstance(item, np.ndarray):
            item = item.cotangent
        elif hasattr(item, "value") and not isinstance(item, np.ndarray):
            item = item.value
        if item is not None:
            out.append(np.asarray(item))
    return out


def shown_caption(step, label):
    """The caption written under a part labelled `label` ('upstream'): the label names what
    the part is (the player's clicks and colours read it), the caption says it in words that
    are no name on the canvas ('incoming cotangent' beside a node called upstream)."""
    return caption(label, getattr(step, "shown_names", None) or frozenset())


def card_nodes(step):
    """{rule letter: the node it stands for, as the step's card names it} (graph.operands.brief)."""
    title = getattr(step, "title", "") or ""
    return {k: brief(node, title) for k, node in (getattr(step, "operand_nodes", None) or {}).items()}


def formula_line(step, parts):
    """The card's formula line (the step's formula) with its letter said which node it is
    where none of the card's `parts` heads it: 'grad_a (tokens x) = grad @ w_qᵀ'."""
    said = " | ".join([p[1] for p in parts if p[0] == "word"]
                      + [operand_title(p) for p in parts if p[0] == "array" and len(p) > 4]
                      + [str(p[2]) for p in parts if p[0] == "picture"])
    rule = getattr(step, "rule", None)
    if rule is None:     # a training step's update: no rule's letters
        return getattr(step, "formula", "") or ""
    return told(rule, card_nodes(step), said)


def formula_parts(step):
    """The card's row: ("array", a, label) / ("array", a, name, "operand", node) / ("text", rule,
    "local rule") / ("op", symbol) / ("word", text) / ("break",) for a new row / ("picture", a,
    label, role, ringed entries) for a picture of the rule (story.rule_pictures). A label is
    written as `shown_caption` says."""
    kind = getattr(step, "kind", "")
    cotangent = getattr(step, "cotangent", None)
    contributions = _arrays(getattr(step, "contributions", None))
    total = getattr(step, "total", None)
    # the rule's right side: the words after it, over what its Σ runs, are on the rule line above
    said = getattr(step, "rule", None)
    operands = dict(getattr(step, "operands", None) or {})
    nodes = {**(getattr(step, "operand_notes", None) or {}), **card_nodes(step)}
    parts = []
    if kind == "fan_in" and contributions:
        for i, c in enumerate(contributions):
            if i:
                parts.append(("op", "+"))
            parts.append(("array", c, path_name(step, i)))
        result = total if total is not None else cotangent
        if result is not None:
            parts += [("op", "="), ("array", np.asarray(result), "sum")]
    elif kind in ("contribution", "cut"):
        upstream = operands.pop("grad", None)
        result = contributions[0] if contributions else cotangent
        if upstream is None and contributions:
            upstream = cotangent
        if isinstance(upstream, (list, tuple)):
            upstream = None
        rule = said.rhs if said is not None else ""
        pictured = rule_pictures(step)      # the rule drawn with these numbers (conv, pooling, CE)
        if pictured is not None and pictured.equation and upstream is not None and result is not None:
            own = {UPSTREAM: ("array", np.asarray(upstream), "upstream"),
                   CONTRIBUTION: ("array", np.asarray(result), "contribution")}
            parts += [own[part] if any(part is m for m in own) else part for part in pictured.equation]
        else:
            if upstream is not None:
                parts.append(("array", np.asarray(upstream), "upstream"))
            if rule:
                if parts:
                    parts.append(("op", "⊗"))
                parts.append(("text", rule, "local rule"))
            if result is not None and kind != "cut":
                parts += [("op", "="), ("array", np.asarray(result), "contribution")]
        # what the pictures show, the where line leaves out: the rows' always, the equation's
        # where it is drawn
        drawn = pictured is not None and (not pictured.equation or (upstream is not None and result is not None))
        shown = pictured.shows if drawn else frozenset()
        used = [(k, v) for k, v in operands.items()    # (a number written in the rule is its value)
                if v is not None and rule and mentions(rule, k) and not is_number(k) and k not in shown]
        notes = getattr(step, "operand_notes", None) or {}
        told = [f"{k} = {note}" for k, note in notes.items()   # defined by a formula: 'â = (a − mean) / σ'
                if operands.get(k) is None and rule and mentions(rule, k)]
        if used or told:
            parts += [("break",), ("word", "where")]
            parts += [("array", np.asarray(v), k, "operand", nodes.get(k, "")) for k, v in used]
            parts += [("word", t) for t in told]
        for row in pictured.rows if pictured is not None else []:
            parts += [("break",), *row]
    elif kind == "update":
        if cotangent is not None:
            parts += [("array", np.asarray(cotangent), "gradient"), ("word", "moves")]
        parts += [("array", operands["before"], "before"), ("op", "→"),
                  ("array", operands["after"], "after")]
    elif kind == "accumulate":
        result = total if total is not None else cotangent
        if result is not None:
            parts.append(("array", np.asarray(result), "gradient"))
    elif kind == "unconnected" and cotangent is None and total is None:
        parts.append(("word", f"{shown_caption(step, 'gradient')} = None"))
    elif cotangent is not None:
        parts.append(("array", np.asarray(cotangent), "seed" if kind == "seed" else "upstream"))
    elif total is not None:
        parts.append(("array", np.asarray(total), "total"))
    return parts
