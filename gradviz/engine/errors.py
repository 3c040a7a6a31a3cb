"""TF's error kinds for what the engine refuses (tf.errors.InvalidArgumentError, ...).

Each is also the Python exception a caller would catch without knowing TF's names,
as numpy's AxisError is both a ValueError and an IndexError."""
import os


class InvalidArgumentError(ValueError, IndexError):
    """An argument the op cannot take: an axis out of range, an index out of bounds."""


class ResourceExhaustedError(MemoryError):
    """A result that cannot fit in memory, refused before anything is allocated."""


def available_memory():
    """Bytes of memory this process could still get (MemAvailable on Linux, else the
    physical memory; None when the system does not say)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def counted(n, noun, plural=None):
    """A count with its noun in the right number, for any text a reader sees: '1 step',
    '3 steps', '1 entry' / '2 entries' (`plural` where adding an s is wrong)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def ordinal(n):
    """'2nd', '3rd', '11th', '21st': an ordinal number in a text a reader sees."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def byte_text(n):
    """A byte count for a message: '40 GB', '512 MB', '3 kB'."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return counted(int(n), "byte")


ALWAYS_FITS = 256 * 2**20   # results this small are not worth reading /proc/meminfo for


def check_result_fits(what, shape, dtype, memory=None):
    """Refuse (ResourceExhaustedError, in words) a result of `shape` and `dtype` that needs
    more than the free memory, before its backward passes run: a 1e5 x 1e5 Jacobian
    otherwise computes for half a minute and then fails to allocate 40 GB."""
    count = 1
    for d in shape:
        count *= int(d)
    need = count * dtype.itemsize
    if need <= ALWAYS_FITS:
        return
    memory = available_memory() if memory is None else memory
    if memory is not None and need > memory:
        raise ResourceExhaustedError(
            f"the {what} would have shape {tuple(int(d) for d in shape)}: {count:,} elements, "
            f"{byte_text(need)} of {dtype.name}, more than the {byte_text(memory)} of memory "
            "free; ask for a smaller target or source (or a block of it)")
