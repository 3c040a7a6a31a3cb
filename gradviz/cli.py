"""The `gradviz` command."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
gradviz makes backpropagation visible.

Not available yet: the desktop app and the export, explain, run and trace
commands come with the graph and app layers.
"""


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "0.1.0"
    try:
        return version("gradviz")
    except PackageNotFoundError:
        return "0.1.0"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradviz",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gradviz {_version()}")
    # Subcommands (export, explain, run, trace) are added here with the graph and app layers.
    parser.add_subparsers(dest="command", metavar="COMMAND", help="none yet")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
