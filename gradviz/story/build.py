"""Build a Story: from a graph document (`build`) or from engine objects (`from_tape`).

A Naming gives every engine object the name a reader knows: a document node's label
or id (a layer's weights as 'layer.kernel', an op inside a node as "layer's matmul"),
or for a bare tape the names you pass and the engine's op names.
"""
import numpy as np

from ..engine import nest
from ..graph.catalog import api_name, part_name, port_name
from ..graph.cut_paths import cut_reason
from ..graph.document import CUSTOM_GRADIENT, LAYER, OP, Port, fresh
from ..graph.errors import reader_name, stopping
from ..graph.evaluate import evaluate
from ..graph.input_names import declared_names
from ..graph.names import node_kind, op_stem
from .assemble import assemble
from .formatting import number
from .inner_names import inner_names
from .numbers import alone
from .studies import gradient_norms
from ..graph import slots as slot_names
from .recorder import Recorder


def _number(x):
    return number(x)


class TapeNaming:
    """Names for engine objects only: tensors by the names you give; other ops and tensors
    as TF's Python API names them, counted per story in the order the code made them
    (matmul, matmul_1, softmax_cross_entropy_with_logits; const, Variable_1), never by
    the engine's global counter (MatMul_1342)."""

    def __init__(self, names=None, events=()):
        self._names = {id(t): n for n, t in (names or {}).items()}
        self._taken = set(self._names.values())
        self._counters = {}
        self._made = {}     # id(op or unnamed leaf) -> its name
        found = {}
        for ev in events:
            tensors = [ev.tensor] if ev.tensor is not None else []
            if ev.op is not None:
                tensors += [*ev.op.inputs, *ev.op.outputs]
            for t in tensors:
                owner = self._op(t) or t
                if id(owner) not in self._names:
                    found.setdefault(id(owner), owner)
        for item in sorted(found.values(), key=lambda o: o._id):   # the order the code made them
            self._name_of(item)

    @staticmethod
    def _op(tensor):
        return tensor._op if tensor._op is not None and not hasattr(tensor, "assign") else None

    def _name_of(self, item):
        """An op's or an unnamed leaf's name, given once (the first time it is asked)."""
        name = self._made.get(id(item))
        if name is None:
            if hasattr(item, "opdef"):
                stem = op_stem(item.type)
            else:
                stem = item._name if hasattr(item, "assign") else "const"
            name = fresh(stem, self._taken, self._counters)
            self._taken.add(name)
            self._made[id(item)] = name
        return name

    def node_of(self, op):
        return self._name_of(op)

    def owner(self, tensor):
        port = self.port_of(tensor)
        return port.node if port is not None else None

    def port_of(self, tensor):
        name = self._names.get(id(tensor))
        if name is not None:
            return Port(name, 0)
        op = self._op(tensor)
        if op is not None:
            for i, o in enumerate(op.outputs):
                if o is tensor:
                    return Port(self._name_of(op), i)
        return Port(self._name_of(tensor), 0)

    def label(self, tensor):
        if id(tensor) not in self._names and tensor._op is None and not hasattr(tensor, "assign") \
                and np.ndim(tensor._value) == 0:
            return _number(tensor._value)  # an unnamed scalar constant: its value says it all
        port = self.port_of(tensor)
        return port.node if port.index == 0 else f"{port.node}:{port.index}"

    def op_label(self, op):
        return self._name_of(op)

    @staticmethod
    def step_title(text, *names):
        """A step's title as it is: a tape's ops have short names already."""
        return text

    def op_name(self, op):
        """What kind of op it is, as the code that ran wrote it: its name in TF's API
        ('nn.softmax_cross_entropy_with_logits', 'matmul'), not the type TF's tape records."""
        return api_name(op.type)

    def rule_name(self, op):
        """Whose local rule the op applies, in TF's API words."""
        return api_name(op.type)

    def shown_names(self):
        """The names a reader knows tensors by: a rule's operand must not take one."""
        return frozenset(self._names.values())

    def slots(self, op):
        """A bare tape has no ports: a rule keeps its own operand letters."""
        return None

    def formula(self, op, k):
        return op.opdef.formula(op.attrs, k)

    def rule(self, op):
        """The declarative rule of a custom-gradient op ('' when it is a black box)."""
        return ""

    def why_none(self, tensor):
        """A bare tape draws no canvas: no path to show, none to explain."""
        return ""


