"""The formula card's docking search, in plain geometry (scene units, no window)."""
from gradviz.app.player.docking import Rules, overlap, search

CLEAR = Rules(clear=True, names_free=True)


def _card(x, y, w=200, h=150):
    """(card, name strip): a card and its top 40 units."""
    return (x, y, x + w, y + h), (x, y, x + w, y + 40)


def test_the_card_docks_beside_the_step_cards_at_the_best_zoom_that_holds_both():
    shown = [_card(0, 0), _card(300, 0)]          # the step's two cards: 500 x 150
    configs = [(2.0, 1.0), (1.0, 1.0)]
    # 1000 x 600 pixels: at zoom 2 the view is 500 x 300 scene units, too small for the
    # 400 x 200 card with the cards; at zoom 1 it docks beside (below) them.
    zoom, scale, spot, centre = search(shown, [], [], (400, 200), configs, (1000, 600), CLEAR, 18)
    assert (zoom, scale) == (1.0, 1.0)
    assert spot[1] >= 150 + 18 and spot[3] - spot[1] == 200 and spot[2] - spot[0] == 400
    assert all(not overlap(spot, card) for card, _ in shown)
    seen = (centre[0] - 500, centre[1] - 300, centre[0] + 500, centre[1] + 300)
    assert all(seen[0] <= r[0] and r[2] <= seen[2] and seen[1] <= r[1] and r[3] <= seen[3]
               for r in [spot] + [card for card, _ in shown])


def test_a_card_too_large_is_drawn_smaller_and_never_hides_a_name():
    shown = [_card(0, 0)]
    other = [_card(-260, 0)]                      # another card at the left
    configs = [(1.0, 1.0), (1.0, 0.6)]
    # A 700 x 500 card in a 700 x 450 view: only at scale 0.6 (420 x 300), beside the card.
    zoom, scale, spot, _ = search(shown, [], other, (700, 500), configs, (700, 450), CLEAR, 18)
    assert scale == 0.6 and (spot[2] - spot[0], spot[3] - spot[1]) == (420, 300)
    assert not overlap(spot, shown[0][0]) and not overlap(spot, other[0][1])
    # Over the card's body it may go, never over its name: a 600 x 600 card in a 700 x 620
    # view cannot miss the name of a card it must show with it.
    over = Rules(clear=False, names_free=True)
    assert search(shown, [], [], (600, 600), [(1.0, 1.0)], (700, 620), over, 18) is None
    zoom, scale, spot, _ = search(shown, [], [], (600, 600), [(1.0, 1.0)], (700, 700), over, 18)
    assert overlap(spot, shown[0][0]) and not overlap(spot, shown[0][1])
