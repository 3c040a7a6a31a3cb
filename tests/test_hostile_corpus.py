"""The CLI over the hostile corpus (tests/hostile_corpus.py): each document runs or is
refused with status 2 and one line in words, at once, never a traceback."""
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
