"""Every file gradviz writes: atomic, the old file kept on failure, mode, links and umask
respected (graph/atomic.py); and only regular files are read, at most the size limit."""
import errno
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradviz.graph import fileformat
from gradviz.graph.atomic import umask, write_bytes, write_file
from gradviz.graph.errors import DocumentError

pytestmark = pytest.mark.cpu_independent("files, their modes, links and leftovers; refusals' messages")

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "samples" / "004_matmul_sum.json"


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def _leftovers(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.endswith(".part")]


def test_umask_is_read_without_changing_it(umask_022):
    assert umask() == 0o022
    os.umask(0o027)
    assert umask() == 0o027


def test_a_new_document_honours_the_umask(tmp_path, umask_022):
    doc = fileformat.load(str(SEED))
    fileformat.save(doc, str(tmp_path / "new.gradviz.json"))
    assert _mode(tmp_path / "new.gradviz.json") == 0o644
    os.umask(0o077)
    fileformat.save(doc, str(tmp_path / "private.gradviz.json"))
    assert _mode(tmp_path / "private.gradviz.json") == 0o600


def test_saving_keeps_an_existing_files_mode(tmp_path, umask_022):
    path = tmp_path / "shared.gradviz.json"
    path.write_text("old")
    os.chmod(path, 0o664)
    fileformat.save(fileformat.load(str(SEED)), str(path))
    assert _mode(path) == 0o664
    assert fileformat.load(str(path)).title == fileformat.load(str(SEED)).title


def test_saving_through_a_symlink_writes_its_target(tmp_path, umask_022):
    real = tmp_path / "real" / "doc.gradviz.json"
    real.parent.mkdir()
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.gradviz.json"
    link.symlink_to(real)
    fileformat.save(fileformat.load(str(SEED)), str(link))
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == fileformat.dumps(fileformat.load(str(SEED)))
    assert _mode(real) == 0o640
    assert not _leftovers(tmp_path) and not _leftovers(real.parent)


def test_saving_a_hard_linked_file_keeps_the_link(tmp_path):
    first = tmp_path / "a.gradviz.json"
    first.write_text("old content, longer than nothing " * 3)
    second = tmp_path / "b.gradviz.json"
    os.link(first, second)
    inode = os.stat(first).st_ino
    fileformat.save(fileformat.load(str(SEED)), str(second))
    assert first.read_bytes() == second.read_bytes()
    assert fileformat.load(str(first)).title == fileformat.load(str(SEED)).title
    assert os.stat(first).st_ino == os.stat(second).st_ino == inode
    assert os.stat(first).st_nlink == 2
    assert not _leftovers(tmp_path)


def test_a_failing_writer_leaves_the_old_file(tmp_path):
    path = tmp_path / "picture.png"
    path.write_bytes(b"old picture")

    def broken(f):
        f.write(b"half a pic")
        raise RuntimeError("the encoder stopped")
    with pytest.raises(RuntimeError):
        write_file(path, broken)
    assert path.read_bytes() == b"old picture"
    assert not _leftovers(tmp_path)


def test_writing_over_a_folder_is_refused(tmp_path):
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        write_bytes(tmp_path / "folder", b"x")
    assert (tmp_path / "folder").is_dir()


# -- reading ---------------------------------------------------------------------------
def test_a_pipe_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.gradviz.json"
    os.mkfifo(fifo)
    start = time.perf_counter()
    with pytest.raises(DocumentError, match="pipe, a device"):
        fileformat.load(str(fifo))
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_without_reading_it(device):
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(DocumentError, match="pipe, a device"):
        fileformat.load(device)


def test_a_file_above_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.gradviz.json"
    path.write_bytes(b" " * 5000)
    monkeypatch.setattr(fileformat, "MAX_FILE_BYTES", 4096)
    with pytest.raises(DocumentError, match="at most 0 MiB|may be at most"):
        fileformat.load(str(path))


