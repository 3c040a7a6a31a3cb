"""A step's frame as the player shows it (`slide_frame`): framed (framing_step), panned
(settle) and, in presentation mode, refitted (`_refit`); a slide with the cards its caption
names where they fit, else named at the view's edge (`edge_markers`), a seed slide with its
context (`_seed_slide`), and a slide that cuts cards with their names out of view framed
smaller to show them (`_uncut`)."""
from ...render.involved import involved_nodes
from ...render.legible import READABLE_PX
from .card_rects import whole_card
from .framing import MARGIN, MAX_ZOOM, fit_zoom
from .framing_dock import LEVEL_STEP
from .framing_names import named_nodes, seed_context
from .framing_step import step_frame
from .settle import frame_cuts, frame_shows, nameless_cuts, off_centre, seen_rect, settle, shown_whole


def slide_frame(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
                floor_px=READABLE_PX, rule_px=READABLE_PX):
    """(zoom, scene centre) `frame_step` frames `step` at, or None; the view's transform left
    as it is. In presentation mode (`fill`) a slide shows whole every card its caption
    or rule card names (`named_nodes`) where they fit with the step's, the cards' text down to
    `floor_px` (the back row's size gives way to them: the tiny CNN's step 17 named 'image x'
    and cut it at the top); those that do not are named at the view's edge
    (`view.edge_markers`), the slide framed for the step's own cards; a seed slide with the
    cards that feed its target (`_seed_slide`). rule_px: the least size of the formula card's
    text (presentation mode: larger than the cards' floor)."""
    view.label_bounds = None            # the labels as they would lie anywhere, while weighed
    named = named_nodes(renderer, step) if fill is not None else []
    involved = involved_nodes(renderer, step)
    extra = [n for n in named if n not in involved]
    tries = [(extra, floor_px)] if extra else []
    context = [n for n in seed_context(renderer, step) if n not in involved + extra] if fill is not None else []
    if context:
        tries.insert(0, (extra + context, readable_px))
    framed = None
    for nodes, least in tries:
        framed = _framed(view, renderer, step, readable_px, max_zoom, fill, least, nodes, rule_px)
        if framed is not None and frame_shows(view, renderer, step, framed, nodes):
            break
        framed = None
    if framed is not None and context and nodes == tries[0][0]:
        framed = _seed_slide(view, renderer, step, framed, extra, nodes, (readable_px, max_zoom, fill, floor_px, rule_px))
    if framed is None:      # the step's own cards, down to the legible size where they must
        framed = _framed(view, renderer, step, readable_px, max_zoom, fill, READABLE_PX, rule_px=rule_px)
    if framed is not None and fill is not None:
        framed = _uncut(view, renderer, step, framed, (readable_px, max_zoom, fill, rule_px))
    return framed


def _uncut(view, renderer, step, framed, how):
    """(zoom, centre) of a slide framed at `framed` that cuts cards with their names out of
    view (`nameless_cuts`: no pan the settle allows dropped them), framed smaller to show them
    whole with all it shows whole, where that leaves fewer such cuts: nets_1_conv_transpose's
    step 2 at 1920 x 1080, y alone and its rule card at 21 px, cut 'input image' at the top,
    its name out of view, where the whole graph shows at 16.2 px. Down to the rule card's
    least size (`rule_px`, one level under the back row's), not the slides' floor: the tiny
    CNN's step 7 at 1280 x 800 went from 14 px to 11.3 px to show one card whole (its name is
    pinned in view where it stays cut: pinned_names)."""
    cut = nameless_cuts(view, renderer, framed)
    if not cut:
        return framed
    readable_px, max_zoom, fill, rule_px = how
    seen = seen_rect(view, *framed).adjusted(-0.5, -0.5, 0.5, 0.5)
    involved = involved_nodes(renderer, step)
    shown = [n for n in renderer.doc.nodes if n not in involved and seen.contains(whole_card(renderer, n))]
    nodes = shown + cut
    docked = renderer.docked_formula()
    wider = _framed(view, renderer, step, readable_px, max_zoom, fill, rule_px, nodes, rule_px)
    if wider is not None and frame_shows(view, renderer, step, wider, nodes) \
            and len(nameless_cuts(view, renderer, wider)) < len(cut):
        return wider
    renderer.dock_formula(*(docked or (None, None)))     # (as the slide kept docked it)
    return framed


