"""Turn a Recorder's raw events into the story's steps, named through a Naming."""
import functools

import numpy as np

from ..graph.names import inner_product, objective_sum
from ..graph.operands import _word_pattern, input_word, rename, rule_operands
from ..graph.tensors import dims
from . import dead_units
from .derived import derived
from .model import Step, Story
from .rule_sums import broadcast_sum, per_row


def _times(n):
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


@functools.lru_cache(maxsize=1024)
def mentioned(formula, name):
    """Whether the right-hand side of `formula` uses operand `name` as a word."""
    rhs = formula.split("=", 1)[-1] if formula else ""
    return _word_pattern((name,)).search(rhs) is not None


def _says_kind(name, op_name):
    """Does `name` already say what op it is: 'matmul', "layer6's matmul", "the multiply
    for ∂y/∂x inside t1.gradient(y, x)"?"""
    return name == op_name or name.endswith(f"'s {op_name}") or name.startswith(f"the {op_name} ")


def _sentence(caption):
    """A caption that opens with a described tensor ('the relu grad inside … receives …')
    starts with a capital, as a sentence; one that opens with the user's name keeps its case."""
    if caption and caption.startswith(("the ", "a ", "an ")):
        return caption[0].upper() + caption[1:]
    return caption


def _kind(name, op_name):
    """'lookup (nn.embedding_lookup)'; a node or part named as its op is named once:
    'matmul', "layer6's matmul"; an op inside a node says its kind before the node's name,
    not after it, where it would read as that node's: '∂y/∂x via xx (input b), a multiply
    inside t1.gradient(y, x),'."""
    if _says_kind(name, op_name):
        return name
    if " inside " in name:
        own, where = name.split(" inside ", 1)
        return f"{own}, {_a(op_name)} inside {where},"
    return f"{name} ({op_name})"


def _a(word):
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _uses(steps, sources, name, naming):
    """'x is used twice (both inputs of x_sq, a multiply)': the fan-in's paths in words."""
    by_op, order, seeds = {}, [], 0
    for i in sources:
        s = steps[i]
        if s.kind == "seed":
            seeds += 1
            continue
        key = naming.op_label(s._op) if s._op is not None else s.title.split(" → ")[0]   # whole, not the title's short name
        if key not in by_op:
            order.append(key)
            by_op[key] = (naming.op_name(s._op) if s._op is not None else s.op_type, [],
                          len(s._op.inputs) if s._op is not None else 0)
        by_op[key][1].append(s._slot)
    parts = []
    for key in order:
        op_type, slots, n_inputs = by_op[key]
        if len(slots) == 1:
            parts.append(f"by {key}")
        elif len(slots) == n_inputs:
            both = "both inputs" if n_inputs == 2 else "all inputs"
            parts.append(f"{both} of {key}" + ("" if _says_kind(key, op_type) else f", {_a(op_type)}"))
        else:
            parts.append(f"inputs {', '.join(slots)} of {key}"
                         + ("" if _says_kind(key, op_type) else f", {_a(op_type)}"))
    if seeds:
        parts.append("as a target, through its seed")
    n = len(sources)
    return f"{name} is used {_times(n)} ({'; '.join(parts)})"


def bindings(formula, names, labels, k, said=True):
    """"y is 'layer's matmul'" for each operand the rule mentions by a letter (input k's
    only when the sentence has not `said` which node it is)."""
    groups = {}
    for i, (n, lab) in enumerate(zip(names, labels)):
        if i == k and not said and n != lab:
            groups.setdefault(lab, []).append(n)
        elif i != k and n != lab and n != names[k] and mentioned(formula, n):
            groups.setdefault(lab, []).append(n)
    parts = []
    for lab, ns in groups.items():
        if len(ns) == 1:
            parts.append(f"{ns[0]} is '{lab}'")
        else:
            parts.append(f"{' and '.join(ns)} are both '{lab}'" if len(ns) == 2
                         else f"{', '.join(ns)} are all '{lab}'")
    return " and ".join(parts)


