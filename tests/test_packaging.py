"""gradviz as a user installs it: a wheel built from this checkout and installed (not
editable) into a fresh venv works with its own samples, lessons and icons, found by
importlib.resources and not through the checkout.

No network: the wheel is built with this environment's setuptools (--no-build-isolation,
hence `setuptools>=70.1` in the test extra), and the fresh venv borrows this environment's
numpy, numba and PySide6 through a .pth path line (which runs none of their .pth files, so
this checkout's editable install stays out)."""
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

from gradviz import story
from gradviz.graph import fileformat

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "gradviz" / "samples"

pytestmark = pytest.mark.slow


def _run(args, cwd, env=None, timeout=300):
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """(bin folder, environment, working folder) of a fresh venv with the wheel installed."""
    tmp = tmp_path_factory.mktemp("packaging")
    source = tmp / "source"          # a copy: the build leaves build/ and *.egg-info behind
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "gradviz", source / "gradviz",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
          "--no-index", "--wheel-dir", tmp / "dist", source], cwd=tmp)
    (wheel,) = (tmp / "dist").glob("gradviz-*.whl")

    env_dir = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", env_dir], cwd=tmp)
    python = env_dir / "bin" / "python"
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        cwd=tmp).stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
            *site.getsitepackages()}
    (purelib / "_gradviz_test_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in sorted(ours) if os.path.isdir(p)), encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-index",
          "--no-deps", wheel], cwd=tmp)

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp / "home"),
               XDG_CONFIG_HOME=str(tmp / "home" / ".config"),
               GRADVIZ_RECOVERY_DIR=str(tmp / "recovery"))
    work = tmp / "work"             # no samples/ here: a sample is found by its name
    work.mkdir()
    return env_dir / "bin", env, work


def test_the_wheel_runs_from_its_own_files(venv):
    bin_, env, work = venv
    found = _run([bin_ / "python", "-c", "import gradviz, gradviz.bundled as b; "
                  "print(gradviz.__file__); print(b.samples_dir()); print(b.resource('gradviz.svg'))"],
                 cwd=work, env=env).stdout.split()
    installed = Path(found[0]).parent
    assert installed.is_relative_to(bin_.parent) and not installed.is_relative_to(ROOT)
    assert Path(found[1]) == installed / "samples" and Path(found[2]).is_file()
    shipped = sorted(p.name for p in (installed / "samples").iterdir())
    assert shipped == sorted([p.name for p in SAMPLES.glob("*.json")] + ["README.md"])


def test_version_from_the_command_and_from_python_m(venv):
    bin_, env, work = venv
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert _run([bin_ / "gradviz", "--version"], work, env).stdout == f"gradviz {version}\n"
    assert _run([bin_ / "python", "-m", "gradviz", "--version"], work, env).stdout == \
        f"gradviz {version}\n"


def test_export_of_a_sample_named_as_a_user_names_it(venv):
    bin_, env, work = venv
    for name, out in (("004_matmul_sum", "graph.png"), ("samples/004_matmul_sum.json", "step.svg")):
        result = _run([bin_ / "gradviz", "export", name, "-o", out, "--step", "3"], work, env)
        assert result.stdout == f"wrote {out}\n" and result.stderr == ""
    assert (work / "graph.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    rule = story.build(fileformat.load(SAMPLES / "004_matmul_sum.json")).steps[2].formula
    assert rule == "grad_tf_t = grad @ tf_bᵀ"          # the user's names, as the checkout writes it
    assert rule in (work / "step.svg").read_text(encoding="utf-8")
    listed = _run([bin_ / "python", "-m", "gradviz", "samples"], work, env).stdout
    assert [line.split()[0] for line in listed.splitlines()] == sorted(p.stem for p in
                                                                       SAMPLES.glob("*.json"))


LESSONS_MENU = """
import json
from PySide6.QtWidgets import QApplication
app = QApplication(["gradviz"])
from gradviz.app import ICON, create_window
window = create_window(offer_recovery=False)
from gradviz.app.player.lessons import lesson_actions
lessons = lesson_actions(window.lessons_menu)
lessons[-1].trigger()
print(json.dumps({"paths": [a.data() for a in lessons], "texts": [a.text() for a in lessons],
                  "icon": not app.windowIcon().isNull(), "icon_file": str(ICON),
                  "opened": window.controller.doc.title}))
"""


def test_the_lessons_menu_lists_every_lesson(venv):
    from gradviz.app.player.lessons import lesson_entries   # this checkout's order, for comparison

    bin_, env, work = venv
    shown = json.loads(_run([bin_ / "python", "-c", LESSONS_MENU], work, env).stdout)
    expected = lesson_entries(SAMPLES)
    assert len(expected) == len(list(SAMPLES.glob("*.json")))
    assert [Path(p).name for p in shown["paths"]] == [e.path.name for e in expected]
    assert all(Path(p).parent.is_relative_to(bin_.parent) for p in shown["paths"])
    assert [t.split("  ", 1)[1].replace("&&", "&") for t in shown["texts"]] == \
        [e.title for e in expected]
    assert shown["opened"] == expected[-1].title
    assert shown["icon"] and Path(shown["icon_file"]).is_relative_to(bin_.parent)
