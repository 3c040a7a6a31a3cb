"""Opening a large document (issue 20): the refusal of a file whose shape is wrong and the
open of a good one, each 81 MB, with skim.py's outline of an earlier commit and of this
checkout taking turns in one process (medians of the rounds).

The files are lesson 'matmul gradient' with node a's value replaced by 4,000,000 float32
values written as json.dumps writes them (`.tolist()`: ~20 characters each); the bad one
declares shape [2000, 2001] and is refused by the outline before any value is read, the
good one [2000, 2000] is opened as the app opens it (`strict=False`: a @ b's shapes do not
fit, so node c shows its error), outline and full read.

    PYTHONPATH=. .venv/bin/python bench/bench_open.py [--before REV] [--rounds N]
"""
import argparse
import importlib.util
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from gradviz.graph import DocumentError, fileformat, skim

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "dc7d190e"   # main before one-line data lists were proved in place


def skim_at(rev):
    """skim.py as it was at `rev`, imported beside the current one."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:gradviz/graph/skim.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "skim_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("gradviz.graph.skim_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def document(shape):
    d = json.loads((ROOT / "samples" / "003_matmul_gradient.json").read_text(encoding="utf-8"))
    values = np.random.default_rng(0).random(4_000_000, dtype=np.float32)
    d["nodes"][0]["value"] = {"dtype": "float32", "shape": shape, "data": values.tolist()}
    return json.dumps(d)


def refuse(text):
    try:
        fileformat.loads(text, strict=False)
    except DocumentError as e:
        return str(e)
    raise AssertionError("the bad file opened")


def seconds(job, text):
    start = time.perf_counter()
    job(text)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    before = skim_at(args.before)     # before numbers_read, a refusal read no number
    outlines = {"before": (before.outline, getattr(before, "numbers_read", lambda obj: True)),
                "now": (skim.outline, skim.numbers_read)}
    bad, good = document([2000, 2001]), document([2000, 2000])
    print(f"files: {len(bad) / 1e6:.0f} MB each")
    jobs = {"outline of the bad file": lambda text: fileformat.outline(text),
            "refusal of the bad file": refuse,
            "open of the good file": lambda text: fileformat.loads(text, strict=False)}
    times = {(job, side): [] for job in jobs for side in outlines}
    messages = set()
    for _ in range(args.rounds):
        for side, (outline, numbers_read) in outlines.items():
            fileformat.outline, fileformat.numbers_read = outline, numbers_read
            messages.add(refuse(bad))
            for job, run in jobs.items():
                times[job, side].append(seconds(run, good if "good" in job else bad))
    fileformat.outline, fileformat.numbers_read = skim.outline, skim.numbers_read
    assert len(messages) == 1, messages   # both outlines refuse with the same words
    print(f"message: {messages.pop()}")
    for job in jobs:
        row = "  ".join(f"{side} {statistics.median(times[job, side]):6.3f} s "
                        f"({min(times[job, side]):.3f}-{max(times[job, side]):.3f})"
                        for side in outlines)
        print(f"{job:26s} {row}")


if __name__ == "__main__":
    main()
