"""The names a local rule gives its operands on screen: the reader's own, where they fit.

An op's rule text names its inputs with letters ('grad_x = grad · y' for Mul). Where an
operand's tensor has a short name on the canvas (x, W1, layer.kernel, 2), the rule is
written with it ('grad_x = grad · x' for y = x * x), so the card reads in the reader's
names and every name in it has the value the canvas shows. A name that would not read as
a term (a layer's inner op, a label with spaces) keeps the rule's letter, and the card
says which node it is; a letter that is also the name of another tensor on the canvas
would give that name a value the canvas shows as something else, so such a letter is
replaced, in every text of the step, by one that nobody else uses ('grad_a = grad · x').
"""
import functools
import itertools
import re

_WORD = "[A-Za-z0-9_\u0300-\u036f]"  # 'bᵀ' mentions b; 'x̂' (x + a combining hat) is not x
_LETTER = "[A-Za-z_\u0300-\u036f]"   # '2y' and '2x' mention y and x
SPARE = ("a", "b", "c", "d", "u", "v", "w", "p", "q", "r", "s", "m", "n", "k")
# Operands a rule mentions that are no input: the op's output ('y' in softmax's rule).
OUTPUT = "y"
# The rule texts' word for the upstream cotangent, and what the cards write instead when a
# tensor on screen has that name (a node called grad): the card's caption word first.
UPSTREAM = "grad"
UPSTREAM_WORDS = (UPSTREAM, "upstream", "g", "ḡ")
# A symbol of a rule that is no operand: a letter (Mean's n, x̂, BatchNorm's σ), or one of
# the words rules give values (dropout's mask and rate, select's condition); not a function
# it calls (σ in 'σ(x)', 'tanh²(x)', 'log x') nor its words ('where', 'elsewhere').
_SYMBOL = re.compile(r"(?<![A-Za-z0-9_'’\u0391-\u03c9])([A-Za-z_][A-Za-z0-9_]*|[\u0391-\u03c9])"
                     r"[\u0300-\u036f]?(?![A-Za-z0-9_\u0391-\u03c9])(?![²³⁻¹ᵀ]*\()")
RULE_WORDS = frozenset(("mask", "rate", "perm", "condition", "grads", "dy"))


def operand_names(op, formula=None):
    """Names the op's formula text uses for its inputs ('a', 'b' for MatMul).

    `formula(op, k)` gives the rule text (default: the engine's own text).
    """
    formula = formula or (lambda o, k: o.opdef.formula(o.attrs, k))
    return rule_names([formula(op, k) for k in range(len(op.inputs))])


def rule_names(formulas):
    """The operand names of rule texts, one per input ('grad_b = aᵀ @ grad' names b)."""
    names = []
    for k, f in enumerate(formulas):
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


def symbols(text):
    """The names a formula text gives values besides its operands' words: letters and the
    words of RULE_WORDS ('σ' in 'γ/σ', not in 'σ(x)'; 'n' and 'mask', not 'exp' in 'exp(x)')."""
    return {w for w in (m.group(1) for m in _SYMBOL.finditer(text or ""))
            if len(w) == 1 or w in RULE_WORDS}


def upstream_word(taken):
    """What the cards call the upstream cotangent: 'grad', as the rule texts do, unless a
    tensor on screen is named so; then a word no tensor has ('upstream', 'g', ...)."""
    return next((w for w in UPSTREAM_WORDS if w not in taken),
                next(f"upstream{i}" for i in range(1, 10_000) if f"upstream{i}" not in taken))


# The words a card writes under its arrays and rule, and the cotangent's heading in
# `gradviz explain`, each with what it says instead when a node on the canvas has that
# name (a node called upstream beside the card's upstream showing other numbers).
CAPTIONS = {"upstream": "incoming cotangent", "contribution": "outgoing cotangent",
            "seed": "seed cotangent", "sum": "sum of the paths", "gradient": "final gradient",
            "total": "summed total", "local rule": "the op's rule", "before": "value before",
            "after": "value after", "cotangent": "its cotangent"}


def caption(word, taken):
    """`word` as a card's caption, unless it is a name in `taken` (the names the canvas
    shows): then its longer form, which says the same and names nothing there."""
    if word not in taken:
        return word
    longer = CAPTIONS.get(word, word)
    numbered = (f"{longer} ({i})" for i in range(2, 10_000))   # one at a time, as far as needed
    return next(c for c in itertools.chain([longer], numbered) if c not in taken)


@functools.lru_cache(maxsize=256)
def _rename_pattern(names):
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?:(?<=grad_)|(?<!{_LETTER}))({alternatives})(?![A-Za-z0-9_])")


