"""The CLI over the hostile corpus (tests/hostile_corpus.py): each document runs or is
refused with status 2 and one line in words, at once, never a traceback."""
import json
import os
import time

import pytest

from gradviz import cli

import hostile_corpus


@pytest.mark.parametrize("name", hostile_corpus.NAMES)
def test_run_refuses_or_runs_every_hostile_document(name, tmp_path, capsys):
    path = hostile_corpus.make(name, tmp_path)
    start = time.perf_counter()
    code = cli.main(["run", path])
    took = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err and "Traceback" not in out
    if code == 2:
        assert err.startswith("gradviz: error:") and len(err.strip().splitlines()) == 1, err
    assert took < 30, f"{name}: {took:.1f} s"


def _cli(args, capsys):
    code = cli.main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return code, out, err


@pytest.mark.parametrize("name", sorted(hostile_corpus.ZERO_SIZE))
def test_zero_size_documents_run_explain_and_export(name, tmp_path, capsys):
    """Each op with an empty input (issue 25 §4): run gives the empty (or identity) result
    and its studies, explain tells the story, export draws the graph and the last step;
    the few TF refuses too are refused in words, with the node named."""
    path = hostile_corpus.make(name, tmp_path)
    code, out, err = _cli(["run", path], capsys)
    if name in hostile_corpus.REFUSED:
        assert code == 2 and "node 'op'" in err and "is empty" in err, err
        return
    assert code == 0, err
    result = json.loads(out)
    asked = hostile_corpus.ZERO_SIZE[name]["studies"]
    assert result["values"]["loss"]["shape"] == [] and set(result["studies"]) == set(asked)
    code, out, err = _cli(["explain", path], capsys)
    assert code == 0 and "Backpropagation, step by step" in out, err
    for args in (["-o", str(tmp_path / "g.png")], ["--step", "-1", "-o", str(tmp_path / "s.svg")]):
        code, out, err = _cli(["export", path, *args], capsys)
        assert code == 0 and os.path.getsize(args[-1]) > 0, err


@pytest.mark.parametrize("name, value", [
    ("zero_reduce_max_all", "-inf"), ("zero_reduce_min_all", "inf"),
    ("zero_reduce_logsumexp_all", "-inf"), ("zero_reduce_sum_all", 0.0),
    ("zero_reduce_prod_all", 1.0), ("zero_reduce_mean_all", "nan"), ("zero_norm_all", 0.0)])
def test_empty_reductions_give_tfs_values(name, value, tmp_path, capsys):
    """TF: max/min of nothing are Eigen's reducer identities (-inf / +inf), logsumexp is
    log 0 = -inf, the mean 0/0 = NaN (a warning names the node), sum 0 and product 1."""
    code, out, err = _cli(["run", hostile_corpus.make(name, tmp_path)], capsys)
    assert code == 0, err
    assert json.loads(out)["values"]["op"]["value"] == value


@pytest.mark.parametrize("name", sorted(hostile_corpus.ABSURD))
def test_absurd_dimensions_are_refused_naming_the_place(name, tmp_path, capsys):
    """[0, 10**100], [0] + [10**6] * 7, negative, non-integer and boolean dimensions, huge
    attribute entries and axes, negative indices: one line naming the node and the field
    (issue 25 §4); numpy's own words used to leak ("Maximum allowed dimension exceeded")."""
    path = hostile_corpus.make(name, tmp_path)
    code, out, err = _cli(["run", path], capsys)
    expected = hostile_corpus.ABSURD[name][1]
    assert code == 2 and err.startswith(f"gradviz: error: {path}: ") and err.count("\n") == 1, err
    assert expected in err, err
    for numpy_words in ("Maximum allowed dimension", "array is too big", "C long", "integral"):
        assert numpy_words not in err
