"""Where a study's first NaN or infinity comes from, in a reader's words.

A study differentiates once (a Jacobian), twice (a Hessian: the outer tape's Jacobian
of the inner gradient) or more (higher_order), so a NaN can start in a rule applied
once (sqrt's rule at 0 gives ∞) or in a rule differentiated again: pow's rule
grad · y · x^(y-1), differentiated again where x = 0, multiplies 0 by 0^(-1) = ∞
(faithful to TF's Pow gradient). The study cannot then be used as numbers (no
eigenvalues, no Newton step); this module names the node and the rule, as node warnings do.

It runs the study's nested tapes once more with observers: while each inner tape
differentiates, one notes which forward op each new entry of the outermost tape serves
(the ops a rule records are made between the visit of that op and the next visit); then
the outermost tape differentiates one row of the result that is not finite, and another
observer notes the first contribution that is not finite. Everything before it was
finite: that rule made it.
"""
import re
from dataclasses import dataclass

import numpy as np

from ..engine.observer import Observer
from ..engine.blocks import ELEMENTWISE
from ..engine.errors import counted, ordinal
from ..engine.tensor import Tensor
from .build import quiet
from .catalog import OPS, part_name
from .errors import ENGINE_ERRORS, Problem, reader_name
from .evaluate import _built, _check, _port, _prepared, _tapes
from .names import node_kind

# what each study's result is called where a warning names it
RESULT_NAMES = {"jacobian": "J", "batch_jacobian": "the batch Jacobian", "hessian": "H"}


def result_name(kind, order=1):
    """'H', 'J', 'the batch Jacobian', 'the 2nd derivative' (higher_order's `order`-th)."""
    if kind == "higher_order":
        return f"the {ordinal(order)} derivative"
    return RESULT_NAMES[kind]


def _sentence(words):
    """`words` opening a sentence: 'The batch Jacobian', 'H'."""
    return words[:1].upper() + words[1:]


