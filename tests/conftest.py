import os
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
