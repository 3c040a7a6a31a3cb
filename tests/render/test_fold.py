"""The layout keeps the cards of every story step near enough to frame at a legible zoom
(issue 20 §4): attention's V sat beside x, five columns from out, its consumer; a step
whose cards one row holds too far apart is framed by folding the rows."""
import math
import random
import sys

import pytest

from gradviz.graph.document import Document, Node, Port
from gradviz.render import fold
from gradviz.render.fold import CARD_PAD, CARD_TOP, CUTS_TRIED, FOLD_GAP, LANE_GAP, WRAP_ROOM, _cuts, stacked
from gradviz.render.layout import DEFAULT_SIZE, layers, layout

W, H = DEFAULT_SIZE


def attention_like():
    """x -> q -> s -> t -> a -> out along a long path, x -> v -> out beside it."""
    doc = Document(title="a short path beside a long one")
    doc.add(Node("x", "constant"))
    for nid in ("q", "s", "t", "a", "v", "out", "last"):
        doc.add(Node(nid, "op", op="tanh" if nid not in ("out",) else "matmul"))
    for src, dst, slot in [("x", "q", 0), ("q", "s", 0), ("s", "t", 0), ("t", "a", 0), ("a", "out", 0),
                           ("x", "v", 0), ("v", "out", 1), ("out", "last", 0)]:
        doc.connect(src, dst, 0, slot)
    doc.targets = [Port("last")]
    return doc


def _groups(doc):
    """A story's steps as the player frames them: an edge's two ends, a fan-out's consumers."""
    pairs = [(e.src.node, e.dst.node) for e in doc.edges]
    return pairs + [("x", "q", "v")]


def _unframed(pos, groups, room):
    out = []
    for g in groups:
        width = max(pos[n][0] for n in g) + W - min(pos[n][0] for n in g)
        height = max(pos[n][1] for n in g) + H - min(pos[n][1] for n in g)
        if width > room[0] or height > room[1]:
            out.append(g)
    return out


def _overlap(pos):
    ids = sorted(pos)
    return [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]
            if abs(pos[a][0] - pos[b][0]) < W and abs(pos[a][1] - pos[b][1]) < H]


def test_an_op_on_a_short_path_beside_a_long_one_sits_halfway():
    column = layers(attention_like())
    assert column["x"] == 0 and column["out"] == 5
    assert column["v"] == 2          # longest-path layering put it at 1, four columns from out
    assert max(column["v"] - column["x"], column["out"] - column["v"]) == 3


def test_a_step_whose_cards_one_row_holds_too_far_apart_is_framed_by_a_fold():
    doc = attention_like()
    room = (2 * (W + 130) + W + 1, 5.5 * H)      # cards two columns apart read; the whole graph does not
    flat = layout(doc, room=room)
    assert _unframed(flat, _groups(doc), room) == [("v", "out")]
    framed = layout(doc, room=room, steps=(_groups(doc), room))
    assert _unframed(framed, _groups(doc), room) == []
    assert _overlap(framed) == []
    for e in doc.edges:       # read like text: each edge goes right, or wraps to a later row
        (x0, y0), (x1, y1) = framed[e.src.node], framed[e.dst.node]
        assert x1 > x0 or y1 > y0 + H, e


def test_where_every_step_is_framed_nothing_moves():
    doc = attention_like()
    room = (4000.0, 1000.0)
    assert layout(doc, room=room, steps=(_groups(doc), room)) == layout(doc, room=room)


def test_a_row_interlocks_with_the_one_above():
    """A column of the next row sits FOLD_GAP below the cards right above it, not below the
    tallest column of the row above, and a lane's height below that whole row."""
    def boxes(tall, short):
        return {"a": (0, 0, W, tall) if tall else (0, 250, W, 250 + short),
                "b": (W + 130, 250, 2 * W + 130, 250 + short) if tall else (W + 130, 0, 2 * W + 130, 360),
                "c": (2 * (W + 130), 250, 3 * W + 260, 250 + H)}
    out = stacked(boxes(600, H), [["a"], ["b"], ["c"]], [(0, 1), (2, 2)])
    assert out["a"][0] == out["c"][0] == WRAP_ROOM
    assert out["c"][1] == 600 + FOLD_GAP                      # under the tall column
    out = stacked(boxes(None, H), [["a"], ["b"], ["c"]], [(0, 1), (2, 2)])
    assert out["c"][1] == 250 + H + FOLD_GAP < 360 + FOLD_GAP    # under the short one
    out = stacked(boxes(None, 20), [["a"], ["b"], ["c"]], [(0, 1), (2, 2)])
    assert out["c"][1] == 360 + LANE_GAP                       # a lane below the whole row


