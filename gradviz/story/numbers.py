"""How a number is written wherever it is shown: a node's card, a rule card, a tile, the
provenance dock, `gradviz explain`, an export. The rule lives here, below the story and the
render layers, so that text and pictures cannot write one value two ways; render.preview
draws with it."""
import math
import re

import numpy as np


def magnitudes_of(a):
    """(largest |value|, smallest non-zero |value|, are all whole, is any inf or nan) over
    the finite values of a numeric array: what its format and width depend on."""
    if a.size <= 64:   # a card's small tensor: Python's loops beat a dozen numpy calls
        values = a.reshape(-1).tolist()
        finite = [abs(v) for v in values if math.isfinite(v)]
        nonfinite = len(finite) < len(values)
        if not finite:
            return 0.0, 0.0, True, nonfinite
        positive = [v for v in finite if v > 0]
        whole = a.dtype.kind != "f" or all(v == round(v) for v in finite)
        return float(max(finite)), float(min(positive)) if positive else 0.0, whole, nonfinite
    flat = a.reshape(-1)
    nonfinite = False
    if a.dtype.kind == "f":
        finite = np.isfinite(flat)
        if not finite.all():
            flat, nonfinite = flat[finite], True
    m = np.abs(flat.astype(np.float64, copy=False))
    if not m.size:
        return 0.0, 0.0, True, nonfinite
    positive = m[m > 0]
    whole = a.dtype.kind != "f" or bool((m == np.round(m)).all())
    return float(m.max()), float(positive.min()) if positive.size else 0.0, whole, nonfinite


# How a number is written, wherever it is shown (a card, a rule card's "where" clause, a tile,
# the provenance table, an export): by a format chosen from its tensor alone, so one value
# reads the same everywhere in a view and at every step:
#   integers, and a float tensor whose every entry is whole, as integers; booleans T / F;
#   floats of an ordinary magnitude (the largest |entry| from ORDINARY[0] up to ORDINARY[1])
#   in fixed notation with DECIMALS decimals: 1.407, -0.926, 18.600, 0.000;
#   floats beyond it, where fixed notation would write the largest entry with fewer than
#   three significant digits (0.002 for 0.0022, -0.001 for -8.297e-4) or too many digits:
#   on a picture, fixed notation of the tensor divided by a power of ten that the picture
#   writes beside it ([-0.830 2.200] ×10⁻³, so that a card never mixes notations); in plain
#   text (number_format) e-notation, 1.55e-06.
# So the largest entry of a tensor always reads with three significant digits or more.
# A number that rounds to zero is written without its sign: never -0.000; an entry that is
# not zero but too small for its tensor's digits is written NEAR_ZERO, never 0.000, which
# is kept for a zero (a number written alone, as provenance writes one entry, keeps its
# own digits instead: `writer`).
ORDINARY = (0.1, 1e4)
NEAR_ZERO = "≈0"
DECIMALS = 3


def number_spec(values, magnitudes=None):
    """The printf conversion ("%.3f", "%.2e", "%d") of every number of `values`, by the rule
    above (e-notation beyond the ordinary magnitudes); None for booleans. `magnitudes`:
    `magnitudes_of(values)`, when the caller has them. (printf writes "nan", "inf" and
    "-inf" as str() does.)"""
    a = np.asarray(values)
    if a.dtype.kind == "b":
        return None
    if a.dtype.kind in "iu":
        return "%d"
    return _float_spec(magnitudes or magnitudes_of(a), a.size)


def _float_spec(magnitudes, size):
    if exponent(magnitudes):
        return "%.2e"
    biggest, _, whole, _ = magnitudes
    return "%.0f" if biggest == 0 or whole else f"%.{DECIMALS}f"