@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_the_cli_refuses_what_is_not_a_regular_file(tmp_path, what):
    if what == "fifo":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)
    else:
        path = what
    run = subprocess.run([sys.executable, "-m", "gradviz", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "not a document file" in run.stderr and "Traceback" not in run.stderr


# -- a full disk (conftest's full_disk: a 64 KiB tmpfs) ----------------------------
def test_a_full_disk_keeps_the_old_document(full_disk, fill_disk):
    path = full_disk / "doc.gradviz.json"
    path.write_text("the old document")
    fill_disk(full_disk)
    doc = fileformat.load(str(SEED))
    with pytest.raises(OSError) as caught:
        fileformat.save(doc, str(path))
    assert caught.value.errno == errno.ENOSPC
    assert path.read_text() == "the old document"
    assert not _leftovers(full_disk)


def test_a_full_disk_keeps_a_hard_linked_document(full_disk, fill_disk):
    path = full_disk / "doc.gradviz.json"
    path.write_text("the old document")
    os.link(path, full_disk / "other-name.json")
    fill_disk(full_disk)
    with pytest.raises(OSError) as caught:
        write_bytes(path, b"x" * 20000)
    assert caught.value.errno == errno.ENOSPC
    assert path.read_text() == "the old document"
    assert (full_disk / "other-name.json").read_text() == "the old document"
    assert not _leftovers(full_disk)


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_export_to_a_full_disk_exits_2_and_keeps_the_old_file(full_disk, fill_disk, suffix):
    out = full_disk / f"graph.{suffix}"
    out.write_bytes(b"the old picture")
    fill_disk(full_disk)
    run = subprocess.run([sys.executable, "-m", "gradviz", "export", str(SEED), "-o", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 2, run.stdout + run.stderr
    assert "wrote" not in run.stdout
    assert "disk" in run.stderr.lower() or "space" in run.stderr.lower()
    assert out.read_bytes() == b"the old picture"
    assert not _leftovers(full_disk)


def test_a_document_over_the_node_limit_is_refused_saying_the_limit():
    """300,000 small nodes (30 MB, within every other limit) took 135 s to open and 8 s
    per edit: the node count has a limit, and the refusal says it."""
    import json
    value = {"dtype": "float32", "shape": [], "data": [1.0]}
    nodes = [{"id": f"c{i}", "kind": "constant", "value": value}
             for i in range(fileformat.MAX_NODES + 1)]
    text = json.dumps({"format": "gradviz", "version": 1, "nodes": nodes})
    with pytest.raises(DocumentError, match=f"at most {fileformat.MAX_NODES} nodes"):
        fileformat.loads(text, strict=False)
    fileformat.loads(json.dumps({"format": "gradviz", "version": 1, "nodes": nodes[:-1]}),
                     strict=False)


WRITER = """
import sys
from gradviz.graph.atomic import write_file
path, mode = sys.argv[1], sys.argv[2]
def write(f):
    for _ in range(200):
        f.write(b" " * (1 << 20))
        if mode == "wait":
            print("writing", flush=True)
            sys.stdin.readline()   # a save in progress, held open until the test says
            return
write_file(path, write)
while mode == "loop":   # save after save of a 200 MB document, until killed
    write_file(path, write)
"""


def _writer(path, mode):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), mode], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _kill_mid_save(path):
    """A process saving `path` again and again, killed with SIGKILL while a save is half
    written: its temporary file stays (nothing in the process can remove it)."""
    writer = _writer(path, "loop")
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            parts = [p for p in path.parent.iterdir() if p.name.endswith(".part")]
            if parts and parts[0].stat().st_size > (4 << 20):
                break
            time.sleep(0.01)
        else:
            raise AssertionError("the writer never got far into a save")
    finally:
        writer.kill()
        writer.wait(30)
    return _leftovers(path.parent)


@pytest.mark.parametrize("then", ["save", "open"])
def test_a_save_killed_with_sigkill_leaves_parts_the_next_save_or_open_removes(tmp_path, then):
    """kill -9 during a save left `.<name>-*.part` beside the document for ever (the
    auditor found one of 1.35 MB and three empty ones after restarts). The next save or
    open of that document removes them; another process's save in progress is kept."""
    path = tmp_path / "big.gradviz.json"
    fileformat.save(fileformat.load(str(SEED)), str(path))
    stale = _kill_mid_save(path) + _kill_mid_save(path)
    assert len(stale) == 2
    other = tmp_path / "other.gradviz.json"
    (tmp_path / ".other.gradviz.json-abc.part").write_bytes(b"another document's")
    live = _writer(path, "wait")   # a live save of the same document, half written
    try:
        assert live.stdout.readline() == "writing\n"
        [held] = [n for n in _leftovers(tmp_path) if n not in stale and "other" not in n]
        if then == "save":
            fileformat.save(fileformat.load(str(SEED)), str(path))
        else:
            fileformat.load(str(path))
        assert sorted(_leftovers(tmp_path)) == sorted([held, ".other.gradviz.json-abc.part"])
        live.stdin.write("\n")
        live.stdin.flush()
        assert live.wait(60) == 0
    finally:
        if live.poll() is None:
            live.kill()
            live.wait(30)
    assert _leftovers(tmp_path) == [".other.gradviz.json-abc.part"]
    assert not other.exists()
    assert path.stat().st_size == 1 << 20   # the live save completed
