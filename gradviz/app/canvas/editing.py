"""The canvas' editing commands: add nodes, apply roles, copy / paste / duplicate, delete, layout.

Each is one controller call, so one undo step.
"""
import atexit
import copy

import numpy as np
import shiboken6
from PySide6.QtCore import QMimeData, QPointF, QRectF
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication

from ...graph import fileformat
from ...graph.document import CONSTANT, VARIABLE, Document, Port
from ...graph.names import file_ids
from ...graph.validate import validate
from ...render.cards import BADGE_H
from ...render import compact as compact_card
from ...render.compact import needed_height
from ...render import legible
from ...render import painter as render_painter
from ...render.layout import frames_as_well, layout as layout_positions
from .items import badge_reach, card_bounds, item_bounds, painted_bounds
from .renderer import ERROR_ROW, ERROR_TOP, ERROR_W, problem_lines
from .palette import palette_entries
from .quick_add import QuickAdd

NODES_MIME = "application/x-gradviz-nodes"
GRAB = QPointF(60.0, 20.0)          # where a new card is held: a little into its header
# A new card's room, as NodeItem bounds it (badge above, problems below): a Dense layer's
# is the widest (282 x 160 px) of the fresh cards, measured.
NEW_BOUNDS = QRectF(-8.0, -26.0, 282.0, 165.0)
PASTE_OFFSET = QPointF(40.0, 40.0)
SPACING = 24.0
SHOW_MARGIN = 24        # pixels kept between a card just added and the view's edge
BATCH = 4096            # free_spot's candidates tested at once
_on_clipboard = []                  # the QMimeData this process last put on the clipboard


def new_card_bounds(node, compact_at=None, dpi=96.0):
    """The bounds (about its top-left) of the card a fresh `node` gets, as its NodeItem
    bounds it: measured alone, with the problems it shows before it is connected (an op's
    unconnected input). A Tab-added exp is 200 x 112 px with its problem line, not the
    282 x 165 of the widest fresh card, so it fits the free space at the pointer.
    `compact_at`: (zoom, type scale) where the canvas draws cards compact: the card as
    tall as its compact form, its problems written on it (render.compact)."""
    doc = Document()
    doc.add(copy.deepcopy(node))
    renderer = render_painter.Renderer(doc)
    card, reach = renderer.cards[node.id], badge_reach(renderer, node.id)
    found = tuple(p for p in validate(doc) if p.node == node.id)
    problems = tuple(p.message for p in found)
    if compact_at is None:
        return card_bounds(card.width, card.height, len(problem_lines(found, card.width)), reach)
    zoom, scale = compact_at
    card = card.compacted(needed_height(card, doc.nodes[node.id], zoom, dpi, scale, frozenset(), problems))
    return item_bounds(card, doc.nodes[node.id], 0, compact_at, problems, reach)


def _put_on_clipboard(data):
    if not _on_clipboard:
        atexit.register(_take_back_clipboard)
    _on_clipboard[:] = [data]
    QApplication.clipboard().setMimeData(data)


def _take_back_clipboard():
    """Quitting with copied nodes on the clipboard crashed: Qt deleted the Python-made
    QMimeData after the interpreter was gone. While Python still runs, put the same text
    back through setText, whose QMimeData Qt makes itself (a clipboard manager keeps it
    after we quit; pasting nodes reads the text too). Data another program put there
    since has deleted ours, so theirs is left alone."""
    app = QApplication.instance()
    if app is not None and _on_clipboard and shiboken6.isValid(_on_clipboard[0]):
        app.clipboard().setText(_on_clipboard[0].text())
    _on_clipboard.clear()


