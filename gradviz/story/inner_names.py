"""Names for the ops and tensors of a 'gradient' node's inner backward pass.

The outer story visits the ops the inner tape.gradient made. Each is named by what it
computes and where: "∂out/∂layer inside t1.gradient(out, x)" (the whole cotangent of
layer's output), "∂y/∂x via xx (input b) inside …" (one consumer's share), "the multiply in
y_sq's rule inside …" (a step of a rule), "the add in the sum for ∂y/∂x inside …", "the relu
grad inside …" (the only op of its kind); never "t1.gradient(out, x)'s multiply 1", which
no card shows.
"""
from ..graph.catalog import api_name
from ..graph.operands import input_word


def _term(name):
    """A name after ∂, in parentheses when it has spaces: ∂(layer's bias add)."""
    return f"({name})" if " " in name else name


def _rule_of(name):
    return f"the rule of {name}" if "'s " in name else f"{name}'s rule"


def inner_names(naming, title, ops, inner, output):
    """({id(op): label} for the node's `ops` but its `output` op, {id(tensor): label} for
    the cotangents the pass made without an op (a constant seed of ones), {label: name}: what
    a step's title writes, the label without 'inside …' (the title says once where the ops
    are: DocumentNaming.step_title).
    An op's label is its shortest own name, said the same way by every title, caption, rule
    card and fan-in of the story (issue 20: lesson 13's step 9 titled an op '∂y/∂x via xx
    (input b)' and called it 'the multiply for ∂y/∂x via xx (input b)' in its caption): the
    only op of its kind by its kind ('the relu grad'); else the cotangent it makes where that
    is its own ('∂y/∂x via xx (input b)'); else by where it is ('the multiply in y_sq's
    rule', 'the add in the sum for ∂y/∂x'), without 'via …' where that stays its own. Never a
    counter over the node's ops ('the multiply 2', which tells nothing), never "t1.gradient(out,
    x)'s multiply 1", which no card shows.
    `inner`: the node's InnerPass; `title`: the node's name."""
    target = _term(naming.label(inner.target))
    where = f" inside {title}"

    def cotangent(role):
        kind, what, i = (*role, None)[:3]
        if kind == "upstream":
            return f"∂{target}/∂{_term(naming.label(what.outputs[i]))}"
        if kind == "sum":
            return f"∂{target}/∂{_term(naming.label(what))}"
        repeated = sum(t is what.inputs[i] for t in what.inputs) > 1
        return (f"∂{target}/∂{_term(naming.label(what.inputs[i]))} via {naming.op_label(what)}"
                + (f" ({input_word(what, i, naming)})" if repeated else ""))

    kinds, places = {}, {}
    for position, op in enumerate(ops):
        if op is output:
            continue
        role = inner.role(op.outputs[0])
        if role is not None:
            places[id(op)] = f"for {cotangent(role)}"
        else:
            made = inner.made_in(position)
            places[id(op)] = ("in the sum for " + cotangent(made) if made and made[0] == "sum"
                              else f"in {_rule_of(naming.op_label(made[1]))}" if made
                              else "in its backward pass")
        kinds[id(op)] = api_name(op.type)
    counts, kind_counts = {}, {}
    for key, place in places.items():
        counts[(kinds[key], place)] = counts.get((kinds[key], place), 0) + 1
        kind_counts[kinds[key]] = kind_counts.get(kinds[key], 0) + 1
    seen, forms = {}, {}
    for key, place in places.items():
        part = kinds[key]
        if kind_counts[part] == 1:      # the only op of its kind: its kind names it
            forms[key] = [f"the {part}"]
            continue
        if counts[(part, place)] > 1:
            seen[(part, place)] = seen.get((part, place), 0) + 1
            part = f"{part} {seen[(part, place)]}"
        # where it is; without 'via …'; the cotangent it makes alone
        forms[key] = list(dict.fromkeys(
            [f"the {part} {place}", f"the {part} {place.split(' via ')[0]}"]
            + ([place[len("for "):]] if place.startswith("for ") and part == kinds[key] else [])))
    # the shortest form that one op alone has: a form two ops share would name two ops alike
    # ('the multiply for ∂y/∂xx' for inputs a and b of xx's rule)
    taken = {}
    for form in (f for fs in forms.values() for f in fs):
        taken[form] = taken.get(form, 0) + 1
    labels, shorts = {}, {}
    for key, fs in forms.items():
        name = [fs[0]] + [f for f in fs[1:] if taken[f] == 1]
        labels[key] = name[-1] + where
        shorts[labels[key]] = name[-1]
    tensors = {}
    for tensor, role in inner.roles.values():
        if tensor._op is None and role[0] == "upstream":
            tensors[id(tensor)] = f"{cotangent(role)} (a constant){where}"
            shorts[tensors[id(tensor)]] = f"{cotangent(role)} (a constant)"
    return labels, tensors, shorts
