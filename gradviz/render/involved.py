"""The nodes a story step is about, and what a layout keeps near enough to show them
together: the player frames its steps with them (app/player), a slide export too
(animation). Plain functions of a Renderer, so that both lay a graph out alike."""
from __future__ import annotations


def involved_nodes(renderer, step):
    """The nodes a step is about: its own and those at the other end of its edges."""
    nid = getattr(step, "node", None)
    if nid not in renderer.doc.nodes:
        return []
    nodes = [nid]
    for edge in renderer._step_edges(step):
        other = edge.src.node if edge.dst.node == nid else edge.dst.node
        if other in renderer.doc.nodes and other != nid:
            nodes.append(other)
    return nodes


def step_groups(renderer, steps):
    """([nodes], {nodes: (w, h)}, {node: (left, right)}): the nodes of each step that shows
    more than one card, what a layout for the player keeps near enough to frame together;
    the room their rule card takes beside them (the largest of their steps'); how far each
    card's port names stand out of it."""
    cards = {}
    for step in steps:
        group = tuple(sorted(set(involved_nodes(renderer, step))))
        if len(group) < 2:
            continue
        layout = renderer.formula_layout(step)
        w, h = cards.get(group, (0.0, 0.0))
        cards[group] = (w, h) if layout.empty else (max(w, layout.width), max(h, layout.height))
    reach = {}
    for nid in renderer.doc.nodes:
        if nid in renderer.positions:
            card, whole = renderer.rect(nid), renderer.footprint(nid)
            reach[nid] = (card.left() - whole.left(), whole.right() - card.right())
    return sorted(cards), {group: size for group, size in cards.items() if size != (0.0, 0.0)}, reach
