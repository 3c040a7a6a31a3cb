"""Turn a Recorder's raw events into the story's steps, named through a Naming."""
import numpy as np

from .model import Step, Story


def operand_names(op):
    """Names the op's formula text uses for its inputs ('a', 'b' for MatMul)."""
    names = []
    for k in range(len(op.inputs)):
        f = op.opdef.formula(op.attrs, k)
        name = f.split("=", 1)[0].strip() if f else ""
        names.append(name[5:] if name.startswith("grad_") and len(name) > 5 else f"in{k}")
    if len(set(names)) != len(names):  # variadic ops share one formula text
        names = [f"{n}{k}" for k, n in enumerate(names)]
    return names


def _shape(a):
    return "×".join(str(d) for d in np.shape(a)) or "scalar"


def assemble(events, naming, title="", unconnected_zero=False, extra_cuts=()):
    steps = []
    final = {}
    providers = {}   # tensor id -> step indices whose arrays were summed into it, in order
    last_visit = {}  # op id -> visit step
    gradients = {}

    def add(step, tensor=None):
        step.index = len(steps)
        step._tensor = tensor
        steps.append(step)
        return step

    def where(tensor):
        port = naming.port_of(tensor)
        return port, port is None

    for ev in events:
        if ev.kind == "seed":
            port, internal = where(ev.tensor)
            name = naming.label(ev.tensor)
            n = int(np.size(ev.cotangent))
            if ev.given:
                caption = (f"The backward pass starts at {name} with the output_gradients you gave "
                           f"({_shape(ev.cotangent)}): every step below computes a vector-Jacobian "
                           f"product vᵀJ with this v, not the gradient of a sum.")
            else:
                caption = (f"The backward pass starts at {name} with ones over its {n} element"
                           f"{'s' if n != 1 else ''} ({_shape(ev.cotangent)}). tape.gradient "
                           f"differentiates the sum of the target's elements: ∂(Σ {name})/∂{name}[i] = 1 "
                           f"for every i. This is where the sum over the elements of {name} happens.")
            s = add(Step(0, "seed", port.node if port else None, port, f"Seed {name}", caption,
                         cotangent=ev.cotangent, given=ev.given, internal=internal), ev.tensor)
            providers.setdefault(ev.tensor._id, []).append(s.index)
            final[port if port is not None else ("tensor", ev.tensor._id)] = s.index
        elif ev.kind == "visit":
            op = ev.op
            port, internal = where(op.outputs[0])
            name = naming.op_label(op)
            s = add(Step(0, "visit", naming.node_of(op), port, f"Visit {name}",
                         f"{name} ({op.type}) receives the upstream cotangent of its output: "
                         f"how much the target changes per unit change of each output element.",
                         cotangent=ev.cotangent, upstream=ev.upstream, op_type=op.type,
                         internal=internal))
            s._op = op
            last_visit[id(op)] = s
        elif ev.kind == "contribution":
            op, k = ev.op, ev.index
            tensor = op.inputs[k]
            port, internal = where(tensor)
            names = operand_names(op)
            visit = last_visit.get(id(op))
            grad = None
            if visit is not None:
                grad = visit.upstream[0] if len(visit.upstream) == 1 else visit.upstream
            operands = {"grad": grad}
            operands.update({n: np.asarray(v) for n, v in zip(names, op._in_values)})
            formula = op.opdef.formula(op.attrs, k)
            target = naming.label(tensor)
            s = add(Step(0, "contribution", naming.node_of(op), port,
                         f"{naming.op_label(op)} → {target}",
                         f"Local rule of {op.type} for input {k} ({names[k]} = {target}): "
                         f"{formula or 'the registered gradient function'}, applied to the "
                         f"upstream cotangent.",
                         cotangent=ev.cotangent, formula=formula, input_index=k, op_type=op.type,
                         operands=operands, internal=internal), tensor)
            s._op = op
            providers.setdefault(tensor._id, []).append(s.index)
            final[port if port is not None else ("tensor", tensor._id)] = s.index
        elif ev.kind == "fan_in":
            port, internal = where(ev.tensor)
            name = naming.label(ev.tensor)
            sources = providers.get(ev.tensor._id, [])[-len(ev.contributions):]
            labels = [steps[i].title if steps[i].kind != "seed" else "seed" for i in sources]
            labels += ["?"] * (len(ev.contributions) - len(labels))
            s = add(Step(0, "fan_in", port.node if port else None, port, f"Fan-in at {name}",
                         f"{name} feeds {len(ev.contributions)} consumers; its cotangent is the "
                         f"sum of their contributions.",
                         cotangent=ev.cotangent, terms=list(zip(labels, ev.contributions)),
                         contributions=ev.contributions, total=ev.cotangent, internal=internal),
                    ev.tensor)
            s._sources = sources
            final[port if port is not None else ("tensor", ev.tensor._id)] = s.index
        elif ev.kind == "cut":
            op, k = ev.op, ev.index
            tensor = op.inputs[k]
            port, internal = where(tensor)
            name = naming.op_label(op)
            s = add(Step(0, "cut", naming.node_of(op), port, f"Cut: {name} ✕ {naming.label(tensor)}",
                         f"{name} ({op.type}) stops gradients: input {k} "
                         f"({naming.label(tensor)}) gets no contribution through this edge.",
                         input_index=k, op_type=op.type, internal=internal), tensor)
            s._op = op
        elif ev.kind == "accumulate":
            if not any(st.kind == "accumulate" or st.kind == "unconnected" for st in steps):
                for node, port, caption in extra_cuts:
                    add(Step(0, "cut", node, port, f"Cut: {node} not recorded", caption))
            port, internal = where(ev.tensor)
            name = naming.label(ev.tensor)
            key = port if port is not None else ("tensor", ev.tensor._id)
            if ev.cotangent is None:
                zeros = np.zeros(ev.tensor._value.shape, ev.tensor._value.dtype)
                what = "zeros" if unconnected_zero else "None"
                add(Step(0, "unconnected", port.node if port else None, port,
                         f"{name} is unconnected",
                         f"No path of recorded ops leads from the target to {name}: its "
                         f"gradient is {what}" + ("" if unconnected_zero else
                                                  " (unconnected_gradients='zero' gives zeros)") + ".",
                         cotangent=zeros if unconnected_zero else None,
                         total=zeros if unconnected_zero else None, internal=internal), ev.tensor)
                gradients[key] = zeros if unconnected_zero else None
                continue
            add(Step(0, "accumulate", port.node if port else None, port, f"Gradient of {name}",
                     f"All paths have arrived: this is the gradient for source {name}, "
                     f"what tape.gradient returns.",
                     cotangent=ev.cotangent, total=ev.cotangent, internal=internal), ev.tensor)
            gradients[key] = ev.cotangent
    return Story(steps=steps, title=title, gradients=gradients, _final=final)