def from_tape(tape, target, sources, output_gradients=None, names=None,
              unconnected_gradients="none", title=""):
    """Run `tape.gradient` with a Recorder and tell its story.

    `names` maps a display name to a tensor ({'t': tf_t}); other tensors are named by
    the op that made them (op.name) or their own name.
    """
    recorder = Recorder()
    tape.gradient(target, sources, output_gradients=output_gradients,
                  unconnected_gradients=unconnected_gradients, observer=recorder)
    naming = TapeNaming(names, recorder.events)
    story = assemble(recorder.events, naming, title=title,
                     unconnected_zero=str(getattr(unconnected_gradients, "value",
                                                  unconnected_gradients)) == "zero")
    story.targets = [naming.port_of(t) for t in nest.flatten(target)]
    story.sources = [naming.port_of(s) for s in nest.flatten(sources)]
    return story


_SYMBOLS = {"Mul": "·", "AddV2": "+", "Add": "+", "Sub": "−", "RealDiv": "/"}

CUSTOM_RULE_TEXT = {
    "clip_by_norm": lambda a: f"clip_by_norm(grad, {_number(a.get('clip_norm', 1.0))})",
    "scale": lambda a: f"grad · {_number(a.get('factor', 1.0))}",
    "zero": lambda a: "zeros_like(grad)",
    "identity": lambda a: "grad",
}


