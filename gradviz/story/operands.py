"""The names a rule's formula text gives an op's inputs ('a', 'b' for MatMul), read by
the story's captions (assemble.py) and by element provenance (local.py)."""


def operand_names(op, formula=None):
    """Names the op's formula text uses for its inputs ('a', 'b' for MatMul).

    `formula(op, k)` gives the rule text (default: the engine's own text).
    """
    formula = formula or (lambda o, k: o.opdef.formula(o.attrs, k))
    names = []
    for k in range(len(op.inputs)):
        f = formula(op, k)
        name = f.split("=", 1)[0].strip() if f else ""
        names.append(name[5:] if name.startswith("grad_") and len(name) > 5 else f"in{k}")
    if len(set(names)) != len(names):  # variadic ops share one formula text
        names = [f"{n}{k}" for k, n in enumerate(names)]
    return names
