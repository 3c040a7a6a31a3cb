"""What test_step_framing.py checks at each step of a walk (its docstring says what and
why): `misses` steps through the open sample and lists what each step's framing gets wrong.
A module of its own so that a walk that checks more at each step (shared_walks.py) steps once."""
import math

import numpy as np
from PySide6.QtCore import QCoreApplication, QRectF
from PySide6.QtGui import QColor, QImage

from gradviz.app.player import card_rects, docking, framing, framing_names, settle, step_view
from gradviz.render.legible import READABLE_PX
from gradviz.render.story_overlay import BESIDE, PILL_H
from gradviz.render.track import Track
from gradviz.render import painter as render_painter
from gradviz.render.formula import CARD_GAP
from gradviz.render.involved import involved_nodes

EPS = 1e-6
NEAR_ROWS = 2      # how many label heights of each arrow of a step at least show in view
SLIDE_PX = 11.0    # a slide's cards' text at least this tall (pixels), to show what it names


def _free_spot(seen, size, cards, involved):
    """Is there a place for a card of `size` inside `seen` that touches none of `involved`
    and hides no card's name? (A scan on a grid, independent of how the player docks.)"""
    w, h = size
    names = [card_rects.box(card_rects.name_strip(card)) for card in cards]
    sacred = [card_rects.box(card.adjusted(-2, -2, 2, 2)) for card in involved]
    step = 6.0
    y = seen.top()
    while y + h <= seen.bottom():
        x = seen.left()
        while x + w <= seen.right():
            spot = (x, y, x + w, y + h)
            if not any(docking.overlap(spot, r) for r in names + sacred):
                return True
            x += step
        y += step
    return False


def _pan_misses(c, r, step, seen, where):
    """The cards the step's cotangent comes from that neither its frame nor the view it
    starts from (before following the arrows to its card) shows."""
    senders = step_view.senders(r, step)
    if all(seen.contains(card) for card in senders):
        return []
    zoom, port = c.transform().m11(), c.viewport().rect()
    start = step_view.pan_start(c, r, step, zoom, seen.center())
    if start is None:
        return [where + ("the senders are in neither the frame nor the start",)]
    first = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    first.moveCenter(start)
    first.adjust(-0.5, -0.5, 0.5, 0.5)
    together = senders[0]
    for card in senders[1:]:
        together = together.united(card)
    if not first.contains(senders[0]) or (together.width() <= first.width() - 2 * framing.MARGIN / zoom
                                          and together.height() <= first.height() - 2 * framing.MARGIN / zoom
                                          and not first.contains(together)):
        return [where + ("the view does not start on the senders",)]
    return []


def _fits_stacked(cards, r, step, port, c):
    """Do the step's cards (their union `cards`) and its whole formula card at its own size
    fit the view at the back row's size, the formula card simply below or beside them?"""
    zoom = framing.readable_zoom(c, c.window().presentation.readable_px())
    layout = r.formula_layout(step)
    width = (port.width() - 2 * framing.MARGIN) / zoom
    height = (port.height() - 2 * framing.MARGIN) / zoom
    gap = CARD_GAP
    below = max(cards.width(), layout.width) <= width and cards.height() + gap + layout.height <= height
    beside = cards.width() + gap + layout.width <= width and max(cards.height(), layout.height) <= height
    return below or beside


def _edges_over_names(r, stem):
    """The edges of the canvas's layout that run over a name written beside a port
    (BatchNorm's output edge crossed "gamma" in presentation mode)."""
    out = []
    for e in r._drawn_edges():
        track = Track(r.edge_path(e))
        out += [(stem, "edge over a port's name", e.src.node, e.dst.node, name)
                for n in r.doc.nodes for label, name, _ in r.port_labels(n)
                if track.crosses(label.adjusted(1, 1, -1, -1))]
    return out


def _distance(rect, points):
    """The least distance from `rect` to any of `points` ((n, 2) array)."""
    dx = np.maximum(np.maximum(rect.left() - points[:, 0], points[:, 0] - rect.right()), 0.0)
    dy = np.maximum(np.maximum(rect.top() - points[:, 1], points[:, 1] - rect.bottom()), 0.0)
    return float(np.min(np.hypot(dx, dy))) if len(points) else math.inf


