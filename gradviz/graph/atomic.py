"""Write a file so that a crash, a writer's error or a full disk never leaves half of it.

Every file gradviz writes (a document, a recovery file, `trace` output, every export)
goes through `write_file`:

- the new content is written in full to a temporary file in the target's folder, the
  writer's own status is checked, the file is flushed to the disk (fsync), and only
  then does it replace the old file (rename): the old file stays whole until the new
  one is complete;
- a symbolic link is written through: its target gets the new content, the link stays;
- an existing file keeps its permissions (and owner, where allowed); a new file gets
  0666 less the user's umask (0644 under umask 022), as any program's new file does;
- a file with other hard links is rewritten in place, so every name sees the new
  content: the new content is first complete in the temporary file and its space is
  reserved in the old file (posix_fallocate) before a byte of the old file changes,
  so a full disk is found while the old file is still whole.

On failure the temporary file is removed and the error (an OSError, errno kept) is
raised; the old file is unchanged.

A writer killed outright (SIGKILL, power loss) cannot remove its temporary file: it stays
as `.<name>-<random>.part` beside the file. The writer holds an exclusive lock (flock)
on its temporary file while it writes; the system drops that lock when the process ends,
however it ends. `remove_stale_parts` (called before every write and when a document is
opened) removes the temporary files of a path that no process holds locked any more, so
another process's save in progress is never touched.
"""
import errno
import os
import stat
import tempfile
import time

try:
    import fcntl
except ImportError:   # no flock: stale temporary files are left alone
    fcntl = None

CHUNK = 1 << 20


def umask():
    """The process's umask, read without changing it where the system allows
    (os.umask sets while it reads: another thread creating a file meanwhile would get 0)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_file(path, write):
    """Call `write(f)` on a binary file that becomes `path` once `write` returns; returns
    what `write` returned. See the module's docstring for what is kept."""
    target = os.path.realpath(path)   # through symbolic links, to the file they name
    directory = os.path.dirname(target)
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise IsADirectoryError(21 if stat.S_ISDIR(old.st_mode) else 22,
                                "not a regular file", str(path))
    remove_stale_parts(target)
    fd, tmp = _locked_temporary(directory, _part_prefix(target))
    try:
        with os.fdopen(fd, "w+b") as f:
            result = write(f)
            f.flush()
            os.fsync(f.fileno())
            if old is not None and old.st_nlink > 1:
                _copy_in_place(f, target)
            else:
                _take_mode(f.fileno(), old)
        if old is not None and old.st_nlink > 1:
            os.unlink(tmp)
        else:
            os.replace(tmp, target)
            _sync_folder(directory)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return result


def _part_prefix(target):
    return "." + os.path.basename(target)[:40] + "-"


def _locked_temporary(directory, prefix):
    """A new temporary file, locked by this process. Between its creation and the lock
    another process's `remove_stale_parts` may see it unlocked and remove it: then the
    name no longer leads to the locked file and a new one is made."""
    while True:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".part")
        if fcntl is None:
            return fd, tmp
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(tmp).st_ino == os.fstat(fd).st_ino:
                return fd, tmp
        except FileNotFoundError:
            pass
        os.close(fd)


def remove_stale_parts(path):
    """Remove the temporary files that writers of `path` left when they were killed: those
    no live process holds locked and that were last written before this call. Returns the
    names removed. Errors (a read-only folder, a file removed meanwhile) are ignored."""
    if fcntl is None:
        return []
    started = time.time()
    target = os.path.realpath(path)
    directory, prefix = os.path.dirname(target), _part_prefix(target)
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".part")]
    except OSError:
        return []
    removed = []
    for name in names:
        part = os.path.join(directory, name)
        try:
            fd = os.open(part, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_mtime >= started:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)   # fails while its writer lives
            if os.stat(part).st_ino == info.st_ino:
                os.unlink(part)
                removed.append(name)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def write_bytes(path, data):
    """`write_file` of bytes (or text, as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return write_file(path, lambda f: f.write(data))


def _take_mode(fd, old):
    if old is None:
        os.fchmod(fd, 0o666 & ~umask())
        return
    if hasattr(os, "fchown"):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass   # another user's file: it becomes ours, as with any editor's save
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _copy_in_place(f, target):
    """Copy the complete temporary file `f` over the hard-linked `target`: reserve the
    space first (a full disk fails here, nothing written), then overwrite and trim."""
    size = f.seek(0, os.SEEK_END)
    with open(target, "r+b") as out:
        old_size = out.seek(0, os.SEEK_END)
        if size > old_size and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(out.fileno(), 0, size)
            except OSError as error:
                out.truncate(old_size)
                if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                    raise
                # a file system that cannot reserve space: write without the reservation
        out.seek(0)
        f.seek(0)
        while True:
            block = f.read(CHUNK)
            if not block:
                break
            out.write(block)
        out.truncate(size)
        out.flush()
        os.fsync(out.fileno())


def _sync_folder(directory):
    """Make the rename itself durable (best effort: not every system opens folders)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
