"""Every number printed is true as written (issue 20 §1 and §5), over every sample and step:
on the node cards, on every rule card as an export draws it, in the docks' grids and
`gradviz explain` (story.numbers.written):

- a printed number is its entry within half its last digit; a zero is printed only for a
  zero: a nonzero entry too small for its tensor's digits reads ≈0, never 0.000;
- the largest entry of a tensor reads with three significant digits or more (the
  vanishing-gradients lesson wrote an upstream of largest entry 0.0016 as
  [-0.001 0.000 0.000 0.002 0.002 0.000]);
- a tensor is written one way wherever it is shown: its node's card as its rule cards
  (the seed's ones read 1 on the target's card and 1.000 on the rule cards);
- each rule card an export draws is an equation true as printed: upstream ⊗ rule =
  contribution evaluated with the printed upstream, a fan-in's printed paths summed.
"""
import re

import numpy as np
import pytest

from gradviz.render import heat_layout
from gradviz.story.model import _shown_arrays
from gradviz.story.numbers import DECIMALS, NEAR_ZERO, written

from samples_util import NAMES, SAMPLES, sample

_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
_NUMBER = re.compile(r"^(-?\d+)(?:\.(\d+))?(?:e([-+]\d+))?$")


def power_of(factor):
    """-3 for '×10⁻³', 0 for ''."""
    return int(factor.removeprefix("×10").translate(_SUPER)) if factor else 0


def parse(text, power=0):
    """(value, resolution) of a number as a picture writes it beside 10**power: '-0.830' at
    -3 is (-8.30e-4, 1e-6); '≈0' is (0, the digits' unit); a whole '3' and a zero '0.000'
    are exact (test_every_printed_number_is_true... holds the writing to that)."""
    text = text.strip()
    if text == NEAR_ZERO:
        return 0.0, 10.0 ** (power - DECIMALS)
    m = _NUMBER.match(text)
    assert m, f"not a printed number: {text!r}"
    exp = int(m.group(3) or 0)
    decimals = len(m.group(2) or "")
    value = float(text) * 10.0 ** power
    if value == 0:      # a zero is written only for a zero (a nonzero entry reads ≈0): exact
        return 0.0, 0.0
    return value, (10.0 ** (power + exp - decimals) if m.group(2) is not None else 0.0)


def resolution_of(text, power):
    """The last digit's unit of `text` beside 10**power (a zero's too: 1e-3 for '0.000')."""
    decimals = len(text.partition("e")[0].partition(".")[2])
    return 10.0 ** (power - decimals) if "." in text else 0.0


def cells(picture):
    """{flat index: text} of every number `picture` (preview.Preview or tiles.Tiles) writes,
    and the power of ten written beside them."""
    a = np.asarray(picture.array)
    if picture.kind == "scalar":
        return {0: picture.text.removesuffix(picture.factor)}, picture.power
    if picture.kind in ("grid", "ellipsis"):
        cols = heat_layout.as_2d(a).shape[1]
        return {r * cols + c: text.strip() for r, row in zip(picture.rows, picture.table)
                for c, text in zip(picture.cols, row) if r is not None and c is not None}, picture.power
    if picture.kind == "tiles":
        flat = np.arange(a.size).reshape(picture._shape4).transpose(picture._perm)
        out = {}
        for r in (r for r in picture.rows if r is not None):
            for c in (c for c in picture.cols if c is not None):
                for index_row, text_row in zip(flat[r, c], picture.number_texts(r, c)):
                    out.update({int(i): t.strip() for i, t in zip(index_row, text_row)})
        return out, 0
    return {}, 0


def untrue(array, texts, power, where):
    """Reasons the numbers `texts` ({flat: text} beside 10**power) of `array` are false."""
    a = np.asarray(array)
    if a.dtype.kind not in "iuf" or not a.size:
        return []
    flat = a.reshape(-1).astype(np.float64)
    wrong = []
    for i, text in texts.items():
        v = flat[i]
        if not np.isfinite(v):
            continue
        value, res = parse(text, power)
        res = res or resolution_of(text, power)
        if text == NEAR_ZERO and not (v != 0 and abs(v) < res / 2 * (1 + 1e-6)):
            wrong.append(f"{where}: entry {i} = {v!r} written {text}")
        elif text != NEAR_ZERO and value == 0 and v != 0:
            wrong.append(f"{where}: entry {i} = {v!r} written {text}, as a zero")
        elif abs(value - v) > res / 2 * (1 + 1e-6) + 1e-7 * abs(v):
            wrong.append(f"{where}: entry {i} = {v!r} written {text}{' ×10^%d' % power if power else ''}")
    finite = np.isfinite(flat)
    if a.dtype.kind == "f" and finite.any():
        top = int(np.flatnonzero(finite)[np.argmax(np.abs(flat[finite]))])
        if top in texts and flat[top] != 0:
            _, res = parse(texts[top], power)
            if res and abs(flat[top]) < 100 * res * (1 - 1e-9):    # fewer than 3 significant digits
                wrong.append(f"{where}: its largest entry {flat[top]!r} written {texts[top]}"
                             f"{' ×10^%d' % power if power else ''}: fewer than three significant digits")
    return wrong


