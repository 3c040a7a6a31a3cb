"""The last training step written out with its numbers: for each parameter, the entry
whose gradient is largest, and the optimizer's update of it as an equation that holds
(up to the float32 rounding of the stored values) with the numbers shown.

The gradient in each line is the one the backward pass at the step's starting values
produced: the tape's, as the Backprop player shows it for the document's values.
"""
import math

import numpy as np

from ..engine.optimizers import SGD, Adam, Newton, RMSprop
from ..graph.flat_newton import flat_newton_words
from .numbers import significant


def _n(x):
    """A number as the card prints it: 6 significant digits, a true minus sign."""
    return significant(x)


def _enough(x, result, compute):
    """x written with as many significant digits (6 to 9) as make `compute` of the written
    number give `result` as the card prints it: where a difference cancels (w = −4, u =
    −3.99600, w − u = −0.0039959) six digits of an operand cannot reproduce the result."""
    target = _n(result)
    for digits in range(6, 10):
        text = f"{float(x):.{digits}g}"
        if _n(compute(float(text))) == target:
            break
    return significant(x, digits)


def _sq(x, result=None, compute=None):
    """x² as written: a negative number squared needs its parentheses (−2² is −4). With
    `result` and `compute`, x has the digits that make the line give `result` (squaring
    doubles the relative error of a rounded operand: 0.1 × (−0.221789)² is 0.00491904,
    the card's s is 0.00491905)."""
    text = _enough(x, result, compute) if compute is not None else _n(x)
    return f"({text})²" if float(x) < 0 else f"{text}²"


def _entry(array):
    """The index of the largest |value| (() for a scalar) as text and as a tuple."""
    a = np.asarray(array)
    if a.ndim == 0:
        return (), ""
    index = np.unravel_index(int(np.argmax(np.abs(a))), a.shape)
    return tuple(int(i) for i in index), "[" + ", ".join(map(str, index)) + "]"


def derivative(loss, name):
    """'∂loss/∂w', '∂Σy/∂w', '∂❬v, y❭/∂w', '∂(Σa + Σb)/∂w': what the cards write; a name
    with a space and no brackets of its own is put in parentheses ('∂(my loss)/∂w')."""
    bare = " " in loss and not (loss[0] in "(❬" and loss[-1] in ")❭")
    return f"∂{f'({loss})' if bare else loss}/∂{name}"


def update_lines(update, optimizer, names, loss="loss"):
    """[(title, [line, ...])] per parameter of `update` (a training.Update); `names` are
    the parameters' names as the user sees them, `loss` the loss's (graph.training's
    loss_name). The first line says which number g is."""
    out = []
    for k, name in enumerate(names):
        g = update.gradients[k]
        if g is None:
            out.append((name, ["its gradient is None: the update leaves it as it is"]))
            continue
        index, where = _entry(g)
        values = dict(w=np.asarray(update.before[k])[index], g=np.asarray(g)[index],
                      w_new=np.asarray(update.after[k])[index])
        before = {key: np.asarray(v)[index] for key, v in update.slots_before[k].items()}
        after = {key: np.asarray(v)[index] for key, v in update.slots_after[k].items()}
        title = f"{name}{where}" + (" (its largest |g|)" if where else "")
        entry = f"{name}{where}"
        out.append((title, [f"g = {derivative(loss, entry)} = {_n(values['g'])}"]
                    + _lines(optimizer, update.t, values, before, after, entry)))
    if isinstance(optimizer, Newton) and optimizer.last_terms is not None and out:
        g, hessian = optimizer.last_terms       # one step over every parameter: said once
        words = flat_newton_words(hessian, g, optimizer.last_step, optimizer.damping, _n)
        if words:
            out[0][1].append(words)
    return out