def assemble(events, naming, title="", unconnected_zero=False, extra_cuts=()):
    steps = []
    final = {}
    providers = {}   # tensor id -> step indices whose arrays were summed into it, in order
    last_visit = {}  # op id -> visit step
    gradients = {}
    known = {}       # op id -> (rule operand names, reader's names of its inputs)
    off_tape = set()  # ids of sources the tape never watched nor made

    shown = naming.shown_names()   # every step's card writes its captions around these

    def add(step, tensor=None):
        step.caption = _sentence(step.caption)
        step.index = len(steps)
        step._tensor = tensor
        step.shown_names = shown
        if tensor is not None and not step.tensor_name:
            step.tensor_name = naming.label(tensor)
        steps.append(step)
        return step

    def where(tensor):
        port = naming.port_of(tensor)
        return port, port is None

    def key_of(port, tensor):
        return port if port is not None else ("tensor", tensor._id)

    seeds = []   # (target's name, how it was seeded): what every cotangent is a derivative of
    for ev in events:
        if ev.kind == "seed":
            port, internal = where(ev.tensor)
            name = naming.label(ev.tensor)
            seeds.append((name, "given" if ev.given else "scalar" if np.ndim(ev.cotangent) == 0
                          else "sum"))
            n = int(np.size(ev.cotangent))
            if ev.given:
                caption = (f"The backward pass starts at {name} with the output_gradients v you "
                           f"gave (shape {dims(np.shape(ev.cotangent))}): every step below computes a "
                           f"vector-Jacobian product vᵀJ with this v, the gradient of "
                           f"{inner_product('v', name)} = Σ v·{name}, not of the sum of "
                           f"{name}'s elements.")
            elif np.ndim(ev.cotangent) == 0:
                caption = (f"The backward pass starts at {name} with the cotangent 1 "
                           f"(∂{name}/∂{name} = 1). {name} is a scalar, so the sum over its "
                           f"elements that tape.gradient differentiates is {name} itself.")
            elif n == 1:
                caption = (f"The backward pass starts at {name}, seeded with 1: {name} holds one "
                           f"element (shape {dims(np.shape(ev.cotangent))}), and the sum of the target's "
                           f"elements that tape.gradient differentiates is that element, so "
                           f"∂(Σ {name})/∂{name}[0] = 1.")
            else:
                caption = (f"The backward pass starts at {name} with ones over its {n} elements "
                           f"({dims(np.shape(ev.cotangent))}). tape.gradient "
                           f"differentiates the sum of the target's elements: ∂(Σ {name})/∂{name}[i] = 1 "
                           f"for every i. This is where the sum over the elements of {name} happens.")
            s = add(Step(0, "seed", naming.owner(ev.tensor), port, f"Seed {name}", caption,
                         cotangent=ev.cotangent, given=ev.given, internal=internal), ev.tensor)
            providers.setdefault(ev.tensor._id, []).append(s.index)
            final[key_of(port, ev.tensor)] = s.index
        elif ev.kind == "visit":
            op = ev.op
            port, internal = where(op.outputs[0])
            name = naming.op_label(op)
            s = add(Step(0, "visit", naming.node_of(op), port, naming.step_title(f"Visit {name}", name),
                         f"{_kind(name, naming.op_name(op))} receives the upstream cotangent of its output: "
                         f"how much {_objective(seeds)} changes per unit change of each output "
                         f"element.",
                         cotangent=ev.cotangent, upstream=ev.upstream, op_type=op.type,
                         internal=internal, tensor_name=naming.label(op.outputs[0])))
            s._op = op
            last_visit[id(op)] = s
        elif ev.kind == "contribution":
            s = add(_contribution(ev, naming, last_visit.get(id(ev.op)), where, known),
                    ev.op.inputs[ev.index])
            tensor = ev.op.inputs[ev.index]
            providers.setdefault(tensor._id, []).append(s.index)
            final[key_of(s.port, tensor)] = s.index
        elif ev.kind == "fan_in":
            port, internal = where(ev.tensor)
            name = naming.label(ev.tensor)
            sources = providers.get(ev.tensor._id, [])[-len(ev.contributions):]
            labels = [steps[i].title if steps[i].kind != "seed" else "seed" for i in sources]
            labels += ["?"] * (len(ev.contributions) - len(labels))
            paths = [steps[i]._path if steps[i].kind != "seed" else "the seed" for i in sources]
            paths += [f"path {k + 1}" for k in range(len(paths), len(ev.contributions))]
            s = add(Step(0, "fan_in", naming.owner(ev.tensor), port,
                         naming.step_title(f"Fan-in at {name}", name),
                         f"{_uses(steps, sources, name, naming)}: its cotangent is the sum of the "
                         f"{len(ev.contributions)} contributions.",
                         cotangent=ev.cotangent, terms=list(zip(labels, ev.contributions)),
                         contributions=ev.contributions, paths=paths, total=ev.cotangent,
                         internal=internal),
                    ev.tensor)
            s._sources = sources
            final[key_of(port, ev.tensor)] = s.index
        elif ev.kind == "cut":
            op, k = ev.op, ev.index
            tensor = op.inputs[k]
            port, internal = where(tensor)
            name = naming.op_label(op)
            s = add(Step(0, "cut", naming.node_of(op), port, f"Cut: {name} passes no gradient to {naming.label(tensor)}",
                         f"{_kind(name, naming.op_name(op))} stops gradients: "
                         f"{input_word(op, k, naming, 'its input')} ({naming.label(tensor)}) "
                         f"gets no contribution through this edge.",
                         input_index=k, op_type=op.type, internal=internal), tensor)
            s._op = op
        elif ev.kind == "off_tape":
            off_tape.add(ev.tensor._id)
        elif ev.kind == "accumulate":
            if not any(st.kind == "accumulate" or st.kind == "unconnected" for st in steps):
                for node, port, caption in extra_cuts:
                    add(Step(0, "cut", node, port, f"Cut: {naming.title(node)} not recorded",
                             caption))
            port, internal = where(ev.tensor)
            name = naming.label(ev.tensor)
            key = key_of(port, ev.tensor)
            owner = naming.owner(ev.tensor)
            if ev.cotangent is None:
                zeros = np.zeros(ev.tensor._value.shape, ev.tensor._value.dtype)
                what = "zeros" if unconnected_zero else "None"
                cut = naming.why_none(ev.tensor)
                if cut and ev.tensor._id in off_tape:   # unwatched because of the cut
                    heading, why = (f"{name}'s paths are cut",
                                    f"{cut[0].upper()}{cut[1:]}, and so the tape never watched "
                                    f"{name} either (a Variable is watched when a recorded op "
                                    f"reads it): its gradient is {what}")
                elif ev.tensor._id in off_tape:
                    heading, why = (f"{name} is not watched",
                                  f"{name} is on no tape: the tape never watched it (tape.watch, "
                                  f"or a trainable Variable read while the tape records, unless "
                                  f"watch_accessed_variables=False) and no op it recorded made "
                                  f"it (a stop_gradient output never counts), so the tape keeps "
                                  f"no gradient for it, even where a recorded op read it: its "
                                  f"gradient is {what}")
                elif cut:   # joined on the canvas, cut on every path
                    heading, why = (f"{name}'s paths are cut",
                                    f"{cut[0].upper()}{cut[1:]}: its gradient is {what}")
                else:
                    heading, why = (f"{name} is unconnected",
                                  f"No path of recorded ops leads from the target to {name}: "
                                  f"its gradient is {what}")
                add(Step(0, "unconnected", owner, port, heading,
                         why + ("" if unconnected_zero else
                                " (unconnected_gradients='zero' gives zeros)") + ".",
                         cotangent=zeros if unconnected_zero else None,
                         total=zeros if unconnected_zero else None, internal=internal), ev.tensor)
                gradients[key] = zeros if unconnected_zero else None
                continue
            add(Step(0, "accumulate", owner, port, f"Gradient of {name}",
                     f"All paths have arrived: this is the gradient for source {name}, "
                     f"what tape.gradient returns.",
                     cotangent=ev.cotangent, total=ev.cotangent, internal=internal), ev.tensor)
            gradients[key] = ev.cotangent
    return Story(steps=steps, title=title, gradients=gradients, _final=final, naming=naming)