def test_the_folds_compared_are_valid_fewest_rows_first_and_bounded():
    """A 60-column chain, three columns a row: every cut tried fits the width and covers
    every column once, the counts of rows never decrease, and at most CUTS_TRIED are made
    (the walk prunes a start that cannot end within the count: no astronomic search)."""
    n, most = 60, 3
    cuts = list(_cuts(lambda i, j: j - i < most, n))
    assert 0 < len(cuts) <= CUTS_TRIED
    assert len(cuts[0]) == n // most
    assert [len(c) for c in cuts] == sorted(len(c) for c in cuts)
    for runs in cuts:
        assert runs[0][0] == 0 and runs[-1][1] == n - 1
        assert all(b[0] == a[1] + 1 for a, b in zip(runs, runs[1:]))
        assert all(j - i < most for i, j in runs)


def test_no_fold_sends_an_edge_back_across_the_canvas():
    """At every room that folds it, no edge of the attention-like graph enters a card lying
    wholly left of the one it leaves, but the wrap of neighbouring columns from a row's end
    to the next row's start: v → out ran from the first row's end back to the next row's
    second card (rooms 3 columns by 8 cards, 5 columns by 5), and the folds that frame the
    story's steps keep to that too."""
    doc = attention_like()
    column = layers(doc)
    for across in (3, 4, 5, 6):
        for high in (3, 4, 5, 6, 8, 10):
            room = (across * (W + 130) - 130 + 2 * WRAP_ROOM + 1, high * H)
            for steps in (None, (_groups(doc), room)):
                pos = layout(doc, room=room, steps=steps)
                back = [(e.src.node, e.dst.node) for e in doc.edges
                        if column[e.dst.node] - column[e.src.node] != 1
                        and pos[e.dst.node][0] + W < pos[e.src.node][0]]
                assert back == [], (across, high, steps is not None)
                assert _overlap(pos) == []


def _free_place(boxes, group, size, room, pad=CARD_PAD):
    """Is there a place, on a grid of 2 units, for a card of `size` in one view of `room`
    (less the badges of its top row) with `group`'s cards, clear by `pad` of every card and
    its badge? (A scan independent of fold.py's own search.)"""
    cards = [(b[0] - pad, b[1] - CARD_TOP - pad, b[2] + pad, b[3] + pad) for b in boxes.values()]
    near = (min(boxes[n][0] for n in group), min(boxes[n][1] for n in group) - CARD_TOP,
            max(boxes[n][2] for n in group), max(boxes[n][3] for n in group))
    w, h = size
    width, height = room[0], room[1] + CARD_TOP
    for y in range(int(near[3] - height), int(near[1] + height - h) + 1, 2):
        for x in range(int(near[2] - width), int(near[0] + width - w) + 1, 2):
            spot = (x, y, x + w, y + h)
            if max(spot[2], near[2]) - min(spot[0], near[0]) > width or \
                    max(spot[3], near[3]) - min(spot[1], near[1]) > height:
                continue
            if not any(x < c[2] and c[0] < x + w and y < c[3] and c[1] < y + h for c in cards):
                return True
    return False


# Attention's story as the window at 1280 x 800 frames it: its rule cards' sizes at the
# legible zoom (render.involved.step_groups there), and what its 918 x 618 canvas shows at
# that zoom less the fit's margins and the badges (Canvas.layout_room).
ATTENTION_CARDS = {("out", "out_3"): (712.05, 126.0), ("A", "out"): (587.05, 200.0), ("V", "out"): (587.05, 200.0),
                   ("A", "S"): (680.8, 200.0), ("QKT", "S"): (579.23, 150.28), ("Q", "QKT"): (579.23, 200.0),
                   ("K", "QKT"): (587.05, 200.0), ("V", "tokens_x"): (602.67, 200.0),
                   ("K", "tokens_x"): (602.67, 200.0), ("Q", "tokens_x"): (602.67, 200.0),
                   ("K", "Q", "V", "tokens_x"): (780.0, 196.0)}
ATTENTION_ROOM = (1095.56, 695.78)