def rename(text, mapping):
    """`text` with every operand word renamed by `mapping` ('grad_y = grad · x' with
    y -> a: 'grad_a = grad · x'); x̂, the normalized x, becomes â with it. A longer name
    after a coefficient is multiplied visibly: '2x' with x -> diff is '2·diff'."""
    mapping = {old: new for old, new in mapping.items() if old != new}
    if not text or not mapping:
        return text

    def new(m):
        name = mapping[m.group(1)]
        after_digit = m.start() > 0 and text[m.start() - 1] in "0123456789"
        return f"·{name}" if after_digit and len(name) > 1 else name
    return _rename_pattern(tuple(mapping)).sub(new, text)


def mentions(text, name):
    """'2x' and 'bᵀ' mention x and b; 'grad' does not mention 'a'."""
    return re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def operand_heading(name, node):
    """An operand as the rule card heads it, and the Provenance dock with it: 'b' for an
    operand that is the node b; 'b (tf_b)' says which node b stands for; 'labels (vertical)'
    for the operand labels that is the node 'labels (vertical)': a name that already begins
    with the operand's is not repeated ('labels (labels (vertical))'), one that only has it
    inside is ('a (∂out/∂y_sq (a constant))'). A card passes a node inside a 'gradient' node
    by the shorter name of `brief`."""
    if not node or node == name:
        return node or name
    if re.match(rf"{re.escape(name)}(?![A-Za-z0-9_])", node):
        return node
    return f"{name} ({node})"


def brief(node, title):
    """`node` as a card beside the step titled `title` names it: a node inside a 'gradient'
    node that the title names, without ' inside t1.gradient(y, x)' ('∂y/∂xx' for '∂y/∂xx
    inside t1.gradient(y, x)' beside the title '… → x, inside t1.gradient(y, x)'): beside a
    matrix the whole name pushed it off the card (lesson 14 step 6)."""
    while " inside " in node:
        inner, parent = node.rsplit(" inside ", 1)
        if not mentions(title or "", parent):
            break
        node = inner
    return node


def untold(rule, nodes, said):
    """[(letter, node)]: the letters a rule card's `rule` (a rule_sums.Rule) writes, its
    grad_<letter> and its right side's, for a node of another name (`nodes`: letter ->
    node) that no heading in `said` (the card's other words: 'where b (1/√d) =') ties to
    it. Lesson 34's card read 'grad_a = grad @ w_qᵀ' for the tokens x and lesson 13's
    'where a = 1.500' for ∂y/∂xx; only the caption said which node a was."""
    own = rule.lhs.removeprefix("grad_") if rule.lhs.startswith("grad_") else ""
    return [(name, node) for name, node in nodes.items()
            if node and node != name and (name == own or mentions(rule.rhs, name))
            and operand_heading(name, node) not in said]


def told(rule, nodes, said):
    """The rule card's formula line, `rule`'s text, with its own letter said which node it
    is where no other heading of the card does: 'grad_a (tokens x) = grad @ w_qᵀ', as the
    where line heads 'b (1/√d) ='. It takes no row of its own: a row 'a is QKᵀ' made
    attention's step 10 card too tall to dock at 1280 x 800 beside the cards it is about
    (2cbdefc)."""
    own = rule.lhs.removeprefix("grad_")
    node = next((node for name, node in untold(rule, nodes, said) if name == own), None)
    return rule.text if node is None else f"{rule.lhs} ({node}) = {rule.right}"


# A name that reads as one term of a formula: x, W1, tf_t, layer.kernel, γ; or a number.
_TERM = re.compile(r"[A-Za-z_\u0391-\u03c9][A-Za-z0-9_.\u0391-\u03c9]{0,15}|\d+(\.\d+)?")
_ACCENTED = "(?=[\u0300-\u036f])"   # x̂: a hat on the letter would land on the name's last letter
_PROSE = re.compile(r"\b(of|with|the|to|at|over)\b")   # a rule told in words


def is_number(name):
    return bool(re.fullmatch(r"\d+(\.\d+)?", name or ""))


def substitutions(names, labels, tensors, formulas):
    """{rule letter: the reader's name} for the operands the rule can be written with.

    A letter (or a word such as 'logits' in a rule that is a formula, not prose such as
    'correlation of input with grad') is replaced where no accent is on it, by its
    tensor's name when that is one term (`_TERM`), means nothing else in the rule (not
    'grad') and is no other tensor's of the op."""
    used = set().union(*(words(f.split("=", 1)[-1]) for f in formulas))
    prose = any(_PROSE.search(f.split("=", 1)[-1]) for f in formulas)
    candidates = {}
    for name, label, tensor in zip(names, labels, tensors):
        letter = len(name) == 1 and name.isascii()     # x, a (not γ: a symbol of the rule)
        if not (letter or (name.isascii() and name.isalpha() and not prose)) \
                or not label or not _TERM.fullmatch(label) \
                or not any(_word_pattern((name,)).search(f) for f in formulas) \
                or any(re.search(rf"(?<![A-Za-z_]){re.escape(name)}{_ACCENTED}", f)
                       for f in formulas) \
                or any(lab == label and t is not tensor for lab, t in zip(labels, tensors)):
            continue
        candidates[name] = label
    # A name that is a word the rule keeps (grad, softmax, shape) cannot go in; a letter it
    # keeps (another operand's, Mean's n) is renamed by `unclash` when it is a name shown.
    kept = {w for w in used if len(w) > 1 and w not in names} | {"grad"}
    return {n: label for n, label in candidates.items() if label not in kept}