def exponent(magnitudes):
    """The power of ten a picture divides a float tensor by (0 for an ordinary magnitude):
    that of its largest |entry| as written at DECIMALS decimals, so the largest reads 1.000
    to 9.999 (float32's 1e-8 is 9.99999994e-9: not 10.000×10⁻⁹)."""
    biggest = magnitudes[0]
    if biggest == 0 or ORDINARY[0] <= biggest < ORDINARY[1] or not math.isfinite(biggest):
        return 0
    power = int(math.floor(math.log10(biggest)))
    return power + 1 if round(biggest / 10.0 ** power, DECIMALS) >= 10 else power


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def factor_text(power):
    """'×10⁻⁶': what a picture of numbers divided by 10**power writes beside them."""
    return f"×{power_text(power)}" if power else ""


def superscript(n):
    """'⁻⁶', '²⁰¹': an integer written as an exponent."""
    return str(n).translate(_SUPERSCRIPT)


def power_text(power):
    """'10⁻⁶', '10⁰': a power of ten as a log axis writes its ticks."""
    return f"10{superscript(power)}"


def scaled(array):
    """(the float tensor `array` as a picture writes its numbers, the power of ten it is
    divided by): itself and 0 for an ordinary magnitude or another dtype."""
    a = np.asarray(array)
    if a.dtype.kind != "f" or not a.size:
        return a, 0
    power = exponent(magnitudes_of(a))
    return (a, 0) if not power else (a.astype(np.float64) / 10.0 ** power, power)


def mantissa_spec(power, spec=None):
    """The format of a tensor's numbers divided by its power of ten `power` (scaled): `spec`,
    one the caller imposes; else DECIMALS decimals beside a power of ten, since a mantissa
    that is whole is no whole value (0.05 reads 5.000×10⁻², as float32's 0.0500000007
    does, not 5×10⁻²); else None, the numbers' own (number_spec)."""
    return spec if spec is not None else (f"%.{DECIMALS}f" if power else None)


def card_spec(arrays):
    """One printf conversion for numbers written together in text (a study view's
    summary lines), chosen from all of them: never 1.2e-05 beside 0.000. None when no
    array is numeric (booleans keep "T" / "F"). Pictures write each tensor by its own
    format (`scaled`) instead."""
    numeric = [a for a in (np.asarray(x) for x in arrays if x is not None)
               if a.dtype.kind in "iuf" and a.size]
    if not numeric:
        return None
    if all(a.dtype.kind in "iu" for a in numeric):
        return "%d"
    parts = [magnitudes_of(a) for a in numeric]
    positive = [p[1] for p in parts if p[1] > 0]
    combined = (max(p[0] for p in parts), min(positive) if positive else 0.0,
                all(p[2] for p in parts), any(p[3] for p in parts))
    spec = _float_spec(combined, sum(a.size for a in numeric))
    if spec.endswith("f"):   # an array that is not zero never prints as all zeros
        smallest_shown = 0.5 * 10.0 ** -int(spec[2:-1])
        if any(0 < p[0] < smallest_shown for p in parts):
            return "%.2e"
    return spec


_MINUS_ZERO = re.compile(r"(?<![\de.])-(?=0(?:\.0*)?(?:e[+-]0+)?(?![\d.]))")


def shared_spec(arrays):
    """The format the float tensors shown together on one card (a fan-in's terms and sum, a
    rule's upstream, operands and contribution) share: "%.3f" when any of them is written
    with decimals, so an all-zero term reads 0.000 beside 0.052, never 0 (one format per
    card); None when each one's own format already agrees. A story's tensors share one
    (model.Story.number_spec), so that a tensor reads one way at every step."""
    for x in arrays:
        if x is None:
            continue
        a = np.asarray(x)
        if a.dtype.kind == "f" and a.size:
            shown, power = scaled(a)
            if power != 0 or number_spec(shown) != "%.0f":
                return f"%.{DECIMALS}f"
    return None


def spec_on_card(array, shared):
    """The format `array` takes on a card whose tensors share `shared` (see shared_spec):
    that one for a float tensor of an ordinary magnitude (a whole one gains the card's
    decimals), else None, its own (integers, booleans, a tensor written beside ×10ⁿ)."""
    a = np.asarray(array)
    if shared is None or a.dtype.kind != "f" or not a.size or exponent(magnitudes_of(a)):
        return None
    return shared


