"""The scene rectangles the player frames a step by: a card as a view must hold it (its badge,
its ports and their names, the step's own card with its ring), and what a step is about (its
cards, its arrows, its formula card). framing_step frames them; settle pans them into view."""
from PySide6.QtCore import QRectF

from ...render import painter as render_painter
from ...render import text
from ...render.cards import BADGE_H, HEADER_H, LINE_H, PAD, PORT_R, title_font
from ...render.involved import involved_nodes
from ...render.story_overlay import GLOW

ARROW_PAD = 8.0         # scene units kept in view around a step's arrows (their heads)


def box(rect):
    """A QRectF as the (left, top, right, bottom) box that docking and spots take."""
    return rect.left(), rect.top(), rect.right(), rect.bottom()


def card_rect(renderer, nid):
    """A card with the line above it that holds its badge (whether it has one or not)."""
    return renderer.rect(nid).adjusted(0, -render_painter.BADGE_H - 4, 0, 0)


def whole_card(renderer, nid, badge_line=False):
    """A card as a view shows it whole: with its ports' circles (PORT_R out of its sides:
    without them the tiny CNN's loss card was 'whole' at the right edge of its last step in
    presentation at 1920 x 1080, its output port cut in half), its port names, and its badge
    if it has one (the footprint's badge line counted once: counted twice, lesson 3's a
    seemed cut at the top of the whole graph framed at 1920 x 1080, and its step 2 was
    panned to show c alone at the left of an empty screen, a and b cut by its left edge).
    `badge_line`: with the line above it where it has no badge too (`card_rect`'s): what a
    slide frames, all that the card may draw."""
    card = renderer.cards[nid]
    rect = renderer.rect(nid).adjusted(-PORT_R if card.n_inputs else 0,
                                       -BADGE_H - 4 if badge_line or renderer._has_badge(nid) else 0,
                                       PORT_R if card.n_outputs else 0, 0)
    for label, _, _ in renderer.port_labels(nid):
        rect = rect.united(label)
    return rect


def card_as(renderer, nid, full, own=False):
    """A card as framing takes it: `card_rect`, or (`full`: presentation's slides) `whole_card`
    with its badge line, with its ring (`ringed_card`) for the step's `own` card."""
    if not full:
        return card_rect(renderer, nid)
    return ringed_card(renderer, nid) if own else whole_card(renderer, nid, badge_line=True)


def ringed_card(renderer, nid):
    """The step's own card with the ring and glow round it (`ring_rect`, GLOW further):
    framed without them, attention's V and K in presentation at 1920 x 1080 (steps 15, 17)
    ended at the view's bottom edge, their ring under the caption band."""
    return whole_card(renderer, nid, badge_line=True).united(renderer.ring_rect(nid).adjusted(-GLOW, -GLOW, GLOW, GLOW))


def name_strip(card):
    """The top of a card as involved_cards gives it: its badge, header and first line."""
    return QRectF(card.left(), card.top(), card.width(), BADGE_H + 4 + HEADER_H + LINE_H)


def name_rect(renderer, nid):
    """Where a card writes its name: the header row, from the card's left edge to the end of
    its title (a view that shows this shows which card it is)."""
    rect, card = renderer.rect(nid), renderer.cards[nid]
    return QRectF(rect.left(), rect.top(),
                  min(rect.width(), PAD + text.width(title_font(), card.title_text) + 1.0), HEADER_H)


def arrow_rects(renderer, step):
    """The bounds of the routes of `step`'s arrows, with room for their heads."""
    return [renderer.edge_path(e).boundingRect().adjusted(-ARROW_PAD, -ARROW_PAD, ARROW_PAD, ARROW_PAD)
            for e in renderer._step_edges(step)]


def involved_cards(renderer, step, extra=(), full=False):
    """The cards a step is about: its node's and those at the other end of its edges (`full`:
    with their ports, its own with its ring: `card_as`); and the whole cards of `extra`."""
    nodes = involved_nodes(renderer, step)
    return [card_as(renderer, nid, full, own=k == 0) for k, nid in enumerate(nodes)] + \
        [whole_card(renderer, n) for n in extra if n not in nodes]


def step_items(renderer, step, extra=(), full=False, arrows=True):
    """What a step is about, as scene rects: its cards (`involved_cards`, with `extra`), its
    arrows (not with `arrows` False: settle weighs them apart), its formula card, and the
    seed's arrow with its word."""
    items = involved_cards(renderer, step, extra, full) + (arrow_rects(renderer, step) if arrows else [])
    formula = render_painter.formula_rect(renderer, step)
    if formula is not None:
        items.append(formula)
    if getattr(step, "kind", "") == "seed":
        items.append(renderer.moving_rect(step))
    return items
