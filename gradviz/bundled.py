"""The files that ship inside the package: the sample documents (the lessons) and the icons.

They live in gradviz/samples/ and gradviz/resources/ (the repository's top-level samples/
and resources/ are links to them) and are found through importlib.resources, so a wheel,
`pip install .` or an editable checkout all read the same files. gradviz is installed as
files, never zipped: documents and icons are opened by path.
"""
from importlib import resources
from pathlib import Path

SAMPLE_SUFFIX = ".json"


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
