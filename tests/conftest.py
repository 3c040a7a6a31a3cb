import os
import subprocess
import sys
from pathlib import Path

import pytest

from scheduling import slow_first

# Before anything imports Qt: without a display, Qt aborts the test process.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TESTS = Path(__file__).resolve().parent
# Tests that assert computed floats (or text printed from them): `.ci/run` runs them again
# as other CPUs compute (`-m numeric`). Whole folders here, but for a test marked
# cpu_independent(why): what it asserts, no CPU computes differently (a message, which
# modules a process loads, bytes coded from integers); app modules mark themselves.
NUMERIC = ("engine", "graph", "story", "render", "test_cli.py")


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.is_relative_to(TESTS) and path.relative_to(TESTS).parts[0] in NUMERIC:
            independent = item.get_closest_marker("cpu_independent")
            if independent is None:
                item.add_marker(pytest.mark.numeric)
            elif not independent.args:
                raise pytest.UsageError(f"{item.nodeid}: cpu_independent(why) says why")
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    items[:] = slow_first(items, workers)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item):
    """Delete the widgets a test leaves to deleteLater (pytest-qt closes a test's windows
    that way) once it has ended. Outside a running event loop Qt defers them until some later
    test waits in one, so closed windows piled up in their hundreds (10,000 widgets), and each
    new window's style sheet and palette went through them all: test_presentation.py took
    161 s instead of 51."""
    result = yield
    qt = sys.modules.get("PySide6.QtCore")      # a test that used Qt has imported it
    if qt is not None and qt.QCoreApplication.instance() is not None:
        qt.QCoreApplication.sendPostedEvents(None, qt.QEvent.Type.DeferredDelete)
    return result


@pytest.fixture
def full_disk(tmp_path):
    """A folder on a 64 KiB file system (a tmpfs, mounted as root), unmounted after the
    test: where save and export meet a full disk."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                             capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


@pytest.fixture
def fill_disk():
    """fill_disk(folder, leave=0): take the free space of `folder`'s disk but `leave` bytes."""
    def fill(folder, leave=0):
        info = os.statvfs(folder)
        with open(os.path.join(folder, "filler"), "wb") as f:
            f.write(b"f" * max(0, info.f_bavail * info.f_frsize - leave))
    return fill


@pytest.fixture
def labelled_mlp():
    """labelled_mlp(): x @ W1 -> relu -> @ W2 -> reduce_sum with the editor's ids (x1, w2,
    matmul3 …) and the student's labels x, W1, W2 (issue 20 §2)."""
    import numpy as np

    from gradviz.graph import catalog
    from gradviz.graph.document import CONSTANT, OP, VARIABLE, Document, Node, Port

    def op(node_id, name):
        return Node(node_id, OP, op=name, attrs=dict(catalog.OPS[name].attrs))

    def make():
        rng = np.random.default_rng(3)
        doc = Document(title="mlp")
        doc.add(Node("x1", CONSTANT, label="x", value=rng.normal(size=(2, 3)).astype(np.float32)))
        doc.add(Node("w2", VARIABLE, label="W1", value=rng.normal(size=(3, 4)).astype(np.float32)))
        doc.add(op("matmul3", "matmul"))
        doc.add(op("relu4", "nn.relu"))
        doc.add(Node("w5", VARIABLE, label="W2", value=rng.normal(size=(4, 1)).astype(np.float32)))
        doc.add(op("matmul6", "matmul"))
        doc.add(op("reduce_sum7", "reduce_sum"))
        for src, dst, k in [("x1", "matmul3", 0), ("w2", "matmul3", 1), ("matmul3", "relu4", 0),
                            ("relu4", "matmul6", 0), ("w5", "matmul6", 1),
                            ("matmul6", "reduce_sum7", 0)]:
            doc.connect(src, dst, dst_index=k)
        doc.targets, doc.sources = [Port("reduce_sum7")], [Port("w2"), Port("w5")]
        return doc
    return make