class DocumentNaming:
    """Names from the document: engine ops and tensors mapped to node ids and ports.

    Ops inside a node that records several (a layer, a 'gradient' node) are named by the
    node and what the op is to the reader: "layer1's matmul", "layer1's bias add", "layer1's
    elu", "g's multiply 2" (numbered when a part repeats); a tensor that is not a node's output
    is named by the op that made it, and its steps are marked internal.
    """

    def __init__(self, doc, evaluation):
        self.doc = doc
        self.ev = evaluation
        self._op_labels = {}
        self._op_names = {}
        self._op_nodes = {}   # id(op) -> the op node that records only it (its ports are the op's)
        self._inner_tensors = {}   # id(tensor) -> name: a constant a 'gradient' node's pass made
        self._short = {}           # an inner op's label -> (its name without 'inside …', the node it is inside)
        for node_id, ops in evaluation.entries.items():
            self._name_ops(node_id, ops)
            node = doc.nodes.get(node_id)
            if node is not None and node.kind == OP and len(ops) == 1:
                self._op_names[id(ops[0])] = node.op
                self._op_nodes[id(ops[0])] = node
        for node_id, inner in getattr(evaluation, "inner", {}).items():
            ops = evaluation.entries.get(node_id)
            if inner is not None and ops:
                out = evaluation.tensors.get(Port(node_id, 0))
                output = next((op for op in ops if op.outputs[0] is out), None)
                labels, tensors, shorts = inner_names(self, self.title(node_id), ops, inner, output)
                self._op_labels.update(labels)
                self._inner_tensors.update(tensors)
                self._short.update({label: (short, self.title(node_id))
                                    for label, short in shorts.items()})

    def _name_ops(self, node_id, ops):
        title = self.title(node_id)
        node = self.doc.nodes.get(node_id)
        out = self.ev.tensors.get(Port(node_id, 0))
        layer = node is not None and node.kind == LAYER
        inner = [op for op in ops if layer or out is None or op.outputs[0] is not out]
        parts = {id(op): part_name(node, op.type) for op in inner}
        counts = {}
        for part in parts.values():
            counts[part] = counts.get(part, 0) + 1
        seen = {}
        for op in ops:
            if op not in inner:   # the op that makes the node's output: named as its card is
                self._op_labels[id(op)] = title
                if node is not None:
                    self._op_names[id(op)] = node_kind(node)
                continue
            part = parts[id(op)]
            seen[part] = seen.get(part, 0) + 1
            number = f" {seen[part]}" if counts[part] > 1 else ""
            self._op_labels[id(op)] = f"{title}'s {part}{number}"

    def node_of(self, op):
        return self.ev.node_of_op(op)

    def step_title(self, text, *names):
        """`text` (a step's title with `names` in it, each once) with every name of an op
        or tensor inside a 'gradient' node written without 'inside …', which the title says
        once at its end: "∂y/∂x via xx (input b) → ∂y/∂xx, inside t1.gradient(y, x)"."""
        inner = [name for name in names if name in self._short]
        out = text
        for name in inner:
            out = out.replace(name, self._short[name][0], 1)
        return out + "".join(f", inside {p}" for p in dict.fromkeys(self._short[n][1] for n in inner))

    def product(self, op):
        """What an op inside a 'gradient' node computes, from its inputs' names:
        '∂y/∂xx · x' for ∂y/∂x via xx (input b) ('' for any other op, and
        for an op that is no product, sum or difference of two)."""
        symbol = _SYMBOLS.get(op.type)
        if symbol is None or len(op.inputs) != 2 or self._op_labels.get(id(op)) not in self._short:
            return ""
        return f" {symbol} ".join(self.brief(t) for t in op.inputs)

    def brief(self, tensor):
        """A tensor's label, without 'inside …' for one inside a 'gradient' node ('∂y/∂xx')."""
        label = self.label(tensor)
        short = self._short.get(label)
        return short[0] if short else label

    def owner(self, tensor):
        """The document node a tensor belongs to (also for tensors inside a node)."""
        port = self.ev.port_of(tensor)
        return port.node if port is not None else None

    def port_of(self, tensor):
        port = self.ev.port_of(tensor)
        if port is None:
            return None
        known = self.ev.tensors.get(port)
        return port if known is None or known is tensor else None

    def title(self, node_id):
        node = self.doc.nodes.get(node_id)
        return (node.label or node.id) if node is not None else str(node_id)

    def label(self, tensor):
        owner = self.owner(tensor)
        if owner is None:
            if id(tensor) in self._inner_tensors:
                return self._inner_tensors[id(tensor)]
            if hasattr(tensor, "assign"):
                return tensor.name.split(":")[0]
            if np.ndim(tensor._value) == 0:
                return _number(tensor._value)  # a constant made inside a node, e.g. a seed 1
            return f"a constant of shape {list(np.shape(tensor._value))}"
        port = self.port_of(tensor)
        name = self.title(owner)
        if port is None:
            op = tensor._op
            if op is not None and id(op) in self._op_labels:
                m = next(i for i, o in enumerate(op.outputs) if o is tensor)
                return self._op_labels[id(op)] + (f":{m}" if m else "")
            return f"a tensor inside {name}"
        return port_name(self.doc, port)

    def op_label(self, op):
        label = self._op_labels.get(id(op))
        return label if label is not None else self.title(self.node_of(op))

    def op_name(self, op):
        """What kind of op it is, as the reader wrote it: for the op that makes a node's
        output, the word its card shows ('nn.embedding_lookup', not the ResourceGather TF
        records; 'gradient', not the matmul that ends its inner pass); for an op inside a
        node, its name in TF's API (a layer's 'matmul', 'add')."""
        return self._op_names.get(id(op)) or api_name(op.type)

    def rule_name(self, op):
        """Whose local rule the op applies: an op node's op ('nn.embedding_lookup'), else
        the op's name in TF's API (the matmul that ends a 'gradient' node's inner pass)."""
        node = self._op_nodes.get(id(op))
        return node.op if node is not None else api_name(op.type)

    def slots(self, op):
        """(the catalog's names of the op's inputs, the names its node's ports show) when the
        op is an op node's one op and takes an input per port; else None."""
        node = self._op_nodes.get(id(op))
        if node is None or len(op.inputs) < 2:
            return None
        incoming = self._incoming().get(node.id, [])
        count = max([e.dst.index + 1 for e in incoming], default=0)
        if count != len(op.inputs):
            return None
        return declared_names(node, count), slot_names.input_names(node, count, self.doc,
                                                                     incoming)

    def _incoming(self):
        """{node id: its input edges}, found once per story (not once per op)."""
        index = self.__dict__.get("_incoming_index")
        if index is None:
            index = self._incoming_index = self.doc.input_index()
        return index

    def shown_names(self):
        """Every node's name on the canvas: a rule's operand must not take one."""
        names = self.__dict__.get("_shown")
        if names is None:
            names = self._shown = frozenset(self.title(n) for n in self.doc.nodes)
        return names

    def _custom_node(self, op):
        if op.type != "CustomGradient":
            return None
        node = self.doc.nodes.get(self.node_of(op))
        return node if node is not None and node.kind == CUSTOM_GRADIENT else None

    def rule(self, op):
        node = self._custom_node(op)
        if node is None or node.op not in CUSTOM_RULE_TEXT:
            return ""
        return CUSTOM_RULE_TEXT[node.op](node.attrs)

    def why_none(self, tensor):
        """Why source `tensor` gets None though the canvas joins it to the target
        (cut_paths.cut_reason: the node that cuts every path, and why); '' when no edge
        path joins them."""
        port = self.ev.port_of(tensor)
        return "" if port is None else cut_reason(self.doc, self.ev.values, port)

    def formula(self, op, k):
        rule = self.rule(op)
        return f"grad_y = {rule}" if rule else op.opdef.formula(op.attrs, k)