def node_pictures(renderer):
    for nid, card in renderer.cards.items():
        for s in card.sections:
            if s.preview is not None and s.array is not None:
                yield f"card {renderer.doc.nodes[nid].label or nid} ({s.label})", s.array, s.preview


def rule_pictures(renderer):
    for step in renderer.story.steps if renderer.story is not None else []:
        layout = renderer.formula_layout(step)          # what _paint_formula draws
        for part, shown, *_ in layout.placed:
            if part[0] in ("array", "picture"):
                yield f"rule card of step {step.index + 1} {step.title!r} ({part[2]})", part[1], shown


def exported_renderer(name, tmp_path, monkeypatch):
    """The Renderer `gradviz export FILE -o OUT.png --step 1` paints with (its rule cards'
    text is what every export draws: a still, and each frame of an animation, whose
    Renderer is made the same way), caught before any pixel is drawn."""
    import importlib
    from gradviz import cli
    export = importlib.import_module("gradviz.render.export")
    caught = []
    monkeypatch.setattr(export, "_png", lambda renderer, *rest: caught.append(renderer))
    _, story = sample(name)
    args = ["export", str(SAMPLES / f"{name}.json"), "-o", str(tmp_path / "out.png")]
    assert cli.main(args + (["--step", "1"] if story.steps else [])) == 0
    (renderer,) = caught
    return renderer


@pytest.mark.parametrize("name", NAMES)
def test_every_printed_number_is_true_and_no_nonzero_entry_reads_zero(name, tmp_path, monkeypatch):
    renderer = exported_renderer(name, tmp_path, monkeypatch)
    wrong = []
    for where, array, shown in [*node_pictures(renderer), *rule_pictures(renderer)]:
        texts, power = cells(shown)
        wrong += untrue(array, texts, power, where)
    _, story = sample(name)
    shared = story.number_spec()
    for array in _shown_arrays(story):          # the docks' grids and `gradviz explain`'s
        a = np.asarray(array)
        if a.dtype.kind not in "iuf" or not a.size:
            continue
        write, factor = written(a, shared)
        flat = a.reshape(-1)[:400]
        wrong += untrue(a, {i: write(v) for i, v in enumerate(flat.tolist())}, power_of(factor),
                        f"grid of a {a.shape} tensor")
    assert not wrong, "\n".join(sorted(set(wrong))[:10])


def formats(texts, factor):
    """How numbers are written: the kinds and decimals of their texts, and the power beside."""
    kinds = set()
    for t in texts:
        if t in (NEAR_ZERO, "nan", "inf", "-inf"):
            continue
        mantissa, _, exponent = t.partition("e")
        kinds.add(("e" if exponent else "f", len(mantissa.partition(".")[2])))
    return frozenset(kinds | {factor})


@pytest.mark.parametrize("name", NAMES)
def test_a_node_card_writes_a_tensor_as_its_rule_cards_and_grids_do(name, tmp_path, monkeypatch):
    """One format per tensor, node cards too: the seed's ones, a ones tensor, a value of
    whole numbers among decimals read 1.000 on their node's card as on the rule cards and
    in the docks (it read 1 on the target's card beside the rule cards' 1.000). (The app's
    canvas: tests/app/canvas/test_card_format_follows_story.py.)"""
    renderer = exported_renderer(name, tmp_path, monkeypatch)
    _, story = sample(name)
    seen = {}
    for where, array, shown in [*node_pictures(renderer), *rule_pictures(renderer)]:
        a = np.asarray(array)
        if a.dtype.kind != "f" or not a.size or shown.kind not in ("scalar", "grid", "ellipsis", "tiles"):
            continue
        texts, _ = cells(shown)
        way = formats(texts.values(), getattr(shown, "factor", ""))
        grid = written(a, story.number_spec())
        seen.setdefault((a.shape, a.tobytes()), {}).setdefault(way, []).append(where)
        seen[(a.shape, a.tobytes())].setdefault(
            formats([grid[0](v) for v in a.reshape(-1)[:64].tolist()], grid[1]), []).append("its grid")
    mixed = {key: ways for key, ways in seen.items() if len(ways) > 1}
    assert not mixed, (name, list(mixed.values())[:3])


def printed(picture, shape):
    """(values, resolutions) of a picture's numbers as written, NaN where it writes none
    (an ellipsis, a heatmap), as arrays of `shape`."""
    texts, power = cells(picture)
    values, res = np.full(int(np.prod(shape)), np.nan), np.full(int(np.prod(shape)), np.nan)
    for i, text in texts.items():
        if text not in ("nan", "inf", "-inf"):
            values[i], res[i] = parse(text, power)
    return values, res


