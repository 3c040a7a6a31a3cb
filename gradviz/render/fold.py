"""Folding a layered layout into rows of whole columns, read like lines of text, for a view
too narrow to show its one long row at a readable zoom.

Three uses: the fewest rows that show the whole graph at a readable zoom (`folded`); where
none does, the fold that shows it largest further out (`fitted`, Fit to Window's compact
overview); and, for a story played step by step, the fold in which the most steps can each
show all their cards together at a readable zoom (`framing`: attention's out → V, whose two
cards one row holds five columns apart). Each prefers the cuts where no edge crosses the
canvas (`running_back`): an edge between rows is the wrap of neighbouring columns, or enters
a card no further left than the one it leaves begins. Rows interlock: each column of a row sits FOLD_GAP
below the cards right above it, not below the whole row above, with a free lane between the
two rows for the edges that wrap from one row's end to the next row's start, and, where no
fold leaves a step's rule card a free place in one view with its cards, a lane for the card
(the rest of a row lowered by its height).
"""
from __future__ import annotations

import math

from . import spots

FOLD_GAP = 96.0        # between a card and the one above it in the row above: badges, wrapping edges, their labels
LANE_GAP = 56.0        # between two rows: a badge, the edge router's clearance and one lane of wrapping edges
WRAP_ROOM = 40.0       # beside a folded row, for the edges that wrap (edges.BACK_REACH and a port)
# When no fold fits at a readable zoom: the zoom-outs (over the readable zoom) at which a
# fold is tried in turn, and how much larger than one row it must draw the graph to be used
ZOOM_OUTS = (1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
FOLD_GAIN = 1.3
CARD_TOP = 22.0        # above a card: its badge (cards.BADGE_H and its gap)
CARD_PAD = 6.0         # kept free between a rule card and any card (the player's docking.PAD)
CUTS_TRIED = 512       # the most folds `framing` compares (a 60-column chain has astronomically many)


def _reach(lefts, rights, width):
    """For each column j, the columns a row ending at j may start from (every one whose row
    fits the room's width), and the `fit` test: a contiguous run, found by bisection, where the
    columns run left to right (a layered layout's always do)."""
    n = len(lefts)

    def fit(i, j):
        return rights[j] - lefts[i] + 2 * WRAP_ROOM <= width

    ordered = all(lefts[k] <= lefts[k + 1] for k in range(n - 1))
    starts = []
    for j in range(n):
        if not ordered:
            starts.append([i for i in range(j + 1) if fit(i, j)])
            continue
        low, high = 0, j + 1              # the first start that fits (j + 1: none does)
        while low < high:
            mid = (low + high) // 2
            low, high = (low, mid) if fit(mid, j) else (mid + 1, high)
        starts.append(range(low, j + 1))
    return starts, fit


def _tall(boxes, columns, starts):
    """tall[j][i]: the height of columns i..j, for each start i of `starts`[j]."""
    tops = [min(boxes[m][1] for m in c) for c in columns]
    bottoms = [max(boxes[m][3] for m in c) for c in columns]
    out = []
    for j, run in enumerate(starts):
        heights, top, bottom = {}, float("inf"), float("-inf")
        for i in range(j, min(run, default=j + 1) - 1, -1):
            top, bottom = min(top, tops[i]), max(bottom, bottoms[i])
            heights[i] = bottom - top
        out.append({i: heights[i] for i in run})
    return out


def _cuts_by_rows(starts, tall):
    """For count = 1, 2, ...: columns 0..n-1 cut into `count` runs of neighbours [(first,
    last)], each run fitting the room's width (`starts`), their heights (`tall`) summing to
    the least, or None when no such cut exists. Of equal sums, the cut whose list of runs
    sorts first. A dynamic program over the rows: a row ending at j extends the best cut of
    one row fewer ending just before its start, so a cut into `count` rows costs count x
    columns x the columns one row holds (before, every cut was a list copied for every
    candidate and the table rebuilt for every count: 115 s for a 1000-op chain)."""
    n = len(starts)
    cost = {j: tall[j][0] for j in range(n) if starts[j] and starts[j][0] == 0}
    rank = {j: r for r, j in enumerate(sorted(cost))}      # the order of their lists of runs
    parents = [dict.fromkeys(cost)]
    while True:
        yield _path(parents, n - 1) if n - 1 in cost else None
        if not cost:
            return
        best = {}
        for j in range(n):
            for i in starts[j]:
                if i - 1 in cost and i >= 1:
                    this = (cost[i - 1] + tall[j][i], rank[i - 1], i - 1)
                    if j not in best or this < best[j]:
                        best[j] = this
        cost = {j: c for j, (c, _, _) in best.items()}
        rank = {j: r for r, j in enumerate(sorted(best, key=lambda j: (best[j][1], j)))}
        parents.append({j: i for j, (_, _, i) in best.items()})


def _path(parents, j):
    runs = []
    for layer in reversed(parents):
        i = layer[j]
        runs.append((0 if i is None else i + 1, j))
        j = i
    return runs[::-1]


def _extent(boxes):
    return (max(b[2] for b in boxes.values()) - min(b[0] for b in boxes.values()),
            max(b[3] for b in boxes.values()) - min(b[1] for b in boxes.values()))


def stacked(boxes, columns, runs, drops=None):
    """`boxes` folded at `runs` ([(first, last)] column indices): each row starts WRAP_ROOM
    from the left; each of its columns sits FOLD_GAP below the cards above it (any row's,
    where their widths overlap) and LANE_GAP below the whole row above, and never higher
    than the column before it, so that a row reads down and right like the one it wraps.
    `drops` ({column index: scene units}): a column of a row after the first (and so the
    rest of its row) that much lower, the room a rule card takes under the row above."""
    out, above, floor = {}, [], None      # above: (left, right, bottom) of the columns placed
    for i, j in runs:
        run = columns[i:j + 1]
        dx = WRAP_ROOM - min(boxes[m][0] for m in run[0])
        dy = -min(boxes[m][1] for c in run for m in c) if floor is None else None
        placed = []
        for k, c in enumerate(run, start=i):
            left, right = min(boxes[m][0] for m in c) + dx, max(boxes[m][2] for m in c) + dx
            c_top = min(boxes[m][1] for m in c)
            if floor is not None:
                under = [bottom + FOLD_GAP for l, r, bottom in above if l < right + WRAP_ROOM and left - WRAP_ROOM < r]
                least = max(under + [floor + LANE_GAP]) - c_top + (drops or {}).get(k, 0.0)
                dy = least if dy is None else max(dy, least)
            for m in c:
                x0, y0, x1, y1 = boxes[m]
                out[m] = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)
            placed.append((left, right, max(out[m][3] for m in c)))
        above += placed
        floor = max(bottom for _, _, bottom in above)
    return out


