"""Numbers on cards (issue 20 §5): a tensor's numbers are written by a format chosen from
that tensor alone (render.preview's rule), so one value reads the same on its node's card,
in a rule card's "where" clause and at every step; a card never mixes notations (a tensor
beyond the ordinary magnitudes is written in fixed notation beside a power of ten); no
ordinary magnitude in e-notation; never a negative zero such as "-0.000". Over every sample,
every node card and every rule card."""
import re

import numpy as np
import pytest

from gradviz.render import heat_layout, preview
from gradviz.render.formula import FormulaLayout
from gradviz.story.numbers import NEAR_ZERO, alone, resolution

from samples_util import NAMES, renderer, sample

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:e[-+]\d+)?|nan|inf)(?![\w.])")
MINUS_ZERO = re.compile(r"(?<![\w.])-0(?:\.0+)?(?:e[-+]0+)?(?![\d.])")


def texts(shown):
    """The numbers' text a preview draws (without the power of ten written beside them)."""
    if shown is None:
        return []
    factor = getattr(shown, "factor", "")
    if shown.kind == "scalar":
        return [shown.text.removesuffix(factor)]
    if shown.kind == "heatmap":
        return [shown.caption.split()[0].lstrip("±").removesuffix(factor)]
    if shown.kind == "tiles":
        return [cell for r in shown.rows if r is not None for c in shown.cols if c is not None
                for row in shown.number_texts(r, c) for cell in row]
    return [cell for row in shown.table for cell in row if cell not in preview.ELLIPSES]


def signature(number):
    """How a number is written: scientific or fixed, and with how many decimals. A tensor of
    whole numbers is written as integers ('upstream 1', the conv lesson's pixels) beside any
    other: None, as for T / F."""
    if number in ("nan", "inf", "-inf", "T", "F", NEAR_ZERO) or number.lstrip("-").isdigit():
        return None
    mantissa, _, exponent = number.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return ("e" if exponent else "f", decimals)


def check(previews, where):
    check_texts([t for shown in previews for t in texts(shown)], where)


def check_texts(numbers, where):
    assert not [n for n in numbers if MINUS_ZERO.fullmatch(n.strip())], (where, numbers)
    kinds = {signature(n.strip()) for n in numbers} - {None}
    assert len(kinds) <= 1, (where, numbers)


@pytest.mark.parametrize("name", NAMES)
def test_every_card_prints_its_numbers_in_one_format(name):
    r = renderer(name)
    for nid, card in r.cards.items():
        check([s.preview for s in card.sections if s.preview is not None
               and s.array is not None and np.asarray(s.array).dtype.kind != "b"],
              f"{name}: card {nid}")
        # a value of whole numbers beside its gradient's decimals: 1.000, not 1
        floats = {float_signature(n.strip()) for s in card.sections if s.preview is not None
                  and s.array is not None and np.asarray(s.array).dtype.kind == "f"
                  for n in texts(s.preview)} - {None}
        assert len(floats) <= 1, (f"{name}: card {nid}", floats)
    steps = r.story.steps if r.story is not None else []
    for step in steps:
        layout = FormulaLayout(step, len(steps))
        placed = [(part, picture) for part, _, _, picture in layout._items(layout.fonts)[0]
                  if part[0] in ("array", "picture") and np.asarray(part[1]).dtype.kind != "b"]
        where = f"{name}: rule card of step {step.index + 1} {step.title}"
        check([picture for _, picture in placed], where)
        # The card's float tensors in one format: a whole one (a fan-in's zero term) too,
        # 0.000 beside 0.052, never 0 (walk-through: lesson 14's fan-in at layer)
        floats = {float_signature(n.strip()) for part, picture in placed
                  if np.asarray(part[1]).dtype.kind == "f" for n in texts(picture)} - {None}
        assert len(floats) <= 1, (where, floats)


@pytest.mark.parametrize("name", NAMES)
def test_a_tensor_reads_one_way_at_every_step(name):
    """Issue 20 §5, one format per card, had made a tensor's format its card's: the seed's
    ones read 1 on the seed's and the visit's cards and 1.000 beside a rule's decimals
    (lesson 1, steps 1 and 3). A tensor shown on several steps' rule cards is written one
    way on all of them (the story's tensors share their format: Story.number_spec)."""
    r = renderer(name)
    seen = {}    # a tensor (its numbers) -> {its numbers' formats: the steps that wrote them}
    for step in r.story.steps if r.story is not None else []:
        layout = r.formula_layout(step)          # as the renderer lays it out, with its story
        for part, _, _, picture in layout._items(layout.fonts)[0]:
            if part[0] not in ("array", "picture") or picture is None:
                continue
            a = np.asarray(part[1])
            if a.dtype.kind != "f" or not a.size:
                continue
            formats = frozenset({float_signature(n.strip()) for n in texts(picture)} - {None})
            formats |= {getattr(picture, "factor", "")}
            seen.setdefault((a.shape, a.tobytes()), {}).setdefault(formats, []).append(step.index + 1)
    several = {key: ways for key, ways in seen.items() if sum(map(len, ways.values())) > 1}
    assert several, name        # the seed, at least, shows on its step and the visit's
    for (shape, _), ways in several.items():
        assert len(ways) == 1, (name, shape, ways)