def _along(track, every=1.0):
    """Points every `every` scene units along `track`: the points Track.at gives, computed
    for all of them at once (as many calls of Track.at took half of this file's time)."""
    d = np.linspace(0.0, track.length, max(2, int(track.length / every) + 1))
    xy, running = track.xy, track.running
    if len(xy) < 2:
        return np.repeat(xy[:1], len(d), axis=0)
    i = np.clip(np.searchsorted(running, d, side="right") - 1, 0, len(xy) - 2)
    seg = running[i + 1] - running[i]
    f = np.divide(d - running[i], seg, out=np.zeros_like(d), where=seg > 0)
    return xy[i] + (xy[i + 1] - xy[i]) * f[:, None]


def _label_misses(r, step, seen, where):
    """Every label the step writes on its arrows (a fan-in's label per path, a cotangent's
    shape, the seed's word) lies whole in view (BatchNorm's step 9 in presentation at 1280 x
    800 cut "cotangent (7, 8)" at the top of the view, lesson 14's per-path labels ran out of
    it), and beside its own arrow: no line drawn for another edge runs beside it (within a
    label's row) nearer than its own arrow."""
    out = [where + (f"label {label!r} out of view",) for label, rect in r.label_rects(step)
           if not seen.contains(rect)]
    own_edges = set(r._step_edges(step))
    others = [_along(Track(r.edge_path(e))) for e in r._drawn_edges() if e not in own_edges]
    for label, rect, anchor in r.placed_pills(step):    # an arrow, or the card a path is inside
        own = _distance(rect, _along(anchor)) if isinstance(anchor, Track) else math.hypot(
            max(rect.left() - anchor.right(), anchor.left() - rect.right(), 0.0),
            max(rect.top() - anchor.bottom(), anchor.top() - rect.bottom(), 0.0))
        near = min([_distance(rect, points) for points in others] + [math.inf])
        if near < min(own - 1.0, BESIDE * r.label_scale):   # (the points lie 1 unit apart)
            out.append(where + (f"label {label!r} beside another edge, not its own arrow",
                                round(own / r.label_scale, 1), round(near / r.label_scale, 1)))
    out += _far_labels(r, step, seen, where)
    return out


def _visible(points, seen):
    """The points of `points` ((n, 2) array) that lie in `seen`."""
    return points[(points[:, 0] >= seen.left()) & (points[:, 0] <= seen.right())
                  & (points[:, 1] >= seen.top()) & (points[:, 1] <= seen.bottom())]


def _far_labels(r, step, seen, where):
    """Every arrow of the step shows in view (at least NEAR_ROWS label heights of it), and
    every label names its arrow at a glance: it lies within one label height of the part of
    its arrow in view (of its card, for a path inside a node), or a leader line runs from it
    to that part. BatchNorm's step 9 in presentation at 1280 x 800 put its label ~95 px
    above its arrow; lesson 14's step 14 in the window at 1280 x 800 a label ~45 px above
    any arrow in view, both of its paths leaving the view."""
    out = []
    for edge, track in r.step_tracks(step):
        points = _along(track)
        if len(_visible(points, seen)) < len(points):
            out.append(where + ("an arrow of the step leaves the view", r.doc.nodes[edge.src.node].label or edge.src.node,
                                r.doc.nodes[edge.dst.node].label or edge.dst.node))
    k = r.label_scale
    limit = PILL_H * k + 1.0            # (the points lie 1 unit apart)
    leaders = {label: line for label, line in r.pill_leaders(step)}
    for label, rect, anchor in r.placed_pills(step):
        if isinstance(anchor, Track):
            shown = _visible(_along(anchor), seen)
            if len(shown) < NEAR_ROWS * PILL_H * k:
                out.append(where + (f"the arrow of label {label!r} is hardly in view", len(shown)))
                continue
            gap = _distance(rect, shown)
        else:
            shown = _along(Track(xy=np.array([[anchor.left(), anchor.top()], [anchor.right(), anchor.top()],
                                              [anchor.right(), anchor.bottom()], [anchor.left(), anchor.bottom()],
                                              [anchor.left(), anchor.top()]])))
            gap = _distance(rect, _visible(shown, seen))
        if gap <= limit:
            continue
        line = leaders.get(label)
        if line is None:
            out.append(where + (f"label {label!r} far from its arrow, no leader",
                                round(gap / (PILL_H * k), 1)))
            continue
        start, end = np.array([[line.p1().x(), line.p1().y()]]), np.array([[line.p2().x(), line.p2().y()]])
        if _distance(rect.adjusted(-1, -1, 1, 1), start) > 0 or _distance(QRectF(line.p2(), line.p2()), shown) > 1.0 \
                or not seen.contains(line.p2()):
            out.append(where + (f"the leader of label {label!r} does not join it to its arrow",))
    return out


