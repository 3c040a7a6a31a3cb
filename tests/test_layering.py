"""engine, graph and story stay free of Qt: arrows point engine <- graph <- story <- render <- app."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gradviz"
QT_FREE = ["engine", "graph", "story"]
QT_MODULES = ("PySide6", "pyqtgraph", "shiboken6")
QT_IMPORT = re.compile(
    r"^\s*(?:from|import)\s+(?:{})\b".format("|".join(QT_MODULES)), re.MULTILINE
)


def test_importing_the_qt_free_layers_loads_no_qt():
    if not (PACKAGE / "engine").is_dir():
        pytest.skip("gradviz/engine does not exist yet")
    code = textwrap.dedent(
        """
        import importlib, sys
        import gradviz, gradviz.engine
        for name in ("gradviz.graph", "gradviz.story"):
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as error:
                if error.name != name:
                    raise
        loaded = sorted(m for m in ("PySide6", "pyqtgraph", "shiboken6") if m in sys.modules)
        assert not loaded, f"Qt loaded by the Qt-free layers: {loaded}"
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("layer", QT_FREE)
def test_qt_free_layer_has_no_qt_import_lines(layer):
    directory = PACKAGE / layer
    if not directory.is_dir():
        pytest.skip(f"gradviz/{layer} does not exist yet")
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0).strip()}"
        for path in sorted(directory.rglob("*.py"))
        for match in QT_IMPORT.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, "Qt imported below render:\n" + "\n".join(offenders)
