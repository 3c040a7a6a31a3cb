"""`gradviz trace` runs the user's script in a child process that it watches.

The child (`python -m gradviz.graph.trace_process`) runs the script and writes the document
(cli_commands.trace_command); this process only waits for it. So whatever the script does
to its own process, the user hears what happened, in one line, with a defined exit status:

- it ends its process itself (os._exit, a crash, a signal): nothing is written, status 2,
  saying how and after how many gradient calls;
- it runs past `timeout` seconds, or needs more than `max_memory` bytes: it is stopped
  (a MemoryError in the script, or a kill), status 2;
- it forks: only the original process writes the document; processes still running when
  it ends are stopped, and a warning says so;
- its non-daemon threads are waited for, as Python does at exit; `timeout` bounds that.

The child runs in a session of its own, so stopping it stops every process it started.
It tells its phase, and at the end its result, in a small JSON status file.
"""
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .atomic import remove_stale_parts

PACKAGE_ROOT = Path(__file__).resolve().parents[2]   # the folder that holds `gradviz`
_PR_SET_PDEATHSIG = 1


def supervise(script, out_path, call=-1, timeout=None, max_memory=None, warn=None):
    """(code, text) as cli_commands.trace_command's, for `script` run in a watched child
    (`timeout` in seconds and `max_memory` in bytes: None for no limit)."""
    fd, status_path = tempfile.mkstemp(prefix="gradviz-trace-", suffix=".json")
    os.close(fd)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH"))
                                        if p)
    command = [sys.executable, "-m", "gradviz.graph.trace_process", status_path, str(call),
               str(max_memory or 0), os.fspath(script), os.fspath(out_path)]
    child = subprocess.Popen(command, env=env, start_new_session=True,
                             preexec_fn=lambda: _child_limits(max_memory))
    timed_out = False
    try:
        with _stopping_on_sigterm():
            try:
                returncode = child.wait(timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _stop_group(child.pid)
                returncode = child.wait()
    except BaseException:   # Ctrl+C, SIGTERM (the app's Cancel): the script stops too
        _stop_group(child.pid)
        child.wait()
        _remove(status_path)
        raise
    leftovers = _stop_group(child.pid)
    status = _read_status(status_path)
    _remove(status_path)
    for line in status.get("warnings", []):
        warn and warn(line)
    if status.get("phase") == "done":
        if leftovers or status.get("forks"):
            warn and warn(f"{script}: the script forked (os.fork or multiprocessing); only "
                          "the gradient calls of its original process are traced"
                          + ("; processes it started were still running and were stopped"
                             if leftovers else ""))
        if timed_out:
            warn and warn(f"{script}: the script's process did not end after writing the "
                          f"document; it was stopped at the time limit (--timeout {timeout:g})")
        return status["code"], status["text"]
    if status.get("phase") == "writing":
        remove_stale_parts(out_path)   # its writer was stopped: no lock holds it
    return 2, f"{script}: {_what_happened(status, returncode, timed_out, timeout, max_memory)}"


def _what_happened(status, returncode, timed_out, timeout, max_memory):
    """Why the child ended without a result, in words."""
    phase = status.get("phase", "starting")
    calls = status.get("calls", 0)
    made = f"after {calls} gradient call{'s' if calls != 1 else ''}"
    during = {
        "starting": "while Python started",
        "running": f"while the script ran ({made})",
        "waiting": "while waiting for the script's thread"
                   + ("s " if len(status.get("threads", [])) != 1 else " ")
                   + ", ".join(repr(t) for t in status.get("threads", [])) + " to end",
        "converting": "while converting its tape to a document",
        "writing": "while writing the document",
        "os._exit": "",
    }.get(phase, "")
    if timed_out:
        return (f"stopped at the time limit of {timeout:g} s (--timeout), {during}; nothing "
                "was written")
    if phase == "os._exit":
        return (f"the script ended its process with os._exit({status.get('exit')}) {made}, "
                "so its tape could not be saved; nothing was written (let the script end "
                "normally, or call sys.exit)")
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        memory = (f"; it may have run out of memory (--max-memory {size_text(max_memory)})"
                  if max_memory else "")
        return f"the script's process was killed by {name} {during}{memory}; nothing was written"
    small = (f" (--max-memory {size_text(max_memory)} may be too little for Python and "
             "gradviz to start)" if max_memory and phase == "starting" else "")
    return (f"the script's process ended with status {returncode} {during}, before its tape "
            f"was saved; nothing was written{small}")


def size_text(n):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def _child_limits(max_memory):
    """In the child, before it runs Python: the memory limit, and death with this process."""
    if max_memory:
        import resource  # noqa: PLC0415 - POSIX only, needed only here
        resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass   # not Linux: a killed `gradviz trace` may leave its child running


class _stopping_on_sigterm:
    """SIGTERM (the app's Cancel) raises SystemExit here, so the child is stopped too."""

    def __enter__(self):
        try:
            self.saved = signal.signal(signal.SIGTERM, self._raise)
        except ValueError:   # not the main thread: leave signals alone
            self.saved = None

    def __exit__(self, *exc):
        if self.saved is not None:
            signal.signal(signal.SIGTERM, self.saved)

    @staticmethod
    def _raise(signum, frame):
        raise SystemExit(128 + signum)


def _stop_group(pgid):
    """Kill every process of the child's session; True if any was still there."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _read_status(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f) or {}
    except (OSError, ValueError):
        return {}


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


# -- the child -----------------------------------------------------------------------------

class _Progress:
    """`done of total` on one line of a terminal's stderr, redrawn in place."""

    def __init__(self, what, unit):
        self.what, self.unit, self.shown = what, unit, False

    def __call__(self, done, total):
        if total >= 1000:   # a small tape converts in a blink
            sys.stderr.write(f"\rgradviz: {self.what}: {done:,} of {total:,} {self.unit}")
            sys.stderr.flush()
            self.shown = True

    def end(self):
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def child_main(argv):
    """Run the script and write the document; the result goes to the status file."""
    status_path, call, max_memory, script, out_path = argv
    max_memory = int(max_memory)
    from . import tracing   # noqa: PLC0415 - after the memory limit is in force
    from .cli_commands import trace_command  # noqa: PLC0415

    original = os.getpid()
    facts = {"phase": "starting", "calls": 0}

    def report(phase=None, **more):
        if os.getpid() != original:   # a fork of the script: the parent reports
            return
        facts.update(more, calls=tracing.gradient_calls() or facts["calls"])
        if phase:
            facts["phase"] = phase
        _write_status(status_path, facts)

    real_exit = os._exit

    def traced_exit(status):
        report("os._exit", exit=status)
        real_exit(status)

    os._exit = traced_exit
    forks = [0]
    os.register_at_fork(after_in_parent=lambda: forks.__setitem__(0, forks[0] + 1))
    warnings = []
    progress = _Progress("converting the tape", "ops") if sys.stderr.isatty() else None
    code, text = trace_command(script, out_path, int(call), progress=progress,
                               warn=warnings.append, phase=report)
    if progress is not None:
        progress.end()
    if code == 2 and max_memory and "MemoryError" in text:
        text += f" (the limit is --max-memory {size_text(max_memory)})"
    report("done", code=code, text=text, warnings=warnings, forks=forks[0])
    return code


def _write_status(path, facts):
    tmp = f"{path}.{os.getpid()}.part"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(facts, f)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