def _needless_cuts(r, step, seen, cards, zoom, where):
    """The cards the view's edge cuts where a pan of at most a quarter of the view, keeping
    in view all it shows of the step (its cards, its formula card, its arrows), shows them
    whole or not at all and cuts no other card (the tiny CNN's loss card, cut at the right in
    steps 5-8 at 1280 x 800, looked broken), nor more cards without their names (a card cut
    with its name in view still says what it is: `_nameless_cuts` comes first)."""
    kept = _kept(r, step, seen, cards)
    others = [card_rects.whole_card(r, n) for n in r.doc.nodes if n not in involved_nodes(r, step)]

    def cut(view):
        return settle.cut_cards(view, others)

    out, before, nameless = [], cut(seen), len(_nameless(r, seen, zoom))
    for card in settle.cut_cards(seen, others, by=2 * settle.CUT):   # (the view scrolls by whole pixels)
        moves = [(card.left() - seen.left(), 0), (card.right() - seen.right(), 0),
                 (card.right() - seen.left(), 0), (card.left() - seen.right(), 0),
                 (0, card.top() - seen.top()), (0, card.bottom() - seen.bottom()),
                 (0, card.bottom() - seen.top()), (0, card.top() - seen.bottom())]
        for dx, dy in moves:
            view = seen.translated(dx, dy)
            strict = view.adjusted(0.5, 0.5, -0.5, -0.5)     # the view itself, not `seen`'s slack
            if (abs(dx) <= seen.width() / 4 and abs(dy) <= seen.height() / 4
                    and all(strict.contains(rect) for rect in kept) and len(cut(view)) < len(before)
                    and len(_nameless(r, view, zoom)) <= nameless):
                name = next(r.doc.nodes[n].label or n for n in r.doc.nodes if card_rects.whole_card(r, n) == card)
                out.append(where + ("a card cut by the view's edge where a pan shows it whole or not at all",
                                    name, round(dx), round(dy)))
                break
    return out


def _nameless(r, seen, zoom):
    """The nodes whose cards the view `seen` cuts (by a pixel or more) with their names out of
    it (the header row up to the end of the title, `card_rects.name_rect`)."""
    px = 1.0 / zoom
    return [n for n in r.doc.nodes if settle.cut_cards(seen, [r.rect(n)], by=px)
            and not seen.adjusted(-px, -px, px, px).contains(card_rects.name_rect(r, n))]


def _kept(r, step, seen, cards, presenting=False):
    """What a pan of the view `seen` keeps in view: all it shows of the step (its cards
    `cards`, its formula card, its arrows; `presenting`: the cards the slide names and a seed
    slide's cards that feed its target too, which a slide shows with the step's)."""
    if presenting:
        cards = cards + [card_rects.whole_card(r, n) for n in framing_names.named_nodes(r, step)
                         + framing_names.seed_context(r, step)]
    kept = [card for card in cards if seen.contains(card)]
    formula = render_painter.formula_rect(r, step)
    pad = card_rects.ARROW_PAD
    return kept + [rect for rect in [formula] + [r.edge_path(e).boundingRect().adjusted(-pad, -pad, pad, pad)
                                                 for e in r._step_edges(step)]
                   if rect is not None and seen.contains(rect)]