def unclash(names, labels, taken, formulas=(), spares=SPARE):
    """{rule name: shown name}: a rule name that is another tensor's name on screen (in
    `taken`) gets a spare letter (the first of `spares`) no operand, no tensor and no formula
    of the op uses."""
    used = set(names) | set(taken) | set().union(*(words(f) for f in formulas))
    mapping = {}
    for name, label in zip(names, labels):
        if name == label or name not in taken or name in mapping:
            continue
        spare = next((s for s in spares if s not in used), None)
        if spare is None:
            spare = next(f"{name}{i}" for i in range(1, 10_000) if f"{name}{i}" not in used)
        used.add(spare)
        mapping[name] = spare
    return mapping


def rule_operands(op, naming):
    """(names, labels, mapping): the rule's operand names as shown (the reader's names where
    they fit, clashes renamed), the reader's names of the tensors they stand for, and the
    renaming to apply to rule texts.

    The op's output joins the operands when its rule mentions it ('y' in softmax's)."""
    own = [f for f in (naming.formula(op, k) for k in range(len(op.inputs))) if f]
    names = operand_names(op, naming.formula)
    labels = [naming.label(t) for t in op.inputs]
    tensors = list(op.inputs)
    if OUTPUT not in names and any(OUTPUT in words(f.split("=", 1)[-1]) for f in own) \
            and len(op.outputs) == 1:
        names, labels = names + [OUTPUT], labels + [naming.label(op.outputs[0])]
        tensors.append(op.outputs[0])
    # A symbol the rule uses for no operand (Mean's count n, MatrixSolve's solution x,
    # BatchNorm's σ, dropout's mask); a rule told in words keeps its words
    # ... stands for no node: one that is a node's name, or a port's (softmax's p beside a
    # port named after the node p), takes a spare letter first, which the operands' names
    # below then avoid.
    shown_names = naming.shown_names()
    placed = port_renaming(names, naming.slots(op))
    free = sorted({w for f in own for w in symbols(f.split("=", 1)[-1])
                   if w not in names and w != UPSTREAM
                   and (w in shown_names or w in placed.values())})
    first = unclash(free, [None] * len(free), shown_names | set(placed.values()) | set(names)
                    | set(labels), own)
    own = [rename(f, first) for f in own]
    raw = [rename(f, placed) for f in own]   # a node's op: its operands take its ports' names
    names = [placed.get(n, n) for n in names]
    mapping = substitutions(names, labels, tensors, raw)
    taken = shown_names | set(mapping.values())
    lettered = [(n, lab) for n, lab in zip(names, labels) if n not in mapping]
    mapping.update(unclash([n for n, _ in lettered], [lab for _, lab in lettered], taken,
                           [*raw, " ".join(mapping.values())]))
    word = upstream_word(taken | set(mapping.values()))
    if word != UPSTREAM:   # a node called grad: the rule's grad is not that node
        mapping[UPSTREAM] = word
    shown = [mapping.get(n, n) for n in names]
    if placed:   # one renaming from the engine's letters: x -> a (the port) -> tf_t (its node)
        mapping = {**{old: mapping.get(new, new) for old, new in placed.items()},
                   **{n: m for n, m in mapping.items() if n not in placed.values()}}
    return shown, labels, {**first, **mapping}


def port_renaming(names, slots):
    """{rule name: its port's name} for `slots` (the catalog's names of the ports, the names
    they show): by role where a port is named by its role word (conv2d's 'filters'), else by
    place (multiply's y is its second port, b)."""
    if slots is None:
        return {}
    declared, shown = slots
    placed = {}
    for k, name in enumerate(names[:len(shown)]):
        port = declared.index(name) if name in declared else k
        placed[name] = shown[port]
    return {n: p for n, p in placed.items() if n != p}


def input_word(op, k, naming, single="its input"):
    """Input k of `op` as the canvas labels its port: 'input a' (multiply's ports read a
    and b); `single` for an op of one input, whose port has no label and no number; 'input
    2' (counted from 1) for an op no card shows, which has no port to label."""
    if len(op.inputs) == 1:
        return single
    slots = naming.slots(op) if naming is not None else None
    if slots is None:
        return f"input {k + 1}"
    declared, shown = slots   # by role where its port is named by role, else by place
    name = operand_names(op, naming.formula)[k]   # (cross-entropy's op takes the logits first)
    return f"input {shown[declared.index(name) if name in declared else k]}"
