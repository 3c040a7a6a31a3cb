"""Deterministic layered auto-layout of a graph document, data flowing left to right.

Four stages, each a pure function of the document (no Qt, no randomness):

1. Layering: longest path from the inputs, so every edge points to a later column; an op
   on a short path beside a long one then moves to the column that halves its longest
   edges (attention's V between x and out, not beside x), and a node without inputs (a
   constant, a variable) to the column just before its first consumer, which keeps its
   edges short.
2. Ordering within a column: a reading order (depth-first from the targets, inputs in
   slot order) seeds every column; one barycentric sweep then sorts each column by the
   mean reading rank of the node's inputs. Ties fall back to the reading order, then to
   the node id. Because a node's key depends only on the nodes it reads from, adding a
   node leaves the relative order of the others unchanged.
3. Coordinates: columns stacked left to right; inside a column nodes are stacked in
   order, then pulled towards the mean height of their neighbours (inputs for ops,
   consumers for inputs) without ever swapping or overlapping.
4. Folding (fold.py, only when a view's room is given): a chain too wide for the view at
   a readable zoom, but not too tall once folded, is cut into rows of whole columns read
   like lines of text; an edge from one row's end to the next row's start wraps back. Rows
   are cut where no other edge runs back across the canvas (attention's V above out, not
   at the far end of the row above), and, for a story played step by step, where that
   lets each step's cards be framed, with a lane under a row where a step's rule card has
   no other free place in view.

An edge spanning several columns gets a channel in each column it crosses (a thin
placeholder ordered and placed like a node, as in Sugiyama's dummy nodes), so the
cards there leave a gap for the edge router (edges.py) instead of standing in its way.
"""
from __future__ import annotations

from . import fold

DEFAULT_SIZE = (160.0, 90.0)
COLUMN_GAP = 130.0
TIGHT_GAP = 80.0       # the least gap between columns where a view's room is tight (`layout`'s `tight`) ...
TIGHT_GIVE = 14.0      # ... and what a gap kept for a label gives up of its spare (story_overlay.PILL_ROOM,
                       # 24, less the active card's ring and glow, 10)
ROW_GAP = 36.0
CHANNEL_H = 12.0       # the height a long edge's channel takes in a column it crosses
CHANNEL_GAP = 20.0     # between a channel and its neighbours in the column


def _preds(doc):
    preds = {nid: [] for nid in doc.nodes}
    succs = {nid: [] for nid in doc.nodes}
    for edge in sorted(doc.edges, key=lambda e: (e.dst.node, e.dst.index, e.src.node, e.src.index)):
        if edge.src.node in doc.nodes and edge.dst.node in doc.nodes:
            preds[edge.dst.node].append(edge.src.node)
            succs[edge.src.node].append(edge.dst.node)
    return preds, succs


def layers(doc):
    """Column index of every node. Cycles (an invalid document) are broken at the back edge."""
    preds, succs = _preds(doc)
    layer = {}
    state = {}

    def visit(nid):
        if nid in layer:
            return layer[nid]
        if state.get(nid) == "active":        # a cycle: ignore the back edge
            return -1
        state[nid] = "active"
        value = 0
        for p in preds[nid]:
            value = max(value, visit(p) + 1)
        state[nid] = "done"
        layer[nid] = value
        return value

    for nid in sorted(doc.nodes):
        visit(nid)
    _balance(layer, preds, succs)
    # Inputs move right, next to their first consumer.
    for nid in sorted(doc.nodes):
        if not preds[nid] and succs[nid]:
            layer[nid] = max(0, min(layer[s] for s in succs[nid]) - 1)
    return layer