def _objective(seeds):
    """What the backward pass differentiates, in words: 'the target loss', 'the sum of y's
    elements', '❬v, y❭ (the output_gradients v times y, summed)', or several added
    ('(Σa + ❬v2, b❭), the targets' terms added'), written as the cards write it."""
    if len(seeds) != 1:
        return f"{objective_sum([(None, *s) for s in seeds])}, the targets' terms added" \
            if seeds else "the target"
    name, how = seeds[0]
    if how == "given":
        return f"{inner_product('v', name)} (the output_gradients v times {name}, summed)"
    return f"the target {name}" if how == "scalar" else f"the sum of {name}'s elements"


# The most characters of a product a contribution's caption writes out ('∂y/∂xx · x'): lesson
# 14's '∂out/∂y_sq (a constant) · the multiply in y_sq's rule' (52) made its step 11's caption
# 283 characters, more than the player's two lines hold at 1280 px (test_player_view).
PRODUCT_CHARS = 40


def _rule_of(op, naming):
    """Whose rule a contribution applies: the op's name ('matmul'), and where the node's
    card says another word, which op of the node it is ('matmul, the op that ends
    t1.gradient(out, x)', not 'gradient': its rule is the matmul's); inside a 'gradient'
    node, which product it is ('multiply, here ∂y/∂x via xx (input b) = ∂y/∂xx
    · x,'), since the canvas shows none of them."""
    kind, rule = naming.op_name(op), naming.rule_name(op)
    if rule != kind:
        return f"{rule}, the op that ends {naming.op_label(op)},"
    # an op inside a 'gradient' node: which of its products, in the names of its factors
    product = getattr(naming, "product", lambda op: "")(op)
    if product and len(product) <= PRODUCT_CHARS:
        here = naming.op_label(op).rsplit(" inside ", 1)[0]
        return f"{rule}, here {here} = {product},"
    return rule