def _widths(boxes, columns):
    lefts = [min(boxes[m][0] for m in c) for c in columns]
    rights = [max(boxes[m][2] for m in c) for c in columns]
    return lefts, rights


def fitted(boxes, columns, room, edges=()):
    """The layout that the view shows largest: folded to fit `room` (the view at a readable
    zoom) when that can be done; else, when even folded it fits only further out, the fold
    that fits at the least zoom-out, if that draws it at least FOLD_GAIN times larger than
    one long row would be (a 9-column chain in one row used a third of a 4:3 canvas)."""
    fold = folded(boxes, columns, room, edges)
    if fold is not boxes:
        return fold
    extent_w, extent_h = _extent(boxes)
    width, height = room
    unfolded = min(width / extent_w, height / max(1.0, extent_h))
    if unfolded >= 1:
        return boxes          # it fits as it is
    for out in ZOOM_OUTS:
        if 1 / out < unfolded * FOLD_GAIN:
            return boxes      # no fold from here on would gain enough
        fold = folded(boxes, columns, (width * out, height * out), edges)
        if fold is not boxes:
            return fold
    return boxes


def running_back(boxes, columns, edges):
    """How many of `edges` ((source, destination) node ids) cross the canvas: they enter a
    card that lies wholly left of the one they leave, and are not the wrap of neighbouring
    columns from a row's end to the next row's start (attention's V → out ran from the end
    of the first row back to out at the start of the third)."""
    index = {m: i for i, c in enumerate(c for c in columns if c) for m in c}
    return sum(1 for src, dst in edges if src in index and dst in index
               and index[dst] - index[src] != 1 and boxes[dst][2] < boxes[src][0])