def _balance(layer, preds, succs):
    """Move every op with slack (a short path beside a long one: attention's V between x
    and out) to the column that halves its longest edges, so that neither end of a story
    step lies columns away from the other. Each move shortens the node's longest edge and
    keeps every edge pointing right; a few sweeps settle it."""
    for _ in range(len(layer)):
        moved = False
        for nid in sorted(layer, key=lambda n: (layer[n], n)):
            ins = [layer[p] for p in preds[nid] if p != nid]
            outs = [layer[s] for s in succs[nid] if s != nid]
            if not ins or not outs or max(ins) >= min(outs) - 1:
                continue
            best = min(max(max(ins) + 1, (min(ins) + max(outs)) // 2), min(outs) - 1)
            if best != layer[nid] and max(best - min(ins), max(outs) - best) \
                    < max(layer[nid] - min(ins), max(outs) - layer[nid]):
                layer[nid], moved = best, True
        if not moved:
            return


def reading_order(doc):
    """Depth-first from the sinks (targets first), inputs in slot order: rank per node."""
    preds, succs = _preds(doc)
    rank = {}
    by_slot = {nid: [e.src.node for e in doc.inputs_of(nid) if e.src.node in doc.nodes]
               for nid in doc.nodes}

    def visit(nid):
        stack = [(nid, iter(by_slot[nid]))]
        on_path = {nid}
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                if node not in rank:
                    rank[node] = len(rank)
                continue
            if child not in rank and child not in on_path:
                on_path.add(child)
                stack.append((child, iter(by_slot[child])))

    targets = [p.node for p in doc.targets if p.node in doc.nodes]
    sinks = [nid for nid in doc.nodes if not succs[nid]]
    for nid in [*targets, *sinks, *doc.nodes]:
        if nid not in rank:
            visit(nid)
    return rank


def _chains(doc, layer):
    """The channels of long edges: for every edge spanning more than one column, one
    placeholder per column it crosses, so the cards there leave it a gap to pass."""
    chains = []
    for edge in sorted(doc.edges, key=lambda e: (e.src.node, e.src.index, e.dst.node, e.dst.index)):
        src, dst = edge.src.node, edge.dst.node
        if src in layer and dst in layer and layer[dst] - layer[src] > 1:
            ids = [f"\x00{src}:{edge.src.index}>{dst}:{edge.dst.index}@{c}" for c in range(layer[src] + 1, layer[dst])]
            chains.append((src, dst, ids))
    return chains


def _graph(doc):
    """Layers, columns (top to bottom, channels included) and the neighbours of every
    node and channel placeholder."""
    layer = layers(doc)
    preds, succs = _preds(doc)
    rank = reading_order(doc)
    key_rank = dict(rank)
    for src, dst, ids in _chains(doc, layer):
        chain = [src, *ids, dst]
        for i, d in enumerate(ids):
            layer[d] = layer[src] + 1 + i
            key_rank[d] = (rank[src] + rank[dst]) / 2
            preds[d], succs[d] = [chain[i]], [chain[i + 2]]
        succs[src][succs[src].index(dst)] = ids[0]
        preds[dst][preds[dst].index(src)] = ids[-1]
    columns = {}
    for nid in layer:
        columns.setdefault(layer[nid], []).append(nid)

    def key(nid):
        ps = preds[nid]
        bary = sum(key_rank[p] for p in ps) / len(ps) if ps else key_rank[nid]
        return (bary, key_rank[nid], nid)

    return layer, [sorted(columns[c], key=key) for c in sorted(columns)], preds, succs


def order(doc, layer=None):
    """Node ids per column, top to bottom."""
    _, columns, _, _ = _graph(doc)
    return [[n for n in column if n in doc.nodes] for column in columns]


def layout(doc, sizes=None, gaps=None, room=None, shrink=False, steps=None, tight=False):
    """Top-left corner of every node card: {node_id: (x, y)}.

    `sizes` maps node ids to (width, height); missing nodes get DEFAULT_SIZE. `gaps` maps
    node ids to the room their outgoing edges need (a label wider than COLUMN_GAP): the gap
    after a node's column is at least that. `room` ((width, height), scene units): what a
    view shows at a readable zoom; a long chain that fits it only folded is folded into rows.
    `shrink`: where no fold fits `room`, fold where that shows the graph larger further out
    (Fit to Window, whose cards are then compact; not for slides that frame each step).
    `steps` ((groups, room[, cards, reach])): the node ids each story step shows together,
    what one view shows at the legible zoom (scene units), the size of each group's rule
    card and how far each card's port names stand out of it (left, right): where a step's
    cards do not fit the view, or leave their rule card no place but over another card, the
    rows are folded where that frames more steps (not with `shrink`). `tight` (with `room`):
    columns wider than the room together come closer, down to TIGHT_GAP apart (a gap kept
    for a label by TIGHT_GIVE at most), before any fold (Fit to Window: lesson 22's four columns of scalars and the seed's label beside
    them needed 1132 units where 1096 read at 1280 x 800, and were drawn compact).
    """
    if not doc.nodes:
        return {}
    sizes = sizes or {}
    size = {nid: tuple(sizes.get(nid, DEFAULT_SIZE)) for nid in doc.nodes}
    _, columns, preds, succs = _graph(doc)
    for column in columns:
        for n in column:
            size.setdefault(n, (0.0, CHANNEL_H))

    widths = [max(size[n][0] for n in column) for column in columns]
    needs = [max([0.0] + [(gaps or {}).get(n, 0.0) for n in column]) for column in columns[:-1]]
    gap, give = COLUMN_GAP, 0.0

    def across(gap, give):
        return sum(widths) + sum(max(gap, need - give) for need in needs)
    if tight and room is not None:
        while gap > TIGHT_GAP and across(gap, give) > room[0]:
            gap = max(TIGHT_GAP, gap - 2.0)
            give = min(TIGHT_GIVE, COLUMN_GAP - gap)
    xs = {}
    x = 0.0
    for column, width, need in zip(columns, widths, needs + [0.0]):
        for n in column:
            xs[n] = x + (width - size[n][0]) / 2
        x += width + max(gap, need - give)

    # Initial stacking, then alternate: ops follow their inputs, inputs follow consumers.
    centre = {}
    for column in columns:
        y = 0.0
        for n in column:
            centre[n] = y + size[n][1] / 2
            y += size[n][1] + ROW_GAP

    def settle(column, wanted):
        """Place a column as close as possible to the wanted centres, order kept, no overlap."""
        placed = []
        for n in column:
            want = wanted.get(n, centre[n])
            top = want - size[n][1] / 2
            if placed:
                prev = placed[-1]
                gap = ROW_GAP if prev in doc.nodes and n in doc.nodes else CHANNEL_GAP
                top = max(top, centre[prev] + size[prev][1] / 2 + gap)
            centre[n] = top + size[n][1] / 2
            placed.append(n)
        # Shift back up by the mean excess to balance the push-down.
        excess = [centre[n] - wanted[n] for n in column if n in wanted]
        if excess:
            shift = (max(excess) + min(excess)) / 2
            if shift > 0:
                for n in column:
                    centre[n] -= shift

    for _ in range(3):
        for column in columns:
            wanted = {n: sum(centre[p] for p in preds[n]) / len(preds[n])
                      for n in column if preds[n]}
            settle(column, wanted)
        for column in reversed(columns):
            wanted = {n: sum(centre[s] for s in succs[n]) / len(succs[n])
                      for n in column if not preds[n] and succs[n]}
            if wanted:
                settle(column, wanted)

    boxes = {n: (xs[n], centre[n] - size[n][1] / 2, xs[n] + size[n][0], centre[n] + size[n][1] / 2)
             for n in doc.nodes}
    real = [[n for n in column if n in doc.nodes] for column in columns]
    flat = boxes
    edges = [(e.src.node, e.dst.node) for e in doc.edges]
    if room is not None:
        boxes = fold.fitted(flat, real, room, edges) if shrink else fold.folded(flat, real, room, edges)
    if steps is not None and not shrink:
        boxes = fold.framing(boxes, flat, real, steps[1], steps[0], edges, *steps[2:])
    top = min(box[1] for box in boxes.values())
    return {n: (round(x, 2), round(y - top, 2)) for n, (x, y, _, _) in boxes.items()}


def frames_as_well(doc, sizes, kept, laid, steps):
    """Does the layout `kept` ({node: (x, y)}: the one shown, Fit to Window's as a lesson
    opens) serve a story's `steps` (as `layout` takes them) as well as `laid`, the layout
    `layout` gives for them: its cards (of `sizes`, badges counted) overlap nowhere, and it
    leaves no more steps unframed, edges crossing the canvas or rule cards without a free
    place (fold.misses)? Then the cards stay where they are while the story plays (18 of
    the 36 lessons rearranged their cards between steps 1 and 2 at 1280 x 800, no card
    having grown)."""
    if any(n not in kept for n in doc.nodes):
        return False
    size = {nid: tuple(sizes.get(nid, DEFAULT_SIZE)) for nid in doc.nodes}

    def boxes(at):
        return {n: (at[n][0], at[n][1], at[n][0] + size[n][0], at[n][1] + size[n][1]) for n in doc.nodes}
    shown = boxes(kept)
    tops = sorted(shown, key=lambda n: shown[n][1])
    for i, a in enumerate(tops):
        for b in tops[i + 1:]:
            if shown[b][1] - fold.CARD_TOP >= shown[a][3]:
                break
            if shown[a][0] < shown[b][2] and shown[b][0] < shown[a][2]:
                return False
    columns = [[n for n in column if n in doc.nodes] for column in _graph(doc)[1]]
    edges = [(e.src.node, e.dst.node) for e in doc.edges]
    return all(a <= b for a, b in zip(fold.misses(shown, columns, steps[1], steps[0], edges, *steps[2:]),
                                      fold.misses(boxes(laid), columns, steps[1], steps[0], edges, *steps[2:])))