def _nameless_cuts(r, step, seen, cards, zoom, where, presenting):
    """Every card partly in view shows its name there, or lies wholly out of view, where a pan
    keeping in view all it shows of the step (its cards, formula card and arrows) does that
    and leaves fewer cards cut without their names: a card cut by the view's edge with its
    name off screen is a box nobody can name (lesson 17's slides 1-2 at 1280 x 800 cut layer2
    at the top-left, its name off the top; 100 of 150 such cuts over the samples were one
    such pan away)."""
    before = _nameless(r, seen, zoom)
    if not before:
        return []
    kept = _kept(r, step, seen, cards, presenting)
    px = 1.0 / zoom
    out = []
    for n in before:
        body, name = r.rect(n), card_rects.name_rect(r, n)
        across = [0.0, name.left() - seen.left() - px, name.right() - seen.right() + px,
                  body.right() - seen.left() + 2 * px, body.left() - seen.right() - 2 * px]
        down = [0.0, name.top() - seen.top() - px, name.bottom() - seen.bottom() + px,
                body.bottom() - seen.top() + 2 * px, body.top() - seen.bottom() - 2 * px]
        for dx in across:
            view = None
            for dy in down:
                moved = seen.translated(dx, dy)
                strict = moved.adjusted(0.5, 0.5, -0.5, -0.5)
                if (dx or dy) and all(strict.contains(rect) for rect in kept) \
                        and n not in _nameless(r, moved, zoom) and len(_nameless(r, moved, zoom)) < len(before):
                    view = (round(dx), round(dy))
                    break
            if view is not None:
                out.append(where + ("a card cut by the view's edge, its name out of view, where a pan shows it",
                                    r.doc.nodes[n].label or n, *view))
                break
    return out


