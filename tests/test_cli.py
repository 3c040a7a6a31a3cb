import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_help_exits_zero_and_prints_usage():
    result = subprocess.run(
        [sys.executable, "-m", "gradviz", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "usage" in result.stdout.lower()


def test_main_without_arguments_returns_zero(capsys):
    from gradviz.cli import main

    assert main([]) == 0
    assert "usage" in capsys.readouterr().out.lower()
