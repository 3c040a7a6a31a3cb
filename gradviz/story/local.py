"""Element provenance: which products upstream[j] · J[j, i] sum to one cotangent entry.

Computed lazily, one entry at a time: entry i of input k needs only column i of the
op's local Jacobian J, never all of it. MatMul and the broadcasting elementwise ops
(+, -, ·, /, broadcast_to) have closed forms that visit only the output entries fed
by i (a row of b for a matmul). Any other op gets its column from one extra backward
pass: the VJP u ↦ Jᵀu is linear in u, so differentiating its entry i with respect
to u gives J[:, i] (the double-backward trick), at the cost of one VJP of the op.
"""
import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..engine.backward import tf_style_grad
from ..engine.tape import GradientTape
from ..engine.tensor import Tensor
from .numbers import SIGNIFICANT_MOST, at_resolution, printed_value, resolution, writer
from ..graph.operands import UPSTREAM, caption, operand_names, rename, rule_operands
from .window_terms import conv2d_terms, pool_terms

# Beyond this many terms a sum is not enumerated: the shown terms come from the first
# entries and the rest is the value minus what is shown.
ENUMERATE_LIMIT = 1_000_000

_WINDOWED = ("Conv2D", "MaxPool", "AvgPool")   # closed forms in window_terms
_NUMBER = re.compile(r"^\(?-?[\d.]+\)?$")   # '1', '(-1)', '0.5': a constant factor
_ENTRY = re.compile(r"^\(?([A-Za-z_]\w*)(?:\[[\d,\s]*\])?\)?$")   # 'b[0,1]', 'y', '(x)'
_ELEMENTWISE = {"Mul": "mul", "AddV2": "add", "Add": "add", "Sub": "sub", "RealDiv": "div",
                "BroadcastTo": "broadcast", "Identity": "add"}


@dataclass
class Term:
    """One summand of a cotangent entry: upstream × local = product."""

    upstream: float | None
    local: float | None
    product: float
    label: str               # rule names ('grad[0,1]·b[0,1]'): keys into Step.operands
    factor: str = ""         # the local factor in the reader's names ('b[0,1]', '∂y/∂x')
    # the numbers as the cards write them, each by its own tensor's format (story.numbers)
    upstream_text: str = field(default="", compare=False)
    local_text: str = field(default="", compare=False)
    product_text: str = field(default="", compare=False)   # a fan-in's path: as its card

    def __iter__(self):  # (upstream, local, product, label), as the contract spells it
        return iter((self.upstream, self.local, self.product, self.label))


