"""Gradient checks for users' own ops and tests (as HIPS autograd's test_util):
`check_grads(f, args, order=2)` compares the tape's gradients, Jacobians and
second-order VJPs with central finite differences."""
from .engine.check import check_grads, check_jacobian, check_vjp, numeric_jacobian  # noqa: F401