def _nearest_free(rect, occupied, room, toward):
    """free_spot inside `room` (scene; anywhere when None, where a place beside the rightmost
    card always is): the free corner of least (reach, shift), None if `room` has none. The
    candidates are tested nearest first, a batch at a time against every card at once."""
    gap = SPACING / 2
    left, top, width, height = rect.left(), rect.top(), rect.width(), rect.height()
    cards = np.array([o.getCoords() for o in occupied], dtype=float).reshape(-1, 4)
    xs = [left, *(cards[:, 0] - gap - width), *(cards[:, 2] + gap)]
    ys = [top, *(cards[:, 1] - gap - height), *(cards[:, 3] + gap)]
    if toward is not None:
        xs += [toward.x() - width, toward.x()]
        ys += [toward.y() - height, toward.y()]
    xs, ys = np.unique(xs), np.unique(ys)
    if room is not None:
        if width > room.width() or height > room.height():
            return None
        xs = np.unique(np.clip(np.append(xs, [room.left(), room.right() - width]),
                               room.left(), room.right() - width))
        ys = np.unique(np.clip(np.append(ys, [room.top(), room.bottom() - height]),
                               room.top(), room.bottom() - height))
    x, y = (grid.ravel() for grid in np.meshgrid(xs, ys))
    reach = np.zeros_like(x)
    if toward is not None:
        px, py = toward.x(), toward.y()
        reach = np.hypot(np.maximum.reduce([x - px, px - x - width, np.zeros_like(x)]),
                         np.maximum.reduce([y - py, py - y - height, np.zeros_like(y)]))
    order = np.lexsort((np.hypot(x - left, y - top), reach))
    x, y = x[order], y[order]
    slack = 1e-6                      # a place exactly SPACING / 2 beside a card is free
    for start in range(0, len(x), BATCH):
        bx, by = x[start:start + BATCH], y[start:start + BATCH]
        covered = ((bx - gap + slack < cards[:, 2:3]) & (cards[:, 0:1] < bx + width + gap - slack)
                   & (by - gap + slack < cards[:, 3:4]) & (cards[:, 1:2] < by + height + gap - slack))
        free = ~covered.any(axis=0)
        if free.any():
            first = int(np.argmax(free))
            return QPointF(float(bx[first]), float(by[first]))
    return None


