"""Tracing a script: `trace_script` runs a script the user chose and captures one of its
`tape.gradient(...)` calls as a document (capture.from_tape).

Running it, it also notes what the tape alone cannot tell: an inner `tape.gradient`
computed while the captured tape records (a 'gradient' node), the ops run inside
`tape.stop_recording()` (a stop_recording region), and the script's own variable names.
What `tape.reset()` threw away is gone: its results become constants.
"""
import collections
import os
import sys
import threading
import time
import traceback
import types
import weakref
from dataclasses import dataclass

import gradviz as gv
from gradviz.engine import tape as _tape_module
from gradviz.engine.tensor import Tensor

from .capture import InnerGradient, Recording, from_tape, script_names
from ..engine.errors import counted
from .document import TEXT_LIMITS, Document, clean_text
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
    """Patches GradientTape.gradient and stop_recording while a script runs.

    It keeps only the gradient calls a document may show (`call`: the K-th from 1, or the
    K-th from the end when negative), so a training loop of 1,500 steps holds one tape,
    not 1,500; the tapes it only watched are held weakly and go when the script drops them.
    """

    active = None   # the tracer of the script running now

    def __init__(self, call=-1, phase=None):
        self.call, self.phase, self.told = call, phase, 0.0
        self.count = 0           # gradient calls made so far
        # (index, tape, target, sources, output_gradients, entries, tracked, inner, stopped,
        # watched) of the calls kept
        self.calls = collections.deque(maxlen=-call if call < 0 else 1)
        self.inner = weakref.WeakKeyDictionary()     # tape -> [InnerGradient]
        self.stopped = weakref.WeakKeyDictionary()   # tape -> [ops]
        self.watched = weakref.WeakKeyDictionary()   # tape -> ids passed to tape.watch

    def heard(self):
        """Tell `phase` of the calls made, at most twice a second."""
        now = time.monotonic()
        if self.phase is not None and (self.count == 1 or now - self.told > 0.5):
            self.told = now
            self.phase("running")

    def wanted(self):
        """Is the call being made now one a document may show?"""
        return self.call < 0 or self.count + 1 == self.call

    def chosen(self):
        """The kept call `call` names, or None (the script made fewer calls)."""
        if self.call < 0:
            return self.calls[0] if len(self.calls) == -self.call else None
        return self.calls[0] if self.calls else None

    def __enter__(self):
        tracer = _Tracer.active = self
        # A tf.function's compiled replays make no gradient call to see: run them eagerly.
        self.saved_eagerly = gv.config.functions_run_eagerly()
        gv.config.run_functions_eagerly(True)
        GT, SR = _tape_module.GradientTape, _tape_module._StopRecording
        self.saved = (GT.gradient, SR.__enter__, SR.__exit__, GT.watch)
        gradient, enter, exit_, watch = self.saved

        def traced_watch(tape, tensor):
            watch(tape, tensor)
            tracer.watched.setdefault(tape, set()).update(
                t._id for t in gv.nest.flatten(tensor) if isinstance(t, Tensor))

        def traced_gradient(tape, target, sources, output_gradients=None, *args, **kwargs):
            recording = [t for t in _tape_module.stack() if isinstance(t, GT)]
            before = {t: len(t._entries) for t in recording}
            state = (list(tape._entries), set(tape._tracked)) if tracer.wanted() else None
            result = gradient(tape, target, sources, output_gradients, *args, **kwargs)
            for t, n in before.items():
                new = t._entries[n:]
                if new:
                    tracer.inner.setdefault(t, []).append(InnerGradient(
                        target, gv.nest.flatten(sources), gv.nest.flatten(result),
                        {id(op) for op in new}, output_gradients is not None))
            tracer.count += 1
            tracer.heard()
            if state is not None:
                tracer.calls.append((tracer.count, tape, target, sources, output_gradients)
                                    + state + (list(tracer.inner.get(tape, [])),
                                               list(tracer.stopped.get(tape, [])),
                                               set(tracer.watched.get(tape, ()))))
            return result

        def traced_enter(region):
            result = enter(region)
            region._spy = _RegionSpy(region._tape)
            _tape_module.stack().append(region._spy)
            return result

        def traced_exit(region, *exc):
            spy = getattr(region, "_spy", None)
            if spy is not None and spy in _tape_module.stack():
                _tape_module.stack().remove(spy)
                tracer.stopped.setdefault(region._tape, []).extend(spy._entries)
            return exit_(region, *exc)

        GT.gradient, SR.__enter__, SR.__exit__ = traced_gradient, traced_enter, traced_exit
        GT.watch = traced_watch
        return self

    def __exit__(self, *exc):
        gv.config.run_functions_eagerly(self.saved_eagerly)
        _Tracer.active = None
        GT, SR = _tape_module.GradientTape, _tape_module._StopRecording
        GT.gradient, SR.__enter__, SR.__exit__, GT.watch = self.saved
        return False


