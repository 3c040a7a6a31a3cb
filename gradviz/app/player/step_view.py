"""Where the canvas looks while the player shows a story step.

The view of step k is a function of k and the viewport's size alone, never of the
steps shown before, so stepping back shows exactly what stepping forward showed. The
cards' smallest numbers are drawn `readable_px` tall (presentation mode asks more than the
window's `READABLE_PX`, for the back row).

The view shows the whole graph with the step's formula card when that fits at that zoom,
the card docked right, left or below the graph where that shows the step larger than the
card's own place beside its node (framing_step), and as large as `max_zoom` allows.
In presentation mode (`fill`), a graph that shown so covers little of the view (a chain as
wide as the screen and one card tall) is shown closer, the step's items spanning `fill` of
the view (framing_step's `_close_up`). Else it shows the step's cards (all of them, else its own) with the whole formula card,
docked where it hides none of their names (framing_dock), and every other card too where
the view holds them all with the card docked there: a step too large for the back row's
zoom is shown whole a little smaller, and its formula card may be drawn smaller than its
cards, but no text goes under `READABLE_PX`. Only when even that fails does the view, at the
readable zoom, show in order of priority: the active card and its formula card (from their
top-left corner if even they do not fit), the ports where the cotangent lands, the cards at
the other end of the animated edges; the rest is reached by scrolling. The view then pans
as little as it takes (`settle`) to show the step's arrows whole and to cut no other card in
half where a slightly different pan shows it whole or not at all.
In presentation mode a slide also shows whole every card its caption or rule card names
(framing_names), its cards' text down to the presentation's floor (11 px) for that; a named
card that even then does not fit is named at the view's edge with an arrow toward it
(framing_slides' `edge_markers`), never cut. A seed slide shows the cards that feed its target too
(`seed_context`) where they fit at the back row's size.
This module applies the frame to the view (`frame_step`) and starts the camera on the
cards a step's cotangent comes from (`pan_start`).
"""
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform

from ...render.legible import READABLE_PX
from .card_rects import card_rect
from .framing import MARGIN, MAX_ZOOM, spans_centre, text_px
from .framing_names import named_nodes
from .framing_slides import edge_markers, slide_frame
from .settle import seen_rect

LABEL_MARGIN = 2.0      # screen pixels between the view's edge and an arrow's label


def frame_step(view, renderer, step, readable_px=READABLE_PX, max_zoom=MAX_ZOOM, fill=None,
               floor_px=READABLE_PX, rule_px=READABLE_PX):
    """Zoom and scroll `view` to frame `step` (`slide_frame`); returns (zoom, scene centre),
    or None (nothing done)."""
    framed = slide_frame(view, renderer, step, readable_px, max_zoom, fill, floor_px, rule_px)
    if framed is None:
        view.edge_markers = []
        return None
    zoom, centre = framed
    named = named_nodes(renderer, step) if fill is not None else []
    view.edge_markers = edge_markers(renderer, named, seen_rect(view, zoom, centre))
    view.setTransform(QTransform.fromScale(zoom, zoom))
    look_at(view, centre)
    keep_labels_in_view(view)
    # A step too large for presentation mode's zoom is framed smaller, down to the legible
    # size: its cards still show their numbers there (the canvas draws compact below this).
    shown = text_px(view, zoom)
    view.set_readable_px(readable_px if shown >= readable_px - 1e-6 else shown * (1 - 1e-9))
    return zoom, centre


def senders(renderer, step):
    """The cards a step's cotangent comes from (a fan-in's consumers), where the view starts
    before it follows the arrows to the step's card; none when it starts at the step's card
    (a contribution's arrow leaves it)."""
    nid = getattr(step, "node", None)
    if nid not in renderer.doc.nodes:
        return []
    out = []
    for edge in renderer._step_edges(step):
        other = edge.dst.node
        if other != nid and other in renderer.doc.nodes and edge.src.node == nid:
            card = card_rect(renderer, other)
            if card not in out:
                out.append(card)
    return out


def pan_start(view, renderer, step, zoom, centre):
    """Where (scene centre) the view starts a step framed at (`zoom`, `centre`) whose
    senders that frame does not show: on the senders at the same zoom, from where the camera
    follows the cotangent to the step's card. None when the frame shows them all."""
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    seen.adjust(-1, -1, 1, 1)            # the scroll bars' whole pixels
    cards = senders(renderer, step)
    if all(seen.contains(card) for card in cards):
        return None
    width, height = (max(1.0, side - 2 * MARGIN) / zoom for side in (port.width(), port.height()))
    return QPointF(spans_centre([(c.left(), c.right()) for c in cards], width, port.width() / zoom),
                   spans_centre([(c.top(), c.bottom()) for c in cards], height, port.height() / zoom))


def keep_labels_in_view(view):
    """The step's arrow labels stay in the view as it is now (its scene rect, LABEL_MARGIN
    pixels in), where they can."""
    inset = LABEL_MARGIN / view.transform().m11()
    view.label_bounds = view.visible_rect().adjusted(inset, inset, -inset, -inset)


def look_at(view, centre):
    """Scroll `view` (at its zoom) to centre on `centre`, the scene grown to allow it."""
    zoom = view.transform().m11()
    port = view.viewport().rect()
    seen = QRectF(0, 0, port.width() / zoom, port.height() / zoom)
    seen.moveCenter(centre)
    scene_rect = view.sceneRect()
    if not scene_rect.contains(seen):
        view.setSceneRect(scene_rect.united(seen.adjusted(-200, -200, 200, 200)))
    view.centerOn(centre)