class CanvasEditing:
    """CanvasView's edit commands (a mixin: `self` is the CanvasView)."""

    def add_node_at(self, kind, op="", scene_pos=None):
        """Add a node from a palette entry at `scene_pos` (the view's centre when None), moved
        to the nearest free space so it covers no card. Role entries ('role', 'target' |
        'source' | 'output_gradients') act on the selection instead."""
        if kind == "role":
            return self.apply_role(op)
        pos = self.view_centre() if scene_pos is None else QPointF(scene_pos)
        pos = QPointF(round(pos.x()), round(pos.y()))   # the corner is stored whole: found whole
        c = self.controller
        variant = op if kind in (CONSTANT, VARIABLE) else ""
        node = c.make_node(kind, "" if variant else op)
        if variant == "watched":
            node.watched = True
        elif variant == "frozen":
            node.trainable = False
        compact_at = self._compact_at()
        bounds = new_card_bounds(node, compact_at, self.logicalDpiY())
        if compact_at is not None and not self.compact_layout:   # as drawn once zoomed in too (_taken)
            bounds = bounds.united(new_card_bounds(node))
        corner = self.place_card(bounds, pos, self._occupied() + self._story_marks())
        node.position = (round(corner.x()), round(corner.y()))
        ids = c.add_nodes([node], (), text=f"Add {node.title}")
        self.show_nodes(ids)
        return ids[0] if ids else None

    def show_nodes(self, ids):
        """Scroll so the cards of `ids` (just added) are in view."""
        rect = QRectF()
        for nid in ids:
            item = self.node_items.get(nid)
            if item is not None:
                rect = rect.united(item.sceneBoundingRect())
        if not rect.isEmpty():
            self._update_scene_rect()
            self.ensureVisible(rect, SHOW_MARGIN, SHOW_MARGIN)

    def place_card(self, bounds, pos, occupied):
        """The top-left corner for a card whose bounds about its top-left are `bounds`, held
        at scene point `pos` (GRAB into its header), where it covers nothing `occupied`: in
        view with show_nodes' margin if any place there is free (then nothing scrolls)."""
        zoom = self.transform().m11() or 1.0
        inset = SHOW_MARGIN + 1                   # (ensureVisible scrolls a card that ends on the margin)
        room = self.visible_rect().adjusted(*(d / zoom for d in (inset, inset, -inset, -inset)))
        return self.free_spot(bounds.translated(pos - GRAB), occupied, within=room, toward=pos) - bounds.topLeft()

    def _compact_at(self):
        """(zoom, type scale) where the canvas draws its cards compact, else None."""
        return (self.transform().m11() or 1.0, self.compact_scale()) if self.compact else None

    def _taken(self, nid, problems):
        """Card `nid`'s bounds about its top-left as it paints at this zoom (`painted_bounds`)
        and, drawn compact where the user placed the cards, as it paints zoomed in (the
        overview Fit lays out compact is laid out afresh for a zoom that reads)."""
        return painted_bounds(self.renderer.cards[nid], self.controller.doc.nodes[nid], problems.get(nid, ()),
                              self._compact_at(), in_full=not self.compact_layout,
                              badge_reach=badge_reach(self.renderer, nid))

    def _occupied(self, unplaced=()):
        """The scene bounds of every card but the `unplaced` ones as its NodeItem paints it
        (badges above, problems' lines under, a compact plate's overhang, `_taken`),
        measured from the renderer's cards: during a sync, a card that grew in the edit (its
        gradient appeared) counts at its new size before its item takes it."""
        r, doc = self.renderer, self.controller.doc
        problems = self.controller.result.node_problems or {}
        return [self._taken(nid, problems).translated(*r.positions[nid])
                for nid in r.cards if nid in doc.nodes and nid in r.positions and nid not in unplaced]

    def _story_marks(self):
        """What the story step shown writes over the graph (its formula card, its arrows'
        labels): a card added during a step lands off them, as off the cards."""
        overlay = self.step_overlay
        if overlay is None or overlay.step is None or overlay.is_stale(self.renderer.story):
            return []
        formula = render_painter.formula_rect(self.renderer, overlay.step)
        marks = self.step_marks(self.transform().m11())
        return marks[1:] + ([] if formula is None else [formula])

    def free_spot(self, rect, occupied=None, within=None, toward=None):
        """The top-left corner for `rect` (scene bounds of a card or a group of cards) where it
        keeps SPACING / 2 from every card: the one nearest `toward` (a scene point: the
        pointer a card was added at; 0 where the card covers it), then the one moved least
        from `rect`'s own corner. `within` (scene): inside it if any such place is (the
        view: a card added with Tab lands where the canvas shows it, and the canvas scrolls
        only when no place there is free). Exact, not sampled: along x the nearest free
        place has its left side at `rect`'s, at the pointer's reach (the pointer on the
        card's left or right side), at `within`'s sides or SPACING / 2 beside a card's side,
        and the same along y. Rings of 40-unit steps around the corner, nearest ring first,
        put a card 430 px from the pointer in the attention lesson where one 115 px away was free."""
        occupied = self._occupied() if occupied is None else occupied
        found = None if within is None else _nearest_free(rect, occupied, within, toward)
        return found if found is not None else _nearest_free(rect, occupied, None, toward)

    def apply_role(self, role):
        c = self.controller
        ids = [i for i in c.selection if i in c.doc.nodes]
        if not ids:
            c.message.emit("Select a node first, then choose "
                           f"'{ {'target': 'Mark as target', 'source': 'Mark as source'}.get(role, role)}'")
            return None
        ports = [Port(i, 0) for i in ids]
        if role in ("target", "source"):
            key = role + "s"
            current = list(getattr(c.doc, key))
            if all(p in current for p in ports):
                new = [p for p in current if p not in ports]
            else:
                new = current + [p for p in ports if p not in current]
            c.set_ports(key, new)
        elif role == "output_gradients":
            values = getattr(c.result.evaluation, "values", None) or {}

            def change(doc):
                for p in ports:
                    if p not in doc.targets:
                        doc.targets.append(p)
                    v = values.get(p)
                    doc.output_gradients[p] = np.ones(np.shape(v), getattr(v, "dtype", np.float32)) \
                        if v is not None else np.ones((), np.float32)
            c.edit("Set output_gradients", change)
        return None

    def quick_add(self, scene_pos=None):
        """Tab: a search box at the cursor; Enter adds the chosen entry there."""
        if scene_pos is None:
            local = self.viewport().mapFromGlobal(QCursor.pos())
            if not self.viewport().rect().contains(local):
                local = self.viewport().rect().center()
            scene_pos = self.mapToScene(local)
        if self._quick is None:
            self._quick = QuickAdd(self, palette_entries())
        self._quick.open_at(QPointF(scene_pos),
                            self.viewport().mapToGlobal(self.mapFromScene(scene_pos)))
        return self._quick

    # -- clipboard and deletion ---------------------------------------------------------
    def _selected_ids(self):
        return [i for i in self.controller.selection if i in self.controller.doc.nodes]

    def selection_text(self, ids=None):
        """The selected nodes (and the edges among them) as gradviz JSON text."""
        doc = self.controller.doc
        ids = self._selected_ids() if ids is None else ids
        sub = Document(title="clipboard")
        for nid in ids:
            node = copy.deepcopy(doc.nodes[nid])
            if node.position is None and nid in self.positions:
                node.position = self.positions[nid]
            sub.add(node)
        sub.edges = [e for e in doc.edges if e.src.node in sub.nodes and e.dst.node in sub.nodes]
        text = fileformat.dumps(sub)
        # The text names the nodes as a file does (W1, not the editor's w_1): which card each
        # came from, so that a paste of this text makes room for cards of their size.
        self._copied = text, {written: nid for nid, written in file_ids(sub).items()}
        return text

    def copy(self):
        ids = self._selected_ids()
        if not ids:
            return False
        text = self.selection_text(ids)
        data = QMimeData()
        data.setText(text)
        data.setData(NODES_MIME, text.encode())
        _put_on_clipboard(data)
        self._paste_count = 0
        self.controller.message.emit(f"Copied {len(ids)} node{'s' if len(ids) > 1 else ''}")
        return True

    def cut(self):
        if self.copy():
            self.delete_selected()

    def paste(self, text=None):
        """Paste nodes from the clipboard (or `text`): offset from where they were copied,
        moved as a group to free space so no copy hides a card."""
        if text is None:
            data = QApplication.clipboard().mimeData()
            if data is None:
                return []
            text = bytes(data.data(NODES_MIME)).decode() if data.hasFormat(NODES_MIME) else data.text()
        try:
            sub = fileformat.loads(text, strict=False)
        except Exception as e:  # noqa: BLE001 (anything else on the clipboard)
            self.controller.message.emit(
                f"Nothing to paste: the clipboard holds no gradviz nodes ({e})"[:200])
            return []
        if not sub.nodes:
            return []
        self._paste_count += 1
        centre = self.view_centre() - GRAB
        group = QRectF()
        copied_from = self._copied[1] if self._copied[0] == text else {}
        for nid, node in sub.nodes.items():
            x, y = node.position if node.position is not None else centre.toTuple()
            item = self.node_items.get(copied_from.get(nid))
            bounds = item.boundingRect() if item is not None and item.card else NEW_BOUNDS
            group = group.united(bounds.translated(x, y))
        wanted = group.translated(PASTE_OFFSET * self._paste_count)
        shift = self.free_spot(wanted) - group.topLeft()
        for node in sub.nodes.values():
            x, y = node.position if node.position is not None else centre.toTuple()
            node.position = (round(x + shift.x(), 1), round(y + shift.y(), 1))
        ids = self.controller.add_nodes(list(sub.nodes.values()), sub.edges, text="Paste")
        self.show_nodes(ids)
        return ids

    def duplicate(self):
        ids = self._selected_ids()
        if not ids:
            return []
        self._paste_count = 0
        return self.paste(self.selection_text(ids))

    def delete_selected(self):
        ids = self._selected_ids()
        edges = [e for e in self.selected_edges() if e in self.controller.doc.edges]
        if not ids and not edges:
            return

        def change(doc):
            for e in edges:
                if e in doc.edges:
                    doc.edges.remove(e)
            for nid in ids:
                if nid in doc.nodes:
                    doc.remove(nid)
        what = f"Delete {self.controller.name(ids[0])}" if len(ids) == 1 and not edges else (
            "Disconnect" if not ids and len(edges) == 1 else "Delete")
        self.controller.edit(what, change)
        self.controller.set_selection([])

    # -- layout -------------------------------------------------------------------------
    def _view_layout(self, doc, readable_px=None, overview=True, steps=None, compact=False, narrower=1.0):
        """The render layer's layout for this view: a long chain folds into rows where
        that lets its numbers read at the view's size (`readable_px`: the numbers' size, by
        default the canvas's). `overview` (Fit to Window): where no fold reads, one that
        shows it larger drawn compact; not for the player, whose steps show a card beside
        the one it sends to, not at the far end of the row above. `steps` (the player): the
        node ids each story step frames, their rule cards' sizes and the reach of the cards'
        port names (render.involved.step_groups), folded into rows where that frames more of them,
        with their rule cards, at the legible size. `compact`: the cards as tall as drawn
        compact (Fit's overview), with the plate of the name that stands out of a small one
        (the tiny CNN's title slide at 1440 x 900 drew 'labels (vertical)' over dense), else as
        measured in full. `narrower`: the room that
        share of the view's (Fit leaves room for what stands out of the cards), its columns
        closer where they are too wide for it (render.layout's `tight`)."""
        px = readable_px or self.readable_px
        sizes = self._layout_sizes(compact)
        plates = self._plates() if compact else {}
        for nid, (side, down) in plates.items():
            sizes[nid] = (sizes[nid][0] + 2 * side, sizes[nid][1] + down)
        framing = None if steps is None else (steps[0], self.layout_room(legible.READABLE_PX), *steps[1:])
        room = tuple(side * narrower for side in self.layout_room(px))
        # (presentation mode draws the arrows' labels at the back row's size, larger than the
        # cards' scale at every zoom a step that needs room is framed at: they lie under or
        # over their arrows, and a gap widened for them drew the slide's cards smaller)
        positions = layout_positions(doc, sizes, self.renderer.label_room(pills=self.compact_scale() <= 1.0), room=room,
                                     shrink=overview and px <= legible.READABLE_PX,   # not in slides
                                     steps=framing, tight=narrower < 1.0)
        for nid, (side, _) in plates.items():     # the card within the room its plate takes
            x, y = positions[nid]
            positions[nid] = (x + side, y)
        return positions

    def _plates(self):
        """{node: (sideways, downwards)} by which the plate of a compact card's name stands
        out of it, drawn as tall as at the zoom `shorten_compact` was given (render.compact)."""
        if self.shortened_at is None:
            return {}
        zoom, _, scale = self.shortened_at
        r, dpi = self.renderer, self.logicalDpiY()
        return {nid: compact_card.overhang(r.cards[nid], node, zoom, dpi, scale, self.compact_texts(nid))
                for nid, node in r.doc.nodes.items() if nid in r.cards}

    def _layout_sizes(self, compact=False):
        """{node: (width, height)} the layout keeps apart: the cards as measured (or as drawn
        `compact`, their problems written on them), a full card with the lines of its
        problems under it (the 11-node MLP fitted in full at 1440 x 900 laid b2 over
        matmul_1's shape mismatch)."""
        sizes = self.renderer.sizes(compact)
        if compact:
            return sizes
        for nid, item in self.node_items.items():
            under = item.problems_under(full=True)
            if under and nid in sizes:
                w, h = sizes[nid]
                sizes[nid] = (max(w, ERROR_W), h + ERROR_TOP + ERROR_ROW * len(under))
        return sizes

    def reading_positions(self):
        """{node: (x, y)} where the cards stand drawn in full: the canvas's, or where they
        were laid out as tall as drawn compact (Fit's overview), the layout to read them
        (an export draws every card in full)."""
        if self.compact_layout:
            return self._view_layout(self.controller.doc)
        return dict(self.positions)

    def relayout_unplaced(self, readable_px=None, overview=True, steps=None, compact=False, narrower=1.0,
                          keep=True):
        """Lay out again for the view's present size (`_view_layout`) a document whose nodes
        the canvas placed (none is the user's: the first drag places them all), so a window
        that opened small or was resized fits it as well as it can. Never an undo entry: the
        document holds no position to change. `compact`: for the cards as drawn compact
        (Fit's overview); else the cards are drawn in full from here on (the player frames
        its steps at a zoom that reads). `narrower`: laid out for that share of the room.
        `steps` (the player, `_view_layout`): in the window, cards shown in full stay where
        they are while they serve the story as well (render.layout.frames_as_well), so that
        they do not rearrange between step 1, shown as opened, and step 2; not with `keep`
        False (Fit weighing the player's layout against its own)."""
        if not compact:
            self.shorten_compact(None)
        doc = self.controller.doc
        if not doc.nodes or any(n.position is not None for n in doc.nodes.values()):
            return
        was_compact, self.compact_layout = self.compact_layout, compact
        if self._dirty:     # an edit the scene has not caught up with (Auto Layout's, a redo)
            self.sync()
        positions = self._view_layout(doc, readable_px, overview, steps, compact, narrower)
        if all(self.positions.get(nid) == positions[nid] for nid in doc.nodes):
            return
        # A story in the window (not for presentation mode's larger type, whose layout is for
        # the back row): the cards shown in full stay where they are if they serve it as well.
        if keep and steps is not None and not was_compact and (readable_px or self.readable_px) <= legible.READABLE_PX \
                and frames_as_well(doc, self.renderer.sizes(), self.positions, positions,
                                   (steps[0], self.layout_room(legible.READABLE_PX), *steps[1:])):
            return
        self.positions.update(positions)
        self.sync(full=False, new_document=False)

    def offer_layout(self):
        """After a fit that drew the cards compact: where Auto Layout would lay the user's
        own arrangement out to read at this size, the status bar says so (it is theirs to
        choose: Fit to Window never moves what they placed)."""
        doc = self.controller.doc
        if not doc.nodes or any(n.position is None for n in doc.nodes.values()):
            return
        positions, cards = self._view_layout(doc), self.renderer.cards
        boxes = [(x, y - BADGE_H - 4, x + cards[n].width, y + cards[n].height) for n, (x, y) in positions.items()]
        width, height = self.layout_room()
        if max(b[2] for b in boxes) - min(b[0] for b in boxes) <= width \
                and max(b[3] for b in boxes) - min(b[1] for b in boxes) <= height + BADGE_H + 4:
            self.controller.message.emit("The cards are drawn compact to fit the window: Auto Layout "
                                         "(Ctrl+L) arranges them to read at this size; Undo restores yours")

    def auto_layout(self):
        """The layout a sample gets on opening, for the user's own arrangement too: the
        document gives its positions up (one undoable edit; Undo restores them) and the
        canvas lays it out as it lays out every unplaced document, for the view's size and,
        while a story plays, so that each step's cards are framed together (`_view_layout`,
        the one layout function). Nothing moves of its own accord after a later drag."""
        doc = self.controller.doc
        if not doc.nodes:
            return

        def unplace(doc):
            for node in doc.nodes.values():
                node.position = None
        if any(n.position is not None for n in doc.nodes.values()):
            self.controller.edit("Auto Layout", unplace)
            self.controller.message.emit("Auto Layout: laid out for this window as the canvas lays out "
                                         "a sample; Undo restores your arrangement")
        self.fit()
