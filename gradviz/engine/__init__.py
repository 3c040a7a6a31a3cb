"""The tape engine: numpy + numba, no Qt. See gradviz/__init__.py for the public API."""
from .tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor  # noqa: F401
from .observer import Observer  # noqa: F401
from .recording import Operation  # noqa: F401
from .tape import GradientTape, UnconnectedGradients  # noqa: F401
from .registry import RegisterGradient, define_op, no_gradient  # noqa: F401
from .backward import gradient_registry  # noqa: F401
from . import operators  # noqa: F401  (sets Tensor's Python operators)
