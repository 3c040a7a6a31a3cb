"""What a step's leader lines cross: the rule card's to its port, each label's to its arrow."""
import math

from gradviz.render.spots import segment_meets_rect

TIP = 2.0      # the rule card's leader ends on its own card's edge, at the port: short of it by this


def leader_crossings(r, step):
    """[(what, what it crosses)] for the leaders of `step` drawn by renderer `r`: a text
    written outside the cards (a port's name, a badge, a problem under a card, another
    label); the rule card's leader a card too (its title bar, its corner: lesson 14's sum
    card's ran under layer's card to its output), its own but where it ends, at the port."""
    texts = [(rect, f"{n}'s port name {port}") for n in r.doc.nodes for rect, port, _ in r.port_labels(n)]
    texts += [(rect, f"{n}'s badge {b}") for n in r.doc.nodes for b, _, rect in r.badges(n)]
    texts += [(rect, "a problem under a card") for rect in r.problem_rects()]
    labels = r.label_rects(step)
    cards = [(r.rect(n).adjusted(1, 1, -1, -1), f"card {r.doc.nodes[n].label or n}") for n in r.doc.nodes]
    path = r.leader_path(step)
    leaders = []
    for i, (a, b) in enumerate(zip(path, path[1:])):
        if i == len(path) - 2:
            length = math.hypot(b.x() - a.x(), b.y() - a.y())
            b = b + (a - b) * (min(TIP, length) / length) if length else a
        leaders.append(("the rule card's leader", a, b, labels, cards))
    leaders += [(f"{text}'s leader", line.p1(), line.p2(), [l for l in labels if l[0] != text], [])
                for text, line in r.pill_leaders(step)]
    out = []
    for what, a, b, others, boxes in leaders:
        crossed = [name for rect, name in texts + [(rect, text) for text, rect in others] + boxes
                   if segment_meets_rect(a.x(), a.y(), b.x(), b.y(), *rect.getCoords())]
        out += [(what, name) for name in crossed]
    return out