@dataclass
class Traced:
    """What `trace` made: the document of gradient call `shown` (from 1) of `calls`, and
    the script's failure after that call, in words ('' when it ended well)."""

    doc: Document
    shown: int
    calls: int
    failure: str = ""

    def which(self):
        """Which call the document shows, in words ('' when the script made only one)."""
        if self.calls == 1:
            return ""
        return f"gradient call {self.shown} of {self.calls}"


def trace_script(path, call=-1):
    """The document of one gradient call of the script at `path` (see `trace`)."""
    return trace(path, call).doc


def read_script(path):
    """The compiled code of the script at `path`, run by nothing: a file that is not a Python
    script (a picture, a document, a syntax error) is refused in words before anyone is
    asked to run it."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise DocumentError("no such script", where=path)
    try:
        with open(path, encoding="utf-8") as f:
            return compile(f.read(), path, "exec")
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as e:
        raise DocumentError(f"cannot read the script: {type(e).__name__}: {e}"[:300],
                            where=path) from None


def trace(path, call=-1, progress=None, max_nodes=None, phase=None):
    """Run the script at `path` (the user chose to run it) and capture its gradient call
    `call` (1 is the first, -1 the last). `progress(done, total)` hears the conversion;
    more than `max_nodes` nodes are refused before they are made; `phase(name, **facts)`
    hears 'running', 'waiting' (for the script's threads) and 'converting'.

    As Python does at exit, the script's non-daemon threads are waited for (their gradient
    calls count). A process the script forked that runs on to the script's end leaves
    here with the script's status: only the original process makes the document."""
    if not isinstance(call, int) or call == 0:
        raise DocumentError(f"--call {call}: gradient calls count from 1 (the first); -1 is "
                            "the last", where="--call")
    path = os.fspath(path)
    code = read_script(path)
    # The script is the __main__ module while it runs, as under `python script.py`: pickle
    # (multiprocessing's workers) finds its functions and classes there.
    main = types.ModuleType("__main__")
    main.__file__ = path
    namespace = main.__dict__
    saved_argv, saved_path, saved_main = sys.argv, list(sys.path), sys.modules.get("__main__")
    failure, status = "", 0
    started, threads = os.getpid(), set(threading.enumerate())
    phase = phase or (lambda name, **facts: None)
    tracer = _Tracer(call, phase)
    try:
        sys.argv = [path]
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        sys.modules["__main__"] = main
        with tracer:
            phase("running")
            try:
                exec(code, namespace)  # noqa: S102 - the user asked to run this script
            finally:
                if os.getpid() == started:
                    _join_new_threads(threads, phase)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else int(e.code is not None)
        if e.code not in (None, 0):
            failure = f"the script exited with status {e.code}"
    except Exception as e:  # noqa: BLE001 - the script's own error, reported in words
        status = 1
        failure = f"the script failed: {type(e).__name__}: {e}{_line_of(e, path)}"[:300]
        if os.getpid() != started:
            traceback.print_exc()
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
    if os.getpid() != started:   # a fork of the script reached its end
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    phase("converting")
    chosen = tracer.chosen()
    if chosen is None:
        if not tracer.count:
            raise DocumentError(failure or "the script computed no tape.gradient(...)",
                                where=path)
        made = f"the script made {_calls(tracer.count)}"
        raise DocumentError(f"{made}{' before ' + failure if failure else ''}; --call {call} "
                            f"is not one of them", where=path)
    (shown, tape, target, sources, output_gradients, entries, tracked, inner, stopped,
     watched) = chosen
    tracer.calls.clear()
    names, layers = script_names(namespace)
    traced = Traced(None, shown, tracer.count, failure)
    title = clean_text("title", os.path.splitext(os.path.basename(path))[0])
    which = f" ({traced.which()})" if traced.which() else ""
    title = f"Traced {title[:TEXT_LIMITS['title'] - len('Traced ') - len(which)]}{which}"
    traced.doc = from_tape(tape, target, sources, output_gradients, title=title,
                           entries=entries, tracked=tracked,
                           recording=Recording(inner, stopped, names, layers, watched),
                           progress=progress, max_nodes=max_nodes)
    return traced


def _join_new_threads(before, phase):
    """Wait for the non-daemon threads the script started, as Python does at exit."""
    waiting = [t for t in threading.enumerate()
               if t not in before and not t.daemon and t.is_alive()]
    if waiting:
        phase("waiting", threads=[t.name for t in waiting])
        for t in waiting:
            t.join()


def gradient_calls():
    """The gradient calls the script being traced has made so far (0 when none is)."""
    return _Tracer.active.count if _Tracer.active is not None else 0


def _calls(n):
    return counted(n, "gradient call")


def _line_of(error, path):
    """' (line N)': where in the script the error was raised, when it was there."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (line {line})" if line else ""