def _lines(opt, t, x, before, after, W="w"):
    """The update of one entry, `W` its name as the user knows it (layer1.kernel[0, 1])."""
    c = opt.get_config()
    lr, w, g, w_new = c["learning_rate"], x["w"], x["g"], x["w_new"]
    if isinstance(opt, SGD):
        if not c["momentum"]:
            g_ = _enough(g, w_new, lambda g_: float(w) - lr * g_)
            return [f"{W} ← {W} − η·g = {_n(w)} − {_n(lr)} × {g_} = {_n(w_new)}"]
        mu, v0, v = c["momentum"], before["velocity"], after["velocity"]
        lines = [f"v ← μ·v − η·g = {_n(mu)} × {_n(v0)} − {_n(lr)} × {_n(g)} = {_n(v)}"]
        if c["nesterov"]:
            v_ = _enough(v, w_new, lambda v_: float(w) + mu * v_ - lr * float(g))
            lines.append(f"{W} ← {W} + μ·v − η·g = {_n(w)} + {_n(mu)} × {v_} − {_n(lr)} × {_n(g)}"
                         f" = {_n(w_new)}")
        else:
            lines.append(f"{W} ← {W} + v = {_n(w)} + {_enough(v, w_new, lambda v_: float(w) + v_)}"
                         f" = {_n(w_new)}")
        return lines
    if isinstance(opt, RMSprop):
        rho, eps, s0, s = c["rho"], c["epsilon"], before["velocity"], after["velocity"]
        lines = [f"s ← ρ·s + (1 − ρ)·g² = {_n(rho)} × {_n(s0)} + {_n(1 - rho)} × "
                 f"{_sq(g, s, lambda g_: rho * float(s0) + (1 - rho) * g_ * g_)} = {_n(s)}"]
        if c["centered"]:
            a0, a = before["average_gradient"], after["average_gradient"]
            lines.append(f"ḡ ← ρ·ḡ + (1 − ρ)·g = {_n(rho)} × {_n(a0)} + {_n(1 - rho)} × {_n(g)}"
                         f" = {_n(a)}")
            formula = "η·g / √(s − ḡ² + ε)"
            numbers = f"{_n(lr)} × {_n(g)} / √({_n(s)} − {_sq(a)} + {_n(eps)})"
        else:
            formula, numbers = "η·g / √(s + ε)", f"{_n(lr)} × {_n(g)} / √({_n(s)} + {_n(eps)})"
        if c["momentum"]:
            mu, m0, m = c["momentum"], before["momentum"], after["momentum"]
            lines += [f"m ← μ·m + {formula} = {_n(mu)} × {_n(m0)} + {numbers} = {_n(m)}",
                      f"{W} ← {W} − m = {_n(w)} − {_enough(m, w_new, lambda m_: float(w) - m_)}"
                      f" = {_n(w_new)}"]
        else:
            lines.append(f"{W} ← {W} − {formula} = {_n(w)} − {numbers} = {_n(w_new)}")
        return lines
    if isinstance(opt, Adam):
        b1, b2, eps = c["beta_1"], c["beta_2"], c["epsilon"]
        m, v = after["m"], after["v"]
        root = after.get("v_hat", v)
        lines = [f"m ← β₁·m + (1 − β₁)·g = {_n(b1)} × {_n(before['m'])} + {_n(1 - b1)} × {_n(g)}"
                 f" = {_n(m)}",
                 f"v ← β₂·v + (1 − β₂)·g² = {_n(b2)} × {_n(before['v'])} + {_n(1 - b2)} × "
                 f"{_sq(g, v, lambda g_: b2 * float(before['v']) + (1 - b2) * g_ * g_)} = {_n(v)}"]
        if c["amsgrad"]:
            lines.append(f"vmax ← max(vmax, v) = {_n(root)}")
        scale = math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        lines.append(f"t = {t}: the bias-corrected moments m/(1 − β₁ᵗ) = {_n(m / (1 - b1 ** t))}, "
                     f"v/(1 − β₂ᵗ) = {_n(v / (1 - b2 ** t))}")
        lines.append(f"{W} ← {W} − η·√(1 − β₂ᵗ)/(1 − β₁ᵗ) · m/(√{'vmax' if c['amsgrad'] else 'v'} + ε)"
                     f" = {_n(w)} − {_n(lr)} × {_n(scale)} × {_n(m)}/(√({_n(root)}) + {_n(eps)})"
                     f" = {_n(w_new)}")
        return lines
    if isinstance(opt, Newton):
        u = (float(w) - float(w_new)) / lr
        return [f"u = (H + λI)⁻¹·g over every trained entry at once (λ = {_n(c['damping'])}); "
                f"this entry's g = {_n(g)}, u = {_n(u)}",
                f"{W} ← {W} − η·u = {_n(w)} − {_n(lr)} × {_enough(u, w_new, lambda u_: float(w) - lr * u_)}"
                f" = {_n(w_new)}"]
    return []
