"""tf.keras.optimizers: SGD (with momentum and Nesterov), RMSprop and Adam, and a damped
Newton step.

Each update is Keras' rule, computed with numpy in the variable's dtype: applying
gradients is not differentiated in TF, so no tape records it. The defaults are Keras'.
The rules (g the gradient, lr the learning rate, t the step counted from 1):

  SGD        w ← w − lr·g
             momentum: v ← momentum·v − lr·g;  w ← w + v
             nesterov: v ← momentum·v − lr·g;  w ← w + momentum·v − lr·g
  RMSprop    s ← rho·s + (1 − rho)·g²;  Δ = lr·g / √(s + ε)   (centered: s − ḡ² + ε,
             with ḡ ← rho·ḡ + (1 − rho)·g);  w ← w − Δ  (momentum: m ← momentum·m + Δ; w ← w − m)
  Adam       m ← β₁·m + (1 − β₁)·g;  v ← β₂·v + (1 − β₂)·g²
             w ← w − lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ) · m / (√v + ε)   (Keras' "epsilon hat" form)
  Newton     w ← w − lr·(H + λI)⁻¹ g, over all variables flattened into one vector
"""
import inspect
import math

import numpy as np

from .errors import counted
from .tensor import Tensor, Variable, convert_to_tensor
from .tape import GradientTape
from .tracing import _trace


def _number(name, value, low, high=None, low_open=False, high_open=False):
    """`value` as a float, or a ValueError naming the hyper-parameter and its range."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number, got {value!r}") from None
    below = x <= low if low_open else x < low
    above = high is not None and (x >= high if high_open else x > high)
    if not math.isfinite(x) or below or above:
        if high is None:
            where = f"{'>' if low_open else '>='} {low:g}"
        else:
            where = f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ValueError(f"`{name}` must be a number {where}, got {value!r}")
    return x


def _array(gradient, variable):
    g = np.asarray(gradient._value if isinstance(gradient, Tensor) else gradient,
                   dtype=variable._value.dtype)
    if g.shape != variable._value.shape:
        raise ValueError(f"the gradient of variable '{variable._name}' has shape {g.shape}, "
                         f"the variable {variable._value.shape}")
    return g


class Optimizer:
    """The part every optimizer shares: iterations, per-variable state (slots), minimize."""

    slot_names = ()

    def __init__(self, learning_rate, name):
        self.learning_rate = _number("learning_rate", learning_rate, 0.0, low_open=True)
        self.name = name
        self.iterations = Variable(np.int64(0), trainable=False, name="iteration")
        self._slots = {}   # id(variable) -> (variable, {slot name: ndarray})

    def slots(self, variable):
        """{slot name: ndarray} of `variable` (Adam's m and v, the momentum's velocity).
        Before the first update they are the zeros Keras builds them with, the values the
        first step's update card starts from."""
        entry = self._slots.get(id(variable))
        if entry is None:
            return {k: np.zeros_like(variable._value) for k in self.slot_names}
        return dict(entry[1])

    def _state(self, variable):
        entry = self._slots.get(id(variable))
        if entry is None:
            entry = self._slots[id(variable)] = (variable, self.slots(variable))
        return entry[1]

    def apply_gradients(self, grads_and_vars):
        """Update each variable from its gradient (a None gradient leaves it as it is, as
        Keras does); returns the iterations count."""
        pairs = [(g, v) for g, v in grads_and_vars]
        for _, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"an optimizer updates Variables, got {type(v).__name__}")
        variables = [v for _, v in pairs]
        if _trace.tracer is not None:  # under tf.function: one step of the compiled program
            grads = [None if g is None else convert_to_tensor(g) for g, _ in pairs]
            _trace.tracer.host(lambda *arrays: self._apply(arrays, variables), grads, False)
        else:
            self._apply([None if g is None else _array(g, v) for g, v in pairs], variables)
        return self.iterations

    def _apply(self, grads, variables):
        t = int(self.iterations._value) + 1
        for g, v in zip(grads, variables):
            if g is not None:
                v.assign(self._update(v._value, _array(g, v), self._state(v), t))
        self.iterations.assign(t)

    def minimize(self, loss, var_list, tape=None):
        """Gradient of `loss` (a callable, or a tensor recorded on `tape`) and one update."""
        var_list = list(var_list)
        if tape is None:
            if not callable(loss):
                raise ValueError("`tape` is required when a Tensor loss is passed")
            with GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        elif callable(loss):
            with tape:
                loss = loss()
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def get_config(self):
        return {"name": self.name, "learning_rate": self.learning_rate, **self._hyper()}

    def state(self):
        """The steps taken and every variable's slots, to come back to with `set_state` (an
        update replaces a slot's array, never writes into it: the arrays are shared)."""
        return int(self.iterations._value), {k: (v, dict(s)) for k, (v, s) in self._slots.items()}

    def set_state(self, state):
        steps, slots = state
        self.iterations.assign(np.int64(steps))
        self._slots = {k: (v, dict(s)) for k, (v, s) in slots.items()}

    def _hyper(self):
        return {}

    def _update(self, w, g, state, t):
        raise NotImplementedError


