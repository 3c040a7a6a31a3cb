"""Tracing a script: `trace_script` runs a script the user chose and captures one of its
`tape.gradient(...)` calls as a document (capture.from_tape).

Running it, it also notes what the tape alone cannot tell: an inner `tape.gradient`
computed while the captured tape records (a 'gradient' node), the ops run inside
`tape.stop_recording()` (a stop_recording region), and the script's own variable names.
What `tape.reset()` threw away is gone: its results become constants.
"""
import os
import sys

import gradviz as gv
from gradviz.engine import tape as _tape_module
from gradviz.engine.tensor import Tensor

from .capture import InnerGradient, Recording, from_tape, script_names
from .errors import DocumentError

class _RegionSpy:
    """Sits in the recording stack inside `tape.stop_recording()` and keeps the ops the
    paused tape would have recorded (duck-typed like a tape: `_should_record`, `_entries`,
    `_tracked`, which `record` reads directly for inputs that are not Variables)."""

    def __init__(self, tape):
        self.tape = tape
        self._entries = []
        self._tracked = _SpyTracked(tape._tracked)

    def _should_record(self, inputs):
        auto = self.tape._watch_accessed_variables
        return any(t._id in self._tracked
                   or (auto and type(t) is gv.Variable and t.trainable
                       and t._value.dtype.kind == "f") for t in inputs)


class _SpyTracked(set):
    """The ids a region spy tracks: what its ops produced, and whatever the paused tape
    tracks, including a tensor watched inside the region."""

    def __init__(self, paused):
        super().__init__()
        self.paused = paused

    def __contains__(self, tensor_id):
        return set.__contains__(self, tensor_id) or tensor_id in self.paused


class _Tracer:
    """Patches GradientTape.gradient and stop_recording while a script runs."""

    def __init__(self):
        self.calls = []          # (tape, target, sources, output_gradients, entries, tracked, rec)
        self.inner = {}          # tape -> [InnerGradient]
        self.stopped = {}        # tape -> [ops]
        self.watched = {}        # tape -> ids of the tensors passed to tape.watch

    def __enter__(self):
        tracer = self
        GT, SR = _tape_module.GradientTape, _tape_module._StopRecording
        self.saved = (GT.gradient, SR.__enter__, SR.__exit__, GT.watch)
        gradient, enter, exit_, watch = self.saved

        def traced_watch(tape, tensor):
            watch(tape, tensor)
            tracer.watched.setdefault(tape, set()).update(
                t._id for t in gv.nest.flatten(tensor) if isinstance(t, Tensor))

        def traced_gradient(tape, target, sources, output_gradients=None, *args, **kwargs):
            recording = [t for t in _tape_module._state.recording if isinstance(t, GT)]
            before = {t: len(t._entries) for t in recording}
            state = (list(tape._entries), set(tape._tracked))
            result = gradient(tape, target, sources, output_gradients, *args, **kwargs)
            for t, n in before.items():
                new = t._entries[n:]
                if new:
                    tracer.inner.setdefault(t, []).append(InnerGradient(
                        target, gv.nest.flatten(sources), gv.nest.flatten(result),
                        {id(op) for op in new}, output_gradients is not None))
            tracer.calls.append((tape, target, sources, output_gradients) + state + (
                list(tracer.inner.get(tape, [])), list(tracer.stopped.get(tape, [])),
                set(tracer.watched.get(tape, ()))))
            return result

        def traced_enter(region):
            result = enter(region)
            region._spy = _RegionSpy(region._tape)
            _tape_module._state.recording.append(region._spy)
            return result

        def traced_exit(region, *exc):
            spy = getattr(region, "_spy", None)
            if spy is not None and spy in _tape_module._state.recording:
                _tape_module._state.recording.remove(spy)
                tracer.stopped.setdefault(region._tape, []).extend(spy._entries)
            return exit_(region, *exc)

        GT.gradient, SR.__enter__, SR.__exit__ = traced_gradient, traced_enter, traced_exit
        GT.watch = traced_watch
        return self

    def __exit__(self, *exc):
        GT, SR = _tape_module.GradientTape, _tape_module._StopRecording
        GT.gradient, SR.__enter__, SR.__exit__, GT.watch = self.saved
        return False


def trace_script(path, call=-1):
    """Run the script at `path` (the user chose to run it) and capture one gradient call."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise DocumentError("no such script", where=path)
    try:
        with open(path, encoding="utf-8") as f:
            code = compile(f.read(), path, "exec")
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as e:
        raise DocumentError(f"cannot read the script: {type(e).__name__}: {e}"[:300],
                            where=path) from None
    namespace = {"__name__": "__main__", "__file__": path}
    saved_argv, saved_path = sys.argv, list(sys.path)
    tracer = _Tracer()
    try:
        sys.argv = [path]
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        with tracer:
            exec(code, namespace)  # noqa: S102 - the user asked to run this script
    except SystemExit as e:
        if e.code not in (None, 0):
            raise DocumentError(f"the script exited with status {e.code}", where=path) from None
    except Exception as e:  # noqa: BLE001 - the script's own error, reported in words
        if not tracer.calls:
            raise DocumentError(f"the script failed: {type(e).__name__}: {e}"[:300],
                                where=path) from None
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
    if not tracer.calls:
        raise DocumentError("the script computed no tape.gradient(...)", where=path)
    (tape, target, sources, output_gradients, entries, tracked, inner, stopped,
     watched) = tracer.calls[call]
    names, layers = script_names(namespace)
    title = os.path.splitext(os.path.basename(path))[0]
    return from_tape(tape, target, sources, output_gradients, title=f"Traced {title}",
                     entries=entries, tracked=tracked,
                     recording=Recording(inner, stopped, names, layers, watched))
