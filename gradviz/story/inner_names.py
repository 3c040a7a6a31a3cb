"""Names for the ops and tensors of a 'gradient' node's inner backward pass.

The outer story visits the ops the inner tape.gradient made. Each is named by what it
computes and where: "the multiply for ∂out/∂layer inside t1.gradient(out, x)" (the whole
cotangent of layer's output), "the relu grad for ∂out/∂(layer's bias add) via layer's relu
inside …" (one consumer's share), "the multiply in y_sq's rule inside …" (a step of a
rule), "the add in the sum for ∂y/∂x inside …"; never "t1.gradient(out, x)'s multiply 1",
which no card shows.
"""
from ..graph.catalog import api_name


def _term(name):
    """A name after ∂, in parentheses when it has spaces: ∂(layer's bias add)."""
    return f"({name})" if " " in name else name


def _rule_of(name):
    return f"the rule of {name}" if "'s " in name else f"{name}'s rule"


def inner_names(naming, title, ops, inner, output):
    """({id(op): label} for the node's `ops` but its `output` op, {id(tensor): label} for
    the cotangents the pass made without an op (a constant seed of ones), {label: [short
    forms]}: each label's forms for a step's title, longest first: the label without
    'inside …' (the title says once that they are inside the node:
    DocumentNaming.step_title), then without 'via …', so a title names an op as its caption
    does, by what it computes or the rule it is in ('the multiply in y_sq's rule'); then
    the cotangent it makes alone ('∂y/∂x via xx (input 2)'), for a title that has no room
    for more. The only op of its kind is named by its kind alone ('the relu grad'). Every
    short form is one name's alone: two steps never read the same ('the multiply' for four
    multiplies made two). Never a counter over the node's ops ('the multiply 2', which no
    caption says).
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
                + (f" (input {i + 1})" if repeated else ""))

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
    labels, shorts = {}, {}
    counts, kind_counts = {}, {}
    for key, place in places.items():
        counts[(kinds[key], place)] = counts.get((kinds[key], place), 0) + 1
        kind_counts[kinds[key]] = kind_counts.get(kinds[key], 0) + 1
    seen, forms, alone = {}, {}, {}
    for key, place in places.items():
        part = kinds[key]
        if counts[(part, place)] > 1:
            seen[(part, place)] = seen.get((part, place), 0) + 1
            part = f"{part} {seen[(part, place)]}"
        labels[key] = f"the {part} {place}{where}"
        if kind_counts[kinds[key]] == 1:      # the only op of its kind: its kind names it
            alone[labels[key]] = f"the {part}"
        # else where it is, as the caption says; without 'via …'; the cotangent it makes
        # alone ('∂y/∂x via xx (input 2)')
        forms[labels[key]] = list(dict.fromkeys(
            [f"the {part} {place}", f"the {part} {place.split(' via ')[0]}"]
            + ([place[len("for "):]] if place.startswith("for ") and part == kinds[key] else [])))
    # a title may write any name in any of its forms: a form two names share would make two
    # steps read the same ('the multiply → the multiply for ∂y/∂xx' for input 1 and for
    # input 2 of xx's rule), so only the forms that one name alone has are kept
    taken = {}
    for form in (f for fs in forms.values() for f in fs):
        taken[form] = taken.get(form, 0) + 1
    for label, fs in forms.items():
        shorts[label] = [alone[label]] if label in alone else [fs[0]] + [f for f in fs[1:] if taken[f] == 1]
    tensors = {}
    for tensor, role in inner.roles.values():
        if tensor._op is None and role[0] == "upstream":
            tensors[id(tensor)] = f"{cotangent(role)} (a constant){where}"
            shorts[tensors[id(tensor)]] = [f"{cotangent(role)} (a constant)"]
    return labels, tensors, shorts