def float_signature(number):
    """signature() of a float tensor's number, where a whole one written as '0' counts as
    fixed notation without decimals (not as an integer tensor's number)."""
    if number in ("nan", "inf", "-inf", NEAR_ZERO):
        return None
    return ("f", 0) if number.lstrip("-").isdigit() else signature(number)


def test_a_value_that_rounds_to_zero_prints_without_a_sign():
    """A zero is 0.000, never -0.000. Changed with issue 20 (nothing on screen may be
    false): a nonzero entry too small for its tensor's digits (-1e-6 beside 0.5) was
    written 0.000 as a zero is; it is written ≈0 (story.numbers.NEAR_ZERO), so that 0.000
    means zero. The table keeps its width either way."""
    fmt = preview.number_format(np.array([0.5, -1e-6]))
    assert fmt(-1e-6) == NEAR_ZERO and fmt(-0.0) == "0.000" and fmt(0.0) == "0.000"
    assert fmt(-0.25) == "-0.250"
    shown = preview.Preview(np.array([[0.5, -1e-6], [-0.0, -0.4]], np.float32))
    assert [c.strip() for row in shown.table for c in row] == ["0.500", NEAR_ZERO, "0.000", "-0.400"]
    assert [[run.strip() for _, _, run, _ in row] for row in shown.runs] == [["0.500     ≈0"], ["0.000 -0.400"]]
    zeros = preview.Preview(np.array([[0.5, 0.0], [-0.0, -0.4]], np.float32))
    text = zeros._number_text()        # one printf of the whole table where nothing is lost
    assert "-0.000" not in text and len(text) == 4 * (zeros._chars + 1)   # widths kept
    assert preview.Preview(np.float32(-1e-9), spec="%.3f").text == NEAR_ZERO
    # a renumbered table that now holds such an entry is not one printf of its numbers
    again = zeros.renumbered(np.array([[0.5, 2e-5], [0.0, -0.4]], np.float32))
    assert [c.strip() for row in again.table for c in row] == ["0.500", NEAR_ZERO, "0.000", "-0.400"]
    assert again._number_text() is None and "≈0" in "".join(r for row in again.runs for _, _, r, _ in row)


def test_a_tensor_beyond_the_ordinary_magnitudes_is_written_beside_its_power_of_ten():
    """Never e-notation for 0.3 because its card also holds 1.5e-06 (the run GIF's input x,
    the CNN's dense 18.6 after training): the tiny tensor is written 1.550 ×10⁻⁶ and the
    ordinary one -0.298; e-notation only in plain text, for a tensor beyond 1e-3 .. 1e4."""
    value = preview.Preview(np.array([[-0.298, -0.481, -0.323]], np.float32))
    gradient = preview.Preview(np.array([[-1.55e-06, -2.19e-05, -9.69e-06]], np.float32))
    assert [c.strip() for row in value.table for c in row] == ["-0.298", "-0.481", "-0.323"]
    assert value.factor == "" and gradient.factor == "×10⁻⁵"
    assert [c.strip() for row in gradient.table for c in row] == ["-0.155", "-2.190", "-0.969"]
    assert gradient.width > gradient.table_w      # the factor has its room after the bracket
    assert preview.Preview(np.float32(2.24e-10)).text == "2.240×10⁻¹⁰"
    assert preview.Preview(np.array([18.6, -15.7, -12.2])).table == [["18.600", "-15.700", "-12.200"]]
    assert preview.Preview(np.array([12345.0, 1.0])).factor == "×10⁴"
    assert preview.number_format(np.array([2e-5, -1e-5]))(2e-5) == "2.00e-05"     # plain text
    assert preview.number_format(np.array([1.4066, 0.0777]))(1.4066) == "1.407"
    assert preview.card_spec([np.array([1.5]), np.array([2e-5, -1e-5])]) == "%.2e"  # study text
    assert preview.card_spec([np.array([1, 2]), np.array([3])]) == "%d"
    assert preview.card_spec([np.array([True]), None]) is None
    # a renumbered picture takes the new numbers' power of ten
    again = gradient.renumbered(np.array([[0.5, 0.25, -0.125]], np.float32))
    assert again.factor == "" and [c.strip() for row in again.table for c in row] == ["0.500", "0.250", "-0.125"]


