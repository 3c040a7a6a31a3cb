"""The auto-layout is deterministic, layered left to right, and stable under small edits."""
import copy

from graphs import chain, mlp, seed004

from gradviz.graph.document import Node
from gradviz.render import layout
from gradviz.render.fold import FOLD_GAIN
from gradviz.render.layout import COLUMN_GAP, DEFAULT_SIZE, layers, order


def _column_order(doc):
    return {nid: (ci, ri) for ci, column in enumerate(order(doc)) for ri, nid in enumerate(column)}


def _overlaps(doc, pos):
    w, h = DEFAULT_SIZE
    ids = list(pos)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            (ax, ay), (bx, by) = pos[a], pos[b]
            if abs(ax - bx) < w and abs(ay - by) < h:
                return (a, b)
    return None


def test_seed004_inputs_left_of_matmul_and_t_above_b():
    pos = layout(seed004())
    assert pos["t"][0] == pos["b"][0] < pos["y"][0]
    assert pos["t"][1] < pos["b"][1]
    top, bottom = pos["t"][1], pos["b"][1]
    assert top < pos["y"][1] < bottom        # the matmul sits between its inputs


def test_every_edge_points_right():
    for doc in (seed004(), mlp(), chain(60)):
        pos = layout(doc)
        for e in doc.edges:
            assert pos[e.src.node][0] < pos[e.dst.node][0], e


def test_inputs_sit_next_to_their_first_consumer():
    doc = mlp()
    lay = layers(doc)
    assert lay["b1"] == lay["z"] - 1      # not in column 0 with x and W1
    assert lay["W2"] == lay["o"] - 1


def test_layout_is_deterministic_and_independent_of_insertion_order():
    doc = mlp()
    first = layout(doc)
    assert layout(doc) == first
    shuffled = copy.deepcopy(doc)
    shuffled.nodes = dict(reversed(list(doc.nodes.items())))
    shuffled.edges = list(reversed(doc.edges))
    assert _column_order(shuffled) == _column_order(doc)


def test_no_two_cards_overlap():
    for doc in (seed004(), mlp(), chain(100)):
        assert _overlaps(doc, layout(doc)) is None


def test_adding_a_node_keeps_the_relative_order_of_the_others():
    before = mlp()
    edits = [
        [("extra", "a", 0)],          # a new consumer of the relu
        [("extra", "x", 0)],          # a new consumer of an input
        [("extra", "loss", 0)],       # a new sink after the target
    ]
    for edit in edits:
        after = mlp(extra=edit)
        cols_before, cols_after = order(before), order(after)
        assert len(cols_after) >= len(cols_before)
        for nid in before.nodes:
            assert layers(before)[nid] == layers(after)[nid], (edit, nid)
        for column in cols_after:
            kept = [n for n in column if n in before.nodes]
            if not kept:
                continue
            original = next(c for c in cols_before if kept[0] in c)
            assert kept == [n for n in original if n in kept], (edit, column)


def test_adding_an_unconnected_node_moves_nothing_else():
    doc = chain(40)
    before = layout(doc)
    doc.add(Node("note", "constant"))
    after = layout(doc)
    assert {k: v for k, v in after.items() if k != "note"} == before


def test_sizes_are_respected():
    doc = seed004()
    pos = layout(doc, {"t": (300, 200), "b": (100, 80), "y": (150, 150)})
    assert pos["y"][0] >= pos["t"][0] + 300
    assert pos["b"][1] >= pos["t"][1] + 200


def test_a_column_whose_edge_labels_need_more_room_gets_a_wider_gap():
    doc = seed004()
    plain = layout(doc)
    wide = layout(doc, gaps={"t": COLUMN_GAP + 50})
    assert plain["y"][0] - plain["t"][0] == DEFAULT_SIZE[0] + COLUMN_GAP
    assert wide["y"][0] - wide["t"][0] == DEFAULT_SIZE[0] + COLUMN_GAP + 50
    assert layout(doc, gaps={"t": COLUMN_GAP - 50}) == plain     # never narrower


def _extent(pos, size=DEFAULT_SIZE):
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    return max(xs) + size[0] - min(xs), max(ys) + size[1] - min(ys)


def test_a_chain_too_wide_for_the_room_folds_into_rows_that_fit_it():
    doc = chain(12)
    flat = layout(doc)
    width, height = _extent(flat)
    assert layout(doc, room=(width + 1, height)) == flat          # fits as it is: unchanged
    assert layout(doc, room=(width / 4, height / 4)) == flat      # fits no better folded
    room = (width / 2.5, 1200.0)
    folded = layout(doc, room=room)
    w, h = _extent(folded)
    assert w <= room[0] and h <= room[1]
    left = min(x for x, _ in folded.values())
    starts = sorted(y for x, y in folded.values() if x == left)
    assert len(starts) == 3                                      # the fewest rows that fit
    assert _overlaps(doc, folded) is None

    def row(n):   # the row a card is in: the last row start above its bottom
        return sum(start <= folded[n][1] + DEFAULT_SIZE[1] for start in starts)
    reading = sorted(folded, key=lambda n: (row(n), folded[n][0]))
    assert reading == sorted(flat, key=lambda n: flat[n][0])      # read like text: in order


def test_a_chain_that_fits_only_further_out_folds_where_that_shows_it_larger():
    """No fold fits at a readable zoom, but two rows fit a 3:1 view at a zoom well above
    one long row's (the tiny CNN filled a third of its canvas): the fold is used."""
    doc = chain(12)
    flat = layout(doc)
    width, height = _extent(flat)
    room = (width / 3, height * 1.2)
    assert layout(doc, room=room) == flat                         # unless asked to
    folded = layout(doc, room=room, shrink=True)
    assert folded != flat and _overlaps(doc, folded) is None

    def scale(pos):   # the zoom, over the readable one, at which `pos` fits the room
        w, h = _extent(pos)
        return min(room[0] / w, room[1] / h)
    assert scale(flat) < 1 and scale(folded) < 1                 # neither reads in full
    assert scale(folded) >= FOLD_GAIN * scale(flat)


def test_folding_keeps_every_column_whole():
    doc = mlp()
    flat = layout(doc)
    width, height = _extent(flat)
    folded = layout(doc, room=(width * 0.7, 4000.0))
    assert folded != flat
    columns = order(doc)
    for column in columns:   # the cards of one column stay in one row, one above another
        assert len({folded[n][0] - flat[n][0] for n in column}) == 1, column
        assert len({folded[n][1] - flat[n][1] for n in column}) == 1, column
