"""File ▸ Import from script: `gradviz trace` in a child process, behind a progress dialog
whose Cancel stops it and the script, so a slow or endless script never freezes the window.

The import sets limits the command line leaves open (`--timeout`, `--max-memory`), and keeps
only the last TAIL_BYTES of the script's output: a chatty script printed 1.5 GB, all of it
held in memory before.
"""
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

from PySide6.QtCore import QProcess, QProcessEnvironment, Qt
from PySide6.QtWidgets import QProgressDialog

from ...graph import fileformat
from ...graph.errors import DocumentError
from ...graph.trace_process import PACKAGE_ROOT, size_text

IMPORT_TIMEOUT = 600          # seconds
TAIL_BYTES = 64 * 1024        # of the script's stdout and of its stderr


def import_memory_limit():
    """Half of the machine's memory (at least 1 GB): the script may not take the rest."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30
    return max(1 << 30, total // 2)


class OutputTail:
    """The last `limit` bytes of a stream."""

    def __init__(self, limit=TAIL_BYTES):
        self.limit, self.data, self.dropped = limit, bytearray(), 0

    def add(self, chunk):
        self.data += chunk
        extra = len(self.data) - self.limit
        if extra > 0:
            del self.data[:extra]
            self.dropped += extra

    def text(self):
        return bytes(self.data).decode("utf-8", errors="replace")


@dataclass
class Imported:
    """What an import gave: a document (None if there is none) and what to tell the user."""

    doc: object = None
    error: str = ""                                  # why there is no document
    warnings: list = field(default_factory=list)     # said with a document
    cancelled: bool = False
    output: str = ""                                 # the tail of the script's stdout

    def last_lines(self, n=8, width=160):
        """The script's last `n` lines of output (gradviz's own left out), each cut to
        `width`: shown when an import fails, as a hint of how far the script got."""
        lines = [line for line in self.output.splitlines()
                 if line.strip() and not line.startswith(("gradviz: ", "wrote "))]
        return [line if len(line) <= width else line[:width - 1] + "…" for line in lines[-n:]]


def run_trace(window, script):
    """`gradviz trace SCRIPT` in a child process with a Cancel that stops it (the window's
    `_import_process` is the child while it runs)."""
    folder = tempfile.mkdtemp(prefix="gradviz-import-")
    out = os.path.join(folder, "traced.gradviz.json")
    process = QProcess(window)
    env = QProcessEnvironment.systemEnvironment()
    env.insert("PYTHONPATH", os.pathsep.join(
        p for p in (str(PACKAGE_ROOT), env.value("PYTHONPATH")) if p))
    process.setProcessEnvironment(env)
    process.setWorkingDirectory(os.path.dirname(script))
    process.setProgram(sys.executable)
    memory = import_memory_limit()
    process.setArguments(["-m", "gradviz", "trace", script, "-o", out,
                          "--timeout", str(IMPORT_TIMEOUT), "--max-memory", str(memory)])
    stdout, stderr = OutputTail(), OutputTail()
    process.readyReadStandardOutput.connect(
        lambda: stdout.add(bytes(process.readAllStandardOutput())))
    process.readyReadStandardError.connect(
        lambda: stderr.add(bytes(process.readAllStandardError())))
    name = os.path.basename(script)
    dialog = QProgressDialog(
        f"Running {name} and recording its tape…\nIt is stopped after "
        f"{IMPORT_TIMEOUT // 60} minutes, or if it needs more than {size_text(memory)} of "
        "memory.", "Cancel", 0, 0, window)
    dialog.setWindowTitle("Import from script")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    process.finished.connect(dialog.accept)
    process.errorOccurred.connect(
        lambda e: dialog.accept() if e == QProcess.ProcessError.FailedToStart else None)
    window._import_process = process
    try:
        process.start()
        dialog.exec()
        if dialog.wasCanceled() or process.state() != QProcess.ProcessState.NotRunning:
            process.terminate()   # SIGTERM: trace stops the script's processes, then ends
            if not process.waitForFinished(3000):
                process.kill()
                process.waitForFinished(3000)
            return Imported(cancelled=True)
        if process.error() == QProcess.ProcessError.FailedToStart:
            return Imported(error="Python could not be started")
        stdout.add(bytes(process.readAllStandardOutput()))
        stderr.add(bytes(process.readAllStandardError()))
        lines = [line.strip() for line in stderr.text().splitlines() if line.strip()]
        code = process.exitCode()
        if process.exitStatus() != QProcess.ExitStatus.NormalExit or code not in (0, 1):
            reason = _trace_failure(lines)   # the dialog names the script: once is enough
            return Imported(error=reason.removeprefix(f"{script}: "), output=stdout.text())
        warnings = [line[len("gradviz: warning:"):].strip() for line in lines
                    if line.startswith("gradviz: warning:")]
        try:
            doc = fileformat.load(out, strict=False)
        except (DocumentError, OSError) as e:
            return Imported(error=str(e), output=stdout.text())
        return Imported(doc=doc, warnings=warnings, output=stdout.text())
    finally:
        window._import_process = None
        dialog.deleteLater()
        process.deleteLater()
        shutil.rmtree(folder, ignore_errors=True)


def _trace_failure(lines):
    """The reason a `gradviz trace` child gave, without its prefix."""
    for line in reversed(lines):
        if line.startswith("gradviz: error:"):
            return line[len("gradviz: error:"):].strip().rstrip(".")
    return (lines[-1] if lines else "the script stopped with an error").rstrip(".")