ORDINARY = re.compile(r"e[-+]\d+$")


@pytest.mark.parametrize("name", NAMES)
def test_a_value_reads_the_same_on_every_card(name):
    """A value named in a rule card's "where" clause prints as on its node's card (the
    rule card said 'where matmul = 1.407' beside a card showing 1.4066); every array of a
    rule card prints as it does alone (so the tiny CNN's upstream [-0.926 0.311 0.615] is
    not [-0.9259 0.3111 0.6148] a step before), a whole one with the card's decimals where
    its other tensors have them; no ordinary magnitude in e-notation."""
    from gradviz.render import tiles
    r = renderer(name)
    for nid, card in r.cards.items():
        for s in card.sections:
            if s.preview is not None and s.array is not None:
                _ordinary_in_fixed(s.array, texts(s.preview), f"{name}: card {nid}")
    steps = r.story.steps if r.story is not None else []
    for step in steps:
        layout = FormulaLayout(step, len(steps), shared=r.story.number_spec())   # the story's format, as drawn
        where = f"{name}: rule card of step {step.index + 1} {step.title}"
        for part, _, _, picture in layout._items(layout.fonts)[0]:
            if part[0] != "array":
                continue
            shown = texts(picture)
            alone = texts(tiles.picture(part[1], role=picture.layout if picture.kind == "tiles" else None)) \
                if picture.kind == "tiles" else texts(tiles.picture(part[1]))
            assert same_numbers(shown, alone), (where, part[2], shown, alone)
            _ordinary_in_fixed(part[1], shown, where)
            if len(part) > 3 and part[4] in r.cards:       # an operand: its node's card
                same = [s for s in r.cards[part[4]].sections if s.preview is not None
                        and s.array is not None and np.shape(s.array) == np.shape(part[1])
                        and np.array_equal(np.asarray(s.array), np.asarray(part[1]), equal_nan=True)]
                for s in same:
                    assert same_numbers(shown, texts(s.preview)), (where, part[2], texts(s.preview), shown)


def same_numbers(shown, alone):
    """The numbers `shown` on a rule card read as `alone` (on their node's card): the same
    text, or, for a tensor of whole numbers, the same numbers with the card's decimals
    (0.000 among the card's other tensors where its own card writes 0)."""
    if shown == alone:
        return True
    return len(shown) == len(alone) and all(
        a == b or a.strip().lstrip("-").isdigit() and float(a) == float(b)
        for a, b in zip(alone, shown))


def _ordinary_in_fixed(array, numbers, where):
    a = np.asarray(array)
    if a.dtype.kind != "f" or not a.size or not np.isfinite(a).any():
        return
    biggest = float(np.abs(a[np.isfinite(a)]).max())
    if biggest == 0 or 1e-3 <= biggest < 1e4:
        assert not [n for n in numbers if ORDINARY.search(n.strip())], (where, numbers)


@pytest.mark.parametrize("name", NAMES)
def test_every_steps_provenance_table_and_sum_have_one_format_and_no_minus_zero(name):
    """The provenance dock's table of each step (its cotangent, upstream, operands, paths)
    is written in one format (preview.number_format, as the dock's TensorGrid writes it),
    and the sum of products it explains an entry with holds no negative zero."""
    from gradviz.story.local import provenance
    _, story = sample(name)
    for step in story.steps:
        arrays = [step.cotangent, step.total, *(step.contributions or [])]
        arrays += [v for v in (step.operands or {}).values() if not isinstance(v, list)]
        for array in arrays:
            if array is None or np.asarray(array).dtype.kind not in "fi" or not np.size(array):
                continue
            a2 = heat_layout.as_2d(np.asarray(array))
            fmt = preview.number_format(a2)
            numbers = [fmt(v) for v in a2.reshape(-1)[:400].tolist()]
            check_texts(numbers, f"{name}: provenance table of step {step.index + 1} {step.title}")
        if step.kind in ("seed", "contribution", "fan_in") and np.size(step.cotangent):
            explained = provenance(story, step, 0)
            for text in (explained.text(), explained.numbers()):
                assert not MINUS_ZERO.search(text), (name, step.title, text)


def card_text(array, flat, shared=None):
    """How the card of the tensor `array` writes its entry `flat` (its number and the power
    of ten beside the picture), or None where the card does not write it (an ellipsis, a
    heatmap). `shared`: the format of the story it is shown in (Story.number_spec). An entry
    the card writes ≈0 (too small for its tensor's digits, not zero) is written alone, with
    its own power of ten, where provenance names it: the number, not ≈0."""
    a = np.asarray(array)
    shown = preview.Preview(a, spec=preview.spec_on_card(a, shared))
    if shown.kind == "scalar":
        return shown.text
    if shown.kind not in ("grid", "ellipsis"):
        return None
    r, c = divmod(int(flat), heat_layout.as_2d(a).shape[1])
    if r not in shown.rows or c not in shown.cols:
        return None
    cell = shown.table[shown.rows.index(r)][shown.cols.index(c)].strip()
    if cell == NEAR_ZERO:     # a number standing alone keeps its own digits (numbers.writer)
        return alone(a.reshape(-1)[int(flat)])
    return cell + shown.factor


