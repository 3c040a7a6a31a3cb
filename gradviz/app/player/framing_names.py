"""The cards a slide shows besides its step's own: those its title, caption or rule card
name (`named_nodes`), and a seed's context, the cards that feed its target (`seed_context`)."""
import re

from ...story.formula_parts import operand_title


def card_texts(renderer, step):
    """What the step's rule card writes (its formula, rule, operands' names, words and the
    captions under its pictures): the words a reader looks for on the canvas."""
    layout = renderer.formula_layout(step)
    if layout.empty:
        return []
    out = [getattr(step, "formula", "") or ""]
    for part in layout.parts:
        if part[0] in ("text", "word"):
            out.append(part[1])
        elif part[0] == "array":
            out.append(operand_title(part) if len(part) > 3 else layout.caption_of(part[2]))
        elif part[0] == "picture" and part[2]:
            out.append(part[2])
    return out


def named_nodes(renderer, step):
    """The nodes whose names the step's title, caption (the presentation's caption band) or
    rule card writes, in the document's order: a reader who reads 'Here input is 'image x''
    or '∂y/∂x' looks for those cards. A name inside a longer one ('x' in 't1.gradient(y, x)',
    'out' in 'out[3]') is that one's, not its own. A target is not: every caption names it as
    what is differentiated ('how much the sum of loss's elements changes', '∂Σloss/∂x'), which
    needs no look at its card; a step about the target itself holds its card anyway."""
    nodes = renderer.doc.nodes
    targets = {p.node for p in renderer.doc.targets}
    names = {n: nodes[n].label or n for n in nodes}
    texts = [getattr(step, "title", "") or "", getattr(step, "caption", "") or ""] + card_texts(renderer, step)
    found = set()
    longest_first = sorted(names, key=lambda n: -len(names[n]))
    patterns = {}       # compiled once per step, for the names that occur in some text
    for text in texts:
        for n in longest_first:
            if names[n] not in text:    # (no match without the name itself: most names, most texts)
                continue
            pattern = patterns.get(n)
            if pattern is None:
                pattern = patterns[n] = re.compile(rf"(?<![A-Za-z_]){re.escape(names[n])}(?![A-Za-z0-9_])")
            text, count = pattern.subn(lambda m: "\0" * len(m.group()), text)   # not a shorter one's
            if count:
                found.add(n)
    return [n for n in nodes if n in found and n not in targets]


def seed_context(renderer, step):
    """The nodes that feed a seed's target: a seed slide shows where the target sits in the
    graph, and the next slides go there (lesson 26's seed slide showed loss alone at the zoom
    cap, its cotangent arrow from nowhere, a third of the screen empty); none for other steps."""
    if getattr(step, "kind", "") != "seed":
        return []
    nid = getattr(step, "node", None)
    return list(dict.fromkeys(e.src.node for e in renderer._drawn_edges() if e.dst.node == nid and e.src.node != nid))
