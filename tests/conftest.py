import os

# Before anything imports Qt: without a display, Qt aborts the test process.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import subprocess

import pytest


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