ENTRY = re.compile(r"^([A-Za-z_]\w*)(?:\[([\d,]*)\])?$")


def _entry_text(array, label, shared=None):
    """The card's text of the entry `label` ('b[0,1]', 'y' for a scalar) of `array`."""
    m = ENTRY.match(label)
    a = np.asarray(array)
    index = tuple(int(i) for i in m.group(2).split(",") if i) if m and m.group(2) else ()
    if m is None or len(index) != a.ndim:
        return None
    return card_text(a, np.ravel_multi_index(index, a.shape) if a.ndim else 0, shared)


def _signed(text):
    return f"({text})" if text.startswith("-") else text


_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _value(text):
    mantissa, _, power = text.strip("()").partition("×10")
    return float(mantissa) * 10.0 ** int(power.translate(_SUPER) or 0)


def _reads_as(shown, card):
    """`shown` (a factor of a printed sum) is the card's `card`, or the same number with
    more digits, which the card's rounds: a sum of products writes a factor with the digits
    its printed result needs (test_printed_equations: '(-8.297×10⁻⁴)·0.248 = -2.060×10⁻⁴'
    where the upstream's card writes -0.001)."""
    if shown == _signed(card):
        return True
    finer, coarse = resolution(shown), resolution(card)
    return 0 < finer < coarse and abs(_value(shown) - _value(card)) <= coarse / 2 * (1 + 1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_every_number_of_every_provenance_reads_as_on_its_card(name):
    """Provenance (the dock and `gradviz explain`) wrote -1.88e-05 where the rule card and
    the node card wrote -1.881×10⁻⁵, and -0.17307831 beside a card's -0.173. Every entry it
    names is written as the card of its tensor writes it: the sum's value (the cotangent's
    card), each upstream entry (the upstream's), each operand entry (the operand's), each
    path of a fan-in (that path's), in the format the story's tensors share (a tensor reads
    one way at every step: the seed's ones 1.000 in a story of decimals, as its cards write
    them). Changed with test_printed_equations: a factor whose card's digits are too few
    for the printed sum has more, which the card's rounds; and a float32 sum that no digits
    of its printed factors give exactly says '≈' before its value."""
    _, story = sample(name)
    shared = story.number_spec()
    checked = 0
    for step in story.steps:
        if step.kind not in ("seed", "contribution", "fan_in") or not np.size(step.cotangent):
            continue
        cotangent = np.asarray(step.cotangent)
        nonzero = np.flatnonzero(cotangent)
        for flat in sorted({0, int(nonzero[0]) if nonzero.size else 0}):
            p = story.step_provenance(step, flat, max_terms=6)
            where = (name, step.index + 1, step.title, flat)
            value = card_text(cotangent, flat, shared)
            if value is not None:
                assert f" = {value}" in p.text(), (where, value, p.text())
                if p.terms:
                    assert p.numbers().endswith((f" = {value}", f" ≈ {value}")), (where, value, p.numbers())
                checked += 1
            if step.kind == "fan_in":
                for (_, path), term in zip(step.terms, p.terms):
                    shown = card_text(path, flat, shared)
                    if shown is not None:
                        assert f"{shown} [" in p.text(), (where, shown, p.text())
                        checked += 1
                continue
            grad = (step.operands or {}).get("grad")
            parts = re.split(r" [=≈] (?=[^=≈]*$)", p.numbers())[0].split(" + ")
            for term, part in zip(p.terms, parts):
                if term.upstream is None:
                    continue
                up_text, _, local_text = part.partition("·")
                up_label, _, local_label = term.label.partition("·")
                up = _entry_text(grad, up_label, shared) if grad is not None and not isinstance(grad, list) else None
                operand = (step.operands or {}).get(ENTRY.match(local_label).group(1)) \
                    if ENTRY.match(local_label) else None
                local = _entry_text(operand, local_label, shared) \
                    if operand is not None and not isinstance(operand, list) else None
                if up is not None:
                    assert _reads_as(up_text, up) and f"{up_text}·" in p.text(), \
                        (where, up, p.text(), p.numbers())
                    checked += 1
                if local is not None:
                    assert _reads_as(local_text, local), (where, local, p.numbers())
                    checked += 1
    assert checked
