import contextlib
import html
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.cpu_independent("the usage text")
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


@pytest.mark.cpu_independent("a message and the exit status")
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
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen",
                               "PYTHONPATH": str(ROOT)})   # this checkout, from any folder


def _main(*args, cwd=ROOT):
    """`gradviz ARGS` as _gradviz gives it (exit status, output), run by cli.main in this
    process: a new Python costs a second of imports, paid here by the tests that run each
    command in one (the help, export's formats, explain, run, samples, trace, a file)."""
    from gradviz.cli import main
    out, err, before = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([str(arg) for arg in args])
            except SystemExit as exit:
                status = exit.code
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


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


@pytest.mark.cpu_independent("the exit status and the file's first bytes (its format): nothing computed is compared")
@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_export_writes_each_format(seed_file, tmp_path, suffix, magic):
    out = tmp_path / f"out{suffix}"
    result = _gradviz("export", seed_file, "-o", out, "--step", "2", "--theme", "dark")
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(magic)


def test_export_step_counts_from_1_as_the_player_does(seed_file, tmp_path):
    """`--step K` is the step the player shows as K/n; -1 is the last; 0 is refused."""
    from gradviz import story as story_module
    from gradviz.graph import load
    from gradviz.render import export
    doc = load(str(seed_file))
    told = story_module.build(doc)
    steps = told.steps
    for k, index in ((1, 0), (3, 2), (len(steps), len(steps) - 1), (-1, len(steps) - 1)):
        out, expected = tmp_path / f"cli{k}.svg", tmp_path / f"index{index}.svg"
        result = _main("export", seed_file, "-o", out, "--step", k)
        assert result.returncode == 0, result.stderr
        export(doc, expected, step=index, story=told, evaluation=told.evaluation)
        assert out.read_bytes() == expected.read_bytes(), k
    assert html.escape(steps[2].formula, quote=False) in (tmp_path / "cli3.svg").read_text()
    for k in (0, len(steps) + 1):
        _one_line_error(_main("export", seed_file, "-o", tmp_path / "x.png", "--step", k),
                        f"1..{len(steps)}")
    assert "counts from 1" in " ".join(_main("export", "--help").stdout.split())


def test_explain_prints_the_story(seed_file):
    result = _gradviz("explain", seed_file)
    assert result.returncode == 0, result.stderr
    assert "seed" in result.stdout.lower() and "-0.173" in result.stdout


def test_run_prints_json(seed_file):
    result = _gradviz("run", seed_file)
    assert result.returncode == 0, result.stderr
    assert "-0.17307" in result.stdout
    json.loads(result.stdout)


@pytest.mark.cpu_independent("a refusal's message and exit status: nothing computed is printed")
def test_malformed_json_exits_2_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.gradviz.json"
    bad.write_text('{"format": "gradviz", "nodes": [,]}', encoding="utf-8")
    for command in ("export", "explain", "run"):
        args = [command, bad] + (["-o", tmp_path / "x.png"] if command == "export" else [])
        _one_line_error(_main(*args), "line 1")


@pytest.mark.cpu_independent("a refusal's message and exit status: nothing computed is printed")
def test_bad_inputs_exit_2_with_one_line(seed_file, tmp_path):
    _one_line_error(_main("export", tmp_path / "missing.json", "-o", tmp_path / "x.png"), "missing.json")
    _one_line_error(_main("export", seed_file, "-o", tmp_path / "x.jpg"), "x.jpg")
    _one_line_error(_main("export", seed_file, "-o", tmp_path / "x.png", "--step", "99"), "--step 99")
    _one_line_error(_main("export", seed_file, "-o", tmp_path / "x.png", "--theme", "neon"), "neon")
    _one_line_error(_main("export", seed_file), "-o")
    _one_line_error(_main("frobnicate", "a", "b"), "frobnicate")
    _one_line_error(_gradviz(tmp_path / "missing.gradviz.json"), "missing.gradviz.json")
    _one_line_error(_main("explain", tmp_path), "directory")