def _contribution(ev, naming, visit, where, known):
    op, k = ev.op, ev.index
    tensor = op.inputs[k]
    port, internal = where(tensor)
    if id(op) not in known:  # an op's names serve all its inputs' steps
        known[id(op)] = rule_operands(op, naming)
    names, labels, renamed = known[id(op)]
    grad = None
    if visit is not None:
        grad = visit.upstream[0] if len(visit.upstream) == 1 else visit.upstream
    operands = {"grad": grad}
    operands.update({n: np.asarray(v) for n, v in zip(names, [*op._in_values, *op._out_values])})
    own = naming.formula(op, k)
    lhs = own.split("=", 1)[0].strip()[5:] if own and own.startswith("grad_") else ""
    if lhs and lhs not in renamed and lhs != names[k]:
        # a rule text all inputs share (concat's 'grad_x = the matching slice of grad'):
        # its letter is this input's
        renamed = {**renamed, lhs: names[k]}
    out_shape = np.shape(op._out_values[0]) if op._out_values else ()
    # the sums the rule's text leaves unsaid at these shapes: a broadcast input's, softmax's per row
    said = broadcast_sum(per_row(own, op.type, out_shape).renamed(renamed), out_shape,
                         np.shape(op._in_values[k]), ev.summed_from)
    formula = said.text
    described = {}     # the rule's other values (BatchNorm's σ, x̂), for the card's where line
    for symbol, (words, value) in derived(op, grad).items():
        shown_symbol = rename(symbol, renamed)
        if formula and mentioned(formula, shown_symbol):
            operands[shown_symbol] = value
            described[shown_symbol] = rename(words, renamed)
    target = labels[k]
    op_name = naming.op_label(op)
    repeated = sum(t is tensor for t in op.inputs) > 1
    inside = op_name.split("/", 1)[0] + "/"
    shown = target[len(inside):] if "/" in op_name and "∂" not in op_name and target.startswith(inside) \
        else target
    slot = input_word(op, k, naming)
    title = naming.step_title(f"{op_name} → {shown}" + (f" ({slot})" if repeated else ""),
                              op_name, shown)
    path = f"from {op_name}" + (f", {slot}" if repeated else "")
    rule = naming.rule(op)
    what = (f"The custom gradient rule of {op_name} (declared in the document, not code)" if rule
            else f"Local rule of {_rule_of(op, naming)}")
    if formula:
        # In the reader's names where they fit (grad_x = grad · x); else the rule's letter,
        # said which node it is.
        here = bindings(formula, names, labels, k, said=names[k] != "input")
        intro = ("" if names[k] == "input" else f" {target}"   # not "input input"
                 if names[k] == target or not _word_pattern((names[k],)).search(formula)
                 else f" {target} ({names[k]} in the rule)")
        text = f"{what} for its input{intro}: {formula}." + (f" Here {here}." if here else "")
    else:
        text = (f"{what} for its {input_word(op, k, naming, 'input')}: the registered gradient "
                f"function, applied to the upstream cotangent, gives '{target}' its share.")
    if op.type == "Relu":
        text += dead_units.story_sentence(op._out_values[0])
    s = Step(0, "contribution", naming.node_of(op), port, title, text,
             cotangent=ev.cotangent, formula=formula, rule=said, input_index=k, op_type=op.type,
             operands=operands, internal=internal,
             operand_nodes={n: lab for n, lab in zip(names, labels)}, operand_notes=described)
    s._op = op
    s._slot = names[k]
    s._path = path
    return s