def build(doc, unconnected_gradients="none"):
    """The story of `doc`: evaluate it through the engine with a Recorder attached."""
    recorder = Recorder()
    evaluation = evaluate(doc, observer=recorder)
    return tell(doc, evaluation, recorder.events, unconnected_gradients)


def tell(doc, evaluation, events, unconnected_gradients="none"):
    """The story of an evaluation of `doc` that ran with a Recorder (its `events`).

    Separate from `build` so that an editor can evaluate on every edit and assemble
    the story only when something shows it.
    """
    naming = DocumentNaming(doc, evaluation)
    cuts = [(node_id, None,
             f"{naming.title(node_id)} is in the tape's stop_recording region: the tape "
             f"holds no record of it (code runs it inside tape.stop_recording(), or before a "
             f"tape.reset() that dropped its record), so no gradient flows back through its "
             f"inputs.")
            for node_id in doc.tape.stop_recording if node_id in doc.nodes]
    story = assemble(events, naming, title=doc.title, extra_cuts=cuts,
                     unconnected_zero=unconnected_gradients == "zero")
    story.targets = list(doc.targets)
    story.sources = list(doc.sources)
    story.problems = list(evaluation.problems)
    story.evaluation = evaluation
    story.document = doc
    _state_layer_norms(story, doc)
    return story


# Layers in a row from which on the cotangent's size is worth watching step by step: the
# chain lessons have 6; a two-layer loss (lesson 17) is no deep chain.
DEEP = 3