class SGD(Optimizer):
    slot_names = ("velocity",)

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD"):
        super().__init__(learning_rate, name)
        self.momentum = _number("momentum", momentum, 0.0, 1.0)
        self.nesterov = bool(nesterov)

    def _hyper(self):
        return {"momentum": self.momentum, "nesterov": self.nesterov}

    def _update(self, w, g, state, t):
        lr, mu = self.learning_rate, self.momentum
        if mu == 0:
            return w - lr * g
        velocity = state["velocity"] = mu * state["velocity"] - lr * g
        return w + mu * velocity - lr * g if self.nesterov else w + velocity


class RMSprop(Optimizer):
    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop"):
        super().__init__(learning_rate, name)
        self.rho = _number("rho", rho, 0.0, 1.0, high_open=True)
        self.momentum = _number("momentum", momentum, 0.0, 1.0)
        self.epsilon = _number("epsilon", epsilon, 0.0)
        self.centered = bool(centered)
        self.slot_names = ("velocity",) + (("momentum",) if self.momentum else ()) \
            + (("average_gradient",) if self.centered else ())

    def _hyper(self):
        return {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}

    def _update(self, w, g, state, t):
        rho = self.rho
        velocity = state["velocity"] = rho * state["velocity"] + (1 - rho) * np.square(g)
        if self.centered:
            mean = state["average_gradient"] = rho * state["average_gradient"] + (1 - rho) * g
            denominator = velocity - np.square(mean) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = self.learning_rate * g / np.sqrt(denominator)
        if self.momentum:
            increment = state["momentum"] = self.momentum * state["momentum"] + increment
        return w - increment


class Adam(Optimizer):
    slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam"):
        super().__init__(learning_rate, name)
        self.beta_1 = _number("beta_1", beta_1, 0.0, 1.0, high_open=True)
        self.beta_2 = _number("beta_2", beta_2, 0.0, 1.0, high_open=True)
        self.epsilon = _number("epsilon", epsilon, 0.0)
        self.amsgrad = bool(amsgrad)
        if self.amsgrad:
            self.slot_names = ("m", "v", "v_hat")

    def _hyper(self):
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                "amsgrad": self.amsgrad}

    def step_size(self, t):
        """lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ): the bias corrections folded into the learning rate."""
        return self.learning_rate * math.sqrt(1 - self.beta_2 ** t) / (1 - self.beta_1 ** t)

    def _update(self, w, g, state, t):
        m = state["m"] = state["m"] + (g - state["m"]) * (1 - self.beta_1)
        v = state["v"] = state["v"] + (np.square(g) - state["v"]) * (1 - self.beta_2)
        if self.amsgrad:
            v = state["v_hat"] = np.maximum(state["v_hat"], v)
        return w - m * self.step_size(t) / (np.sqrt(v) + self.epsilon)