def _painted(c, rect):
    """The canvas's pixels over scene `rect` as they show (the scene and the widgets over
    it, in their order): an (h, w) array of 0xAARRGGBB. The walks paint nothing else
    (updates off, 3x faster), so updates are on for this grab alone."""
    window, port = c.window(), c.mapFromScene(rect).boundingRect()
    was = window.updatesEnabled()
    window.setUpdatesEnabled(True)
    image = c.grab(port.translated(c.viewport().pos())).toImage().convertToFormat(QImage.Format.Format_RGB32)
    window.setUpdatesEnabled(was)
    rows = np.frombuffer(image.constBits(), np.uint32, image.height() * image.bytesPerLine() // 4)
    return rows.reshape(image.height(), -1)[:, :image.width()]


def _rgb(argb):
    """0xAARRGGBB values as (..., 3) ints: red, green, blue."""
    argb = np.asarray(argb, np.int64)
    return np.stack([(argb >> 16) & 255, (argb >> 8) & 255, argb & 255], axis=-1)


def _unnamed_cuts(w, r, seen, zoom, where):
    """No card is cut by the view's edge without a name in view: each card cut with its own
    name out of view (`_nameless`) has its name pinned inside the view (app/player/pinned_names)
    over the part of it in view, as its header writes it, and it shows there: painted in its
    header's colour, with text, over the canvas (a plate listed but not painted, or painted
    under the view, names nothing). The tiny CNN's step 18 in presentation at 1280 x 800 and
    1920 x 1080 cut 'image x' at the top, its name off the top, where no pan keeping the
    step's cards in view showed it (30 such cuts over the samples)."""
    plates = {nid: (title, rect) for nid, title, rect in w.player.pinned.plates()}
    out = []
    for n in _nameless(r, seen, zoom):
        title, rect = plates.get(n, (None, None))
        shown = r.rect(n).intersected(seen)
        if title != r.cards[n].title_text or not seen.contains(rect) or not rect.intersects(shown):
            out.append(where + ("a card cut by the view's edge, no name of it in view", r.doc.nodes[n].label or n))
            continue
        inner = _rgb(_painted(w.canvas, rect)[2:-2, 2:-2])
        header = _rgb(QColor(r.theme.header.get(r.doc.nodes[n].kind, r.theme.header.get("op", "#1565c0"))).rgb())
        ink = _rgb(QColor(r.theme.header_text).rgb())
        fill = np.mean(np.all(inner == header, axis=-1))
        text = np.mean(np.abs(inner - ink).sum(axis=-1) < np.abs(inner - header).sum(axis=-1))  # (antialiased)
        if fill < 0.5 or text < 0.01:
            out.append(where + ("a cut card's pinned name does not show", r.doc.nodes[n].label or n,
                                round(float(fill), 2), round(float(text), 2)))
    return out

ROOM_GAIN = 1.1    # a slide whose picture would show this much larger in its view is framed too small
OFF_CENTRE = 0.1   # ... and one whose picture lies this far (share of the view) off its centre


def _room_left(c, r, step, seen, cap, where):
    """Presentation mode frames what a slide shows whole (the step's items and its arrows'
    labels in view, and every card whole in view) as large as its view allows (up to its zoom cap), the view's margins
    kept, and centred in the view where it shows all the step's items, unless the centred
    view cuts more cards and a slight pan (settle.SLIGHT of the view) moves it off centre.
    The seed slides of lesson 26 and attention at 1920 x 1080 left a third of the screen
    empty: the close-up's zoom was chosen before the pan that dropped a neighbour from the
    frame (what stayed could show 1.32 times larger), and attention's frame was centred on
    the whole graph's height (its top 36 % empty, its bottom 3 %). Lesson 17's seed slide
    at 1280 x 800 was panned half its view down to drop layer2 off the top (its graph in the
    top 260 pixels, 0.35 of the view off centre). `cap`: the step's zoom cap, the zoom its
    neighbours are framed at bounding it (steady_zoom)."""
    items = card_rects.step_items(r, step, full=True)     # the step's own card with its ring
    cards = [card_rects.whole_card(r, n) for n in r.doc.nodes]
    labels = [rect for _, rect in r.label_rects(step)]      # the arrows' labels as placed
    shown = [rect for rect in items + labels + cards if seen.contains(rect)]
    if not shown:
        return []
    picture = shown[0]
    for rect in shown[1:]:
        picture = picture.united(rect)
    port, zoom = c.viewport().rect(), c.transform().m11()
    larger = min(cap, framing.fit_zoom(picture, port.width() - 2 * framing.MARGIN,
                                       port.height() - 2 * framing.MARGIN))
    if larger > zoom * ROOM_GAIN + EPS:
        return [where + ("the slide's picture would show larger in its view", round(zoom, 2), round(larger, 2))]
    if not all(seen.contains(rect) for rect in items):
        return []
    dx, dy = picture.center().x() - seen.center().x(), picture.center().y() - seen.center().y()
    out = []
    for move, side in (((dx, 0), seen.width()), ((0, dy), seen.height())):
        if abs(sum(move)) > OFF_CENTRE * side:
            centred = seen.translated(*move)
            if len(settle.cut_cards(centred, cards)) <= len(settle.cut_cards(seen, cards)) \
                    or abs(sum(move)) > settle.SLIGHT * side:
                out.append(where + ("the slide's picture lies off the view's centre", round(sum(move) / side, 2)))
    return out


def _covered_arrows(r, step, formula, where):
    """The step's arrows that the formula card, docked by the player off its own place, lies
    over (the tiny CNN's conv → filters w in presentation at 1920 x 1080 docked its card
    over 46 % of the arrow into filters w)."""
    docked = r.__dict__.get("_docked")
    if docked is None or docked[0] is not step:
        return []
    out = []
    inside = formula.adjusted(1, 1, -1, -1)
    for edge, track in r.step_tracks(step):
        points = _along(track)
        under = (points[:, 0] > inside.left()) & (points[:, 0] < inside.right()) & \
            (points[:, 1] > inside.top()) & (points[:, 1] < inside.bottom())
        if under.any():
            out.append(where + ("the docked formula card covers the step's arrow",
                                r.doc.nodes[edge.src.node].label or edge.src.node,
                                r.doc.nodes[edge.dst.node].label or edge.dst.node, round(float(under.mean()), 2)))
    return out


def _fits(c, rects, px):
    """Do `rects` fit the view (its margins kept) with the cards' text `px` tall?"""
    picture = QRectF(rects[0])
    for rect in rects[1:]:
        picture = picture.united(rect)
    port = c.viewport().rect()
    room = (port.width() - 2 * framing.MARGIN, port.height() - 2 * framing.MARGIN)
    return framing.fit_zoom(picture, *room) >= framing.readable_zoom(c, px) - EPS


def _named_misses(w, r, step, where):
    """In presentation mode every card the step's caption band or its rule card names
    (framing_names.named_nodes: 'Here input is 'image x'', '∂y/∂x') lies whole in the view, the
    step's own card with its ring, and the view nowhere under the caption band: lesson 13's
    steps 3-9 at x = 1.5 named x and xx beside a view of y and t1.gradient(y, x) alone, the tiny
    CNN's step 17 cut 'image x' at the top, attention's steps 15 and 17 at 1920 x 1080 ran V's
    and K's ring into the band. Where they cannot all be shown with the step's cards and its
    rule card at SLIDE_PX, the view shows those (the checks above) and names each card left
    out at the view's edge, an arrow toward it (framing_slides.edge_markers)."""
    c = w.canvas
    out = []
    band = w.presentation.band
    port = c.viewport()
    shown = port.rect().translated(port.mapTo(w, port.rect().topLeft()))
    if shown.intersects(band.rect().translated(band.mapTo(w, band.rect().topLeft()))):
        out.append(where + ("the view lies under the caption band",))
    seen = c.mapToScene(port.rect()).boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    named = framing_names.named_nodes(r, step)
    cards = {n: card_rects.whole_card(r, n) for n in named}
    if step.node in cards:
        cards[step.node] = cards[step.node].united(card_rects.ringed_card(r, step.node))
    left_out = [n for n in named if not seen.contains(cards[n])]
    if not left_out:
        return out
    labels = [r.doc.nodes[n].label or n for n in left_out]
    if _fits(c, list(cards.values()) + card_rects.step_items(r, step), SLIDE_PX):
        out.append(where + ("a card the step names is not whole in view where all fit", *labels))
        return out
    markers = w.presentation.markers
    marked = {text for text, rect in markers.rects() if markers.isVisible()
              and markers.rect().contains(rect.toAlignedRect())}
    out += [where + ("a card the step names is out of view, no marker names it", label)
            for label in labels if not any(text.endswith(f" {label}") or text.startswith(f"{label} ")
                                           for text in marked)]
    return out


def misses(w, path, presenting, size, each_step=None):
    """What the framing of each step of the open sample gets wrong. `each_step(step)`, if
    given, is called at each step once it has settled, before the framing is checked: the
    checks of another test that walks the same steps (shared_walks.py)."""
    c, p = w.canvas, w.player
    out, zooms = [], []
    for k, step in enumerate(p.steps):
        if presenting:
            w.presentation.go(step.index)
        else:
            p.set_index(step.index)
        p.finish_animation()
        QCoreApplication.processEvents()
        if presenting:          # the band's new height, the view's resize, then its fit
            for _ in range(3):
                QCoreApplication.processEvents()
                while w.presentation._fit_pending:
                    QCoreApplication.processEvents()
        if each_step is not None:
            each_step(step)
        r = c.renderer          # the player lays out anew what Fit to Window folded
        zooms.append((step.index + 1, step.title, c.transform().m11()))
        if k == 0:
            out += _edges_over_names(r, path.stem)
        cards = card_rects.involved_cards(r, step)
        if not cards:
            continue
        where = (path.stem, step.index + 1, step.title)
        if presenting and c.viewport().height() + w.presentation.band.height() > w.height():
            out.append(where + ("the view reaches under the caption band",))
        seen = c.mapToScene(c.viewport().rect()).boundingRect()
        seen = seen.adjusted(-0.5, -0.5, 0.5, 0.5)     # the scroll bar's whole pixels
        px = framing.text_px(c)
        if px < READABLE_PX - EPS or px < c.readable_px - EPS:   # too small, or drawn compact
            out.append(where + ("cards not legible", round(px, 2), round(c.readable_px, 2)))
        if presenting and px < SLIDE_PX - EPS and _fits(c, card_rects.step_items(r, step), SLIDE_PX):
            out.append(where + ("a slide's cards under the slide's least size", round(px, 2)))
        if presenting:
            out += _named_misses(w, r, step, where)
        port = c.viewport().rect()
        nodes = QRectF(cards[0])
        for card in cards[1:]:
            nodes = nodes.united(card)
        # The layout keeps a step's cards near enough to read in one view (attention's out
        # and V, five columns apart in one row, were not), so every one of them is in view.
        if framing.fit_zoom(nodes, port.width() - 2 * framing.MARGIN,
                            port.height() - 2 * framing.MARGIN) < framing.readable_zoom(c, READABLE_PX) - EPS:
            out.append(where + ("the cards of the step are too far apart to read in one view",
                                round(nodes.width()), round(nodes.height())))
        # A slide shows its cards with their ports, its own card with its ring (attention's V
        # ran its ring under the caption band at 1920 x 1080).
        drawn = card_rects.involved_cards(r, step, full=True) if presenting else cards
        for card in drawn:
            if not seen.contains(card):
                out.append(where + ("a card of the step is out of view",))
        seed = r.seed_marks(step)      # the seed's arrow and its word, right of the target's card
        if seed is not None and not seen.contains(QRectF(seed[1], seed[0]).adjusted(0, -1, 0, 1).united(seed[2])):
            out.append(where + ("the seed's arrow or word is out of view",))
        out += _pan_misses(c, r, step, seen, where)
        if presenting:
            out += _room_left(c, r, step, seen, p.zoom_cap, where)
        out += _needless_cuts(r, step, seen, drawn, c.transform().m11(), where)
        out += _nameless_cuts(r, step, seen, drawn, c.transform().m11(), where, presenting)
        out += _unnamed_cuts(w, r, seen, c.transform().m11(), where)
        out += _label_misses(r, step, seen, where)
        formula = render_painter.formula_rect(r, step)
        if formula is None:
            continue
        if presenting and px < c.readable_px - EPS and _fits_stacked(nodes, r, step, port, c):
            out.append(where + ("shown under the back row's size where it fits", round(px, 2)))
        if px * r.formula_scale(step) < READABLE_PX - EPS:
            out.append(where + ("formula card not legible", round(px * r.formula_scale(step), 2)))
        if not seen.contains(formula):
            out.append(where + ("formula card not whole in view",))
        if presenting:
            out += _covered_arrows(r, step, formula, where)
        for card in cards:
            if formula.intersects(card_rects.name_strip(card)):
                out.append(where + ("formula card hides the name of a card of the step",))
        # No step's formula card lies over a card, nor its ports' names (attention's S → QKᵀ
        # in the window at 1280 x 800 lay over w_v's and V's values until the layout opened a
        # lane for it under the row above S).
        covered = [n for n in r.doc.nodes if formula.intersects(r.footprint(n))]
        if covered:
            out.append(where + ("formula card covers a card", *covered))
        involved = {step.node} | {n for e in r._step_edges(step) for n in (e.src.node, e.dst.node)}
        others = [card_rects.card_rect(r, n) for n in r.doc.nodes if n not in involved]
        hidden = [card for card in others if formula.intersects(card_rects.name_strip(card))]
        if hidden and _free_spot(seen, (formula.width(), formula.height()), others + cards,
                                 [card for card in cards if seen.intersects(card)]):
            out.append(where + ("formula card hides a name it could have left free",))
    return out + _zoom_jumps(path, zooms)


STEADY = 1.65    # the most a step's zoom differs from the one before it (a ratio)


def _zoom_jumps(path, zooms):
    """The camera does not pump in and out as a teacher steps on: each step's zoom is within
    STEADY of the step's before it (`zooms`: [(number, title, zoom)]). On main a Visit step
    (one card) zoomed to the cap between its edge steps: lesson 27 in presentation at 1920 x
    1080 went 1.59, 3.97, 1.8, 3.1, 2.37 ..., lesson 11's step 7 2.17 -> 3.56."""
    return [(path.stem, number, title, "the zoom jumps from the step before", round(before, 2), round(zoom, 2))
            for (_, _, before), (number, title, zoom) in zip(zooms, zooms[1:])
            if max(zoom, before) > STEADY * min(zoom, before)]