def test_file_may_name_a_bundled_sample_from_any_folder(tmp_path):
    listed = _gradviz("samples", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split(None, 1) for line in listed.stdout.splitlines()]
    samples = sorted((ROOT / "samples").glob("*.json"))
    assert [name for name, _ in rows] == [p.stem for p in samples]
    assert [title for _, title in rows] == [json.loads(p.read_text(encoding="utf-8"))["title"]
                                            for p in samples]
    for name in ("002_vjp_output_gradients", "002_vjp_output_gradients.json",
                 "samples/002_vjp_output_gradients.json"):
        result = _main("run", name, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["gradients"]["x"]["value"] == [4.0, 12.0]
    _one_line_error(_main("explain", "002_vjp_output_gradient", cwd=tmp_path),
                    "002_vjp_output_gradient: no such file", "gradviz samples")
    # A path into another folder is that file or nothing, never a sample of the same name.
    _one_line_error(_main("run", "elsewhere/002_vjp_output_gradients.json", cwd=tmp_path),
                    "no such file")


@pytest.mark.cpu_independent("a refusal's message and exit status: nothing computed is printed")
def test_invalid_graph_names_the_node(tmp_path):
    doc = json.loads(json.dumps(SEED004))
    doc["edges"].append({"from": "nowhere", "to": "y"})
    path = tmp_path / "g.gradviz.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _one_line_error(_main("explain", path), "nowhere")


# -- hostile and broken documents --------------------------------------------------------
def _doc(nodes, edges, **top):
    return {"format": "gradviz", "version": 1, "nodes": nodes,
            "edges": [{"from": a, "to": b} for a, b in edges], **top}


def _scalar(nid="x"):
    return {"id": nid, "kind": "constant", "watched": True,
            "value": {"dtype": "float32", "shape": [], "data": [1.0]}}


def _with(change):
    doc = json.loads(json.dumps(SEED004))
    change(doc)
    return doc


def _append_op(doc, nid, op, attrs, src="y"):
    doc["nodes"].append({"id": nid, "kind": "op", "op": op, "attrs": attrs})
    doc["edges"].append({"from": src, "to": nid})


BAD_DOCUMENTS = {
    "gather_bomb": (
        _doc([_scalar(), {"id": "b", "kind": "op", "op": "broadcast_to",
                          "attrs": {"shape": [1, 40000000]}},
              {"id": "g", "kind": "op", "op": "gather", "attrs": {"indices": [0] * 25}}],
             [("x", "b"), ("b", "g")]),
        "node 'g': the output would have shape (25, 40000000): 1e9 elements, more than the "
        "limit of 5e7 for one tensor"),
    "time_bomb": (
        _doc([_scalar(), {"id": "B", "kind": "op", "op": "broadcast_to",
                          "attrs": {"shape": [5000, 5000]}},
              {"id": "m", "kind": "op", "op": "matmul"}],
             [("x", "B"), ("B", "m"), ("B", "m:1")], targets=["m"], sources=["x"]),
        "node 'm': this matmul would take ~3.75e11 multiply-adds (forward, and twice that for "
        "its gradient); the limit for one evaluation is 5e10"),
    "big_int_attr": (
        _with(lambda d: _append_op(d, "cl", "clip_by_value", {"clip_value_min": 10 ** 400})),
        "node 'cl': attribute 'clip_value_min': expected a finite number, got an integer of "
        "401 digits"),
    "lone_surrogate": (
        _with(lambda d: d.update(title="\ud800")),
        "title: the title holds an unpaired surrogate '\\ud800' at character 0, which is not "
        "valid Unicode text"),
    "control_label": (
        _with(lambda d: d["nodes"][0].update(label="</text>\u0000")),
        "node 't': the label holds the control character '\\x00' at character 7"),
    "softmax_axis": (
        _with(lambda d: _append_op(d, "sm", "nn.softmax", {"axis": 77})),
        "node 'sm': axis 77 is out of range for a tensor of rank 2 (valid: -2..1)"),
    # inputs counted from 1, as the story counts them ('y → x (input 1)'); 'y:1' in a file
    # stays the 0-based port
    "unconnected_input": (
        _with(lambda d: d["edges"].pop(1)),
        "node 'y': input 2 (b) is not connected"),
    "input_twice": (
        _with(lambda d: d["edges"].append({"from": "t", "to": "y:1"})),
        "edge t -> y:1: input 2 (port y:1) of node 'y' is connected twice"),
    "no_such_input": (
        _with(lambda d: d["edges"].append({"from": "t", "to": "y:2"})),
        "edge t -> y:2: node 'y' has 2 inputs, ports y:0 and y:1 (a file counts them from 0); "
        "there is no port y:2"),
    "arabic_digit_port": (
        _with(lambda d: d["edges"][1].update({"to": "y:\u0661"})),
        "edges[1]: bad output index in port 'y:\u0661' (write 'node:1' with digits 0-9)"),
}


# the documents whose graph loads but cannot be computed: the app opens them, this node red
APP_OPENS = {"gather_bomb": "g", "softmax_axis": "sm", "time_bomb": "m", "unconnected_input": "y"}


@pytest.mark.parametrize("command", ["run", "explain", "export"])
@pytest.mark.parametrize("name", sorted(BAD_DOCUMENTS))
def test_bad_documents_are_one_line_naming_the_place(tmp_path, capsys, command, name):
    """Changed when the line began to say that the app opens a graph that cannot be
    computed (issue 20 §5): for those four, the same line ends with those words."""
    from gradviz.cli import main

    doc, message = BAD_DOCUMENTS[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    args = [command, str(path)] + (["-o", str(tmp_path / "x.svg")] if command == "export" else [])
    assert main(args) == 2
    captured = capsys.readouterr()
    if name in APP_OPENS:
        message += (f" (the app opens this file and shows node '{APP_OPENS[name]}' in error, "
                    f"to be mended there: gradviz {path})")
    assert captured.err == f"gradviz: error: {path}: {message}\n"
    assert captured.out == "" and not (tmp_path / "x.svg").exists()


@pytest.mark.cpu_independent("a refusal's message and exit status: nothing computed is printed")
def test_a_file_that_is_not_utf8_is_named_once(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    result = _main("run", path)
    _one_line_error(result)
    assert result.stderr == f"gradviz: error: {path}: the file is not UTF-8 text\n"


@pytest.mark.cpu_independent("a refusal's message and exit status: nothing computed is printed")
def test_a_failing_trace_names_the_script_once(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("raise ValueError('boom')\n", encoding="utf-8")
    result = _gradviz("trace", script, "-o", tmp_path / "g.json")
    _one_line_error(result)
    assert result.stderr.count(str(script)) == 1, result.stderr


@pytest.mark.parametrize("scale", ["nan", "inf", "-1", "0", "0.0"])
def test_export_scale_must_be_a_number_in_range(seed_file, tmp_path, capsys, scale):
    """0 is refused, so the message says 'greater than 0', not 'between 0 and 16'."""
    from gradviz.cli import main

    assert main(["export", str(seed_file), "-o", str(tmp_path / "x.png"), "--scale", scale]) == 2
    shown = {"0.0": "0"}.get(scale, scale)
    assert capsys.readouterr().err == (f"gradviz: error: --scale {shown}: choose a scale "
                                       "greater than 0 and at most 16\n")


@pytest.mark.parametrize("option, outside, inside, words", [
    ("scale", "0", "16", "greater than 0 and at most 16"),
    ("dpi", "9", "10", "from 10 to 1200"),
    ("fps", "0.5", "1", "from 1 to 100"),
    ("motion", "0", "10", "greater than 0 and at most 10"),
    ("hold", "60.5", "0", "from 0 to 60")])
def test_every_range_is_said_as_it_is_in_help_and_refusal(seed_file, tmp_path, capsys, option,
                                                          outside, inside, words):
    """An end that is refused is never said as allowed: --help and the refusal say the same."""
    from gradviz.cli import build_parser, main
    subs = build_parser()._subparsers._group_actions[0].choices
    assert words in " ".join(subs["export"].format_help().split())
    out = str(tmp_path / "x.gif")
    assert main(["export", str(seed_file), "-o", out, f"--{option}", outside]) == 2
    err = capsys.readouterr().err
    assert f"--{option} {outside}: choose" in err and words in err
    assert f"--{option} {inside}:" not in err


def test_the_themes_help_lists_are_the_themes(capsys):
    """--help and the unknown-theme refusal list the same themes: render.themes' own."""
    from gradviz.cli import build_parser
    from gradviz.render.themes import THEMES, get_theme
    subs = build_parser()._subparsers._group_actions[0].choices
    help_text = " ".join(subs["export"].format_help().split())
    *first, last = THEMES
    assert f"--theme THEME {', '.join(first)} or {last} (default light)" in help_text
    with pytest.raises(ValueError) as refused:
        get_theme("sepia")
    assert all(name in str(refused.value) for name in THEMES)


def test_nan_is_a_warning_and_every_command_shows_the_values(tmp_path):
    doc = json.loads(json.dumps(SEED004))
    doc["nodes"].append({"id": "lg", "kind": "op", "op": "log"})
    doc["edges"].append({"from": "y", "to": "lg"})
    doc["targets"] = ["lg"]
    path = tmp_path / "log_neg.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    warning = f"gradviz: warning: {path}: node 'lg': produced NaN or infinity\n"
    run = _main("run", path)
    assert (run.returncode, run.stderr) == (0, warning)
    out = json.loads(run.stdout)
    assert out["warnings"] == ["node 'lg': produced NaN or infinity"]
    assert "nan" in out["values"]["lg"]["value"][0] and out["gradients"]["t"]["value"]
    explain = _main("explain", path)
    assert (explain.returncode, explain.stderr) == (0, warning)
    assert "Problem at lg: produced NaN or infinity" in explain.stdout
    export = _main("export", path, "-o", tmp_path / "x.svg")
    assert (export.returncode, export.stderr) == (0, warning)
    assert (tmp_path / "x.svg").read_bytes().startswith(b"<?xml")


def test_run_prints_float32_values_with_their_shortest_text(tmp_path):
    import numpy as np

    from gradviz.graph.cli_commands import shortest_floats

    rng = np.random.default_rng(4)
    values = (rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)).astype(np.float32)
    values[:6] = [0.1, -0.0, 16777216.0, 16777217.0, np.nan, -np.inf]
    expected = [float(str(v)) for v in values]
    got = shortest_floats(values).tolist()
    assert [repr(v) for v in got] == [repr(v) for v in expected]
    doc = json.loads(json.dumps(SEED004))
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    from gradviz.graph.cli_commands import run_command

    code, text = run_command(str(path))
    assert code == 0
    assert '"value": [[0.8363, 0.4719, 0.9783], [0.3379' in text


@pytest.mark.cpu_independent("the exit status and the traced document's title: nothing computed is compared")
def test_trace_of_a_script_with_an_odd_file_name_saves_a_loadable_title(tmp_path):
    import os

    script = os.fsdecode(os.fsencode(str(tmp_path)) + b"/odd\x01name\xff.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write("import gradviz as tf\nx = tf.Variable(3.0)\nwith tf.GradientTape() as t:\n"
                "    y = x * x\nprint(t.gradient(y, x))\n")
    out = tmp_path / "g.json"
    result = _gradviz("trace", os.fsencode(script).decode("utf-8", "surrogateescape"), "-o", out)
    assert result.returncode == 0, result.stderr
    from gradviz import graph

    assert graph.load(out).title == "Traced odd?name?"


def test_a_nan_seed_is_a_warning_on_the_seed_and_explain_prints_it(tmp_path, capsys):
    from gradviz.cli import main

    doc = json.loads(json.dumps(SEED004))
    doc["output_gradients"] = {"y": {"dtype": "float32", "shape": [5, 3],
                                     "data": ["nan"] + [1.0] * 14}}
    path = tmp_path / "og_nan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["explain", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == (f"gradviz: warning: {path}: output_gradients 'y': the seed holds NaN "
                            "or infinity\n")
    assert re.search(r"\[ +nan ", captured.out)     # right-aligned in the story's format


# -- a graph that loads but cannot be computed: refused here, opened by the app ----------------
def _mismatched(tmp_path):
    doc = json.loads(json.dumps(SEED004))
    doc["nodes"][1]["value"] = {"shape": [4, 2], "dtype": "float32", "data": [0.5] * 8}
    path = tmp_path / "mismatch.gradviz.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_the_command_to_open_it_in_the_app_runs_as_pasted(tmp_path, capsys):
    """The suggested `gradviz PATH` is quoted for the shell where the path needs it (a
    teacher's 'My Class' folder): unquoted, the pasted command opened two wrong files."""
    import shlex
    from gradviz.cli import main

    folder = tmp_path / "My Class"
    folder.mkdir()
    path = _mismatched(tmp_path).rename(folder / "mismatch.gradviz.json")
    assert main(["run", str(path)]) == 2
    suggested = capsys.readouterr().err.strip().rsplit("to be mended there: ", 1)[1]
    assert shlex.split(suggested.removesuffix(")")) == ["gradviz", str(path)]


@pytest.mark.parametrize("command", ["run", "explain", "export", "train"])
def test_a_shape_mismatch_exits_2_and_says_the_app_opens_the_file(tmp_path, capsys, command):
    """The commands' output would be wrong or missing, so they refuse the file (exit 2); the
    app opens it with the node in error, and the one line says so, naming the node."""
    from gradviz.app.controller import DocumentController
    from gradviz.cli import main

    path = _mismatched(tmp_path)
    extra = ["-o", str(tmp_path / "x.png")] if command == "export" else []
    assert main([command, str(path), *extra]) == 2
    line, = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"gradviz: error: {path}: node 'y': matmul shapes do not match")
    assert line.endswith(f" (the app opens this file and shows node 'y' in error, to be mended "
                         f"there: gradviz {path})")
    controller = DocumentController()          # what the app does with it: opens it, y in error
    controller.open(str(path))
    assert [p.node for p in controller.result.node_problems.get("y", [])] == ["y"]


def test_files_the_app_cannot_open_either_get_no_word_about_it(tmp_path, capsys, seed_file):
    from gradviz.cli import main

    bad = tmp_path / "bad.gradviz.json"
    bad.write_text('{"format": "gradviz", "nodes": [,]}', encoding="utf-8")
    assert main(["run", str(bad)]) == 2
    assert main(["export", str(_mismatched(tmp_path)), "-o", str(tmp_path / "x.png"), "--scale", "0"]) == 2
    assert "the app opens" not in capsys.readouterr().err


def test_help_says_the_app_opens_a_graph_that_cannot_be_computed(capsys):
    from gradviz.cli import main

    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("A graph that cannot be computed (a shape mismatch, say) still opens in the app "
            "(gradviz FILE), which shows the node in error") in text


def test_the_error_is_written_before_the_app_s_view_of_the_file_is_worked_out(
        tmp_path, monkeypatch, capsys):
    """Whether the app opens a refused file is known only once every value is read (9 s of
    a 2000 x 2000 tensor under load, issue 20): the line's message is written first."""
    import gradviz.cli as cli

    path = _mismatched(tmp_path)
    said = []

    def opens_in_app(file, message):
        said.append(capsys.readouterr().err)
        return " (the app opens this file)"
    monkeypatch.setattr(cli, "_opens_in_app", opens_in_app)
    assert cli.main(["run", str(path)]) == 2
    assert len(said) == 1 and not said[0].endswith("\n")
    assert said[0].startswith(f"gradviz: error: {path}: node 'y': matmul shapes do not match")
    assert capsys.readouterr().err == " (the app opens this file)\n"
