"""The reader's names of nodes: a node's label is its name in every list, header, code line
and JSON key; its id is internal (what edges and files refer to).

Two nodes may carry the same label, so a name that must be unique (a JSON key, a Python
variable, a node id in a saved file) takes a TF-style suffix: x, x_1, x_2. A name that code
or a file needs is also made a valid ASCII identifier: 'y_sq (before reset)' becomes
y_sq_before_reset, 'θ' becomes theta.
"""
import keyword
import re
import unicodedata

import numpy as np

from .catalog import api_name, port_name
from .document import fresh
from .ports import ID_LENGTH


def node_name(node):
    """What the canvas writes on the node: its label, else its id."""
    return node.label or node.id


def node_kind(node):
    """What a node's card says it is, in its header: the op it computes ('matmul',
    'gradient', 'Dense'), else its kind ('constant', 'custom_gradient'). The story's
    "t1.gradient(out, x) (gradient)" says the same word."""
    return node.op if node.kind in ("op", "layer") and node.op else node.kind


def identifier(text):
    """A valid ASCII Python identifier that reads like `text` ('W1' stays W1, 'y (old)' ->
    y_old, 'Wᵀ' -> WT, 'θ' -> theta, 'café' -> cafe)."""
    name = re.sub(r"\W+", "_", _spelled_in_ascii(str(text)), flags=re.ASCII).strip("_") or "node"
    if name[0].isdigit():
        name = "n_" + name
    return name + "_" if keyword.iskeyword(name) else name


def _spelled_in_ascii(text):
    """`text` with its letters spelled in ASCII where a reader would: accents dropped
    (é -> e), compatibility forms unfolded (ᵀ -> T, ² -> 2), a Greek letter by its name
    (α -> alpha, Σ -> Sigma) set apart from neighbouring letters by '_'."""
    out = []
    for c in unicodedata.normalize("NFKD", text):
        if c.isascii():
            out.append(c)
            continue
        if unicodedata.combining(c):
            continue
        name = unicodedata.name(c, "")
        words = name.split()
        if words[:1] == ["GREEK"] and "LETTER" in words:
            letter = _SPELLED.get(words[-1], words[-1]).lower()
            out.append(f" {letter.capitalize() if 'CAPITAL' in words else letter} ")
        else:
            out.append(_SYMBOLS.get(name, " "))
    return re.sub(r" (?=_)|(?<=_) ", "", "".join(out))      # W_α: W_alpha, not W__alpha


_SPELLED = {"LAMDA": "lambda"}   # Unicode spells the letter lamda
_SYMBOLS = {"PARTIAL DIFFERENTIAL": " d", "NABLA": " nabla "}   # ∂L/∂W reads dL_dW


def op_stem(engine_type):
    """The name TF's Python API gives an op of this type, the public function's name
    without its module: MatMul -> matmul, SoftmaxCrossEntropyWithLogits ->
    softmax_cross_entropy_with_logits (a counter makes it unique: matmul_1)."""
    return identifier(api_name(engine_type).rsplit(".", 1)[-1])


def unique_names(doc, taken=(), make=node_name):
    """{node id: its name, made unique}; `taken` names are avoided. A node keeps the name
    it wants unless an earlier node wants it too; those take TF's suffix (x_1) in document
    order after every name wanted as it is, so a node labelled W_1 keeps W_1 beside two
    labelled W (the second becomes W_2), and names read back from a file stay as they are."""
    wanted = {nid: make(node) for nid, node in doc.nodes.items()}
    used, out, counters = set(taken), {}, {}
    for nid, name in wanted.items():
        if name not in used:
            used.add(name)
            out[nid] = name
    for nid, name in wanted.items():
        if nid not in out:
            out[nid] = fresh(name, used, counters)
            used.add(out[nid])
    return {nid: out[nid] for nid in wanted}


def identifiers(doc, reserved=()):
    """{node id: a unique Python identifier from its label}."""
    return unique_names(doc, reserved, lambda node: identifier(node_name(node)))


def file_ids(doc):
    """{node id: the id the saved file gives it}: the node's name as the code view writes it
    (W1, hidden, t1_gradient_y_x; an unlabelled node keeps its TF-like id, matmul_1), made
    unique in document order. A teacher who reads the file finds the names the canvas shows;
    the ids in memory stay internal, so nothing the editor keys by id changes on a save.
    Reading the file back and saving it again gives the same ids."""
    return unique_names(doc, make=lambda node: identifier(node_name(node))[:_ID_STEM])


