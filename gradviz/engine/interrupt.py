"""Stopping long work midway: a thread may install a checkpoint that long loops call.

A Jacobian or Hessian of a large document is many backward passes (one per chunk of
basis cotangents); the app runs it on a worker thread and must be able to stop it when
the user cancels, closes the dock or opens another file. The engine knows nothing of
threads or Qt: it calls `checkpoint()` between passes, which runs the hook the current
thread installed (`with checkpoints(hook):`), and the hook raises to stop the work.
With no hook installed a checkpoint costs one attribute lookup.
"""
import contextlib
import threading

class _Local(threading.local):
    # The default on the class: reading an attribute a thread never set raises and
    # catches an AttributeError inside getattr, which cost ~4.5k instructions per
    # backward pass (current_hook) when no hook is installed.
    hook = None


_local = _Local()


def checkpoint():
    """Give the current thread's hook a chance to stop the work (it raises to stop it)."""
    hook = getattr(_local, "hook", None)
    if hook is not None:
        hook()


def current_hook():
    """The current thread's hook, or None: for a hot loop that checks at every turn."""
    return getattr(_local, "hook", None)


@contextlib.contextmanager
def checkpoints(hook):
    """Call `hook()` at every checkpoint this thread reaches inside the block."""
    previous = getattr(_local, "hook", None)
    _local.hook = hook
    try:
        yield
    finally:
        _local.hook = previous