def test_a_lane_opens_under_the_row_above_for_a_rule_card_that_had_no_place(qapp, monkeypatch):
    """Attention in the window at 1280 x 800: S begins the second row under x, QKᵀ ends the
    first, and w_v's and V's cards filled the view between them, so the rule card of S → QKᵀ
    had no place in view but over them (the player docked it over their values). The layout
    lowers the rest of S's row by the card's height: the card has a place beside S; every
    step's cards still fit one view; nothing else moves; no card overlaps another."""
    from samples_util import renderer, sample

    from gradviz.render import fold
    from gradviz.render.involved import step_groups
    r = renderer("nets_6_attention")
    doc, story = sample("nets_6_attention")
    groups, _, reach = step_groups(r, story.steps)
    sizes, gaps, room = r.sizes(), r.label_room(), ATTENTION_ROOM
    pos = layout(doc, sizes, gaps, room=room, steps=(groups, room, ATTENTION_CARDS, reach))
    monkeypatch.setattr(fold, "_opened", lambda out, *args: (out, args[-1]), raising=False)   # no lane
    closed = layout(doc, sizes, gaps, room=room, steps=(groups, room, ATTENTION_CARDS, reach))

    def boxes(at):
        return {n: (x, y, x + sizes[n][0], y + sizes[n][1]) for n, (x, y) in at.items()}
    group = ("QKT", "S")
    assert not _free_place(boxes(closed), group, ATTENTION_CARDS[group], room)
    framed = boxes(pos)
    assert _free_place(framed, group, ATTENTION_CARDS[group], room)
    for g in groups:
        assert max(framed[n][2] for n in g) - min(framed[n][0] for n in g) <= room[0], g
        assert max(framed[n][3] for n in g) - min(framed[n][1] for n in g) <= room[1], g
    moved = {n for n in pos if pos[n] != closed[n]}
    assert moved == {"A", "out", "out_3"}            # the rest of S's row, and the row below
    lowered = [pos[n][1] - closed[n][1] for n in moved]    # the card's height and its pads
    assert max(lowered) - min(lowered) < 0.02 and abs(lowered[0] - (150.28 + 2 * CARD_PAD)) < 0.02
    ids = sorted(framed)
    assert [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]
            if framed[a][0] < framed[b][2] and framed[b][0] < framed[a][2]
            and framed[a][1] < framed[b][3] and framed[b][1] < framed[a][3]] == []


def _old_rows(count, fits, height):
    """fold._rows before the 1000-op chain took 115 s in it (kept to prove the new search
    finds the very same cuts): every candidate a list copied, the table rebuilt per count."""
    n = len(fits)
    best = {j: (height[0][j], [(0, j)]) for j in range(n) if fits[0][j]}
    for _ in range(1, count):
        best = {j: min(((best[i][0] + height[i + 1][j], best[i][1] + [(i + 1, j)])
                        for i in range(j) if i in best and fits[i + 1][j]), default=None)
                for j in range(n)}
        best = {j: value for j, value in best.items() if value is not None}
    return best.get(n - 1, (None, None))[1]