class Newton:
    """A damped Newton step over several variables at once: the gradient and Hessian of
    the loss over all of them flattened into one vector (in var_list's order), then
    w ← w − lr·(H + λI)⁻¹ g. Seed 001's update, with the solve's damping λ (its eps)."""

    def __init__(self, learning_rate=1.0, damping=1e-3, name="Newton"):
        self.learning_rate = _number("learning_rate", learning_rate, 0.0, low_open=True)
        self.damping = _number("damping", damping, 0.0)
        self.name = name
        self.iterations = Variable(np.int64(0), trainable=False, name="iteration")
        self.last_step = None   # the last (H + λI)⁻¹ g, flattened
        self.last_terms = None  # the last step's (g, H), flattened: whether H shaped it

    def get_config(self):
        return {"name": self.name, "learning_rate": self.learning_rate, "damping": self.damping}

    def state(self):
        """The steps taken, the last step and its terms (g, H: `last_terms`, which say whether H
        shaped it), to come back to with `set_state`."""
        return int(self.iterations._value), self.last_step, self.last_terms

    def set_state(self, state):
        steps, self.last_step, self.last_terms = state
        self.iterations.assign(np.int64(steps))

    def apply_hessian(self, gradients, hessian, var_list):
        """The update from the gradients (one per variable, None counts as zero) and the
        (n, n) Hessian over the flattened variables."""
        var_list = list(var_list)
        if _trace.tracer is not None:
            _trace.tracer.fail("Newton.apply_hessian (a numpy solve)")
        sizes = [v._value.size for v in var_list]
        n = sum(sizes)
        g = np.concatenate([np.zeros(s) if gi is None else
                            np.asarray(gi._value if isinstance(gi, Tensor) else gi,
                                       np.float64).reshape(-1)
                            for gi, s in zip(gradients, sizes)]) if n else np.zeros(0)
        h = np.asarray(hessian._value if isinstance(hessian, Tensor) else hessian, np.float64)
        if h.shape != (n, n):
            raise ValueError(f"the Hessian has shape {h.shape}; {counted(n, 'parameter')} "
                             f"{'needs' if n == 1 else 'need'} ({n}, {n})")
        step = np.linalg.solve(h + self.damping * np.eye(n), g)
        self.last_step, self.last_terms = step, (g, h)
        offset = 0
        for v, s in zip(var_list, sizes):
            part = step[offset:offset + s].reshape(v._value.shape)
            v.assign(v._value - (self.learning_rate * part).astype(v._value.dtype))
            offset += s
        self.iterations.assign(int(self.iterations._value) + 1)
        return self.iterations

    def minimize(self, loss, var_list):
        """One Newton step on the callable `loss` (summed if not scalar, as the tape does)."""
        var_list = list(var_list)
        with GradientTape(persistent=True) as outer:
            outer.watch(var_list)
            with GradientTape() as inner:
                inner.watch(var_list)
                value = loss()
            grads = inner.gradient(value, var_list, unconnected_gradients="zero")
        blocks = outer.jacobian(grads, var_list, unconnected_gradients="zero")
        return self.apply_hessian(grads, hessian_matrix(blocks, var_list), var_list)


def hessian_matrix(blocks, var_list):
    """The (n, n) matrix of Hessian blocks d g_i / d w_j (shapes w_i.shape + w_j.shape)."""
    sizes = [int(np.size(v._value if isinstance(v, Tensor) else v)) for v in var_list]
    rows = []
    for i, row in enumerate(blocks):
        rows.append(np.concatenate([np.asarray(b._value if isinstance(b, Tensor) else b,
                                               np.float64).reshape(sizes[i], sizes[j])
                                    for j, b in enumerate(row)], axis=1))
    return np.concatenate(rows, axis=0) if rows else np.zeros((0, 0))


OPTIMIZERS = {"sgd": SGD, "rmsprop": RMSprop, "adam": Adam, "newton": Newton}


def optimizer_kind(optimizer):
    """The name `optimizer` is made by (make_optimizer's 'sgd', 'adam', ...)."""
    return next(k for k, kind in OPTIMIZERS.items() if type(optimizer) is kind)


def default_origin(name):
    """Where optimizer `name`'s default hyper-parameters come from, in words: Keras' for the
    Keras optimizers; Keras has no Newton step, so its defaults are ours (seed 001's
    step, lr 1 and damping 1e-3)."""
    return "gradviz's Newton default, as Keras has no Newton step" if name == "newton" else "Keras' default"


def hyper_parameters(name):
    """{hyper-parameter: Keras' default} of optimizer `name` ('sgd', 'adam', ...)."""
    signature = inspect.signature(OPTIMIZERS[name])
    return {k: p.default for k, p in signature.parameters.items() if k != "name"}


def make_optimizer(name, **hyper):
    """An optimizer by name with `hyper` over Keras' defaults; a ValueError in words if the
    name or a value is not accepted."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer '{name}' (choose from {', '.join(OPTIMIZERS)})")
    unknown = set(hyper) - set(hyper_parameters(name))
    if unknown:
        raise ValueError(f"{name} has no hyper-parameter {', '.join(sorted(unknown))} "
                         f"(it has {', '.join(hyper_parameters(name))})")
    return OPTIMIZERS[name](**hyper)