def _seed_slide(view, renderer, step, framed, extra, nodes, how):
    """(zoom, centre) of a seed slide framed with its context (`nodes`: `extra` and the
    cards that feed the target) at `framed`. Where that view cuts cards, the slide shows the
    whole graph, drawn a little smaller (nets_3_wrong_gradient at 1920 x 1080 kept t and cut
    w at the top, its name out of view); where the graph does not fit so, the slide without
    its context where that cuts fewer cards."""
    readable_px, max_zoom, fill, floor_px, rule_px = how
    cut = frame_cuts(view, renderer, step, framed, nodes)
    if not cut:
        return framed
    graph = nodes + [n for n in renderer.doc.nodes if n not in nodes and n != step.node]
    whole = _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px, graph, rule_px)
    if whole is not None and whole[0] >= framed[0] * LEVEL_STEP ** 2 \
            and frame_shows(view, renderer, step, whole, graph):
        return whole        # (two levels smaller at most: 001_higher_order's whole graph at 1920 x 1080
                            # put the seed's word out of view, and its next step zoomed in 2.1 times)
    bare = _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px if extra else READABLE_PX, extra, rule_px)
    if bare is not None and frame_shows(view, renderer, step, bare, extra) \
            and len(frame_cuts(view, renderer, step, bare, extra)) < len(cut):
        return bare
    # (framing docks the rule card: docked again for the slide kept)
    return _framed(view, renderer, step, readable_px, max_zoom, fill, readable_px, nodes, rule_px)


def _framed(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra=(), rule_px=READABLE_PX):
    """(zoom, centre) of `step` framed (with the nodes `extra`), settled and, in presentation
    mode, refitted; None without a graph."""
    full = fill is not None
    framed = step_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, extra, full, rule_px)
    if framed is None:
        return None
    zoom, centre, _ = framed
    centre = settle(view, renderer, step, zoom, centre, extra, full)
    if fill is not None:
        zoom, centre = _refit(view, renderer, step, zoom, centre, max(zoom, max_zoom), extra)
    return zoom, centre


def edge_markers(renderer, nids, seen):
    """[(name, (dx, dy))] of the cards of `nids` not whole in the view `seen` (scene): each
    card's name and the way toward it from the view's centre, for a marker at the view's
    edge (a slide that cannot show every card its caption names)."""
    out = []
    for n in nids:
        card = whole_card(renderer, n)
        if seen.adjusted(-0.5, -0.5, 0.5, 0.5).contains(card):
            continue
        d = card.center() - seen.center()
        out.append((renderer.doc.nodes[n].label or n, (d.x(), d.y())))
    return out


REFIT_GAIN = 1.1       # a slide's picture this much larger in its view is shown that large
WHOLE_GAIN = 1.05      # ... this much, where it is the whole graph, the step's items with it
OFF_CENTRE = 0.05      # ... and centred where its margins differ by more than this of the view
REFITS = 4             # ... zoomed and panned again at most this many times


def _refit(view, renderer, step, zoom, centre, cap, extra=()):
    """(zoom, centre) of a presentation slide framed at (`zoom`, `centre`) and settled: what it
    shows whole, shown as large as the view allows (up to `cap`), and centred where it shows
    all the step's items, then settled again, until that is stable. The frame's zoom and
    centre were chosen for more than the settle's pan kept in view: the seed slide of lesson
    26 at 1920 x 1080 left room for a neighbour that the pan then dropped, attention's was
    centred on the whole graph's height, and each left a third of the screen empty. A picture
    of the whole graph is shown larger where it fits WHOLE_GAIN larger (001_higher_order's step
    16 at 1920 x 1080, docked at the back row's size, fit 1.086 times larger); one of part of
    it only REFIT_GAIN larger: zoomed in, the pan drops more of what it cut (nets_1_conv_transpose's
    seed slide went from 1.95 to 2.53, three times zoomed in, next to a step at 1.43)."""
    port = view.viewport().rect()
    width, height = max(1.0, port.width() - 2 * MARGIN), max(1.0, port.height() - 2 * MARGIN)
    for _ in range(REFITS):
        picture, every = shown_whole(view, renderer, step, zoom, centre, extra)
        if picture is None:
            break
        larger = min(cap, fit_zoom(picture, width, height))
        shown = seen_rect(view, zoom, centre)
        seen = shown.adjusted(-0.5 / zoom, -0.5 / zoom, 0.5 / zoom, 0.5 / zoom)
        graph = every and all(seen.contains(whole_card(renderer, n)) for n in renderer.doc.nodes)
        if larger > zoom * (WHOLE_GAIN if graph else REFIT_GAIN):
            zoom = larger
        elif not every or off_centre(picture, shown) <= OFF_CENTRE:
            break
        moved = settle(view, renderer, step, zoom, picture.center(), extra, full=True)
        if moved == centre:
            break
        centre = moved
    return zoom, centre
