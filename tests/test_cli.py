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


# -- subcommands -------------------------------------------------------------------------
import json  # noqa: E402

import pytest  # noqa: E402

SEED004 = {
    "format": "gradviz",
    "version": 1,
    "title": "seed 004",
    "nodes": [
        {"id": "t", "kind": "variable", "value": {"shape": [5, 3], "dtype": "float32", "data": [
            0.8363, 0.4719, 0.9783, 0.3379, 0.6548, 0.3835, 0.7846, 0.9173, 0.2393,
            0.5418, 0.3875, 0.4276, 0.0948, 0.2637, 0.8039]}},
        {"id": "b", "kind": "variable", "value": {"shape": [3, 3], "dtype": "float32", "data": [
            0.43842274, -0.53439844, -0.07710262, 1.5658046, -0.1012345, -0.2744976,
            1.4204658, 1.2609464, -0.43640924]}},
        {"id": "y", "kind": "op", "op": "matmul"},
    ],
    "edges": [{"from": "t", "to": "y"}, {"from": "b", "to": "y:1"}],
    "targets": ["y"],
    "sources": ["t"],
}


def _gradviz(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "gradviz", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})


@pytest.fixture
def seed_file(tmp_path):
    path = tmp_path / "seed004.gradviz.json"
    path.write_text(json.dumps(SEED004), encoding="utf-8")
    return path


def _one_line_error(result, *words):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gradviz: error: ")
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_help_lists_the_commands(capsys):
    from gradviz.cli import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("export", "explain", "run", "trace"):
        assert command in out


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_export_writes_each_format(seed_file, tmp_path, suffix, magic):
    out = tmp_path / f"out{suffix}"
    result = _gradviz("export", seed_file, "-o", out, "--step", "2", "--theme", "dark")
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(magic)


def test_explain_prints_the_story(seed_file):
    result = _gradviz("explain", seed_file)
    assert result.returncode == 0, result.stderr
    assert "seed" in result.stdout.lower() and "-0.173" in result.stdout


def test_run_prints_json(seed_file):
    result = _gradviz("run", seed_file)
    assert result.returncode == 0, result.stderr
    assert "-0.17307" in result.stdout
    json.loads(result.stdout)


def test_malformed_json_exits_2_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.gradviz.json"
    bad.write_text('{"format": "gradviz", "nodes": [,]}', encoding="utf-8")
    for command in ("export", "explain", "run"):
        args = [command, bad] + (["-o", tmp_path / "x.png"] if command == "export" else [])
        _one_line_error(_gradviz(*args), "line 1")


def test_bad_inputs_exit_2_with_one_line(seed_file, tmp_path):
    _one_line_error(_gradviz("export", tmp_path / "missing.json", "-o", tmp_path / "x.png"), "missing.json")
    _one_line_error(_gradviz("export", seed_file, "-o", tmp_path / "x.jpg"), "x.jpg")
    _one_line_error(_gradviz("export", seed_file, "-o", tmp_path / "x.png", "--step", "99"), "--step 99")
    _one_line_error(_gradviz("export", seed_file, "-o", tmp_path / "x.png", "--theme", "neon"), "neon")
    _one_line_error(_gradviz("export", seed_file), "-o")
    _one_line_error(_gradviz("frobnicate", "a", "b"), "frobnicate")
    _one_line_error(_gradviz(tmp_path / "missing.gradviz.json"), "missing.gradviz.json")
    _one_line_error(_gradviz("explain", tmp_path), "directory")


def test_invalid_graph_names_the_node(tmp_path):
    doc = json.loads(json.dumps(SEED004))
    doc["edges"].append({"from": "nowhere", "to": "y"})
    path = tmp_path / "g.gradviz.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _one_line_error(_gradviz("explain", path), "nowhere")
