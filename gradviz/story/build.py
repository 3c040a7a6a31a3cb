"""Build a Story: from a graph document (`build`) or from engine objects (`from_tape`)."""
from ..engine import nest
from ..graph.document import Port
from .assemble import assemble
from .recorder import Recorder


class TapeNaming:
    """Names for engine objects only: ops by op.name, leaves by the names you give."""

    def __init__(self, names=None):
        self._names = {id(t): n for n, t in (names or {}).items()}

    def node_of(self, op):
        return op.name

    def port_of(self, tensor):
        name = self._names.get(id(tensor))
        if name is not None:
            return Port(name, 0)
        op = tensor._op
        if op is not None and not hasattr(tensor, "assign"):
            for i, o in enumerate(op.outputs):
                if o is tensor:
                    return Port(op.name, i)
        return Port(tensor.name.split(":")[0] if hasattr(tensor, "assign") else tensor.name, 0)

    def label(self, tensor):
        port = self.port_of(tensor)
        return port.node if port.index == 0 else f"{port.node}:{port.index}"

    def op_label(self, op):
        return op.name


def from_tape(tape, target, sources, output_gradients=None, names=None,
              unconnected_gradients="none", title=""):
    """Run `tape.gradient` with a Recorder and tell its story.

    `names` maps a display name to a tensor ({'t': tf_t}); other tensors are named by
    the op that made them (op.name) or their own name.
    """
    recorder = Recorder()
    tape.gradient(target, sources, output_gradients=output_gradients,
                  unconnected_gradients=unconnected_gradients, observer=recorder)
    naming = TapeNaming(names)
    story = assemble(recorder.events, naming, title=title,
                     unconnected_zero=str(getattr(unconnected_gradients, "value",
                                                  unconnected_gradients)) == "zero")
    story.targets = [naming.port_of(t) for t in nest.flatten(target)]
    story.sources = [naming.port_of(s) for s in nest.flatten(sources)]
    return story


class DocumentNaming:
    """Names from the document: engine ops and tensors mapped to node ids and ports.

    Ops inside a layer node belong to that node; a tensor that is not a node's output
    (inside a layer) has no port and its steps are marked internal.
    """

    def __init__(self, doc, evaluation):
        self.doc = doc
        self.ev = evaluation

    def node_of(self, op):
        return self.ev.node_of_op(op)

    def port_of(self, tensor):
        port = self.ev.port_of(tensor)
        if port is None:
            return None
        known = self.ev.tensors.get(port)
        return port if known is None or known is tensor else None

    def _node_title(self, node_id):
        node = self.doc.nodes.get(node_id)
        return (node.label or node.id) if node is not None else str(node_id)

    def label(self, tensor):
        port = self.ev.port_of(tensor)
        if port is None:
            return tensor.name
        name = self._node_title(port.node)
        if self.port_of(tensor) is None:
            return f"{tensor.name} in {name}"
        return name if port.index == 0 else f"{name}:{port.index}"

    def op_label(self, op):
        node = self.node_of(op)
        title = self._node_title(node)
        kind = getattr(self.doc.nodes.get(node), "kind", "")
        return f"{title}/{op.type}" if kind == "layer" else title


def build(doc, unconnected_gradients="none"):
    """The story of `doc`: evaluate it through the engine with a Recorder attached."""
    from ..graph.evaluate import evaluate
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
             f"{naming._node_title(node_id)} runs inside tape.stop_recording(): the tape never "
             f"saw it, so no gradient flows back through its inputs.")
            for node_id in doc.tape.stop_recording if node_id in doc.nodes]
    story = assemble(events, naming, title=doc.title, extra_cuts=cuts,
                     unconnected_zero=unconnected_gradients == "zero")
    story.targets = list(doc.targets)
    story.sources = list(doc.sources)
    story.problems = list(evaluation.problems)
    story.evaluation = evaluation
    return story
