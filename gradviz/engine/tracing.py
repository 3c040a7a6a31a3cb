"""Whether tf.function is tracing on this thread, and the hooks the lowest modules call.

Tensor and Variable sit below the ops, so they cannot import the tracer
(trace_program.py); they ask `_trace.tracer` here. None (the common case) costs one
thread-local read. A tracer is there only while a tf.function runs its Python function
to record it; it sees what the ops do not: a tensor's value read by Python (`bool(x)`,
`float(x)`, `x.numpy()`), a Variable's assign, a random draw, an optimizer's update.
"""
import threading


class _TraceState(threading.local):
    tracer = None


_trace = _TraceState()


def active():
    """The tracer recording on this thread, or None."""
    return _trace.tracer


def python_value(tensor, what):
    """`tensor`'s value is about to leave the ops as a Python value (`what` says how):
    a tracer cannot record that, so the trace falls back (see trace_program.py)."""
    tracer = _trace.tracer
    if tracer is not None:
        tracer.python_value(tensor, what)