def unsigned_zero(text):
    """`text` (numbers as printf wrote them) with every number that rounds to zero written
    without its sign, its width kept: "-0.000" is " 0.000", never a negative zero."""
    return _MINUS_ZERO.sub(" ", text) if "-0" in text else text


def number_format(values, magnitudes=None, spec=None):
    """`number_spec` as a function of one number ("T" / "F" for booleans); `spec`: the
    number_spec, when the caller has it. A value that rounds to zero prints unsigned."""
    spec = number_spec(values, magnitudes) if spec is None else spec
    if spec is None:
        return lambda v: "T" if v else "F"

    def fmt(v):
        text = spec % v
        if text[0] in "-0" and _rounds_to_zero(text):
            return NEAR_ZERO if v else text.lstrip("-")
        return text
    return fmt


def _rounds_to_zero(text):
    """True for printf's "0.000", "-0", "-0.000", "-0.00e+00": a value too small for the
    format."""
    digits = text.lstrip("-").partition("e")[0]
    return digits.strip("0.") == ""


def loses_entries(magnitudes, spec):
    """Would `spec` write a nonzero entry of a tensor of `magnitudes` (magnitudes_of) as a
    zero: its smallest nonzero |entry| below half its last decimal's unit? (number_format
    writes such an entry NEAR_ZERO; a printf of the whole table would write 0.000.)"""
    if not spec or not spec.endswith("f") or not magnitudes[1]:
        return False
    return magnitudes[1] < 0.5001 * 10.0 ** -int(spec[2:-1] or 0)


def written(values, shared=None):
    """(a function writing one number of the tensor `values` as its card's picture does,
    divided by the tensor's power of ten; that power as the picture writes it beside the
    numbers, '' for none). A grid of text writes the power once, as a card does. `shared`:
    the format the tensors shown with it share (shared_spec; a story's number_spec)."""
    a = np.asarray(values)
    if a.dtype.kind not in "biuf":
        a = a.astype(np.float64)
    shown, power = scaled(a)
    write = number_format(shown, spec=mantissa_spec(power, spec_on_card(a, shared)))
    if not power:
        return write, ""
    scale = 10.0 ** power
    return (lambda v: write(v / scale)), factor_text(power)


def writer(values, shared=None):
    """A function writing one number of the tensor `values` as its card does, the power of
    ten after it: -1.881×10⁻⁵ for an entry of a gradient whose largest entry is 7.2e-05,
    -0.173 for an ordinary one (the provenance's sums, where each number stands alone). An
    entry that its card writes NEAR_ZERO is written alone, with its own power of ten:
    1.536×10⁻⁴ where the card of a tensor reaching 3.214 writes ≈0.
    `shared`: as `written`'s."""
    write, factor = written(values, shared)

    def one(v):
        text = write(v)
        return alone(v) if text == NEAR_ZERO else text + factor
    return one


def alone(x):
    """One number written by itself as a card writes a scalar: 0.677, 12, 5.340×10⁻⁴
    (its power of ten after it beyond the ordinary magnitudes), never 5.34e-04."""
    x = np.float64(x)
    return _powered(x, lambda m: number_format(np.float64(m))(m))


def significant(x, digits=6):
    """x with `digits` significant digits (a training line's numbers, which must make its
    equation hold), its power of ten as ×10⁻¹⁰, never e-10, which no card writes; a true
    minus sign. Its notation switches where a card's does (ORDINARY), by `_powered`."""
    return _powered(float(x), lambda m: f"{m:.{digits}g}").replace("-", "−")


def h_text(h):
    """A gradient check's step size h (or its tolerance): its power of ten (10⁻⁶) when it is
    one, as the check's log axis writes it; else as a card writes a number."""
    power = round(math.log10(h)) if h > 0 else 0
    return power_text(power) if h > 0 and math.isclose(h, 10.0 ** power, rel_tol=1e-9) else alone(h)