@dataclass
class NanOrigin:
    node: str          # the document node whose rule (perhaps differentiated again) made it
    op: str            # the op whose rule made it, in the reader's words ('pow', 'multiply')
    rule: str          # that rule's formula for the input it fed ('grad_x = grad · y · x^(y-1)')
    second: bool       # True: a rule of an op that a differentiation recorded
    entry: str         # where in the result the first non-finite number is ('row 3, column 5')
    count: int         # how many entries of the result are not finite
    result: str = "H"  # what the result is called ('H', 'J', 'the 2nd derivative')
    operand: str = ""  # the input node where the rule's input holds zeros
    zeros: int = 0     # how many of its entries are 0
    size: int = 0
    forward: bool = False   # some input the op reads is already NaN or infinite
    kind: str = ""     # what the node's card says it is ('pow', 'softmax', 'Dense')
    letters: tuple = ()     # the rule's letter for each input of the op ('x', 'y')
    inputs: tuple = ()      # per input of the op: (node id, how: 'node' | 'rule' | 'inside', bad)
    root: tuple = ()        # where the computation's first NaN or infinity is made (_root)
    index: int = 0          # the input of the op whose cotangent first holds NaN or infinity
    at: str = ""            # where in that cotangent ('[0, 0]'; '' for one number)
    bad: str = ""           # what it holds there ('-∞', 'NaN')
    numbers: dict = None    # the rule's letters at that entry ({'grad': -1.0, 'x': 0.0}),
                            # None where the op is not elementwise

    def text(self, label):
        """'H holds NaN …: it first appears in the cotangent of p, from the rule of log_p …'
        with `label(node id)` the node's name: which cotangent first holds the NaN or
        infinity (a rule's output, never the upstream it read) and the operation that made
        it with the numbers at that entry ('-1 / 0 = -∞'); ops in the words the cards use
        (pow, norm), never the type TF's tape records (Pow, EuclideanNorm); the rule's
        operands by their nodes' names where they are nodes."""
        kind = f" ({self.kind or self.op})"
        into = f"the cotangent of {self._input(label, self.index)}"
        where = (f"where the rule of {label(self.node)}{kind} is differentiated again, in {into}"
                 if self.second else f"in {into}, from the rule of {label(self.node)}{kind}")
        head = (f"{_sentence(self.result)} holds NaN or infinity in {self.count} of its entries "
                f"(first at {self.entry}). It first appears {where}: ")
        if self.forward:
            bad = [self._input(label, i) for i, (_, _, b) in enumerate(self.inputs) if b]
            reader = (f"a {self.op} inside that rule" if self.second  # (no card shows it)
                      else f"{self.op}'s rule")
            read = (f"{reader} reads {_joined(bad)}, which already "
                    f"{'holds' if len(bad) == 1 else 'hold'} NaN or infinity")
            return head + read + "." + self._root_text(label)
        node, how, _ = self.inputs[self.index] if self.inputs else (None, "", False)
        at = (f" at {label(node) if how == 'node' else 'entry '}{self.at}" if self.at else "")
        computed, bad = self._computed(), self.bad.replace("-", "−")
        made = f"computes {computed} = {bad}" if computed else f"gives {bad}"
        zero = (f" ({label(self.operand)} is 0 in {self.zeros} of {counted(self.size, 'entry', 'entries')})"
                if self.zeros else "")
        return head + (f"{self._rule(label).rstrip(',')}:{at} it {made} from finite "
                       f"numbers{zero}.")

    def _computed(self):
        """The rule's expression with the numbers of the entry where it first gives NaN or
        infinity ('-1 / 0' for grad / x), '' when it cannot be written so (an op that is not
        elementwise, a rule whose text names what is not an input)."""
        rule = self.rule.split("=", 1)[-1]
        rule = re.split(r",| where ", rule)[0].strip()
        if self.numbers is None or not rule:
            return ""
        letter = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
        text = rule
        for name, value in sorted(self.numbers.items(), key=lambda kv: -len(kv[0])):
            word = _number(value)
            text = re.sub(letter.format(re.escape(name)),
                          lambda m: word if m.start() == 0 or word[0] != "-" else f"({word})",
                          text)
        if any(re.search(rf"{re.escape(n)}(?![A-Za-z_])", text) for n in self.numbers):
            return ""      # a letter left inside a word ('2x'): no true substitution
        return text.replace("-", "−")

    def _input(self, label, i):
        """Input i of the op as the reader knows it: its node's name, else whose value it is."""
        node, how, _ = self.inputs[i]
        if how == "node":
            return label(node)
        if node is None:
            return "a value a rule computed" if how == "rule" else "a value inside a node"
        return (f"a value that {label(node)}'s rule computed" if how == "rule"
                else f"a value inside {label(node)}")

    def _rule(self, label):
        """"sqrt's rule grad_a = grad / (2·√a)": the rule's letters renamed to the nodes its
        inputs are; a letter for a value no card names (a value a rule computed, which an
        op that rule recorded reads) stays, and is said: '…, where x is layer and y is a
        value that y_sq's rule computed'."""
        if not self.rule:
            return f"{self.op}'s rule"
        names, unnamed = {}, []
        for i, (letter, (node, how, _)) in enumerate(zip(self.letters, self.inputs)):
            if letter and how == "node":
                names[letter] = label(node)
            elif letter and re.search(rf"(?<![A-Za-z0-9_]){re.escape(letter)}(?![A-Za-z0-9_])",
                                      self.rule.split("=", 1)[-1]):
                unnamed.append(i)
        text = f"{self.op}'s rule {_renamed(self.rule, {} if unnamed else names)}"
        if unnamed:
            said = [f"{self.letters[i]} is {names.get(self.letters[i]) or self._input(label, i)}"
                    for i in range(len(self.inputs)) if self.letters[i]
                    and (i in unnamed or self.letters[i] in names)]
            text += f", where {_joined(said)},"
        return text

    def _root_text(self, label):
        if not self.root:
            return ""
        node, how, op = self.root
        if how == "value":
            return f" The value of {label(node)} already holds NaN or infinity."
        if how == "forward":
            return (f" That NaN or infinity is made in the forward pass, by {label(node)} "
                    f"({op}) from finite numbers: see the node's warning.")
        return (f" That NaN or infinity is made by {op} in the rule of {label(node)}, from "
                f"finite numbers.")


def _number(value):
    """One number of a rule's operation: whole numbers as integers ('-1 / 0' reads as the
    rule's division), others with float32's shortest digits; ∞ and NaN as words write them.
    (story.numbers, the cards' rule, is a layer above the graph.)"""
    if np.isnan(value):
        return "NaN"
    if np.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return np.format_float_positional(np.float32(value), trim="-") if 1e-4 <= abs(value) < 1e6 \
        else np.format_float_scientific(np.float32(value), trim="-")


