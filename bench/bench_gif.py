"""Every lesson's animated GIF at the defaults, as `gradviz export lesson.gif` writes it:
its size, frames and the seconds it took, in the course's order (the Lessons menu's numbers).

    .venv/bin/python bench/bench_gif.py [folder] [--only 14,33]

The GIFs are kept in `folder` (a temporary one by default) to look at.
"""
import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gradviz.bundled import lesson_entries  # noqa: E402
from gradviz.cli import main  # noqa: E402


def run(folder, only=None):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    print("| lesson | sample | MB | frames | s |\n|---|---|---|---|---|")
    for lesson in lesson_entries():
        if only and lesson.number not in only:
            continue
        out = folder / f"{lesson.number:02d}_{lesson.path.stem}.gif"
        said = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(said):
            code = main(["export", str(lesson.path), "-o", str(out)])
        seconds = time.perf_counter() - start
        if code != 0 or not out.exists():
            print(f"| {lesson.number} | {lesson.path.stem} | (no animation) | | |")
            continue
        frames = said.getvalue().rsplit("(", 1)[-1].split(" ")[0]
        print(f"| {lesson.number} | {lesson.path.stem} | {out.stat().st_size / 1e6:.2f} | {frames} | {seconds:.1f} |",
              flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?")
    parser.add_argument("--only", help="lesson numbers, e.g. 14,33")
    args = parser.parse_args()
    only = {int(n) for n in args.only.split(",")} if args.only else None
    if args.folder:
        run(args.folder, only)
    else:
        with tempfile.TemporaryDirectory() as folder:
            run(folder, only)