def line_format(*values):
    """A function writing every number of one line of text (a study's banner: a norm and
    its tolerance, a list of entries) in one format, by the cards' rule: the card_spec the
    values share while it is fixed-point; where some value is beyond the ordinary
    magnitudes, every number with DECIMALS decimals, each beyond them with its own power
    of ten: 'norm 1.140 (tolerance 1.000×10⁻⁶)', never 1.14e+00 beside 1.00e-06. An exact
    0 is written 0."""
    spec = card_spec(values) or "%d"
    if "e" not in spec:
        plain = number_format(None, spec=spec)
        return lambda x: "0" if float(x) == 0 else plain(float(x))
    fixed = number_format(None, spec=f"%.{DECIMALS}f")
    return lambda x: "0" if float(x) == 0 else _powered(float(x), fixed)


def _powered(x, write):
    """`x` written by `write` after dividing it by its power of ten (none at an ordinary
    magnitude), that power after it: 9.9996×10⁻⁷ at 3 decimals is 1.000×10⁻⁶."""
    power = exponent((abs(x), abs(x), False, False))
    if not power:
        return write(x)
    mantissa = write(x / 10.0 ** power)
    if mantissa.lstrip("-").startswith("10"):
        power += 1
        mantissa = write(x / 10.0 ** power)
    return mantissa + factor_text(power)


_PRINTED = re.compile(r"^\(?(-?\d+(?:\.(\d+))?)(?:×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?\)?$")
_FROM_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
SIGNIFICANT_MOST = 7   # a float32 carries about seven


def resolution(text):
    """The step between neighbouring numbers written like `text` (its last digit's unit):
    1e-7 for '-2.060×10⁻⁴', 0.001 for '0.248'; 0 for a number written without decimals
    (a whole number, exact) or any text that is not one number."""
    m = _PRINTED.match(text.strip())
    if not m or m.group(2) is None:
        return 0.0
    power = int(m.group(3).translate(_FROM_SUPERSCRIPT)) if m.group(3) else 0
    return 10.0 ** (power - len(m.group(2)))


def printed_value(text):
    """The number `text` writes ('(-2.060×10⁻⁴)' -> -2.06e-4), or None for a text that is
    not one number."""
    m = _PRINTED.match(text.strip())
    if not m:
        return None
    power = int(m.group(3).translate(_FROM_SUPERSCRIPT)) if m.group(3) else 0
    return float(m.group(1)) * 10.0 ** power


def at_resolution(x, step, fixed=False):
    """`x` written with its last digit's unit at most `step` (the digits a sum of printed
    products needs so that its operands give its printed result): fixed notation from 0.1
    up to the ordinary magnitudes' top, else a mantissa and its power of ten, as the cards
    write numbers: 0.24873, -8.252×10⁻⁴; at least DECIMALS decimals, at most
    SIGNIFICANT_MOST significant digits. An exact 0 is written 0. `fixed`: its card writes
    it without a power of ten (0.066), so it is written so with more digits (0.06596, not
    6.596×10⁻² beside the card's 0.066)."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    top = int(math.floor(math.log10(abs(x))))
    need = math.ceil(-math.log10(step)) if step > 0 else SIGNIFICANT_MOST - top
    if ORDINARY[0] <= abs(x) < ORDINARY[1] or (fixed and abs(x) < ORDINARY[1]):
        decimals = min(max(DECIMALS, need), SIGNIFICANT_MOST - 1 - top)
        return number_format(None, spec=f"%.{max(decimals, 0)}f")(x)
    decimals = min(max(DECIMALS, need + top), SIGNIFICANT_MOST - 1)
    write = number_format(None, spec=f"%.{decimals}f")
    mantissa = write(x / 10.0 ** top)
    if mantissa.lstrip("-").startswith("10"):   # 9.9996 at 3 decimals is 1.000×10 more
        top += 1
        mantissa = write(x / 10.0 ** top)
    return mantissa + factor_text(top)