@dataclass
class Provenance:
    """Where one entry of a cotangent comes from: `value` = sum of the terms' products."""

    value: float
    terms: list
    where: str = ""          # e.g. 'dy_dx[0,0]'
    kind: str = ""           # 'seed' | 'contribution' | 'fan_in' | 'rule'
    more: int = 0            # nonzero terms left out (capped)
    rest: float = 0.0        # their sum
    rule: str = ""           # kind 'rule': the rule applied, when no sum of products exists
    detail: str = ""         # kind 'rule': the numbers the rule was applied to
    write: object = field(default=None, compare=False, repr=False)   # the cotangent's format
    upstream: str = "upstream"   # its word for the upstream: no name on the canvas (operands.caption)
    why: str = ""            # a value that is NaN or infinite: what made it (_nonfinite_why)
    grad_word: str = UPSTREAM    # the rule card's symbol for the upstream ('g' beside a node grad)
    # (what _printed read, what it gave): text(), numbers() and says_more() write one sum
    _printed_memo: tuple = field(default=None, init=False, compare=False, repr=False)

    def num(self, x):
        """`x`, a number of the cotangent (its entry, a product summing to it), as the
        cotangent's card writes it (story.numbers): -1.881×10⁻⁵ beside the card's ×10⁻⁵."""
        return (self.write or writer(np.asarray(x)))(x)

    def product(self, term):
        """A term's product as text: a fan-in path's as its own card writes it."""
        return term.product_text or self.num(term.product)

    @property
    def total(self):
        return float(sum(t.product for t in self.terms) + self.rest)

    @property
    def subject(self):
        """What the sum is: an entry of a cotangent ('grad tf_t[0,0]'), never the tensor's
        value, which the canvas shows under the bare name."""
        return f"grad {self.where}"

    def text(self):
        if self.kind == "rule":
            return (f"{self.subject} = {self.rule} = {self.num(self.value)}"
                    + (f" ({self.why})" if self.why else ""))
        if not self.terms and self.kind == "contribution":
            why = self.why or f"every product {self.upstream} · local factor is 0"
            return f"{self.subject} = {self.num(self.value)} ({why})"
        if not self.terms:
            return f"{self.subject} = {self.num(self.value)} ({self.kind})"
        return self._sum_text() + (f" ({self.why})" if self.why else "")

    def _sum_text(self):
        parts, named = [], False
        printed, rest, equal = self._printed()
        for t, (upstream, local) in zip(self.terms, printed):
            if t.upstream is None:
                parts.append(f"{upstream} [{t.label}]")
                named = True
            else:
                factor = t.factor or t.label.split('·', 1)[-1]
                # a factor no tensor names (a constant 1, -1) is written as numbers() writes it
                parts.append(f"{_signed(upstream)}·{_signed(local) if _numeral(factor) else factor}")
                named = named or not _numeral(factor)
        if self.more:
            parts.append(f"{self.more} more ({rest})")
        # a factor named, not printed, is exact: '≈' is for printed factors alone
        return f"{self.subject} = " + " + ".join(parts) + f" {'=' if named else equal} {self.num(self.value)}"

    def numbers(self):
        """The same sum with every factor as a number: 1·0.438 + 1·(-0.534) ..."""
        if self.kind == "rule":
            return self.detail
        if not self.terms and not self.more:
            return ""           # every product is 0: no sum to write out
        printed, rest, equal = self._printed()
        parts = [_signed(first) if local is None else f"{_signed(first)}·{_signed(local)}"
                 for first, local in printed]
        if self.more:
            parts.append(_signed(rest))
        return " + ".join(parts) + f" {equal} {self.num(self.value)}"

    def says_more(self):
        """Whether numbers() tells what text() does not: not when every factor text() writes
        is already a number ('grad xx = 1·1 = 1' then '= 1·1 = 1' repeated it), nor for a
        sum with no products."""
        numbers = self.numbers()
        return bool(numbers) and bool(self.terms) and not self._sum_text().endswith(f" = {numbers}")

    def _printed(self):
        """_printing(), computed once while what it reads stays the same (text() and
        numbers() of one provenance, says_more() both again, wrote its sum four times)."""
        read = (self.value, self.rest, self.more, self.write,
                tuple((t.upstream, t.local, t.product, t.upstream_text, t.local_text, t.product_text)
                      for t in self.terms))
        if self._printed_memo is None or self._printed_memo[0] != read:
            self._printed_memo = (read, self._printing())
        return self._printed_memo[1]

    def _printing(self):
        """([(upstream or a path's product, local factor or None) as text per term], the
        rest as text, '=' or '≈'): each number as its card writes it, unless its card's digits are too
        few for the sum, whose printed operands must give its printed result: then a role's
        numbers (the upstream entries, the local factors, the paths' products) all with the
        digits it needs (story.numbers.at_resolution). The printed operands, multiplied and
        added exactly, round to the printed result: '(-0.334)·1.000 + (-0.334)·3.000 =
        -1.335' gave -1.336 (the upstream is -0.3337); each try that does not check out
        gives the roles a tenth of the rounding the one before allowed. '≈' where even a
        float32's every digit does not (the engine adds rounded float32 products: 100.869
        where the exact sum of its factors is 100.868)."""
        budget = max(resolution(self.num(self.value)), 0.01 * abs(self.value))   # inf: any
        for _ in range(SIGNIFICANT_MOST):
            printed, rest = self._printed_within(budget)
            if self._checks_out(printed, rest):
                return printed, rest, "="
            budget /= 10
        return printed, rest, "≈"

    def _printed_within(self, budget):
        """_printing with `budget`, the rounding the sum may carry, shared by the roles not
        written exactly."""
        paths = [t for t in self.terms if t.upstream is None]
        products = [t for t in self.terms if t.upstream is not None]
        roles = [([self.product(t) for t in paths], [t.product for t in paths], [1.0] * len(paths)),
                 ([t.upstream_text or self.num(t.upstream) for t in products],
                  [t.upstream for t in products], [abs(t.local) for t in products]),
                 ([t.local_text or self.num(t.local) for t in products],
                  [t.local for t in products], [abs(t.upstream) for t in products]),
                 ([self.num(self.rest)] if self.more else [], [self.rest], [1.0])]
        rounded = sum(1 for texts, _, _ in roles if any(resolution(t) for t in texts))

        def fit(texts, xs, weights):
            # half a unit of the last digit, times what it multiplies, summed over the role
            step = 2 * budget / (max(rounded, 1) * sum(weights)) if sum(weights) else math.inf
            if math.isnan(step) or all(resolution(t) <= step for t in texts):   # nan: inf·0
                return texts
            return [at_resolution(x, step, fixed="×10" not in t) for t, x in zip(texts, xs)]

        written = [iter(fit(*role)) for role in roles]
        printed = [(next(written[0]), None) if t.upstream is None else
                   (next(written[1]), next(written[2])) for t in self.terms]
        return printed, next(written[3], "")

    def _checks_out(self, printed, rest):
        """Whether the printed operands, multiplied and added, round to the printed result
        (a sum with an infinity, a NaN or a number not written as one checks nothing)."""
        result = self.num(self.value)
        values = [printed_value(t) for pair in printed for t in pair if t is not None]
        values += [printed_value(rest)] if rest else []
        r = printed_value(result)
        if r is None or None in values or not all(map(math.isfinite, values + [r])):
            return True
        total = sum(float(printed_value(first)) * (1.0 if local is None else printed_value(local))
                    for first, local in printed) + (printed_value(rest) if rest else 0.0)
        return abs(total - r) <= resolution(result) / 2 + 1e-9 * max(1.0, abs(r))