def _joined(words):
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _renamed(text, names):
    """`text` with each whole-word letter in `names` replaced ('grad_x' counts x as a word)."""
    names = {old: new for old, new in names.items() if old != new}
    if not names:
        return text
    pattern = re.compile(r"(?:(?<=grad_)|(?<![A-Za-z0-9_]))(" + "|".join(
        re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![A-Za-z0-9_])")
    return pattern.sub(lambda m: names[m.group(1)], text)


class _Servers(Observer):
    """Which forward op the outermost tape's entries made during an inner backward pass serve."""

    def __init__(self, outer):
        self.outer, self.marks = outer, []   # (first entry index, forward op)
        self.start = self.end = len(outer._entries)   # the entries this pass made

    def visit(self, op, upstream):
        self.marks.append((len(self.outer._entries), op))

    def served(self, index):
        if not self.start <= index < self.end:
            return None
        owner = None
        for start, op in self.marks:
            if start > index:
                break
            owner = op
        return owner


class _FirstNonFinite(Observer):
    def __init__(self):
        self.found = None    # (op, input index, upstream of its outputs, that input's cotangent)
        self._upstream = ()

    def visit(self, op, upstream):
        self._upstream = upstream

    def contribution(self, op, index, cotangent):
        value = np.asarray(cotangent._value if hasattr(cotangent, "_value") else cotangent)
        if self.found is None and value.dtype.kind == "f" and not np.isfinite(value).all():
            self.found = (op, index, [None if u is None else np.asarray(u._value)
                                      for u in self._upstream], value)


def _bad(array):
    return np.argwhere(~np.isfinite(np.asarray(array)).reshape(-1)).reshape(-1)


def _seed_and_entry(kind, result, target_shape, source_size):
    """(seed for the last pass as a function of its target's shape, where the first bad
    entry is in words), for a result that is not finite."""
    flat = int(_bad(result)[0])
    if kind == "batch_jacobian":    # (B, *t, *s): the ones-across-the-batch seed of row t
        b, rest = divmod(flat, int(np.prod(np.shape(result)[1:], dtype=int)))
        per = int(np.prod(target_shape[1:], dtype=int))
        cols = int(np.size(result)) // max(1, np.shape(result)[0] * per)
        t, col = divmod(rest, max(1, cols))

        def seed(shape, dtype):
            s = np.zeros(shape, dtype)
            s.reshape(shape[0], -1)[:, t] = 1
            return s
        return seed, f"example {b}, row {t}, column {col}"
    if kind == "higher_order":      # plain gradients: seeded with ones
        return (lambda shape, dtype: np.ones(shape, dtype)), f"flat index {flat}"
    row, col = divmod(flat, max(1, source_size))

    def seed(shape, dtype):
        s = np.zeros(shape, dtype)
        s.flat[row] = 1
        return s
    return seed, f"row {row}, column {col}"


def study_nan_origin(doc, kind, result, target=None, source=None):
    """NanOrigin for the result of `kind` ('jacobian', 'batch_jacobian', 'hessian',
    'higher_order': the list of derivatives) that is not finite, or None when it is
    finite or the origin cannot be traced."""
    order, array = 1, result
    if kind == "higher_order":
        bad = [i for i, d in enumerate(result) if d is not None and len(_bad(d))]
        if not bad:
            return None
        order, array = bad[0] + 1, result[bad[0]]
    if array is None or not len(_bad(array)):
        return None
    passes = {"jacobian": 1, "batch_jacobian": 1, "hessian": 2}.get(kind, order)
    tp, sp, structure = _prepared(doc, kind, target, source)
    try:
        with _tapes(doc, passes, persistent_outer=True) as (tapes, helper), quiet():
            built = _built(doc, tapes, helper, structure.broken)
            _check(doc, structure, built, [tp, sp], kind)
            t, s = built.tensors[tp], built.tensors[sp]
            seed, entry = _seed_and_entry(kind, array, np.shape(t._value), int(np.size(s._value)))
            outer, servers, first = tapes[0], [], len(tapes[0]._entries)
            for tape in reversed(tapes[1:]):   # the inner differentiations, innermost first
                servers.append(_Servers(outer))
                t = tape.gradient(t, s, observer=servers[-1])
                servers[-1].end = len(outer._entries)
                if t is None:
                    return None
            finder = _FirstNonFinite()
            outer.gradient(t, s, output_gradients=Tensor._wrap(seed(t._value.shape, t._value.dtype)),
                           observer=finder)
    except ENGINE_ERRORS:
        return None
    if finder.found is None:
        return None
    op, k, upstream, cotangent = finder.found
    forward = _served(op, outer._entries, first, servers)
    second = any(o is op for o in outer._entries[first:])
    node = _source_node(doc, built, op) or _node_of(built, forward)
    if node is None:
        return None
    origin = NanOrigin(node, _op_words(doc.nodes[node], op.type), op.opdef.formula(op.attrs, k) or "",
                       passes > 1 and (second or doc.nodes[node].op != "gradient"), entry,
                       int(len(_bad(array))), result_name(kind, order),
                       kind=node_kind(doc.nodes[node]))
    values = [np.asarray(x._value) for x in op.inputs]
    origin.forward = any(v.dtype.kind == "f" and not np.isfinite(v).all() for v in values)
    origin.letters = tuple(_letter(op, i) for i in range(len(op.inputs)))
    origin.inputs = tuple(_input_of(doc, built, outer, first, servers, x) + (not _finite(v),)
                          for x, v in zip(op.inputs, values))
    _place(origin, op, k, upstream, cotangent, values)
    if origin.forward:
        origin.root = _root(doc, built, outer, first, servers,
                            [x for x, v in zip(op.inputs, values) if not _finite(v)])
    for tensor, value in zip(op.inputs, values):   # the input whose zeros the rule divides by
        owner = _port_node(built, tensor)
        if owner is not None and value.dtype.kind == "f" and (value == 0).any():
            origin.operand, origin.zeros, origin.size = owner, int((value == 0).sum()), value.size
            break
    return origin


def _place(origin, op, k, upstream, cotangent, values):
    """Where the cotangent of input k first holds NaN or infinity, what it holds there and,
    for an elementwise op whose operands line up with it, the rule's letters' numbers there."""
    flat = int(_bad(cotangent)[0])
    entry = np.unravel_index(flat, cotangent.shape) if cotangent.ndim else ()
    origin.index = k
    origin.at = f"[{', '.join(str(int(i)) for i in entry)}]" if cotangent.size > 1 else ""
    origin.bad = _number(cotangent.reshape(-1)[flat])
    if (op.type not in ELEMENTWISE or len(upstream) != 1 or upstream[0] is None
            or upstream[0].shape != cotangent.shape or values[k].shape != cotangent.shape):
        return
    try:
        at = {"grad": float(upstream[0][entry])}
        for letter, v in zip(origin.letters, values):
            if letter:
                at[letter] = float(np.broadcast_to(v, cotangent.shape)[entry])
    except ValueError:     # an input that does not broadcast to the cotangent's shape
        return
    origin.numbers = at


def study_nan_warning(doc, kind, result, target=None, source=None):
    """What a reader is told about a study's result that holds NaN or infinity ('' when it
    is finite): where it first appears when that can be traced, else how much of it."""
    arrays = [a for a in (result if isinstance(result, list) else [result]) if a is not None]
    bad = [(i, len(_bad(a))) for i, a in enumerate(arrays) if len(_bad(a))]
    if not bad:
        return ""
    origin = study_nan_origin(doc, kind, result, target, source) if doc is not None else None
    if origin is not None:
        return origin.text(lambda nid: reader_name(doc, nid) or nid)
    index, count = bad[0]
    what = result_name(kind, index + 1)
    return (f"{_sentence(what)} holds NaN or infinity in {count} of its "
            f"{counted(arrays[index].size, 'entry', 'entries')}: a rule meets 0 · ∞ or a "
            f"division by 0 (or the values it differentiates hold NaN).")


def study_problems(doc, results):
    """A warning for each study in `results` (run_studies') that holds NaN or infinity,
    naming the node and rule where it first appears, so no one reads "no problems" beside
    it; and for a Newton step that is not finite although H is."""
    problems = []
    for kind, result in results.items():
        if kind in RESULT_NAMES or kind == "higher_order":
            if isinstance(result, (np.ndarray, list)):
                text = study_nan_warning(doc, kind, result)
                if text:
                    problems.append(Problem(text, where=f"studies.{kind}", warning=True))
    newton, h = results.get("newton_step"), results.get("hessian")
    if newton is not None and len(_bad(newton)) and h is not None and not len(_bad(h)):
        problems.append(Problem("the Newton step holds NaN or infinity: H + εI is singular "
                                "at this ε (raise newton_eps)", where="studies.hessian",
                                warning=True))
    return problems


def _op_words(node, engine_type):
    """An op of `node` as the reader knows it: the node's own op as its card says it
    ('norm', not EuclideanNorm), an op inside it or recorded by its rule by its name in
    TF's API (a layer's 'matmul', softmax's rule's 'multiply')."""
    spec = OPS.get(node.op) if node.kind == "op" else None
    if spec is not None and spec.engine == engine_type:
        return node_kind(node)
    return part_name(node, engine_type)


def _served(op, entries, first, servers):
    """The forward op a rule's op serves, through every differentiation that recorded it."""
    index = {id(o): i for i, o in enumerate(entries) if i >= first}
    while id(op) in index:
        owner = next((o for o in (p.served(index[id(op)]) for p in servers) if o is not None),
                     None)
        if owner is None:
            break
        op = owner
    return op


def _finite(value):
    return value.dtype.kind != "f" or bool(np.isfinite(value).all())


def _letter(op, k):
    """The letter op's rule calls input k by ('x' of 'grad_x = grad · y'), '' if none."""
    lhs = (op.opdef.formula(op.attrs, k) or "").split("=", 1)[0].strip()
    return lhs[5:] if lhs.startswith("grad_") else ""


def _owner(doc, built, op):
    return _source_node(doc, built, op) or _node_of(built, op)


def _input_of(doc, built, outer, first, servers, tensor):
    """(node id, how) of a tensor an op reads: ('y', 'node') for a node's value, ('p',
    'rule') for a value p's rule computed while differentiating, ('dense', 'inside') for a
    value inside a layer; (None, 'rule') when nothing owns it."""
    node = _port_node(built, tensor)
    if node is not None:
        return node, "node"
    producer = outer._producer(tensor._id)
    if producer is None:
        return None, "rule"
    made = next((i for i, o in enumerate(outer._entries) if o is producer), 0)
    served = _served(producer, outer._entries, first, servers)
    return _owner(doc, built, served), ("rule" if made >= first else "inside")


def _root(doc, built, outer, first, servers, tensors):
    """Where the first NaN or infinity that reaches `tensors` (the bad inputs of the op
    whose rule met them) is made: walking back through the producers of inputs that are
    not finite to an op whose inputs are all finite, (node, 'forward', op words) for an op
    of the forward pass, (node, 'rule', op words) for one a rule recorded; or to a tensor no
    op made, (node, 'value', '') for a node whose own value holds it. The earliest such
    origin when several feed them; () when the trail ends at nothing a reader can name."""
    index = {id(o): i for i, o in enumerate(outer._entries)}
    seen, stack, origins = set(), list(tensors), []
    while stack:
        tensor = stack.pop()
        if tensor._id in seen:
            continue
        seen.add(tensor._id)
        op = outer._producer(tensor._id)
        if op is None:
            origins.append((-1, None, tensor))
            continue
        bad = [x for x in op.inputs if not _finite(np.asarray(x._value))]
        if bad:
            stack.extend(bad)
        else:
            origins.append((index[id(op)], op, tensor))
    if not origins:
        return ()
    i, op, tensor = min(origins, key=lambda o: o[0])
    if op is None:
        node = _port_node(built, tensor)
        return (node, "value", "") if node is not None else ()
    node = _owner(doc, built, _served(op, outer._entries, first, servers))
    if node is None:
        return ()
    if i < first:
        return node, "forward", node_kind(doc.nodes[node])
    return node, "rule", _op_words(doc.nodes[node], op.type)


def _node_of(built, op):
    for node_id, ops in built.entries.items():
        if any(o is op for o in ops):
            return node_id
    return None


def _port_node(built, tensor):
    return next((port.node for port, t in built.tensors.items() if t is tensor), None)


def _source_node(doc, built, op):
    """The document node that applies an op of the same type to the same first input: a
    rule that repeats its op (pow's x^(y-1)) leads back to where the reader wrote it."""
    for node_id, ops in built.entries.items():
        node = doc.nodes.get(node_id)
        if node is None or node.op == "gradient":
            continue
        if any(o.type == op.type and o.inputs and op.inputs and o.inputs[0] is op.inputs[0]
               for o in ops):
            return node_id
    return None