_ID_STEM = ID_LENGTH - 7   # room for the suffix that makes the 10,000th alike name unique


def port_names(doc, ports):
    """{port: its unique reader's name} ('W1', 'layer.kernel', 'split:1')."""
    unique = unique_names(doc)
    out = {}
    for port in ports:
        node = doc.nodes.get(port.node)
        name = port_name(doc, port)
        if node is not None and unique[port.node] != node_name(node):
            name = unique[port.node] + name[len(node_name(node)):]
        out[port] = name
    return out


# -- what tape.gradient differentiates -------------------------------------------------------

# The seed's inner product ❬v, y❭, written alike on every surface (cards, captions, the
# inspector, provenance, exports, `gradviz explain`). Not ⟨ ⟩ (U+27E8/9): at a card's label
# size DejaVu draws those like ( ), and '∂⟨v, y⟩/∂x' reads as '∂(v, y)/∂x'; the angle
# bracket ornaments ❬ ❭ keep their point.
INNER_PRODUCT = "❬{}, {}❭"


def inner_product(v, y):
    """'❬v, y❭': Σ v·y, what tape.gradient differentiates when output_gradients gave v."""
    return INNER_PRODUCT.format(v, y)


def objective_terms(doc, values=None, name=port_name):
    """[(target port, its name, how)] for each target, how tape.gradient takes it: 'given'
    (seeded with output_gradients), else `taken(values.get(port))`. `values` ({Port:
    array}) tell a scalar from a tensor."""
    values = values or {}
    terms = []
    for port in doc.targets:
        if port.node not in doc.nodes:
            continue
        how = "given" if port in doc.output_gradients else taken(values.get(port))
        terms.append((port, name(doc, port), how))
    return terms


def taken(value):
    """How tape.gradient takes a target of this value: 'scalar' (itself), 'sum' (a tensor:
    TF sums its elements), 'unknown' (no value: the graph does not run up to it, and a
    name must not claim either)."""
    if value is None:
        return "unknown"
    return "scalar" if np.size(value) == 1 else "sum"


def objective_name(doc, values=None, name=port_name):
    """What every gradient shown is the derivative of: a scalar target itself ('loss'), the
    sum of a tensor target's elements ('Σy'), the seed's weighted sum ❬v, y❭ when
    output_gradients gave v, several targets added ('(Σa + ❬v2, b❭)'); '' without one."""
    return objective_sum(objective_terms(doc, values, name))


def objective_sum(terms):
    """[(…, name, how)] as one objective: 'loss', 'Σy', '❬v, y❭', '(Σa + ❬v2, b❭)'."""
    parts = [objective_term(shown, how, _seed_name(len(terms), k))
             for k, (_, shown, how) in enumerate(terms)]
    if len(parts) <= 1:
        return parts[0] if parts else ""
    return f"({' + '.join(parts)})" if len(parts) <= 3 else "(Σ targets)"


def objective_term(shown, how, v="v"):
    """One target's term: 'loss' (how='scalar', or 'unknown': its name alone, no claim),
    'Σy' ('sum'), '❬v, y❭' ('given')."""
    if how == "given":
        return inner_product(v, shown)
    return f"Σ{shown}" if how == "sum" else shown


def objective_note(doc, values=None, name=port_name):
    """What the symbols of `objective_name` mean, in words ('' for one scalar target):
    '❬v, y❭ = Σ v·y, where v is the output_gradients given for y', 'Σy: the sum of y's elements,
    which tape.gradient differentiates for a target that is not a scalar'; nothing for a
    target whose value is unknown (a shape error before it): no claim that it is a tensor."""
    terms = objective_terms(doc, values, name)
    notes = []
    for k, (_, shown, how) in enumerate(terms):
        v = _seed_name(len(terms), k)
        term = objective_term(shown, how, v)
        if how == "given":
            notes.append(f"{term} = Σ {v}·{shown}, where {v} is the output_gradients given for "
                         f"{shown}")
        elif how == "sum":
            notes.append(f"{term}: the sum of {shown}'s elements, which tape.gradient "
                         f"differentiates for a target that is not a scalar")
    if len(terms) > 3:
        notes.append("Σ targets: the targets' terms added")
    return "; ".join(notes)


def _seed_name(count, k):
    return "v" if count == 1 else f"v{k + 1}"
