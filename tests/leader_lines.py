"""What a step's leader lines cross: the rule card's to its port, each label's to its arrow."""
import math

from gradviz.render.spots import segment_meets_rect

TIP = 2.0      # the rule card's leader ends on its own card's edge, at the port: its own card is
               # tested on the line short of the tip by this, all else on the whole line


def leader_crossings(r, step):
    """[(what, what it crosses)] for the leaders of `step` drawn by renderer `r`: a text
    written outside the cards (a port's name, a badge, a problem under a card, another
    label) and a card: the rule card's leader (its title bar, its corner: lesson 14's sum
    card's ran under layer's card to its output), its own but where it ends, at the port; a
    label's leader (lesson 13's 'from xx, input b' ran through xx's title to its arrow)."""
    texts = [(rect, f"{n}'s port name {port}") for n in r.doc.nodes for rect, port, _ in r.port_labels(n)]
    texts += [(rect, f"{n}'s badge {b}") for n in r.doc.nodes for b, _, rect in r.badges(n)]
    texts += [(rect, "a problem under a card") for rect in r.problem_rects()]
    labels = r.label_rects(step)
    shown = texts + [(rect, text) for text, rect in labels]
    cards = {n: (r.rect(n).adjusted(1, 1, -1, -1), f"card {r.doc.nodes[n].label or n}") for n in r.doc.nodes}
    others = [card for n, card in cards.items() if n != step.node]
    path = r.leader_path(step)
    lines = [("the rule card's leader", a, b, shown + list(cards.values())) for a, b in zip(path[:-2], path[1:-1])]
    if len(path) > 1:       # its last run: its own card up to TIP short of the tip, all else up to the tip
        a, b = path[-2], path[-1]
        length = math.hypot(b.x() - a.x(), b.y() - a.y())
        short = b + (a - b) * (min(TIP, length) / length) if length else a
        lines += [("the rule card's leader", a, b, shown + others)]
        lines += [("the rule card's leader", a, short, [cards[step.node]] if step.node in cards else [])]
    lines += [(f"{text}'s leader", line.p1(), line.p2(),
               texts + [(rect, t) for t, rect in labels if t != text] + list(cards.values()))
              for text, line in r.pill_leaders(step)]
    out = []
    for what, a, b, boxes in lines:
        out += [(what, name) for rect, name in boxes
                if segment_meets_rect(a.x(), a.y(), b.x(), b.y(), *rect.getCoords())]
    return out
