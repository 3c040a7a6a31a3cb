import os
import subprocess
from pathlib import Path

import pytest

# Before anything imports Qt: without a display, Qt aborts the test process.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TESTS = Path(__file__).resolve().parent
# Tests that assert computed floats (or text printed from them): `.ci/run` runs them again
# as other CPUs compute (`-m numeric`). Whole folders here; app modules mark themselves.
NUMERIC = ("engine", "graph", "story", "render", "test_cli.py")


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.is_relative_to(TESTS) and path.relative_to(TESTS).parts[0] in NUMERIC:
            item.add_marker(pytest.mark.numeric)


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