def folded(boxes, columns, room, edges=()):
    """The layout folded into rows when it is wider than `room` ((width, height): what the
    view shows at a readable zoom) and folding lets it fit: the fewest rows that fit, each
    row's columns kept in order, unless more rows let fewer `edges` cross the canvas
    (`running_back`). Unchanged when it fits as it is, or fits no better folded (cards then
    go compact)."""
    columns = [c for c in columns if c]
    n = len(columns)
    lefts, rights = _widths(boxes, columns)
    width, height = room
    if rights[-1] - lefts[0] <= width:
        return boxes
    # Too few rows fit the height to hold every column (a row spans at most the width, and
    # the gap cut at its end): no fold fits, and no search for one need run.
    gap = max([lefts[i + 1] - rights[i] for i in range(n - 1)] + [0.0])
    rows = math.ceil((rights[-1] - lefts[0] + gap) / max(1.0, width - 2 * WRAP_ROOM + gap))
    shortest = min(max(boxes[m][3] for m in c) - min(boxes[m][1] for m in c) for c in columns)
    if rows * shortest + (rows - 1) * LANE_GAP > height:
        return boxes
    starts, fit = _reach(lefts, rights, width)
    tall = _tall(boxes, columns, starts)
    # Each row is at least as tall as its shortest column: more rows than this cannot fit.
    most = int((height + LANE_GAP) // (LANE_GAP + max(1.0, shortest)))
    cuts = _cuts_by_rows(starts, tall)
    next(cuts)                                      # one row: it does not fit
    for count, runs in zip(range(2, min(n, most) + 1), cuts):
        if runs is None:
            continue
        out = stacked(boxes, columns, runs)
        if _extent(out)[1] <= height:
            back = running_back(out, columns, edges)
            return out if not back else _least_running_back(out, (back, count, _extent(out)[1]),
                                                           boxes, columns, edges, fit, room, most)
    return boxes


def _least_running_back(choice, key, boxes, columns, edges, fit, room, most):
    """Of the folds that fit `room` in at most `most` rows, the one whose fewest `edges`
    cross the canvas, then with the fewest rows, then the least tall; `choice` (its `key`)
    the fewest rows that fit, found first."""
    for runs in _cuts(fit, len(columns)):
        if len(runs) > most or (key[0] == 0 and len(runs) > key[1]):
            break
        out = stacked(boxes, columns, runs)
        tall = _extent(out)[1]
        if tall <= room[1]:
            this = (running_back(out, columns, edges), len(runs), tall)
            if this < key:
                choice, key = out, this
    return choice


def _unframed(boxes, groups, room):
    """(how many of `groups` (node ids shown together) do not fit `room` together, the
    share of the room the groups take, summed: less is a story framed closer)."""
    width, height = room
    missed, share = 0, 0.0
    for group in groups:
        need = max((max(boxes[n][2] for n in group) - min(boxes[n][0] for n in group)) / width,
                   (max(boxes[n][3] for n in group) - min(boxes[n][1] for n in group)) / height)
        missed += need > 1 + 1e-9
        share += need
    return missed, share


def _crowded(boxes, groups, room, cards, reach=None):
    """The groups of `groups` that fit `room` (as `_unframed` counts them) but leave their
    rule card (`cards`: group -> its size) no place in one view with them but over a card
    or its ports' names (`reach`: node -> how far they stand out left and right of it).
    BatchNorm's step 9 covered the target's value: its rule card found no free place beside
    bn and layer1. `room` is the view less the top row's badges, which `near` counts."""
    reach = reach or {}
    obstacles = [(b[0] - reach.get(n, (0.0, 0.0))[0], b[1] - CARD_TOP, b[2] + reach.get(n, (0.0, 0.0))[1], b[3])
                 for n, b in boxes.items()]
    out = []
    for group in groups:
        size = cards.get(group)
        if size is None:
            continue
        near = (min(boxes[n][0] for n in group), min(boxes[n][1] for n in group) - CARD_TOP,
                max(boxes[n][2] for n in group), max(boxes[n][3] for n in group))
        if near[2] - near[0] > room[0] or near[3] - near[1] - CARD_TOP > room[1]:
            continue                       # unframed: counted as such
        if not spots.free_places(near, size, (room[0], room[1] + CARD_TOP), obstacles, CARD_PAD):
            out.append(group)
    return out


def _opened(out, flat, columns, runs, room, groups, edges, cards, reach, key):
    """(layout, key) of `out` (`flat` folded at `runs`, its `key` as `framing` ranks it) with
    a lane opened under the row above where a step's rule card has no free place in view
    (attention's S → QKᵀ at 1280 x 800: S began the second row under x, QKᵀ ended the first,
    and w_v's and V's cards filled the view between them): a column of a later row, and
    the rest of that row, lowered by the card's height, wherever that leaves fewer such
    steps and frames as many; lanes added one at a time while they help."""
    drops = {}
    later = [k for i, j in runs[1:] for k in range(i, j + 1)]
    while key[2]:
        heights = sorted({cards[g][1] + 2 * CARD_PAD for g in _crowded(out, groups, room, cards, reach)})
        best = None
        for k in later:
            for drop in heights:
                tried = dict(drops)
                tried[k] = tried.get(k, 0.0) + drop
                layout = stacked(flat, columns, runs, tried)
                unframed, closeness = _unframed(layout, groups, room)
                this = (unframed, running_back(layout, columns, edges),
                        len(_crowded(layout, groups, room, cards, reach)), len(runs), closeness)
                if this[:2] <= key[:2] and this[2] < key[2] and (best is None or this < best[0]):
                    best = (this, layout, tried)
        if best is None:
            break
        key, out, drops = best
    return out, key


def _cuts(fit, n):
    """Every cut of columns 0..n-1 into rows that each fit the width, fewest rows first, at
    most CUTS_TRIED of them (a 60-column chain has astronomically many). A row reaching as
    far as it fits is the way to the fewest rows, so `need` (the rows that columns from i
    on need at least) prunes every start that cannot end within the count."""
    need = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        far = max((j for j in range(i, n) if fit(i, j)), default=None)
        need[i] = n + 1 if far is None else 1 + need[far + 1]
    found = 0
    for count in range(max(2, need[0]), n + 1):
        stack = [(0, [])]
        while stack:
            start, runs = stack.pop()
            if len(runs) == count - 1:
                found += 1
                yield runs + [(start, n - 1)]
                if found >= CUTS_TRIED:
                    return
                continue
            stack += [(j + 1, runs + [(start, j)]) for j in range(n - 2, start - 1, -1)
                      if fit(start, j) and len(runs) + 1 + need[j + 1] <= count]


def _story(boxes, groups, cards):
    """([group], {group: rule card size}) of the steps' groups, each kept to the nodes of
    `boxes`, those of one node left out."""
    cards = {tuple(n for n in group if n in boxes): size for group, size in (cards or {}).items()}
    return [g for g in (tuple(n for n in group if n in boxes) for group in groups) if len(g) > 1], cards


def misses(boxes, columns, room, groups, edges=(), cards=None, reach=None):
    """(steps unframed, edges crossing the canvas, steps whose rule card has no free place)
    of the layout `boxes`, as `framing` ranks its folds: what a layout shown already must
    not do worse than the one `framing` would lay out, to be kept while a story plays."""
    groups, cards = _story(boxes, groups, cards)
    return (_unframed(boxes, groups, room)[0], running_back(boxes, [c for c in columns if c], edges),
            len(_crowded(boxes, groups, room, cards, reach)))


def framing(shown, flat, columns, room, groups, edges=(), cards=None, reach=None):
    """The layout `shown` (one row, or folded to fit the view), unless a fold of `flat` lets
    more of a story's steps show their cards together, or fewer `edges` cross the canvas:
    `groups` holds the node ids of each step, `room` what one view shows at the legible
    zoom, `cards` the size of a group's rule card. Of the folds (rows that each fit the
    width), the one that leaves the fewest steps unframed, then the fewest edges crossing
    the canvas (`running_back`), then the fewest steps whose rule card has no place in
    view but over a card or its ports' names (`_crowded`, `reach`), then has the fewest rows, then leaves the steps the
    most room (the shares of the view they take, summed). Where that fold still leaves a
    step's rule card no free place, a lane opens for it under the row above (`_opened`)."""
    groups, cards = _story(flat, groups, cards)
    missed, share = _unframed(shown, groups, room)
    back = running_back(shown, columns, edges)
    crowded = len(_crowded(shown, groups, room, cards, reach))
    if not missed and not back and not crowded:
        return shown
    columns = [c for c in columns if c]
    n = len(columns)
    lefts, rights = _widths(flat, columns)
    fit = _reach(lefts, rights, room[0])[1]
    choice, key, cut = shown, (missed, back, crowded, 0, share), None
    for runs in _cuts(fit, n):
        out = stacked(flat, columns, runs)
        unframed, closeness = _unframed(out, groups, room)
        this = (unframed, running_back(out, columns, edges))
        if this > key[:2]:
            continue               # worse already: no need to look for its cards' places
        this += (len(_crowded(out, groups, room, cards, reach)), len(runs), closeness)
        if this < key or (cut is None and out == choice):     # (`shown` is often one of the folds)
            choice, key, cut = out, min(this, key), runs
        if key[:3] == (0, 0, 0) and len(runs) > key[3]:
            break                  # every step framed with its card, no edge across: more rows cannot do better
    if key[2] and cut is not None:
        choice, key = _opened(choice, flat, columns, cut, room, groups, edges, cards, reach, key)
    return choice
