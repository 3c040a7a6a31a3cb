"""The names a local rule gives its operands on screen, chosen so that none clashes.

An op's rule text names its inputs with letters ('grad_x = grad · y' for Mul). A reader's
graph names its nodes with letters too: in `y = x * x` the rule's y is the node x, while
the node y is the product. A rule letter that is also the name of another tensor on the
canvas would give that name a value the canvas shows as something else, so such a letter
is replaced, in every text of the step, by one that nobody else uses ('grad_a = grad · x').
"""
import functools
import re

_WORD = "[A-Za-z0-9_\u0300-\u036f]"  # 'bᵀ' mentions b; 'x̂' (x + a combining hat) is not x
_LETTER = "[A-Za-z_\u0300-\u036f]"   # '2y' and '2x' mention y and x
SPARE = ("a", "b", "c", "d", "u", "v", "w", "p", "q", "r", "s", "m", "n", "k")
# Operands a rule mentions that are no input: the op's output ('y' in softmax's rule).
OUTPUT = "y"


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


@functools.lru_cache(maxsize=256)
def _word_pattern(names):
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?:(?<=grad_)|(?<!{_LETTER}))({alternatives})(?!{_WORD})")


def words(text):
    """The identifiers a formula text uses ('grad', 'x', 'y', 'log' ...)."""
    return set(re.findall(rf"{_LETTER}+", text or ""))


@functools.lru_cache(maxsize=256)
def _rename_pattern(names):
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?:(?<=grad_)|(?<!{_LETTER}))({alternatives})(?![A-Za-z0-9_])")


def rename(text, mapping):
    """`text` with every operand word renamed by `mapping` ('grad_y = grad · x' with
    y -> a: 'grad_a = grad · x'); x̂, the normalized x, becomes â with it."""
    mapping = {old: new for old, new in mapping.items() if old != new}
    if not text or not mapping:
        return text
    return _rename_pattern(tuple(mapping)).sub(lambda m: mapping[m.group(1)], text)


def unclash(names, labels, taken, formulas=()):
    """{rule name: shown name}: a rule name that is another tensor's name on screen (in
    `taken`) gets a spare letter no operand, no tensor and no formula of the op uses."""
    used = set(names) | set(taken) | set().union(*(words(f) for f in formulas))
    mapping = {}
    for name, label in zip(names, labels):
        if name == label or name not in taken or name in mapping:
            continue
        spare = next((s for s in SPARE if s not in used), None)
        if spare is None:
            spare = next(f"{name}{i}" for i in range(1, 10_000) if f"{name}{i}" not in used)
        used.add(spare)
        mapping[name] = spare
    return mapping


def rule_operands(op, naming):
    """(names, labels, mapping): the rule's operand names as shown (clashes renamed), the
    reader's names of the tensors they stand for, and the renaming to apply to rule texts.

    The op's output joins the operands when its rule mentions it ('y' in softmax's)."""
    raw = [naming.formula(op, k) for k in range(len(op.inputs))]
    names = operand_names(op, naming.formula)
    labels = [naming.label(t) for t in op.inputs]
    if OUTPUT not in names and any(OUTPUT in words(f.split("=", 1)[-1]) for f in raw if f) \
            and len(op.outputs) == 1:
        names, labels = names + [OUTPUT], labels + [naming.label(op.outputs[0])]
    taken = naming.shown_names()
    mapping = unclash(names, labels, taken, raw)
    # A letter the rule uses for no operand (Mean's count n, MatrixSolve's solution x)
    # stands for no node either: one that is a node's name is renamed the same way.
    free = sorted({w for f in raw if f for w in words(f.split("=", 1)[-1])
                   if len(w) == 1 and w not in names} & taken)
    mapping.update(unclash(free, [None] * len(free), taken, [*raw, " ".join(mapping.values())]))
    return [mapping.get(n, n) for n in names], labels, mapping