def _old_folded(boxes, columns, room, edges=()):
    """fold.folded as it was, over n x n tables and `_old_rows`."""
    columns = [c for c in columns if c]
    n = len(columns)
    lefts, rights = fold._widths(boxes, columns)
    width, height = room
    if rights[-1] - lefts[0] <= width:
        return boxes
    gap = max([lefts[i + 1] - rights[i] for i in range(n - 1)] + [0.0])
    rows = math.ceil((rights[-1] - lefts[0] + gap) / max(1.0, width - 2 * WRAP_ROOM + gap))
    shortest = min(max(boxes[m][3] for m in c) - min(boxes[m][1] for m in c) for c in columns)
    if rows * shortest + (rows - 1) * LANE_GAP > height:
        return boxes
    fits, tall = [[False] * n for _ in range(n)], [[0.0] * n for _ in range(n)]
    for i in range(n):
        top, bottom = float("inf"), float("-inf")
        for j in range(i, n):
            top = min([top] + [boxes[m][1] for m in columns[j]])
            bottom = max([bottom] + [boxes[m][3] for m in columns[j]])
            fits[i][j], tall[i][j] = rights[j] - lefts[i] + 2 * WRAP_ROOM <= width, bottom - top
    most = int((height + LANE_GAP) // (LANE_GAP + max(1.0, min(tall[i][i] for i in range(n)))))
    for count in range(2, min(n, most) + 1):
        runs = _old_rows(count, fits, tall)
        if runs is None:
            continue
        out = stacked(boxes, columns, runs)
        if fold._extent(out)[1] <= height:
            back = fold.running_back(out, columns, edges)
            return out if not back else fold._least_running_back(
                out, (back, count, fold._extent(out)[1]), boxes, columns, edges,
                lambda i, j: fits[i][j], room, most)
    return boxes


def _random_graph(rng):
    """Columns of one to three cards of a few sizes (so that many cuts tie), left to right
    as a layout places them (or, one case in ten, out of order), and, one case in four,
    three random edges (some cross the canvas: the search for fewer is slow, 512 folds)."""
    boxes, columns, x = {}, [], 0.0
    for k in range(rng.randint(1, 24)):
        column, w = [], rng.choice((W, W, 90.0, 240.0))
        for r in range(rng.randint(1, 3)):
            h, y = rng.choice((H, H, 60.0, 200.0)), rng.choice((0.0, 0.0, -50.0, 120.0)) + 150.0 * r
            boxes[f"n{k}.{r}"] = (x, y, x + w, y + h)
            column.append(f"n{k}.{r}")
        columns.append(column)
        x += w + rng.choice((130.0, 130.0, 60.0, 300.0))
    if rng.random() < 0.1:
        rng.shuffle(columns)
    ids = list(boxes)
    edges = [(rng.choice(ids), rng.choice(ids)) for _ in range(rng.choice((0, 0, 0, 3)))]
    extent = max(b[2] for b in boxes.values()) - min(b[0] for b in boxes.values())
    room = (rng.uniform(W / 2, extent + W), rng.uniform(2 * H, 24 * H))
    return boxes, columns, room, edges


@pytest.mark.cpu_independent("fold.py's and spots.free_places' arithmetic on box edges: + − × ÷ and "
                             "comparisons of floats, one by one (no BLAS, no libm, no float sums "
                             "reordered), which every CPU rounds alike")
def test_the_fold_is_the_one_the_old_exhaustive_search_found():
    """3,000 random graphs and rooms: `folded` (rows cut by one dynamic program over the
    rows, the runs a row may hold found by bisection) gives exactly the layout the old
    search gave, ties between equally tall cuts included (many, with a few card sizes)."""
    rng = random.Random(20261127)
    folds = 0
    for case in range(3000):
        boxes, columns, room, edges = _random_graph(rng)
        old = _old_folded(boxes, columns, room, edges)
        assert fold.folded(boxes, columns, room, edges) == old, case
        folds += old is not boxes
    assert folds > 850                # a third of the cases fold: the searches are compared often


class _Budget(Exception):
    pass


def _fold_lines(call, budget):
    """How many lines of fold.py `call` runs, stopping at `budget` (the old search ran
    hundreds of millions for a 1000-op chain: counting them all would take hours)."""
    count = [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
            if count[0] > budget:
                raise _Budget
        return local

    sys.settrace(lambda frame, event, arg: local if frame.f_code.co_filename == fold.__file__ else None)
    try:
        call()
    except _Budget:
        pass
    finally:
        sys.settrace(None)
    return count[0]


def test_folding_a_1000_op_chain_costs_work_linear_in_its_columns():
    """Opening a 1000-op chain took 134 s, 115 s of it cutting rows: every count of rows
    re-ran a search over every pair of columns, each candidate a copied list. Now a row's
    possible starts are found once, and each count of rows extends the one before: a few
    thousand lines of fold.py per column (3,880 at 1000 columns), not the square of them."""
    n = 1000
    doc = Document(title="a long chain")
    doc.add(Node("x0", "constant"))
    for i in range(1, n + 1):
        doc.add(Node(f"x{i}", "op", op="sin"))
        doc.connect(f"x{i - 1}", f"x{i}", 0, 0)
    budget = 8000 * n
    assert _fold_lines(lambda: layout(doc, room=(1280, 800), shrink=True), budget) <= budget


def test_a_layout_shown_is_kept_where_it_serves_the_story_as_well():
    """The player keeps the cards where the lesson opened them (render.layout.frames_as_well)
    when that layout frames every step as well as its own (the same cards, wherever on
    the canvas); not one where a step's cards lie too far apart to frame
    together, nor one whose cards overlap (a card that grew)."""
    from gradviz.render.layout import frames_as_well
    doc = attention_like()
    room = (2 * (W + 130) + W + 1, 5.5 * H)
    steps = (_groups(doc), room)
    laid = layout(doc, room=room, steps=steps)
    assert frames_as_well(doc, {}, laid, laid, steps)
    moved = {n: (x + 500.0, y + 80.0) for n, (x, y) in laid.items()}       # anywhere on the canvas
    assert frames_as_well(doc, {}, moved, laid, steps)
    flat = layout(doc, room=None)
    assert _unframed(flat, _groups(doc), room) == [("v", "out")]
    assert not frames_as_well(doc, {}, flat, laid, steps)
    grown = dict(laid, q=laid["s"])
    assert not frames_as_well(doc, {}, grown, laid, steps)