def _state_layer_norms(story, doc):
    """In a deep chain of layers (DEEP or more, each handing its cotangent to the next), each
    layer's step says the norm of the cotangent its output receives, and the step after the
    chain (the source's gradient) its own, each with how it changed from the one before (the
    vanishing-gradient lessons tell the student to watch it while stepping): 'Its norm
    ‖grad layer4‖ = 5.863×10⁻² is ‖grad layer5‖ divided by 11.546.', the norm and its
    factor written alike (numbers.alone, as a card writes a scalar), never '1.870 is 1.83
    times'. Read from the Gradient norms study's points, so the story and View ▸ Studies ▸
    Gradient norms give one number."""
    norms = gradient_norms(story)
    size = [np.size(story.steps[i].cotangent) for i in norms.steps]
    layer = [kind == "visit" and getattr(doc.nodes.get(story.steps[i].node), "kind", None) == LAYER
             for i, kind in zip(norms.steps, norms.kinds)]   # a layer's output, not its kernel
    came_from, goes_to = {}, {}
    for k, j in norms.edges:
        came_from.setdefault(j, []).append(k)
        goes_to.setdefault(k, []).append(j)

    def run(j, links):
        """How many layers follow j along `links`, one link at a time, each the only one."""
        count = 0
        while len(links.get(j, [])) == 1 and layer[links[j][0]]:
            j, count = links[j][0], count + 1
        return count
    chained = [layer[j] and run(j, came_from) + 1 + run(j, goes_to) >= DEEP
               for j in range(len(norms.steps))]
    for j, index in enumerate(norms.steps):
        before = came_from.get(j, [])
        if size[j] < 2 or not np.isfinite(norms.norms[j]) \
                or not (chained[j] or (len(before) == 1 and chained[before[0]])):
            continue
        name = norms.names[j]
        said = f"Its norm ‖grad {name}‖ = {alone(norms.norms[j])}"
        if len(before) == 1 and size[before[0]] > 1 and np.isfinite(norms.norms[before[0]]) \
                and norms.norms[before[0]] > 0:
            ratio, earlier = norms.norms[j] / norms.norms[before[0]], norms.names[before[0]]
            said += (f" is {alone(ratio)} times ‖grad {earlier}‖" if ratio >= 1 else
                     f" is ‖grad {earlier}‖ divided by {alone(1 / ratio)}")
        step = story.steps[index]
        step.caption = f"{step.caption} {said}."


# -- why there is none -----------------------------------------------------------------------

def missing_roles(*roles):
    """'it needs a target and a source: …' for the (words, chosen) pairs not chosen, where
    `words` names the role ('a target', 'a loss (a target)') and `chosen` is the port or
    the ports chosen for it; '' when every role is chosen."""
    missing = [words for words, chosen in roles if chosen is None or chosen == []]
    if not missing:
        return ""
    menu = " / ".join(f"Mark as {role}" for role in ("target", "source")
                      if any(role in words for words in missing))
    return (f"it needs {' and '.join(missing)}: mark {'them' if len(missing) > 1 else 'one'} "
            f"(right-click a node ▸ {menu}, or Inspector ▸ tape.gradient).")


def graph_error(doc, problems, ports):
    """The graph's first error that stops what `ports` are computed from, in words ('' when
    none does): a stray node's error is not why a study of the target fails."""
    errors = stopping(problems, doc, ports)
    if not errors:
        return ""
    where = f"{reader_name(doc, errors[0].node)}: " if errors[0].node in doc.nodes else ""
    return f"the graph does not run ({where}{errors[0].message})"


def no_backward_pass(doc, problems):
    """Why `doc` has no backward pass: (kind, words) with kind 'missing' (no target or no
    source marked: a choice not made), 'error' (the graph stops before the target or a
    source: graph_error; words without a full stop, a caller goes on) or 'unconnected' (the
    target depends on no source). The player's caption and the study views say it alike."""
    missing = missing_roles(("a target", doc.targets), ("a source", doc.sources))
    if missing:
        return "missing", missing
    error = graph_error(doc, problems, [*doc.targets, *doc.sources])
    if error:
        return "error", error
    return "unconnected", ("the target does not depend on any source (no path leads back from "
                           "it to a source).")


def no_backward_pass_sentence(doc, problems, verb):
    """'No backward pass to `verb`: ' and why (no_backward_pass), a whole sentence: the
    player's caption ('show') and Export Animation ('animate') say it alike."""
    kind, words = no_backward_pass(doc, problems)
    return f"No backward pass to {verb}: {words}" + ("." if kind == "error" else "")