def _signed(text):
    """A negative number in parentheses, as a factor of a product: (-0.534)."""
    return f"({text})" if text.startswith("-") else text


def _numeral(text):
    """Whether `text`, a factor as the rule names it, is a number rather than a tensor's entry."""
    return _NUMBER.match(text) is not None


def _idx(multi):
    return ",".join(str(int(i)) for i in multi)


def _at(name, multi):
    """'b[0,1]', or just 'b' for a scalar (no empty brackets)."""
    return f"{name}[{_idx(multi)}]" if len(multi) else name


def _matmul_shapes_ok(op):
    a, b = op._in_values
    return a.ndim >= 2 and a.ndim == b.ndim and a.shape[:-2] == b.shape[:-2]


def cost(op, k):
    """How many local-Jacobian entries the provenance of one entry of input k touches."""
    t = op.type
    if t in _WINDOWED and op._in_values[0].ndim == 4:
        if t == "Conv2D" and k == 1:   # a filter tap met every window
            return int(np.prod(op._out_values[0].shape[:3]))
        if t == "Conv2D":              # an input entry: the windows over it, every output channel
            kh, kw, _, n_out = op._in_values[1].shape
            return kh * kw * n_out
        return int(np.prod(op.attrs["ksize"]))
    if t == "MatMul" and _matmul_shapes_ok(op):
        a, b = op._in_values
        ta, tb = op.attrs.get("transpose_a"), op.attrs.get("transpose_b")
        return (b.shape[-2] if tb else b.shape[-1]) if k == 0 else (a.shape[-1] if ta else a.shape[-2])
    out_size = sum(int(np.size(v)) for v in op._out_values)
    if _ELEMENTWISE.get(t) and not (t == "RealDiv" and k == 1):
        return max(1, out_size // max(1, int(np.size(op._in_values[k]))))
    return out_size + int(np.size(op._in_values[k]))


# -- columns: (flat output indices j, local factors J[j, i], rule labels, reader labels) ----
# An operand's entry is labelled as the rule card writes it, for the rule and the reader
# alike ('b[0,1]' where the card says 'where b (grad) ='): the node's name beside the
# card's letter would give one thing two names, and 'grad[0,1]' read as the upstream.

class _Column:
    """The nonzero-candidate entries of column i of J for one output: lazily enumerable."""

    def __init__(self, count, entries):
        self.count = count          # how many entries the column has
        self.entries = entries      # entries(limit) -> (js, local, rule_fn, reader_fn)


def _matmul_column(op, k, i, names):
    a, b = op._in_values
    ta, tb = op.attrs.get("transpose_a"), op.attrs.get("transpose_b")
    batch = tuple(i[:-2])
    out_shape = op._out_values[0].shape
    if k == 0:
        row, inner = (i[-1], i[-2]) if ta else (i[-2], i[-1])
        n = out_shape[-1]
        cols = np.arange(n)
        local = b[batch + ((cols, inner) if tb else (inner, cols))]
        js = np.ravel_multi_index(tuple(np.full(n, x) for x in batch + (row,)) + (cols,), out_shape)
        name = names[1]

        def index(c):
            return batch + ((c, inner) if tb else (inner, c))
    else:
        inner, col = (i[-1], i[-2]) if tb else (i[-2], i[-1])
        n = out_shape[-2]
        rows = np.arange(n)
        local = a[batch + ((inner, rows) if ta else (rows, inner))]
        js = np.ravel_multi_index(tuple(np.full(n, x) for x in batch) + (rows, np.full(n, col)),
                                  out_shape)
        name = names[0]

        def index(r):
            return batch + ((inner, r) if ta else (r, inner))

    def label(p):      # as the card's rule writes the operand: b[0,1]
        return _at(name, index(p))

    def entries(limit):
        pick = slice(0, min(n, limit))
        return js[pick], np.asarray(local[pick], np.float64), label, label
    return _Column(n, entries)


def _slab(out_shape, in_shape, i):
    """Per output axis: the fixed index that input entry i broadcasts from, or None (all)."""
    lead = len(out_shape) - len(in_shape)
    fixed = []
    for d, n in enumerate(out_shape):
        j = d - lead
        fixed.append(int(i[j]) if j >= 0 and in_shape[j] == n else None)
    return fixed


def _elementwise_column(op, k, i, names):
    kind = _ELEMENTWISE[op.type]
    out_shape = op._out_values[0].shape
    in_shape = op._in_values[k].shape
    fixed = _slab(out_shape, in_shape, i)
    free = [d for d, f in enumerate(fixed) if f is None]
    count = int(np.prod([out_shape[d] for d in free], dtype=np.int64))
    other = 1 - k if len(op.inputs) == 2 else None
    if other is not None:
        ov = op._in_values[other]
        o_lead = len(out_shape) - ov.ndim

    def other_index(j_multi):
        return tuple(0 if ov.shape[d] == 1 else int(j_multi[d + o_lead]) for d in range(ov.ndim))

    def entries(limit):
        n = min(count, limit)
        free_multi = np.unravel_index(np.arange(n), [out_shape[d] for d in free]) if free else ()
        full = []
        f_iter = iter(free_multi)
        for d, f in enumerate(fixed):
            full.append(np.full(n, f) if f is not None else next(f_iter))
        js = np.ravel_multi_index(tuple(full), out_shape) if out_shape else np.zeros(n, int)
        multis = list(zip(*full)) if out_shape else [()] * n
        if kind in ("add", "broadcast"):
            local = np.ones(n)
            return js, local, lambda p: "1", lambda p: "1"
        if kind == "sub":
            sign = 1.0 if k == 0 else -1.0
            text = "1" if k == 0 else "(-1)"
            return js, np.full(n, sign), lambda p: text, lambda p: text
        idx = [other_index(m) for m in multis]
        values = np.array([float(ov[m]) for m in idx])
        over = "" if kind == "mul" else "1/"     # x / y, input x: 1/y[0]

        def label(p):   # as the card's rule writes the operand
            return over + _at(names[other], idx[p])
        return js, (values if kind == "mul" else 1.0 / values), label, label
    return _Column(count, entries)


def _generic_columns(op, k, flat_i, upstream):
    """Column flat_i of each output's J by differentiating the VJP with respect to u."""
    fn = op.opdef.grad_fn or tf_style_grad(op.opdef)
    us = []
    for u, value in zip(upstream, op._out_values):
        u = np.zeros(value.shape, value.dtype) if u is None else np.asarray(u, value.dtype)
        us.append(Tensor._wrap(np.array(u)))
    floating = [u for u in us if u._value.dtype.kind == "f"]
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(floating)
        grads = fn(op, *us)
    c = grads[k] if k < len(grads) else None
    if c is None:
        return [np.zeros(u._value.size) for u in us]
    c = c if isinstance(c, Tensor) else Tensor._wrap(np.asarray(c))
    e = np.zeros(c._value.shape, c._value.dtype)
    e.flat[flat_i] = 1
    cols = tape.gradient(c, us, output_gradients=Tensor._wrap(e), unconnected_gradients="zero")
    return [np.asarray(col._value, np.float64).reshape(-1) for col in cols]


def _unravel(flat, shape):
    return tuple(int(x) for x in np.unravel_index(int(flat), shape)) if shape else ()


def columns(op, k, flat_i, upstream, naming=None, operands=None):
    """[_Column per output m] of d output_m / d input_k[flat_i]; None where not float.
    `operands`: (names, labels) of the op's inputs, the card's and the reader's, as
    `rule_operands` gives them (default: computed from `naming`)."""
    if operands is not None:
        names, labels = operands
    elif naming is not None:
        names, labels, _ = rule_operands(op, naming)
    else:
        names = operand_names(op)
        labels = list(names)
    in_shape = op._in_values[k].shape
    i = _unravel(flat_i, in_shape)
    if op.type == "MatMul" and _matmul_shapes_ok(op):
        return [_matmul_column(op, k, i, names)]
    if op.type in _ELEMENTWISE and len(op._out_values) == 1 and not (op.type == "RealDiv" and k):
        return [_elementwise_column(op, k, i, names)]
    out_names = [naming.label(o) if naming is not None else f"out{m}"
                 for m, o in enumerate(op.outputs)]
    window = None
    if op.type == "Conv2D":
        window = conv2d_terms(op, k, i, names)
    elif op.type in ("MaxPool", "AvgPool"):
        window = pool_terms(op, k, i, out_names[0])
    if window is not None:
        return [_Column(*window)]
    result = []
    for m, column in enumerate(_generic_columns(op, k, flat_i, upstream)):
        shape = op._out_values[m].shape
        u = upstream[m] if m < len(upstream) and upstream[m] is not None else None
        # a 0 factor beside an infinite or NaN upstream entry is a product: 0 · ∞ is NaN
        bad = (~np.isfinite(np.asarray(u, np.float64).reshape(-1))
               if u is not None and np.size(u) == column.size else False)
        nz = np.flatnonzero((column != 0) | bad)

        def entries(limit, nz=nz, column=column, shape=shape, m=m):
            js = nz[:limit]
            return (js, column[js],
                    lambda p: f"J[{_idx(_unravel(js[p], shape))}; {_idx(i)}]",
                    lambda p: f"∂{_at(out_names[m], _unravel(js[p], shape))}"
                              f"/∂{_at(labels[k], i)}")
        result.append(_Column(len(nz), entries))
    return result


# -- provenance --------------------------------------------------------------------------

def _defining_step(story, tensor, before):
    for s in reversed(story.steps[:before]):
        if s._tensor is tensor and s.kind in ("seed", "contribution", "fan_in"):
            return s
    return None


def _where(step, flat_index):
    shape = np.shape(step.cotangent if step.cotangent is not None else step.total)
    multi = np.unravel_index(flat_index, shape) if shape else ()
    name = step.tensor_name or (step.port.node if step.port is not None else "·")
    return _at(name, multi)


def provenance(story, step, flat_index, max_terms=12):
    """The terms that sum to entry `flat_index` of `step`'s cotangent."""
    return _provenance(story, step, flat_index, max_terms)


def _shared(story):
    """The format the story's tensors share (Story.number_spec), as its cards write them."""
    spec = getattr(story, "number_spec", None)
    return spec() if callable(spec) else None


def _provenance(story, step, flat_index, max_terms):
    shared = _shared(story)
    if step.kind in ("accumulate", "unconnected", "visit"):
        tensor = step._tensor if step.kind != "visit" else step._op.outputs[0]
        origin = _defining_step(story, tensor, step.index)
        if origin is None:
            return Provenance(0.0, [], _where(step, flat_index), "unconnected", write=writer(0.0, shared))
        return _provenance(story, origin, flat_index, max_terms)
    value = float(np.asarray(step.cotangent).flat[flat_index])
    where = _where(step, flat_index)
    write = writer(step.cotangent, shared)
    if step.kind == "seed":
        return Provenance(value, [], where, "seed", write=write)
    if step.kind == "fan_in":
        terms = []
        for label, a in step.terms:
            product = float(np.asarray(a).flat[flat_index])
            terms.append(Term(None, None, product, label, product_text=writer(a, shared)(product)))
        return Provenance(value, terms, where, "fan_in", write=write)
    if step.kind != "contribution":
        raise ValueError(f"a {step.kind} step has no cotangent entries to explain")
    explained = _contribution(story, step, flat_index, value, where, max_terms)
    explained.write = write
    return explained


def _contribution(story, step, flat_index, value, where, max_terms):
    op, k = step._op, step.input_index
    naming = story.naming
    shared = _shared(story)
    rule = naming.rule(op) if naming is not None else ""
    grad = step.operands.get("grad")
    upstream = grad if isinstance(grad, list) else [grad]
    names = labels = None
    word = UPSTREAM
    if naming is not None:   # the card's names, and its word for the upstream (g beside a node grad)
        names, labels, mapping = rule_operands(op, naming)
        word = mapping.get(UPSTREAM, UPSTREAM)
    if rule:
        return _rule_provenance(step, flat_index, value, where, rule, upstream[0], word, shared)
    terms, rest, more, total, grads = [], 0.0, 0, 0.0, []
    hidden = {}   # among the products not listed: the first NaN, +∞ and -∞, as terms
    cols = columns(op, k, flat_index, upstream, naming, None if names is None else (names, labels))
    for m, (u, col) in enumerate(zip(upstream, cols)):
        if u is None or col is None:
            continue
        u = np.asarray(u)
        u_flat = u.reshape(-1)
        limit = col.count if col.count <= ENUMERATE_LIMIT else max(4 * max_terms, 1000)
        js, local, rule_label, reader_label = col.entries(limit)
        products = u_flat[js].astype(np.float64) * local
        gname = word if len(upstream) == 1 else f"{word}{m}"
        write_upstream, write_local = writer(u, shared), {}
        out = naming.label(op.outputs[m]) if naming is not None else None

        def term(p):   # product p as a Term, and its upstream entry as the reader knows it
            jm = _unravel(js[p], u.shape)
            factor = rule_label(p)
            write = _local_writer(step, factor, local, write_local, shared)
            return (Term(float(u_flat[js[p]]), float(local[p]), float(products[p]),
                         f"{_at(gname, jm)}·{factor}", reader_label(p),
                         write_upstream(float(u_flat[js[p]])), write(float(local[p]))),
                    f"grad {_at(out, jm)}" if out else _at(gname, jm))
        for p in np.flatnonzero(products):
            if len(terms) >= max_terms:
                more += 1
                rest += float(products[p])
                v = float(products[p])
                sign = "nan" if math.isnan(v) else (v > 0) if math.isinf(v) else None
                if sign is not None and sign not in hidden:
                    hidden[sign] = term(p)
                continue
            t, g = term(p)
            terms.append(t)
            grads.append(g)
        total += float(products.sum())
        if col.count > limit:  # too many to enumerate: the remainder is what is left
            more += col.count - limit
            rest += value - total
            total = value
    scale = max(1.0, abs(value), sum(abs(t.product) for t in terms) + abs(rest))
    if abs(total - value) > 1e-4 * scale:
        # The rule is not linear in the upstream cotangent: no sum of products gives it.
        fn = op.attrs.get("function", op.type)
        return _rule_provenance(step, flat_index, value, where, f"{fn}'s grad_fn({word})",
                                upstream[0], word, shared)
    largest = float(np.finfo(np.asarray(step.cotangent).dtype).max) \
        if np.asarray(step.cotangent).dtype.kind == "f" else math.inf
    if not math.isfinite(value) and abs(total) <= largest and not more:
        # finite products sum to a finite number: the NaN is the rule's own arithmetic
        fn = op.attrs.get("function", op.type)
        explained = _rule_provenance(step, flat_index, value, where, f"{fn}'s grad_fn({word})",
                                     upstream[0], word, shared)
        explained.why = (f"its products upstream · local factor add up to "
                         f"{writer(total, shared)(total)}: the rule's own arithmetic makes "
                         f"{'NaN' if math.isnan(value) else 'the infinity'}")
        return explained
    return Provenance(value, terms, where, "contribution", more, rest,
                      upstream=caption("upstream", step.shown_names), grad_word=word,
                      why=_nonfinite_why(value, terms, grads, np.asarray(step.cotangent).dtype,
                                         more, rest, list(hidden.values())))


def _nonfinite_why(value, terms, grads, dtype, more=0, rest=0.0, hidden=()):
    """What made a sum of products NaN or infinite, in the story's names ('' for a finite
    one): an upstream entry already NaN or infinite, a product 0 · ∞, products +∞ and −∞
    that cancel to NaN, a local factor infinite there, or finite products whose sum
    overflows. `grads[i]`: term i's upstream entry as the reader knows it ('grad p[0,0]');
    `more` products are not listed, adding up to `rest`; `hidden`: (term, upstream entry)
    of the first NaN, +∞ and -∞ product among them. A cause found only among those is said
    to be 'among the N more'; 'every product is finite' only when the rest is finite too."""
    if math.isfinite(value):
        return ""
    why = _nonfinite_cause(value, list(zip(terms, grads)), dtype, more, rest)
    if why or not hidden:
        return why
    why = _nonfinite_cause(value, list(zip(terms, grads)) + list(hidden), dtype, more, rest)
    return f"among the {more} more, {why}" if why else ""


def _nonfinite_cause(value, pairs, dtype, more, rest):
    """_nonfinite_why's cause among (term, upstream entry) `pairs`, '' if none."""
    for t, g in pairs:
        if math.isnan(t.upstream):
            return f"{g}, the upstream entry, is already NaN: a step before this one made it"
    for t, g in pairs:
        if math.isnan(t.product) and (t.local == 0 or t.upstream == 0):
            zero, inf = ((t.factor, f"{g} is {t.upstream_text}") if t.local == 0
                         else (g, f"{t.factor} is {t.local_text}"))
            negative = (t.upstream if t.local == 0 else t.local) < 0
            return f"{zero} is 0 and {inf}: 0 · {'(-∞)' if negative else '∞'} is NaN"
    for t, g in pairs:
        if math.isnan(t.local):
            return f"the local factor {t.factor} is NaN at these values"
    up = [(t, g) for t, g in pairs if math.isinf(t.product) and t.product > 0]
    down = [(t, g) for t, g in pairs if math.isinf(t.product) and t.product < 0]
    if math.isnan(value) and up and down:
        (a, ga), (b, gb) = up[0], down[0]
        return (f"the product {ga}·{a.factor} is ∞ and {gb}·{b.factor} is -∞: "
                f"∞ - ∞ is NaN")
    for t, g in pairs:
        if math.isinf(t.upstream):
            return f"{g}, the upstream entry, is already {t.upstream_text}: a step before this one made it"
    for t, g in pairs:
        if math.isinf(t.local):
            return f"the local factor {t.factor} is {t.local_text}: the derivative is infinite at these values"
    if math.isinf(value) and all(math.isfinite(t.product) for t, _ in pairs) and (
            not more or math.isfinite(rest)):
        return (f"every product is finite, but their sum is beyond {dtype.name}'s largest "
                f"number, {float(np.finfo(dtype).max):.3g}")
    return ""


def _local_writer(step, factor, local, cache, shared=None):
    """How a local factor is written: as its operand's card writes it when it is an entry of
    an operand the rule card shows ('b[0,1]' of matmul's b), else by the column's own values
    (a '1/y[0]', a 'J[0; 1]')."""
    m = _ENTRY.match(factor)
    operand = (step.operands or {}).get(m.group(1)) if m else None
    key = m.group(1) if operand is not None and not isinstance(operand, list) else None
    if key not in cache:
        # an operand's entry as its card writes it in the story; a derivative no card shows
        # (a '1/y[0]', a 'J[0; 1]') by the column's own values
        cache[key] = writer(local, None) if key is None else writer(operand, shared)
    return cache[key]


def _rule_provenance(step, flat_index, value, where, rule, grad, word=UPSTREAM, shared=None):
    """A custom rule applied to the whole upstream: 'vv = clip_by_norm(1, 0.5) = 0.5'.
    `word`: what the cards call the upstream ('grad' unless a node is named so); `shared`:
    the story's number format (Story.number_spec)."""
    g = None if grad is None else np.asarray(grad)
    rule = rename(rule, {UPSTREAM: word})
    if g is not None and g.ndim == 0:
        return Provenance(value, [], where, "rule", rule=rule.replace(word, writer(g, shared)(g.item()), 1),
                          grad_word=word)
    shape = np.shape(step.cotangent)
    multi = np.unravel_index(flat_index, shape) if shape else ()
    detail = ""
    if g is not None:
        norm = float(np.linalg.norm(g.astype(np.float64)))
        detail = (f"{word}[{_idx(multi)}] = {writer(g, shared)(g.flat[flat_index].item())}, "
                  f"‖{word}‖ = {writer(norm, shared)(norm)}")
    return Provenance(value, [], where, "rule", rule=f"({rule})[{_idx(multi)}]", detail=detail,
                      grad_word=word)
