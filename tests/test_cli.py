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


def test_main_without_arguments_opens_the_app(monkeypatch):
    import gradviz.app
    from gradviz.cli import main

    opened = []
    monkeypatch.setattr(gradviz.app, "main", lambda argv: opened.append(argv) or 0)
    assert main([]) == 0
    assert opened == [[]]


def test_the_app_without_a_display_says_so_and_exits_2():
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "gradviz"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "no display" in done.stderr
    assert "Traceback" not in done.stderr
