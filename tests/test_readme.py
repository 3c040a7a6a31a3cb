"""The README works exactly as written: every command it shows, pasted as is after the
set-up, runs (in a folder laid out like the checkout: `.venv`, `samples/`, `docs/`), and
every Python example runs and prints what its comments say."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

# Commands the README shows that this test does not run, and why.
NOT_RUN = {
    "bash .ci/install": "the set-up itself (apt as root, a new .venv): CI runs it first",
    ".venv/bin/gradviz": "opens the window, which needs a display; tests/app drive it",
    ".venv/bin/python -m pytest": "this test suite itself",
    "bash .ci/run": "CI itself",
}


def code_blocks(text):
    """[(language, code)]: fenced blocks with their language, indented blocks as 'shell'."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append((fence.group(1) or "text", "\n".join(lines[i + 1:end])))
            i = end + 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            end = i
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            blocks.append(("shell", "\n".join(line[4:] for line in lines[i:end]).strip()))
            i = end
        else:
            i += 1
    return blocks


def shell_commands(text=README):
    out = []
    for language, code in code_blocks(text):
        if language == "shell":
            out += [c.strip() for c in code.replace("\\\n", " ").splitlines() if c.strip()]
    return out


def python_examples(text=README):
    return [code for language, code in code_blocks(text) if language == "python"]


@pytest.fixture(scope="module")
def checkout_like(tmp_path_factory):
    """A scratch folder with what the README's commands use, so their outputs land there."""
    venv = ROOT / ".venv" if (ROOT / ".venv").is_dir() else Path(sys.prefix)
    if not (venv / "bin" / "gradviz").exists():
        pytest.skip(f"no gradviz command in {venv}/bin (run bash .ci/install)")
    folder = tmp_path_factory.mktemp("readme")
    (folder / ".venv").symlink_to(venv)
    for name in ("samples", "docs", "resources"):
        (folder / name).symlink_to(ROOT / name)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return folder, env


def test_the_readme_parser_finds_its_commands():
    commands = shell_commands()
    assert set(NOT_RUN) <= set(commands), "NOT_RUN names a command the README no longer shows"
    assert any("export" in c for c in commands) and len(python_examples()) >= 2
    assert shell_commands("a\n\n    x \\\n      --y\n    z\n") == ["x    --y", "z"]


@pytest.mark.slow
def test_every_command_runs_as_written(checkout_like):
    folder, env = checkout_like
    ran = []
    for command in shell_commands():
        if command in NOT_RUN:
            continue
        assert command.startswith(".venv/bin/"), f"not runnable after the set-up: {command}"
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, command
        for output in re.findall(r"(?:-o|--log) (\S+)", command):
            assert (folder / output).stat().st_size > 0, (command, output)
        ran.append(command)
    assert len(ran) >= 7, ran


PRELUDE = """
import gradviz.tape_document as _td
_td.TapeDocument.show = lambda self: print(f"<show {self.title}>")  # no window in a test
"""


@pytest.mark.parametrize("index", range(len(python_examples())))
def test_every_python_example_runs_and_prints_what_it_says(checkout_like, index):
    folder, env = checkout_like
    code = python_examples()[index]
    done = subprocess.run([sys.executable, "-c", PRELUDE + code], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for expected in re.findall(r"^print\(.*\)\s+# (tf\.Tensor\(.*\))$", code, re.MULTILINE):
        assert expected in done.stdout
    for written in re.findall(r"\.(?:save|export)\(\"([^\"]+)\"", code):
        assert (folder / written).stat().st_size > 0, written
    if ".show()" in code:
        assert "<show " in done.stdout
    if "print(doc.explain())" in code:
        assert "Backpropagation, step by step" in done.stdout


DOCS = [str(p.relative_to(ROOT)) for folder in ("", "bench", "docs", "gradviz/samples")
        for p in sorted((ROOT / folder).glob("*.md"))]


@pytest.mark.parametrize("name", DOCS)
def test_documents_name_no_machine_paths_and_their_links_resolve(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert not re.findall(r"(?<![\w.])/(?:work|tmp|home|root|opt|Users)/\S*", text)
    for target in re.findall(r"\]\(([^)#\s]+)\)", text):
        if not re.match(r"\w+://", target):
            assert (ROOT / name).parent.joinpath(target).exists(), target