def local_jacobian(step, shape_in):
    """J[j, i] of the step's rule (upstream entry j, contribution entry i), column by column
    as provenance finds them (story.local), or None where the rule is not linear in the
    upstream (a custom rule: clip_by_norm) and so no J exists."""
    from gradviz.story.local import _generic_columns
    upstream = np.asarray(step.operands["grad"], np.float64)
    columns = []
    for i in range(int(np.prod(shape_in))):
        (column,) = _generic_columns(step._op, step.input_index, i, [step.operands["grad"]])
        columns.append(column)
    J = np.stack(columns, axis=1)
    result = np.asarray(step.contributions[0] if step.contributions else step.cotangent, np.float64)
    if not np.allclose(upstream.reshape(-1) @ J, result.reshape(-1), rtol=1e-4, atol=1e-6):
        return None
    return J


def rule_card_equations(step, layout):
    """[(terms [(value, resolution) per factor], (result, resolution))] per entry the step's
    rule card writes whole: a contribution's entry i as Σ_j upstream[j]·J[j, i] (J exact:
    the rule, not a number the card prints), a fan-in's as the sum of its paths' entries."""
    pictures = [(part, shown) for part, shown, *_ in layout.placed
                if part[0] == "array" and len(part) == 3 and np.asarray(part[1]).dtype.kind == "f"]
    if step.kind == "fan_in":
        paths = [(np.asarray(part[1]), shown) for part, shown in pictures if part[2] != "sum"]
        total = [(np.asarray(part[1]), shown) for part, shown in pictures if part[2] == "sum"]
        if not total or not paths:
            return []
        r_values, r_res = printed(total[0][1], total[0][0].shape)
        printed_paths = [printed(shown, a.shape) for a, shown in paths]
        return [([(v[i], res[i]) for v, res in printed_paths], (r_values[i], r_res[i]))
                for i in range(r_values.size)
                if not np.isnan(r_values[i]) and not any(np.isnan(v[i]) for v, _ in printed_paths)]
    if step.kind != "contribution" or isinstance(step.operands.get("grad"), list):
        return []
    shown = {part[2]: (np.asarray(part[1]), picture) for part, picture in pictures}
    if "upstream" not in shown or "contribution" not in shown or step._op is None:
        return []
    (up, up_picture), (result, result_picture) = shown["upstream"], shown["contribution"]
    if result.size > 400 or up.size > 400:
        return []
    J = local_jacobian(step, result.shape)
    if J is None:
        return []
    u_values, u_res = printed(up_picture, up.shape)
    r_values, r_res = printed(result_picture, result.shape)
    equations = []
    for i in range(result.size):
        used = np.flatnonzero(J[:, i])
        if np.isnan(r_values[i]) or np.isnan(u_values[used]).any():
            continue
        equations.append(([(u_values[j] * J[j, i], u_res[j] * abs(J[j, i])) for j in used],
                          (r_values[i], r_res[i])))
    return equations


def false_equation(terms, result):
    """Why `terms` (each a printed number times an exact factor: (value, resolution)),
    summed, do not give `result` as printed: the printed operands must give the printed
    result within the roundings of their printed digits and its own, as
    test_printed_equations.check_equation evaluates a printed sum. (Not its bound on the
    roundings: a card writes each tensor once, in its own digits, three significant at
    least, so three paths of a fan-in or a matmul that cancels cannot carry the result's
    last digit; the provenance dock writes such a sum with the digits it needs, and that
    test holds it to them.)"""
    r, r_res = result
    total = sum(v for v, _ in terms)
    spread = sum(res / 2 for _, res in terms)
    if abs(total - r) > r_res / 2 + spread + 1e-12 * max(1.0, abs(r)):
        return f"printed operands give {total:.6g} (± {spread:.3g}), not {r:.6g}"
    return None


@pytest.mark.parametrize("name", NAMES)
def test_every_exported_rule_card_is_true_as_printed(name, tmp_path, monkeypatch):
    """test_printed_equations evaluates every sum the provenance dock and `gradviz explain`
    print; the rule cards an export draws (`gradviz export`, Export Step, the GIF's
    frames) print one too: upstream ⊗ rule = contribution, and a fan-in's paths + ... =
    sum. Their printed numbers, parsed from the text the export draws, evaluated through
    the rule, give the printed result (the vanishing-gradients lesson's step 29 printed an
    upstream [-0.001 0.000 0.000 0.002 0.002 0.000] beside a contribution [-2.060 -1.011
    -0.859 3.696 3.852 -0.452] ×10⁻⁴ that no such upstream gives)."""
    renderer = exported_renderer(name, tmp_path, monkeypatch)
    wrong, checked = [], 0
    for step in renderer.story.steps if renderer.story is not None else []:
        for terms, result in rule_card_equations(step, renderer.formula_layout(step)):
            checked += 1
            reason = false_equation(terms, result)
            if reason:
                wrong.append(f"step {step.index + 1} {step.title!r}: {reason}")
    assert not wrong, "\n".join(wrong[:8])
    whole = [s for s in renderer.story.steps if s.kind == "contribution" and not s.formula.startswith("clip")
             and all(shown.kind in ("scalar", "grid") for part, shown, *_ in renderer.formula_layout(s).placed
                     if part[0] == "array" and len(part) == 3)] if renderer.story is not None else []
    assert checked or not whole, name       # a card that writes its tensors whole is evaluated
