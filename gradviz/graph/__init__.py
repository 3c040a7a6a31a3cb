"""The graph document layer: data model, file format, validation, evaluation, capture.

No Qt here (the app and render layers build on it).
"""
from . import catalog  # noqa: F401
from .capture import from_tape  # noqa: F401
from .tracing import trace_script  # noqa: F401
from .document import (CONSTANT, CUSTOM_GRADIENT, KINDS, LAYER, OP, VARIABLE,  # noqa: F401
                       Document, Edge, Node, Port, TapeSettings)
from .errors import DocumentError, Problem  # noqa: F401
from .evaluate import (Evaluation, batch_jacobian, evaluate, hessian, higher_order,  # noqa: F401
                       jacobian, newton_step, run_studies)
from .fileformat import dumps, load, loads, save  # noqa: F401
from .ports import parse_port, port_text  # noqa: F401
from .validate import infer_shapes, validate  # noqa: F401
