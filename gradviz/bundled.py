"""The files that ship inside the package: the sample documents (the lessons) and the icons.

They live in gradviz/samples/ and gradviz/resources/ (the repository's top-level samples/
and resources/ are links to them) and are found through importlib.resources, so a wheel,
`pip install .` or an editable checkout all read the same files. gradviz is installed as
files, never zipped: documents and icons are opened by path.
"""
import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

SAMPLE_SUFFIX = ".json"
_ROW = re.compile(r"^\|\s*`([^`]+\.json)`\s*\|")     # a row of the samples' README table


def _folder(name):
    folder = resources.files(__package__) / name
    # A plain install gives a pathlib.Path; anything else (a zip) cannot be opened by path.
    if not isinstance(folder, Path):
        raise RuntimeError(f"gradviz's {name} are inside {folder}, which is not a folder on "
                           f"disk; install gradviz as files (pip install, not a zipapp)")
    return folder


def samples_dir():
    """The folder of the sample documents and their README (the lessons' order)."""
    return _folder("samples")


def resource(name):
    """The path of a bundled picture, e.g. resource('gradviz.svg')."""
    return _folder("resources") / name


def sample_paths():
    """Every sample document, in file-name order."""
    return sorted(samples_dir().glob("*" + SAMPLE_SUFFIX))


def sample(name):
    """The path of the sample a user names ('004_matmul_sum', '004_matmul_sum.json' or
    'samples/004_matmul_sum.json', as the README writes it), or None: no sample has that
    name, or the name is a path into some other folder."""
    given = Path(name)
    if given.parent.name not in ("", "samples") or len(given.parts) > 2:
        return None
    stem = given.name
    if stem.endswith(SAMPLE_SUFFIX):
        stem = stem[:-len(SAMPLE_SUFFIX)]
    path = samples_dir() / (stem + SAMPLE_SUFFIX)
    return path if stem and path.is_file() else None


@dataclass(frozen=True)
class Lesson:
    number: int           # its place in the course, as the Lessons menu numbers it
    title: str
    path: Path
    lesson: str           # the document's lesson paragraph


def lesson_entries(directory=None):
    """[Lesson] in the order of the samples' README table (the course); samples it does not
    list come last."""
    directory = Path(directory or samples_dir())
    order = []
    readme = directory / "README.md"
    if readme.exists():
        for line in readme.read_text(encoding="utf-8").splitlines():
            m = _ROW.match(line.strip())
            if m and (directory / m.group(1)).exists() and m.group(1) not in order:
                order.append(m.group(1))
    order += sorted(p.name for p in directory.glob("*" + SAMPLE_SUFFIX) if p.name not in order)
    out = []
    for name in order:
        path = directory / name
        try:
            stat = path.stat()
            title, lesson = _title_and_lesson(path, stat.st_mtime_ns, stat.st_size)
        except (OSError, ValueError):
            continue
        out.append(Lesson(len(out) + 1, title or path.stem, path, lesson or ""))
    return out


@functools.lru_cache(maxsize=256)
def _title_and_lesson(path, mtime_ns, size):
    """(title, lesson) of the document at `path` as it is at that time and size: read once
    (every window's menus and every sample opened list the course; parsing every sample's
    JSON, values and all, each time took a sixth of opening a window)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("title"), data.get("lesson")


def lesson_at(path):
    """The Lesson whose document is `path`, or None: not a bundled sample."""
    path = Path(path).resolve()
    return next((e for e in lesson_entries() if e.path.resolve() == path), None)
