"""What test_fit_during_story's seed-card test and test_step_framing's just-opened test check
of a lesson just opened (their docstrings say what and why), in a module of its own: the
walk over the lessons just opened (shared_walks.opened_lessons) opens each once for both."""
from gradviz.render import painter as render_painter
from gradviz.render.legible import number_px

NEXT_TO_PX = 60.0   # on screen, between the seed's card and its target's card


def port_names_under(c, formula):
    """["node.port"] of the ports' names (matmul's a and b, a layer's kernel and bias) that
    the formula card hides on canvas `c` (a card drawn compact writes none), where it lies
    clear of the cards (else it had no place clear of them: lesson 35's 780 x 322 card at
    1280 x 800 fitted, which hides a card's name wherever it is, hides least over ports)."""
    r = c.renderer
    if number_px(c.transform().m11(), c.logicalDpiY()) < c.readable_px \
            or any(r.rect(n).intersects(formula) for n in r.doc.nodes):
        return []
    return [f"{n}.{name}" for n in r.doc.nodes for rect, name, _ in r.port_labels(n) if rect.intersects(formula)]


def seed_misses(w, stem):
    """The open lesson's step 1 docks its seed's card further than NEXT_TO_PX from the
    target's card, or over a port's name."""
    c, step = w.canvas, w.player.step
    if step is None:
        return []
    r = c.renderer
    formula, target = render_painter.formula_rect(r, step), r.rect(step.node)
    if formula is None:
        return []
    far = []
    gap = max(formula.left() - target.right(), target.left() - formula.right(),
              formula.top() - target.bottom(), target.top() - formula.bottom(), 0.0)
    if gap * c.transform().m11() > NEXT_TO_PX:
        far.append((stem, round(gap * c.transform().m11())))
    return far + [(stem, "covers", name) for name in port_names_under(c, formula)]


def _inside(seen, rect):
    """Does `seen` hold `rect`, a straight edge's bounds (no height) too?"""
    return (seen.left() <= rect.left() and rect.right() <= seen.right()
            and seen.top() <= rect.top() and rect.bottom() <= seen.bottom())


def view_misses(w, stem):
    """The cards (with their ports' names) and the edges' lines of the open lesson out of view."""
    c, r = w.canvas, w.canvas.renderer
    seen = c.visible_rect().adjusted(-0.5, -0.5, 0.5, 0.5)
    return ([(stem, "card out of view", r.doc.nodes[nid].title)
             for nid in r.doc.nodes if not seen.contains(r.footprint(nid))]
            + [(stem, "edge out of view", item.route_rect().getRect())
               for item in c.edge_items.values() if not _inside(seen, item.route_rect())])
